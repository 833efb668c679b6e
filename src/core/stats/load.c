/* Latency by load bucket (load.h, docs/statistics.md "Latency by load"). */
#include "load.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Buckets per doubling of the rate, and how many doublings each side of
 * 1 req/s the fixed array covers. */
#define PER_DOUBLING 3
#define DOUBLINGS 16

void rs_load_init(rs_load_acc *a) {
  memset(a, 0, sizeof(*a));
  for (int i = 0; i < RS_LOAD_BUCKETS; i++)
    for (int q = 0; q < RS_LOAD_LATENCIES; q++)
      rs_sketch_init(&a->slot[i].lat[q]);
}

void rs_load_release(rs_load_acc *a) {
  for (int i = 0; i < RS_LOAD_BUCKETS; i++)
    for (int q = 0; q < RS_LOAD_LATENCIES; q++)
      rs_sketch_release(&a->slot[i].lat[q]);
}

/* The reference mapping, with libm's log2. */
static int load_index_libm(double rate) {
  const double lowest = ldexp(1.0, -DOUBLINGS);
  if (!(rate >= lowest))
    return 0;
  /* A tiny epsilon keeps exact powers of the step in their own bucket
   * despite log2 rounding. */
  double k = floor(log2(rate) * PER_DOUBLING + 1e-9) + DOUBLINGS * PER_DOUBLING;
  /* Clamped before the conversion: an int from a double past its range
   * (an infinite rate) is undefined. */
  if (k > RS_LOAD_BUCKETS - 2)
    k = RS_LOAD_BUCKETS - 2;
  return 1 + (int)k;
}

/* The same without a log2 per row. Within one binary exponent e (rates in
 * [2^e, 2^(e+1))) the reference is monotonic and spans at most four
 * indexes, from that of 2^e up: the index of a rate is the first one's
 * plus how many of three thresholds (the least double of each next index,
 * found once by bisection over the reference) it reaches. Every rate then
 * gets exactly the reference's index (test_load_index_matches_libm).
 * Rates from 2^DOUBLINGS up all take the last bucket. */
#define LOAD_EXPS (2 * DOUBLINGS)
static int load_first[LOAD_EXPS];
static double load_edge[LOAD_EXPS][3];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static atomic_bool load_ready; /* the tables are built: no pthread_once call per row */

/* The least double in [lo, hi] whose reference index is at least i (hi
 * when none below it is). */
static double load_threshold(double lo, double hi, int i) {
  uint64_t a, b;
  memcpy(&a, &lo, sizeof(a));
  memcpy(&b, &hi, sizeof(b));
  if (load_index_libm(lo) >= i)
    return lo;
  while (b - a > 1) { /* index(a) < i, and i <= index(b) or b is hi */
    uint64_t mid = a + (b - a) / 2;
    double m;
    memcpy(&m, &mid, sizeof(m));
    if (load_index_libm(m) >= i)
      b = mid;
    else
      a = mid;
  }
  memcpy(&hi, &b, sizeof(hi));
  return hi;
}

static void load_tables(void) {
  for (int j = 0; j < LOAD_EXPS; j++) {
    double lo = ldexp(1.0, j - DOUBLINGS), hi = nextafter(2.0 * lo, 0.0);
    load_first[j] = load_index_libm(lo);
    for (int q = 0; q < 3; q++) {
      /* above hi when the exponent holds fewer indexes */
      double edge = load_threshold(lo, hi, load_first[j] + q + 1);
      load_edge[j][q] = load_index_libm(edge) >= load_first[j] + q + 1 ? edge : INFINITY;
    }
  }
  atomic_store_explicit(&load_ready, true, memory_order_release);
}

int rs_load_index(double rate) {
  if (!(rate >= 0x1p-16)) /* 2^-DOUBLINGS */
    return 0;
  if (rate >= 0x1p16)
    return RS_LOAD_BUCKETS - 1;
  if (!atomic_load_explicit(&load_ready, memory_order_acquire))
    pthread_once(&load_once, load_tables);
  uint64_t b;
  memcpy(&b, &rate, sizeof(b));
  int j = (int)(b >> 52) - 1023 + DOUBLINGS; /* rate in [2^(j - DOUBLINGS), twice that) */
  const double *t = load_edge[j];
  return load_first[j] + (rate >= t[0]) + (rate >= t[1]) + (rate >= t[2]);
}

rs_status rs_load_add(rs_load_acc *a, double rate, const double lat_ms[RS_LOAD_LATENCIES]) {
  rs_load_slot *s = &a->slot[rs_load_index(rate)];
  /* The slot's address kept in a register: without this gcc works it out
   * again (index x 232 + a) for each sketch's fields. */
  __asm__("" : "+r"(s));
  bool any = false;
  for (int q = 0; q < RS_LOAD_LATENCIES; q++)
    any = any || !isnan(lat_ms[q]);
  if (!any)
    return RS_OK;
  int32_t idx;
  for (int q = 0; q < RS_LOAD_LATENCIES; q++) /* the sketches' sums are not read */
    if (!isnan(lat_ms[q]) && rs_sketch_add_index(&s->lat[q], lat_ms[q], &idx) != RS_OK)
      return RS_NOMEM;
  s->n++;
  rs_xsum_add(&s->rate_sum, rate);
  return RS_OK;
}

rs_status rs_load_merge(rs_load_acc *dst, const rs_load_acc *src) {
  for (int i = 0; i < RS_LOAD_BUCKETS; i++) {
    for (int q = 0; q < RS_LOAD_LATENCIES; q++)
      if (rs_sketch_merge(&dst->slot[i].lat[q], &src->slot[i].lat[q]) != RS_OK)
        return RS_NOMEM;
    dst->slot[i].n += src->slot[i].n;
    rs_xsum_merge(&dst->slot[i].rate_sum, &src->slot[i].rate_sum);
  }
  return RS_OK;
}

static double edge(int k) {
  return exp2((double)(k - 1 - DOUBLINGS * PER_DOUBLING) / PER_DOUBLING);
}

void rs_load_finish(const rs_load_acc *a, rs_load_stats *out) {
  memset(out, 0, sizeof(*out));
  for (int i = 0; i < RS_LOAD_BUCKETS; i++) {
    const rs_load_slot *s = &a->slot[i];
    if (s->n == 0)
      continue;
    rs_load_bucket *b = &out->b[out->nbuckets++];
    b->n = s->n;
    b->rate_lo = i == 0 ? 0.0 : edge(i);
    b->rate_hi = edge(i + 1); /* the last bucket also takes any higher rate */
    b->rate_mean = rs_xsum_value(&s->rate_sum) / (double)s->n;
    for (int q = 0; q < RS_LOAD_LATENCIES; q++) {
      b->lat_n[q] = s->lat[q].count;
      b->lat_ms[q] = rs_sketch_quantile(&s->lat[q], 0.5);
    }
    out->intervals += s->n;
  }
}
