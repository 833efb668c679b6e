/* The autoscaling plan (docs/model.md "Autoscaling plan"): the cycle's
 * bucketing and its history limits, the replay against the static size, the
 * minimum raised for a lead time longer than the ramps allow, scale to zero,
 * the spot mix replayed without spot, and the snippets checked against the
 * documented shapes of the Kubernetes, KEDA and SageMaker APIs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rightsize/autoscale.h"
#include "rightsize/doc.h"
#include "rightsize/pricing.h"
#include "rightsize/report_plan.h"
#include "test_support.h"

#define DAY 86400.0
#define PI 3.14159265358979323846
#define START 1762732800.0 /* 2025-11-10 00:00 UTC, a Monday */

/* rate = lo + (hi - lo) x a cosine day peaking at 15:00; zero between 01:00
 * and 05:00 when idle_nights. */
static rs_rate_history daily(rs_arena *arena, double days, double step, double lo, double hi,
                             bool idle_nights) {
  rs_rate_history h;
  h.n = (size_t)(days * DAY / step);
  h.p = rs_arena_alloc_array(arena, h.n, sizeof(*h.p));
  assert_non_null(h.p);
  for (size_t i = 0; i < h.n; i++) {
    double t = START + (double)i * step, hr = fmod(t / 3600.0, 24.0);
    double shape = 0.5 - 0.5 * cos(2.0 * PI * (hr - 3.0) / 24.0);
    h.p[i].t = t;
    h.p[i].rps = idle_nights && hr >= 1.0 && hr < 5.0 ? 0.0 : lo + (hi - lo) * shape;
  }
  h.interval_s = step;
  h.duration_s = (double)h.n * step;
  return h;
}

static void test_cycle_history_limits(void **state) {
  rs_cycle c;
  rs_rate_history h = daily(*state, 1.5, 60, 10, 100, false);
  rs_autoscale_cycle(&c, &h);
  assert_int_equal(c.kind, RS_CYCLE_NONE);
  assert_int_equal(c.nbuckets, 0);
  assert_non_null(strstr(c.why, "two days"));
  h = daily(*state, 7, 60, 10, 100, false);
  rs_autoscale_cycle(&c, &h);
  assert_int_equal(c.kind, RS_CYCLE_DAILY);
  assert_int_equal(c.nbuckets, 24);
  assert_non_null(strstr(c.why, "two weeks"));
  assert_true(c.strength > 0.95); /* a pure daily cycle: hours explain nearly all */
  assert_true(c.b[15].mean > 95.0 && c.b[3].mean < 15.0);
  assert_true(c.b[15].peak >= c.b[15].mean);
  h = daily(*state, 14, 300, 10, 100, false);
  rs_autoscale_cycle(&c, &h);
  assert_int_equal(c.kind, RS_CYCLE_WEEKLY);
  assert_int_equal(c.nbuckets, 168);
  assert_int_equal(c.b[15].n, 24); /* Monday 15:00: two weeks x 12 points an hour */
}

/* A GPU shape serving 100 req/s per replica at most, sized statically for
 * a 500 req/s design peak at the 80 % ceiling: 7 replicas at $1/h each. */
typedef struct fixture {
  rs_accelerator acc;
  rs_instance inst;
  rs_candidate c;
  rs_fit_result res;
} fixture;

static void setup_fixture(fixture *f) {
  memset(f, 0, sizeof(*f));
  f->acc.name = "test GPU";
  f->inst.name = "gpu.test";
  f->inst.category = RS_CATEGORY_GPU;
  f->inst.accelerator = &f->acc;
  f->inst.spot_usd_per_hour = 0.3;
  f->c.inst = &f->inst;
  f->c.fits = true;
  f->c.servers_per_replica = 1;
  f->c.replicas = 7;
  f->c.service_s = f->c.queue_s = 0.01;
  f->c.cs2 = 0.5;
  f->c.service_q_ms = 30.0;
  f->c.usd_per_hour = 7.0;
  f->c.usd_per_month = 7.0 * RS_FIT_HOURS_PER_MONTH;
  f->res.demand.slo_ms = 100.0;
  f->res.demand.slo_quantile = 0.99;
  f->res.demand.design_peak = 500.0;
  f->res.opts.max_util = 0.8;
}

static void plan(rs_autoscale_plan *a, rs_arena *arena, fixture *f, const rs_rate_history *h,
                 double lead_s) {
  rs_autoscale_options o;
  rs_error err;
  rs_autoscale_options_init(&o);
  o.lead_s = lead_s;
  assert_int_equal(rs_autoscale_plan_for(a, arena, &f->res, &f->c, h, &o, &err), RS_OK);
}

static void test_plan_beats_static_without_violations(void **state) {
  fixture f;
  rs_autoscale_plan a;
  setup_fixture(&f);
  rs_rate_history h = daily(*state, 7, 60, 50, 500, false);
  plan(&a, *state, &f, &h, 300);
  assert_int_equal(a.fixed.violating, 0);
  assert_int_equal(a.plan.violating, 0);
  assert_true(a.plan.replica_hours < 0.8 * a.fixed.replica_hours);
  assert_true(a.saved_month > 0);
  assert_true(a.scheduled);
  assert_int_equal(a.max_replicas, 7);
  assert_true(a.min_replicas < a.max_replicas);
  assert_int_equal(a.plan.lowest, a.min_replicas); /* the night trough runs at the minimum */
  assert_int_equal(a.plan.highest, 7);
  assert_true(a.target_util > RS_AS_UTIL_FLOOR && a.target_util <= 0.8);
  /* the static replay costs what the fit says */
  assert_true(fabs(a.fixed.usd_month - f.c.usd_per_month) < 1e-6 * f.c.usd_per_month);
}

static void test_long_lead_raises_minimum(void **state) {
  fixture f;
  rs_autoscale_plan short_lead, long_lead;
  setup_fixture(&f);
  rs_rate_history h = daily(*state, 7, 60, 50, 500, false);
  plan(&short_lead, *state, &f, &h, 300);
  plan(&long_lead, *state, &f, &h, 8 * 3600);
  assert_true(long_lead.ramp > short_lead.ramp);
  assert_true(long_lead.target_util == RS_AS_UTIL_FLOOR);
  assert_true(long_lead.min_replicas > short_lead.min_replicas);
  assert_non_null(strstr(long_lead.min_why, "lead time is longer than the ramps allow"));
  assert_int_equal(long_lead.plan.violating, 0);
  assert_true(long_lead.plan.replica_hours > short_lead.plan.replica_hours);
}

static void test_lead_time_sources(void **state) {
  fixture f;
  rs_autoscale_plan a;
  rs_profile prof;
  rs_summary sum;
  setup_fixture(&f);
  memset(&prof, 0, sizeof prof);
  memset(&sum, 0, sizeof sum);
  prof.traffic.cold_start_s = 600;
  sum.profile = &prof;
  f.res.summary = &sum;
  rs_rate_history h = daily(*state, 3, 60, 50, 500, false);
  plan(&a, *state, &f, &h, NAN);
  assert_true(a.lead_s == 600);
  assert_non_null(strstr(a.lead_basis, "traffic.cold_start"));
  plan(&a, *state, &f, &h, 90); /* --lead-time wins */
  assert_true(a.lead_s == 90);
  prof.traffic.cold_start_s = NAN;
  plan(&a, *state, &f, &h, NAN);
  assert_true(a.lead_s == RS_AS_LEAD_GPU_S);
  f.inst.category = RS_CATEGORY_CPU;
  f.inst.accelerator = NULL;
  plan(&a, *state, &f, &h, NAN);
  assert_true(a.lead_s == RS_AS_LEAD_CPU_S);
}

static void test_scale_to_zero(void **state) {
  fixture f;
  rs_autoscale_plan a;
  setup_fixture(&f);
  rs_rate_history h = daily(*state, 3, 60, 50, 500, true);
  plan(&a, *state, &f, &h, 300);
  assert_false(a.zero_ok);
  assert_non_null(strstr(a.zero_why, "cold start"));
  assert_true(fabs(a.idle_share - 4.0 / 24.0) < 0.01);
  plan(&a, *state, &f, &h, 0.05); /* a 50 ms cold start inside the 100 ms SLO */
  assert_true(a.zero_ok);
  h = daily(*state, 3, 60, 50, 500, false);
  plan(&a, *state, &f, &h, 0.05);
  assert_false(a.zero_ok);
  assert_non_null(strstr(a.zero_why, "no idle stretch"));
}

static void test_spot_mix_survives_losing_spot(void **state) {
  fixture f;
  rs_autoscale_plan a;
  setup_fixture(&f);
  rs_rate_history h = daily(*state, 7, 60, 50, 500, false);
  plan(&a, *state, &f, &h, 300);
  assert_true(a.spot > 0); /* 7 at the 80 % ceiling; fewer carry 500 req/s within 200 ms */
  assert_int_equal(a.ondemand + a.spot, 7);
  assert_int_equal(a.spot_removed.violating, 0);
  assert_true(a.degraded_ms == 2.0 * f.res.demand.slo_ms);
  assert_true(a.mix_saved_month > 0);
  assert_non_null(strstr(a.spot_basis, "catalog"));
  /* on-demand alone holds the 95 % degraded ceiling at the history's peak, one fewer does not */
  assert_true(a.degraded_util == RS_AS_SPOT_DEGRADED_UTIL);
  assert_true(a.mix_need_rps >= 500.0 - 1e-9);
  assert_true(a.mix_carried_rps >= a.mix_need_rps);
  assert_true(a.mix_carried_rps <= a.ondemand * 100.0 * RS_AS_SPOT_DEGRADED_UTIL + 1e-9);
  assert_true(a.mix_short_rps < a.mix_need_rps);
  assert_non_null(strstr(a.mix_why, "spot takes the other"));
  /* the saving is the spot replicas' price difference */
  double want = a.spot * (1.0 - 0.3) * RS_FIT_HOURS_PER_MONTH;
  assert_true(fabs(a.mix_saved_month - want) < 1e-6 * want);
  /* the exposure: on-demand alone against the full SLO, replayed */
  assert_int_equal(a.spot_removed_full.intervals, h.n);
  assert_int_equal(a.spot_removed_full_violating, a.spot_removed_full.violating);
  assert_true(a.spot_removed_full.violating >= a.spot_removed.violating);
  /* --spot-full-slo: the full SLO at the normal ceiling needs every replica */
  rs_autoscale_options o;
  rs_error err;
  rs_autoscale_options_init(&o);
  o.lead_s = 300;
  o.spot_full_slo = true;
  assert_int_equal(rs_autoscale_plan_for(&a, *state, &f.res, &f.c, &h, &o, &err), RS_OK);
  assert_int_equal(a.spot, 0);
  assert_true(a.degraded_ms == f.res.demand.slo_ms && a.degraded_util == 0.8);
  assert_non_null(strstr(a.mix_why, "no spot: 6 on-demand replicas carry only"));
}

/* One replica has nothing to put on spot, and says so; a peak above what
 * one replica fewer carries at the 95 % ceiling keeps every replica. */
static void test_spot_mix_none_and_why(void **state) {
  fixture f;
  rs_autoscale_plan a;
  setup_fixture(&f);
  f.c.replicas = 1;
  f.c.usd_per_hour = 1.0;
  f.c.usd_per_month = RS_FIT_HOURS_PER_MONTH;
  f.res.demand.design_peak = 60.0;
  rs_rate_history h = daily(*state, 3, 60, 5, 60, false);
  plan(&a, *state, &f, &h, 300);
  assert_int_equal(a.ondemand, 1);
  assert_int_equal(a.spot, 0);
  assert_non_null(strstr(a.mix_why, "one replica"));
  assert_true(a.mix_saved_month == 0);
  setup_fixture(&f);
  f.res.demand.design_peak = 560.0; /* 7 at 80 %; 6 carry at most 570 at 95 % */
  h = daily(*state, 3, 60, 50, 600, false);
  plan(&a, *state, &f, &h, 300);
  assert_int_equal(a.spot, 0);
  assert_true(a.mix_short_rps < 600.0);
  assert_non_null(strstr(a.mix_why, "no spot: 6 on-demand replicas carry only"));
  assert_non_null(strstr(a.mix_why, "600.00 req/s on-demand must carry"));
}

/* Host CPU that fills before the device caps what a replica carries. */
static void test_host_cpu_caps_replica_rate(void **state) {
  fixture f;
  rs_autoscale_plan a;
  setup_fixture(&f);
  f.inst.vcpus = 4;
  f.inst.accelerator_count = 1;
  f.res.demand.cpu_known = true;
  f.res.demand.cpu_base_vcpus = 0.4;
  f.res.demand.cpu_vcpu_s_per_req = 0.06; /* (4 - 0.4) / 0.06 = 60 req/s per replica */
  f.c.replicas = 12;
  f.inst.network_baseline_gbps = NAN;
  f.inst.network_gbps = NAN;
  rs_rate_history h = daily(*state, 3, 60, 50, 500, false);
  plan(&a, *state, &f, &h, 300);
  assert_true(fabs(a.replica_rps - 60.0) < 1e-9);
  assert_true(fabs(a.target_rps - a.target_util * 60.0) < 1e-9);
  assert_true(a.mix_carried_rps <= a.ondemand * 60.0 * RS_AS_SPOT_DEGRADED_UTIL + 1e-9);
  assert_int_equal(a.ondemand, 9); /* 500 / (60 x 0.95) = 8.8 */
}

/* A spot price in the price overlay wins over the catalog's. */
static void test_overlay_spot_price(void **state) {
  fixture f;
  rs_autoscale_plan a;
  rs_price_rule rule = {.scope = RS_RULE_INSTANCE,
                        .match = "gpu.test",
                        .discount_pct = NAN,
                        .usd_per_hour = NAN,
                        .spot_usd_per_hour = 0.25};
  rs_overlay ov = {.path = "o.yaml", .name = "negotiated", .rules = &rule, .nrules = 1};
  setup_fixture(&f);
  f.res.overlay = &ov;
  rs_rate_history h = daily(*state, 3, 60, 50, 500, false);
  plan(&a, *state, &f, &h, 300);
  assert_true(a.spot_usd_hour == 0.25);
  assert_non_null(strstr(a.spot_basis, "overlay"));
  f.res.basis = RS_BASIS_SPOT;
  plan(&a, *state, &f, &h, 300);
  assert_true(isnan(a.spot_usd_hour));
  assert_non_null(strstr(a.spot_basis, "--pricing spot"));
}

/* ---- snippets against the documented shapes ---- */

static const rs_node *at(const rs_node *n, const char *path) {
  char key[64];
  while (n != NULL && *path) {
    size_t len = strcspn(path, ".");
    assert_true(len < sizeof key);
    memcpy(key, path, len);
    key[len] = 0;
    n = n->kind == RS_NODE_MAP ? rs_node_get(n, key) : NULL;
    path += len + (path[len] == '.');
  }
  return n;
}

static bool is_text(const rs_node *root, const char *path, const char *want) {
  const rs_node *n = at(root, path);
  return n != NULL && n->kind == RS_NODE_SCALAR && (want == NULL || strcmp(n->text, want) == 0);
}

static long whole(const rs_node *root, const char *path) {
  const rs_node *n = at(root, path);
  if (n == NULL || n->kind != RS_NODE_SCALAR || n->quoted || n->len == 0 ||
      strspn(n->text, "0123456789") != n->len)
    return -1;
  return strtol(n->text, NULL, 10);
}

static bool only_keys(const rs_node *map, const char *const *keys) {
  if (map == NULL || map->kind != RS_NODE_MAP)
    return false;
  for (size_t i = 0; i < map->n; i++) {
    bool known = false;
    for (const char *const *k = keys; *k; k++)
      known = known || strcmp(map->keys[i]->text, *k) == 0;
    if (!known)
      return false;
  }
  return true;
}

/* autoscaling/v2 HorizontalPodAutoscaler: required scaleTargetRef and
 * maxReplicas, 1 <= minReplicas <= maxReplicas, metrics of a known type with
 * its matching member, a Pods target of AverageValue as a quantity, a
 * scale-down window within 0..3600 s. */
static bool hpa_valid(const rs_node *r) {
  static const char *const spec_keys[] = {"scaleTargetRef", "minReplicas", "maxReplicas",
                                          "metrics",        "behavior",    NULL};
  const rs_node *m = at(r, "spec.metrics");
  long lo = whole(r, "spec.minReplicas"), hi = whole(r, "spec.maxReplicas");
  long win = whole(r, "spec.behavior.scaleDown.stabilizationWindowSeconds");
  if (!is_text(r, "apiVersion", "autoscaling/v2") ||
      !is_text(r, "kind", "HorizontalPodAutoscaler") || !is_text(r, "metadata.name", NULL) ||
      !only_keys(at(r, "spec"), spec_keys) || !is_text(r, "spec.scaleTargetRef.kind", NULL) ||
      !is_text(r, "spec.scaleTargetRef.name", NULL) || lo < 1 || hi < lo || win < 0 || win > 3600 ||
      m == NULL || m->kind != RS_NODE_SEQ || m->n == 0)
    return false;
  for (size_t i = 0; i < m->n; i++) {
    const rs_node *q = m->items[i], *v = at(q, "pods.target.averageValue");
    if (!is_text(q, "type", "Pods") || !is_text(q, "pods.metric.name", NULL) ||
        !is_text(q, "pods.target.type", "AverageValue") || v == NULL || v->kind != RS_NODE_SCALAR ||
        strspn(v->text, "0123456789") == 0 ||
        strcmp(v->text + strspn(v->text, "0123456789"), "m") != 0)
      return false;
  }
  return true;
}

/* keda.sh/v1alpha1 ScaledObject: scaleTargetRef.name, replica counts, a
 * prometheus trigger with serverAddress, query and a quoted threshold. */
static bool keda_valid(const rs_node *r) {
  const rs_node *t = at(r, "spec.triggers"), *th;
  long lo = whole(r, "spec.minReplicaCount"), hi = whole(r, "spec.maxReplicaCount");
  if (!is_text(r, "apiVersion", "keda.sh/v1alpha1") || !is_text(r, "kind", "ScaledObject") ||
      !is_text(r, "spec.scaleTargetRef.name", NULL) || lo < 0 || hi < lo || hi < 1 || t == NULL ||
      t->kind != RS_NODE_SEQ || t->n != 1)
    return false;
  th = at(t->items[0], "metadata.threshold");
  return is_text(t->items[0], "type", "prometheus") &&
         is_text(t->items[0], "metadata.serverAddress", NULL) &&
         is_text(t->items[0], "metadata.query", NULL) && th != NULL && th->quoted &&
         strtod(th->text, NULL) > 0;
}

/* RegisterScalableTarget and PutScalingPolicy (Application Auto Scaling
 * API) for a SageMaker variant, target tracking on
 * SageMakerVariantInvocationsPerInstance. */
static bool sagemaker_valid(const rs_node *r) {
  static const char *const top[] = {"RegisterScalableTarget", "PutScalingPolicy", NULL};
  static const char *const reg[] = {"ServiceNamespace", "ResourceId",  "ScalableDimension",
                                    "MinCapacity",      "MaxCapacity", NULL};
  const char *legs[] = {"RegisterScalableTarget", "PutScalingPolicy"};
  char p[128];
  for (size_t i = 0; i < 2; i++) {
    const rs_node *id = at(at(r, legs[i]), "ResourceId");
    snprintf(p, sizeof p, "%s.ScalableDimension", legs[i]);
    if (id == NULL || strncmp(id->text, "endpoint/", 9) != 0 ||
        strstr(id->text, "/variant/") == NULL ||
        !is_text(r, p, "sagemaker:variant:DesiredInstanceCount"))
      return false;
    snprintf(p, sizeof p, "%s.ServiceNamespace", legs[i]);
    if (!is_text(r, p, "sagemaker"))
      return false;
  }
  const rs_node *cfg = at(r, "PutScalingPolicy.TargetTrackingScalingPolicyConfiguration");
  const rs_node *tv = at(cfg, "TargetValue");
  long lo = whole(r, "RegisterScalableTarget.MinCapacity");
  long hi = whole(r, "RegisterScalableTarget.MaxCapacity");
  return only_keys(r, top) && only_keys(at(r, "RegisterScalableTarget"), reg) && lo >= 0 &&
         hi >= lo && hi >= 1 && is_text(r, "PutScalingPolicy.PolicyName", NULL) &&
         is_text(r, "PutScalingPolicy.PolicyType", "TargetTrackingScaling") && tv != NULL &&
         !tv->quoted && strtod(tv->text, NULL) > 0 &&
         is_text(cfg, "PredefinedMetricSpecification.PredefinedMetricType",
                 "SageMakerVariantInvocationsPerInstance") &&
         whole(cfg, "ScaleInCooldown") >= 0 && whole(cfg, "ScaleOutCooldown") >= 0;
}

static const rs_node *parse(rs_arena *arena, const rs_buf *b, bool json) {
  rs_doc doc;
  rs_error err;
  assert_int_equal(rs_doc_parse(&doc, arena, "snippet", b->data, b->len, json, &err), RS_OK);
  assert_non_null(doc.root);
  return doc.root;
}

static void test_snippets_valid(void **state) {
  fixture f;
  rs_autoscale_plan a;
  rs_buf b;
  setup_fixture(&f);
  rs_rate_history h = daily(*state, 7, 60, 50, 500, false);
  plan(&a, *state, &f, &h, 300);
  rs_buf_init(&b, 0);
  assert_int_equal(rs_report_plan_hpa(&b, "search", &a), RS_OK);
  assert_true(hpa_valid(parse(*state, &b, false)));
  b.len = 0;
  assert_int_equal(rs_report_plan_keda(&b, "search", &a), RS_OK);
  assert_true(keda_valid(parse(*state, &b, false)));
  b.len = 0;
  assert_int_equal(rs_report_plan_sagemaker(&b, "search", &a), RS_OK);
  const rs_node *sm = parse(*state, &b, true);
  assert_true(sagemaker_valid(sm));
  assert_int_equal(whole(sm, "RegisterScalableTarget.MaxCapacity"), 7);
  /* the checkers do reject: a snippet with min above max, and a missing metric type */
  a.min_replicas = 9;
  b.len = 0;
  assert_int_equal(rs_report_plan_hpa(&b, "search", &a), RS_OK);
  assert_false(hpa_valid(parse(*state, &b, false)));
  b.len = 0;
  assert_int_equal(rs_report_plan_sagemaker(&b, "search", &a), RS_OK);
  assert_false(sagemaker_valid(parse(*state, &b, true)));
  static const char broken[] = "{\"RegisterScalableTarget\": {}, \"PutScalingPolicy\": {}}";
  rs_buf_release(&b);
  rs_buf_init(&b, 0);
  rs_buf_puts(&b, broken);
  assert_false(sagemaker_valid(parse(*state, &b, true)));
  rs_buf_release(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_cycle_history_limits, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_plan_beats_static_without_violations, setup_arena,
                                      teardown_arena),
      cmocka_unit_test_setup_teardown(test_long_lead_raises_minimum, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_lead_time_sources, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_scale_to_zero, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_spot_mix_survives_losing_spot, setup_arena,
                                      teardown_arena),
      cmocka_unit_test_setup_teardown(test_spot_mix_none_and_why, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_host_cpu_caps_replica_rate, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_overlay_spot_price, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_snippets_valid, setup_arena, teardown_arena),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
