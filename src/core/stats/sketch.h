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

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "rightsize/error.h"

#define RS_SKETCH_ALPHA 0.01
#define RS_SKETCH_MIN_VALUE 1e-9

typedef struct rs_sketch {
  uint64_t *bins; /* counts for indexes [offset, offset + nbins) */
  int32_t offset;
  uint32_t nbins;
  uint64_t zero_count;
  uint64_t count;
  double min, max;
  double sum; /* of the values rs_sketch_add took (see rs_sketch_add_index) */
} rs_sketch;

void rs_sketch_init(rs_sketch *s);
void rs_sketch_release(rs_sketch *s);

/* The bucket index of v (>= RS_SKETCH_MIN_VALUE, finite): exactly
 * ceil(log(v) / log(gamma)) as libm's log() gives it, mostly without
 * calling it. Exposed for the tests. */
int32_t rs_sketch_index(double v);

/* The index by table, for the add path. Doubles of one binary exponent
 * split into RS_SKETCH_CELLS cells by their top mantissa bits; a cell is
 * narrower than a bucket (a ratio of at most 1 + 1/64 against gamma =
 * 1.0202), so at most one bucket edge falls inside it: the index of v is the
 * cell's first index, plus one from the edge on. A block of cells per
 * exponent is built on first use from rs_sketch_index (so the index is the
 * same, exactly) and published atomically; threads that build one at once
 * build the same block and one is kept.
 *
 * A cell is one word, so that a block is 512 bytes and the blocks of the
 * dozen exponents a row's values span stay in the first-level cache: the
 * low RS_SKETCH_CELL_SHIFT bits hold where the edge falls among the low
 * mantissa bits (their value at the edge, or 2^RS_SKETCH_CELL_SHIFT when
 * the edge is above the cell), the bits above them the first index plus
 * RS_SKETCH_INDEX_BIAS. */
#define RS_SKETCH_CELL_BITS 6
#define RS_SKETCH_CELLS (1 << RS_SKETCH_CELL_BITS)
#define RS_SKETCH_CELL_SHIFT (53 - RS_SKETCH_CELL_BITS) /* 47: the low mantissa bits, + 1 */
#define RS_SKETCH_INDEX_BIAS 2048                       /* indexes are above -1100 */

typedef uint64_t rs_sketch_cell;

/* Per biased exponent, the block of cells or NULL until first use. */
extern _Atomic(const rs_sketch_cell *) rs_sketch_cell_blocks[2048];

/* Builds and publishes the block of biased exponent e (v >= RS_SKETCH_MIN_VALUE);
 * NULL when out of memory. */
const rs_sketch_cell *rs_sketch_cells_build(unsigned e);

/* Adds v the slow way (the bin array grows, or the cells are not built). */
rs_status rs_sketch_add_slow(rs_sketch *s, double v);

/* Adds v (finite, >= 0) and sets *idx to its bin's index (rs_sketch_index),
 * or to INT32_MIN when v counts as zero or took the slow path. RS_NOMEM if
 * the bin array cannot grow. Inline: the row loop calls it for every value.
 * It leaves sum, which only rs_sketch_sum_above reads (the statistics'
 * intervals): a caller that reads it adds v itself, as rs_sketch_add does. */
static inline rs_status rs_sketch_add_index(rs_sketch *s, double v, int32_t *idx) {
  *idx = INT32_MIN;
  if (v >= RS_SKETCH_MIN_VALUE) {
    uint64_t b;
    memcpy(&b, &v, sizeof(b));
    const rs_sketch_cell *blk =
        atomic_load_explicit(&rs_sketch_cell_blocks[b >> 52], memory_order_acquire);
    if (__builtin_expect(blk == NULL, 0))
      return rs_sketch_add_slow(s, v);
    rs_sketch_cell c = blk[(b >> (52 - RS_SKETCH_CELL_BITS)) & (RS_SKETCH_CELLS - 1)];
    const uint64_t low = (UINT64_C(1) << RS_SKETCH_CELL_SHIFT) - 1;
    uint64_t at = b & (low >> 1), edge = c & low;
    int32_t i =
        (int32_t)((int64_t)(c >> RS_SKETCH_CELL_SHIFT) - RS_SKETCH_INDEX_BIAS + (at >= edge));
    uint32_t rel = (uint32_t)(i - s->offset);
    if (__builtin_expect(rel >= s->nbins, 0))
      return rs_sketch_add_slow(s, v);
    s->bins[rel]++;
    *idx = i;
  } else {
    s->zero_count++;
  }
  s->count++;
  if (v < s->min)
    s->min = v;
  if (v > s->max)
    s->max = v;
  return RS_OK;
}

/* Adds v (finite, >= 0), to sum too. RS_NOMEM if the bin array cannot grow. */
static inline rs_status rs_sketch_add(rs_sketch *s, double v) {
  int32_t idx;
  rs_status st = rs_sketch_add_index(s, v, &idx);
  if (st == RS_OK)
    s->sum += v;
  return st;
}

/* Adds v once more, where v (>= RS_SKETCH_MIN_VALUE) is a value s already
 * holds (so its min and max stay) and idx is its bin's index
 * (rs_sketch_index): the same as rs_sketch_add_index(s, v, &idx), without
 * finding the bin (sum left as that leaves it). For a value that repeats,
 * as a regular grid's interval does. */
static inline rs_status rs_sketch_add_again(rs_sketch *s, double v, int32_t idx) {
  uint32_t rel = (uint32_t)((int64_t)idx - s->offset);
  if (__builtin_expect(rel >= s->nbins, 0))
    return rs_sketch_add_index(s, v, &idx);
  s->bins[rel]++;
  s->count++;
  return RS_OK;
}

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
