/* rs_fast_exp over an array (fastexp.h). This file is built with
 * -fno-trapping-math (CMakeLists.txt), which lets the compiler turn the
 * clamps into min and max and the loop into vector code; the values are
 * those of the scalar function, operation for operation. */
#include "fastexp.h"

/* On x86-64 GCC also builds an AVX2 copy, chosen at load time where the
 * processor has it: four lanes instead of SSE2's two, the same operations
 * (no FMA), so the same values. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
void rs_fast_exp_n(double *x, size_t n) {
  for (size_t i = 0; i < n; i++)
    x[i] = rs_fast_exp(x[i]);
}
