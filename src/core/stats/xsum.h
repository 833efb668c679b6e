/* Exact sums of metric values and of their products, private to the
 * statistics (docs/statistics.md, "Merging").
 *
 * A floating-point running sum (or Welford's running mean) depends on the
 * order of the values, so statistics folded in pieces (files, threads)
 * and merged would differ in their last bits from one pass. These sums are
 * fixed-point integers wide enough to hold every metric value exactly:
 * a valid value is 0 or at least 1e-9 (rs_metric_in_range), so it is a
 * whole multiple of 2^-82, and at most 2^50 (1 PiB); a product of two is a
 * whole multiple of 2^-164. rs_xsum keeps 256 bits with the lowest worth
 * 2^-96, rs_xsum2 512 bits worth 2^-192 each, so the sum of up to 2^64
 * values (or products) below 2^100 is exact, addition is associative and
 * merging is integer addition: the same values give the same bits in any
 * order and any split. A value below 2^-96 loses the bits below it, and a
 * value of 2^100 or more counts as 2^100 (neither is a valid metric
 * value); the result is still the same in every order. */
#ifndef RIGHTSIZE_XSUM_H
#define RIGHTSIZE_XSUM_H

#include <stdint.h>

#define RS_XSUM_WORDS 4
#define RS_XSUM2_WORDS 8

typedef struct rs_xsum {
  uint64_t w[RS_XSUM_WORDS]; /* little-endian words, the lowest bit worth 2^-96 */
} rs_xsum;

typedef struct rs_xsum2 {
  uint64_t w[RS_XSUM2_WORDS]; /* the lowest bit worth 2^-192 */
} rs_xsum2;

/* Adds v (finite, >= 0; asserted). */
void rs_xsum_add(rs_xsum *s, double v);

/* Adds the exact product x * y (both finite, >= 0; asserted). */
void rs_xsum2_add(rs_xsum2 *s, double x, double y);

void rs_xsum_merge(rs_xsum *dst, const rs_xsum *src);
void rs_xsum2_merge(rs_xsum2 *dst, const rs_xsum2 *src);

/* The sum, correctly rounded to a double. */
double rs_xsum_value(const rs_xsum *s);

/* The centred co-moment sum over n pairs, sum (x - mean x)(y - mean y) =
 * (n Sxy - Sx Sy) / n, from the exact sums sx, sy and sxy: the integer
 * n Sxy - Sx Sy is exact, so the result is rounded only by the division
 * (a constant series gives exactly 0). 0 when n is 0. */
double rs_xsum_comoment(uint64_t n, const rs_xsum *sx, const rs_xsum *sy, const rs_xsum2 *sxy);

#endif
