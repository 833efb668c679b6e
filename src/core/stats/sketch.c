#include "sketch.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* gamma = (1 + alpha) / (1 - alpha) for alpha = 0.01. The logarithm is a
 * literal so the index needs no division; test_bucket_edges checks the
 * index on bucket edges across the range. */
#define SKETCH_GAMMA ((1.0 + RS_SKETCH_ALPHA) / (1.0 - RS_SKETCH_ALPHA))
#define SKETCH_INV_LOG_GAMMA 49.99833328888678

/* Extra bins allocated beyond the needed range so that a slowly widening
 * stream does not reallocate on every new bucket. */
#define SKETCH_SLACK 64

/* The reference mapping: the bucket of v is ceil(log(v) / log(gamma)). */
static int32_t sketch_index_libm(double v) { return (int32_t)ceil(log(v) * SKETCH_INV_LOG_GAMMA); }

/* The same index without a libm log() per value. The reference is
 * monotonic in v, so bucket i starts at a threshold T(i), the least double
 * whose reference index is i or more, and the index of v is the largest i
 * with T(i) <= v. An estimate narrows i to three candidates and two
 * comparisons with thresholds pick the one the reference gives, so every
 * value lands in exactly the bucket it did with log() (and
 * test_index_matches_libm checks it).
 *
 * The estimate: v = 2^e * m, m in [1, 2); the top SKETCH_LOG_BITS bits of m
 * pick a table cell centred on c, and log(v) ~ e ln 2 + log(c) + (m - c)/c,
 * off by less than ((m - c)/c)^2 / 2 < 2e-6, which is 1e-4 of a bucket: the
 * true index is the estimate's ceiling or a neighbour. Thresholds are found
 * on first use by bisection over the reference (a few dozen log() calls
 * each, a few hundred buckets in a typical run) and kept in a table over
 * the whole index range (written atomically: threads may fill it at once,
 * and any two fills agree). */
#define SKETCH_LOG_BITS 8
#define SKETCH_LOG_CELLS (1 << SKETCH_LOG_BITS)
#define SKETCH_LN2 0.6931471805599453094
/* Indexes of values from RS_SKETCH_MIN_VALUE to DBL_MAX, with a margin. */
#define SKETCH_INDEX_LO (-1040)
#define SKETCH_INDEX_HI 35500

static double sketch_log_c[SKETCH_LOG_CELLS]; /* log(c) per cell */
static double sketch_inv_c[SKETCH_LOG_CELLS]; /* 1 / c */
static double sketch_c[SKETCH_LOG_CELLS];     /* c = 1 + (j + 0.5) / cells */
static pthread_once_t sketch_once = PTHREAD_ONCE_INIT;
static atomic_bool sketch_ready;
/* T(i) as double bits, 0 until found. */
static _Atomic uint64_t sketch_edge[SKETCH_INDEX_HI - SKETCH_INDEX_LO + 1];

static void sketch_tables(void) {
  for (int j = 0; j < SKETCH_LOG_CELLS; j++) {
    double c = 1.0 + ((double)j + 0.5) / SKETCH_LOG_CELLS;
    sketch_c[j] = c;
    sketch_inv_c[j] = 1.0 / c;
    sketch_log_c[j] = log(c);
  }
  atomic_store_explicit(&sketch_ready, true, memory_order_release);
}

static double bits_double(uint64_t b) {
  double d;
  memcpy(&d, &b, sizeof(d));
  return d;
}

static uint64_t double_bits(double d) {
  uint64_t b;
  memcpy(&b, &d, sizeof(b));
  return b;
}

/* A bracket of T(i) galloping out from the double g one ulp, then 2, 4,
 * ...: index(*lo) < i <= index(*hi). exp's guess is within a few ulps of
 * T(i), so this takes a handful of log() calls where a bisection over a
 * fixed window took two dozen (a one-shot run builds a few hundred edges).
 * false when the steps run away (never for a finite guess in range). */
static bool sketch_bracket(int32_t i, uint64_t g, uint64_t *lo, uint64_t *hi) {
  const uint64_t top = double_bits(DBL_MAX);
  uint64_t step = 1;
  if (sketch_index_libm(bits_double(g)) >= i) {
    for (*hi = g; step < (UINT64_C(1) << 40) && *hi > step; step *= 2) {
      *lo = *hi - step;
      if (sketch_index_libm(bits_double(*lo)) < i)
        return true;
      *hi = *lo;
    }
    return false;
  }
  for (*lo = g; step < (UINT64_C(1) << 40) && top - *lo > step; step *= 2) {
    *hi = *lo + step;
    if (sketch_index_libm(bits_double(*hi)) >= i)
      return true;
    *lo = *hi;
  }
  return false;
}

/* The least positive double whose reference index is >= i (bisection over
 * the bits of positive doubles, which order as integers); INFINITY past
 * DBL_MAX. */
static double sketch_threshold(int32_t i) {
  double guess = exp(((double)i - 1.0) / SKETCH_INV_LOG_GAMMA);
  uint64_t lo, hi;
  if (!(isfinite(guess) && guess > 0.0 && sketch_bracket(i, double_bits(guess), &lo, &hi))) {
    lo = double_bits(guess * (1.0 - 1e-9));
    hi = double_bits(guess * (1.0 + 1e-9));
    if (!isfinite(guess) || sketch_index_libm(bits_double(lo)) >= i)
      lo = 1; /* the smallest subnormal: its index is far below any i here */
    if (!isfinite(bits_double(hi)) || sketch_index_libm(bits_double(hi)) < i) {
      hi = double_bits(DBL_MAX);
      if (sketch_index_libm(DBL_MAX) < i)
        return INFINITY;
    }
  }
  while (hi - lo > 1) { /* index(lo) < i <= index(hi) */
    uint64_t mid = lo + (hi - lo) / 2;
    if (sketch_index_libm(bits_double(mid)) >= i)
      hi = mid;
    else
      lo = mid;
  }
  return bits_double(hi);
}

static __attribute__((noinline)) uint64_t sketch_edge_fill(int32_t i) {
  uint64_t b = double_bits(sketch_threshold(i));
  atomic_store_explicit(&sketch_edge[i - SKETCH_INDEX_LO], b, memory_order_relaxed);
  return b;
}

static inline double sketch_edge_at(int32_t i) {
  uint64_t b = atomic_load_explicit(&sketch_edge[i - SKETCH_INDEX_LO], memory_order_relaxed);
  return bits_double(b != 0 ? b : sketch_edge_fill(i));
}

int32_t rs_sketch_index(double v) {
  if (!atomic_load_explicit(&sketch_ready, memory_order_acquire))
    pthread_once(&sketch_once, sketch_tables);
  uint64_t bits = double_bits(v);
  /* v >= RS_SKETCH_MIN_VALUE: normal, positive and finite. */
  int e = (int)(bits >> 52) - 1023;
  int j = (int)((bits >> (52 - SKETCH_LOG_BITS)) & (SKETCH_LOG_CELLS - 1));
  double m = bits_double((bits & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);
  double y = ((double)e * SKETCH_LN2 + sketch_log_c[j] + (m - sketch_c[j]) * sketch_inv_c[j]) *
             SKETCH_INV_LOG_GAMMA;
  /* ceil(y) for y not an integer; truncation of a positive number floors */
  int32_t i = (int32_t)(y - (double)SKETCH_INDEX_LO) + SKETCH_INDEX_LO + 1;
  if (i <= SKETCH_INDEX_LO || i >= SKETCH_INDEX_HI)
    return sketch_index_libm(v); /* unreachable for v in range */
  if (v < sketch_edge_at(i))
    return i - 1;
  if (v >= sketch_edge_at(i + 1))
    return i + 1;
  return i;
}

void rs_sketch_init(rs_sketch *s) {
  memset(s, 0, sizeof(*s));
  s->min = INFINITY;
  s->max = -INFINITY;
}

void rs_sketch_release(rs_sketch *s) {
  if (s == NULL)
    return;
  free(s->bins);
  rs_sketch_init(s);
}

/* The bucket's representative value: the midpoint that keeps every value in
 * (gamma^(i-1), gamma^i] within relative error alpha. */
static double sketch_value(int32_t i) {
  return 2.0 * pow(SKETCH_GAMMA, (double)i) / (SKETCH_GAMMA + 1.0);
}

static double sketch_clamp(const rs_sketch *s, double v) {
  if (v < s->min)
    return s->min;
  if (v > s->max)
    return s->max;
  return v;
}

/* Grows the bin array to cover indexes [lo, hi] as well as what it holds. */
static rs_status sketch_cover(rs_sketch *s, int32_t lo, int32_t hi) {
  int64_t old_lo = s->offset, old_hi = (int64_t)s->offset + s->nbins - 1;
  int64_t new_lo = lo, new_hi = hi;
  if (s->nbins > 0) {
    if (lo >= old_lo && hi <= old_hi)
      return RS_OK;
    if (lo < old_lo)
      new_lo = lo - SKETCH_SLACK;
    else
      new_lo = old_lo;
    if (hi > old_hi)
      new_hi = (int64_t)hi + SKETCH_SLACK;
    else
      new_hi = old_hi;
  } else {
    new_lo = (int64_t)lo - SKETCH_SLACK / 2;
    new_hi = (int64_t)hi + SKETCH_SLACK / 2;
  }
  size_t n = (size_t)(new_hi - new_lo + 1);
  uint64_t *bins = calloc(n, sizeof(*bins));
  if (bins == NULL)
    return RS_NOMEM;
  if (s->nbins > 0)
    memcpy(bins + (old_lo - new_lo), s->bins, (size_t)s->nbins * sizeof(*bins));
  free(s->bins);
  s->bins = bins;
  s->offset = (int32_t)new_lo;
  s->base = (uint32_t)(s->offset + RS_SKETCH_INDEX_BIAS);
  s->nbins = (uint32_t)n;
  return RS_OK;
}

_Atomic rs_sketch_cell rs_sketch_cells[2048 << RS_SKETCH_CELL_BITS];

/* The cell of key k (v >> RS_SKETCH_KEY_SHIFT) whose first index is lo and
 * whose edge is off doubles past its first one (span: none inside it), as
 * sketch.h describes it. Unsigned arithmetic, so modulo 2^64: adding the
 * bits of v takes the key's bits away again. */
static rs_sketch_cell sketch_cell_word(uint64_t k, int32_t lo, uint64_t off) {
  const uint64_t carry = UINT64_C(1) << RS_SKETCH_CELL_SHIFT;
  return ((uint64_t)(lo + RS_SKETCH_INDEX_BIAS) << RS_SKETCH_CELL_SHIFT) + carry - off -
         (k << RS_SKETCH_KEY_SHIFT);
}

void rs_sketch_cells_build(unsigned e) {
  assert(e >= 993 && e < 2047); /* RS_SKETCH_MIN_VALUE is 1.07 x 2^-30, biased 993 */
  for (uint64_t j = 0; j < RS_SKETCH_CELLS; j++) {
    uint64_t k = ((uint64_t)e << RS_SKETCH_CELL_BITS) | j;
    uint64_t first = k << RS_SKETCH_KEY_SHIFT;
    const uint64_t span = UINT64_C(1) << RS_SKETCH_KEY_SHIFT; /* doubles per cell */
    int32_t lo = rs_sketch_index(bits_double(first));
    uint64_t edge = double_bits(sketch_edge_at(lo + 1));
    /* at most one edge inside the cell (see sketch.h) */
    assert(rs_sketch_index(bits_double(first | (span - 1))) <= lo + 1);
    assert(lo + RS_SKETCH_INDEX_BIAS > 65535 && lo + 1 + RS_SKETCH_INDEX_BIAS < (1 << 17));
    /* the edge's offset among the cell's doubles, or span: none of them */
    uint64_t off = edge >= first && edge - first < span ? edge - first : span;
    atomic_store_explicit(&rs_sketch_cells[k], sketch_cell_word(k, lo, off), memory_order_relaxed);
  }
}

rs_status rs_sketch_add_slow(rs_sketch *s, double v) {
  assert(isfinite(v) && v >= RS_SKETCH_MIN_VALUE);
  uint64_t b = double_bits(v);
  if (rs_sketch_cell_of(b) == 0)
    rs_sketch_cells_build((unsigned)(b >> 52));
  int32_t i = rs_sketch_index(v);
  if ((s->nbins == 0 || i < s->offset || (uint32_t)((int64_t)i - s->offset) >= s->nbins) &&
      sketch_cover(s, i, i) != RS_OK)
    return RS_NOMEM;
  return rs_sketch_add_index(s, v, &i); /* the inline path, which now finds both */
}

rs_status rs_sketch_merge(rs_sketch *dst, const rs_sketch *src) {
  assert(dst != src);
  if (src->count == 0)
    return RS_OK;
  if (src->nbins > 0) {
    int32_t hi = (int32_t)((int64_t)src->offset + src->nbins - 1);
    if (sketch_cover(dst, src->offset, hi) != RS_OK)
      return RS_NOMEM;
    uint64_t *base = dst->bins + ((int64_t)src->offset - dst->offset);
    for (uint32_t i = 0; i < src->nbins; i++)
      base[i] += src->bins[i];
  }
  dst->count += src->count;
  dst->sum += src->sum;
  if (src->min < dst->min)
    dst->min = src->min;
  if (src->max > dst->max)
    dst->max = src->max;
  return RS_OK;
}

/* The bins' counts added up. */
static uint64_t sketch_binned(const rs_sketch *s) {
  uint64_t n = 0;
  for (uint32_t i = 0; i < s->nbins; i++)
    n += s->bins[i];
  return n;
}

uint64_t rs_sketch_zero_count(const rs_sketch *s) { return s->count - sketch_binned(s); }

/* The bin of rank r is the first, counting the zeros below every bin, at
 * which the values up to it pass r: the lowest bin i with fewer than
 * count - r values above it. Walked down from the top (the quantiles read
 * are mostly high ones), adding the values above as it goes, with no
 * separate count of the zeros; below every bin, the rank is a zero's. */
double rs_sketch_quantile(const rs_sketch *s, double q) {
  if (s->count == 0 || isnan(q))
    return NAN;
  if (q <= 0.0)
    return s->min;
  if (q >= 1.0)
    return s->max;
  uint64_t rank = (uint64_t)floor(q * (double)(s->count - 1));
  uint64_t need = s->count - rank, above = 0; /* need >= 1 */
  for (uint32_t i = s->nbins; i-- > 0;) {
    above += s->bins[i]; /* the values at or above bin i */
    if (above >= need)
      return sketch_clamp(s, sketch_value((int32_t)((int64_t)s->offset + i)));
  }
  return sketch_clamp(s, 0.0);
}

/* The first bin (relative to offset) holding only values greater than x,
 * or nbins when there is none. x must be >= RS_SKETCH_MIN_VALUE. */
static uint32_t sketch_first_above(const rs_sketch *s, double x) {
  int64_t rel = (int64_t)rs_sketch_index(x) + 1 - s->offset;
  if (rel < 0)
    return 0;
  if (rel > (int64_t)s->nbins)
    return s->nbins;
  return (uint32_t)rel;
}

uint64_t rs_sketch_count_above(const rs_sketch *s, double x) {
  if (s->count == 0 || x >= s->max)
    return 0;
  if (x < s->min)
    return s->count;
  if (x < RS_SKETCH_MIN_VALUE)
    return sketch_binned(s); /* zero-bucket values count as 0 */
  uint64_t n = 0;
  for (uint32_t i = sketch_first_above(s, x); i < s->nbins; i++)
    n += s->bins[i];
  return n;
}

double rs_sketch_sum_above(const rs_sketch *s, double x) {
  if (s->count == 0 || x >= s->max)
    return 0.0;
  if (x < s->min)
    return s->sum;
  uint32_t first = x < RS_SKETCH_MIN_VALUE ? 0 : sketch_first_above(s, x);
  double sum = 0.0;
  for (uint32_t i = first; i < s->nbins; i++)
    if (s->bins[i] > 0)
      sum += (double)s->bins[i] * sketch_clamp(s, sketch_value((int32_t)((int64_t)s->offset + i)));
  return sum;
}
