/* The fit's warnings (docs/model.md "Warnings"): the summary's, the
 * back-test's, then what the fit found about the current deployment, the
 * verdict and the winner. Codes from RS_WARNING_MAP; texts in the arena. */
#include <string.h>

#include "fit_internal.h"

void rs_fit_warn(rs_fit_ctx *ctx, rs_fit_result *res, rs_warning_code code, const char *text) {
  rs_warning *w = rs_arena_alloc_array(ctx->arena, res->nwarnings + 1, sizeof(*w));
  if (w == NULL || text == NULL) {
    ctx->nomem = true;
    return;
  }
  if (res->nwarnings)
    memcpy(w, res->warnings, res->nwarnings * sizeof(*w));
  w[res->nwarnings].code = code;
  w[res->nwarnings].text = text;
  res->warnings = w;
  res->nwarnings++;
}

void rs_fit_warnings(rs_fit_ctx *ctx, rs_fit_result *res) {
  const rs_demand *d = &res->demand;
  const rs_candidate *cur = &res->current;
  const rs_metric_stats *lat =
      &ctx->sum->stats.m[d->slo_quantile >= 0.99 ? RS_METRIC_LATENCY_P99 : RS_METRIC_LATENCY_P95];
  for (size_t i = 0; i < ctx->sum->nwarnings; i++)
    rs_fit_warn(ctx, res, ctx->sum->warnings[i].code, ctx->sum->warnings[i].text);
  rs_fit_backtest_warn(ctx, res);
  if (!cur->fits &&
      (cur->failed == RS_CONSTRAINT_MEMORY || cur->failed == RS_CONSTRAINT_HOST_MEMORY))
    rs_fit_warn(
        ctx, res, RS_WARNING_CURRENT_FAILS_MEMORY,
        rs_fit_printf(ctx, "the current deployment fails the memory check: %s", cur->reason));
  if (lat->count && lat->q[3] > d->slo_ms)
    rs_fit_warn(ctx, res, RS_WARNING_CURRENT_FAILS_SLO,
                rs_fit_printf(ctx,
                              "the current deployment missed the SLO in more than 1%% of intervals "
                              "(p99 of the per-interval p%.0f is %.1f ms > %.0f ms)",
                              d->slo_quantile * 100.0, lat->q[3], d->slo_ms));
  else if (!cur->fits && cur->failed != RS_CONSTRAINT_MEMORY &&
           cur->failed != RS_CONSTRAINT_HOST_MEMORY && cur->failed != RS_CONSTRAINT_SPEC &&
           cur->failed != RS_CONSTRAINT_LATENCY)
    rs_fit_warn(
        ctx, res, RS_WARNING_CURRENT_ABOVE_CEILING,
        rs_fit_printf(ctx,
                      "at the design peak of %.1f req/s the current deployment would run "
                      "above the %.0f%% ceiling (a margin for the model's error, not an SLO "
                      "miss): %s",
                      d->design_peak, ctx->o->max_util * 100.0, cur->reason));
  else if (!cur->fits && cur->failed == RS_CONSTRAINT_LATENCY)
    rs_fit_warn(ctx, res, RS_WARNING_CURRENT_FAILS_SLO,
                rs_fit_printf(ctx,
                              "the current deployment would not hold the design peak of %.1f "
                              "req/s: %s",
                              d->design_peak, cur->reason));
  if (res->verdict.code == RS_VERDICT_KEEP)
    rs_fit_warn(ctx, res, RS_WARNING_ALREADY_RIGHT_SIZED, res->verdict.reason);
  if (res->nfitting) {
    const rs_candidate *best = &res->fitting[0];
    if (d->mem_need_head > 0.9 * best->mem_capacity && !d->mem_unknown)
      rs_fit_warn(ctx, res, RS_WARNING_NEAR_MEMORY_LIMIT,
                  rs_fit_printf(ctx,
                                "%s holds the model with %.0f%% of its memory free: a larger "
                                "batch or context will not fit",
                                best->inst->name, best->mem_free * 100.0));
  } else {
    rs_fit_warn(ctx, res, RS_WARNING_NO_FIT,
                "no allowed shape meets every constraint: the closest are listed with the reason "
                "each failed");
  }
}
