/* The profile writer: the inverse of profile.c's reader, kept beside it so
 * a key added there is added here (the round-trip test in test_profile.c
 * fails otherwise). */
#include "rightsize/profile_write.h"

#include <math.h>

/* key: "escaped string" on its own line. */
static void put_string(rs_buf *out, const char *indent, const char *key, const char *s) {
  rs_buf_printf(out, "%s%s: ", indent, key);
  rs_buf_put_json_string(out, s); /* a JSON string is a YAML double-quoted scalar */
  rs_buf_putc(out, '\n');
}

static void put_model(rs_buf *out, const rs_profile *p) {
  const rs_kv_cache *kv = &p->model.kv;
  bool first = true;
  rs_buf_puts(out, "model:\n  families: [");
  for (unsigned i = 0; rs_family_names[i]; i++)
    if (p->model.families & (1u << i)) {
      rs_buf_printf(out, "%s%s", first ? "" : ", ", rs_family_names[i]);
      first = false;
    }
  rs_buf_puts(out, "]\n");
  if (p->model.framework)
    put_string(out, "  ", "framework", p->model.framework);
  if (!isnan(p->model.weights_bytes))
    rs_buf_printf(out, "  weights: %.17gB\n", p->model.weights_bytes);
  if (p->model.max_batch != 1)
    rs_buf_printf(out, "  max_batch: %llu\n", (unsigned long long)p->model.max_batch);
  if (!isnan(p->model.activation_bytes_per_sample))
    rs_buf_printf(out, "  activation_per_sample: %.17gB\n", p->model.activation_bytes_per_sample);
  if (p->model.bound != RS_BOUND_UNKNOWN)
    rs_buf_printf(out, "  bound: %s\n", rs_bound_name(p->model.bound));
  if (p->model.shardable)
    rs_buf_puts(out, "  shardable: true\n");
  if (p->model.preallocates)
    rs_buf_printf(out, "  preallocates: true\n  prealloc_fraction: %.17g\n",
                  p->model.prealloc_fraction);
  if (kv->set)
    rs_buf_printf(out,
                  "  kv_cache:\n    layers: %llu\n    kv_heads: %llu\n    head_dim: %llu\n"
                  "    bytes_per_value: %.17g\n    max_tokens: %llu\n",
                  (unsigned long long)kv->layers, (unsigned long long)kv->kv_heads,
                  (unsigned long long)kv->head_dim, kv->bytes_per_value,
                  (unsigned long long)kv->max_tokens);
}

static void put_deployment(rs_buf *out, const rs_profile *p) {
  rs_buf_puts(out, "current:\n");
  put_string(out, "  ", "provider", p->current.provider);
  put_string(out, "  ", "instance", p->current.instance);
  rs_buf_printf(out, "  replicas: %llu\n", (unsigned long long)p->current.replicas);
  if (p->current.region)
    put_string(out, "  ", "region", p->current.region);
  rs_buf_puts(out, "slo:\n");
  if (!isnan(p->slo.latency_p99_ms))
    rs_buf_printf(out, "  latency_p99: %.17gms\n", p->slo.latency_p99_ms);
  if (!isnan(p->slo.latency_p95_ms))
    rs_buf_printf(out, "  latency_p95: %.17gms\n", p->slo.latency_p95_ms);
  if (isnan(p->traffic.peak_rps) && p->traffic.growth == 1 && !p->traffic.rate_per_endpoint)
    return;
  rs_buf_puts(out, "traffic:\n");
  if (!isnan(p->traffic.peak_rps))
    rs_buf_printf(out, "  peak_rps: %.17g\n", p->traffic.peak_rps);
  if (p->traffic.growth != 1)
    rs_buf_printf(out, "  growth: %.17g\n", p->traffic.growth);
  if (p->traffic.rate_per_endpoint)
    rs_buf_puts(out, "  rate_scope: endpoint\n");
}

static void put_samples(rs_buf *out, const rs_profile *p) {
  rs_buf_puts(out, "samples:\n");
  for (size_t i = 0; i < p->nfiles; i++) {
    const rs_sample_file *f = &p->files[i];
    put_string(out, "  - ", "path", f->given);
    if (f->format != RS_FORMAT_AUTO)
      rs_buf_printf(out, "    format: %s\n", rs_format_name(f->format));
    if (f->mapping)
      put_string(out, "    ", "mapping", f->mapping);
  }
}

static void put_benchmarks(rs_buf *out, const rs_profile *p) {
  if (p->nbenchmarks == 0)
    return;
  rs_buf_puts(out, "benchmarks:\n");
  for (size_t i = 0; i < p->nbenchmarks; i++) {
    const rs_benchmark *b = &p->benchmarks[i];
    put_string(out, "  - ", "instance", b->instance);
    rs_buf_printf(out, "    batch: %llu\n    throughput_rps: %.17g\n", (unsigned long long)b->batch,
                  b->throughput_rps);
    if (!isnan(b->latency_p99_ms))
      rs_buf_printf(out, "    latency_p99: %.17gms\n", b->latency_p99_ms);
    if (!isnan(b->latency_p50_ms))
      rs_buf_printf(out, "    latency_p50: %.17gms\n", b->latency_p50_ms);
  }
}

rs_status rs_profile_write(rs_buf *out, const rs_profile *p, const char *comment) {
  if (p->nrows > 0)
    return RS_INVALID;
  if (comment)
    rs_buf_printf(out, "# %s\n", comment);
  rs_buf_puts(out, "schema: 1\n");
  put_string(out, "", "endpoint", p->endpoint);
  if (p->description)
    put_string(out, "", "description", p->description);
  rs_buf_printf(out, "source: %s\n", rs_source_name(p->source));
  put_model(out, p);
  put_deployment(out, p);
  put_samples(out, p);
  put_benchmarks(out, p);
  return out->failed ? RS_NOMEM : RS_OK;
}
