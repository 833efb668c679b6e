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
 * Horner's rounding adds a few units in the last place. */
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
  double p = 1.0 / 39916800.0; /* 1/11! */
  p = p * r + 1.0 / 3628800.0; /* 1/10! */
  p = p * r + 1.0 / 362880.0;  /* 1/9! */
  p = p * r + 1.0 / 40320.0;   /* 1/8! */
  p = p * r + 1.0 / 5040.0;    /* 1/7! */
  p = p * r + 1.0 / 720.0;     /* 1/6! */
  p = p * r + 1.0 / 120.0;     /* 1/5! */
  p = p * r + 1.0 / 24.0;      /* 1/4! */
  p = p * r + 1.0 / 6.0;       /* 1/3! */
  p = p * r + 0.5;             /* 1/2! */
  p = p * r + 1.0;             /* 1/1! */
  p = p * r + 1.0;             /* 1/0! */
  /* k + 1023 in the exponent field: 2^k for k in [-1022, 1023] */
  uint64_t bits = (kb - 0x4338000000000000ull + 1023u) << 52;
  double scale;
  memcpy(&scale, &bits, sizeof(scale));
  return p * scale;
}

/* x[i] = rs_fast_exp(x[i]) for i < n, in vector registers where the
 * compiler can (fastexp.c). */
void rs_fast_exp_n(double *x, size_t n);

#endif
