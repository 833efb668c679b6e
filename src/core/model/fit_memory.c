/* Memory on one shape (docs/model.md "Memory"): the need per device or
 * shard group of devices, and the host's memory. */
#include <math.h>

#include "fit_internal.h"

static double gib(double bytes) { return bytes / RS_GIB; }

void rs_fit_reject(rs_candidate *c, rs_constraint why, const char *reason, double shortfall) {
  c->fits = false;
  c->failed = why;
  c->reason = reason;
  c->shortfall = shortfall;
}

bool rs_fit_memory(rs_fit_ctx *ctx, const rs_demand *d, rs_candidate *c, bool cpu_target) {
  const rs_instance *in = c->inst;
  double h = ctx->o->headroom * 100.0;
  double host_need = d->host_mem_peak;
  c->devices_per_server = 1;
  c->servers_per_replica = 1;
  if (cpu_target) {
    host_need = (isnan(host_need) ? 0.0 : host_need) + d->mem_need;
    c->mem_capacity = in->memory_bytes;
    c->mem_free = 1.0 - host_need / in->memory_bytes;
    c->host_mem_need = host_need * (1.0 + ctx->o->headroom);
    if (c->host_mem_need > in->memory_bytes) {
      rs_fit_reject(c, RS_CONSTRAINT_MEMORY,
                    rs_fit_printf(ctx,
                                  "needs %.1f GiB host memory for the model and the process incl. "
                                  "%.0f%% headroom > %.1f GiB",
                                  gib(c->host_mem_need), h, gib(in->memory_bytes)),
                    c->host_mem_need / in->memory_bytes);
      return false;
    }
    return true;
  }
  double dev = in->accelerator_memory_bytes, count = in->accelerator_count;
  if (isnan(dev) || isnan(count)) {
    rs_fit_reject(c, RS_CONSTRAINT_SPEC, "accelerator memory or count unknown in the catalog",
                  INFINITY);
    return false;
  }
  unsigned k = 1;
  /* Whole devices, converted once and clamped first: a --catalog count up
   * to the document range (1e18) past UINT_MAX would be undefined. */
  unsigned whole = count >= 1e6 ? 1000000u : count >= 1 ? (unsigned)count : 0u;
  if (d->mem_unknown && d->mem_need_head > dev) {
    rs_fit_reject(
        c, RS_CONSTRAINT_MEMORY,
        rs_fit_printf(ctx,
                      "memory need unknown: only devices of at least the current %.1f GiB are "
                      "known to hold the model (add gpu_mem_used samples or model.weights)",
                      gib(d->mem_need_head)),
        d->mem_need_head / dev);
    return false;
  }
  if (d->mem_need_head > dev) {
    bool shard = ctx->profile->model.shardable && count >= 2;
    while (shard && k <= whole && (double)k * dev < d->mem_need_head)
      k *= 2;
    if (!shard || k > whole || whole % k != 0) {
      double total = count >= 1 ? dev * count : dev;
      const char *why =
          !shard && count >= 2 && d->mem_need_head <= total
              ? rs_fit_printf(ctx,
                              "needs %.1f GiB incl. %.0f%% headroom > %.1f GiB per device "
                              "(the model may not shard)",
                              gib(d->mem_need_head), h, gib(dev))
          : shard
              ? rs_fit_printf(ctx,
                              "needs %.1f GiB incl. %.0f%% headroom > %.1f GiB on all %.0f devices",
                              gib(d->mem_need_head), h, gib(total), count)
              : rs_fit_printf(ctx, "needs %.1f GiB incl. %.0f%% headroom > %.1f GiB per device",
                              gib(d->mem_need_head), h, gib(dev));
      rs_fit_reject(c, RS_CONSTRAINT_MEMORY, why, d->mem_need_head / (shard ? total : dev));
      return false;
    }
  }
  c->devices_per_server = k;
  c->servers_per_replica = count < 1 ? 1 : (unsigned)(count / k);
  c->mem_capacity = dev * k;
  c->mem_free = 1.0 - d->mem_need / c->mem_capacity;
  c->host_mem_need = host_need * (1.0 + ctx->o->headroom);
  if (!isnan(c->host_mem_need) && !isnan(in->memory_bytes) && c->host_mem_need > in->memory_bytes) {
    rs_fit_reject(c, RS_CONSTRAINT_HOST_MEMORY,
                  rs_fit_printf(ctx, "needs %.1f GiB host memory incl. %.0f%% headroom > %.1f GiB",
                                gib(c->host_mem_need), h, gib(in->memory_bytes)),
                  c->host_mem_need / in->memory_bytes);
    return false;
  }
  return true;
}
