/* Fitting the demand onto every allowed shape (docs/model.md): memory,
 * projection of busy time, replica search under the utilization, latency,
 * host CPU and network constraints, cost, confidence, ranking. */
#include "rightsize/fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fit_internal.h"
#include "llm.h"
#include "rightsize/num.h"
#include "queue.h"

#define MAX_REASONS 12

/* ---- confidence reasons ---- */

typedef struct rs_fit_reasons {
  rs_confidence level;
  const char *text[MAX_REASONS];
  size_t n;
} reasons;

static void lower(reasons *r, rs_confidence level, const char *text) {
  if (level < r->level)
    r->level = level;
  if (text != NULL && r->n < MAX_REASONS)
    r->text[r->n++] = text;
}

/* What the data itself says about every candidate. */
static void data_reasons(rs_fit_ctx *ctx, const rs_demand *d, reasons *r) {
  const rs_summary *sum = ctx->sum;
  const rs_coverage *c = &sum->stats.coverage;
  r->level = RS_CONF_HIGH;
  r->n = 0;
  if (sum->source != RS_SOURCE_PRODUCTION)
    lower(r, RS_CONF_LOW,
          rs_fit_printf(ctx, "%s data hides real peaks", rs_source_name(sum->source)));
  if (c->rows < RS_WARN_MIN_ROWS)
    lower(r, RS_CONF_LOW,
          rs_fit_printf(ctx, "few samples (%llu rows)", (unsigned long long)c->rows));
  if (c->duration_s < 86400.0)
    lower(r, RS_CONF_LOW, rs_fit_printf(ctx, "%.1f h of history", c->duration_s / 3600.0));
  else if (c->duration_s + (isfinite(c->interval_s) ? c->interval_s : 0.0) < RS_WARN_HISTORY_S)
    lower(
        r, RS_CONF_MEDIUM,
        rs_fit_printf(ctx, "%.1f d of history, less than a weekly cycle", c->duration_s / 86400.0));
  if (c->duration_s > 0 && c->gap_s > 0.05 * c->duration_s * (double)c->series)
    lower(r, RS_CONF_MEDIUM, "gaps cover more than 5% of the series");
  double pm = sum->stats.rate_peak_to_mean;
  if (pm > RS_WARN_PEAK_TO_MEAN)
    lower(r, RS_CONF_MEDIUM, rs_fit_printf(ctx, "spiky traffic (peak/mean %.1f)", pm));
  if (!d->latency_observed && !d->capacity_only && !d->llm.on)
    lower(r, RS_CONF_LOW, "no latency samples: service times assumed exponential");
  if (d->capacity_only)
    lower(r, RS_CONF_LOW,
          "no request rate: sized on the busiest device's peak utilization, no queueing claim");
  if (d->mem_unknown)
    lower(r, RS_CONF_LOW, "memory need unknown: no gpu_mem_used samples, no model.weights");
  const rs_backtest *bt = &d->backtest;
  if (bt->run && bt->contradictory)
    lower(r, RS_CONF_LOW, "the data contradicts itself (see the warnings)");
  else if (bt->run && bt->error > 0.3)
    lower(
        r, RS_CONF_MEDIUM,
        rs_fit_printf(ctx, "the model is within %.0f%% of its own history only", bt->error * 100));
}

/* ---- projection ---- */

static unsigned family_of(const rs_instance *in) {
  if (in->category == RS_CATEGORY_CPU || in->accelerator == NULL)
    return RS_FAMILY_CPU;
  return rs_accel_family_bit(in->accelerator->family);
}

/* Busy time on target / busy time on source for one device, through the
 * projection calibrated on the catalog's published measurements. */
static double project(rs_fit_ctx *ctx, const rs_demand *d, const rs_instance *t,
                      rs_projection *pr) {
  const rs_profile *p = ctx->profile;
  rs_proj_query q = {d->source,
                     t,
                     p->model.workload_set ? p->model.workload : RS_WORKLOAD_UNKNOWN,
                     p->model.precision_set ? p->model.precision : RS_PRECISION_COUNT,
                     p->model.bound,
                     p->model.framework};
  rs_proj_project(&ctx->proj, &q, pr);
  return pr->ratio;
}

/* The same through the llm-decode class (unless named) under a stated bound:
 * how the target's achieved share of its bandwidth or compute compares. */
static void project_llm(rs_fit_ctx *ctx, const rs_demand *d, const rs_instance *t, rs_bound b,
                        rs_projection *pr) {
  const rs_profile *p = ctx->profile;
  rs_proj_query q = {d->source,
                     t,
                     p->model.workload_set ? p->model.workload : RS_WORKLOAD_LLM_DECODE,
                     p->model.precision_set ? p->model.precision : RS_PRECISION_COUNT,
                     b,
                     p->model.framework};
  rs_proj_project(&ctx->proj, &q, pr);
}

/* How a projection was made, for the basis and the confidence reasons. */
static const char *projection_text(rs_fit_ctx *ctx, const rs_projection *pr) {
  const char *cls =
      pr->workload == RS_WORKLOAD_UNKNOWN ? "no workload class" : rs_workload_name(pr->workload);
  return rs_fit_printf(ctx, "%s (%s%s, %s%s)", rs_proj_path_name(pr->path), cls,
                       pr->inferred ? " inferred" : "", rs_precision_name(pr->precision),
                       ctx->profile->model.precision_set ? "" : " assumed");
}

/* A benchmark's ratio against the projection's: used either way (measured
 * beats modelled), flagged when they differ by more than the band. */
static void add_note(rs_fit_ctx *ctx, rs_candidate *c, const char *note);

static void crosscheck(rs_fit_ctx *ctx, const rs_demand *d, rs_candidate *c, double per) {
  rs_projection pr;
  double modelled = project(ctx, d, c->inst, &pr);
  c->modelled_ratio = NAN;
  if (isnan(c->ratio) || isnan(modelled))
    return;
  c->modelled_ratio = pr.ratio / per;
  if (fabs(c->ratio / c->modelled_ratio - 1.0) <= pr.band)
    return;
  c->benchmark_disagrees = true;
  add_note(ctx, c,
           rs_fit_printf(ctx,
                         "benchmark disagrees with the projection: busy-time ratio %.3f measured, "
                         "%.3f modelled by %s, beyond its +/-%.0f%% band (the benchmark is used)",
                         c->ratio, c->modelled_ratio, projection_text(ctx, &pr), pr.band * 100.0));
}

static const rs_benchmark *find_benchmark(const rs_profile *p, const char *name) {
  for (size_t i = 0; i < p->nbenchmarks; i++)
    if (strcasecmp(p->benchmarks[i].instance, name) == 0)
      return &p->benchmarks[i];
  return NULL;
}

/* A benchmark on another shape with the same accelerator. */
static const rs_benchmark *same_device_benchmark(rs_fit_ctx *ctx, const rs_instance *t,
                                                 const rs_instance **on) {
  const rs_profile *p = ctx->profile;
  for (size_t i = 0; t->accelerator && i < p->nbenchmarks; i++) {
    const rs_instance *b = rs_catalog_find(ctx->cat, p->benchmarks[i].instance);
    if (b && b->accelerator == t->accelerator && b->accelerator_count >= 1) {
      *on = b;
      return &p->benchmarks[i];
    }
  }
  return NULL;
}

/* ---- one shape ---- */

typedef struct plan {
  double service_s;    /* busy time per request per server (capacity) */
  double queue_s;      /* what a request holds a server (queue model) */
  double service_q_ms; /* service latency at the SLO quantile */
  double cs2;
  bool cpu_target;
} plan;

/* The basis, error band and confidence reasons a projection gives. */
static void projection_confidence(rs_fit_ctx *ctx, const rs_demand *d, rs_candidate *c,
                                  const rs_projection *pr, reasons *r) {
  unsigned fs = family_of(d->source), ft = family_of(c->inst);
  const char *src = d->source->accelerator ? d->source->accelerator->name : d->source->name;
  if (pr->path == RS_PROJ_SAME) {
    c->basis = "observed device";
    c->error_band = 0.10;
    return;
  }
  c->basis = rs_fit_printf(ctx, "modelled: %s", projection_text(ctx, pr));
  c->error_band = pr->band;
  lower(r, pr->cap,
        rs_fit_printf(ctx, "projected from %s by %s, leave-one-out band +/-%.0f%%", src,
                      projection_text(ctx, pr), pr->band * 100.0));
  if (fs != ft)
    lower(r, RS_CONF_LOW,
          rs_fit_printf(ctx, "cross-family projection (%s to %s)", rs_family_name(fs),
                        rs_family_name(ft)));
  if (pr->path == RS_PROJ_CPU)
    lower(r, RS_CONF_LOW, "CPU throughput from assumed per-vCPU figures, not measured");
  if (pr->lacking != NULL)
    lower(
        r, RS_CONF_LOW,
        rs_fit_printf(ctx, "%s lacks a %s figure: projected from the figures that exist",
                      pr->lacking->accelerator ? pr->lacking->accelerator->name : pr->lacking->name,
                      pr->figure));
  if (pr->workload == RS_WORKLOAD_UNKNOWN)
    lower(r, ctx->profile->model.bound == RS_BOUND_UNKNOWN ? RS_CONF_LOW : RS_CONF_MEDIUM,
          ctx->profile->model.bound == RS_BOUND_UNKNOWN
              ? "neither model.workload nor model.bound given: projected between the classes"
              : "model.workload not given: projected by model.bound");
  else if (pr->inferred)
    lower(r, RS_CONF_MEDIUM,
          rs_fit_printf(ctx, "workload class %s inferred from model.bound or the framework",
                        rs_workload_name(pr->workload)));
}

/* Busy time per server and the service's latency quantile on this shape. */
static bool fit_service(rs_fit_ctx *ctx, const rs_demand *d, rs_candidate *c, plan *pl,
                        reasons *r) {
  const rs_instance *in = c->inst, *on = NULL;
  /* A benchmark on the current shape serves the `now` row too: one shape,
   * one answer. The same device measured elsewhere does not beat the
   * observed data. */
  const rs_benchmark *b = find_benchmark(ctx->profile, in->name);
  pl->cs2 = d->cs2;
  if (b == NULL && !c->is_current && c->devices_per_server == 1 && in->accelerator_count >= 1)
    b = same_device_benchmark(ctx, in, &on);
  if (b != NULL) {
    /* a benchmark records p99 (and p50); a p95 SLO is checked against its p99 */
    double lat = b->latency_p99_ms;
    pl->service_s = 1.0 / b->throughput_rps;
    if (on != NULL) {
      /* per device of the benchmarked shape, one server per device here */
      pl->service_s *= on->accelerator_count;
      c->servers_per_replica = (unsigned)in->accelerator_count;
      c->basis = rs_fit_printf(ctx, "measured on %s", on->name);
      c->error_band = 0.15;
      lower(r, RS_CONF_MEDIUM,
            rs_fit_printf(ctx, "benchmark from %s (same %s, another host)", on->name,
                          in->accelerator->name));
    } else {
      c->servers_per_replica = 1; /* the benchmark's throughput is per replica */
      c->basis = "measured";
      c->error_band = 0.10;
    }
    c->ratio = isnan(d->busy_s) ? NAN : pl->service_s / d->busy_s;
    /* per-replica figures compare with the per-device projection over the devices */
    crosscheck(ctx, d, c, on == NULL && in->accelerator_count > 0 ? in->accelerator_count : 1.0);
    if (!isnan(lat))
      pl->service_q_ms = lat;
    else if (!isnan(c->ratio))
      pl->service_q_ms = d->service_q_ms * c->ratio;
    else
      pl->service_q_ms = pl->service_s * -log(1.0 - d->slo_quantile) * 1e3;
    double cs2 = rs_lognormal_cv2(b->latency_p50_ms, b->latency_p99_ms, 0.99);
    if (!isnan(cs2))
      pl->cs2 = fmin(cs2, 4.0);
    double mean_ms = !isnan(b->latency_p50_ms)
                         ? rs_lognormal_mean(b->latency_p50_ms, 0.5, pl->cs2)
                         : rs_lognormal_mean(pl->service_q_ms, d->slo_quantile, pl->cs2);
    pl->queue_s = fmin(pl->service_s, mean_ms / 1e3);
    return true;
  }
  double busy = d->busy_s;
  if (isnan(busy) && d->design_peak == 0 && !isnan(d->service_q_ms))
    busy = 0; /* no traffic to carry: only the latency of one request matters */
  if (isnan(busy)) {
    rs_fit_reject(
        c, RS_CONSTRAINT_SPEC,
        "no busy time per request to project (needs utilization and request-rate samples, "
        "or a benchmark on this shape)",
        INFINITY);
    return false;
  }
  rs_projection pr = {.ratio = 1.0, .path = RS_PROJ_SAME};
  double ratio = c->is_current ? 1.0 : project(ctx, d, in, &pr);
  if (isnan(ratio)) {
    const rs_instance *lack = pr.lacking ? pr.lacking : in;
    rs_fit_reject(
        c, RS_CONSTRAINT_SPEC,
        rs_fit_printf(ctx,
                      "no %s figure for %s (the %s device) to project with (a benchmark on "
                      "this shape would do)",
                      pr.figure ? pr.figure : "compute or bandwidth",
                      lack->accelerator ? lack->accelerator->name : lack->name,
                      lack == d->source ? "source" : "target"),
        INFINITY);
    return false;
  }
  double speed = 1.0;
  if (c->is_current)
    speed = 1.0; /* observed: any sharding speed-up is already in the data */
  else if (c->devices_per_server > 1)
    speed = (double)c->devices_per_server * RS_FIT_SHARD_EFFICIENCY;
  else if (!pl->cpu_target && in->accelerator_count < 1)
    speed = in->accelerator_count; /* a slice of one device */
  c->ratio = ratio / speed;
  double lat_ratio = d->device_share * c->ratio + (1.0 - d->device_share);
  pl->service_s = busy * c->ratio;
  pl->service_q_ms = d->service_q_ms * lat_ratio;
  pl->queue_s = fmin(pl->service_s, d->hold_s * lat_ratio);
  if (c->is_current) {
    c->basis = "observed";
    c->error_band = d->backtest.run ? d->backtest.error : 0.0;
    return true;
  }
  projection_confidence(ctx, d, c, &pr, r);
  if (c->devices_per_server > 1)
    lower(r, RS_CONF_MEDIUM,
          rs_fit_printf(ctx, "sharded over %u devices at an assumed %.0f%% efficiency",
                        c->devices_per_server, RS_FIT_SHARD_EFFICIENCY * 100.0));
  return true;
}

/* ---- the latency of one queue, computed once per fit ---- */

/* Shapes that carry the same device (g4dn.xlarge to g4dn.16xlarge each hold
 * one T4) present the same queue at each replica count, and the response
 * quantile is most of a fit's cost. The memo keeps the quantiles of a fit
 * by their inputs, compared bit for bit, so a hit returns exactly the bytes
 * a fresh computation would. */
#define MEMO_SLOTS 64
#define MEMO_KEY 7

struct rs_fit_memo {
  double key[MEMO_SLOTS][MEMO_KEY];
  double ms[MEMO_SLOTS];
  size_t n, next; /* slots filled; the one to overwrite when full */
};

static void memo_key(double key[MEMO_KEY], const rs_queue *q, const plan *pl, double p) {
  key[0] = (double)q->servers, key[1] = q->arrival_rps, key[2] = q->service_s;
  key[3] = q->ca2, key[4] = q->cs2, key[5] = pl->service_q_ms, key[6] = p;
}

/* A request's latency at quantile p through queue q: the quantile of service
 * plus wait (not the sum of their quantiles). The service time is lognormal
 * with the plan's quantile and cs2; without traffic it is the whole answer. */
static double response_q_ms_fresh(const rs_queue *q, const plan *pl, double p) {
  if (!(q->arrival_rps > 0))
    return pl->service_q_ms;
  double sigma = sqrt(log1p(pl->cs2));
  double s50_s = pl->service_q_ms / 1e3 / exp(sigma * rs_normal_quantile(p));
  double r = rs_queue_response_quantile(q, s50_s, pl->cs2, p);
  if (isnan(r)) /* no service latency to combine: the wait alone, as before */
    return pl->service_q_ms + rs_queue_wait_quantile(q, p) * 1e3;
  return r * 1e3;
}

/* The memo's slot for the quantile at p through q, or NULL (no memo, no
 * traffic, or a plan whose service cs2 is not the queue's). */
static const double *memo_find(const rs_fit_ctx *ctx, const rs_queue *q, const plan *pl, double p) {
  const struct rs_fit_memo *m = ctx->memo;
  double key[MEMO_KEY];
  if (m == NULL || !(q->arrival_rps > 0) || q->cs2 != pl->cs2)
    return NULL;
  memo_key(key, q, pl, p);
  for (size_t i = 0; i < m->n; i++)
    if (memcmp(m->key[i], key, sizeof(key)) == 0)
      return &m->ms[i];
  return NULL;
}

static double response_q_ms(rs_fit_ctx *ctx, const rs_queue *q, const plan *pl, double p) {
  struct rs_fit_memo *m = ctx->memo;
  const double *hit = memo_find(ctx, q, pl, p);
  if (hit != NULL)
    return *hit;
  if (m == NULL || !(q->arrival_rps > 0) || q->cs2 != pl->cs2)
    return response_q_ms_fresh(q, pl, p);
  size_t at = m->n < MEMO_SLOTS ? m->n++ : m->next;
  if (at == m->next)
    m->next = (m->next + 1) % MEMO_SLOTS;
  memo_key(m->key[at], q, pl, p);
  return m->ms[at] = response_q_ms_fresh(q, pl, p);
}

/* Whether the latency at quantile p through q is surely above slo_ms: the
 * chance of a response slower than the SLO is more than 1% (relative) over
 * 1 - p. One evaluation of the tail where the quantile takes a root search
 * of several; the margin keeps the answer the quantile's own (ln P(R > t)
 * would have to fall by 0.01 within the search's 1e-14 tolerance in ln t).
 * The tail is asked only when it may say yes: not for a quantile already in
 * the memo (then the caller reads it), and not while the tail's cheap lower
 * bound (rs_queue_response_tail_floor, four wait tails) is under half the
 * threshold; in an audit the tail said yes to 0.4% of the counts it was asked
 * about. The floor bounds the exact tail, and the 40-panel quadrature may
 * differ from that by its own error (about 1e-4 relative), so the floor
 * only decides whether to ask. NaN (bad input) and no traffic: not surely. */
static bool surely_late(const rs_fit_ctx *ctx, const rs_queue *q, const plan *pl, double p,
                        double slo_ms) {
  if (!(q->arrival_rps > 0) || memo_find(ctx, q, pl, p) != NULL)
    return false;
  double sigma = sqrt(log1p(pl->cs2)), limit = (1.0 - p) * 1.01;
  double s50_s = pl->service_q_ms / 1e3 / exp(sigma * rs_normal_quantile(p));
  if (!(rs_queue_response_tail_floor(q, s50_s, pl->cs2, slo_ms / 1e3) > limit / 2))
    return false;
  return rs_queue_response_tail(q, s50_s, pl->cs2, slo_ms / 1e3) > limit;
}

/* Evaluates the constraints at `replicas`; the first failing one, or NONE.
 * A count that is not the last one tried (`shown` false) and fails on
 * utilization or surely on latency returns before the latency is computed:
 * the next count overwrites every figure, so none of its own is shown. */
static rs_constraint evaluate(rs_fit_ctx *ctx, const rs_demand *d, rs_candidate *c, const plan *pl,
                              unsigned replicas, bool shown) {
  const rs_instance *in = c->inst;
  double lambda = d->design_peak, mu_cap = ctx->o->max_util;
  c->replicas = replicas;
  c->servers = replicas * c->servers_per_replica;
  rs_queue q = {c->servers, lambda, pl->queue_s, 1.0, pl->cs2};
  rs_queue_result res = rs_queue_eval(&q);
  c->util = lambda * pl->service_s / (double)c->servers;
  c->p_wait = lambda > 0 ? res.p_wait : 0.0;
  if (!shown && !d->capacity_only) {
    if (!(c->util <= mu_cap))
      return RS_CONSTRAINT_UTILIZATION;
    if (surely_late(ctx, &q, pl, d->slo_quantile, d->slo_ms))
      return RS_CONSTRAINT_LATENCY;
  }
  c->latency_q_ms = response_q_ms(ctx, &q, pl, d->slo_quantile);
  c->wait_q_ms = fmax(c->latency_q_ms - pl->service_q_ms, 0.0);
  if (d->capacity_only) {
    /* no request rate, no queue to model: the service latency alone, if measured */
    c->p_wait = c->wait_q_ms = 0.0;
    c->latency_q_ms = d->latency_observed ? pl->service_q_ms : NAN;
  }
  double per_replica = lambda / (double)replicas;
  c->host_cpu_util = NAN;
  if (d->cpu_known && in->vcpus > 0)
    c->host_cpu_util = (d->cpu_base_vcpus + per_replica * d->cpu_vcpu_s_per_req) / in->vcpus;
  c->net_util = NAN;
  double gbps = !isnan(in->network_baseline_gbps) ? in->network_baseline_gbps
                : in->network_up_to               ? NAN
                                                  : in->network_gbps;
  if (d->net_known && gbps > 0)
    c->net_util = (d->net_base_bps + per_replica * d->net_bytes_per_req) / (gbps * 1e9 / 8.0);
  double cpu_total = pl->cpu_target ? c->util + (isnan(c->host_cpu_util) ? 0 : c->host_cpu_util)
                                    : c->host_cpu_util;
  if (!(c->util <= mu_cap))
    return RS_CONSTRAINT_UTILIZATION;
  if (!(c->latency_q_ms <= d->slo_ms) && !(d->capacity_only && isnan(c->latency_q_ms)))
    return RS_CONSTRAINT_LATENCY;
  if (cpu_total > mu_cap)
    return RS_CONSTRAINT_HOST_CPU;
  if (c->net_util > mu_cap)
    return RS_CONSTRAINT_NETWORK;
  return RS_CONSTRAINT_NONE;
}

/* The constraint with the least relative margin at the chosen count. */
static rs_constraint tightest(const rs_fit_ctx *ctx, const rs_demand *d, const rs_candidate *c,
                              const plan *pl) {
  double cap = ctx->o->max_util;
  double cpu = pl->cpu_target ? c->util + (isnan(c->host_cpu_util) ? 0 : c->host_cpu_util)
                              : c->host_cpu_util;
  struct {
    rs_constraint k;
    double margin;
  } m[] = {
      {RS_CONSTRAINT_MEMORY, 1.0 - d->mem_need_head / c->mem_capacity},
      {RS_CONSTRAINT_UTILIZATION, 1.0 - c->util / cap},
      {RS_CONSTRAINT_LATENCY, 1.0 - c->latency_q_ms / d->slo_ms},
      {RS_CONSTRAINT_HOST_CPU, isnan(cpu) ? INFINITY : 1.0 - cpu / cap},
      {RS_CONSTRAINT_NETWORK, isnan(c->net_util) ? INFINITY : 1.0 - c->net_util / cap},
  };
  size_t best = 0;
  for (size_t i = 1; i < sizeof(m) / sizeof(m[0]); i++)
    if (m[i].margin < m[best].margin)
      best = i;
  return m[best].k;
}

static const char *failure_text(rs_fit_ctx *ctx, const rs_demand *d, const rs_candidate *c,
                                rs_constraint k) {
  double cap = ctx->o->max_util * 100.0;
  switch (k) {
  case RS_CONSTRAINT_UTILIZATION:
    return rs_fit_printf(ctx, "utilization %.0f%% > %.0f%% ceiling at %u replica%s",
                         c->util * 100.0, cap, c->replicas, c->replicas == 1 ? "" : "s");
  case RS_CONSTRAINT_LATENCY:
    return rs_fit_printf(ctx, "p%.0f %.1f ms > SLO %.0f ms at %u replica%s",
                         d->slo_quantile * 100.0, c->latency_q_ms, d->slo_ms, c->replicas,
                         c->replicas == 1 ? "" : "s");
  case RS_CONSTRAINT_HOST_CPU:
    return rs_fit_printf(ctx, "host CPU %.0f%% of %.0f vCPUs > %.0f%% ceiling at %u replica%s",
                         c->host_cpu_util * 100.0, c->inst->vcpus, cap, c->replicas,
                         c->replicas == 1 ? "" : "s");
  case RS_CONSTRAINT_NETWORK:
    return rs_fit_printf(ctx, "network %.0f%% of the baseline bandwidth > %.0f%% at %u replica%s",
                         c->net_util * 100.0, cap, c->replicas, c->replicas == 1 ? "" : "s");
  default: return "";
  }
}

static void price(const rs_fit_result *res, rs_candidate *c) {
  double p = c->inst->price_usd_per_hour;
  c->usd_per_hour = p * (double)c->replicas;
  c->usd_per_month = c->usd_per_hour * RS_FIT_HOURS_PER_MONTH;
  c->usd_per_million =
      res->demand.rate_mean > 0 ? c->usd_per_hour / (res->demand.rate_mean * 3600.0) * 1e6 : NAN;
  c->savings_month = (res->current_usd_hour - c->usd_per_hour) * RS_FIT_HOURS_PER_MONTH;
  c->savings_pct = (res->current_usd_hour - c->usd_per_hour) / res->current_usd_hour * 100.0;
  if (c->llm.on) {
    const rs_llm_demand *l = &res->demand.llm;
    c->llm.usd_per_m_output = c->usd_per_hour / (l->output_rate_mean * 3600.0) * 1e6;
    c->llm.usd_per_m_input = c->usd_per_hour / (l->prompt_rate_mean * 3600.0) * 1e6;
  }
}

static void keep_reasons(rs_fit_ctx *ctx, rs_candidate *c, const reasons *r) {
  c->confidence = r->level;
  if (ctx->o->terse) /* the texts are empty: only the level is read */
    return;
  c->nreasons = r->n;
  c->reasons = rs_arena_alloc_array(ctx->arena, r->n ? r->n : 1, sizeof(*c->reasons));
  if (c->reasons == NULL) {
    ctx->nomem = true;
    c->nreasons = 0;
    return;
  }
  memcpy(c->reasons, r->text, r->n * sizeof(*c->reasons));
}

static void add_note(rs_fit_ctx *ctx, rs_candidate *c, const char *note) {
  if (ctx->o->terse)
    return;
  const char **n = rs_arena_alloc_array(ctx->arena, c->nnotes + 1, sizeof(*n));
  if (n == NULL || note == NULL) {
    ctx->nomem = true;
    return;
  }
  if (c->nnotes)
    memcpy(n, c->notes, c->nnotes * sizeof(*n));
  n[c->nnotes++] = note;
  c->notes = n;
}

/* At the load it served, what was observed beats the model: the current
 * deployment's per-interval SLO quantile stayed within the SLO in 99 % of
 * the intervals, and the design peak is no higher than the highest rate it
 * served. *obs_ms: that observed figure. */
static bool observed_healthy(const rs_fit_ctx *ctx, const rs_demand *d, double *obs_ms) {
  const rs_metric_stats *lq =
      &ctx->sum->stats.m[d->slo_quantile >= 0.99 ? RS_METRIC_LATENCY_P99 : RS_METRIC_LATENCY_P95];
  *obs_ms = lq->count ? lq->q[3] : NAN;
  return lq->count > 0 && lq->q[3] <= d->slo_ms && d->design_peak <= d->observed_peak;
}

/* The constraints evaluate() checks after latency, at the count it set. */
static rs_constraint after_latency(const rs_fit_ctx *ctx, const rs_candidate *c, const plan *pl) {
  double cap = ctx->o->max_util;
  double cpu = pl->cpu_target ? c->util + (isnan(c->host_cpu_util) ? 0 : c->host_cpu_util)
                              : c->host_cpu_util;
  if (cpu > cap)
    return RS_CONSTRAINT_HOST_CPU;
  return c->net_util > cap ? RS_CONSTRAINT_NETWORK : RS_CONSTRAINT_NONE;
}

/* A healthy current deployment at a load it served: its observed latency
 * stands for the model's, and the utilization ceiling (a margin for the
 * model's error) does not fail what ran below 100 % with the SLO met. The
 * constraints after latency still apply. */
static rs_constraint observed_beats_model(rs_fit_ctx *ctx, const rs_demand *d, rs_candidate *c,
                                          const plan *pl, double obs_ms) {
  if (c->util > ctx->o->max_util)
    add_note(ctx, c,
             rs_fit_printf(ctx,
                           "ran at %.0f%% utilization at this load with the SLO met: above the "
                           "%.0f%% ceiling, which is a margin for the model's error",
                           c->util * 100.0, ctx->o->max_util * 100.0));
  if (!(c->latency_q_ms <= d->slo_ms)) {
    add_note(ctx, c,
             rs_fit_printf(ctx,
                           "at the load it served, the observed p%.0f (%.1f ms in 99%% of the "
                           "intervals) beats the model's %.1f ms",
                           d->slo_quantile * 100.0, obs_ms, c->latency_q_ms));
    c->latency_q_ms = obs_ms;
  }
  return after_latency(ctx, c, pl);
}

/* A shape fitted up to its replica search: what the search needs. */
typedef struct search {
  plan pl;
  reasons r;
  unsigned first, last; /* the replica counts to try */
  bool healthy;         /* observed_healthy */
  bool llm;             /* fit_llm's search */
  double obs_ms;
  double floor; /* $/month at `first` replicas: the least a fit can cost */
  size_t at;    /* the candidate's index in rs_fit's list */
} search;

/* An LLM on one shape (llm.c): the decode and KV checks and the replica
 * count the load needs at least; true when the search for the smallest
 * count meeting KV capacity, load, TPOT, TTFT and latency is left to do
 * (fit_llm_search), with s->first and s->last set. */
static bool fit_llm(rs_fit_ctx *ctx, rs_fit_result *res, rs_candidate *c, unsigned fixed,
                    reasons *r, search *s) {
  const rs_demand *d = &res->demand;
  rs_projection pm = {.ratio = 1.0, .path = RS_PROJ_SAME}, pc = pm;
  rs_constraint k = RS_CONSTRAINT_NONE;
  const char *why = NULL;
  if (!c->is_current) {
    project_llm(ctx, d, c->inst, RS_BOUND_MEMORY, &pm);
    project_llm(ctx, d, c->inst, RS_BOUND_COMPUTE, &pc);
    projection_confidence(ctx, d, c, &pm, r);
    c->ratio = pm.ratio;
    c->error_band += d->llm.backtest_error; /* the model's own error on its history */
  } else {
    c->basis = "observed";
    c->error_band = 0.10;
    c->ratio = 1.0;
    c->servers_per_replica =
        d->source_active / c->devices_per_server ? d->source_active / c->devices_per_server : 1;
  }
  if (!rs_llm_prepare(ctx, d, c, c->is_current ? NULL : &pm, c->is_current ? NULL : &pc, &k,
                      &why)) {
    rs_fit_reject(c, k, why, INFINITY);
    return false;
  }
  unsigned first = 1, last = fixed ? fixed : ctx->o->max_replicas;
  /* The count-1 evaluation gives only the figures an overloaded count
   * leaves in place (it returns before the KV and latency ones), which only
   * a full fit's rejected shapes show: an audit skips it but for now's. */
  if (!ctx->o->verdict_only || c->is_current)
    rs_llm_eval(ctx, d, c, 1);
  double need =
      d->design_peak / ((double)c->servers_per_replica * c->llm.capacity_rps * ctx->o->max_util);
  first = fixed ? fixed : need > 1 ? (unsigned)fmin(ceil(need - 1e-9), (double)last) : 1;
  s->first = first;
  s->last = last;
  return true;
}

static void fit_llm_search(rs_fit_ctx *ctx, rs_fit_result *res, rs_candidate *c, const search *s) {
  const rs_demand *d = &res->demand;
  rs_constraint k = RS_CONSTRAINT_NONE;
  for (unsigned n = s->first; n <= s->last; n++)
    if ((k = rs_llm_eval(ctx, d, c, n)) == RS_CONSTRAINT_NONE)
      break;
  if (k != RS_CONSTRAINT_NONE)
    rs_fit_reject(c, k, rs_llm_failure(ctx, d, c, k),
                  k == RS_CONSTRAINT_KV_CAPACITY ? c->llm.kv_demand_bytes / c->llm.kv_capacity_bytes
                                                 : c->util / ctx->o->max_util);
  else {
    c->binding = rs_llm_tightest(ctx, d, c);
    c->binding_why = rs_llm_binding_why(ctx, d, c, c->binding);
  }
  price(res, c);
}

/* Fits one shape up to its replica search. fixed > 0 evaluates that
 * replica count instead of searching (the current or a proposed
 * deployment). true: the search is left to do, with what it needs in *s
 * (fit_search); false: c is decided. */
static bool fit_begin(rs_fit_ctx *ctx, rs_fit_result *res, const rs_instance *in, bool current,
                      unsigned fixed, rs_candidate *c, search *s) {
  const rs_demand *d = &res->demand;
  plan pl = {NAN, NAN, NAN, 1.0, in->category == RS_CATEGORY_CPU};
  reasons r;
  memset(c, 0, sizeof(*c));
  c->inst = in;
  c->is_current = current;
  c->fits = true;
  c->failed = RS_CONSTRAINT_NONE;
  c->binding = RS_CONSTRAINT_NONE;
  c->util = c->latency_q_ms = c->host_cpu_util = c->net_util = c->ratio = c->modelled_ratio = NAN;
  c->usd_per_hour = c->usd_per_month = c->usd_per_million = NAN;
  c->savings_month = c->savings_pct = NAN;
  r = *ctx->data;
  if (in->price_flag == RS_PRICE_SUSPECT)
    lower(&r, RS_CONF_MEDIUM, "the catalog marks this price suspect");
  if (!current && isnan(in->price_usd_per_hour)) {
    rs_fit_reject(c, RS_CONSTRAINT_PRICE,
                  rs_fit_printf(ctx, "no %s price in catalog %s", rs_price_basis_name(res->basis),
                                ctx->cat->version),
                  INFINITY);
    keep_reasons(ctx, c, &r);
    return false;
  }
  if (rs_fit_memory(ctx, d, c, pl.cpu_target) && d->llm.on) {
    if (fit_llm(ctx, res, c, fixed, &r, s)) {
      s->r = r;
      s->llm = true;
      s->floor = in->price_usd_per_hour * (double)s->first * RS_FIT_HOURS_PER_MONTH;
      return true;
    }
    keep_reasons(ctx, c, &r);
    return false;
  }
  if (!c->fits && d->llm.on && c->failed == RS_CONSTRAINT_MEMORY)
    c->reason = rs_llm_memory_reason(ctx, d, c);
  if (!c->fits || !fit_service(ctx, d, c, &pl, &r)) {
    keep_reasons(ctx, c, &r);
    return false;
  }
  if (current && strcmp(c->basis, "measured") != 0)
    c->servers_per_replica = d->source_active;
  if (!current && d->backtest.run)
    c->error_band += d->backtest.error; /* the latency model's own error on its history */
  double obs_ms = NAN;
  bool healthy = current && observed_healthy(ctx, d, &obs_ms);
  if (isnan(in->vcpus))
    add_note(ctx, c, "host vCPUs and memory unknown for this shape: host checks skipped");
  if (in->arch == RS_ARCH_ARM64 && d->source->arch != RS_ARCH_ARM64)
    add_note(ctx, c, "arm64 host: the serving image must be built for it");
  if (in->network_up_to && isnan(in->network_baseline_gbps) && d->net_known)
    add_note(ctx, c, "network is 'up to' with no baseline: network check skipped");
  if (pl.service_q_ms > d->slo_ms && !healthy) {
    rs_fit_reject(c, RS_CONSTRAINT_LATENCY,
                  rs_fit_printf(ctx,
                                "service alone takes %.1f ms at p%.0f > SLO %.0f ms: no replica "
                                "count helps",
                                pl.service_q_ms, d->slo_quantile * 100.0, d->slo_ms),
                  pl.service_q_ms / d->slo_ms);
    if (fixed) {
      evaluate(ctx, d, c, &pl, fixed, true);
      price(res, c);
    }
    keep_reasons(ctx, c, &r);
    return false;
  }
  unsigned first = 1, last = ctx->o->max_replicas;
  if (fixed) {
    first = last = fixed;
  } else if (d->design_peak > 0) {
    double need =
        d->design_peak * pl.service_s / ((double)c->servers_per_replica * ctx->o->max_util);
    if (need > (double)last) {
      evaluate(ctx, d, c, &pl, last, true);
      rs_fit_reject(c, RS_CONSTRAINT_UTILIZATION,
                    rs_fit_printf(ctx,
                                  "needs %.0f replicas for %.0f%% utilization at %.1f req/s > "
                                  "--max-replicas %u",
                                  ceil(need), ctx->o->max_util * 100.0, d->design_peak, last),
                    need / (double)last);
      keep_reasons(ctx, c, &r);
      return false;
    }
    first = need > 1 ? (unsigned)ceil(need - 1e-9) : 1;
  }
  *s = (search){pl, r, first, last, healthy, false, obs_ms, NAN, 0};
  /* as price() computes it, so that no count from first on costs less */
  s->floor = in->price_usd_per_hour * (double)first * RS_FIT_HOURS_PER_MONTH;
  return true;
}

/* The replica search fit_begin left to do for c. */
static void fit_search(rs_fit_ctx *ctx, rs_fit_result *res, rs_candidate *c, search *s) {
  const rs_demand *d = &res->demand;
  const plan pl = s->pl;
  rs_constraint k = RS_CONSTRAINT_NONE;
  if (s->llm) {
    fit_llm_search(ctx, res, c, s);
    keep_reasons(ctx, c, &s->r);
    return;
  }
  for (unsigned n = s->first; n <= s->last; n++) {
    k = evaluate(ctx, d, c, &pl, n, n == s->last);
    if (k == RS_CONSTRAINT_NONE)
      break;
  }
  if (s->healthy &&
      (k == RS_CONSTRAINT_LATENCY || (k == RS_CONSTRAINT_UTILIZATION && c->util < 1.0)))
    k = observed_beats_model(ctx, d, c, &pl, s->obs_ms);
  if (k != RS_CONSTRAINT_NONE) {
    double off = k == RS_CONSTRAINT_LATENCY       ? c->latency_q_ms / d->slo_ms
                 : k == RS_CONSTRAINT_UTILIZATION ? c->util / ctx->o->max_util
                 : k == RS_CONSTRAINT_HOST_CPU    ? c->host_cpu_util / ctx->o->max_util
                                                  : c->net_util / ctx->o->max_util;
    rs_fit_reject(c, k, failure_text(ctx, d, c, k), off);
  } else {
    c->binding = tightest(ctx, d, c, &pl);
  }
  c->service_s = pl.service_s;
  c->queue_s = pl.queue_s;
  c->cs2 = pl.cs2;
  c->service_q_ms = pl.service_q_ms;
  price(res, c);
  keep_reasons(ctx, c, &s->r);
}

static void fit_shape(rs_fit_ctx *ctx, rs_fit_result *res, const rs_instance *in, bool current,
                      unsigned fixed, rs_candidate *c) {
  search s;
  if (fit_begin(ctx, res, in, current, fixed, c, &s))
    fit_search(ctx, res, c, &s);
}

/* A shape of an allowed family whose runtime the model's framework lacks
 * (compat.c): listed as rejected, so the reader sees why. */
static void reject_framework(rs_fit_ctx *ctx, const rs_instance *in, const char *why,
                             rs_candidate *c) {
  memset(c, 0, sizeof(*c));
  c->inst = in;
  c->util = c->latency_q_ms = c->host_cpu_util = c->net_util = c->ratio = NAN;
  c->usd_per_hour = c->usd_per_month = c->usd_per_million = NAN;
  c->savings_month = c->savings_pct = NAN;
  rs_fit_reject(c, RS_CONSTRAINT_FRAMEWORK, why, INFINITY);
  keep_reasons(ctx, c, ctx->data);
}

/* ---- verdict_only: the searches cheapest first ---- */

static int cmp_floor(const void *pa, const void *pb) {
  const search *a = pa, *b = pb;
  if (a->floor != b->floor)
    return a->floor < b->floor ? -1 : 1;
  return a->at < b->at ? -1 : a->at > b->at;
}

/* Runs the waiting searches in the order of the least each shape can cost,
 * until no shape left can change the verdict, its target or the warnings
 * (rs_fit_verdict_settled): those are marked in skip. A search ends the
 * same whatever ran before it (the memo of response quantiles only saves
 * work, and surely_late passes over a count only where the quantile would
 * fail it too), so the shapes searched end as in catalog order. */
static void search_cheapest_first(rs_fit_ctx *ctx, rs_fit_result *res, rs_candidate *all, size_t n,
                                  search *todo, size_t ntodo, bool *skip) {
  double best = INFINITY; /* the cheapest fit the verdict may choose */
  for (size_t i = 0; i < n; i++) {
    skip[i] = false;
    if (all[i].fits && rs_fit_verdict_eligible(res, &all[i]))
      best = fmin(best, all[i].usd_per_month);
  }
  qsort(todo, ntodo, sizeof(*todo), cmp_floor);
  for (size_t k = 0; k < ntodo; k++) {
    if (rs_fit_verdict_settled(res, best, todo[k].floor)) {
      for (; k < ntodo; k++)
        skip[todo[k].at] = true;
      break;
    }
    rs_candidate *c = &all[todo[k].at];
    fit_search(ctx, res, c, &todo[k]);
    if (c->fits && rs_fit_verdict_eligible(res, c))
      best = fmin(best, c->usd_per_month);
  }
}

/* ---- ranking ---- */

static int cmp_fitting(const void *pa, const void *pb) {
  const rs_candidate *a = pa, *b = pb;
  if (a->usd_per_month != b->usd_per_month)
    return a->usd_per_month < b->usd_per_month ? -1 : 1;
  if (a->confidence != b->confidence)
    return a->confidence > b->confidence ? -1 : 1;
  int r = strcmp(a->inst->provider, b->inst->provider);
  if (r == 0)
    r = strcmp(a->inst->name, b->inst->name);
  return r ? r : strcmp(a->inst->region, b->inst->region);
}

static int cmp_rejected(const void *pa, const void *pb) {
  const rs_candidate *a = pa, *b = pb;
  if (a->shortfall != b->shortfall)
    return a->shortfall < b->shortfall ? -1 : 1;
  double pa_ = a->inst->price_usd_per_hour, pb_ = b->inst->price_usd_per_hour;
  if (!isnan(pa_) && !isnan(pb_) && pa_ != pb_)
    return pa_ < pb_ ? -1 : 1;
  if (isnan(pa_) != isnan(pb_))
    return isnan(pa_) ? 1 : -1;
  int r = strcmp(a->inst->provider, b->inst->provider);
  if (r == 0)
    r = strcmp(a->inst->name, b->inst->name);
  return r ? r : strcmp(a->inst->region, b->inst->region);
}

static bool allowed(const rs_fit_ctx *ctx, unsigned families, const rs_instance *in) {
  const rs_fit_options *o = ctx->o;
  if (!(family_of(in) & families))
    return false;
  if (o->providers == NULL) {
    if (strcmp(in->provider, ctx->profile->current.provider) != 0)
      return false;
  } else if (o->nproviders > 0) {
    bool hit = false;
    for (size_t i = 0; i < o->nproviders && !hit; i++)
      hit = strcmp(in->provider, o->providers[i]) == 0;
    if (!hit)
      return false;
  }
  return o->region == NULL || strcmp(in->region, o->region) == 0;
}

rs_status rs_fit_projection(const struct rs_proj_model **out, rs_arena *arena,
                            const rs_catalog *cat) {
  rs_proj_model *m = rs_arena_alloc(arena, sizeof(*m));
  *out = NULL;
  if (m == NULL || rs_proj_fit_catalog(m, arena, cat) != RS_OK)
    return RS_NOMEM;
  *out = m;
  return RS_OK;
}

rs_status rs_fit(rs_fit_result **out, rs_arena *arena, const rs_summary *sum, const rs_catalog *cat,
                 rs_price_basis basis, const rs_overlay *overlay, const rs_fit_options *opts,
                 rs_error *err) {
  rs_fit_options defaults;
  struct rs_fit_memo memo = {.n = 0};
  rs_fit_ctx ctx = {.arena = arena,
                    .sum = sum,
                    .profile = sum->profile,
                    .cat = cat,
                    .o = opts,
                    .nomem = false,
                    .memo = &memo};
  rs_status st;
  *out = NULL;
  if (opts != NULL && opts->projection != NULL)
    ctx.proj = *opts->projection;
  else if (rs_proj_fit_catalog(&ctx.proj, arena, cat) != RS_OK)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory while fitting");
  if (opts == NULL) {
    rs_fit_options_init(&defaults);
    ctx.o = opts = &defaults;
  }
  if (sum->profile == NULL)
    return rs_error_set(err, RS_USAGE, NULL, 0, 0,
                        "recommend needs a profile (model facts, current deployment, SLO), not "
                        "bare sample files");
  rs_fit_result *res = rs_arena_alloc(arena, sizeof(*res));
  /* Not zeroed: fit_begin and reject_framework clear each entry they take. */
  rs_candidate *all =
      rs_arena_alloc_array_uninit(arena, cat->ninstances ? cat->ninstances : 1, sizeof(*all));
  if (res == NULL || all == NULL)
    return rs_arena_error(arena, err, NULL, "while fitting");
  memset(res, 0, sizeof(*res));
  res->summary = sum;
  res->catalog = cat;
  res->basis = basis;
  res->overlay = overlay;
  res->opts = *opts;
  res->families = opts->families ? opts->families : sum->profile->model.families;
  if ((st = rs_fit_demand(&ctx, &res->demand, err)) != RS_OK)
    return st;
  reasons data; /* what the data says, the same for every shape: worded once */
  data_reasons(&ctx, &res->demand, &data);
  ctx.data = &data;
  res->current_usd_hour =
      res->demand.source->price_usd_per_hour * (double)sum->profile->current.replicas;
  unsigned now = (unsigned)sum->profile->current.replicas;
  fit_shape(&ctx, res, res->demand.source, true, now, &res->current);
  res->current.replicas = now;
  price(res, &res->current);
  if (opts->proposed != NULL) {
    res->proposed = rs_arena_alloc(arena, sizeof(*res->proposed));
    if (res->proposed == NULL)
      return rs_arena_error(arena, err, NULL, "while fitting");
    fit_shape(&ctx, res, opts->proposed, false, opts->proposed_replicas, res->proposed);
    res->proposed->replicas = opts->proposed_replicas;
    price(res, res->proposed);
  }
  /* verdict_only: the searches wait, to be run cheapest first */
  search *todo =
      opts->verdict_only
          ? rs_arena_alloc_array(arena, cat->ninstances ? cat->ninstances : 1, sizeof(*todo))
          : NULL;
  bool *skip =
      opts->verdict_only
          ? rs_arena_alloc_array(arena, cat->ninstances ? cat->ninstances : 1, sizeof(*skip))
          : NULL;
  if (opts->verdict_only && (todo == NULL || skip == NULL))
    return rs_arena_error(arena, err, NULL, "while fitting");
  size_t n = 0, ntodo = 0;
  for (size_t i = 0; i < cat->ninstances; i++) {
    const rs_instance *in = &cat->instances[i];
    if (!allowed(&ctx, res->families, in))
      continue;
    const char *why =
        opts->families ? NULL : rs_fit_compat(&ctx, sum->profile->model.framework, in);
    if (why != NULL)
      reject_framework(&ctx, in, why, &all[n]);
    else if (todo == NULL)
      fit_shape(&ctx, res, in, false, 0, &all[n]);
    else if (fit_begin(&ctx, res, in, false, 0, &all[n], &todo[ntodo]))
      todo[ntodo++].at = n;
    n++;
  }
  if (todo != NULL)
    search_cheapest_first(&ctx, res, all, n, todo, ntodo, skip);
  size_t nfit = 0, nleft = 0;
  for (size_t i = 0; i < n; i++)
    if (skip == NULL || !skip[i]) {
      nfit += all[i].fits;
      nleft += !all[i].fits;
    }
  /* Not zeroed: the loop below copies an entry into each (an empty list
   * keeps its one zeroed entry). */
  res->fitting = nfit ? rs_arena_alloc_array_uninit(arena, nfit, sizeof(*res->fitting))
                      : rs_arena_alloc(arena, sizeof(*res->fitting));
  res->rejected = nleft ? rs_arena_alloc_array_uninit(arena, nleft, sizeof(*res->rejected))
                        : rs_arena_alloc(arena, sizeof(*res->rejected));
  if (res->fitting == NULL || res->rejected == NULL)
    return rs_arena_error(arena, err, NULL, "while fitting");
  for (size_t i = 0; i < n; i++) {
    if (skip != NULL && skip[i])
      continue;
    if (all[i].fits)
      res->fitting[res->nfitting++] = all[i];
    else
      res->rejected[res->nrejected++] = all[i];
  }
  qsort(res->fitting, res->nfitting, sizeof(*res->fitting), cmp_fitting);
  qsort(res->rejected, res->nrejected, sizeof(*res->rejected), cmp_rejected);
  res->as_of = opts->as_of ? opts->as_of : RS_FIT_REFERENCE_DATE;
  res->prices_age_days = rs_fit_price_age(cat->prices_as_of, res->as_of);
  rs_fit_verdict(&ctx, res);
  rs_fit_warnings(&ctx, res);
  if (ctx.nomem)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory while fitting");
  *out = res;
  return RS_OK;
}
