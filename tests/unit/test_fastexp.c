/* The back-test's vectorized quadrature sum (fastexp.c) against the same
 * sum taken term by term with libm's exp, as backtest.c's exact fallback
 * takes it, within the band backtest.c's wait_side allows it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fastexp.h"

typedef struct ref {
  double sum, worst, top;
} ref;

/* wait_mass's sum (backtest.c), with its exponent multiples and maxima */
static ref reference(const double *g, const double *w, double mid, double half, double sigma,
                     double s50, double t, double cm) {
  ref r = {0, 0, fmax(-sigma * mid, sigma * half)};
  double k = 2 + 0.02 * (fabs(sigma * mid) + fabs(sigma * half));
  for (int i = 0; i < 24; i++) {
    double z = mid + half * g[i], s = s50 * exp(sigma * z);
    double x = -z * z / 2 - (t - s) / cm;
    r.sum += w[i] * exp(-z * z / 2) * exp(-(t - s) / cm);
    r.worst = fmax(r.worst, 4 + k * s / cm + fabs(t - s) / cm + z * z / 2);
    r.top = fmax(r.top, x);
  }
  return r;
}

static void test_wait_sum(void **state) {
  (void)state;
  /* the midpoint rule's nodes and weights on [-1, 1], the negative half
   * then the positive as rs_fast_wait_sum takes them: the band does not
   * depend on which positive rule it is */
  double g[24], w[24];
  for (int i = 0; i < 12; i++) {
    g[i] = -(2.0 * i + 1.0) / 24.0;
    g[i + 12] = -g[i];
    w[i] = w[i + 12] = 1.0 / 12.0;
  }
  const double sigmas[] = {0.07, 0.3, 0.83, 1.2686};
  const double s50s[] = {1e-3, 0.05, 2.0};
  const double zts[] = {-7.5, -2.0, 0.0, 1.6449, 2.3263, 3.7, 6.0};
  const double cms[] = {1e-3, 0.3, 1.0, 10.0, 1e3}; /* x s50 */
  double worst_err = 0;
  int cases = 0;
  for (size_t a = 0; a < sizeof(sigmas) / sizeof(sigmas[0]); a++)
    for (size_t b = 0; b < sizeof(s50s) / sizeof(s50s[0]); b++)
      for (size_t c = 0; c < sizeof(zts) / sizeof(zts[0]); c++)
        for (size_t d = 0; d < sizeof(cms) / sizeof(cms[0]); d++) {
          double sigma = sigmas[a], s50 = s50s[b], zt = zts[c], cm = cms[d] * s50;
          double t = s50 * exp(sigma * zt), lo = -8.0;
          double half = 0.5 * (zt - lo), mid = 0.5 * (zt + lo);
          rs_fast_wait f = rs_fast_wait_sum(g, w, mid, half, sigma, s50, t, 1.0 / cm);
          ref r = reference(g, w, mid, half, sigma, s50, t, cm);
          /* the multiple and the top bound the reference's, not far above */
          assert_true(f.worst >= r.worst * (1 - 1e-12) && f.worst <= 3 * r.worst);
          assert_true(f.top >= r.top - 1e-9 * fmax(1.0, fabs(r.top)));
          assert_true(f.top <= fmax(r.top, 0.0) + 1e-9 * fmax(1.0, fabs(r.top)));
          /* and the sum within the band wait_side puts around it */
          double band = 2 * (RS_FAST_EXP_REL + 2e-15) * f.worst + 1e-13;
          double err = r.sum > 0 ? fabs(f.sum / r.sum - 1) : fabs(f.sum);
          if (r.sum > 1e-250) { /* rs_fast_exp holds its bound above exp(-708) */
            if (err > band)
              fail_msg("sigma %g s50 %g zt %g cm %g: %.3g > band %.3g", sigma, s50, zt, cm, err,
                       band);
            worst_err = fmax(worst_err, err / band);
          }
          cases++;
        }
  assert_int_equal(cases, 4 * 3 * 7 * 5);
  assert_true(worst_err < 1.0);
  /* a NaN anywhere makes the sum NaN, so wait_side decides no side */
  rs_fast_wait f = rs_fast_wait_sum(g, w, -3.0, 5.0, 0.5, 0.01, NAN, 100.0);
  assert_true(isnan(f.sum));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_wait_sum),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
