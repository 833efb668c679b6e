/* The fit engine: projection math, replica search and its edge cases on a
 * hand-built endpoint, and the canonical example end to end. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rightsize/catalog.h"
#include "rightsize/fit.h"
#include "rightsize/pricing.h"
#include "rightsize/profile.h"
#include "projection.h"
#include "queue.h"
#include "rightsize/summary.h"
#include "test_fit_support.h"
#include "test_support.h"

#define GIB 1073741824.0

static void assert_rel(double got, double want, double rel) {
  if (!(fabs(got - want) <= rel * fabs(want) + 1e-12))
    fail_msg("got %.17g, want %.17g (rel %g)", got, want, rel);
}

/* An endpoint on one V100 (p3.2xlarge): a week of minutes, 10 ms of GPU
 * busy time per request (a clean line), 5 ms p50 and 9 ms p99 latency,
 * 3 GiB of GPU memory, 4 GiB host memory, 10 req/s mean, 20 p99. */
typedef struct world {
  rs_profile p;
  rs_summary s;
  rs_catalog *cat;
  rs_fit_options o;
} world;

static void set_metric(rs_metric_stats *m, double mean, double p50, double p99, double max) {
  memset(m, 0, sizeof(*m));
  m->count = 10080;
  m->min = 0;
  m->mean = mean;
  m->max = max;
  m->q[0] = p50;
  m->q[1] = m->q[2] = (p50 + p99) / 2;
  m->q[3] = p99;
}

static void world_init(world *w, rs_arena *arena) {
  memset(w, 0, sizeof(*w));
  unit_profile_init(&w->p, &w->cat, arena, 50);
  rs_profile *p = &w->p;
  p->current.line = 3;
  p->current.col = 14;
  rs_summary *s = &w->s;
  s->profile = p;
  s->name = "unit";
  rs_endpoint_stats *st = &s->stats;
  st->coverage.rows = 10080;
  st->coverage.series = 1;
  st->coverage.duration_s = 7 * 86400.0;
  st->coverage.interval_s = 60;
  st->ndevices = 1;
  st->busiest_device = 0;
  rs_device_stats *d = &st->devices[0];
  d->index = 0;
  set_metric(&d->m[RS_METRIC_GPU_MEM_USED], 3 * GIB, 3 * GIB, 3 * GIB, 3 * GIB);
  set_metric(&d->m[RS_METRIC_GPU_UTIL], 10.0, 10.0, 20.0, 30.0);
  d->util_vs_rate = (rs_linear_fit){10080, 10, 10, 4, 1.0, 0.0, 0.99}; /* 1 % per req/s */
  set_metric(&st->m[RS_METRIC_REQUEST_RATE], 10.0, 10.0, 20.0, 25.0);
  set_metric(&st->m[RS_METRIC_LATENCY_P50], 5.0, 5.0, 6.0, 7.0);
  set_metric(&st->m[RS_METRIC_LATENCY_P99], 9.0, 9.0, 12.0, 14.0);
  set_metric(&st->m[RS_METRIC_HOST_MEM_USED], 4 * GIB, 4 * GIB, 4 * GIB, 4 * GIB);
  st->rate_peak_to_mean = 2.5;
  rs_fit_options_init(&w->o);
}

static rs_fit_result *fit_ok(world *w, rs_arena *arena) {
  rs_fit_result *r = NULL;
  rs_error err;
  rs_error_clear(&err);
  if (rs_fit(&r, arena, &w->s, w->cat, RS_BASIS_ONDEMAND, NULL, &w->o, &err) != RS_OK)
    fail_msg("rs_fit: %s", err.msg);
  assert_non_null(r);
  return r;
}

static const rs_candidate *find(const rs_fit_result *r, const char *name, bool *fits) {
  for (size_t i = 0; i < r->nfitting; i++)
    if (strcmp(r->fitting[i].inst->name, name) == 0) {
      *fits = true;
      return &r->fitting[i];
    }
  for (size_t i = 0; i < r->nrejected; i++)
    if (strcmp(r->rejected[i].inst->name, name) == 0) {
      *fits = false;
      return &r->rejected[i];
    }
  fail_msg("%s was not considered", name);
  return NULL;
}

static void test_demand(void **state) {
  world w;
  world_init(&w, *state);
  rs_fit_result *r = fit_ok(&w, *state);
  const rs_demand *d = &r->demand;
  assert_string_equal(d->source->name, "p3.2xlarge");
  assert_rel(d->busy_s, 0.010, 1e-12);     /* slope 1 %/(req/s) = 10 ms per request */
  assert_rel(d->design_peak, 20.0, 1e-12); /* p99 by default */
  assert_rel(d->rate_mean, 10.0, 1e-12);
  assert_rel(d->mem_need, 3 * GIB, 1e-12);
  assert_rel(d->mem_need_head, 3.6 * GIB, 1e-12);
  assert_rel(d->cs2, rs_lognormal_cv2(5.0, 9.0, 0.99), 1e-12);
  assert_true(d->service_q_ms <= 9.0 && d->service_q_ms >= 5.0);
  /* the profile's peak, then growth */
  w.p.traffic.peak_rps = 30;
  w.p.traffic.growth = 1.5;
  r = fit_ok(&w, *state);
  assert_rel(r->demand.design_peak, 45.0, 1e-12);
  assert_rel(r->demand.rate_mean, 15.0, 1e-12);
  /* the flag beats the profile */
  w.o.peak_set = true;
  w.o.peak = RS_PEAK_MAX;
  r = fit_ok(&w, *state);
  assert_rel(r->demand.design_peak, 25.0 * 1.5, 1e-12);
  /* per-replica samples of a two-replica endpoint */
  world_init(&w, *state);
  w.p.current.replicas = 2;
  r = fit_ok(&w, *state);
  assert_rel(r->demand.design_peak, 40.0, 1e-12);
  assert_rel(r->demand.busy_s, 0.010, 1e-12);
  /* the same rate column read as the endpoint's total */
  w.p.traffic.rate_per_endpoint = true;
  r = fit_ok(&w, *state);
  assert_rel(r->demand.design_peak, 20.0, 1e-12);
  assert_rel(r->demand.busy_s, 0.020, 1e-12);
}

/* The fit takes the projection's ratio, band and confidence cap
 * (projection.c; tests/unit/test_projection.c tests the projection itself). */
static void test_projection(void **state) {
  static const rs_bound bounds[] = {RS_BOUND_COMPUTE, RS_BOUND_MEMORY, RS_BOUND_UNKNOWN};
  for (size_t i = 0; i < 3; i++) {
    world w;
    bool fits;
    rs_proj_model m;
    rs_projection pr;
    world_init(&w, *state);
    w.p.model.bound = bounds[i];
    rs_fit_result *r = fit_ok(&w, *state);
    const rs_candidate *c = find(r, "g4dn.xlarge", &fits);
    assert_true(fits);
    assert_int_equal(rs_proj_fit(&m, *state, w.cat, true), RS_OK);
    rs_proj_query q = {r->demand.source,  c->inst,   RS_WORKLOAD_UNKNOWN,
                       RS_PRECISION_FP16, bounds[i], NULL};
    rs_proj_project(&m, &q, &pr);
    assert_rel(c->ratio, pr.ratio, 1e-12);
    assert_rel(c->error_band, pr.band, 1e-12);
    assert_rel(c->service_s, 0.010 * pr.ratio, 1e-12);
    /* busy 10 ms > p50 5 ms: the device holds the whole latency */
    assert_rel(c->service_q_ms, r->demand.service_q_ms * pr.ratio, 1e-12);
    assert_rel(c->util, 20.0 * c->service_s / c->servers, 1e-12);
    assert_true(c->confidence <= pr.cap);
    /* latency = the p99 of service + wait at that count (the quantile of the
     * sum, queue.h), the service lognormal with the candidate's p99 and cs2 */
    rs_queue qu = {c->servers, 20.0, c->queue_s, 1.0, c->cs2};
    double s50 = c->service_q_ms / 1e3 / exp(sqrt(log1p(c->cs2)) * rs_normal_quantile(0.99));
    assert_rel(c->latency_q_ms, rs_queue_response_quantile(&qu, s50, c->cs2, 0.99) * 1e3, 1e-9);
    assert_rel(c->wait_q_ms, c->latency_q_ms - c->service_q_ms, 1e-9);
  }
}

/* A benchmark on the shape beats the model; the same device elsewhere is
 * calibrated from it at lower confidence. */
static void test_benchmark(void **state) {
  world w;
  bool fits;
  rs_benchmark b = {"g4dn.xlarge", 1, 8.0, 4.0, 200.0, 1, 1};
  world_init(&w, *state);
  w.p.benchmarks = &b;
  w.p.nbenchmarks = 1;
  rs_fit_result *r = fit_ok(&w, *state);
  const rs_candidate *c = find(r, "g4dn.xlarge", &fits);
  assert_true(fits);
  assert_string_equal(c->basis, "measured");
  assert_rel(c->service_s, 1.0 / 200.0, 1e-12);
  assert_rel(c->service_q_ms, 8.0, 1e-12);
  c = find(r, "g4dn.2xlarge", &fits);
  assert_true(fits);
  assert_string_equal(c->basis, "measured on g4dn.xlarge");
  assert_int_equal(c->confidence, RS_CONF_MEDIUM);
  /* a benchmark on the current shape serves the `now` row too: the same
   * shape gets the same answer there and in the ranking */
  b.instance = "p3.2xlarge";
  r = fit_ok(&w, *state);
  c = find(r, "p3.2xlarge", &fits);
  assert_string_equal(r->current.basis, "measured");
  assert_string_equal(c->basis, "measured");
  assert_rel(r->current.service_s, c->service_s, 1e-12);
  assert_rel(r->current.latency_q_ms, c->latency_q_ms, 1e-12);
  assert_true(r->current.fits == fits);
}

/* Replicas grow until utilization and latency hold, and no further. */
static void test_replica_search(void **state) {
  world w;
  bool fits;
  world_init(&w, *state);
  w.o.peak_set = true;
  w.o.peak = RS_PEAK_RPS;
  w.o.peak_rps = 400.0; /* 4 V100s of busy time at 100 % */
  rs_fit_result *r = fit_ok(&w, *state);
  const rs_candidate *c = find(r, "p3.2xlarge", &fits);
  assert_true(fits);
  assert_true(c->util <= w.o.max_util);
  assert_true(c->latency_q_ms <= 50.0);
  assert_int_equal(c->replicas, 5); /* 400 x 10 ms / 0.8 = 5 devices */
  assert_int_equal(c->binding, RS_CONSTRAINT_UTILIZATION);
  /* the fewest: one less breaks the ceiling */
  assert_true(400.0 * c->service_s / (c->replicas - 1) > w.o.max_util);
  /* the ranking is by monthly cost, cheapest first */
  for (size_t i = 1; i < r->nfitting; i++)
    assert_true(r->fitting[i - 1].usd_per_month <= r->fitting[i].usd_per_month);
}

static void test_zero_traffic(void **state) {
  world w;
  world_init(&w, *state);
  set_metric(&w.s.stats.m[RS_METRIC_REQUEST_RATE], 0, 0, 0, 0);
  w.s.stats.devices[0].util_vs_rate = (rs_linear_fit){10080, 0, 1, 0, NAN, NAN, NAN};
  rs_fit_result *r = fit_ok(&w, *state);
  assert_true(r->nfitting > 0);
  assert_true(r->demand.design_peak == 0.0);
  const rs_candidate *best = &r->fitting[0];
  assert_int_equal(best->replicas, 1);
  assert_true(best->util == 0.0 && best->wait_q_ms == 0.0);
  assert_true(isnan(best->usd_per_million)); /* no predictions to price */
  /* zero traffic is never "right-sized": the whole cost is waste */
  assert_int_equal(r->verdict.code, RS_VERDICT_NO_TRAFFIC);
  assert_null(r->verdict.target);
  assert_rel(r->verdict.wasted_month, r->current_usd_hour * RS_FIT_HOURS_PER_MONTH, 1e-12);
}

/* Spikier than the spiky-traffic threshold: the design peak is the max. */
static void test_spiky_sizes_on_max(void **state) {
  world w;
  world_init(&w, *state);
  w.s.stats.rate_peak_to_mean = RS_WARN_PEAK_TO_MEAN; /* at the threshold: still the p99 */
  assert_rel(fit_ok(&w, *state)->demand.design_peak, 20.0, 1e-12);
  w.s.stats.rate_peak_to_mean = 2.5 * 2; /* above: the max, 25 */
  rs_fit_result *r = fit_ok(&w, *state);
  assert_rel(r->demand.design_peak, 25.0, 1e-12);
  assert_non_null(strstr(r->demand.peak_basis, "spiky"));
  /* a peak the user names wins over the rule */
  w.o.peak_set = true;
  w.o.peak = RS_PEAK_P99;
  assert_rel(fit_ok(&w, *state)->demand.design_peak, 20.0, 1e-12);
}

/* A move saves at least RS_FIT_RIGHT_SIZED_PCT and RS_FIT_MIN_SAVE_USD. */
static void test_move_minimums(void **state) {
  world w;
  world_init(&w, *state);
  rs_fit_result *r = fit_ok(&w, *state);
  if (r->verdict.code == RS_VERDICT_MOVE || r->verdict.code == RS_VERDICT_IDLE_DEVICES) {
    assert_true(r->verdict.savings_pct >= RS_FIT_RIGHT_SIZED_PCT);
    assert_true(r->verdict.savings_month >= RS_FIT_MIN_SAVE_USD);
    assert_true(r->demand.mem_need_head <=
                (1.0 - RS_FIT_MEM_MARGIN) * r->verdict.target->mem_capacity);
  }
  for (size_t i = 0; i < r->nfitting; i++) {
    const rs_candidate *c = &r->fitting[i];
    if (r->verdict.code == RS_VERDICT_KEEP && c->savings_month > 0 &&
        c->inst->price_flag != RS_PRICE_SUSPECT &&
        r->demand.mem_need_head <= (1.0 - RS_FIT_MEM_MARGIN) * c->mem_capacity)
      assert_true(c->savings_pct < RS_FIT_RIGHT_SIZED_PCT ||
                  c->savings_month < RS_FIT_MIN_SAVE_USD);
  }
  assert_true(r->verdict.code == RS_VERDICT_MOVE || r->verdict.code == RS_VERDICT_KEEP ||
              r->verdict.code == RS_VERDICT_UNDERUSED);
}

/* GPU-only data (utilization and memory, no request rate, no latency):
 * sized on the busiest device's peak utilization, low confidence, no
 * latency claim. */
static void test_gpu_only(void **state) {
  world w;
  world_init(&w, *state);
  w.s.stats.m[RS_METRIC_REQUEST_RATE].count = 0;
  w.s.stats.m[RS_METRIC_LATENCY_P50].count = 0;
  w.s.stats.m[RS_METRIC_LATENCY_P99].count = 0;
  w.s.stats.devices[0].util_vs_rate = (rs_linear_fit){0, NAN, NAN, NAN, NAN, NAN, NAN};
  rs_fit_result *r = fit_ok(&w, *state);
  assert_true(r->demand.capacity_only);
  assert_rel(r->demand.busy_s, 0.20, 1e-12); /* the p99 of GPU 0's utilization */
  assert_rel(r->demand.design_peak, 1.0, 1e-12);
  assert_true(r->current.fits);
  assert_rel(r->current.util, 0.20, 1e-12);
  assert_true(r->nfitting > 0);
  const rs_candidate *b = &r->fitting[0];
  assert_true(b->util <= 0.8);
  assert_true(isnan(b->latency_q_ms));
  assert_int_equal(b->confidence, RS_CONF_LOW);
  assert_true(has_warning(r, RS_WARNING_NO_REQUEST_RATE));
  /* --peak max sizes on the busiest device's maximum */
  w.o.peak_set = true;
  w.o.peak = RS_PEAK_MAX;
  r = fit_ok(&w, *state);
  assert_rel(r->demand.busy_s, 0.30, 1e-12);
}

/* No memory samples and no model figure: the current device's memory
 * stands in, smaller devices are rejected saying what is missing. */
static void test_memory_unknown(void **state) {
  world w;
  bool fits;
  world_init(&w, *state);
  w.s.stats.devices[0].m[RS_METRIC_GPU_MEM_USED].count = 0;
  w.s.stats.busiest_device = -1;
  w.p.current.instance = "g5.xlarge"; /* one A10G, 24 GB */
  rs_fit_result *r = fit_ok(&w, *state);
  assert_true(r->demand.mem_unknown);
  assert_true(has_warning(r, RS_WARNING_MEMORY_UNKNOWN));
  const rs_candidate *t4 = find(r, "g4dn.xlarge", &fits); /* 16 GB < 24 GB */
  assert_false(fits);
  assert_int_equal(t4->failed, RS_CONSTRAINT_MEMORY);
  assert_non_null(strstr(t4->reason, "memory need unknown"));
  assert_true(r->current.fits);
  assert_int_equal(r->current.confidence, RS_CONF_LOW);
}

/* At a load it served with the SLO met, the current deployment is not
 * failed by the model or by the utilization ceiling; above it, the model
 * decides. */
static void test_healthy_current(void **state) {
  world w;
  world_init(&w, *state);
  /* 3.5 % per req/s: 87.5 % busy at the observed maximum of 25 req/s */
  w.s.stats.devices[0].util_vs_rate = (rs_linear_fit){10080, 10, 35, 4, 3.5, 0.0, 0.99};
  w.o.peak_set = true;
  w.o.peak = RS_PEAK_MAX;
  rs_fit_result *r = fit_ok(&w, *state);
  assert_true(r->current.util > 0.8);
  assert_true(r->current.fits);
  assert_true(r->current.nnotes > 0);
  assert_false(has_warning(r, RS_WARNING_CURRENT_FAILS_SLO));
  assert_false(has_warning(r, RS_WARNING_CURRENT_ABOVE_CEILING));
  w.o.peak = RS_PEAK_RPS;
  w.o.peak_rps = 26.0; /* beyond anything observed */
  r = fit_ok(&w, *state);
  assert_false(r->current.fits);
  assert_int_equal(r->current.failed, RS_CONSTRAINT_UTILIZATION);
  assert_true(has_warning(r, RS_WARNING_CURRENT_ABOVE_CEILING));
  assert_false(has_warning(r, RS_WARNING_CURRENT_FAILS_SLO));
}

static void test_traffic_beyond_any_shape(void **state) {
  world w;
  world_init(&w, *state);
  w.o.peak_set = true;
  w.o.peak = RS_PEAK_RPS;
  w.o.peak_rps = 1e7;
  rs_fit_result *r = fit_ok(&w, *state);
  assert_int_equal(r->nfitting, 0);
  assert_true(r->nrejected > 0);
  bool util_reason = false;
  for (size_t i = 0; i < r->nrejected; i++)
    if (r->rejected[i].failed == RS_CONSTRAINT_UTILIZATION) {
      util_reason = true;
      assert_non_null(strstr(r->rejected[i].reason, "--max-replicas 64"));
    }
  assert_true(util_reason);
  assert_int_equal(r->warnings[r->nwarnings - 1].code, RS_WARNING_NO_FIT);
}

static void test_slo_below_service(void **state) {
  world w;
  bool fits;
  world_init(&w, *state);
  w.o.slo_ms = 2.0;
  rs_fit_result *r = fit_ok(&w, *state);
  const rs_candidate *c = find(r, "p3.2xlarge", &fits);
  assert_false(fits);
  assert_int_equal(c->failed, RS_CONSTRAINT_LATENCY);
  assert_non_null(strstr(c->reason, "no replica count helps"));
  /* the closest first: rejections sorted by how far they are off */
  for (size_t i = 1; i < r->nrejected; i++)
    assert_true(r->rejected[i - 1].shortfall <= r->rejected[i].shortfall);
}

static void test_memory(void **state) {
  world w;
  bool fits;
  world_init(&w, *state);
  w.p.model.weights_bytes = 200e9; /* no single device holds 240 GB */
  rs_fit_result *r = fit_ok(&w, *state);
  assert_int_equal(r->nfitting, 0);
  const rs_candidate *c = find(r, "g4dn.xlarge", &fits);
  assert_int_equal(c->failed, RS_CONSTRAINT_MEMORY);
  assert_non_null(strstr(c->reason, "incl. 20% headroom > 14.9 GiB per device"));
  /* sharded over 4 of 8 H100s: 320 GB >= 240 GB */
  w.p.model.shardable = true;
  w.o.slo_ms = 1000;
  r = fit_ok(&w, *state);
  c = find(r, "p5.48xlarge", &fits);
  assert_true(fits);
  assert_int_equal(c->devices_per_server, 4);
  assert_int_equal(c->servers_per_replica, 2);
  assert_true(c->confidence <= RS_CONF_MEDIUM); /* sharded: at most medium */
  bool said = false;
  for (size_t i = 0; i < c->nreasons; i++)
    said |= strstr(c->reasons[i], "sharded over 4 devices") != NULL;
  assert_true(said);
}

static void test_current_missing(void **state) {
  world w;
  rs_fit_result *r;
  rs_error err;
  world_init(&w, *state);
  w.p.current.instance = "p9.mega";
  rs_error_clear(&err);
  assert_int_equal(rs_fit(&r, *state, &w.s, w.cat, RS_BASIS_ONDEMAND, NULL, &w.o, &err),
                   RS_INVALID);
  assert_string_equal(err.path, "test.yaml");
  assert_int_equal(err.line, 3);
  assert_int_equal(err.col, 14);
  assert_non_null(strstr(err.msg, "'p9.mega' is not in catalog 2026.12.0 for provider aws"));
}

static void test_peak_parse(void **state) {
  (void)state;
  rs_peak_kind k;
  double v;
  assert_int_equal(rs_peak_parse("max", &k, &v), RS_OK);
  assert_int_equal(k, RS_PEAK_MAX);
  assert_int_equal(rs_peak_parse("25rps", &k, &v), RS_OK);
  assert_true(k == RS_PEAK_RPS && v == 25.0);
  assert_int_equal(rs_peak_parse("12.5", &k, &v), RS_OK);
  assert_true(v == 12.5);
  assert_int_equal(rs_peak_parse("-1", &k, &v), RS_USAGE);
  assert_int_equal(rs_peak_parse("p42", &k, &v), RS_USAGE);
  assert_int_equal(rs_peak_parse("rps", &k, &v), RS_USAGE);
}

/* The acceptance case: the canonical profile, NVIDIA GPUs on AWS. */
static void test_canonical(void **state) {
  rs_arena *arena = *state;
  rs_fit_result *r;
  rs_fit_options o;
  const char *aws[] = {"aws"};
  rs_fit_options_init(&o);
  o.providers = aws;
  o.nproviders = 1;
  o.families = RS_FAMILY_NVIDIA_GPU;
  r = fit_shipped(arena, "profiles/resnet50-p3.8xlarge.yaml", &o);
  assert_true(r->nfitting > 0);
  const rs_candidate *b = &r->fitting[0];
  /* No benchmark: the V100's busy time projected by the calibrated model
   * puts one L4 first; a T4, projected several times slower than a V100,
   * either needs more than one replica or is rejected for latency, never
   * for a missing figure. */
  assert_string_equal(b->inst->name, "g6.xlarge");
  assert_int_equal(b->replicas, 1);
  assert_true(b->latency_q_ms < 50.0);
  assert_rel(r->current_usd_hour, 12.24, 1e-12);
  assert_true(b->savings_pct > 90.0 && b->savings_pct < 96.0);
  const rs_candidate *t4 = NULL;
  for (size_t i = 0; i < r->nfitting && t4 == NULL; i++)
    if (strcmp(r->fitting[i].inst->name, "g4dn.xlarge") == 0)
      t4 = &r->fitting[i];
  for (size_t i = 0; i < r->nrejected && t4 == NULL; i++)
    if (strcmp(r->rejected[i].inst->name, "g4dn.xlarge") == 0)
      t4 = &r->rejected[i];
  assert_non_null(t4);
  if (t4->fits)
    assert_true(t4->replicas > 1);
  else
    assert_int_equal(t4->failed, RS_CONSTRAINT_LATENCY);
  assert_true(t4->ratio > 1.5); /* slower than the V100 */
  /* The data is consistent now: the back-test holds and nothing contradicts. */
  assert_true(r->demand.backtest.run);
  assert_false(r->demand.backtest.contradictory);
  assert_true(r->demand.busy_s * 1e3 < r->demand.service_p50_ms);
  /* healthy at its observed load: the current deployment is not failed */
  assert_true(r->current.fits);
  /* three of the four V100s never worked: the move says what they cost */
  assert_int_equal(r->verdict.code, RS_VERDICT_IDLE_DEVICES);
  assert_int_equal(r->verdict.action, RS_ACTION_MOVE);
  assert_ptr_equal(r->verdict.target, b);
  assert_int_equal(r->verdict.idle_devices, 3);
  assert_rel(r->verdict.wasted_month, 12.24 * 730.0 * 3.0 / 4.0, 1e-9);
  assert_string_equal(rs_action_name(r->verdict.action), "move");
  /* Inferentia and CPU allowed: any of those shapes shows a lower confidence. */
  o.families = RS_FAMILY_NVIDIA_GPU | RS_FAMILY_INFERENTIA | RS_FAMILY_CPU;
  r = fit_shipped(arena, "profiles/resnet50-p3.8xlarge.yaml", &o);
  bool saw_cross = false;
  for (size_t i = 0; i < r->nfitting; i++) {
    if (r->fitting[i].inst->category == RS_CATEGORY_GPU)
      continue;
    saw_cross = true;
    assert_int_equal(r->fitting[i].confidence, RS_CONF_LOW);
  }
  assert_true(saw_cross);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_demand, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_projection, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_benchmark, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_replica_search, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_zero_traffic, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_spiky_sizes_on_max, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_move_minimums, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_traffic_beyond_any_shape, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_gpu_only, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_memory_unknown, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_healthy_current, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_slo_below_service, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_memory, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_current_missing, setup_arena, teardown_arena),
      cmocka_unit_test(test_peak_parse),
      cmocka_unit_test_setup_teardown(test_canonical, setup_arena, teardown_arena),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
