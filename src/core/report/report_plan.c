/* `rightsize plan`: the autoscaling plan as text and JSON (docs/model.md
 * "Autoscaling plan", docs/json.md). */
#include <math.h>
#include <stdio.h>

#include "jsonw.h"
#include "rightsize/report_plan.h"

static const char *money(char *buf, size_t n, double usd) {
  if (isnan(usd))
    snprintf(buf, n, "unpriced");
  else
    snprintf(buf, n, "$%.0f/month", usd);
  return buf;
}

static void text_replay(rs_buf *out, const char *label, const rs_replay *r) {
  char m[32];
  rs_buf_printf(out,
                "  %-14s %u-%u replicas, %.0f replica-hours, %llu of %llu intervals miss the SLO "
                "(%.0f min), %s\n",
                label, r->lowest, r->highest, r->replica_hours, (unsigned long long)r->violating,
                (unsigned long long)r->intervals, r->violating_min,
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

rs_status rs_report_plan_text(rs_buf *out, const char *name, const rs_fit_result *res,
                              const rs_autoscale_plan *a) {
  char m1[32], m2[32];
  const rs_candidate *c = a->cand;
  rs_buf_printf(out, "Autoscaling plan for %s on %s (static size %u replicas)\n\n", name,
                c->inst->name, c->replicas);
  text_cycle(out, a);
  rs_buf_printf(out, "lead time   %.0f s (%s); steepest rise within it x%.2f\n", a->lead_s,
                a->lead_basis, a->ramp);
  rs_buf_printf(out, "target      %.0f%% utilization = %.2f req/s per replica (of %.2f)\n",
                a->target_util * 100.0, a->target_rps, a->replica_rps);
  rs_buf_printf(out, "replicas    min %u, max %u; min %s\n", a->min_replicas, a->max_replicas,
                a->min_why);
  rs_buf_printf(out, "schedule    %s\n",
                a->scheduled ? "a pre-scaling floor per hour (the floor column)"
                             : "none (the cycle is too weak or unknown)");
  rs_buf_printf(out, "\nreplay      %.0f s intervals against the p%.0f SLO of %.0f ms\n",
                a->interval_s, res->demand.slo_quantile * 100.0, res->demand.slo_ms);
  text_replay(out, "plan", &a->plan);
  text_replay(out, "static", &a->fixed);
  rs_buf_printf(out, "  saved          %s\n", money(m1, sizeof m1, a->saved_month));
  rs_buf_printf(out, "\nscale to zero %s\n", a->zero_why);
  rs_buf_printf(out,
                "\nspot mix    %u on-demand + %u spot; on-demand alone meets %.0f ms (%s)\n"
                "  spot price %s\n  mix %s, saves %s\n",
                a->ondemand, a->spot, a->degraded_ms,
                a->degraded_ms > res->demand.slo_ms ? "degraded target" : "the full SLO",
                a->spot_basis, money(m1, sizeof m1, a->mix_usd_month),
                money(m2, sizeof m2, a->mix_saved_month));
  if (a->spot == 0)
    rs_buf_printf(out, "  no spot: on-demand alone needs all %u replicas for the history's peak\n",
                  a->ondemand);
  text_replay(out, "spot removed", &a->spot_removed);
  rs_buf_printf(out, "  against the full SLO: %llu intervals miss it with all spot removed\n",
                (unsigned long long)a->spot_removed_full_violating);
  return rs_buf_status(out);
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
  rs_jsonw_number(w, "spot_usd_per_hour", a->spot_usd_hour);
  rs_jsonw_string(w, "spot_price_basis", a->spot_basis);
  rs_jsonw_number(w, "usd_per_month", a->mix_usd_month);
  rs_jsonw_number(w, "saved_usd_per_month", a->mix_saved_month);
  json_replay(w, "spot_removed", &a->spot_removed);
  rs_jsonw_uint(w, "spot_removed_full_slo_violating", a->spot_removed_full_violating);
  rs_jsonw_end(w, '}');
}

rs_status rs_report_plan_json(rs_buf *out, const char *name, const rs_fit_result *res,
                              const rs_autoscale_plan *a) {
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
  rs_jsonw_number(&w, "target_utilization", a->target_util);
  rs_jsonw_number(&w, "target_rps_per_replica", a->target_rps);
  rs_jsonw_uint(&w, "min_replicas", a->min_replicas);
  rs_jsonw_uint(&w, "max_replicas", a->max_replicas);
  rs_jsonw_string(&w, "min_why", a->min_why);
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
  rs_jsonw_end(&w, '}');
  rs_jsonw_finish(&w);
  return rs_buf_status(out);
}
