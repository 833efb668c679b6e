/* Every shipped profile loads and summarizes, and on that real data the
 * sketch's quantiles agree with --exact within RS_SKETCH_ALPHA. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>

#include "rightsize/profile.h"
#include "sketch.h"
#include "rightsize/summary.h"

static const char *const shipped[] = {
    RS_SOURCE_DIR "/profiles/resnet50-p3.8xlarge.yaml",
    RS_SOURCE_DIR "/profiles/llama2-7b-vllm-a100.yaml",
    RS_SOURCE_DIR "/profiles/distilbert-intent-g4dn.yaml",
    RS_SOURCE_DIR "/profiles/resnet50-loadtest.yaml",
};

static void check_within_bound(const rs_metric_stats *a, const rs_metric_stats *e,
                               const char *what) {
  assert_int_equal(a->count, e->count);
  if (e->count == 0)
    return;
  assert_true(e->exact);
  assert_false(a->exact);
  assert_true(a->min == e->min && a->max == e->max);
  for (int q = 0; q < RS_QUANTILE_COUNT; q++) {
    double err = fabs(a->q[q] - e->q[q]);
    if (err > RS_SKETCH_ALPHA * e->q[q] + 1e-9) {
      fprintf(stderr, "%s q%d: sketch %.6g exact %.6g\n", what, q, a->q[q], e->q[q]);
      fail();
    }
  }
}

static void summarize(const char *path, bool exact, rs_arena *arena, rs_summary **out) {
  rs_profile *p;
  rs_error err;
  rs_summary_options o = {.stats = {.exact = exact}, .format = RS_FORMAT_AUTO};
  rs_error_clear(&err);
  assert_int_equal(rs_profile_load(&p, arena, path, &err), RS_OK);
  assert_int_equal(rs_summary_from_profile(out, arena, p, &o, &err), RS_OK);
}

static void test_sketch_agrees_with_exact(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++) {
    rs_arena arena;
    rs_summary *a, *e;
    rs_arena_init(&arena, 0);
    summarize(shipped[i], false, &arena, &a);
    summarize(shipped[i], true, &arena, &e);
    assert_true(a->stats.coverage.rows > 0);
    for (int m = 0; m < RS_METRIC_COUNT; m++)
      check_within_bound(&a->stats.m[m], &e->stats.m[m], rs_metric_key((rs_metric)m));
    assert_int_equal(a->stats.ndevices, e->stats.ndevices);
    for (size_t d = 0; d < a->stats.ndevices; d++)
      for (int m = 0; m < RS_METRIC_COUNT; m++)
        check_within_bound(&a->stats.devices[d].m[m], &e->stats.devices[d].m[m],
                           rs_metric_key((rs_metric)m));
    rs_arena_release(&arena);
  }
}

static void test_canonical_case_facts(void **state) {
  (void)state;
  rs_arena arena;
  rs_summary *s;
  const double gib = 1024.0 * 1024.0 * 1024.0;
  rs_arena_init(&arena, 0);
  summarize(shipped[0], true, &arena, &s);
  /* The brief: about 3 GB and 15% of one V100, three idle, about 10 req/s. */
  assert_int_equal(s->stats.ndevices, 4);
  assert_int_equal(s->stats.busiest_device, 0);
  const rs_metric_stats *mem = &s->stats.devices[0].m[RS_METRIC_GPU_MEM_USED];
  const rs_metric_stats *util = &s->stats.devices[0].m[RS_METRIC_GPU_UTIL];
  assert_true(mem->mean > 2.5 * gib && mem->max < 3.5 * gib);
  assert_true(util->mean > 12.0 && util->mean < 18.0);
  for (size_t d = 1; d < 4; d++)
    assert_true(s->stats.devices[d].m[RS_METRIC_GPU_UTIL].max < 1.0);
  const rs_metric_stats *rate = &s->stats.m[RS_METRIC_REQUEST_RATE];
  assert_true(rate->mean > 8.0 && rate->mean < 12.0);
  assert_true(s->stats.coverage.duration_s > 6.9 * 86400.0);
  assert_true(s->stats.coverage.gaps >= 2);
  rs_arena_release(&arena);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sketch_agrees_with_exact),
      cmocka_unit_test(test_canonical_case_facts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
