#include "sketch.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* gamma = (1 + alpha) / (1 - alpha) for alpha = 0.01. The logarithm is a
 * literal so the hot path does one log() per value and no division;
 * test_bucket_edges checks the index on bucket edges across the range. */
#define SKETCH_GAMMA ((1.0 + RS_SKETCH_ALPHA) / (1.0 - RS_SKETCH_ALPHA))
#define SKETCH_INV_LOG_GAMMA 49.99833328888678

/* Extra bins allocated beyond the needed range so that a slowly widening
 * stream does not reallocate on every new bucket. */
#define SKETCH_SLACK 64

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

static int32_t sketch_index(double v) { return (int32_t)ceil(log(v) * SKETCH_INV_LOG_GAMMA); }

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
  s->nbins = (uint32_t)n;
  return RS_OK;
}

rs_status rs_sketch_add(rs_sketch *s, double v) {
  assert(isfinite(v) && v >= 0.0);
  if (v >= RS_SKETCH_MIN_VALUE) {
    int32_t i = sketch_index(v);
    uint32_t rel = (uint32_t)((int64_t)i - s->offset);
    if (s->nbins == 0 || i < s->offset || rel >= s->nbins) {
      if (sketch_cover(s, i, i) != RS_OK)
        return RS_NOMEM;
      rel = (uint32_t)((int64_t)i - s->offset);
    }
    s->bins[rel]++;
  } else {
    s->zero_count++;
  }
  s->count++;
  s->sum += v;
  if (v < s->min)
    s->min = v;
  if (v > s->max)
    s->max = v;
  return RS_OK;
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
  dst->zero_count += src->zero_count;
  dst->count += src->count;
  dst->sum += src->sum;
  if (src->min < dst->min)
    dst->min = src->min;
  if (src->max > dst->max)
    dst->max = src->max;
  return RS_OK;
}

double rs_sketch_quantile(const rs_sketch *s, double q) {
  if (s->count == 0 || isnan(q))
    return NAN;
  if (q <= 0.0)
    return s->min;
  if (q >= 1.0)
    return s->max;
  uint64_t rank = (uint64_t)floor(q * (double)(s->count - 1));
  if (rank < s->zero_count)
    return sketch_clamp(s, 0.0);
  uint64_t seen = s->zero_count;
  for (uint32_t i = 0; i < s->nbins; i++) {
    seen += s->bins[i];
    if (seen > rank)
      return sketch_clamp(s, sketch_value((int32_t)((int64_t)s->offset + i)));
  }
  return s->max; /* unreachable while the counts agree */
}

/* The first bin (relative to offset) holding only values greater than x,
 * or nbins when there is none. x must be >= RS_SKETCH_MIN_VALUE. */
static uint32_t sketch_first_above(const rs_sketch *s, double x) {
  int64_t rel = (int64_t)sketch_index(x) + 1 - s->offset;
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
    return s->count - s->zero_count; /* zero-bucket values count as 0 */
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
