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
  double z[24], x[24], s[24], e[24], top[24], y[12];
  /* s50 e^(sigma z) for z = mid +- half g[i + 12]: one exponential a pair */
  double xm = sigma * mid, xh = sigma * half, sm = s50 * rs_fast_exp(xm);
  double k = 2 + 0.02 * (fabs(xm) + fabs(xh)); /* s's error, in units of rs_fast_exp's */
  for (int i = 0; i < 12; i++)
    y[i] = rs_fast_exp(xh * g[i + 12]);
  for (int i = 0; i < 12; i++) {
    s[i] = sm / y[i];
    s[i + 12] = sm * y[i];
  }
  for (int i = 0; i < 24; i++) {
    z[i] = mid + half * g[i];
    double d = t - s[i], zz = z[i] * z[i] / 2;
    x[i] = -zz - d * inv_cm;
    e[i] = 4 + k * s[i] * inv_cm + fabs(d) * inv_cm + zz;
    top[i] = x[i];
  }
  for (int i = 0; i < 24; i++)
    x[i] = w[i] * rs_fast_exp(x[i]);
  FOLD24(x, ADD_);
  FOLD24(e, MAX_);
  FOLD24(top, MAX_);
  /* -xm and xh g: none of s's exponents near rs_fast_exp's clamps */
  double tp = MAX_(top[0], MAX_(-xm, xh));
  return (rs_fast_wait){x[0], e[0], tp};
}
