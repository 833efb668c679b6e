/* LLM serving on one shape (docs/model.md "LLM serving"): prefill
 * compute-bound, decode bandwidth-bound, the running batch of continuous
 * batching from Little's law, TTFT, TPOT and the KV cache against the memory
 * the weights leave. */
#include "llm.h"

#include <math.h>
#include <string.h>

#include "queue.h"

#define EFF_MIN 0.02 /* a fitted efficiency below this says the data disagree, not the device */
#define EFF_MAX 1.0
#define KV_SCALE_MIN 0.1
#define KV_SCALE_MAX 10.0

static double gib(double b) { return b / RS_GIB; }

static double quantile_of(const rs_metric_stats *m, double q) {
  return q >= 0.99 ? m->q[3] : m->q[2];
}

/* ---- one server ---- */

typedef struct server {
  double flops, bytes_s; /* effective FLOP/s and bytes/s */
} server;

static server server_of(const rs_llm_fit *f) {
  server s = {f->compute_tflops * 1e12 * f->eff_compute,
              f->bandwidth_gbps * 1e9 * f->eff_bandwidth};
  return s;
}

/* Mean tokens a decoding sequence holds, over time: its prompt and half
 * its output, the output weighted by how long it stays (a sequence with
 * twice the output stays twice as long): prompt + E[out^2] / (2 E[out]) =
 * prompt + out (1 + cs2) / 2. */
static double resident_tokens(const rs_llm_demand *l) {
  double cs2 = l->output_cs2 > 0 ? l->output_cs2 : 0.0;
  return l->prompt_mean + l->output_mean * (1.0 + cs2) / 2;
}

/* One decode step for `batch` sequences on its own: the weights and the
 * batch's KV read once, or 2 x active params FLOPs per sequence, whichever
 * is longer (the roofline). Seconds. */
static double decode_s(const rs_llm_demand *l, server s, double batch) {
  double kv = batch * rs_llm_kv_bytes_seq(l, resident_tokens(l));
  return fmax((l->weight_bytes + kv) / s.bytes_s, 2.0 * l->active_params * batch / s.flops);
}

/* Prefill of one `tokens`-token prompt under chunked prefill (vLLM V1's
 * default): the prompt goes through in chunks of at most RS_LLM_CHUNK_TOKENS,
 * each chunk in a step together with the running batch's decode tokens; such
 * a step lasts the longer of the decode step and 2 x active params FLOPs for
 * all its tokens. Returns the time of the prompt's steps; *extra: what they
 * take beyond the decode steps they replace (the time prefill adds). */
static double prefill_steps_s(const rs_llm_demand *l, server s, double batch, double tokens,
                              double *extra) {
  double dec = decode_s(l, s, batch), t = 0, add = 0;
  for (double left = fmax(tokens, 1.0); left > 0; left -= RS_LLM_CHUNK_TOKENS) {
    double chunk = fmin(left, RS_LLM_CHUNK_TOKENS);
    double step = fmax(dec, 2.0 * l->active_params * (batch + chunk) / s.flops);
    t += step;
    add += step - dec;
  }
  if (extra)
    *extra = add;
  return t;
}

/* A prompt's prefill alone (no batch running): its chunks' steps. */
static double prefill_s(const rs_llm_demand *l, server s, double tokens) {
  return prefill_steps_s(l, s, 0.0, tokens, NULL);
}

/* The time prompt chunks add over the decode steps they replace, over the
 * prompts' distribution (lognormal with their mean and variability, 16
 * quantiles): its mean *m1 and mean square *m2 per prompt, and the mean time
 * of a prompt's steps *steps (any may be NULL). Convex in the prompt: the
 * long prompts' chunks weigh more than the mean prompt's. */
static void extra_moments(const rs_llm_demand *l, server s, double b, double *m1, double *m2,
                          double *steps) {
  enum { K = 16 };
  double sigma2 = log1p(l->prompt_cs2 > 0 ? l->prompt_cs2 : 0.0);
  double mu = log(fmax(l->prompt_mean, 1.0)) - sigma2 / 2, a = 0, a2 = 0, t = 0;
  for (int i = 0; i < K; i++) {
    double e, p = exp(mu + sqrt(sigma2) * rs_normal_quantile((i + 0.5) / K));
    t += prefill_steps_s(l, s, b, round(fmax(p, 1.0)), &e);
    a += e;
    a2 += e * e;
  }
  if (m1)
    *m1 = a / K;
  if (m2)
    *m2 = a2 / K;
  if (steps)
    *steps = t / K;
}

/* TPOT at lambda requests/s with the running batch b, the step taken at
 * `at` sequences: the decode step stretched by the time prefill chunks add
 * (lambda prompts a second, each adding its extra). INFINITY past saturation. */
static double tpot_s(const rs_llm_demand *l, server s, double lambda, double b, double at) {
  double extra;
  prefill_steps_s(l, s, b, l->prompt_mean, &extra);
  double free = 1.0 - lambda * extra;
  return free > 0 ? decode_s(l, s, at) / free : INFINITY;
}

/* Share of the server's time in steps that carry a prefill chunk. */
static double prefill_share_of(const rs_llm_demand *l, server s, double lambda, double b) {
  return lambda * prefill_steps_s(l, s, b, l->prompt_mean, NULL);
}

/* P(N <= k) for N Poisson with mean m (normal approximation past 500). */
static double poisson_cdf(double k, double m) {
  if (k < 0)
    return 0.0;
  if (m > 500)
    return 0.5 * erfc(-(k + 0.5 - m) / sqrt(2.0 * m));
  double p = exp(-m), cdf = p;
  for (double i = 1; i <= k && cdf < 1.0 - 1e-15; i++) {
    p *= m / i;
    cdf += p;
  }
  return fmin(cdf, 1.0);
}

/* TPOT at quantile q over requests: a request's TPOT is the mean of its
 * steps, the decode step plus, for each prompt chunk that lands while it
 * decodes (Poisson, lambda x chunks per prompt x its decode time), that
 * step's extra over the output tokens. Short outputs that meet a chunk make
 * the tail; the output tokens are lognormal with their mean and variance
 * (or, without per-request counts, their quantile out_q at out_p), taken at
 * 64 quantiles. The q-quantile of the mixture by
 * bisection. */
static double tpot_quantile_s(const rs_llm_demand *l, server s, double lambda, double b, double q,
                              double out_p) {
  /* prompt chunks met as events of the size that keeps the stretch's mean
   * and variance (m2 / m1 each, m1^2 / m2 as many) */
  double m1, m2;
  extra_moments(l, s, b, &m1, &m2, NULL);
  double per = m2 > 0 ? m2 / m1 : 0, chunks = m2 > 0 ? m1 * m1 / m2 : 0;
  double base = decode_s(l, s, b), mean = tpot_s(l, s, lambda, b, b);
  if (!(per > 0) || !isfinite(mean) || !(lambda > 0))
    return mean;
  double z = rs_normal_quantile(out_p), r = log(l->output_q / l->output_mean);
  double sigma = l->output_cs2 > 0        ? sqrt(log1p(l->output_cs2))
                 : r > 0 && z * z > 2 * r ? z - sqrt(z * z - 2 * r)
                                          : 0.0;
  double mu = log(l->output_mean) - sigma * sigma / 2;
  enum { K = 64 };
  double outs[K], rate[K];
  for (int i = 0; i < K; i++) {
    outs[i] = fmax(2.0, round(exp(mu + sigma * rs_normal_quantile((i + 0.5) / K))));
    rate[i] = lambda * chunks * (outs[i] - 1) * mean; /* chunks met while decoding */
  }
  double lo = base, hi = base + 64 * per;
  for (int it = 0; it < 60; it++) {
    double x = (lo + hi) / 2, tail = 0;
    for (int i = 0; i < K; i++)
      tail += 1.0 - poisson_cdf(floor((x - base) * (outs[i] - 1) / per), rate[i]);
    if (tail / K > 1.0 - q)
      lo = x;
    else
      hi = x;
  }
  return hi;
}

/* Running batch at lambda requests/s on one server (Little's law: each
 * request decodes output_mean tokens, one per step): b = lambda x output
 * tokens x TPOT(b). NaN when the server cannot keep up: the prefill steps
 * fill its time, or the batch passes max_b. */
static double running_batch(const rs_llm_demand *l, server s, double lambda, double max_b) {
  double b = 0;
  for (int i = 0; i < 500; i++) {
    if (!(prefill_share_of(l, s, lambda, b) < 1.0))
      return NAN;
    double next = lambda * l->output_mean * tpot_s(l, s, lambda, b, b);
    if (!(next <= max_b))
      return NAN;
    if (fabs(next - b) < 1e-9 * fmax(1.0, next))
      return next;
    b = next;
  }
  return NAN; /* no fixed point: at saturation */
}

/* Smallest n with P(Poisson(mean) <= n) >= q: sequences resident at the
 * quantile (the number in an M/G/infinity system is Poisson). At least 1. */
static double poisson_quantile(double mean, double q) {
  if (!(mean > 0))
    return 1.0;
  if (mean > 200) /* normal approximation with continuity */
    return fmax(1.0, ceil(mean + rs_normal_quantile(q) * sqrt(mean) - 0.5));
  double p = exp(-mean), cdf = p;
  unsigned n = 0;
  while (cdf < q && n < 10000) {
    n++;
    p *= mean / (double)n;
    cdf += p;
  }
  return fmax(1.0, (double)n);
}

/* KV bytes in use at the quantile with `batch` sequences running. */
static double kv_demand(const rs_llm_demand *l, double batch, double q, double *seqs) {
  *seqs = poisson_quantile(batch, q);
  double many = *seqs * rs_llm_kv_bytes_seq(l, resident_tokens(l));
  double longest = rs_llm_kv_bytes_seq(l, l->prompt_q + l->output_q);
  return fmax(many, longest) * l->kv_scale;
}

/* ---- demand ---- */

static rs_status tokens_from_stats(rs_fit_ctx *ctx, rs_demand *d, rs_error *err) {
  const rs_endpoint_stats *st = &ctx->sum->stats;
  rs_llm_demand *l = &d->llm;
  const rs_metric_stats *pt = &st->m[RS_METRIC_PROMPT_TOKENS],
                        *ot = &st->m[RS_METRIC_OUTPUT_TOKENS];
  const rs_metric_stats *pr = &st->m[RS_METRIC_PROMPT_TOKEN_RATE];
  const rs_metric_stats *orr = &st->m[RS_METRIC_OUTPUT_TOKEN_RATE];
  const rs_metric_stats *rr = &st->m[RS_METRIC_REQUEST_RATE];
  double q = d->slo_quantile;
  if (pt->count && ot->count) {
    l->prompt_mean = pt->mean;
    l->output_mean = ot->mean;
    l->prompt_q = quantile_of(pt, q);
    l->prompt_cs2 = pt->mean > 0 ? pow(pt->stddev / pt->mean, 2) : 1.0;
    l->output_cs2 = ot->mean > 0 ? pow(ot->stddev / ot->mean, 2) : NAN;
    l->output_q = quantile_of(ot, q);
    l->tokens_basis =
        rs_fit_printf(ctx,
                      "prompt_tokens and output_tokens samples (%llu requests "
                      "or intervals)",
                      (unsigned long long)(pt->count < ot->count ? pt->count : ot->count));
  } else if (pr->count && orr->count && rr->count && rr->mean > 0) {
    l->prompt_mean = l->prompt_q = pr->mean / rr->mean;
    l->prompt_cs2 = 1.0;
    l->output_cs2 = NAN;
    l->output_mean = l->output_q = orr->mean / rr->mean;
    l->tokens_basis = "token rates / request rate (means only: no per-request spread)";
  } else {
    return rs_error_set(err, RS_INVALID, ctx->profile->path, ctx->profile->model.name_line,
                        ctx->profile->model.name_col,
                        "an LLM fit needs token counts: expected prompt_tokens and output_tokens "
                        "samples, or prompt_token_rate and output_token_rate with request_rate "
                        "(docs/samples-format.md)");
  }
  l->output_mean = fmax(l->output_mean, 1.0);
  l->output_q = fmax(l->output_q, l->output_mean);
  l->prompt_q = fmax(l->prompt_q, l->prompt_mean);
  double scale = d->rate_mean > 0 && rr->count ? d->rate_mean / rr->mean : 1.0;
  l->prompt_rate_mean = pr->count && rr->count ? pr->mean * scale : d->rate_mean * l->prompt_mean;
  l->output_rate_mean = orr->count && rr->count ? orr->mean * scale : d->rate_mean * l->output_mean;
  return RS_OK;
}

/* Architecture from the facts row, then the profile's explicit fields. */
static rs_status arch_init(rs_fit_ctx *ctx, rs_demand *d, rs_error *err) {
  const rs_profile *p = ctx->profile;
  rs_llm_demand *l = &d->llm;
  const rs_llm_facts *f = p->model.name ? rs_llm_facts_find(p->model.name) : NULL;
  if (p->model.name && f == NULL && !p->model.kv.set)
    return rs_error_set(err, RS_INVALID, p->path, p->model.name_line, p->model.name_col,
                        "model.name: '%s' is not in the model facts table, expected one of the "
                        "names in docs/model.md (\"LLM serving\") or model.params with a "
                        "model.kv_cache block",
                        p->model.name);
  l->model = f ? f->name : "profile";
  l->params = f ? f->params : NAN;
  l->active_params = f ? f->active_params : NAN;
  if (f) {
    l->layers = f->layers;
    l->kv_heads = f->kv_heads;
    l->head_dim = f->head_dim;
    l->window = f->window;
    l->window_layers = f->window_layers;
  }
  if (p->model.params > 0)
    l->params = l->active_params = p->model.params;
  if (p->model.kv.set) {
    l->layers = (unsigned)p->model.kv.layers;
    l->kv_heads = (unsigned)p->model.kv.kv_heads;
    l->head_dim = (unsigned)p->model.kv.head_dim;
    if (f == NULL || f->layers != l->layers)
      l->window = l->window_layers = 0;
  }
  if (isnan(l->params) || l->layers == 0)
    return rs_error_set(err, RS_INVALID, p->path, p->model.name_line, p->model.name_col,
                        "an LLM fit needs the architecture: model.name from the facts table, or "
                        "model.params with a model.kv_cache block");
  double wbytes =
      rs_precision_bytes(p->model.precision_set ? p->model.precision : RS_PRECISION_FP16);
  l->weight_bytes = !isnan(p->model.weights_bytes) ? p->model.weights_bytes : l->params * wbytes;
  l->kv_value_bytes = p->model.kv_bytes_per_value > 0 ? p->model.kv_bytes_per_value
                      : p->model.kv.set               ? p->model.kv.bytes_per_value
                                                      : 2.0;
  l->kv_bytes_per_token =
      rs_llm_kv_bytes_per_token(l->layers, l->kv_heads, l->head_dim, l->kv_value_bytes);
  return RS_OK;
}

static void slo_init(rs_fit_ctx *ctx, rs_llm_demand *l) {
  const rs_profile *p = ctx->profile;
  l->ttft_slo_ms = !isnan(p->slo.ttft_p99_ms) ? p->slo.ttft_p99_ms : p->slo.ttft_p95_ms;
  l->ttft_quantile = !isnan(p->slo.ttft_p99_ms) ? 0.99 : 0.95;
  l->tpot_slo_ms = !isnan(p->slo.tpot_p99_ms) ? p->slo.tpot_p99_ms : p->slo.tpot_p95_ms;
  l->tpot_quantile = !isnan(p->slo.tpot_p99_ms) ? 0.99 : 0.95;
}

/* Peak compute (TFLOPS at the profile's precision) and bandwidth (GB/s) of
 * one server of k devices of shape in: tensor parallel over k devices at
 * RS_FIT_SHARD_EFFICIENCY, a slice of a device at its fraction, a CPU shape
 * from its per-vCPU figures. false when a figure is missing. */
static bool figures(const rs_fit_ctx *ctx, const rs_instance *in, unsigned k, rs_llm_fit *f) {
  rs_precision p =
      ctx->profile->model.precision_set ? ctx->profile->model.precision : RS_PRECISION_FP16;
  if (in->category == RS_CATEGORY_CPU || in->accelerator == NULL) {
    f->compute_tflops = in->vcpus * in->cpu_gflops_per_vcpu / 1e3;
    f->bandwidth_gbps = in->vcpus * in->cpu_memory_gbps_per_vcpu;
  } else {
    double n = in->accelerator_count < 1 ? in->accelerator_count : (double)k;
    double tp = k > 1 ? RS_FIT_SHARD_EFFICIENCY : 1.0;
    f->compute_tflops = rs_proj_peak(in->accelerator, p) * n * tp;
    f->bandwidth_gbps = in->accelerator->memory_bw_gbps * n * tp;
  }
  return f->compute_tflops > 0 && f->bandwidth_gbps > 0;
}

/* Devices one copy of the weights spans on shape in (as fit_memory shards). */
static unsigned shard_of(const rs_demand *d, const rs_instance *in) {
  unsigned k = 1;
  double dev = in->accelerator_memory_bytes, count = in->accelerator_count;
  while (dev > 0 && count >= 2 && (double)k * dev < d->mem_need_head && k * 2 <= (unsigned)count)
    k *= 2;
  return k;
}

/* The source's servers (all replicas) and one server's figures. */
static double source_servers(const rs_fit_ctx *ctx, const rs_demand *d, rs_llm_fit *f) {
  unsigned k = shard_of(d, d->source);
  f->eff_compute = d->llm.eff_compute;
  f->eff_bandwidth = d->llm.eff_bandwidth;
  if (!figures(ctx, d->source, k, f))
    return NAN;
  unsigned per = d->source_active / k ? d->source_active / k : 1;
  return (double)ctx->profile->current.replicas * (double)per;
}

/* Fits the bandwidth efficiency to the observed typical TPOT and the
 * compute efficiency to the observed typical TTFT on the source, at the
 * mean rate they were served at; fixed point, 40 rounds. */
static void fit_efficiency(rs_fit_ctx *ctx, rs_demand *d) {
  rs_llm_demand *l = &d->llm;
  const rs_endpoint_stats *st = &ctx->sum->stats;
  rs_llm_fit f;
  double servers = source_servers(ctx, d, &f);
  l->tpot_observed_ms = st->m[RS_METRIC_TPOT_P50].count ? st->m[RS_METRIC_TPOT_P50].q[0] : NAN;
  l->ttft_observed_ms = st->m[RS_METRIC_TTFT_P50].count ? st->m[RS_METRIC_TTFT_P50].q[0] : NAN;
  l->tpot_model_ms = l->ttft_model_ms = NAN;
  if (isnan(servers) || !(d->rate_mean > 0))
    return;
  double lambda = d->rate_mean / ctx->profile->traffic.growth / servers;
  for (int i = 0; i < 40; i++) {
    server s = server_of(&f);
    double b = running_batch(l, s, lambda, 1e6);
    if (isnan(b))
      break;
    l->tpot_model_ms = tpot_s(l, s, lambda, b, b) * 1e3;
    l->ttft_model_ms = (prefill_steps_s(l, s, b, l->prompt_mean, NULL) + decode_s(l, s, b)) * 1e3;
    if (l->tpot_observed_ms > 0)
      f.eff_bandwidth =
          fmin(EFF_MAX, fmax(EFF_MIN, f.eff_bandwidth * l->tpot_model_ms / l->tpot_observed_ms));
    if (l->ttft_observed_ms > 0)
      f.eff_compute =
          fmin(EFF_MAX, fmax(EFF_MIN, f.eff_compute * l->ttft_model_ms / l->ttft_observed_ms));
  }
  if (l->tpot_observed_ms > 0 || l->ttft_observed_ms > 0) {
    l->eff_bandwidth = f.eff_bandwidth;
    l->eff_compute = f.eff_compute;
    l->eff_basis = rs_fit_printf(ctx, "fitted to the endpoint's typical %s%s%s on %s",
                                 l->tpot_observed_ms > 0 ? "TPOT" : "",
                                 l->tpot_observed_ms > 0 && l->ttft_observed_ms > 0 ? " and " : "",
                                 l->ttft_observed_ms > 0 ? "TTFT" : "", d->source->name);
  }
}

/* The back-test: the fitted model's typical TPOT at five request rates of
 * the history (min, p50, p90, p99, max per replica) against the line of the
 * observed tpot_p50 on the rate at the same rates. The efficiencies were
 * fitted at the mean rate only, so the spread of load tests how the batch
 * and its KV reads grow with it. Needs 30 rows and R2 >= 0.3 (as the
 * utilization law's line). */
static void backtest(rs_fit_ctx *ctx, rs_demand *d) {
  rs_llm_demand *l = &d->llm;
  const rs_endpoint_stats *st = &ctx->sum->stats;
  const rs_linear_fit *line = &st->tpot_vs_rate;
  const rs_metric_stats *r = &st->m[RS_METRIC_REQUEST_RATE];
  rs_llm_fit f;
  double servers = source_servers(ctx, d, &f);
  if (line->n < 30 || !(line->r2 >= 0.3) || isnan(servers) || r->count == 0)
    return;
  double reps = (double)ctx->profile->current.replicas;
  double scale = ctx->profile->traffic.rate_per_endpoint ? 1.0 : reps; /* samples -> endpoint */
  const double xs[] = {r->min, r->q[0], r->q[1], r->q[3], r->max};
  server s = server_of(&f);
  l->backtest_lo = INFINITY;
  l->backtest_hi = -INFINITY;
  l->backtest_r2 = line->r2;
  for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
    double observed = line->intercept + line->slope * xs[i];
    double lambda = xs[i] * scale / servers;
    double b = running_batch(l, s, lambda, 1e6);
    if (isnan(b) || !(observed > 0))
      continue;
    double ratio = tpot_s(l, s, lambda, b, b) * 1e3 / observed;
    l->backtest_lo = fmin(l->backtest_lo, ratio);
    l->backtest_hi = fmax(l->backtest_hi, ratio);
    l->backtest_points++;
  }
  if (l->backtest_points)
    l->backtest_error = fmax(fabs(l->backtest_lo - 1.0), fabs(l->backtest_hi - 1.0));
}

/* On a pre-allocating stack, the observed KV-cache usage x the pool is the
 * measured demand at the observed peak: its ratio to the model's figure
 * there scales the model's KV demand on every shape. */
static void measured_kv(rs_fit_ctx *ctx, rs_demand *d) {
  rs_llm_demand *l = &d->llm;
  const rs_metric_stats *u = &ctx->sum->stats.m[RS_METRIC_KV_CACHE_USAGE];
  rs_llm_fit f;
  double servers = source_servers(ctx, d, &f);
  l->kv_measured_bytes = NAN;
  if (!ctx->profile->model.preallocates || u->count == 0 || isnan(servers) ||
      !(d->observed_peak > 0))
    return;
  unsigned k = shard_of(d, d->source);
  double pool =
      ctx->profile->model.prealloc_fraction * d->source->accelerator_memory_bytes * (double)k -
      d->mem_need;
  if (!(pool > 0))
    return;
  l->kv_measured_bytes = u->max / 100.0 * pool;
  double b = running_batch(l, server_of(&f), d->observed_peak / servers, 1e6), seqs;
  if (isnan(b))
    return;
  double modelled = kv_demand(l, b, d->slo_quantile, &seqs);
  l->kv_scale = fmin(KV_SCALE_MAX, fmax(KV_SCALE_MIN, l->kv_measured_bytes / modelled));
}

rs_status rs_llm_demand_init(rs_fit_ctx *ctx, rs_demand *d, rs_error *err) {
  const rs_profile *p = ctx->profile;
  rs_llm_demand *l = &d->llm;
  rs_status st;
  memset(l, 0, sizeof(*l));
  if (p->model.name == NULL && !(p->model.params > 0))
    return RS_OK;
  if ((st = arch_init(ctx, d, err)) != RS_OK || (st = tokens_from_stats(ctx, d, err)) != RS_OK)
    return st;
  l->on = true;
  slo_init(ctx, l);
  d->mem_model = l->weight_bytes;
  if (!isnan(p->model.activation_bytes_per_sample))
    d->mem_model += p->model.activation_bytes_per_sample * (double)p->model.max_batch;
  /* the weights and the KV of one longest request must fit a server */
  double longest = rs_llm_kv_bytes_seq(l, l->prompt_q + l->output_q);
  d->mem_need = d->mem_model + longest;
  d->mem_unknown = false;
  d->mem_need_head = d->mem_need * (1.0 + ctx->o->headroom);
  d->mem_basis = rs_fit_printf(ctx,
                               "weights of %s (%.2f G parameters, %.2f GiB) + KV of one %.0f-token "
                               "request (%.2f GiB); the KV of the running batch is sized per shape",
                               l->model, l->params / 1e9, gib(l->weight_bytes),
                               l->prompt_q + l->output_q, gib(longest));
  l->eff_compute = l->eff_bandwidth = RS_LLM_EFFICIENCY;
  l->eff_basis =
      "assumed, no TTFT or TPOT samples to fit; NVIDIA's NeMo Llama-2-7B figures reach 52-56% "
      "of peak bandwidth (docs/model.md)";
  l->kv_scale = 1.0;
  fit_efficiency(ctx, d);
  backtest(ctx, d);
  measured_kv(ctx, d);
  double budget_ms =
      !isnan(l->tpot_slo_ms) ? l->tpot_slo_ms : d->slo_ms / (l->output_q > 0 ? l->output_q : 1);
  l->decode_bw_need_gbps = l->weight_bytes / (budget_ms / 1e3) / l->eff_bandwidth / 1e9;
  return ctx->nomem ? rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory while fitting")
                    : RS_OK;
}

/* ---- one shape ---- */

/* Efficiency on the target: the source's fitted efficiency x how the
 * calibrated projection says the target's achieved share of its peak
 * compares (ratio = its busy time over the source's, one device each). */
static double project_eff(double eff, double src_peak, double tgt_peak, const rs_projection *pr) {
  if (pr == NULL || pr->path == RS_PROJ_SAME || !(pr->ratio > 0) || !(tgt_peak > 0))
    return eff;
  return fmin(EFF_MAX, fmax(EFF_MIN, eff * (src_peak / tgt_peak) / pr->ratio));
}

/* What memory leaves for the KV cache on one server, headroom kept. */
static double kv_capacity(const rs_fit_ctx *ctx, const rs_demand *d, const rs_candidate *c) {
  double h = 1.0 + ctx->o->headroom;
  double longest = d->mem_need - d->mem_model; /* in the need already */
  if (c->inst->category == RS_CATEGORY_CPU || c->inst->accelerator == NULL)
    return (c->mem_capacity - c->host_mem_need) / h + longest;
  return (c->mem_capacity - d->mem_need_head) / h + longest;
}

const char *rs_llm_memory_reason(rs_fit_ctx *ctx, const rs_demand *d, const rs_candidate *c) {
  const rs_llm_demand *l = &d->llm;
  double dev = c->inst->accelerator_memory_bytes;
  if (c->inst->category == RS_CATEGORY_CPU || c->inst->accelerator == NULL || !(dev > 0))
    return c->reason;
  return rs_fit_printf(ctx,
                       "weights %.1f GiB + KV %.2f GiB for one %.0f-token request (%.0f B/token) "
                       "= %.1f GiB, x %.2f headroom = %.1f GiB > %.1f GiB per device%s",
                       gib(d->mem_model), gib(d->mem_need - d->mem_model),
                       l->prompt_q + l->output_q, l->kv_bytes_per_token, gib(d->mem_need),
                       1.0 + ctx->o->headroom, gib(d->mem_need_head), gib(dev),
                       ctx->profile->model.shardable ? " (or its shard group)" : "");
}

static void capacity(const rs_llm_demand *l, rs_llm_fit *f);

bool rs_llm_prepare(rs_fit_ctx *ctx, const rs_demand *d, rs_candidate *c,
                    const rs_projection *pr_mem, const rs_projection *pr_comp, rs_constraint *k,
                    const char **why) {
  const rs_llm_demand *l = &d->llm;
  rs_llm_fit *f = &c->llm, src = {0};
  memset(f, 0, sizeof(*f));
  f->on = true;
  if (!figures(ctx, c->inst, c->devices_per_server, f) || !figures(ctx, d->source, 1, &src)) {
    *k = RS_CONSTRAINT_SPEC;
    *why = "no compute or bandwidth figure for this shape's device (or the source's)";
    return false;
  }
  rs_llm_fit one = {0};
  figures(ctx, c->inst, 1, &one);
  f->eff_bandwidth = project_eff(l->eff_bandwidth, src.bandwidth_gbps, one.bandwidth_gbps, pr_mem);
  f->eff_compute = project_eff(l->eff_compute, src.compute_tflops, one.compute_tflops, pr_comp);
  f->kv_capacity_bytes = kv_capacity(ctx, d, c);
  server s = server_of(f);
  double one_ms = decode_s(l, s, 1.0) * 1e3;
  double budget = !isnan(l->tpot_slo_ms) ? l->tpot_slo_ms : d->slo_ms / l->output_q;
  if (one_ms > budget) {
    *k = RS_CONSTRAINT_DECODE_BANDWIDTH;
    *why = rs_fit_printf(ctx,
                         "decode reads %.1f GB of weights per token: %.1f ms at %.0f GB/s (%.0f%% "
                         "of %.0f GB/s) > %s %.1f ms at any batch (needs %.0f GB/s)",
                         l->weight_bytes / 1e9, one_ms, s.bytes_s / 1e9, f->eff_bandwidth * 100,
                         f->bandwidth_gbps,
                         !isnan(l->tpot_slo_ms) ? "TPOT SLO" : "latency SLO / output tokens",
                         budget, l->decode_bw_need_gbps);
    return false;
  }
  double longest = rs_llm_kv_bytes_seq(l, l->prompt_q + l->output_q) * l->kv_scale;
  if (f->kv_capacity_bytes < longest) {
    *k = RS_CONSTRAINT_KV_CAPACITY;
    *why = rs_fit_printf(
        ctx,
        "weights %.1f GiB + KV %.2f GiB for one %.0f-token request (%.0f B/token) = %.1f GiB, "
        "x %.2f headroom = %.1f GiB > %.1f GiB per server",
        gib(d->mem_need), gib(longest), l->prompt_q + l->output_q, l->kv_bytes_per_token,
        gib(d->mem_need + longest), 1.0 + ctx->o->headroom,
        gib((d->mem_need + longest) * (1.0 + ctx->o->headroom)), gib(c->mem_capacity));
    return false;
  }
  capacity(l, f); /* the shape's alone: once, not at every replica count */
  return true;
}

/* The most requests/s one server sustains: the largest rate whose running
 * batch stays within what the KV memory (or the scheduler's cap) holds and
 * whose prefill steps leave the server time to decode (bisection on the
 * rate; the running batch grows with it). What binds: the batch cap when the
 * batch reaches it, prefill compute when the prefill steps fill the time
 * first. */
static void capacity(const rs_llm_demand *l, rs_llm_fit *f) {
  server s = server_of(f);
  double per_seq = rs_llm_kv_bytes_seq(l, resident_tokens(l)) * l->kv_scale;
  double kv_b = f->kv_capacity_bytes / per_seq;
  double cap_b = fmax(fmin((double)RS_LLM_MAX_SEQS, kv_b), 1.0);
  double lo = 0, hi = cap_b / (l->output_mean * decode_s(l, s, cap_b)); /* Little, no prefill */
  for (int i = 0; i < 60; i++) {
    double mid = (lo + hi) / 2;
    if (isnan(running_batch(l, s, mid, cap_b)))
      hi = mid;
    else
      lo = mid;
  }
  f->capacity_rps = lo;
  f->capacity_batch = running_batch(l, s, lo, cap_b);
  f->kv_batch_max = kv_b;
  if (!(f->capacity_batch >= 0.98 * cap_b))
    f->binds = l->prompt_mean >= l->output_mean ? "prefill compute" : "compute";
  else if (2.0 * l->active_params * cap_b / s.flops >=
           (l->weight_bytes + cap_b * per_seq) / s.bytes_s)
    f->binds = "compute";
  else
    f->binds = kv_b < RS_LLM_MAX_SEQS ? "KV capacity" : "decode bandwidth";
}

/* The constraint behind the load limit: what binds the capacity. */
static rs_constraint load_constraint(const rs_llm_fit *f) {
  if (f->binds == NULL)
    return RS_CONSTRAINT_UTILIZATION;
  if (strcmp(f->binds, "KV capacity") == 0)
    return RS_CONSTRAINT_KV_CAPACITY;
  if (strcmp(f->binds, "decode bandwidth") == 0)
    return RS_CONSTRAINT_DECODE_BANDWIDTH;
  return RS_CONSTRAINT_PREFILL_COMPUTE;
}

/* The prefill queue: one FCFS queue of prompts, each held for its chunks'
 * steps beside the running batch (prompt lengths' variability). */
static rs_queue prefill_queue(const rs_llm_demand *l, server s, double lambda, double b) {
  rs_queue pq = {1, lambda, prefill_steps_s(l, s, b, l->prompt_mean, NULL), 1.0, l->prompt_cs2};
  return pq;
}

/* TTFT at quantile q: the step running when a request arrives, then the
 * quantile of its wait behind other prompts plus its own prefill steps (the
 * quantile of the sum, prefill lognormal with the prompts' variability). */
static double ttft_ms(const rs_llm_demand *l, server s, double lambda, double b, double q) {
  rs_queue pq = prefill_queue(l, s, lambda, b);
  double s50 = pq.service_s / sqrt(1.0 + l->prompt_cs2);
  double r = rs_queue_response_quantile(&pq, s50, l->prompt_cs2, q);
  if (isnan(r))
    r = prefill_steps_s(l, s, b, l->prompt_q, NULL);
  return (r + decode_s(l, s, b)) * 1e3;
}

/* Share of requests meeting both LLM SLOs at the peak (independent): TTFT
 * from the tail of the prefill queue's response, TPOT from the chance the
 * batch (Poisson around the running batch) exceeds the largest batch whose
 * step meets the TPOT SLO. 1 for an SLO not set. */
static double goodput(const rs_llm_demand *l, server s, double lambda, double b) {
  double ok_ttft = 1.0, ok_tpot = 1.0;
  if (!isnan(l->ttft_slo_ms)) {
    rs_queue pq = prefill_queue(l, s, lambda, b);
    double t = l->ttft_slo_ms / 1e3 - decode_s(l, s, b);
    double tail = t > 0 ? rs_queue_response_tail(&pq, pq.service_s / sqrt(1.0 + l->prompt_cs2),
                                                 l->prompt_cs2, t)
                        : 1.0;
    ok_ttft = isnan(tail) ? 0.0 : 1.0 - tail;
  }
  if (!isnan(l->tpot_slo_ms)) {
    unsigned n = 0;
    while (n < 100000 && tpot_s(l, s, lambda, b, n + 1) * 1e3 <= l->tpot_slo_ms)
      n++;
    double p = exp(-b), cdf = p; /* P(Poisson(b) <= n) */
    for (unsigned k = 1; k <= n && cdf < 1.0 - 1e-12; k++) {
      p *= b / (double)k;
      cdf += p;
    }
    ok_tpot = b > 700 ? (n >= b ? 1.0 : 0.0) : fmin(1.0, cdf); /* exp(-b) underflows */
  }
  return ok_ttft * ok_tpot;
}

rs_constraint rs_llm_eval(rs_fit_ctx *ctx, const rs_demand *d, rs_candidate *c, unsigned replicas) {
  const rs_llm_demand *l = &d->llm;
  rs_llm_fit *f = &c->llm;
  server s = server_of(f);
  c->replicas = replicas;
  c->servers = replicas * c->servers_per_replica;
  double lambda = d->design_peak / (double)c->servers;
  c->service_s = 1.0 / f->capacity_rps;
  c->queue_s = c->service_s;
  c->util = lambda / f->capacity_rps;
  f->prefill_ms = prefill_s(l, s, l->prompt_mean) * 1e3;
  f->batch = running_batch(l, s, lambda, 1e6);
  f->prefill_share = isnan(f->batch) ? INFINITY : prefill_share_of(l, s, lambda, f->batch);
  if (isnan(f->batch) || f->prefill_share >= 1.0) {
    f->step_ms = f->tpot_ms = f->tpot_mean_ms = f->ttft_q_ms = f->e2e_q_ms = c->latency_q_ms =
        INFINITY;
    return load_constraint(f);
  }
  double tq = !isnan(l->tpot_slo_ms) ? l->tpot_quantile : d->slo_quantile;
  f->step_ms = decode_s(l, s, f->batch) * 1e3;
  f->tpot_mean_ms = tpot_s(l, s, lambda, f->batch, f->batch) * 1e3;
  f->kv_demand_bytes = kv_demand(l, f->batch, d->slo_quantile, &f->seqs_q);
  f->tpot_ms = tpot_quantile_s(l, s, lambda, f->batch, tq, d->slo_quantile) * 1e3;
  f->ttft_q_ms =
      ttft_ms(l, s, lambda, f->batch, !isnan(l->ttft_slo_ms) ? l->ttft_quantile : d->slo_quantile);
  /* end to end at the SLO quantile: TTFT there + the quantile's output
   * tokens x TPOT at the quantile's batch (documented: an upper bound, both
   * tails together) */
  double tpot_e2e = tpot_s(l, s, lambda, f->batch, poisson_quantile(f->batch, d->slo_quantile));
  f->e2e_q_ms = ttft_ms(l, s, lambda, f->batch, d->slo_quantile) + l->output_q * tpot_e2e * 1e3;
  c->latency_q_ms = f->e2e_q_ms;
  f->goodput = goodput(l, s, lambda, f->batch);
  c->service_q_ms = (prefill_s(l, s, l->prompt_q) * 1e3) + l->output_q * f->step_ms;
  c->wait_q_ms = fmax(c->latency_q_ms - c->service_q_ms, 0.0);
  c->p_wait = f->prefill_share;
  if (!(c->util <= ctx->o->max_util))
    return load_constraint(f);
  if (f->kv_demand_bytes > f->kv_capacity_bytes)
    return RS_CONSTRAINT_KV_CAPACITY;
  if (f->tpot_ms > l->tpot_slo_ms)
    return RS_CONSTRAINT_TPOT;
  if (f->ttft_q_ms > l->ttft_slo_ms)
    return RS_CONSTRAINT_TTFT;
  return f->e2e_q_ms > d->slo_ms ? RS_CONSTRAINT_LATENCY : RS_CONSTRAINT_NONE;
}

const char *rs_llm_capacity_why(rs_fit_ctx *ctx, const rs_demand *d, const rs_candidate *c) {
  const rs_llm_demand *l = &d->llm;
  const rs_llm_fit *f = &c->llm;
  server s = server_of(f);
  double tflop = 2.0 * l->active_params * (l->prompt_mean + l->output_mean) / 1e12;
  if (f->binds && strcmp(f->binds, "KV capacity") == 0) {
    double dur =
        l->output_mean * tpot_s(l, s, f->capacity_rps, f->capacity_batch, f->capacity_batch);
    return rs_fit_printf(ctx,
                         "%.0f sequences of %.0f tokens fit %.2f GiB of KV, each decoding %.0f "
                         "tokens for %.1f s; prefill steps take %.0f%% of the time",
                         f->kv_batch_max, resident_tokens(l), gib(f->kv_capacity_bytes),
                         l->output_mean, dur,
                         prefill_share_of(l, s, f->capacity_rps, f->capacity_batch) * 100);
  }
  if (f->binds && strcmp(f->binds, "decode bandwidth") == 0)
    return rs_fit_printf(ctx, "%d sequences at most, a %.1f ms step each token", RS_LLM_MAX_SEQS,
                         decode_s(l, s, f->capacity_batch) * 1e3);
  return rs_fit_printf(ctx, "%.1f TFLOP per request (2 x %.2f G x %.0f tokens) at %.1f TFLOPS",
                       tflop, l->active_params / 1e9, l->prompt_mean + l->output_mean,
                       s.flops / 1e12);
}

const char *rs_llm_failure(rs_fit_ctx *ctx, const rs_demand *d, const rs_candidate *c,
                           rs_constraint k) {
  const rs_llm_fit *f = &c->llm;
  const rs_llm_demand *l = &d->llm;
  const char *at = rs_fit_printf(ctx, "at %u replica%s", c->replicas, c->replicas == 1 ? "" : "s");
  bool load = c->util > ctx->o->max_util || !isfinite(c->latency_q_ms);
  if (load && (k == RS_CONSTRAINT_KV_CAPACITY || k == RS_CONSTRAINT_PREFILL_COMPUTE ||
               k == RS_CONSTRAINT_DECODE_BANDWIDTH || k == RS_CONSTRAINT_UTILIZATION))
    return rs_fit_printf(
        ctx, "load %.0f%% of the %.2f req/s a server sustains (%s: %s) > %.0f%% %s", c->util * 100,
        f->capacity_rps, f->binds, rs_llm_capacity_why(ctx, d, c), ctx->o->max_util * 100, at);
  switch (k) {
  case RS_CONSTRAINT_KV_CAPACITY:
    return rs_fit_printf(
        ctx, "KV %.1f GiB for %.0f sequences at p%.0f > %.1f GiB the weights leave %s",
        gib(f->kv_demand_bytes), f->seqs_q, d->slo_quantile * 100, gib(f->kv_capacity_bytes), at);
  case RS_CONSTRAINT_TPOT:
    return rs_fit_printf(ctx, "TPOT p%.0f %.1f ms > SLO %.0f ms %s", l->tpot_quantile * 100,
                         f->tpot_ms, l->tpot_slo_ms, at);
  case RS_CONSTRAINT_TTFT:
    return rs_fit_printf(ctx, "TTFT p%.0f %.1f ms > SLO %.0f ms %s", l->ttft_quantile * 100,
                         f->ttft_q_ms, l->ttft_slo_ms, at);
  case RS_CONSTRAINT_LATENCY:
    return rs_fit_printf(ctx, "p%.0f %.1f ms (TTFT + %.0f tokens x TPOT) > SLO %.0f ms %s",
                         d->slo_quantile * 100, f->e2e_q_ms, l->output_q, d->slo_ms, at);
  default: return "";
  }
}

static double ratio_or_inf(double a, double b) { return b > 0 && !isnan(b) ? a / b : 0.0; }

rs_constraint rs_llm_tightest(const rs_fit_ctx *ctx, const rs_demand *d, const rs_candidate *c) {
  const rs_llm_fit *f = &c->llm;
  const rs_llm_demand *l = &d->llm;
  struct {
    rs_constraint k;
    double used;
  } m[] = {
      {RS_CONSTRAINT_KV_CAPACITY, ratio_or_inf(f->kv_demand_bytes, f->kv_capacity_bytes)},
      {load_constraint(f), c->util / ctx->o->max_util},
      {RS_CONSTRAINT_TPOT, isnan(l->tpot_slo_ms) ? 0.0 : f->tpot_ms / l->tpot_slo_ms},
      {RS_CONSTRAINT_TTFT, isnan(l->ttft_slo_ms) ? 0.0 : f->ttft_q_ms / l->ttft_slo_ms},
      {RS_CONSTRAINT_LATENCY, f->e2e_q_ms / d->slo_ms},
  };
  size_t best = 0;
  for (size_t i = 1; i < sizeof(m) / sizeof(m[0]); i++)
    if (m[i].used > m[best].used)
      best = i;
  return m[best].k;
}

const char *rs_llm_binding_why(rs_fit_ctx *ctx, const rs_demand *d, const rs_candidate *c,
                               rs_constraint k) {
  const rs_llm_fit *f = &c->llm;
  const rs_llm_demand *l = &d->llm;
  double kv_used = ratio_or_inf(f->kv_demand_bytes, f->kv_capacity_bytes);
  if (k == load_constraint(f) && c->util / ctx->o->max_util >= kv_used)
    return rs_fit_printf(ctx,
                         "load %.0f%% of the %.2f req/s a server sustains (%s: %s), ceiling "
                         "%.0f%%",
                         c->util * 100, f->capacity_rps, f->binds, rs_llm_capacity_why(ctx, d, c),
                         ctx->o->max_util * 100);
  switch (k) {
  case RS_CONSTRAINT_KV_CAPACITY:
    return rs_fit_printf(
        ctx, "KV %.2f GiB for %.0f sequences at p%.0f of %.2f GiB the weights leave",
        gib(f->kv_demand_bytes), f->seqs_q, d->slo_quantile * 100, gib(f->kv_capacity_bytes));
  case RS_CONSTRAINT_TPOT:
    return rs_fit_printf(ctx, "TPOT p%.0f %.1f ms of the %g ms SLO", l->tpot_quantile * 100,
                         f->tpot_ms, l->tpot_slo_ms);
  case RS_CONSTRAINT_TTFT:
    return rs_fit_printf(ctx, "TTFT p%.0f %.1f ms of the %g ms SLO", l->ttft_quantile * 100,
                         f->ttft_q_ms, l->ttft_slo_ms);
  case RS_CONSTRAINT_LATENCY:
    return rs_fit_printf(ctx,
                         "p%.0f end to end %.1f ms (TTFT + %.0f output tokens x TPOT) of the %g "
                         "ms SLO",
                         d->slo_quantile * 100, f->e2e_q_ms, l->output_q, d->slo_ms);
  default: return NULL;
  }
}
