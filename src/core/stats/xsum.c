/* Exact fixed-point sums (xsum.h): integer words, so adding is
 * associative and the order of the values does not reach the result. */
#include "xsum.h"

#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

#define FRAC1 96          /* rs_xsum: the lowest bit is 2^-FRAC1 */
#define FRAC2 (2 * FRAC1) /* rs_xsum2 */
#define VALUE_CAP 0x1p100 /* larger values count as this (none is a valid metric value) */
#define BIG_WORDS 10      /* n Sxy and Sx Sy: 512 + 64 bits, signed */

/* v = m 2^e with m a 53-bit integer (0 for v = 0). */
static void decompose(double v, uint64_t *m, int *e) {
  uint64_t bits;
  assert(v >= 0.0 && !isnan(v));
  if (!(v < VALUE_CAP))
    v = VALUE_CAP;
  memcpy(&bits, &v, sizeof(bits));
  int ef = (int)((bits >> 52) & 0x7ff);
  uint64_t frac = bits & ((UINT64_C(1) << 52) - 1);
  if (ef == 0) {
    *m = frac;
    *e = -1074;
  } else {
    *m = frac | (UINT64_C(1) << 52);
    *e = ef - 1075;
  }
}

/* Adds the np words p (a number shifted to word i) into w[0..nw). */
static void add_words(uint64_t *w, int nw, int i, const uint64_t *p, int np) {
  u128 c = 0;
  for (int k = 0; i < nw && (k < np || c != 0); i++, k++) {
    c += (u128)w[i] + (k < np ? p[k] : 0);
    w[i] = (uint64_t)c;
    c >>= 64;
  }
}

/* Adds x 2^sh (sh may be negative: the bits below 2^0 are dropped). */
static void add_shifted(uint64_t *w, int nw, u128 x, int sh) {
  if (sh < 0) {
    x = sh <= -128 ? 0 : x >> -sh;
    sh = 0;
  }
  if (x == 0)
    return;
  int word = sh >> 6, bit = sh & 63;
  uint64_t lo = (uint64_t)x, hi = (uint64_t)(x >> 64), p[3];
  p[0] = lo << bit;
  p[1] = bit ? (hi << bit) | (lo >> (64 - bit)) : hi;
  p[2] = bit ? hi >> (64 - bit) : 0;
  add_words(w, nw, word, p, 3);
}

/* Adds the nx words x shifted left by sh >= 0 bits into w[0..nw) (the bits
 * past w's top are dropped, as every add drops them: the sums are modulo
 * 2^(64 nw)). */
static void add_block(uint64_t *w, int nw, const uint64_t *x, int nx, int sh) {
  uint64_t p[4] = {0};
  int word = sh >> 6, bit = sh & 63;
  assert(sh >= 0 && nx <= 3);
  for (int k = 0; k < nx; k++) {
    p[k] |= x[k] << bit;
    p[k + 1] = bit ? x[k] >> (64 - bit) : 0;
  }
  add_words(w, nw, word, p, nx + 1);
}

/* The window's exponent fields: rs_xsum_add_direct's fast range, [979, 1122]
 * (so a value of the block is >= 2^-44 and below 2^100) for every field in
 * it; products: both factors in that range (rs_xsum2_add checks them). */
#define PE_MIN 979
#define PE_MAX (1122 - (RS_XSUM_SPAN - 1))
#define PE2_MIN (2 * 979)
#define PE2_MAX (2 * 1122 - (RS_XSUM2_SPAN - 1))

void rs_xsum_rebase(rs_xsum *s, unsigned e) {
  int pe = (int)e - RS_XSUM_SPAN / 2;
  assert((s->p[0] | s->p[1]) == 0);
  if (e < 979 || e > 1122)
    return; /* the slow path's: the window stays */
  pe = pe < PE_MIN ? PE_MIN : pe > PE_MAX ? PE_MAX : pe;
  s->pb = (uint32_t)pe - RS_XSUM_BASE; /* modulo 2^32: pb + RS_XSUM_BASE is pe */
}

void rs_xsum2_rebase(rs_xsum2 *s, unsigned e) {
  int pe = (int)e - RS_XSUM2_SPAN / 2;
  assert((s->p[0] | s->p[1] | s->p[2]) == 0);
  if (e < PE2_MIN || e > 2 * 1122)
    return;
  pe = pe < PE2_MIN ? PE2_MIN : pe > PE2_MAX ? PE2_MAX : pe;
  s->pb = (uint32_t)pe - RS_XSUM2_BASE;
}

/* The pending block into w: its value is p 2^(pe - 1075) (products:
 * 2^(pe - 2150)), pe at least PE_MIN (PE2_MIN), so the shift in units of
 * w's lowest bit is not negative. */
static void flush1(uint64_t w[RS_XSUM_WORDS], const rs_xsum *s) {
  int pe = (int)(s->pb + RS_XSUM_BASE);
  if ((s->p[0] | s->p[1]) == 0)
    return;
  add_block(w, RS_XSUM_WORDS, s->p, 2, pe - 1075 + FRAC1);
}

static void flush2(uint64_t w[RS_XSUM2_WORDS], const rs_xsum2 *s) {
  int pe = (int)(s->pb + RS_XSUM2_BASE);
  if ((s->p[0] | s->p[1] | s->p[2]) == 0)
    return;
  add_block(w, RS_XSUM2_WORDS, s->p, 3, pe - 2150 + FRAC2);
}

/* s as one word array, the block in it. */
static void whole1(rs_xsum *out, const rs_xsum *s) {
  memset(out, 0, sizeof(*out));
  memcpy(out->w, s->w, sizeof(out->w));
  flush1(out->w, s);
}

static void whole2(rs_xsum2 *out, const rs_xsum2 *s) {
  memset(out, 0, sizeof(*out));
  memcpy(out->w, s->w, sizeof(out->w));
  flush2(out->w, s);
}

void rs_xsum_add_slow(rs_xsum *s, double v) {
  uint64_t m;
  int e;
  decompose(v, &m, &e);
  add_shifted(s->w, RS_XSUM_WORDS, m, e + FRAC1);
}

void rs_xsum2_add_slow(rs_xsum2 *s, double x, double y) {
  uint64_t mx, my;
  int ex, ey;
  decompose(x, &mx, &ex);
  decompose(y, &my, &ey);
  add_shifted(s->w, RS_XSUM2_WORDS, (u128)mx * my, ex + ey + FRAC2);
}

void rs_xsum_merge(rs_xsum *dst, const rs_xsum *src) {
  add_words(dst->w, RS_XSUM_WORDS, 0, src->w, RS_XSUM_WORDS);
  flush1(dst->w, src);
}

void rs_xsum2_merge(rs_xsum2 *dst, const rs_xsum2 *src) {
  add_words(dst->w, RS_XSUM2_WORDS, 0, src->w, RS_XSUM2_WORDS);
  flush2(dst->w, src);
}

/* The unsigned integer w[0..nw) times 2^-frac, correctly rounded: the top
 * 64 bits with a sticky bit for anything below, which the conversion to
 * double rounds once. */
static double big_value(const uint64_t *w, int nw, int frac) {
  int i = nw - 1;
  while (i >= 0 && w[i] == 0)
    i--;
  if (i < 0)
    return 0.0;
  int lz = __builtin_clzll(w[i]);
  uint64_t top = w[i] << lz;
  bool sticky = false;
  if (i > 0) {
    if (lz > 0) {
      top |= w[i - 1] >> (64 - lz);
      sticky = (w[i - 1] << lz) != 0;
    } else {
      sticky = w[i - 1] != 0;
    }
    for (int j = i - 2; j >= 0 && !sticky; j--)
      sticky = w[j] != 0;
  }
  if (sticky)
    top |= 1;
  return ldexp((double)top, 64 * i - lz - frac);
}

double rs_xsum_value(const rs_xsum *s) {
  rs_xsum all;
  whole1(&all, s);
  return big_value(all.w, RS_XSUM_WORDS, FRAC1);
}

/* out = a * b (schoolbook), out has BIG_WORDS words. */
static void mul_sums(uint64_t *out, const rs_xsum *a, const rs_xsum *b) {
  memset(out, 0, BIG_WORDS * sizeof(*out));
  for (int i = 0; i < RS_XSUM_WORDS; i++) {
    u128 c = 0;
    for (int j = 0; j < RS_XSUM_WORDS; j++) {
      c += (u128)a->w[i] * b->w[j] + out[i + j];
      out[i + j] = (uint64_t)c;
      c >>= 64;
    }
    for (int k = i + RS_XSUM_WORDS; k < BIG_WORDS && c != 0; k++) {
      c += out[k];
      out[k] = (uint64_t)c;
      c >>= 64;
    }
  }
}

double rs_xsum_comoment(uint64_t n, const rs_xsum *sx_in, const rs_xsum *sy_in,
                        const rs_xsum2 *sxy_in) {
  uint64_t a[BIG_WORDS] = {0}, b[BIG_WORDS];
  u128 c = 0;
  rs_xsum wx, wy;
  rs_xsum2 wxy;
  const rs_xsum *sx = &wx, *sy = &wy;
  const rs_xsum2 *sxy = &wxy;
  if (n == 0)
    return 0.0;
  whole1(&wx, sx_in);
  whole1(&wy, sy_in);
  whole2(&wxy, sxy_in);
  for (int i = 0; i < RS_XSUM2_WORDS; i++) { /* a = n Sxy */
    c += (u128)sxy->w[i] * n;
    a[i] = (uint64_t)c;
    c >>= 64;
  }
  a[RS_XSUM2_WORDS] = (uint64_t)c;
  mul_sums(b, sx, sy);
  uint64_t borrow = 0; /* a -= b, two's complement */
  for (int i = 0; i < BIG_WORDS; i++) {
    uint64_t ai = a[i], bi = b[i] + borrow;
    uint64_t carry = bi < borrow;
    a[i] = ai - bi;
    borrow = carry | (ai < bi);
  }
  bool negative = (a[BIG_WORDS - 1] >> 63) != 0;
  if (negative) { /* the magnitude */
    uint64_t one = 1;
    for (int i = 0; i < BIG_WORDS; i++) {
      a[i] = ~a[i] + one;
      one = one && a[i] == 0;
    }
  }
  double v = big_value(a, BIG_WORDS, FRAC2) / (double)n;
  return negative ? -v : v;
}
