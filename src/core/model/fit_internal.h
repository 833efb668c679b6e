/* Shared by fit_demand.c (what the endpoint needs) and fit.c (fitting it
 * onto shapes). */
#ifndef RIGHTSIZE_FIT_INTERNAL_H
#define RIGHTSIZE_FIT_INTERNAL_H

#include <stdbool.h>

#include "rightsize/arena.h"
#include "rightsize/fit.h"
#include "projection.h"
#include "rightsize/num.h" /* RS_GIB */

typedef struct rs_fit_ctx {
  rs_arena *arena;
  const rs_summary *sum;
  const rs_profile *profile;
  const rs_catalog *cat;
  const rs_fit_options *o;
  bool nomem;         /* an allocation failed: the run ends with RS_NOMEM */
  rs_proj_model proj; /* the projection, fitted to the catalog's calibration once per fit */
  /* Response quantiles already computed in this fit (fit.c); NULL: none kept. */
  struct rs_fit_memo *memo;
  /* What the data says about every shape (fit.c): worded once per fit. */
  const struct rs_fit_reasons *data;
} rs_fit_ctx;

/* printf into the arena; NULL (and ctx->nomem) when out of memory. */
const char *rs_fit_printf(rs_fit_ctx *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Derives the demand. RS_INVALID (with position) when the current instance
 * is not in the catalog. */
rs_status rs_fit_demand(rs_fit_ctx *ctx, rs_demand *d, rs_error *err);

/* Fits the current deployment's service model to the latency-by-load
 * history and back-tests it into d->backtest (needs d's busy time, SLO and
 * active devices). false when no interval carried a rate and the SLO's
 * latency quantile: nothing to test. */
bool rs_fit_backtest(rs_fit_ctx *ctx, rs_demand *d);

/* The back-test's warnings (busy-above-latency, model-off-history,
 * wait-above-spread) into res. */
void rs_fit_backtest_warn(rs_fit_ctx *ctx, rs_fit_result *res);

/* Appends a warning to res (ctx->nomem when out of memory). */
void rs_fit_warn(rs_fit_ctx *ctx, rs_fit_result *res, rs_warning_code code, const char *text);

/* Adds the result's warnings (fit_warnings.c), after the verdict is decided. */
void rs_fit_warnings(rs_fit_ctx *ctx, rs_fit_result *res);

/* The source device's figures: memory bandwidth (GB/s) and dense FP16
 * TFLOPS, NaN when unknown or for CPU shapes. */
double rs_fit_bandwidth(const rs_instance *in);
double rs_fit_tflops(const rs_instance *in);

/* Decides res->verdict from the ranked fit (verdict.c, the sizing
 * policy); called once at the end of rs_fit. */
void rs_fit_verdict(rs_fit_ctx *ctx, rs_fit_result *res);

/* Whether the verdict may choose fit c as its target (a trusted price, the
 * memory margin kept): the cheapest such fit bounds what the verdict reads. */
bool rs_fit_verdict_eligible(const rs_fit_result *res, const rs_candidate *c);

/* Whether the verdict, its target and the warnings are decided, for
 * rs_fit_options.verdict_only: best is the least $/month of the eligible
 * fits found so far (INFINITY: none), floor the least any shape not yet
 * searched can cost; the current deployment is fitted. True when no fit
 * costing floor or more can change them (verdict.c says why). */
bool rs_fit_verdict_settled(const rs_fit_result *res, double best, double floor);

/* Marks c rejected by constraint why with its reason and shortfall (need /
 * capacity, INFINITY when no count helps). */
void rs_fit_reject(rs_candidate *c, rs_constraint why, const char *reason, double shortfall);

/* Memory per device (or shard group of the devices) and host memory on c's
 * shape (fit_memory.c): sets devices_per_server, servers_per_replica,
 * mem_capacity, mem_free, host_mem_need. false: c is rejected. */
bool rs_fit_memory(rs_fit_ctx *ctx, const rs_demand *d, rs_candidate *c, bool cpu_target);

/* Why a model of `framework` cannot run on shape in (compat.c), or NULL
 * when it can or the framework is not in the table. */
const char *rs_fit_compat(rs_fit_ctx *ctx, const char *framework, const rs_instance *in);

#endif
