/* An inline exponential with a stated error bound, for sums whose exact
 * value only has to be compared with a threshold (backtest.c): a sum taken
 * with rs_fast_exp and widened by its bound decides most comparisons, and
 * only the close ones pay for the exact sum with libm's exp. */
#ifndef RIGHTSIZE_FASTEXP_H
#define RIGHTSIZE_FASTEXP_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* |rs_fast_exp(x) / exp(x) - 1| <= RS_FAST_EXP_REL for -708 <= x <= 709
 * (test_queue.c checks it on a dense grid). The Taylor polynomial below
 * stops at degree 11, whose remainder on |r| <= ln 2 / 2 is under 1e-14;
 * its evaluation's rounding adds a few units in the last place. */
#define RS_FAST_EXP_REL 1e-13

/* exp(x): x = k ln 2 + r with |r| <= ln 2 / 2 (Cody and Waite's two-part
 * ln 2, so k ln 2 is exact), e^r by its Taylor polynomial, times 2^k built
 * in the exponent bits. x is first held to [-708, 709]: below, the answer
 * is exp(-708) (off by under 3.4e-308); above, exp(709), so a caller that
 * may pass more checks its arguments. NaN stays NaN. No branch, no libm
 * call, no table: a loop of these vectorizes. */
static inline double rs_fast_exp(double x) {
  const double ln2_hi = 0x1.62e42feep-1, ln2_lo = 0x1.a39ef35793c76p-33;
  const double shift = 0x1.8p52; /* 1.5 x 2^52: adding it rounds to an integer */
  x = x < -708.0 ? -708.0 : x;
  x = x > 709.0 ? 709.0 : x;
  double kd = x * 0x1.71547652b82fep0 + shift; /* x / ln 2 rounded, in the low bits */
  uint64_t kb;
  memcpy(&kb, &kd, sizeof(kb));
  kd -= shift;
  double r = (x - kd * ln2_hi) - kd * ln2_lo;
  /* Estrin's scheme: the same polynomial in pairs and powers of r, a
   * dependency chain of 7 operations instead of Horner's 22 */
  double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
  double p01 = 1.0 + r, p23 = 0.5 + r * (1.0 / 6.0); /* 1/0! .. 1/3! */
  double p45 = 1.0 / 24.0 + r * (1.0 / 120.0), p67 = 1.0 / 720.0 + r * (1.0 / 5040.0);
  double p89 = 1.0 / 40320.0 + r * (1.0 / 362880.0);     /* 1/8!, 1/9! */
  double pab = 1.0 / 3628800.0 + r * (1.0 / 39916800.0); /* 1/10!, 1/11! */
  double p = (p01 + r2 * p23) + r4 * (p45 + r2 * p67) + r8 * (p89 + r2 * pab);
  /* k + 1023 in the exponent field: 2^k for k in [-1022, 1023] */
  uint64_t bits = (kb - 0x4338000000000000ull + 1023u) << 52;
  double scale;
  memcpy(&scale, &bits, sizeof(scale));
  return p * scale;
}

/* The quadrature sum of backtest.c's wait_side over its 24 nodes, g
 * symmetric (g[i] = -g[i + 12]): with z = mid + half g[i] and
 * s = s50 rs_fast_exp(sigma mid) times or over rs_fast_exp(sigma half |g[i]|),
 *   sum   = sum of w[i] rs_fast_exp(-z^2/2 - (t - s) inv_cm), in any order,
 *   worst = a bound on every node's 4 + k s inv_cm + |t - s| inv_cm + z^2/2,
 *           k = 2 + 0.02 (|sigma mid| + |sigma half|) (the error multiple
 *           of a node's exponent), from the largest s and z^2, not node by
 *           node; NaN where sum is,
 *   top   = a bound on the exponents passed to rs_fast_exp, and on
 *           -sigma mid (s's exponents stay clear of its clamps when top is).
 * The nodes go through vector registers where the compiler can
 * (fastexp.c). */
typedef struct rs_fast_wait {
  double sum, worst, top;
} rs_fast_wait;
rs_fast_wait rs_fast_wait_sum(const double *g, const double *w, double mid, double half,
                              double sigma, double s50, double t, double inv_cm);

#endif
