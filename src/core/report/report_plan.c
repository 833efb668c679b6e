/* `rightsize plan`: the autoscaling plan as text and JSON (docs/model.md
 * "Autoscaling plan", docs/json.md). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "jsonw.h"
#include "rightsize/report_plan.h"
#include "rightsize/report_fit.h"
#include "table.h"

/* Whole dollars a month: "$N/month" in sentences, a bare "N" in the
 * candidates table; "unpriced" and "-" when there is no price. */
static const char *usd_month(char *buf, size_t n, double usd, bool cell) {
  if (isnan(usd))
    snprintf(buf, n, cell ? "-" : "unpriced");
  else
    snprintf(buf, n, cell ? "%.0f" : "$%.0f/month", usd);
  return buf;
}

static const char *money(char *buf, size_t n, double usd) { return usd_month(buf, n, usd, false); }

static void text_replay(rs_buf *out, const char *label, const rs_replay *r, const char *what) {
  char m[32];
  rs_buf_printf(out,
                "  %-14s %u-%u replicas, %.0f replica-hours, %llu of %llu intervals miss %s "
                "(%.0f min), %s\n",
                label, r->lowest, r->highest, r->replica_hours, (unsigned long long)r->violating,
                (unsigned long long)r->intervals, what, r->violating_min,
                money(m, sizeof m, r->usd_month));
}

static void text_cycle(rs_buf *out, const rs_autoscale_plan *a) {
  rs_buf_printf(out, "cycle       %s (%s)", rs_cycle_name(a->cycle.kind), a->cycle.why);
  if (a->cycle.nbuckets)
    rs_buf_printf(out, ", explains %.0f%% of the rate's variance", a->cycle.strength * 100.0);
  rs_buf_puts(out, "\n");
  if (a->cycle.kind != RS_CYCLE_DAILY)
    return;
  rs_buf_puts(out, "  hour  mean rps  peak rps  spread");
  if (a->scheduled)
    rs_buf_puts(out, "  floor");
  rs_buf_puts(out, "\n");
  for (size_t b = 0; b < a->cycle.nbuckets; b++) {
    const rs_demand_bucket *x = &a->cycle.b[b];
    rs_buf_printf(out, "  %02zu    %8.2f  %8.2f  %6.2f", b, x->mean, x->peak, x->spread);
    if (a->scheduled)
      rs_buf_printf(out, "  %5u", a->floor[b]);
    rs_buf_puts(out, "\n");
  }
}

static void text_spot(rs_buf *out, const rs_fit_result *res, const rs_autoscale_plan *a) {
  char m1[32], m2[32], p[48];
  bool degraded = a->degraded_ms > res->demand.slo_ms;
  rs_buf_printf(
      out,
      "\nspot mix    %u on-demand + %u spot; on-demand alone must meet %.0f ms (%s) at up "
      "to %.0f%% utilization\n",
      a->ondemand, a->spot, a->degraded_ms, degraded ? "the degraded target" : "the full SLO",
      a->degraded_util * 100.0);
  rs_buf_printf(out, "  why        %s\n", a->mix_why);
  if (isnan(a->spot_usd_hour))
    snprintf(p, sizeof p, "unpriced");
  else
    snprintf(p, sizeof p, "$%.4f/h per replica", a->spot_usd_hour);
  rs_buf_printf(out, "  spot price %s: %s\n", p, a->spot_basis);
  rs_buf_printf(out, "  mix        %s, expected saving %s against all on-demand\n",
                money(m1, sizeof m1, a->mix_usd_month), money(m2, sizeof m2, a->mix_saved_month));
  rs_buf_printf(out, "  replayed with all spot removed (%u on-demand alone):\n", a->ondemand);
  text_replay(out, degraded ? "vs degraded" : "vs the SLO", &a->spot_removed,
              degraded ? "it" : "the SLO");
  if (degraded)
    rs_buf_printf(out,
                  "  exposure       %.0f min of the history (%llu of %llu intervals) above the "
                  "full %.0f ms SLO with spot gone\n",
                  a->spot_removed_full.violating_min,
                  (unsigned long long)a->spot_removed_full.violating,
                  (unsigned long long)a->spot_removed_full.intervals, res->demand.slo_ms);
}

static const char *usd_cell(char *buf, size_t n, double usd) {
  return usd_month(buf, n, usd, true);
}

static void text_candidates(rs_buf *out, const rs_autoscale_plan *full,
                            const rs_autoscale_plan *cands, size_t ncands) {
  if (ncands == 0)
    return;
  rs_buf_printf(out,
                "\ncandidates  the %zu cheapest fitting shape%s, each planned the same way (* in "
                "full above)\n",
                ncands, ncands == 1 ? "" : "s");
  rs_buf_puts(out, " SHAPE            REPL  MIN-MAX  TARGET  PLAN_RH  STAT_RH  USD_MONTH  "
                   "SAVED  MISSED SPOT   MIX_SAVED\n");
  for (size_t i = 0; i < ncands; i++) {
    const rs_autoscale_plan *c = &cands[i];
    char mm[24], mix[24], u1[24], u2[24], u3[24];
    snprintf(mm, sizeof mm, "%u-%u", c->min_replicas, c->max_replicas);
    snprintf(mix, sizeof mix, "%u+%u", c->ondemand, c->spot);
    rs_buf_printf(out, "%s%-16s %4u  %-7s  %5.0f%%  %7.0f  %7.0f  %9s  %5s  %6llu %-6s %9s\n",
                  c->cand == full->cand ? "*" : " ", c->cand->inst->name, c->cand->replicas, mm,
                  c->target_util * 100.0, c->plan.replica_hours, c->fixed.replica_hours,
                  usd_cell(u1, sizeof u1, c->plan.usd_month),
                  usd_cell(u2, sizeof u2, c->saved_month), (unsigned long long)c->plan.violating,
                  mix, usd_cell(u3, sizeof u3, c->mix_saved_month));
  }
}

rs_status rs_report_plan_text(rs_buf *dst, const char *name, const rs_fit_result *res,
                              const rs_autoscale_plan *a, const rs_autoscale_plan *cands,
                              size_t ncands) {
  char m1[32];
  rs_buf prose, *out = &prose; /* wrapped at the report width at the end */
  rs_buf_init(&prose, 0);
  const rs_candidate *c = a->cand;
  rs_buf_printf(out, "Autoscaling plan for %s on %s (static size %u replica%s)\n\n", name,
                c->inst->name, c->replicas, c->replicas == 1 ? "" : "s");
  text_cycle(out, a);
  rs_buf_printf(out, "lead time   %.0f s (%s); steepest rise within it x%.2f\n", a->lead_s,
                a->lead_basis, a->ramp);
  rs_buf_printf(out, "target      %.0f%% utilization = %.2f req/s per replica (of %.2f)\n",
                a->target_util * 100.0, a->target_rps, a->replica_rps);
  rs_buf_printf(out, "replicas    min %u, max %u; min %s\n", a->min_replicas, a->max_replicas,
                a->min_why);
  rs_buf_printf(out, "schedule    %s\n",
                !a->scheduled ? "none (the cycle is too weak or unknown)"
                : a->cycle.kind == RS_CYCLE_DAILY
                    ? "a pre-scaling floor per hour (the floor column)"
                    : "a pre-scaling floor per hour of the week "
                      "(floor_replicas in -f json)");
  rs_buf_printf(out, "\nreplay      %.0f s intervals against the p%.0f SLO of %.0f ms\n",
                a->interval_s, res->demand.slo_quantile * 100.0, res->demand.slo_ms);
  text_replay(out, "plan", &a->plan, "the SLO");
  text_replay(out, "static", &a->fixed, "the SLO");
  rs_buf_printf(out, "  saved          %s\n", money(m1, sizeof m1, a->saved_month));
  rs_buf_printf(out, "\nscale to zero %s\n", a->zero_why);
  text_spot(out, res, a);
  text_candidates(out, a, cands, ncands);
  rs_text_wrap(dst, &prose, RS_REPORT_FIT_WIDTH, 12); /* a failed prose fails dst */
  rs_buf_release(&prose);
  return rs_buf_status(dst);
}

static void json_replay(rs_jsonw *w, const char *key, const rs_replay *r) {
  rs_jsonw_object(w, key);
  rs_jsonw_uint(w, "intervals", r->intervals);
  rs_jsonw_uint(w, "violating_intervals", r->violating);
  rs_jsonw_number(w, "violating_min", r->violating_min);
  rs_jsonw_number(w, "replica_hours", r->replica_hours);
  rs_jsonw_number(w, "usd_per_month", r->usd_month);
  rs_jsonw_uint(w, "replicas_lowest", r->lowest);
  rs_jsonw_uint(w, "replicas_highest", r->highest);
  rs_jsonw_end(w, '}');
}

static void json_cycle(rs_jsonw *w, const rs_autoscale_plan *a) {
  rs_jsonw_object(w, "cycle");
  rs_jsonw_string(w, "kind", rs_cycle_name(a->cycle.kind));
  rs_jsonw_string(w, "why", a->cycle.why);
  rs_jsonw_number(w, "strength", a->cycle.strength);
  rs_jsonw_array(w, "buckets");
  for (size_t b = 0; b < a->cycle.nbuckets; b++) {
    rs_jsonw_object(w, NULL);
    rs_jsonw_uint(w, "bucket", b);
    rs_jsonw_uint(w, "intervals", a->cycle.b[b].n);
    rs_jsonw_number(w, "mean_rps", a->cycle.b[b].mean);
    rs_jsonw_number(w, "peak_rps", a->cycle.b[b].peak);
    rs_jsonw_number(w, "spread", a->cycle.b[b].spread);
    if (a->scheduled)
      rs_jsonw_uint(w, "floor_replicas", a->floor[b]);
    rs_jsonw_end(w, '}');
  }
  rs_jsonw_end(w, ']');
  rs_jsonw_end(w, '}');
}

static void json_spot(rs_jsonw *w, const rs_autoscale_plan *a) {
  rs_jsonw_object(w, "spot_mix");
  rs_jsonw_uint(w, "ondemand_replicas", a->ondemand);
  rs_jsonw_uint(w, "spot_replicas", a->spot);
  rs_jsonw_number(w, "ondemand_target_ms", a->degraded_ms);
  rs_jsonw_number(w, "ondemand_max_utilization", a->degraded_util);
  rs_jsonw_number(w, "ondemand_need_rps", a->mix_need_rps);
  rs_jsonw_number(w, "ondemand_carries_rps", a->mix_carried_rps);
  rs_jsonw_number(w, "one_fewer_carries_rps", a->mix_short_rps);
  rs_jsonw_string(w, "bound", a->mix_latency_bound ? "latency" : "utilization");
  rs_jsonw_string(w, "why", a->mix_why);
  rs_jsonw_number(w, "spot_usd_per_hour", a->spot_usd_hour);
  rs_jsonw_string(w, "spot_price_basis", a->spot_basis);
  rs_jsonw_number(w, "usd_per_month", a->mix_usd_month);
  rs_jsonw_number(w, "saved_usd_per_month", a->mix_saved_month);
  json_replay(w, "spot_removed", &a->spot_removed);
  rs_jsonw_uint(w, "spot_removed_full_slo_violating", a->spot_removed_full_violating);
  rs_jsonw_number(w, "spot_removed_full_slo_violating_min", a->spot_removed_full.violating_min);
  rs_jsonw_end(w, '}');
}

/* What the autoscaler is told: the target and the replica bounds. */
static void json_bounds(rs_jsonw *w, const rs_autoscale_plan *a) {
  rs_jsonw_number(w, "target_utilization", a->target_util);
  rs_jsonw_number(w, "target_rps_per_replica", a->target_rps);
  rs_jsonw_uint(w, "min_replicas", a->min_replicas);
  rs_jsonw_uint(w, "max_replicas", a->max_replicas);
  rs_jsonw_string(w, "min_why", a->min_why);
}

/* One row of the candidates array: the plan's figures, not its cycle. */
static void json_candidate(rs_jsonw *w, const rs_fit_result *res, const rs_autoscale_plan *c) {
  rs_jsonw_object(w, NULL);
  rs_jsonw_uint(w, "rank", (uint64_t)(c->cand - res->fitting) + 1);
  rs_jsonw_string(w, "instance", c->cand->inst->name);
  rs_jsonw_uint(w, "static_replicas", c->cand->replicas);
  rs_jsonw_number(w, "lead_time_s", c->lead_s);
  rs_jsonw_number(w, "replica_rps", c->replica_rps);
  json_bounds(w, c);
  json_replay(w, "replay_plan", &c->plan);
  json_replay(w, "replay_static", &c->fixed);
  rs_jsonw_number(w, "saved_usd_per_month", c->saved_month);
  rs_jsonw_bool(w, "scale_to_zero", c->zero_ok);
  json_spot(w, c);
  rs_jsonw_end(w, '}');
}

rs_status rs_report_plan_json(rs_buf *out, const char *name, const rs_fit_result *res,
                              const rs_autoscale_plan *a, const rs_autoscale_plan *cands,
                              size_t ncands) {
  rs_jsonw w;
  rs_jsonw_init(&w, out);
  rs_jsonw_object(&w, NULL);
  rs_jsonw_string(&w, "schema", RS_PLAN_JSON_SCHEMA);
  rs_jsonw_string(&w, "endpoint", name);
  rs_jsonw_string(&w, "instance", a->cand->inst->name);
  rs_jsonw_uint(&w, "static_replicas", a->cand->replicas);
  rs_jsonw_number(&w, "slo_ms", res->demand.slo_ms);
  rs_jsonw_number(&w, "slo_quantile", res->demand.slo_quantile);
  json_cycle(&w, a);
  rs_jsonw_number(&w, "lead_time_s", a->lead_s);
  rs_jsonw_string(&w, "lead_time_basis", a->lead_basis);
  rs_jsonw_number(&w, "ramp", a->ramp);
  rs_jsonw_number(&w, "replica_rps", a->replica_rps);
  json_bounds(&w, a);
  rs_jsonw_bool(&w, "scheduled", a->scheduled);
  json_replay(&w, "replay_plan", &a->plan);
  json_replay(&w, "replay_static", &a->fixed);
  rs_jsonw_number(&w, "saved_usd_per_month", a->saved_month);
  rs_jsonw_object(&w, "scale_to_zero");
  rs_jsonw_bool(&w, "ok", a->zero_ok);
  rs_jsonw_number(&w, "idle_share", a->idle_share);
  rs_jsonw_string(&w, "why", a->zero_why);
  rs_jsonw_end(&w, '}');
  json_spot(&w, a);
  rs_jsonw_array(&w, "candidates");
  for (size_t i = 0; i < ncands; i++)
    json_candidate(&w, res, &cands[i]);
  rs_jsonw_end(&w, ']');
  rs_jsonw_end(&w, '}');
  rs_jsonw_finish(&w);
  return rs_buf_status(out);
}
