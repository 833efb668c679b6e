/* The back-test: a week of minutes simulated request by request (Poisson
 * arrivals, host time that never queues, then one GPU at a time in arrival
 * order) goes through the real statistics; the service model fitted to it
 * must predict the observed p99 at every load, recover the service's own
 * median, and not count the queueing twice. Data that contradicts itself
 * is flagged. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rightsize/catalog.h"
#include "rightsize/fit.h"
#include "rightsize/pricing.h"
#include "rightsize/profile.h"
#include "rightsize/stats.h"
#include "rightsize/summary.h"
#include "queue.h"
#include "test_support.h"
#include "test_fit_support.h"

#define GIB 1073741824.0
#define T0 1764507600.0
#define HOST_MS 2.0   /* median host time */
#define DEVICE_MS 8.0 /* median GPU time per request */
#define MINUTES 3000

typedef struct world {
  rs_profile p;
  rs_summary s;
  rs_catalog *cat;
  rs_fit_options o;
} world;

static double lognormal(rng *r, double median, double cs2) {
  return median * exp(sqrt(log1p(cs2)) * rng_normal(r));
}

/* One minute at rate through the host and the GPU; fills the row's rate,
 * p50/p99 latency and GPU utilization (busy_scale x the true busy time). */
static double simulate_minute(rng *r, double rate, double free_at, rs_sample *s,
                              double busy_scale) {
  static double lat[20000];
  size_t n = 0;
  double t = 0, busy = 0;
  for (;;) {
    t += -log(rng_uniform(r)) / rate;
    if (t >= 60.0 || n == sizeof(lat) / sizeof(lat[0]))
      break;
    double host = lognormal(r, HOST_MS, 0.3) / 1e3, svc = lognormal(r, DEVICE_MS, 0.05) / 1e3;
    double begin = t > free_at ? t : free_at;
    free_at = begin + svc;
    busy += svc;
    lat[n++] = (host + free_at - t) * 1e3;
  }
  qsort(lat, n, sizeof(lat[0]), cmp_double);
  s->present = (1u << RS_METRIC_REQUEST_RATE) | (1u << RS_METRIC_LATENCY_P50) |
               (1u << RS_METRIC_LATENCY_P99) | (1u << RS_METRIC_GPU_UTIL) |
               (1u << RS_METRIC_GPU_MEM_USED);
  s->v[RS_METRIC_REQUEST_RATE] = (double)n / 60.0;
  s->v[RS_METRIC_LATENCY_P50] = lat[(size_t)(0.5 * (double)(n - 1))];
  s->v[RS_METRIC_LATENCY_P99] = lat[(size_t)(0.99 * (double)(n - 1))];
  s->v[RS_METRIC_GPU_UTIL] = fmin(100.0, 1.0 + busy / 60.0 * 100.0 * busy_scale);
  s->v[RS_METRIC_GPU_MEM_USED] = 3 * GIB;
  return free_at > 60.0 ? free_at - 60.0 : 0.0;
}

/* A two-day history: load swings daily from 5 to top req/s (85: utilization
 * up to about 70 %), the GPU's utilization counted busy_scale times its
 * truth. */
static void world_init(world *w, rs_arena *arena, double busy_scale, double top) {
  rs_error err;
  rs_stats *st = NULL;
  rng r = {7};
  memset(w, 0, sizeof(*w));
  rs_error_clear(&err);
  unit_profile_init(&w->p, &w->cat, arena, 100);
  rs_profile *p = &w->p;
  assert_int_equal(rs_stats_new(&st, NULL, &err), RS_OK);
  rs_stats_begin_file(st, "sim.csv");
  double free_at = 0;
  for (int m = 0; m < MINUTES; m++) {
    rs_sample s;
    memset(&s, 0, sizeof(s));
    s.t = T0 + 60.0 * m;
    s.gpu = 0;
    s.path = "sim.csv";
    s.line = (size_t)m + 2;
    double rate = 5.0 + (top - 5.0) * (1.0 - cos(2.0 * 3.14159265358979323846 * m / 1440.0)) / 2;
    free_at = simulate_minute(&r, rate, free_at, &s, busy_scale);
    assert_int_equal(rs_stats_add(st, &s, &err), RS_OK);
  }
  w->s.profile = p;
  w->s.name = "unit";
  assert_int_equal(rs_stats_finish(st, &w->s.stats, &err), RS_OK);
  rs_stats_free(st);
  rs_fit_options_init(&w->o);
}

static rs_fit_result *fit_ok(world *w, rs_arena *arena) {
  rs_fit_result *r = NULL;
  rs_error err;
  rs_error_clear(&err);
  if (rs_fit(&r, arena, &w->s, w->cat, RS_BASIS_ONDEMAND, NULL, &w->o, &err) != RS_OK)
    fail_msg("rs_fit: %s", err.msg);
  return r;
}

/* Consistent data: the model holds on its own history, inside a tight band,
 * and its service median is the request's own (host + device), not the
 * typical interval's p50 that contains waiting. */
static void test_consistent(void **state) {
  world w;
  world_init(&w, *state, 1.0, 85.0);
  assert_true(w.s.stats.load.nbuckets >= 8);
  rs_fit_result *r = fit_ok(&w, *state);
  const rs_backtest *bt = &r->demand.backtest;
  assert_true(bt->run);
  assert_int_equal(bt->intervals, MINUTES);
  if (!(bt->ratio_median > 0.9 && bt->ratio_median < 1.1))
    fail_msg("median predicted/observed %g", bt->ratio_median);
  if (!(bt->ratio_p10 > 0.8 && bt->ratio_p90 < 1.25))
    fail_msg("p10 %g p90 %g", bt->ratio_p10, bt->ratio_p90);
  assert_false(bt->contradictory);
  assert_false(has_warning(r, RS_WARNING_BUSY_ABOVE_LATENCY));
  /* the true median of host + device is about 10 ms */
  if (!(bt->s50_ms > 8.5 && bt->s50_ms < 11.5))
    fail_msg("service median %g ms", bt->s50_ms);
  /* queueing is not counted twice: the fitted variability is below what
   * the typical interval's p50/p99 (which contain the wait) give */
  const rs_endpoint_stats *st = &w.s.stats;
  double naive =
      rs_lognormal_cv2(st->m[RS_METRIC_LATENCY_P50].q[0], st->m[RS_METRIC_LATENCY_P99].q[0], 0.99);
  assert_true(bt->cs2 < naive);
  /* the error band of every candidate carries the back-test's error */
  assert_true(r->nfitting > 0);
  assert_true(r->fitting[0].error_band >= bt->error);
  /* healthy at its load: the current deployment fits */
  assert_true(r->current.fits);
}

/* Utilization that claims three times the real busy time puts the busy time
 * per request above the p50 latency: flagged, warned, low confidence. */
static void test_busy_above_latency(void **state) {
  world w;
  world_init(&w, *state, 3.0, 30.0);
  rs_fit_result *r = fit_ok(&w, *state);
  const rs_backtest *bt = &r->demand.backtest;
  assert_true(bt->contradictory);
  assert_true(has_warning(r, RS_WARNING_BUSY_ABOVE_LATENCY));
  assert_true(r->nfitting > 0);
  assert_int_equal(r->fitting[0].confidence, RS_CONF_LOW);
}

/* No latency samples: nothing to test, and the JSON/explain say so. */
static void test_not_run(void **state) {
  world w;
  world_init(&w, *state, 1.0, 85.0);
  w.s.stats.m[RS_METRIC_LATENCY_P50].count = 0;
  w.s.stats.m[RS_METRIC_LATENCY_P99].count = 0;
  memset(&w.s.stats.load, 0, sizeof(w.s.stats.load));
  rs_fit_result *r = fit_ok(&w, *state);
  assert_false(r->demand.backtest.run);
  assert_false(r->demand.latency_observed);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_consistent, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_busy_above_latency, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_not_run, setup_arena, teardown_arena),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
