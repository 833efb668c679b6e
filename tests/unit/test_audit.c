/* Fleet audit: discovery order, totals, thread-count independence, failed
 * profiles, and a proof that consolidation keeps every packed endpoint's
 * SLO and memory headroom and never costs more. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rightsize/audit.h"
#include "rightsize/catalog.h"
#include "rightsize/pipeline.h"
#include "queue.h"
#include "test_support.h"

#define FLEET RS_SOURCE_DIR "/profiles/fleet"

/* The built-in catalog at on-demand prices, through the pipeline every
 * command opens; it lives in arena as the options point to it. */
static const rs_pipeline *opened(rs_arena *arena) {
  rs_pipeline_options po;
  rs_pipeline *p = rs_arena_alloc(arena, sizeof(*p));
  rs_error err;
  assert_non_null(p);
  rs_error_clear(&err);
  rs_pipeline_options_init(&po);
  assert_int_equal(rs_pipeline_open(p, arena, &po, &err), RS_OK);
  return p;
}

static rs_audit *audit(rs_arena *arena, const char *dir, unsigned threads, bool consolidate,
                       rs_audit_options *o) {
  const char **files;
  size_t n;
  rs_audit *a;
  rs_error err;
  rs_error_clear(&err);
  memset(o, 0, sizeof(*o));
  o->pipeline = opened(arena);
  o->threads = threads;
  o->consolidate = consolidate;
  assert_int_equal(rs_audit_discover(&files, &n, arena, &dir, 1, &err), RS_OK);
  assert_int_equal(rs_audit_run(&a, files, n, o, &err), RS_OK);
  if (consolidate)
    assert_int_equal(rs_audit_consolidate(a, arena, o, &err), RS_OK);
  return a;
}

static void touch(const char *path) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  const char *dot = strrchr(path, '.');
  fputs(dot && strcmp(dot, ".json") == 0 ? "{\"schema\": 1}\n" : "schema: 1\n", f);
  fclose(f);
}

static void test_discover(void **state) {
  char dir[] = "/tmp/rs-audit-XXXXXX", p[512];
  const char **files;
  size_t n;
  rs_error err;
  assert_non_null(mkdtemp(dir));
  snprintf(p, sizeof(p), "%s/b", dir);
  assert_int_equal(mkdir(p, 0700), 0);
  snprintf(p, sizeof(p), "%s/.hidden", dir);
  assert_int_equal(mkdir(p, 0700), 0);
  static const char *const names[] = {"b/z.yml",   "a.yaml",         "b/a.json", "c.csv",
                                      ".dot.yaml", ".hidden/x.yaml", "B.yaml"};
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
    touch(p);
  }
  const char *paths[] = {dir, NULL};
  snprintf(p, sizeof(p), "%s/a.yaml", dir); /* also named directly: listed once */
  paths[1] = p;
  rs_error_clear(&err);
  assert_int_equal(rs_audit_discover(&files, &n, *state, paths, 2, &err), RS_OK);
  assert_int_equal(n, 4);
  static const char *const want[] = {"B.yaml", "a.yaml", "b/a.json", "b/z.yml"};
  for (size_t i = 0; i < n; i++) {
    char expect[512];
    snprintf(expect, sizeof(expect), "%s/%s", dir, want[i]);
    assert_string_equal(files[i], expect);
  }
  /* a dot directory named directly is walked; an empty one finds nothing */
  snprintf(p, sizeof(p), "%s/.hidden", dir);
  paths[0] = p;
  assert_int_equal(rs_audit_discover(&files, &n, *state, paths, 1, &err), RS_OK);
  assert_int_equal(n, 1);
  snprintf(p, sizeof(p), "%s/b/empty", dir);
  assert_int_equal(mkdir(p, 0700), 0);
  assert_int_equal(rs_audit_discover(&files, &n, *state, paths, 1, &err), RS_INVALID);
  rmdir(p);
  paths[0] = "/nonexistent/rightsize";
  assert_int_equal(rs_audit_discover(&files, &n, *state, paths, 1, &err), RS_IO);
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
    unlink(p);
  }
  snprintf(p, sizeof(p), "%s/b", dir);
  rmdir(p);
  snprintf(p, sizeof(p), "%s/.hidden", dir);
  rmdir(p);
  rmdir(dir);
}

/* The row's profile fitted again on its own, apart from the audit. */
static const rs_fit_result *fit_of(rs_arena *arena, const rs_pipeline *p, const rs_audit_row *r) {
  rs_fit_result *f;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_pipeline_fit(&f, arena, p, r->path, &err), RS_OK);
  assert_string_equal(f->summary->profile->endpoint, r->endpoint);
  return f;
}

/* Totals are the sums of the rows; rows are ranked by savings. */
static void test_totals(void **state) {
  rs_audit_options o;
  rs_audit *a = audit(*state, FLEET, 0, false, &o);
  double now = 0, after = 0;
  assert_int_equal(a->nrows, 24);
  assert_int_equal(a->nfailed, 0);
  for (size_t i = 0; i < a->nrows; i++) {
    now += a->rows[i].now_month;
    after += a->rows[i].after_month;
    assert_true(fabs(a->rows[i].savings_month - (a->rows[i].now_month - a->rows[i].after_month)) <
                1e-9);
    if (i)
      assert_true(a->rows[i - 1].savings_month >= a->rows[i].savings_month);
  }
  assert_true(fabs(a->now_month - now) < 1e-6);
  assert_true(fabs(a->after_month - after) < 1e-6);
  assert_true(fabs(a->savings_month - (now - after)) < 1e-6);
  assert_true(fabs(a->savings_pct - a->savings_month / a->now_month * 100.0) < 1e-9);
  assert_ptr_equal(a->catalog, o.pipeline->catalog);
  for (size_t i = 0; i < a->nrows; i++) {
    const rs_audit_row *r = &a->rows[i];
    /* the row's "now" is the fit's own current $/month, not recomputed */
    assert_true(r->now_month == fit_of(*state, o.pipeline, r)->current.usd_per_month);
    if (r->now_month > 0)
      assert_true(fabs(r->savings_pct - r->savings_month / r->now_month * 100.0) < 1e-9);
  }
  rs_audit_free(a);
}

/* One thread or four: the same rows in the same order, the same packing. */
static void test_threads(void **state) {
  rs_audit_options o1, o4;
  rs_audit *a = audit(*state, FLEET, 1, true, &o1), *b = audit(*state, FLEET, 4, true, &o4);
  assert_int_equal(a->nrows, b->nrows);
  for (size_t i = 0; i < a->nrows; i++) {
    assert_string_equal(a->rows[i].path, b->rows[i].path);
    assert_true(a->rows[i].after_month == b->rows[i].after_month);
  }
  assert_int_equal(a->consolidation->packed, b->consolidation->packed);
  assert_true(a->consolidation->month == b->consolidation->month);
  assert_true(a->consolidation->savings_month == b->consolidation->savings_month);
  assert_true(a->consolidation->fleet_month == b->consolidation->fleet_month);
  rs_audit_free(a);
  rs_audit_free(b);
}

static const rs_candidate *on_shape(const rs_fit_result *f, const rs_instance *shape) {
  for (size_t i = 0; i < f->nfitting; i++)
    if (f->fitting[i].inst == shape)
      return &f->fitting[i];
  return NULL;
}

/* Every packed endpoint, recomputed from its own fit on the shared shape:
 * memory with headroom and utilization per device, host CPU and memory per
 * instance, and its latency at its SLO quantile under the shared queue. */
static void test_consolidation_is_safe(void **state) {
  rs_audit_options o;
  rs_audit *a = audit(*state, FLEET, 0, true, &o);
  const rs_consolidation *c = a->consolidation;
  bool *seen = calloc(a->nrows, sizeof(bool));
  assert_non_null(c);
  assert_true(c->npackings > 0);
  assert_true(c->month < c->baseline_month); /* the fleet example saves money */
  size_t packed = 0;
  double month = 0, baseline = 0;
  for (size_t k = 0; k < c->npackings; k++) {
    const rs_packing *p = &c->packings[k];
    const rs_instance *shape = p->shape;
    double pm = 0, pb = 0;
    for (size_t i = 0; i < p->ninstances; i++) {
      const rs_packed_instance *pi = &p->instances[i];
      double inst_base = 0, cpu = 0, hmem = 0;
      assert_true(pi->nendpoints >= 2);
      for (unsigned d = 0; d < pi->devices_used; d++) {
        double mem = 0, util = 0, lambda = 0, h1 = 0, h2 = 0;
        for (size_t j = 0; j < pi->nendpoints; j++) {
          if (pi->endpoints[j].device != d)
            continue;
          const rs_fit_result *f = fit_of(*state, o.pipeline, &a->rows[pi->endpoints[j].row]);
          const rs_candidate *cand = on_shape(f, shape);
          assert_non_null(cand); /* it fits the shape on its own */
          const rs_demand *dm = &f->demand;
          mem += dm->mem_need_head;
          util += dm->design_peak * cand->service_s;
          lambda += dm->design_peak;
          h1 += dm->design_peak * cand->queue_s;
          h2 += dm->design_peak * cand->queue_s * cand->queue_s * (1 + cand->cs2);
        }
        assert_true(mem <= shape->accelerator_memory_bytes);
        assert_true(util <= o.pipeline->fit.max_util + 1e-12);
        for (size_t j = 0; j < pi->nendpoints; j++) {
          if (pi->endpoints[j].device != d)
            continue;
          const rs_audit_row *r = &a->rows[pi->endpoints[j].row];
          const rs_fit_result *f = fit_of(*state, o.pipeline, r);
          const rs_candidate *cand = on_shape(f, shape);
          const rs_demand *dm = &f->demand;
          double mean = h1 / lambda, cs2 = h2 / lambda / (mean * mean) - 1;
          rs_queue q = {1, lambda, mean, 1.0, cs2};
          /* its own service time plus the shared wait: the quantile of the sum */
          double s50 = cand->service_q_ms / 1e3 /
                       exp(sqrt(log1p(cand->cs2)) * rs_normal_quantile(dm->slo_quantile));
          double lat = rs_queue_response_quantile(&q, s50, cand->cs2, dm->slo_quantile) * 1e3;
          if (!(lat <= dm->slo_ms))
            fail_msg("%s: p%.0f %.2f ms > SLO %.0f ms", r->endpoint, dm->slo_quantile * 100, lat,
                     dm->slo_ms);
          assert_true(fabs(lat - pi->endpoints[j].latency_ms) < 1e-9);
        }
      }
      for (size_t j = 0; j < pi->nendpoints; j++) {
        size_t row = pi->endpoints[j].row;
        const rs_fit_result *f = fit_of(*state, o.pipeline, &a->rows[row]);
        const rs_demand *dm = &f->demand;
        assert_false(seen[row]); /* packed once */
        seen[row] = true;
        packed++;
        inst_base += a->rows[row].after_month;
        cpu += dm->cpu_known ? dm->cpu_base_vcpus + dm->design_peak * dm->cpu_vcpu_s_per_req : 0;
        const rs_candidate *cand = on_shape(f, shape);
        hmem += isnan(cand->host_mem_need) ? 0 : cand->host_mem_need;
      }
      assert_true(cpu <= o.pipeline->fit.max_util * shape->vcpus + 1e-9);
      assert_true(hmem <= shape->memory_bytes);
      double price = shape->price_usd_per_hour * RS_FIT_HOURS_PER_MONTH;
      assert_true(p->instance_month == price); /* what the writers print per instance */
      assert_true(price < inst_base);          /* each shared instance saves on its own */
      pm += price;
      pb += inst_base;
    }
    assert_true(fabs(pm - p->month) < 1e-6 && fabs(pb - p->baseline_month) < 1e-6);
    /* the bound is one no packing of them goes under, and this one meets it or not */
    assert_true(p->lower_bound >= 1 && p->lower_bound <= p->ninstances);
    month += pm;
    baseline += pb;
  }
  assert_int_equal(packed, c->packed);
  assert_true(fabs(month - c->month) < 1e-6 && fabs(baseline - c->baseline_month) < 1e-6);
  /* the totals the writers print, computed here once */
  assert_true(fabs(c->savings_month - (baseline - month)) < 1e-6);
  assert_true(fabs(c->fleet_month - (a->after_month - c->savings_month)) < 1e-6);
  free(seen);
  rs_audit_free(a);
}

/* --max-per-instance: no shared instance carries more, and it still saves. */
static void test_max_per_instance(void **state) {
  rs_audit_options o;
  rs_audit *a = audit(*state, FLEET, 0, true, &o); /* the rows keep what packing needs */
  rs_error err;
  o.max_per_instance = 3;
  rs_error_clear(&err);
  assert_int_equal(rs_audit_consolidate(a, *state, &o, &err), RS_OK);
  const rs_consolidation *c = a->consolidation;
  assert_true(c->packed > 0 && c->month < c->baseline_month);
  for (size_t k = 0; k < c->npackings; k++)
    for (size_t i = 0; i < c->packings[k].ninstances; i++) {
      size_t n = c->packings[k].instances[i].nendpoints;
      assert_true(n >= 2 && n <= 3);
    }
  rs_audit_free(a);
}

/* Sample files next to a profile are inputs, not failed profiles: exported
 * JSON is told apart by its content, a mapping YAML by the profile that
 * reads it. */
static void test_inputs_are_not_profiles(void **state) {
  rs_audit_options o;
  rs_audit *a = audit(*state, RS_TEST_DATA "/exports", 1, false, &o);
  assert_int_equal(a->nrows, 1);
  assert_int_equal(a->nfailed, 0);
  assert_string_equal(a->rows[0].endpoint, "sagemaker-bert");
  rs_audit_free(a);
}

/* A broken profile is kept with its position; the rest are audited. */
static void test_failed_profile(void **state) {
  rs_audit_options o;
  rs_audit *a = audit(*state, RS_SOURCE_DIR "/tests/cli/data/fleet-broken", 2, true, &o);
  assert_int_equal(a->nrows, 3);
  assert_int_equal(a->nfailed, 1);
  const rs_audit_row *bad = &a->rows[2]; /* failed rows last */
  assert_false(bad->ok);
  assert_non_null(bad->err);
  assert_int_equal(bad->err->status, RS_INVALID);
  assert_int_equal(bad->err->line, 5);
  assert_non_null(strstr(bad->err->msg, "current.replicas"));
  assert_null(a->rows[0].err);
  assert_true(a->rows[0].ok && a->rows[1].ok);
  assert_true(fabs(a->now_month - a->rows[0].now_month - a->rows[1].now_month) < 1e-9);
  rs_audit_free(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_discover, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_totals, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_threads, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_consolidation_is_safe, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_max_per_instance, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_inputs_are_not_profiles, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_failed_profile, setup_arena, teardown_arena),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
