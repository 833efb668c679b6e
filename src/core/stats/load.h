/* Latency by load bucket (rs_load_stats in stats.h): the accumulator
 * behind it, private to the statistics. */
#ifndef RIGHTSIZE_LOAD_H
#define RIGHTSIZE_LOAD_H

#include "rightsize/stats.h"
#include "sketch.h"
#include "xsum.h"

typedef struct rs_load_slot {
  uint64_t n;
  rs_xsum rate_sum; /* exact, so merging keeps the mean's bits */
  rs_sketch lat[RS_LOAD_LATENCIES];
} rs_load_slot;

typedef struct rs_load_acc {
  rs_load_slot slot[RS_LOAD_BUCKETS];
} rs_load_acc;

void rs_load_init(rs_load_acc *a);
void rs_load_release(rs_load_acc *a);

/* The bucket a per-interval request rate falls in: 0 for zero (and rates
 * below the lowest edge), else 1 + floor(log_step(rate)) + 16 x 3 clamped. */
int rs_load_index(double rate);

/* Adds one interval: its rate and whichever of p50/p95/p99 it carries
 * (NaN for absent). Rows with no latency are not intervals here. */
rs_status rs_load_add(rs_load_acc *a, double rate, const double lat_ms[RS_LOAD_LATENCIES]);

rs_status rs_load_merge(rs_load_acc *dst, const rs_load_acc *src);

/* The populated buckets into *out, in increasing rate. */
void rs_load_finish(const rs_load_acc *a, rs_load_stats *out);

#endif
