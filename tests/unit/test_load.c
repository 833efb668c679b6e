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

/* Every threshold exactly: within each binary exponent of [2^-16, 2^16),
 * the least double of each next index of the reference, found here by
 * bisection over it, and the double below it get the reference's index
 * (the thresholds sit about 2e-10 below 2^(k/3), a million doubles away:
 * the edge test above does not reach them). */
static void test_load_index_thresholds(void **state) {
  (void)state;
  int found = 0;
  for (int e = -16; e < 16; e++) {
    double lo = ldexp(1.0, e), hi = nextafter(2.0 * lo, 0.0);
    uint64_t a, b;
    memcpy(&a, &lo, sizeof(a));
    memcpy(&b, &hi, sizeof(b));
    for (int i = libm_index(lo) + 1; i <= libm_index(hi); i++) {
      uint64_t x = a, y = b; /* index(x) < i <= index(y) */
      while (y - x > 1) {
        uint64_t mid = x + (y - x) / 2;
        double m;
        memcpy(&m, &mid, sizeof(m));
        if (libm_index(m) >= i)
          y = mid;
        else
          x = mid;
      }
      double t, below;
      memcpy(&t, &y, sizeof(t));
      memcpy(&below, &x, sizeof(below));
      check(t);
      check(below);
      check(nextafter(t, INFINITY));
      found++;
    }
  }
  assert_int_equal(found, 3 * 32 - 1); /* three an exponent, less the clamped top */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_load_index_edges),
      cmocka_unit_test(test_load_index_matches_libm),
      cmocka_unit_test(test_load_index_thresholds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
