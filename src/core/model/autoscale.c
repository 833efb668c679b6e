/* The autoscaling plan for one fitted shape, replayed against the history
 * (docs/model.md "Autoscaling plan"): target utilization from the steepest
 * ramp the lead time has to ride out, a pre-scaling floor per hour where the
 * cycle is strong, the lowest minimum whose replay keeps the SLO; scale to
 * zero; the spot mix. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "queue.h"
#include "rightsize/pricing.h"
#include "rightsize/autoscale.h"

void rs_autoscale_options_init(rs_autoscale_options *o) {
  o->lead_s = NAN;
  o->stabilize_s = RS_AS_STABILIZE_S;
  o->spot_discount = NAN;
  o->spot_full_slo = false;
}

/* What the replay needs: the shape's SLO capacity per replica count. */
typedef struct planner {
  const rs_fit_result *res;
  const rs_candidate *c;
  const rs_rate_history *h;
  size_t maxn;
  double *cap_full;   /* [0..maxn]: the largest endpoint rate n replicas serve within the SLO */
  double *cap_deg;    /* the same within the degraded target and utilization ceiling */
  double side_rps;    /* per replica: the rate host CPU or network allow at 100 %; INFINITY */
  double replica_rps; /* per replica at 100 %: the device or side_rps, the lower */
  unsigned *scratch;
  size_t k_lead, k_stab; /* the lead time and scale-in window in intervals */
} planner;

/* The rate one replica of c carries before its host CPU or network is full
 * (the fit's host models, docs/model.md "Replicas"); on a CPU
 * shape the model's own busy time shares the vCPUs. INFINITY when unknown. */
static double side_limit(const rs_fit_result *res, const rs_candidate *c) {
  const rs_demand *d = &res->demand;
  const rs_instance *in = c->inst;
  double lim = INFINITY;
  if (d->cpu_known && in->vcpus > 0 && d->cpu_base_vcpus < in->vcpus) {
    bool cpu_shape = in->accelerator_count < 1;
    double per = d->cpu_vcpu_s_per_req / in->vcpus +
                 (cpu_shape ? c->service_s / c->servers_per_replica : 0.0);
    if (per > 0)
      lim = (1.0 - d->cpu_base_vcpus / in->vcpus) / per;
  }
  double gbps = !isnan(in->network_baseline_gbps) ? in->network_baseline_gbps
                : in->network_up_to               ? NAN
                                                  : in->network_gbps;
  double bytes = gbps * 1e9 / 8.0;
  if (d->net_known && bytes > d->net_base_bps && d->net_bytes_per_req > 0)
    lim = fmin(lim, (bytes - d->net_base_bps) / d->net_bytes_per_req);
  return lim;
}

/* Whether n replicas of c serve rate rps with the SLO quantile within
 * target_ms and their host CPU and network under side_rps each. */
static bool meets(const rs_fit_result *res, const rs_candidate *c, unsigned n, double rps,
                  double target_ms, double side_rps) {
  double p = res->demand.slo_quantile;
  unsigned servers = n * c->servers_per_replica;
  if (servers == 0)
    return !(rps > 0);
  if (!(rps * c->service_s < (double)servers) || rps > n * side_rps)
    return false;
  rs_queue q = {servers, rps, c->queue_s, 1.0, c->cs2};
  double sigma = sqrt(log1p(c->cs2));
  double s50_s = c->service_q_ms / 1e3 / exp(sigma * rs_normal_quantile(p));
  double tail = rs_queue_response_tail(&q, s50_s, c->cs2, target_ms / 1e3);
  return isnan(tail) ? c->service_q_ms <= target_ms : tail <= 1.0 - p;
}

/* The largest rate n replicas carry within target_ms (bisection: the tail grows with the rate). */
static double capacity(const rs_fit_result *res, const rs_candidate *c, unsigned n,
                       double target_ms, double side_rps) {
  double lo = 0, hi = fmin((double)(n * c->servers_per_replica) / c->service_s, n * side_rps);
  if (!meets(res, c, n, 0, target_ms, side_rps))
    return -1.0; /* the service alone misses the target: nothing is carried */
  for (int i = 0; i < 60; i++) {
    double mid = 0.5 * (lo + hi);
    if (meets(res, c, n, mid, target_ms, side_rps))
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

static unsigned ceil_div(double rps, double per) {
  return rps > 0 ? (unsigned)ceil(rps / per - 1e-9) : 0;
}

static size_t steps(double s, double interval) {
  return s > 0 ? (size_t)ceil(s / interval - 1e-9) : 0;
}

/* Replays ready counts avail[i] (NULL: `fixed` throughout) against cap;
 * paid[i] (NULL: avail) are the replicas paid for, ready or still starting. */
static rs_replay replay(const planner *pl, const unsigned *avail, const unsigned *paid,
                        unsigned fixed, const double *cap) {
  const rs_rate_history *h = pl->h;
  rs_replay r = {.intervals = h->n, .lowest = UINT32_MAX};
  for (size_t i = 0; i < h->n; i++) {
    unsigned n = avail ? avail[i] : fixed;
    if (h->p[i].rps > cap[n]) {
      r.violating++;
      r.violating_min += h->interval_s / 60.0;
    }
    r.replica_hours += (paid ? paid[i] : n) * h->interval_s / 3600.0;
    r.lowest = n < r.lowest ? n : r.lowest;
    r.highest = n > r.highest ? n : r.highest;
  }
  /* the candidate's price is for all its replicas */
  r.usd_month = r.replica_hours / (h->duration_s / 3600.0) * RS_FIT_HOURS_PER_MONTH *
                pl->c->usd_per_hour / pl->c->replicas;
  return r;
}

static size_t bucket_at(const rs_autoscale_plan *a, double t) {
  double hr = floor(t / 3600.0) + 72.0;
  return (size_t)fmod(hr, (double)a->cycle.nbuckets);
}

/* The autoscaler over the history: raw desired count per interval, held
 * for the scale-in window, available only once held through the lead time. */
static rs_replay run_plan(planner *pl, const rs_autoscale_plan *a) {
  const rs_rate_history *h = pl->h;
  unsigned *d = pl->scratch, *avail = pl->scratch + h->n;
  for (size_t i = 0; i < h->n; i++) {
    unsigned want = ceil_div(h->p[i].rps, a->target_rps);
    if (a->scheduled && a->floor[bucket_at(a, h->p[i].t)] > want)
      want = a->floor[bucket_at(a, h->p[i].t)];
    want = want < a->min_replicas ? a->min_replicas : want;
    d[i] = want > a->max_replicas ? a->max_replicas : want;
  }
  for (size_t i = h->n; i-- > 0;) /* held: the largest over the window before */
    for (size_t j = i > pl->k_stab ? i - pl->k_stab : 0; j < i; j++)
      d[i] = d[j] > d[i] ? d[j] : d[i];
  for (size_t i = 0; i < h->n; i++) { /* ready: requested k_lead intervals ago and kept */
    unsigned m = d[i];
    for (size_t j = i > pl->k_lead ? i - pl->k_lead : 0; j < i; j++)
      m = d[j] < m ? d[j] : m;
    avail[i] = m; /* before the history: d[0], which the minimum already holds */
  }
  return replay(pl, avail, d, 0, pl->cap_full);
}

/* The steepest rise within k intervals, from rates above RS_AS_RAMP_BASE of the peak. */
static double steepest_ramp(const rs_rate_history *h, size_t k) {
  double peak = 0, g = 1.0;
  for (size_t i = 0; i < h->n; i++)
    peak = fmax(peak, h->p[i].rps);
  for (size_t i = 0; i < h->n; i++) {
    if (!(h->p[i].rps >= RS_AS_RAMP_BASE * peak) || !(h->p[i].rps > 0))
      continue;
    for (size_t j = i + 1; j <= i + k && j < h->n; j++)
      g = fmax(g, h->p[j].rps / h->p[i].rps);
  }
  return g;
}

static void lead_time(rs_autoscale_plan *a, const rs_fit_result *res, const rs_candidate *c,
                      const rs_autoscale_options *o) {
  const rs_profile *p = res->summary ? res->summary->profile : NULL;
  if (!isnan(o->lead_s)) {
    a->lead_s = o->lead_s;
    a->lead_basis = "--lead-time";
  } else if (p != NULL && p->traffic.cold_start_s > 0) {
    a->lead_s = p->traffic.cold_start_s;
    a->lead_basis = "the profile's traffic.cold_start";
  } else if (c->inst->category == RS_CATEGORY_CPU || c->inst->accelerator == NULL) {
    a->lead_s = RS_AS_LEAD_CPU_S;
    a->lead_basis = "default for CPU shapes";
  } else {
    a->lead_s = RS_AS_LEAD_GPU_S;
    a->lead_basis = "default for accelerator shapes";
  }
}

/* A floor per hour of the cycle: the mean demand of this hour and of the
 * hours the lead time reaches into, so the ramp into a busy hour is met by
 * replicas requested before it. */
static void schedule(rs_autoscale_plan *a) {
  a->scheduled = a->cycle.nbuckets > 0 && a->cycle.strength >= RS_AS_STRONG_CYCLE;
  if (!a->scheduled)
    return;
  size_t ahead = 1 + (size_t)ceil(a->lead_s / 3600.0);
  for (size_t b = 0; b < a->cycle.nbuckets; b++) {
    double need = 0;
    for (size_t k = 0; k <= ahead; k++) {
      const rs_demand_bucket *x = &a->cycle.b[(b + k) % a->cycle.nbuckets];
      if (x->n)
        need = fmax(need, x->mean);
    }
    unsigned f = ceil_div(need, a->target_rps);
    a->floor[b] = f > a->max_replicas ? a->max_replicas : f;
  }
}

/* The lowest minimum whose replay misses the SLO in no more intervals than
 * the static size does (none, where the static size keeps it), and why. */
static void choose_min(planner *pl, rs_autoscale_plan *a, rs_arena *arena) {
  uint64_t allowed = a->fixed.violating;
  for (unsigned m = 1; m <= a->max_replicas; m++) {
    a->min_replicas = m;
    a->plan = run_plan(pl, a);
    if (a->plan.violating <= allowed)
      break;
  }
  unsigned m = a->min_replicas, low = a->max_replicas;
  for (size_t b = 0; a->scheduled && b < a->cycle.nbuckets; b++)
    if (a->cycle.b[b].n && a->floor[b] < low)
      low = a->floor[b];
  bool ramp_bound = a->ramp * RS_AS_UTIL_FLOOR > pl->res->opts.max_util;
  if (a->scheduled && low > m) { /* the floors never go lower: that is the real minimum */
    a->min_replicas = low;
    a->min_why = rs_arena_printf(
        arena, "raised to %u by the hourly floors%s", low,
        ramp_bound ? rs_arena_printf(arena,
                                     ": the %.0f s lead time is longer than the ramps allow (a "
                                     "x%.2f rise within it needs a target under the %.0f%% floor)",
                                     a->lead_s, a->ramp, RS_AS_UTIL_FLOOR * 100.0)
                   : " (the quietest hour's mean demand at the target)");
  } else if (m > 1)
    a->min_why = rs_arena_printf(
        arena,
        "raised to %u: with a %.0f s lead time the steepest ramp (x%.2f) outruns scale-out at the "
        "%.0f%% target, and a lower minimum misses the SLO in more intervals of the replay",
        m, a->lead_s, a->ramp, a->target_util * 100.0);
  else
    a->min_why = "1: the replay keeps the SLO with one replica at the trough";
  if (allowed > 0)
    a->min_why = rs_arena_printf(arena,
                                 "%s (the static size itself misses the SLO in %llu intervals: "
                                 "the history peaks above the design peak)",
                                 a->min_why, (unsigned long long)allowed);
}

static void scale_to_zero(rs_autoscale_plan *a, const rs_fit_result *res, const rs_rate_history *h,
                          rs_arena *arena) {
  double idle = 0, run = 0;
  for (size_t i = 0; i <= h->n; i++) {
    if (i < h->n && h->p[i].rps < RS_FIT_IDLE_RPS) {
      run += h->interval_s;
      continue;
    }
    if (run >= RS_AS_IDLE_STRETCH_S)
      idle += run;
    run = 0;
  }
  a->idle_share = idle / h->duration_s;
  double slo = res->demand.slo_ms, q = res->demand.slo_quantile * 100.0;
  if (!(a->idle_share > 0))
    a->zero_why = "refused: no idle stretch of an hour or more in the history";
  else if (a->lead_s * 1e3 > slo)
    a->zero_why = rs_arena_printf(
        arena,
        "refused: the first request after an idle stretch waits the %.0f s cold start, above the "
        "p%.0f SLO of %.0f ms (idle stretches are %.1f%% of the history)",
        a->lead_s, q, slo, a->idle_share * 100.0);
  else {
    a->zero_ok = true;
    a->zero_why = rs_arena_printf(
        arena,
        "idle stretches are %.1f%% of the history and a %.3f s cold start fits the %.0f ms SLO",
        a->idle_share * 100.0, a->lead_s, slo);
  }
}

static void spot_price(rs_autoscale_plan *a, const rs_fit_result *res, const rs_candidate *c,
                       const rs_autoscale_options *o, rs_arena *arena) {
  double overlay = rs_pricing_spot_rule(res->overlay, c->inst);
  if (res->basis == RS_BASIS_SPOT) {
    a->spot_usd_hour = NAN;
    a->spot_basis = "the shape is priced as spot already (--pricing spot): no on-demand part to "
                    "compare";
  } else if (!isnan(overlay)) {
    a->spot_usd_hour = overlay;
    a->spot_basis = rs_arena_printf(arena, "price overlay spot price (%s)", res->overlay->name);
  } else if (!isnan(c->inst->spot_usd_per_hour)) {
    a->spot_usd_hour = c->inst->spot_usd_per_hour;
    a->spot_basis = "catalog spot price";
  } else if (!isnan(o->spot_discount)) {
    a->spot_usd_hour = c->usd_per_hour / c->replicas * (1.0 - o->spot_discount);
    a->spot_basis = rs_arena_printf(arena,
                                    "no spot price in the catalog: on-demand less %.0f%% "
                                    "(--spot-discount)",
                                    o->spot_discount * 100.0);
  } else {
    a->spot_usd_hour = NAN;
    a->spot_basis = "no spot price in the catalog for this shape: give --spot-discount";
  }
}

/* Why the mix is what it is, with the numbers that decide it. */
static const char *mix_why(const rs_autoscale_plan *a, const rs_candidate *c, double max_util,
                           rs_arena *arena) {
  const char *bound = a->mix_latency_bound
                          ? rs_arena_printf(arena, "the %.0f ms target binds", a->degraded_ms)
                          : rs_arena_printf(arena,
                                            "the %.0f%% ceiling binds before the %.0f ms "
                                            "target",
                                            a->degraded_util * 100.0, a->degraded_ms);
  if (a->spot > 0)
    return rs_arena_printf(
        arena,
        "%u on-demand replica%s alone carr%s %.2f req/s within %.0f ms at up to %.0f%% "
        "utilization (%s), at least the %.2f req/s on-demand must carry; spot takes the "
        "other %u of the static %u, the headroom the full SLO needs at the %.0f%% ceiling",
        a->ondemand, a->ondemand == 1 ? "" : "s", a->ondemand == 1 ? "ies" : "y",
        a->mix_carried_rps, a->degraded_ms, a->degraded_util * 100.0, bound, a->mix_need_rps,
        a->spot, c->replicas, max_util * 100.0);
  if (c->replicas == 1)
    return "no spot: the static size is one replica, and the on-demand part must carry the peak "
           "alone; a mix needs two or more";
  return rs_arena_printf(
      arena,
      "no spot: %u on-demand replica%s carr%s only %.2f req/s within %.0f ms at up to "
      "%.0f%% utilization (%s), below the %.2f req/s on-demand must carry (the "
      "design peak or the history's peak, the larger)",
      a->ondemand - 1, a->ondemand == 2 ? "" : "s", a->ondemand == 2 ? "ies" : "y",
      fmax(a->mix_short_rps, 0.0), a->degraded_ms, a->degraded_util * 100.0, bound,
      a->mix_need_rps);
}

/* N on-demand replicas that alone carry the design peak and every interval
 * of the history within the degraded target and the degraded utilization
 * ceiling; the rest of the static count as spot. */
static void spot_mix(planner *pl, rs_autoscale_plan *a, const rs_autoscale_options *o,
                     rs_arena *arena) {
  const rs_fit_result *res = pl->res;
  const rs_candidate *c = pl->c;
  a->degraded_ms = o->spot_full_slo ? res->demand.slo_ms : res->demand.slo_ms * RS_AS_SPOT_DEGRADE;
  a->degraded_util = o->spot_full_slo ? res->opts.max_util : RS_AS_SPOT_DEGRADED_UTIL;
  const double *cap = pl->cap_deg;
  double need = res->demand.design_peak;
  for (size_t i = 0; i < pl->h->n; i++)
    need = fmax(need, pl->h->p[i].rps);
  unsigned n = 1;
  while (n < c->replicas && !(need <= cap[n]))
    n++;
  a->mix_need_rps = need;
  a->mix_carried_rps = cap[n];
  a->mix_short_rps = n > 1 ? cap[n - 1] : NAN;
  a->mix_latency_bound =
      capacity(res, c, n, a->degraded_ms, pl->side_rps) < a->degraded_util * n * pl->replica_rps;
  a->ondemand = n;
  a->spot = c->replicas - n;
  spot_price(a, res, c, o, arena);
  a->mix_usd_month =
      (n * c->usd_per_hour / c->replicas + a->spot * a->spot_usd_hour) * RS_FIT_HOURS_PER_MONTH;
  if (a->spot == 0)
    a->mix_usd_month = c->usd_per_month;
  a->mix_saved_month = c->usd_per_month - a->mix_usd_month;
  a->mix_why = mix_why(a, c, res->opts.max_util, arena);
  a->spot_removed = replay(pl, NULL, NULL, n, cap);
  a->spot_removed_full = replay(pl, NULL, NULL, n, pl->cap_full);
  a->spot_removed_full_violating = a->spot_removed_full.violating;
}

static rs_status setup(planner *pl, const rs_autoscale_options *o, rs_arena *arena, rs_error *err) {
  const rs_candidate *c = pl->c;
  double slo = pl->res->demand.slo_ms;
  double deg_ms = o->spot_full_slo ? slo : slo * RS_AS_SPOT_DEGRADE;
  double deg_util = o->spot_full_slo ? pl->res->opts.max_util : RS_AS_SPOT_DEGRADED_UTIL;
  pl->cap_full = rs_arena_alloc_array(arena, pl->maxn + 1, sizeof(double));
  pl->cap_deg = rs_arena_alloc_array(arena, pl->maxn + 1, sizeof(double));
  pl->scratch = rs_arena_alloc_array(arena, 2 * pl->h->n, sizeof(unsigned));
  if (pl->cap_full == NULL || pl->cap_deg == NULL || pl->scratch == NULL)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory planning");
  pl->cap_full[0] = pl->cap_deg[0] = 0;
  for (unsigned n = 1; n <= pl->maxn; n++) {
    pl->cap_full[n] = capacity(pl->res, c, n, slo, pl->side_rps);
    pl->cap_deg[n] =
        deg_ms == slo ? pl->cap_full[n] : capacity(pl->res, c, n, deg_ms, pl->side_rps);
    pl->cap_deg[n] = fmin(pl->cap_deg[n], deg_util * n * pl->replica_rps);
  }
  return RS_OK;
}

rs_status rs_autoscale_plan_for(rs_autoscale_plan *out, rs_arena *arena, const rs_fit_result *res,
                                const rs_candidate *c, const rs_rate_history *h,
                                const rs_autoscale_options *o, rs_error *err) {
  memset(out, 0, sizeof(*out));
  if (!c->fits || !(c->service_s > 0) || c->replicas == 0 || res->demand.capacity_only)
    return rs_error_set(err, RS_INVALID, NULL, 0, 0,
                        "%s: an autoscaling plan needs a fitting shape sized on a request rate",
                        c->inst->name);
  rs_autoscale_plan *a = out;
  a->cand = c;
  a->interval_s = h->interval_s;
  a->stabilize_s = o->stabilize_s;
  rs_autoscale_cycle(&a->cycle, h);
  lead_time(a, res, c, o);
  planner pl = {.res = res,
                .c = c,
                .h = h,
                .maxn = c->replicas,
                .side_rps = side_limit(res, c),
                .k_lead = steps(a->lead_s, h->interval_s),
                .k_stab = steps(o->stabilize_s, h->interval_s)};
  pl.replica_rps = fmin((double)c->servers_per_replica / c->service_s, pl.side_rps);
  a->replica_rps = pl.replica_rps;
  rs_status st = setup(&pl, o, arena, err);
  if (st != RS_OK)
    return st;
  a->ramp = steepest_ramp(h, pl.k_lead);
  double max_util = res->opts.max_util;
  a->target_util = fmax(RS_AS_UTIL_FLOOR, fmin(max_util, max_util / a->ramp));
  a->target_rps = a->target_util * a->replica_rps;
  a->max_replicas = c->replicas;
  a->fixed = replay(&pl, NULL, NULL, c->replicas, pl.cap_full);
  schedule(a);
  choose_min(&pl, a, arena);
  a->saved_month = a->fixed.usd_month - a->plan.usd_month;
  scale_to_zero(a, res, h, arena);
  spot_mix(&pl, a, o, arena);
  return RS_OK;
}
