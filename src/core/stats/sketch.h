/* A relative-error quantile sketch for non-negative values (DDSketch,
 * Masson, Rim & Lee, VLDB 2019).
 *
 * Values fall into logarithmic buckets of ratio gamma = (1+a)/(1-a); a
 * quantile answers with its bucket's midpoint, which is within a relative
 * error a of the exact value at the same rank (RS_SKETCH_ALPHA = 1%). Values
 * below RS_SKETCH_MIN_VALUE count as zero. Memory grows with the spread of
 * the values (log range), not their number. Sketches with the same alpha
 * merge exactly, so files and threads combine by merging. */
#ifndef RIGHTSIZE_SKETCH_H
#define RIGHTSIZE_SKETCH_H

#include <stdint.h>

#include "rightsize/error.h"

#define RS_SKETCH_ALPHA 0.01
#define RS_SKETCH_MIN_VALUE 1e-9

typedef struct rs_sketch {
  uint64_t *bins; /* counts for indexes [offset, offset + nbins) */
  int32_t offset;
  uint32_t nbins;
  uint64_t zero_count;
  uint64_t count;
  double min, max, sum;
} rs_sketch;

void rs_sketch_init(rs_sketch *s);
void rs_sketch_release(rs_sketch *s);

/* The bucket index of v (>= RS_SKETCH_MIN_VALUE, finite): exactly
 * ceil(log(v) / log(gamma)) as libm's log() gives it, mostly without
 * calling it. Exposed for the tests. */
int32_t rs_sketch_index(double v);

/* Adds v (finite, >= 0; asserted). RS_NOMEM if the bin array cannot grow. */
rs_status rs_sketch_add(rs_sketch *s, double v);

/* Adds every value of src into dst. */
rs_status rs_sketch_merge(rs_sketch *dst, const rs_sketch *src);

/* The value at rank floor(q * (count - 1)) (0-based, q in [0,1]) within the
 * relative error bound; q = 0 and q = 1 return the exact min and max. NaN
 * when the sketch is empty. */
double rs_sketch_quantile(const rs_sketch *s, double q);

/* How many values are greater than x (counted by bucket, so values within
 * the error bound of x may fall either way). */
uint64_t rs_sketch_count_above(const rs_sketch *s, double x);

/* Approximate sum of the values greater than x (bucket midpoints). */
double rs_sketch_sum_above(const rs_sketch *s, double x);

#endif
