/* Exact sums (src/core/stats/xsum.c): the same bits in any order and any
 * split, checked against integer arithmetic where the exact answer is
 * known. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "test_support.h"
#include "xsum.h"

#define N 4000

/* Values a metric may hold: 0, 1e-9 .. 2^50, many short decimals. */
static double value(rng *r) {
  switch (rng_next(r) % 4) {
  case 0: return (double)(rng_next(r) % 100000) / 10.0; /* "1234.5" */
  case 1: return exp(rng_uniform(r) * 50.0 - 20.0);     /* 2e-9 .. 1e13 */
  case 2: return (rng_next(r) % 8) == 0 ? 0.0 : 1e-9 * (1 + rng_uniform(r));
  default: return ldexp(rng_uniform(r), 50); /* up to 1 PiB */
  }
}

static void test_order_and_split(void **state) {
  (void)state;
  static double v[N];
  rng r = {7};
  for (int i = 0; i < N; i++)
    v[i] = value(&r);
  rs_xsum fwd = {{0}}, back = {{0}}, halves[2] = {{{0}}, {{0}}};
  rs_xsum2 fwd2 = {{0}}, back2 = {{0}}, halves2[2] = {{{0}}, {{0}}};
  for (int i = 0; i < N; i++) {
    rs_xsum_add(&fwd, v[i]);
    rs_xsum2_add(&fwd2, v[i], v[N - 1 - i]);
    rs_xsum_add(&back, v[N - 1 - i]);
    rs_xsum2_add(&back2, v[N - 1 - i], v[i]);
  }
  for (int trial = 0; trial < 20; trial++) {
    size_t cut = (size_t)(rng_next(&r) % N);
    memset(halves, 0, sizeof(halves));
    memset(halves2, 0, sizeof(halves2));
    for (size_t i = 0; i < N; i++) {
      rs_xsum_add(&halves[i >= cut], v[i]);
      rs_xsum2_add(&halves2[i >= cut], v[i], v[N - 1 - i]);
    }
    rs_xsum_merge(&halves[1], &halves[0]); /* the later part first: still the same */
    rs_xsum2_merge(&halves2[1], &halves2[0]);
    assert_memory_equal(&halves[1], &fwd, sizeof(fwd));
    assert_memory_equal(&halves2[1], &fwd2, sizeof(fwd2));
  }
  assert_memory_equal(&fwd, &back, sizeof(fwd));
  assert_memory_equal(&fwd2, &back2, sizeof(fwd2));
}

/* Values k / 1024 with integer k: the exact sum is an integer sum. */
static void test_exact_against_integers(void **state) {
  (void)state;
  rng r = {11};
  rs_xsum s = {{0}};
  rs_xsum2 s2 = {{0}};
  uint64_t k_sum = 0;
  for (int i = 0; i < 100000; i++) {
    uint64_t k = rng_next(&r) % 10000000; /* up to about 9766 */
    rs_xsum_add(&s, (double)k / 1024.0);
    rs_xsum2_add(&s2, (double)k / 1024.0, (double)k / 1024.0);
    k_sum += k;
  }
  assert_true(rs_xsum_value(&s) == (double)k_sum / 1024.0);
  /* n Sxx - Sx^2 over n, for a constant: exactly 0 */
  rs_xsum c = {{0}};
  rs_xsum2 c2 = {{0}};
  for (int i = 0; i < 777; i++) {
    rs_xsum_add(&c, 0.1);
    rs_xsum2_add(&c2, 0.1, 0.1);
  }
  assert_true(rs_xsum_comoment(777, &c, &c, &c2) == 0.0);
  /* a known variance: 1..n has sum (x - mean)^2 = n (n^2 - 1) / 12 */
  rs_xsum a = {{0}};
  rs_xsum2 a2 = {{0}};
  for (int i = 1; i <= 1001; i++) {
    rs_xsum_add(&a, (double)i);
    rs_xsum2_add(&a2, (double)i, (double)i);
  }
  assert_true(rs_xsum_comoment(1001, &a, &a, &a2) == 1001.0 * (1001.0 * 1001.0 - 1.0) / 12.0);
  assert_true(rs_xsum_value(&a) == 1001.0 * 1002.0 / 2.0);
}

/* A covariance's sign and size: y = 2 - x over x = 0..1 (negative). */
static void test_comoment_sign(void **state) {
  (void)state;
  rs_xsum sx = {{0}}, sy = {{0}};
  rs_xsum2 sxy = {{0}};
  for (int i = 0; i <= 100; i++) {
    double x = i / 100.0, y = 2.0 - x;
    rs_xsum_add(&sx, x);
    rs_xsum_add(&sy, y);
    rs_xsum2_add(&sxy, x, y);
  }
  double c = rs_xsum_comoment(101, &sx, &sy, &sxy);
  /* sum (x - 0.5)^2 over i/100 = 101 * (101^2 - 1) / 12 / 100^2 */
  double want = -101.0 * (101.0 * 101.0 - 1.0) / 12.0 / 10000.0;
  assert_true(fabs(c - want) <= 1e-13 * fabs(want));
  assert_true(rs_xsum_comoment(0, &sx, &sy, &sxy) == 0.0);
}

/* Correct rounding of the result: 1 + 2^-53 + 2^-80 rounds up, 1 + 2^-53
 * (a tie) to even. */
static void test_rounding(void **state) {
  (void)state;
  rs_xsum s = {{0}};
  rs_xsum_add(&s, 1.0);
  rs_xsum_add(&s, 0x1p-53);
  assert_true(rs_xsum_value(&s) == 1.0);
  rs_xsum_add(&s, 0x1p-80);
  assert_true(rs_xsum_value(&s) == 1.0 + 0x1p-52);
}

/* The inline fast paths give the bits of the general code in xsum.c,
 * including values at the edges of their ranges. */
static void test_fast_matches_slow(void **state) {
  (void)state;
  rng r = {13};
  rs_xsum fast = {{0}}, slow = {{0}};
  rs_xsum2 fast2 = {{0}}, slow2 = {{0}};
  const double edge[] = {
      0x1p-44, 0x1p-45, 0x1.fffffffffffffp-45, 0x1p99, 0x1.fffffffffffffp99, 1e-9, 1e-300, 5e-324,
      0.0,     0x1p50};
  for (int i = 0; i < 20000; i++) {
    double x = i < 10 ? edge[i] : value(&r), y = i < 10 ? edge[9 - i] : value(&r);
    rs_xsum_add(&fast, x);
    rs_xsum_add_slow(&slow, x);
    rs_xsum2_add(&fast2, x, y);
    rs_xsum2_add_slow(&slow2, x, y);
    assert_memory_equal(&fast, &slow, sizeof(fast));
    assert_memory_equal(&fast2, &slow2, sizeof(fast2));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_order_and_split),   cmocka_unit_test(test_exact_against_integers),
      cmocka_unit_test(test_comoment_sign),     cmocka_unit_test(test_rounding),
      cmocka_unit_test(test_fast_matches_slow),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
