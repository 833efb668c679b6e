/* The autoscaling plan behind `rightsize plan` (docs/model.md "Autoscaling
 * plan").
 *
 * From the profile's request-rate history: demand per hour of the week (or
 * of the day when the history is too short for a weekly cycle), and for one
 * fitted shape a plan (minimum and maximum replicas, a target utilization, a
 * pre-scaling schedule where the cycle is strong) that is replayed against
 * the history interval by interval with the scale-out lead time: intervals
 * that miss the SLO, replica hours and cost, beside the static size. Also
 * whether scale to zero fits, and a spot/on-demand mix whose on-demand part
 * alone meets a degraded target. Everything lives in the arena; nothing
 * here prints. */
#ifndef RIGHTSIZE_AUTOSCALE_H
#define RIGHTSIZE_AUTOSCALE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rightsize/arena.h"
#include "rightsize/error.h"
#include "rightsize/fit.h"
#include "rightsize/summary.h"

/* Defaults and thresholds (docs/model.md "Autoscaling plan" says why). */
#define RS_AS_WEEKLY_MIN_S (14.0 * 86400.0) /* history a weekly cycle needs (two of them) */
#define RS_AS_DAILY_MIN_S (2.0 * 86400.0)   /* history a daily cycle needs */
#define RS_AS_STRONG_CYCLE 0.5      /* share of the rate's variance the cycle explains: schedule */
#define RS_AS_UTIL_FLOOR 0.30       /* the lowest target utilization a plan uses */
#define RS_AS_RAMP_BASE 0.10        /* ramps are measured from rates above this share of the peak */
#define RS_AS_STABILIZE_S 300.0     /* scale-in waits this long (the HPA default window) */
#define RS_AS_IDLE_STRETCH_S 3600.0 /* idle stretches shorter than this do not count */
#define RS_AS_SPOT_DEGRADE 2.0      /* the degraded target: this x the SLO, on-demand alone */
#define RS_AS_SPOT_DEGRADED_UTIL 0.95 /* the utilization ceiling on-demand alone may run at */
#define RS_AS_LEAD_GPU_S 300.0        /* default scale-out lead time: accelerator shapes */
#define RS_AS_LEAD_CPU_S 120.0        /* default scale-out lead time: CPU shapes */
#define RS_AS_BUCKETS 168             /* hours of the week */

/* One request-rate observation of the whole endpoint (requests/s, growth applied). */
typedef struct rs_rate_point {
  double t, rps;
} rs_rate_point;

typedef struct rs_rate_history {
  rs_rate_point *p; /* in time order, one per timestamp */
  size_t n;
  double interval_s; /* the median step between points */
  double duration_s; /* n x interval_s */
} rs_rate_history;

typedef enum { RS_CYCLE_NONE, RS_CYCLE_DAILY, RS_CYCLE_WEEKLY } rs_cycle_kind;

/* "none", "daily", "weekly". */
const char *rs_cycle_name(rs_cycle_kind k);

typedef struct rs_demand_bucket {
  uint64_t n;        /* intervals that fell in this hour */
  double mean, peak; /* requests/s */
  double spread;     /* standard deviation / mean; NaN when the mean is 0 */
} rs_demand_bucket;

typedef struct rs_cycle {
  rs_cycle_kind kind;
  size_t nbuckets; /* 168 weekly, 24 daily, 0 none */
  rs_demand_bucket b[RS_AS_BUCKETS];
  double strength; /* share of the rate's variance the bucket means explain (0..1) */
  const char *why; /* one line: which bucketing and why */
} rs_cycle;

typedef struct rs_autoscale_options {
  double lead_s;        /* scale-out lead time; NaN: the family default */
  double stabilize_s;   /* RS_AS_STABILIZE_S */
  double spot_discount; /* fraction off on-demand when the catalog has no spot price; NaN: none */
  bool spot_full_slo;   /* the on-demand part must meet the full SLO, not the degraded one */
} rs_autoscale_options;

void rs_autoscale_options_init(rs_autoscale_options *o);

/* A replay of the history against a replica count per interval. */
typedef struct rs_replay {
  uint64_t intervals;
  uint64_t violating; /* intervals whose modelled SLO quantile misses the target */
  double violating_min;
  double replica_hours; /* over the history */
  double usd_month;     /* replica hours scaled to a month, at the shape's price; NaN unpriced */
  unsigned lowest, highest; /* replicas available */
} rs_replay;

typedef struct rs_autoscale_plan {
  const rs_candidate *cand;
  rs_cycle cycle;
  double interval_s;  /* the history's step */
  double stabilize_s; /* the scale-in window replayed */
  double lead_s;
  const char *lead_basis; /* "--lead-time" or "default for accelerator shapes" ... */
  double replica_rps;     /* requests/s one replica carries at 100 % utilization */
  double ramp;            /* steepest rise over the lead time (ratio), from RS_AS_RAMP_BASE */
  double target_util;     /* what the autoscaler tracks */
  double target_rps;      /* per replica, target_util x replica_rps */
  unsigned min_replicas, max_replicas;
  const char *min_why;           /* why the minimum is what it is */
  bool scheduled;                /* a pre-scaling floor per hour (the cycle is strong) */
  unsigned floor[RS_AS_BUCKETS]; /* per bucket of the cycle, when scheduled */
  rs_replay plan, fixed;         /* the plan and the static size over the same history */
  double saved_month;            /* fixed - plan $/month; NaN unpriced */
  /* scale to zero */
  double idle_share; /* share of the history in idle stretches */
  bool zero_ok;
  const char *zero_why;
  /* spot mix */
  double degraded_ms;     /* the target the on-demand part meets alone */
  double degraded_util;   /* the utilization ceiling it may run at (RS_AS_SPOT_DEGRADED_UTIL) */
  double mix_need_rps;    /* what on-demand alone carries: max(design peak, history's peak) */
  double mix_carried_rps; /* what the on-demand replicas carry within the degraded limits */
  double mix_short_rps;   /* what one on-demand replica fewer carries; NaN with one */
  bool mix_latency_bound; /* the degraded latency target binds before the ceiling */
  unsigned ondemand, spot;
  double spot_usd_hour; /* NaN unpriced */
  const char *spot_basis;
  double mix_usd_month, mix_saved_month; /* NaN unpriced */
  const char *mix_why;                   /* why the mix is what it is, with the numbers */
  rs_replay spot_removed;                /* on-demand alone, against the degraded target */
  rs_replay spot_removed_full;           /* the same replay against the full SLO: the exposure */
  uint64_t spot_removed_full_violating;  /* spot_removed_full.violating */
} rs_autoscale_plan;

/* Reads the endpoint's request-rate history from the profile behind sum
 * (its sample files and inline rows), as the whole endpoint's rate (x
 * replicas for per-replica samples, x growth), sorted, one point per
 * timestamp. RS_INVALID when the summary has no profile or fewer than two
 * points carry a rate; RS_IO and ingest errors as rs_ingest_file. */
rs_status rs_autoscale_history(rs_rate_history *out, rs_arena *arena, const rs_summary *sum,
                               rs_error *err);

/* Buckets h by hour of the week (two weeks or more), of the day (two days
 * or more) or not at all; out->why says which and why. */
void rs_autoscale_cycle(rs_cycle *out, const rs_rate_history *h);

/* The plan for fitted shape c of res over history h. RS_INVALID when c does
 * not fit or has no service time; RS_NOMEM. */
rs_status rs_autoscale_plan_for(rs_autoscale_plan *out, rs_arena *arena, const rs_fit_result *res,
                                const rs_candidate *c, const rs_rate_history *h,
                                const rs_autoscale_options *o, rs_error *err);

#endif
