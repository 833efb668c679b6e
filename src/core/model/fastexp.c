/* The back-test's quadrature sum with rs_fast_exp (fastexp.h). This file is
 * built with -fno-trapping-math (CMakeLists.txt), which lets the compiler
 * turn the clamps and maxima into min and max and the loops over the nodes
 * into vector code; the values are those of the scalar function, operation
 * for operation. On x86-64 GCC also builds AVX-512 and AVX2 copies, chosen
 * at load time where the processor has them: eight or four lanes instead
 * of SSE2's two, the same operations (no FMA), so the same values. */
#include "fastexp.h"

/* Folds v[0..24) into v[0] by halves (12, 6, 3, then the last three):
 * elementwise loops, so vector code, for sums and maxima alike. */
#define FOLD24(v, op)                                                                              \
  do {                                                                                             \
    for (int k_ = 0; k_ < 12; k_++)                                                                \
      v[k_] = op(v[k_], v[k_ + 12]);                                                               \
    for (int k_ = 0; k_ < 6; k_++)                                                                 \
      v[k_] = op(v[k_], v[k_ + 6]);                                                                \
    for (int k_ = 0; k_ < 3; k_++)                                                                 \
      v[k_] = op(v[k_], v[k_ + 3]);                                                                \
    v[0] = op(op(v[0], v[1]), v[2]);                                                               \
  } while (0)
#define ADD_(a, b) ((a) + (b))
#define MAX_(a, b) ((a) > (b) ? (a) : (b))

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
rs_fast_wait
rs_fast_wait_sum(const double *g, const double *w, double mid, double half, double sigma,
                 double s50, double t, double inv_cm) {
  double x[24], s[24], y[12], ymax[12];
  /* s50 e^(sigma z) for z = mid +- half g[i + 12]: one exponential a pair */
  double xm = sigma * mid, xh = sigma * half, sm = s50 * rs_fast_exp(xm);
  for (int i = 0; i < 12; i++)
    y[i] = ymax[i] = rs_fast_exp(xh * g[i + 12]);
  for (int i = 0; i < 12; i++) {
    s[i] = sm / y[i];
    s[i + 12] = sm * y[i];
  }
  for (int i = 0; i < 24; i++) {
    double z = mid + half * g[i];
    x[i] = -(z * z / 2) - (t - s[i]) * inv_cm;
  }
  for (int i = 0; i < 24; i++)
    x[i] = w[i] * rs_fast_exp(x[i]);
  FOLD24(x, ADD_);
  /* bounds over the nodes, not their maxima: s <= sm max(y, 1 / y) = smax
   * (y >= 1 but for rounding, which the 1 + 1e-15 covers), |t - s| <=
   * max(t, smax), z^2 / 2 <= (|mid| + half)^2 / 2, and an exponent
   * -z^2 / 2 - (t - s) inv_cm <= (smax - t) inv_cm */
  for (int i = 0; i < 6; i++)
    ymax[i] = MAX_(ymax[i], ymax[i + 6]);
  for (int i = 0; i < 3; i++)
    ymax[i] = MAX_(ymax[i], ymax[i + 3]);
  double smax = sm * MAX_(MAX_(ymax[0], MAX_(ymax[1], ymax[2])), 1.0) * (1 + 1e-15);
  double k = 2 + 0.02 * (fabs(xm) + fabs(xh)), zb = fabs(mid) + fabs(half);
  double worst = 4 + k * smax * inv_cm + MAX_(t, smax) * inv_cm + zb * zb / 2;
  double top = MAX_((smax - t) * inv_cm, MAX_(-xm, xh));
  /* a NaN anywhere: NaN sum (x) and NaN worst */
  return (rs_fast_wait){x[0], worst + 0 * x[0], top};
}
