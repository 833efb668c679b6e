/* The metrics rightsize knows, and one sample row.
 *
 * Each metric has a canonical unit; ingestion converts whatever the source
 * used into it. Per-device metrics are kept per GPU as well as pooled. */
#ifndef RIGHTSIZE_METRIC_H
#define RIGHTSIZE_METRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rightsize/error.h"

/* X(NAME, key used in reports, canonical unit, per-device?, upper bound or 0)
 *
 * The LLM serving metrics (docs/samples-format.md): prompt_tokens and
 * output_tokens are per request (one row per request from a request log, or
 * an interval's mean), so their distribution is the requests' token
 * distribution; the token rates are per second over an interval; TTFT is the
 * time to the first output token, TPOT the time per output token after it
 * (inter-token latency); requests_running/_waiting are the serving stack's
 * running batch and its queue; kv_cache_usage the share of the KV pool in use.
 * At most 32 metrics (rs_sample.present is a 32-bit set). */
#define RS_METRIC_MAP(X)                                                                           \
  X(GPU_MEM_USED, "gpu_mem_used", "bytes", true, 0)                                                \
  X(GPU_MEM_TOTAL, "gpu_mem_total", "bytes", true, 0)                                              \
  X(GPU_UTIL, "gpu_util", "percent", true, 100)                                                    \
  X(CPU_UTIL, "cpu_util", "percent", false, 100)                                                   \
  X(HOST_MEM_USED, "host_mem_used", "bytes", false, 0)                                             \
  X(NET_RX, "net_rx", "bytes_per_s", false, 0)                                                     \
  X(NET_TX, "net_tx", "bytes_per_s", false, 0)                                                     \
  X(REQUEST_RATE, "request_rate", "requests_per_s", false, 0)                                      \
  X(LATENCY_P50, "latency_p50", "ms", false, 0)                                                    \
  X(LATENCY_P95, "latency_p95", "ms", false, 0)                                                    \
  X(LATENCY_P99, "latency_p99", "ms", false, 0)                                                    \
  X(BATCH_SIZE, "batch_size", "count", false, 0)                                                   \
  X(PROMPT_TOKENS, "prompt_tokens", "tokens", false, 0)                                            \
  X(OUTPUT_TOKENS, "output_tokens", "tokens", false, 0)                                            \
  X(PROMPT_TOKEN_RATE, "prompt_token_rate", "tokens_per_s", false, 0)                              \
  X(OUTPUT_TOKEN_RATE, "output_token_rate", "tokens_per_s", false, 0)                              \
  X(TTFT_P50, "ttft_p50", "ms", false, 0)                                                          \
  X(TTFT_P95, "ttft_p95", "ms", false, 0)                                                          \
  X(TTFT_P99, "ttft_p99", "ms", false, 0)                                                          \
  X(TPOT_P50, "tpot_p50", "ms", false, 0)                                                          \
  X(TPOT_P95, "tpot_p95", "ms", false, 0)                                                          \
  X(TPOT_P99, "tpot_p99", "ms", false, 0)                                                          \
  X(REQUESTS_RUNNING, "requests_running", "count", false, 0)                                       \
  X(REQUESTS_WAITING, "requests_waiting", "count", false, 0)                                       \
  X(KV_CACHE_USAGE, "kv_cache_usage", "percent", false, 100)

typedef enum {
#define RS_METRIC_ENUM(name, key, unit, per_device, upper) RS_METRIC_##name,
  RS_METRIC_MAP(RS_METRIC_ENUM)
#undef RS_METRIC_ENUM
      RS_METRIC_COUNT
} rs_metric;

/* Report key ("gpu_util"), canonical unit ("percent"), per-device flag, and
 * the largest valid value (0: no upper bound). */
const char *rs_metric_key(rs_metric m);
const char *rs_metric_unit(rs_metric m);
bool rs_metric_per_device(rs_metric m);
double rs_metric_upper(rs_metric m);

/* The smallest value above 0 any metric takes: below it a value is no
 * measurement (4.9e-324 is a denormal, not a latency). */
#define RS_METRIC_MIN_NONZERO 1e-9

/* The largest valid value of m in its canonical unit: its upper bound where
 * it has one (100 percent), else its unit's physical range (1 PiB of bytes,
 * 1e9 ms, ...; docs/samples-format.md, "Ranges"). */
double rs_metric_max(rs_metric m);

/* True when v is 0 or in [RS_METRIC_MIN_NONZERO, rs_metric_max(m)]; false for
 * negatives, NaN and infinities. */
bool rs_metric_in_range(rs_metric m, double v);

#define RS_MAX_DEVICES 64 /* GPU indexes 0..63 */

/* One sample row, in canonical units. A metric is present when its bit
 * (1u << metric) is set in `present`. Positions are for error messages. */
typedef struct rs_sample {
  double t;         /* epoch seconds, UTC */
  int gpu;          /* device index 0..RS_MAX_DEVICES-1, or -1 when not per-device */
  uint32_t present; /* bit per rs_metric */
  double v[RS_METRIC_COUNT];
  const char *path; /* borrowed; the file the row came from */
  size_t line;      /* 1-based line of the row */
  size_t t_col;     /* column of the timestamp field */
} rs_sample;

/* Where rows go: a consumer called once per row, in file order. A non-OK
 * return stops ingestion and is passed up unchanged. */
typedef rs_status (*rs_sample_sink)(void *ctx, const rs_sample *s, rs_error *err);

#endif
