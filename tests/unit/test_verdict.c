/* The sizing policy (verdict.c): the vocabulary both ways, the price age,
 * every rule on the profiles built for it (tests/cli/data/generate_rules.py),
 * the framework table, and the fleet: no shipped endpoint under 20% peak
 * utilization is kept while a cheaper allowed shape holds its memory. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rightsize/catalog.h"
#include "rightsize/fit.h"
#include "rightsize/pricing.h"
#include "rightsize/profile.h"
#include "rightsize/summary.h"
#include "test_fit_support.h"
#include "test_support.h"

static void test_names(void **state) {
  (void)state;
  for (unsigned i = 0; i < RS_VERDICT_COUNT; i++) {
    rs_verdict_code back;
    assert_int_equal(rs_verdict_from_name(&back, rs_verdict_name((rs_verdict_code)i)), RS_OK);
    assert_int_equal(back, i);
  }
  rs_verdict_code v;
  assert_int_equal(rs_verdict_from_name(&v, "keep"), RS_USAGE);
  assert_string_equal(rs_verdict_name(RS_VERDICT_KEEP), "keep-right-sized");
  assert_string_equal(rs_verdict_name(RS_VERDICT_COUNT), "unknown");
  assert_string_equal(rs_action_name(RS_ACTION_REVIEW), "review");
  assert_string_equal(rs_constraint_name(RS_CONSTRAINT_FRAMEWORK), "framework");
}

static void test_price_age(void **state) {
  (void)state;
  assert_int_equal(rs_fit_price_age("2026-01-21", "2026-12-02"), 315);
  assert_int_equal(rs_fit_price_age("2026-01-21", "2026-01-21"), 0);
  assert_int_equal(rs_fit_price_age("2026-01-21", "2025-12-31"), 0); /* never negative */
  assert_int_equal(rs_fit_price_age("2024-02-28", "2024-03-01"), 2); /* a leap day */
  assert_int_equal(rs_fit_price_age("2026-01-21", "soon"), -1);
  assert_true(rs_fit_date_valid("2024-02-29"));
  assert_false(rs_fit_date_valid("2026-02-29"));
  assert_false(rs_fit_date_valid("2026-04-31"));
  assert_false(rs_fit_date_valid("2026-13-01"));
  assert_false(rs_fit_date_valid("2026-1-01"));
  assert_false(rs_fit_date_valid(NULL));
}

static bool inferentia(const rs_candidate *c) {
  return c->inst->accelerator && c->inst->accelerator->family == RS_ACCEL_INFERENTIA;
}

static rs_fit_result *rule(rs_arena *arena, const char *name, const rs_fit_options *o) {
  char path[256];
  snprintf(path, sizeof(path), "tests/cli/data/rules/%s.yaml", name);
  return fit_shipped(arena, path, o);
}

static void test_rules(void **state) {
  rs_arena *arena = *state;
  rs_fit_result *r = rule(arena, "zero-traffic", NULL);
  assert_int_equal(r->verdict.code, RS_VERDICT_NO_TRAFFIC);
  assert_int_equal(r->verdict.action, RS_ACTION_REVIEW);
  assert_float_equal(r->verdict.wasted_month, r->current_usd_hour * 730.0, 1e-9);
  r = rule(arena, "idle", NULL);
  assert_int_equal(r->verdict.code, RS_VERDICT_IDLE);
  assert_true(r->verdict.wasted_month > 0);
  r = rule(arena, "idle-devices", NULL);
  assert_int_equal(r->verdict.code, RS_VERDICT_IDLE_DEVICES);
  assert_int_equal(r->verdict.action, RS_ACTION_MOVE);
  assert_int_equal(r->verdict.idle_devices, 3);
  assert_float_equal(r->verdict.wasted_month, r->current_usd_hour * 730.0 * 3.0 / 4.0, 1e-6);
  /* spiky: sized on the observed max, not the p99 */
  r = rule(arena, "spiky", NULL);
  assert_true(r->demand.design_peak == r->demand.observed_peak);
  assert_non_null(strstr(r->demand.peak_basis, "spiky"));
  assert_non_null(r->verdict.target);
  assert_true(r->verdict.target->util <= RS_FIT_MAX_UTIL + 1e-9); /* at the max */
  /* load test and chaos: no move, unless the peak is named as a rate */
  r = rule(arena, "loadtest", NULL);
  assert_int_equal(r->verdict.code, RS_VERDICT_UNTRUSTED_DATA);
  assert_null(r->verdict.target);
  r = rule(arena, "chaos", NULL);
  assert_int_equal(r->verdict.code, RS_VERDICT_UNTRUSTED_DATA);
  rs_fit_options o;
  rs_fit_options_init(&o);
  o.peak_set = true;
  o.peak = RS_PEAK_MAX; /* a percentile of the test's own traffic is not a named peak */
  r = rule(arena, "loadtest", &o);
  assert_int_equal(r->verdict.code, RS_VERDICT_UNTRUSTED_DATA);
  o.peak = RS_PEAK_RPS;
  o.peak_rps = 10;
  r = rule(arena, "loadtest", &o);
  assert_int_equal(r->verdict.code, RS_VERDICT_MOVE);
  assert_non_null(r->verdict.target);
  /* near the memory limit: the cheaper T4 shape is passed over, keep */
  r = rule(arena, "near-memory", NULL);
  assert_int_equal(r->verdict.code, RS_VERDICT_KEEP);
  assert_non_null(r->verdict.passed_over);
  assert_true(r->demand.mem_need_head > 0.9 * r->verdict.passed_over->mem_capacity);
  /* a move past it: the target keeps the margin, the cheaper fit is named */
  r = rule(arena, "near-memory-move", NULL);
  assert_int_equal(r->verdict.code, RS_VERDICT_MOVE);
  assert_ptr_equal(r->verdict.passed_over, &r->fitting[0]);
  assert_true(r->verdict.target != &r->fitting[0]);
  assert_true(r->demand.mem_need_head <=
              (1.0 - RS_FIT_MEM_MARGIN) * r->verdict.target->mem_capacity);
  /* a suspect price never decides */
  const char *gcp[] = {"gcp"};
  rs_fit_options_init(&o);
  o.providers = gcp;
  o.nproviders = 1;
  r = rule(arena, "suspect-price", &o);
  assert_int_equal(r->fitting[0].inst->price_flag, RS_PRICE_SUSPECT);
  assert_int_equal(r->verdict.code, RS_VERDICT_KEEP);
  assert_ptr_equal(r->verdict.passed_over, &r->fitting[0]);
}

/* onnxruntime never goes to Inferentia unless --allow says so. */
static void test_framework(void **state) {
  rs_arena *arena = *state;
  rs_fit_result *r = rule(arena, "onnxruntime", NULL);
  size_t neuron = 0;
  for (size_t i = 0; i < r->nfitting; i++)
    assert_false(inferentia(&r->fitting[i]));
  for (size_t i = 0; i < r->nrejected; i++)
    if (inferentia(&r->rejected[i])) {
      assert_int_equal(r->rejected[i].failed, RS_CONSTRAINT_FRAMEWORK);
      neuron++;
    }
  assert_true(neuron > 0);
  assert_int_equal(r->verdict.code, RS_VERDICT_MOVE);
  rs_fit_options o;
  rs_fit_options_init(&o);
  o.families = RS_FAMILY_NVIDIA_GPU | RS_FAMILY_INFERENTIA;
  r = rule(arena, "onnxruntime", &o);
  for (size_t i = 0; i < r->nrejected; i++)
    assert_int_not_equal(r->rejected[i].failed, RS_CONSTRAINT_FRAMEWORK);
}

/* The acceptance rule on the shipped fleet. */
static void test_fleet(void **state) {
  rs_arena *arena = *state;
  char dir[1024];
  snprintf(dir, sizeof(dir), "%s/profiles/fleet", RS_SOURCE_DIR);
  DIR *d = opendir(dir);
  assert_non_null(d);
  size_t n = 0, low = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    size_t len = strlen(e->d_name);
    if (len < 6 || strcmp(e->d_name + len - 5, ".yaml") != 0)
      continue;
    char path[512];
    snprintf(path, sizeof(path), "profiles/fleet/%s", e->d_name);
    rs_fit_result *r = fit_shipped(arena, path, NULL);
    n++;
    if (!(r->verdict.peak_util_pct < RS_FIT_UNDERUSED_PCT))
      continue;
    low++;
    if (r->verdict.code != RS_VERDICT_KEEP)
      continue;
    double now = r->demand.source->price_usd_per_hour;
    for (size_t i = 0; i < r->nfitting + r->nrejected; i++) {
      const rs_candidate *c = i < r->nfitting ? &r->fitting[i] : &r->rejected[i - r->nfitting];
      bool holds = c->fits || c->failed == RS_CONSTRAINT_SPEC;
      if (holds && c->inst->price_usd_per_hour < now && c->inst->price_flag != RS_PRICE_SUSPECT)
        fail_msg("%s: kept at %.1f%% peak utilization while %s holds its memory for less", path,
                 r->verdict.peak_util_pct, c->inst->name);
    }
  }
  closedir(d);
  assert_int_equal(n, 24);
  assert_true(low >= 4);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_names),
      cmocka_unit_test(test_price_age),
      cmocka_unit_test_setup_teardown(test_rules, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_framework, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_fleet, setup_arena, teardown_arena),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
