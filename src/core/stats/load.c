/* Latency by load bucket (load.h, docs/statistics.md "Latency by load"). */
#include "load.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Buckets per doubling of the rate, and how many doublings each side of
 * 1 req/s the fixed array covers. */
#define PER_DOUBLING 3
#define DOUBLINGS 16

/* The reference mapping, with libm's log2 (load_index_libm before the
 * table; test_load's libm_index keeps it):
 *   0 for rates below 2^-DOUBLINGS (and NaN), else
 *   1 + min(floor(log2(rate) x PER_DOUBLING + 1e-9) + DOUBLINGS x PER_DOUBLING,
 *           RS_LOAD_BUCKETS - 2),
 * the tiny epsilon keeping exact powers of the step in their own bucket
 * despite log2 rounding. */

/* The same by table, without a log2 per row. Within one binary exponent e
 * (rates in [2^e, 2^(e+1))) the reference is monotonic and spans at most
 * four indexes, from that of 2^e up: the index of a rate is the first
 * one's plus how many of three thresholds it reaches, each the least
 * double of the next index (found by bisection over the reference;
 * INFINITY where the top bucket clamps). Every rate then gets exactly the reference's
 * index: test_load_index_thresholds finds every threshold again and checks
 * it and the double below it, test_load_index_matches_libm two million
 * other rates. Rates from 2^DOUBLINGS up all take the last bucket.
 *
 * The exponents from -DOUBLINGS to DOUBLINGS - 1 are 32 consecutive
 * numbers, so the low five bits of the biased exponent tell them apart:
 * the table is in the order of those bits (2^1 first), one mask to find an
 * entry. Literals, so no run works them out (a few hundred log2() calls
 * each run that had a request rate) and no row asks whether they are. */
#define LOAD_EXPS (2 * DOUBLINGS)
_Static_assert(LOAD_EXPS == 32 && RS_LOAD_BUCKETS == 97, "the table below");
typedef struct load_exp {
  double edge[3];
  int first; /* the index of 2^e */
} load_exp;
static const load_exp load_exps[LOAD_EXPS] = {
    {{0x1.428a2f9797165p+1, 0x1.965fea52439fep+1, 0x1.fffffffe03eafp+1}, 52},  /* 2^1 */
    {{0x1.428a2f9797165p+2, 0x1.965fea52439fdp+2, 0x1.fffffffe03eaep+2}, 55},  /* 2^2 */
    {{0x1.428a2f9797163p+3, 0x1.965fea52439fdp+3, 0x1.fffffffe03eaep+3}, 58},  /* 2^3 */
    {{0x1.428a2f9797162p+4, 0x1.965fea52439fep+4, 0x1.fffffffe03eadp+4}, 61},  /* 2^4 */
    {{0x1.428a2f9797162p+5, 0x1.965fea52439fep+5, 0x1.fffffffe03eadp+5}, 64},  /* 2^5 */
    {{0x1.428a2f9797162p+6, 0x1.965fea52439fep+6, 0x1.fffffffe03eadp+6}, 67},  /* 2^6 */
    {{0x1.428a2f9797162p+7, 0x1.965fea52439fep+7, 0x1.fffffffe03eadp+7}, 70},  /* 2^7 */
    {{0x1.428a2f9797164p+8, 0x1.965fea5243ap+8, 0x1.fffffffe03eaap+8}, 73},    /* 2^8 */
    {{0x1.428a2f9797164p+9, 0x1.965fea5243ap+9, 0x1.fffffffe03eaap+9}, 76},    /* 2^9 */
    {{0x1.428a2f9797164p+10, 0x1.965fea5243ap+10, 0x1.fffffffe03eb5p+10}, 79}, /* 2^10 */
    {{0x1.428a2f9797164p+11, 0x1.965fea5243ap+11, 0x1.fffffffe03eb5p+11}, 82}, /* 2^11 */
    {{0x1.428a2f9797164p+12, 0x1.965fea5243ap+12, 0x1.fffffffe03eb5p+12}, 85}, /* 2^12 */
    {{0x1.428a2f9797164p+13, 0x1.965fea5243ap+13, 0x1.fffffffe03eb5p+13}, 88}, /* 2^13 */
    {{0x1.428a2f9797164p+14, 0x1.965fea5243ap+14, 0x1.fffffffe03eb5p+14}, 91}, /* 2^14 */
    {{0x1.428a2f9797164p+15, 0x1.965fea5243ap+15, INFINITY}, 94},              /* 2^15 */
    {{0x1.428a2f9797164p-16, 0x1.965fea5243ap-16, 0x1.fffffffe03eb5p-16}, 1},  /* 2^-16 */
    {{0x1.428a2f9797164p-15, 0x1.965fea5243ap-15, 0x1.fffffffe03eb5p-15}, 4},  /* 2^-15 */
    {{0x1.428a2f9797164p-14, 0x1.965fea5243ap-14, 0x1.fffffffe03eb5p-14}, 7},  /* 2^-14 */
    {{0x1.428a2f9797164p-13, 0x1.965fea5243ap-13, 0x1.fffffffe03eb5p-13}, 10}, /* 2^-13 */
    {{0x1.428a2f9797164p-12, 0x1.965fea5243ap-12, 0x1.fffffffe03eb5p-12}, 13}, /* 2^-12 */
    {{0x1.428a2f9797164p-11, 0x1.965fea5243ap-11, 0x1.fffffffe03eaap-11}, 16}, /* 2^-11 */
    {{0x1.428a2f9797164p-10, 0x1.965fea5243ap-10, 0x1.fffffffe03eaap-10}, 19}, /* 2^-10 */
    {{0x1.428a2f9797164p-9, 0x1.965fea5243ap-9, 0x1.fffffffe03eaap-9}, 22},    /* 2^-9 */
    {{0x1.428a2f9797162p-8, 0x1.965fea52439fep-8, 0x1.fffffffe03eadp-8}, 25},  /* 2^-8 */
    {{0x1.428a2f9797162p-7, 0x1.965fea52439fep-7, 0x1.fffffffe03eadp-7}, 28},  /* 2^-7 */
    {{0x1.428a2f9797162p-6, 0x1.965fea52439fep-6, 0x1.fffffffe03eadp-6}, 31},  /* 2^-6 */
    {{0x1.428a2f9797162p-5, 0x1.965fea52439fep-5, 0x1.fffffffe03eadp-5}, 34},  /* 2^-5 */
    {{0x1.428a2f9797163p-4, 0x1.965fea52439fdp-4, 0x1.fffffffe03eaep-4}, 37},  /* 2^-4 */
    {{0x1.428a2f9797163p-3, 0x1.965fea52439fdp-3, 0x1.fffffffe03eaep-3}, 40},  /* 2^-3 */
    {{0x1.428a2f9797165p-2, 0x1.965fea52439fep-2, 0x1.fffffffe03eafp-2}, 43},  /* 2^-2 */
    {{0x1.428a2f9797165p-1, 0x1.965fea52439fep-1, 0x1.fffffffe03ebp-1}, 46},   /* 2^-1 */
    {{0x1.428a2f9797165p+0, 0x1.965fea52439fep+0, 0x1.fffffffe03eafp+0}, 49},  /* 2^0 */
};

int rs_load_index(double rate) {
  if (!(rate >= 0x1p-16)) /* 2^-DOUBLINGS */
    return 0;
  if (rate >= 0x1p16)
    return RS_LOAD_BUCKETS - 1;
  uint64_t b;
  memcpy(&b, &rate, sizeof(b));
  const load_exp *x = &load_exps[(b >> 52) & (LOAD_EXPS - 1)];
  return x->first + (rate >= x->edge[0]) + (rate >= x->edge[1]) + (rate >= x->edge[2]);
}

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
