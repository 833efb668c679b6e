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

/* X(NAME, key used in reports, canonical unit, per-device?, upper bound or 0) */
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
  X(BATCH_SIZE, "batch_size", "count", false, 0)

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
