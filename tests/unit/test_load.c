/* The latency-by-load bucket index (load.h): the table-driven index is
 * exactly the reference floor(log2(rate) x 3 + 1e-9) mapping, on bucket
 * edges, next to them and over random rates across the whole range. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"

/* The reference mapping (load.c before the tables), written out again. */
static int libm_index(double rate) {
  if (!(rate >= ldexp(1.0, -16)))
    return 0;
  double k = floor(log2(rate) * 3 + 1e-9) + 48;
  if (k > RS_LOAD_BUCKETS - 2)
    k = RS_LOAD_BUCKETS - 2;
  return 1 + (int)k;
}

static void check(double rate) {
  if (rs_load_index(rate) != libm_index(rate))
    fail_msg("%.17g: index %d, log2() gives %d", rate, rs_load_index(rate), libm_index(rate));
}

/* Each edge 2^(k/3), and a few doubles either side of it. */
static void test_load_index_edges(void **state) {
  (void)state;
  for (int k = -16 * 3 - 3; k <= 16 * 3 + 3; k++) {
    double e = exp2(k / 3.0);
    double lo = e, hi = e;
    for (int i = 0; i < 64; i++) {
      check(lo);
      check(hi);
      lo = nextafter(lo, 0.0);
      hi = nextafter(hi, INFINITY);
    }
    check(e * (1 - 1e-9));
    check(e * (1 + 1e-9));
  }
}

/* Log-uniform random rates from below the lowest edge to above the top,
 * the powers of two and their neighbours, and the rates outside. */
static void test_load_index_matches_libm(void **state) {
  (void)state;
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 2000000; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    double u = (double)(x >> 11) * 0x1p-53;
    check(exp2(-18.0 + 36.0 * u));
  }
  for (int e = -20; e <= 20; e++) {
    double p = ldexp(1.0, e);
    check(p);
    check(nextafter(p, 0.0));
    check(nextafter(p, INFINITY));
  }
  const double odd[] = {0.0,     -0.0,  -1.0,     1e-300,    4.9e-324, 65535.99999,
                        65536.0, 1e300, INFINITY, -INFINITY, NAN};
  for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
    check(odd[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_load_index_edges),
      cmocka_unit_test(test_load_index_matches_libm),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
