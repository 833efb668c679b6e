/* Streaming statistics over sample rows: the core every command uses.
 *
 * One pass, memory independent of the number of rows (unless `exact` is
 * set, when values are kept and their ranks selected to give exact quantiles: the test
 * oracle). Per metric: count, min, max, mean, standard deviation and
 * p50/p90/p95/p99 from an rs_sketch. Per-device metrics are also kept per
 * GPU index. Coverage (first/last time, typical interval, gaps, out-of-order
 * rows) is computed per series (file x device), per-window peaks of memory
 * per device. */
#ifndef RIGHTSIZE_STATS_H
#define RIGHTSIZE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rightsize/error.h"
#include "rightsize/metric.h"

typedef struct rs_stats_options {
  bool exact;              /* keep values and select ranks: exact quantiles */
  bool allow_unordered;    /* count backwards timestamps instead of failing */
  double window_s;         /* per-window peak width; default 3600 */
  double gap_factor;       /* an interval > gap_factor x typical is a gap; default 3 */
  size_t exact_max_values; /* cap on values kept in exact mode, all metrics together;
                              default RS_STATS_EXACT_MAX_VALUES */
  bool no_series;          /* skip the time series (rs_endpoint_stats.series stays empty):
                              for a run that draws no chart; false (the default): kept */
} rs_stats_options;

/* --exact keeps at most 2^27 values (1 GiB of doubles) in all: RS_LIMIT past it. */
#define RS_STATS_EXACT_MAX_VALUES ((size_t)1 << 27)

/* Quantile levels reported everywhere. */
#define RS_QUANTILE_COUNT 4
extern const double rs_quantile_levels[RS_QUANTILE_COUNT]; /* 0.50 0.90 0.95 0.99 */

typedef struct rs_metric_stats {
  uint64_t count; /* 0: the metric was not present */
  double min, max, mean, stddev;
  double q[RS_QUANTILE_COUNT]; /* at rs_quantile_levels */
  bool exact;                  /* q are exact (else within RS_SKETCH_ALPHA) */
  /* Share of the expected samples present, 0..1: count over the samples
   * its series should hold at the typical interval over the covered span
   * (rs_coverage.expected_per_series, times the devices carrying it for a
   * pooled per-device metric); NaN when the interval is unknown. */
  double present;
} rs_metric_stats;

/* Peaks per fixed window (aligned to the epoch: [k*w, (k+1)*w)). */
typedef struct rs_window_stats {
  uint64_t windows; /* windows with at least one value */
  double window_s;
  double p50, p95, max; /* over the window maxima */
} rs_window_stats;

typedef struct rs_coverage {
  uint64_t rows;              /* rows seen */
  uint64_t series;            /* distinct (file, device) series */
  double first, last;         /* epoch seconds; NaN when no rows */
  double duration_s;          /* last - first */
  double interval_s;          /* typical (median) interval between samples of a series */
  uint64_t gaps;              /* intervals > gap_factor x interval_s */
  double gap_s;               /* time lost in those gaps (beyond one interval each) */
  double longest_gap_s;       /* largest interval seen */
  uint64_t out_of_order;      /* rows older than the previous row of their series */
  uint64_t duplicates;        /* rows with the same time as the previous row of their series */
  double expected_per_series; /* samples one series should hold: covered span / interval + 1;
                                 NaN when the interval is unknown */
} rs_coverage;

/* A least-squares line y = intercept + slope x over the rows that carry
 * both values (x is always the request rate): the utilization law with an
 * idle baseline. n is 0 when no row carried both; slope and intercept are
 * NaN when fewer than two distinct x were seen. */
typedef struct rs_linear_fit {
  uint64_t n;
  double x_mean, y_mean;
  double x_stddev;
  double slope, intercept;
  double r2; /* coefficient of determination; NaN when y is constant */
} rs_linear_fit;

typedef struct rs_device_stats {
  int index;                          /* GPU index */
  rs_metric_stats m[RS_METRIC_COUNT]; /* only per-device metrics are filled */
  rs_window_stats mem_windows;        /* per-window peaks of GPU_MEM_USED */
  rs_linear_fit util_vs_rate;         /* GPU_UTIL (%) against REQUEST_RATE on the same rows */
} rs_device_stats;

/* Latency by load: the intervals (rows carrying a request rate and a
 * latency) grouped by their request rate into log-spaced buckets, each
 * RS_LOAD_STEP wide (2^(1/3): a bucket's rates differ by at most 26 %),
 * anchored at 1 req/s; rates of zero share one bucket. Per bucket: the
 * interval count, the mean rate, and the median over those intervals of
 * each per-interval latency quantile. Memory does not grow with the rows
 * (one small sketch per bucket and quantile); merging is exact. */
#define RS_LOAD_STEP 1.2599210498948732 /* 2^(1/3) */
#define RS_LOAD_BUCKETS 97              /* 2^-16 .. 2^16 req/s, plus zero */
#define RS_LOAD_LATENCIES 3             /* p50, p95, p99 */

typedef struct rs_load_bucket {
  uint64_t n;                        /* intervals in this bucket */
  double rate_lo, rate_hi;           /* edges, req/s (the zero bucket: 0 to the lowest edge) */
  double rate_mean;                  /* mean request rate of those intervals */
  uint64_t lat_n[RS_LOAD_LATENCIES]; /* intervals that carried p50, p95, p99 */
  double lat_ms[RS_LOAD_LATENCIES];  /* median of the per-interval p50, p95, p99; NaN none */
} rs_load_bucket;

typedef struct rs_load_stats {
  uint64_t intervals; /* rows with a request rate and a latency */
  size_t nbuckets;    /* populated buckets, in increasing rate */
  rs_load_bucket b[RS_LOAD_BUCKETS];
} rs_load_stats;

/* Utilization, memory and request rate over time, for charts: the rows
 * grouped into at most RS_SERIES_BUCKETS time buckets of one width (a power
 * of two seconds, aligned to the epoch, doubled whenever the history would
 * not fit, so memory does not grow with the rows), per bucket the min, mean
 * and max. Per device for the first RS_SERIES_DEVICES GPU indexes. */
#define RS_SERIES_BUCKETS 240
#define RS_SERIES_DEVICES 8

typedef struct rs_series_point {
  double min, mean, max; /* NaN when no row fell in the bucket */
} rs_series_point;

typedef struct rs_series {
  double t0;       /* start of bucket 0, epoch seconds */
  double width_s;  /* bucket width; 0 when no row carried a charted metric */
  size_t nbuckets; /* buckets from t0 to the last row's */
  size_t ndevices; /* devices charted, by increasing index */
  int device[RS_SERIES_DEVICES];
  rs_series_point util[RS_SERIES_DEVICES][RS_SERIES_BUCKETS]; /* GPU_UTIL, percent */
  rs_series_point mem[RS_SERIES_DEVICES][RS_SERIES_BUCKETS];  /* GPU_MEM_USED, bytes */
  rs_series_point rate[RS_SERIES_BUCKETS];                    /* REQUEST_RATE, req/s */
} rs_series;

typedef struct rs_endpoint_stats {
  rs_coverage coverage;
  rs_metric_stats m[RS_METRIC_COUNT]; /* pooled over all rows and devices */
  rs_window_stats gpu_mem_windows;    /* window peaks of the busiest device's memory */
  rs_window_stats host_mem_windows;
  size_t ndevices; /* devices seen, sorted by index */
  rs_device_stats devices[RS_MAX_DEVICES];
  int busiest_device; /* index with the highest max GPU memory, -1 if none */
  /* Request rate shape: peak/mean (max / mean), p99/mean, and burstiness as
   * the coefficient of variation (stddev / mean); NaN when mean is 0 or the
   * rate is absent. */
  double rate_peak_to_mean, rate_p99_to_mean, rate_cv;
  /* Host metrics against the request rate on the same rows. */
  rs_linear_fit cpu_vs_rate, net_rx_vs_rate, net_tx_vs_rate;
  /* An LLM server's typical TPOT (tpot_p50, ms) against the request rate:
   * the LLM model's back-test (docs/model.md "LLM serving"). */
  rs_linear_fit tpot_vs_rate;
  rs_load_stats load; /* latency by load bucket (the back-test's history) */
  rs_series series;   /* over time, downsampled (charts) */
} rs_endpoint_stats;

typedef struct rs_stats rs_stats;

/* Creates an accumulator; opts may be NULL for the defaults. The handle
 * belongs to the caller (rs_stats_free). */
rs_status rs_stats_new(rs_stats **out, const rs_stats_options *opts, rs_error *err);
void rs_stats_free(rs_stats *st);

/* Starts a new input file: series ordering restarts (files need not be in
 * time order relative to each other). path is borrowed for the whole run. */
void rs_stats_begin_file(rs_stats *st, const char *path);

/* Adds one row. Values must already be validated and in canonical units.
 * A timestamp older than the previous row of the same series is RS_INVALID
 * at s->path:s->line:s->t_col unless allow_unordered. */
rs_status rs_stats_add(rs_stats *st, const rs_sample *s, rs_error *err);

/* rs_stats_add with the rs_sample_sink signature (ctx is the rs_stats). */
rs_status rs_stats_sink(void *ctx, const rs_sample *s, rs_error *err);

/* Merges src into dst (same options). Coverage merges approximately: rows,
 * gaps and counts add, first/last widen. */
rs_status rs_stats_merge(rs_stats *dst, const rs_stats *src, rs_error *err);

/* Parts of one file read on threads (rs_ingest_file_parts): a new, empty
 * accumulator with like's options (not exact) for rows that follow other
 * rows of the same file, in file order. Freed with rs_stats_free. */
rs_status rs_stats_new_part(rs_stats **out, const rs_stats *like, rs_error *err);

/* Whether part's rows can follow dst's (the caller's accumulator, or a
 * part that part's rows follow) as one pass would read them: false
 * when a series of part starts before dst's last row of that series (a
 * timestamp that goes backwards across the cut, which one pass reports or
 * counts with the state a part does not have; the caller reads the file in
 * one pass instead). */
bool rs_stats_continues(const rs_stats *dst, const rs_stats *part);

/* Appends part (rs_stats_new_part, rs_stats_continues true) to dst: the
 * result is bit for bit what adding part's rows to dst one by one gives
 * (exact sums and sketches add, window peaks and series steps are joined
 * across the cut). RS_NOMEM only. */
rs_status rs_stats_append(rs_stats *dst, const rs_stats *part, rs_error *err);

/* Computes the summary into *out. The accumulator may still be merged or
 * finished again afterwards. What no reader looks at is left as it was:
 * the devices past out->ndevices and the series' buckets past
 * out->series.nbuckets (a short input's summary touches a few kilobytes
 * of the struct, not all of its 250 KB). */
rs_status rs_stats_finish(rs_stats *st, rs_endpoint_stats *out, rs_error *err);

#endif
