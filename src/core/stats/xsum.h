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
#include <string.h>

#define RS_XSUM_WORDS 4
#define RS_XSUM2_WORDS 8

/* A pending block holds the values of a window of RS_XSUM_SPAN binary
 * exponents (products: RS_XSUM2_SPAN exponent sums) as one integer of
 * their mantissas, each shifted by its exponent's place in the window: an
 * add there is a shift and a two- or three-word add, no carry chain to
 * follow. The block is an exact part of the sum (it reaches w when read or
 * merged, rs_xsum_value, rs_xsum_merge), so the bits are those of adding
 * every value to w. Values outside the window go to w directly; the window
 * moves to a value outside it while the block is empty. Zeroed memory is
 * an empty sum (its window then starts at base, RS_XSUM_BASE). */
#define RS_XSUM_SPAN 11    /* a 53-bit mantissa shifted by up to 10: below 2^64 */
#define RS_XSUM2_SPAN 22   /* a 106-bit product shifted by up to 21: below 2^128 */
#define RS_XSUM_BASE 1019  /* exponent field of 2^-4: a window of [2^-4, 2^7) */
#define RS_XSUM2_BASE 2038 /* exponent fields' sum of 2^-8: products in [2^-8, 2^14) */

typedef struct rs_xsum {
  uint64_t w[RS_XSUM_WORDS]; /* little-endian words, the lowest bit worth 2^-96 */
  uint64_t p[2];             /* the pending block */
  uint32_t pb;               /* its window's lowest exponent field, less RS_XSUM_BASE */
} rs_xsum;

typedef struct rs_xsum2 {
  uint64_t w[RS_XSUM2_WORDS]; /* the lowest bit worth 2^-192 */
  uint64_t p[3];              /* the pending block (sums of 2^64 products fit) */
  uint32_t pb;                /* its window's lowest exponent sum, less RS_XSUM2_BASE */
} rs_xsum2;

/* Adds v (finite, >= 0; asserted). */
static inline void rs_xsum_add(rs_xsum *s, double v);

/* Adds the exact product x * y (both finite, >= 0; asserted). */
static inline void rs_xsum2_add(rs_xsum2 *s, double x, double y);

void rs_xsum_merge(rs_xsum *dst, const rs_xsum *src);
void rs_xsum2_merge(rs_xsum2 *dst, const rs_xsum2 *src);

/* The sum, correctly rounded to a double. */
double rs_xsum_value(const rs_xsum *s);

/* The centred co-moment sum over n pairs, sum (x - mean x)(y - mean y) =
 * (n Sxy - Sx Sy) / n, from the exact sums sx, sy and sxy: the integer
 * n Sxy - Sx Sy is exact, so the result is rounded only by the division
 * (a constant series gives exactly 0). 0 when n is 0. */
double rs_xsum_comoment(uint64_t n, const rs_xsum *sx, const rs_xsum *sy, const rs_xsum2 *sxy);

/* ---- the adds, inline: they run for every value ---- */

/* Values outside the fast paths (0 < v < 2^-44, v >= 2^100, not finite):
 * xsum.c. */
void rs_xsum_add_slow(rs_xsum *s, double v);
void rs_xsum2_add_slow(rs_xsum2 *s, double x, double y);

/* The window's move to a value's exponent (field e, or sum of fields) while
 * the block is empty: xsum.c. */
void rs_xsum_rebase(rs_xsum *s, unsigned e);
void rs_xsum2_rebase(rs_xsum2 *s, unsigned e);

#define RS_XSUM_MANT(b) (((b) & ((UINT64_C(1) << 52) - 1)) | (UINT64_C(1) << 52))

/* Adds w[i] += a, w[i + 1] += b (+ carries) in an n-word number. */
static inline void rs_xsum_add2w(uint64_t *w, int n, int i, uint64_t a, uint64_t b) {
  uint64_t t = w[i] + a, c = t < a;
  w[i] = t;
  t = w[i + 1] + b;
  uint64_t c2 = t < b;
  t += c;
  c2 |= t < c;
  w[i + 1] = t;
  for (i += 2; c2 != 0 && i < n; i++)
    c2 = ++w[i] == 0;
}

/* v to w directly (no pending block). */
static inline void rs_xsum_add_direct(rs_xsum *s, double v) {
  uint64_t b;
  memcpy(&b, &v, sizeof(b));
  /* exponent field 979 (2^-44) .. 1122 (below 2^100): the value's bits from
   * 2^(ef - 1075) start at bit sh = ef - 979 >= 0, in words sh / 64 and the next */
  int sh = (int)(b >> 52) - 1075 + 96;
  if (sh < 0 || sh > 143) {
    rs_xsum_add_slow(s, v);
    return;
  }
  uint64_t m = RS_XSUM_MANT(b);
  int bit = sh & 63;
  rs_xsum_add2w(s->w, RS_XSUM_WORDS, sh >> 6, m << bit, (m >> 1) >> (63 - bit));
}

static inline void rs_xsum_add(rs_xsum *s, double v) {
  uint64_t b;
  memcpy(&b, &v, sizeof(b));
  if (b == 0)
    return;
  unsigned e = (unsigned)(b >> 52), d = e - (s->pb + RS_XSUM_BASE);
  if (__builtin_expect(d < RS_XSUM_SPAN, 1)) {
    uint64_t x = RS_XSUM_MANT(b) << d, t = s->p[0] + x;
    s->p[1] += t < x;
    s->p[0] = t;
    return;
  }
  if ((s->p[0] | s->p[1]) == 0)
    rs_xsum_rebase(s, e);
  rs_xsum_add_direct(s, v);
}

/* x y to w directly (no pending block). */
static inline void rs_xsum2_add_direct(rs_xsum2 *s, double x, double y) {
  uint64_t bx, by;
  memcpy(&bx, &x, sizeof(bx));
  memcpy(&by, &y, sizeof(by));
  /* both in the fast path's range of rs_xsum_add: the product's bits start
   * at bit sh >= 0 and end below bit 392 */
  int sh = (int)(bx >> 52) + (int)(by >> 52) - 2150 + 192;
  if ((bx >> 52) - 979 > 143 || (by >> 52) - 979 > 143) {
    rs_xsum2_add_slow(s, x, y);
    return;
  }
  __extension__ typedef unsigned __int128 rs_u128;
  rs_u128 p = (rs_u128)RS_XSUM_MANT(bx) * RS_XSUM_MANT(by);
  uint64_t lo = (uint64_t)p, hi = (uint64_t)(p >> 64);
  int i = sh >> 6, bit = sh & 63;
  uint64_t w0 = lo << bit, w1 = (hi << bit) | ((lo >> 1) >> (63 - bit)),
           w2 = (hi >> 1) >> (63 - bit);
  uint64_t t = s->w[i] + w0, c = t < w0;
  s->w[i] = t;
  rs_xsum_add2w(s->w, RS_XSUM2_WORDS, i + 1, w1 + c, w2 + (w1 + c < c));
}

static inline void rs_xsum2_add(rs_xsum2 *s, double x, double y) {
  uint64_t bx, by;
  memcpy(&bx, &x, sizeof(bx));
  memcpy(&by, &y, sizeof(by));
  if (bx == 0 || by == 0)
    return;
  unsigned ex = (unsigned)(bx >> 52), ey = (unsigned)(by >> 52);
  unsigned d = ex + ey - (s->pb + RS_XSUM2_BASE);
  /* both factors in rs_xsum2_add_direct's fast range (so the window never
   * takes a value that counts as 2^100, a subnormal or a sign) */
  if (__builtin_expect(d < RS_XSUM2_SPAN && ex - 979 <= 143 && ey - 979 <= 143, 1)) {
    __extension__ typedef unsigned __int128 rs_u128;
    if (d >= 64)
      __builtin_unreachable(); /* d < RS_XSUM2_SPAN: a two-word shift, no test of d's range */
    rs_u128 p = ((rs_u128)RS_XSUM_MANT(bx) * RS_XSUM_MANT(by)) << d; /* below 2^127 */
    uint64_t lo = (uint64_t)p, hi = (uint64_t)(p >> 64);
    /* p[0..1] + p, carry to p[2]; hi < 2^63, so h does not wrap */
    uint64_t t0 = s->p[0] + lo, h = hi + (t0 < lo), t1 = s->p[1] + h;
    s->p[2] += t1 < h;
    s->p[0] = t0;
    s->p[1] = t1;
    return;
  }
  if ((s->p[0] | s->p[1] | s->p[2]) == 0)
    rs_xsum2_rebase(s, ex + ey);
  rs_xsum2_add_direct(s, x, y);
}

/* rs_xsum_add(s1, v) then rs_xsum2_add(s2, v, v), the same bits, with one
 * look at v where the windows agree. With s2's window starting at twice
 * s1's, less delta (0 from zeroed memory, 1 once both moved to the same
 * value: rs_xsum_rebase and rs_xsum2_rebase centre them on e and 2e), a v
 * at place d < RS_XSUM_SPAN of s1's window is at 2d + delta < RS_XSUM2_SPAN
 * of s2's, and the product rs_xsum2_add adds there, MANT^2 << (2d + delta),
 * is x (x << delta) for the word x = MANT << d that s1 takes (below 2^63,
 * so x << delta fits). s1's windows lie within rs_xsum2_add's exponent
 * range (979 .. 1122: PE_MIN and PE_MAX in xsum.c), so both adds take
 * their fast paths then; anything else goes to the two adds. */
static inline void rs_xsum_add_moments(rs_xsum *s1, rs_xsum2 *s2, double v) {
  uint64_t b;
  memcpy(&b, &v, sizeof(b));
  if (b == 0)
    return;
  unsigned e = (unsigned)(b >> 52), d = e - (s1->pb + RS_XSUM_BASE);
  uint32_t delta = 2 * s1->pb - s2->pb; /* modulo 2^32, as the windows' fields are */
  if (__builtin_expect((d < RS_XSUM_SPAN) & (delta <= 1), 1)) {
    __extension__ typedef unsigned __int128 rs_u128;
    uint64_t x = RS_XSUM_MANT(b) << d, t = s1->p[0] + x;
    s1->p[1] += t < x;
    s1->p[0] = t;
    rs_u128 p = (rs_u128)x * (x << delta); /* below 2^127 */
    uint64_t lo = (uint64_t)p, hi = (uint64_t)(p >> 64);
    uint64_t t0 = s2->p[0] + lo, h = hi + (t0 < lo); /* hi < 2^63: h does not wrap */
    uint64_t t1 = s2->p[1] + h;
    s2->p[2] += t1 < h;
    s2->p[0] = t0;
    s2->p[1] = t1;
    return;
  }
  rs_xsum_add(s1, v);
  rs_xsum2_add(s2, v, v);
}

#endif
