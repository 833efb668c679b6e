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
  double z[24], x[24], s[24], e[24], top[24];
  for (int i = 0; i < 24; i++) {
    z[i] = mid + half * g[i];
    x[i] = sigma * z[i];
    top[i] = x[i];
  }
  for (int i = 0; i < 24; i++)
    s[i] = s50 * rs_fast_exp(x[i]);
  for (int i = 0; i < 24; i++) {
    double d = t - s[i], zz = z[i] * z[i] / 2;
    x[i] = -zz - d * inv_cm;
    e[i] = 4 + s[i] * inv_cm + fabs(d) * inv_cm + zz;
    top[i] = MAX_(x[i], top[i]);
  }
  for (int i = 0; i < 24; i++)
    x[i] = w[i] * rs_fast_exp(x[i]);
  FOLD24(x, ADD_);
  FOLD24(e, MAX_);
  FOLD24(top, MAX_);
  return (rs_fast_wait){x[0], e[0], top[0]};
}
