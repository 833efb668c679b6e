/* Live samples from a metrics engine: `rightsize fetch prometheus`.
 *
 * Builds one PromQL range query per metric (docs/sources.md), with the
 * aggregation pushed down to the engine (max_over_time per step window for
 * memory, rate() for counters, histogram_quantile for latency), runs them
 * through a transport (include/rightsize/http.h), splits long ranges into
 * chunks under Prometheus' 11,000-points-per-series limit, and merges every
 * answer into rows in time order, exactly as a query_range file is read. */
#ifndef RIGHTSIZE_FETCH_H
#define RIGHTSIZE_FETCH_H

#include <stddef.h>
#include <stdint.h>

#include "rightsize/buf.h"
#include "rightsize/error.h"
#include "rightsize/http.h"
#include "rightsize/metric.h"

typedef struct rs_fetch_prom_options {
  const char *url;               /* API base: http://host:9090 (a path prefix is kept) */
  const char *selector;          /* label matchers in braces: {job="bert",namespace="ml"} */
  double start, end;             /* epoch seconds, start < end */
  double step_s;                 /* >= 1 */
  double rate_window_s;          /* rate() window; 0: max(5 min, step) */
  const char *requests_metric;   /* request counter; NULL: http_requests_total */
  const char *latency_histogram; /* histogram base name; NULL: http_request_duration_seconds */
  rs_http_request http;          /* everything but the url */
  const rs_http_retry *retry;    /* NULL: the defaults */
} rs_fetch_prom_options;

/* The longest range one fetch covers (400 days), and the most range queries
 * it sends (every metric times every chunk of at most 10,000 steps): a
 * fetch is bounded in time and in load on the server whatever the options. */
#define RS_FETCH_MAX_SINCE_S (400 * 86400.0)
#define RS_FETCH_MAX_REQUESTS 2000

typedef struct rs_fetch_result {
  uint64_t rows;   /* rows handed to the sink */
  size_t requests; /* HTTP requests that got an answer */
  size_t metrics;  /* metrics with at least one series */
} rs_fetch_result;

/* Checks a selector: "{...}" with balanced quotes; RS_USAGE otherwise. */
rs_status rs_fetch_check_selector(const char *selector, rs_error *err);

/* Runs the queries and calls sink once per row, in time order. Nothing is
 * handed to the sink before every answer has arrived and parsed, so a
 * failure never yields part of the data. Errors: RS_USAGE (start and end
 * not finite with start < end, a step below 1 s, a range over
 * RS_FETCH_MAX_SINCE_S), RS_LIMIT (a range that needs more than
 * RS_FETCH_MAX_REQUESTS queries, checked before the first one; a body over
 * the cap), RS_IO (no response, an HTTP error status), RS_SYNTAX (bad JSON),
 * RS_INVALID (a Prometheus "status":"error" answer, or no data at all). */
rs_status rs_fetch_prometheus(const rs_fetch_prom_options *opts, rs_transport *t,
                              rs_sample_sink sink, void *ctx, rs_fetch_result *res, rs_error *err);

/* A sink that writes rows as a native CSV (docs/samples-format.md) into the
 * rs_buf passed as ctx: a header, then one line per row, canonical units. */
rs_status rs_fetch_csv_sink(void *ctx, const rs_sample *s, rs_error *err);

#endif
