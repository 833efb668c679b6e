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

/* The values that count as zero are count less the bins' counts
 * (rs_sketch_zero_count): an add of one only counts it. */
typedef struct rs_sketch {
  uint64_t *bins; /* counts for indexes [offset, offset + nbins) */
  int32_t offset;
  uint32_t nbins;
  uint32_t base; /* offset + RS_SKETCH_INDEX_BIAS, for the add path */
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
 * cell's first index, plus one from the edge on.
 *
 * One table holds the cells of every exponent, by key = bits(v) >>
 * RS_SKETCH_KEY_SHIFT (the exponent and top mantissa bits), so one load
 * finds v's cell. A cell is the word W for which
 *   W + bits(v) = (first + RS_SKETCH_INDEX_BIAS) << RS_SKETCH_CELL_SHIFT
 *                 + 2^RS_SKETCH_CELL_SHIFT - e + m
 * (modulo 2^64), e and m the low RS_SKETCH_KEY_SHIFT bits of the edge and
 * of v (e = 2^RS_SKETCH_KEY_SHIFT when no edge is inside the cell): the sum
 * carries one into the bits from RS_SKETCH_CELL_SHIFT up exactly when m >=
 * e, so those bits are v's index plus the bias. The cells of an exponent
 * are built on first use from rs_sketch_index, so the index is the same,
 * exactly (test_cells_match_index checks every cell); threads that build
 * one at once store the same word. A cell not built yet is 0, which gives
 * key / 2 for the biased index: below every index a sketch's bins cover,
 * so the add takes the slow path, which builds the cells.
 *
 * The dozen exponents a row's values span are a dozen 512-byte blocks of
 * the table, which stay in the first-level cache. */
#define RS_SKETCH_CELL_BITS 6
#define RS_SKETCH_CELLS (1 << RS_SKETCH_CELL_BITS)
#define RS_SKETCH_KEY_SHIFT (52 - RS_SKETCH_CELL_BITS) /* 46: the low mantissa bits */
#define RS_SKETCH_CELL_SHIFT (RS_SKETCH_KEY_SHIFT + 1) /* 47: room for the carry */
/* Greater than key / 2 (below 2^16) by more than 2048, so that an unbuilt
 * cell's index is below -2048 where a sketch's bins start above -1100 (64
 * below the least index, -1036); and the largest index (35,490) plus one
 * and the bias stay below 2^17, the bits above RS_SKETCH_CELL_SHIFT. */
#define RS_SKETCH_INDEX_BIAS (65536 + 2048)

typedef uint64_t rs_sketch_cell;

/* The cells by key, 0 until built: 1 MiB of zero pages, of which a run
 * touches the few its values' exponents fall in. */
extern _Atomic rs_sketch_cell rs_sketch_cells[2048 << RS_SKETCH_CELL_BITS];

/* The cell of v (>= RS_SKETCH_MIN_VALUE, finite, as bits b). */
static inline rs_sketch_cell rs_sketch_cell_of(uint64_t b) {
  return atomic_load_explicit(&rs_sketch_cells[b >> RS_SKETCH_KEY_SHIFT], memory_order_relaxed);
}

/* Builds the cells of biased exponent e (v >= RS_SKETCH_MIN_VALUE). */
void rs_sketch_cells_build(unsigned e);

/* Adds v the slow way (the bin array grows, or the cells are not built). */
rs_status rs_sketch_add_slow(rs_sketch *s, double v);

/* The count and extremes an add of v updates, whether v is binned or not. */
static inline rs_status rs_sketch_tally(rs_sketch *s, double v) {
  s->count++;
  if (v < s->min)
    s->min = v;
  if (v > s->max)
    s->max = v;
  return RS_OK;
}

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
    uint32_t biased = (uint32_t)((rs_sketch_cell_of(b) + b) >> RS_SKETCH_CELL_SHIFT);
    uint32_t rel = biased - s->base;
    if (__builtin_expect(rel >= s->nbins, 0))
      return rs_sketch_add_slow(s, v);
    s->bins[rel]++;
    *idx = (int32_t)biased - RS_SKETCH_INDEX_BIAS;
    /* a tally of its own, not one after the if shared with the zero's:
     * gcc then ends this path in the extremes' compares, not in a jump */
    return rs_sketch_tally(s, v);
  }
  return rs_sketch_tally(s, v);
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

/* How many of its values count as zero (below RS_SKETCH_MIN_VALUE). */
uint64_t rs_sketch_zero_count(const rs_sketch *s);

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
