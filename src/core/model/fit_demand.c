/* What an endpoint needs, derived once from its summary (docs/model.md):
 * memory per device, the design peak, busy time per request on the source
 * device, the service's own latency and its variability, host CPU and
 * network per request. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "fit_internal.h"
#include "llm.h"
#include "queue.h"

/* A least-squares line is trusted with this many rows and this fit. */
#define LINE_MIN_ROWS 30
#define LINE_MIN_R2 0.3

const char *rs_fit_printf(rs_fit_ctx *ctx, const char *fmt, ...) {
  va_list ap;
  if (ctx->o->terse) /* nothing reads the text (rs_fit_options.terse) */
    return "";
  va_start(ap, fmt);
  const char *copy = rs_arena_vprintf(ctx->arena, fmt, ap);
  va_end(ap);
  if (copy == NULL)
    ctx->nomem = true;
  return copy;
}

double rs_fit_bandwidth(const rs_instance *in) {
  return in->accelerator ? in->accelerator->memory_bw_gbps : NAN;
}

double rs_fit_tflops(const rs_instance *in) {
  return in->accelerator ? in->accelerator->fp16_tflops : NAN;
}

static bool line_ok(const rs_linear_fit *f) {
  return f->n >= LINE_MIN_ROWS && f->slope > 0 && f->r2 >= LINE_MIN_R2;
}

/* The current shape: same provider and name, the profile's region when the
 * catalog has it there. */
static const rs_instance *find_source(const rs_catalog *cat, const rs_profile *p) {
  const rs_instance *any = NULL;
  for (size_t i = 0; i < cat->ninstances; i++) {
    const rs_instance *in = &cat->instances[i];
    if (strcmp(in->provider, p->current.provider) != 0 ||
        strcasecmp(in->name, p->current.instance) != 0)
      continue;
    if (p->current.region == NULL || strcmp(in->region, p->current.region) == 0)
      return in;
    if (any == NULL)
      any = in;
  }
  return any;
}

static void demand_memory(rs_fit_ctx *ctx, rs_demand *d) {
  const rs_profile *p = ctx->profile;
  const rs_endpoint_stats *st = &ctx->sum->stats;
  d->mem_observed = NAN;
  if (st->busiest_device >= 0) {
    for (size_t i = 0; i < st->ndevices; i++)
      if (st->devices[i].index == st->busiest_device)
        d->mem_observed = st->devices[i].m[RS_METRIC_GPU_MEM_USED].max;
  }
  d->mem_model = NAN;
  if (!isnan(p->model.weights_bytes)) {
    d->mem_model = p->model.weights_bytes;
    if (!isnan(p->model.activation_bytes_per_sample))
      d->mem_model += p->model.activation_bytes_per_sample * (double)p->model.max_batch;
    if (p->model.kv.set)
      d->mem_model += 2.0 * (double)p->model.kv.layers * (double)p->model.kv.kv_heads *
                      (double)p->model.kv.head_dim * p->model.kv.bytes_per_value *
                      (double)p->model.kv.max_tokens;
  }
  if (p->model.preallocates && !isnan(d->mem_model)) {
    d->mem_need = d->mem_model;
    d->mem_basis = p->model.kv.set ? "weights + KV cache (the stack pre-allocates)"
                                   : "weights + activations (the stack pre-allocates)";
  } else if (!isnan(d->mem_observed) && !(d->mem_model > d->mem_observed)) {
    d->mem_need = d->mem_observed;
    d->mem_basis = rs_fit_printf(ctx, "observed peak of GPU %d", st->busiest_device);
  } else if (!isnan(d->mem_model)) {
    d->mem_need = d->mem_model;
    d->mem_basis = p->model.kv.set ? "weights + activations + KV cache at max batch"
                                   : "weights + activations at max batch";
  } else if (d->source->accelerator_memory_bytes > 0) {
    /* Nothing says what the model needs; it ran on the current device, so
     * that much memory per device is known to be enough (and the headroom
     * is in it). Smaller devices are not claimed safe. */
    d->mem_unknown = true;
    d->mem_need = d->source->accelerator_memory_bytes;
    d->mem_basis = "unknown (no gpu_mem_used samples, no model.weights): at most the current "
                   "device's memory, which held it";
  } else {
    d->mem_need = NAN;
    d->mem_basis = "unknown (no GPU memory samples, no model.weights)";
  }
  d->mem_need_head = d->mem_unknown ? d->mem_need : d->mem_need * (1.0 + ctx->o->headroom);
  const rs_metric_stats *h = &st->m[RS_METRIC_HOST_MEM_USED];
  d->host_mem_peak = h->count ? fmax(h->max, st->host_mem_windows.max) : NAN;
}

static void demand_traffic(rs_fit_ctx *ctx, rs_demand *d) {
  const rs_profile *p = ctx->profile;
  const rs_metric_stats *r = &ctx->sum->stats.m[RS_METRIC_REQUEST_RATE];
  double scale = p->traffic.rate_per_endpoint ? 1.0 : (double)p->current.replicas;
  double growth = p->traffic.growth;
  rs_peak_kind kind = RS_PEAK_P99;
  double rps = NAN;
  const char *spiky = "";
  d->rate_mean = r->count ? r->mean * scale * growth : NAN;
  d->observed_peak = r->count ? r->max * scale : NAN;
  if (ctx->o->peak_set) {
    kind = ctx->o->peak;
    rps = ctx->o->peak_rps;
  } else if (!isnan(p->traffic.peak_rps)) {
    kind = RS_PEAK_RPS;
    rps = p->traffic.peak_rps;
  } else if (ctx->sum->stats.rate_peak_to_mean > RS_WARN_PEAK_TO_MEAN) {
    /* Spikier than autoscaling follows (the spiky-traffic warning): the
     * p99 would size for a fraction of the bursts the warning names. */
    kind = RS_PEAK_MAX;
    spiky = rs_fit_printf(ctx, " (spiky: peak/mean %.1f > %.0f)", ctx->sum->stats.rate_peak_to_mean,
                          RS_WARN_PEAK_TO_MEAN);
  }
  const char *scope = scale > 1 ? rs_fit_printf(ctx, " x %.0f replicas", scale) : "";
  switch (kind) {
  case RS_PEAK_P95:
    d->design_peak = r->count ? r->q[2] * scale : NAN;
    d->peak_basis = rs_fit_printf(ctx, "p95 of request rate%s", scope);
    break;
  case RS_PEAK_P99:
    d->design_peak = r->count ? r->q[3] * scale : NAN;
    d->peak_basis = rs_fit_printf(ctx, "p99 of request rate%s", scope);
    break;
  case RS_PEAK_MAX:
    d->design_peak = r->count ? r->max * scale : NAN;
    d->peak_basis = rs_fit_printf(ctx, "max of request rate%s%s", scope, spiky);
    break;
  case RS_PEAK_RPS:
    d->design_peak = rps;
    d->peak_basis = ctx->o->peak_set ? "--peak" : "traffic.peak_rps";
    break;
  }
  if (growth != 1.0)
    d->peak_basis = rs_fit_printf(ctx, "%s x growth %.2f", d->peak_basis, growth);
  d->design_peak *= growth;
}

/* Busy time per request on one source device. The least-squares slope of
 * utilization on request rate (the utilization law with an idle baseline)
 * when every active device has a trustworthy line; else the plain
 * utilization law, mean utilization over mean rate per device, which also
 * charges the idle baseline to requests (conservative). */
static void demand_busy(rs_fit_ctx *ctx, rs_demand *d) {
  const rs_profile *p = ctx->profile;
  const rs_endpoint_stats *st = &ctx->sum->stats;
  double reps = (double)p->current.replicas;
  double per_replica_rate =
      st->m[RS_METRIC_REQUEST_RATE].count
          ? st->m[RS_METRIC_REQUEST_RATE].mean / (p->traffic.rate_per_endpoint ? reps : 1.0)
          : NAN;
  double slope_sum = 0, util_sum = 0, r2_min = 1;
  unsigned lines = 0;
  d->source_active = 0;
  d->busy_s = NAN;
  d->busy_r2 = NAN;
  d->busy_basis = "unknown";
  if (d->source->category == RS_CATEGORY_CPU) {
    /* A CPU source: the instance is the server, its CPU the busy resource. */
    const rs_linear_fit *f = &st->cpu_vs_rate;
    d->source_active = 1;
    if (line_ok(f)) {
      d->busy_s = f->slope / 100.0 * (p->traffic.rate_per_endpoint ? reps : 1.0);
      d->busy_r2 = f->r2;
      d->busy_basis = "least-squares slope of CPU utilization on request rate";
    } else if (st->m[RS_METRIC_CPU_UTIL].count && per_replica_rate > 0) {
      d->busy_s = st->m[RS_METRIC_CPU_UTIL].mean / 100.0 / per_replica_rate;
      d->busy_basis = "utilization law: mean CPU utilization / mean request rate";
    }
    return;
  }
  for (size_t i = 0; i < st->ndevices; i++) {
    const rs_device_stats *ds = &st->devices[i];
    const rs_metric_stats *u = &ds->m[RS_METRIC_GPU_UTIL];
    if (u->count == 0 || u->max < RS_IDLE_UTIL_PCT)
      continue;
    d->source_active++;
    util_sum += u->mean;
    if (line_ok(&ds->util_vs_rate)) {
      lines++;
      slope_sum += ds->util_vs_rate.slope;
      r2_min = fmin(r2_min, ds->util_vs_rate.r2);
    }
  }
  if (d->source_active == 0) {
    d->source_active = 1;
    return;
  }
  double n = (double)d->source_active;
  if (lines == d->source_active) {
    /* Requests spread over the active devices: each serves 1/n of them, so
     * a device's busy time per request it serves is n x its slope. */
    d->busy_s = slope_sum / 100.0 * (p->traffic.rate_per_endpoint ? reps : 1.0);
    d->busy_r2 = r2_min;
    d->busy_basis = "least-squares slope of GPU utilization on request rate";
  } else if (per_replica_rate > 0) {
    d->busy_s = util_sum / n / 100.0 / (per_replica_rate / n);
    d->busy_basis = "utilization law: mean GPU utilization / mean request rate per device";
  }
}

/* No request rate (what most GPU exporters give: utilization and memory):
 * size on capacity, the way AWS Compute Optimizer does from CloudWatch
 * alone. One unit of load is one replica's peak; a replica's busy time per
 * unit is the busiest active device's peak utilization (p99 of its
 * per-interval utilization, or --peak p95 / max) on each active device. */
static void demand_capacity(rs_fit_ctx *ctx, rs_demand *d) {
  const rs_profile *p = ctx->profile;
  const rs_endpoint_stats *st = &ctx->sum->stats;
  rs_peak_kind kind = ctx->o->peak_set ? ctx->o->peak : RS_PEAK_P99;
  double peak = NAN;
  int dev = -1;
  unsigned active = 0;
  if (st->m[RS_METRIC_REQUEST_RATE].count || d->source->category == RS_CATEGORY_CPU)
    return;
  for (size_t i = 0; i < st->ndevices; i++) {
    const rs_metric_stats *u = &st->devices[i].m[RS_METRIC_GPU_UTIL];
    if (u->count == 0 || u->max < RS_IDLE_UTIL_PCT)
      continue;
    double v = kind == RS_PEAK_MAX ? u->max : kind == RS_PEAK_P95 ? u->q[2] : u->q[3];
    active++;
    if (isnan(peak) || v > peak) {
      peak = v;
      dev = st->devices[i].index;
    }
  }
  if (active == 0)
    return;
  const char *which = kind == RS_PEAK_MAX ? "max" : kind == RS_PEAK_P95 ? "p95" : "p99";
  d->capacity_only = true;
  d->source_active = active;
  d->busy_s = peak / 100.0 * (double)active;
  d->busy_r2 = NAN;
  d->busy_basis = rs_fit_printf(ctx,
                                "%s of GPU %d's utilization, %.1f%%, on each of %u active "
                                "device%s",
                                which, dev, peak, active, active == 1 ? "" : "s");
  d->design_peak = (double)p->current.replicas * p->traffic.growth;
  d->peak_basis = rs_fit_printf(
      ctx, "1 unit = one replica's peak load%s",
      kind == RS_PEAK_RPS ? "; --peak RPS needs request-rate samples and is not used" : "");
  d->rate_mean = d->observed_peak = NAN;
}

static void demand_latency(rs_fit_ctx *ctx, rs_demand *d) {
  const rs_profile *p = ctx->profile;
  const rs_endpoint_stats *st = &ctx->sum->stats;
  rs_metric lat = RS_METRIC_LATENCY_P99;
  if (!isnan(ctx->o->slo_ms)) {
    d->slo_ms = ctx->o->slo_ms;
    d->slo_quantile = ctx->o->slo_p95 ? 0.95 : 0.99;
  } else if (!isnan(p->slo.latency_p99_ms)) {
    d->slo_ms = p->slo.latency_p99_ms;
    d->slo_quantile = 0.99;
  } else {
    d->slo_ms = p->slo.latency_p95_ms;
    d->slo_quantile = 0.95;
  }
  if (d->slo_quantile < 0.99)
    lat = RS_METRIC_LATENCY_P95;
  const rs_metric_stats *lq = &st->m[lat], *l50 = &st->m[RS_METRIC_LATENCY_P50];
  d->latency_observed = lq->count > 0;
  d->cs2 = 1.0;
  d->device_share = 1.0;
  if (!d->latency_observed && d->capacity_only) {
    /* No rate, no latency: no latency claim at all. */
    d->service_q_ms = d->service_p50_ms = d->service_mean_ms = NAN;
    d->hold_s = NAN;
    return;
  }
  if (!d->latency_observed) {
    /* Nothing measured: exponential service around the busy time. */
    d->service_q_ms = isnan(d->busy_s) ? NAN : d->busy_s * -log(1.0 - d->slo_quantile) * 1e3;
    d->service_p50_ms = isnan(d->busy_s) ? NAN : d->busy_s * log(2.0) * 1e3;
    d->service_mean_ms = isnan(d->busy_s) ? NAN : d->busy_s * 1e3;
    d->hold_s = d->busy_s;
    return;
  }
  if (rs_fit_backtest(ctx, d)) {
    /* The service model fitted to the history of latency by load: its own
     * latency, without the queueing the observed quantiles contain. */
    const rs_backtest *bt = &d->backtest;
    d->cs2 = bt->cs2;
    d->service_p50_ms = bt->s50_ms;
    d->hold_s = bt->hold_ms / 1e3;
  } else {
    /* No interval with a rate: no queue to take out; the typical interval
     * (median over time) is the service's own latency. */
    double q_ms = lq->q[0];
    d->service_p50_ms = l50->count ? l50->q[0] : NAN;
    double cs2 = rs_lognormal_cv2(d->service_p50_ms, q_ms, d->slo_quantile);
    if (!isnan(cs2))
      d->cs2 = fmin(cs2, 4.0);
    if (isnan(d->service_p50_ms))
      d->service_p50_ms = q_ms / exp(sqrt(log1p(d->cs2)) * rs_normal_quantile(d->slo_quantile));
    d->hold_s = NAN;
  }
  double sigma = sqrt(log1p(d->cs2));
  d->service_q_ms = d->service_p50_ms * exp(sigma * rs_normal_quantile(d->slo_quantile));
  d->service_mean_ms = d->service_p50_ms * sqrt(1.0 + d->cs2);
  if (isnan(d->hold_s))
    d->hold_s =
        isnan(d->busy_s) ? d->service_mean_ms / 1e3 : fmin(d->busy_s, d->service_mean_ms / 1e3);
  if (!isnan(d->busy_s) && d->service_p50_ms > 0)
    d->device_share = fmin(1.0, d->busy_s * 1e3 / d->service_p50_ms);
}

/* Host CPU (vCPUs) and network (bytes/s) as baseline + per request. */
static void demand_host(rs_fit_ctx *ctx, rs_demand *d) {
  const rs_profile *p = ctx->profile;
  const rs_endpoint_stats *st = &ctx->sum->stats;
  double k = p->traffic.rate_per_endpoint ? (double)p->current.replicas : 1.0;
  double rate = st->m[RS_METRIC_REQUEST_RATE].count ? st->m[RS_METRIC_REQUEST_RATE].mean / k : 0;
  double vcpus = d->source->vcpus;
  d->cpu_known = false;
  if (st->m[RS_METRIC_CPU_UTIL].count && !isnan(vcpus) && d->source->category != RS_CATEGORY_CPU) {
    const rs_linear_fit *f = &st->cpu_vs_rate;
    if (line_ok(f)) {
      d->cpu_base_vcpus = fmax(0.0, f->intercept) / 100.0 * vcpus;
      d->cpu_vcpu_s_per_req = f->slope / 100.0 * vcpus * k;
      d->cpu_known = true;
    } else if (rate > 0) {
      d->cpu_base_vcpus = 0;
      d->cpu_vcpu_s_per_req = st->m[RS_METRIC_CPU_UTIL].mean / 100.0 * vcpus / rate;
      d->cpu_known = true;
    }
  }
  d->net_known = false;
  const rs_linear_fit *rx = &st->net_rx_vs_rate, *tx = &st->net_tx_vs_rate;
  const rs_linear_fit *f = rx->n && (!tx->n || rx->y_mean >= tx->y_mean) ? rx : tx;
  rs_metric m = f == rx ? RS_METRIC_NET_RX : RS_METRIC_NET_TX;
  if (st->m[m].count) {
    if (line_ok(f)) {
      d->net_base_bps = fmax(0.0, f->intercept);
      d->net_bytes_per_req = f->slope * k;
      d->net_known = true;
    } else if (rate > 0) {
      d->net_base_bps = 0;
      d->net_bytes_per_req = st->m[m].mean / rate;
      d->net_known = true;
    }
  }
}

rs_status rs_fit_demand(rs_fit_ctx *ctx, rs_demand *d, rs_error *err) {
  const rs_profile *p = ctx->profile;
  memset(d, 0, sizeof(*d));
  d->source = find_source(ctx->cat, p);
  if (d->source == NULL)
    return rs_error_set(
        err, RS_INVALID, p->path, p->current.line, p->current.col,
        "current.instance: '%s' is not in catalog %s for provider %s, expected a name "
        "from 'rightsize catalog list --provider %s'",
        p->current.instance, ctx->cat->version, p->current.provider, p->current.provider);
  switch (p->model.bound) {
  case RS_BOUND_COMPUTE: d->mix_compute = 1.0; break;
  case RS_BOUND_MEMORY: d->mix_compute = 0.0; break;
  default: d->mix_compute = 0.5; break;
  }
  demand_memory(ctx, d);
  demand_traffic(ctx, d);
  demand_busy(ctx, d);
  demand_capacity(ctx, d);
  demand_latency(ctx, d);
  demand_host(ctx, d);
  rs_status st = rs_llm_demand_init(ctx, d, err);
  if (st != RS_OK)
    return st;
  if (isnan(d->mem_need))
    return rs_error_set(err, RS_INVALID, p->path, 0, 0,
                        "nothing says how much accelerator memory the model needs: expected "
                        "gpu_mem_used samples or model.weights");
  if (isnan(d->design_peak))
    return rs_error_set(err, RS_INVALID, p->path, 0, 0,
                        "no request-rate samples to size for: expected request_rate samples, "
                        "traffic.peak_rps in the profile, or --peak RPS");
  return ctx->nomem ? rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory while fitting")
                    : RS_OK;
}
