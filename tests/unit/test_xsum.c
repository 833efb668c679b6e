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

/* The sum as w words alone (the pending block merged in), so that two sums
 * of the same values compare bit for bit whatever their blocks hold. */
static rs_xsum canon(const rs_xsum *s) {
  rs_xsum out;
  memset(&out, 0, sizeof(out));
  rs_xsum_merge(&out, s);
  return out;
}

static rs_xsum2 canon2(const rs_xsum2 *s) {
  rs_xsum2 out;
  memset(&out, 0, sizeof(out));
  rs_xsum2_merge(&out, s);
  return out;
}

#define assert_same_sum(a, b)                                                                      \
  do {                                                                                             \
    rs_xsum ca_ = canon(a), cb_ = canon(b);                                                        \
    assert_memory_equal(ca_.w, cb_.w, sizeof(ca_.w));                                              \
  } while (0)
#define assert_same_sum2(a, b)                                                                     \
  do {                                                                                             \
    rs_xsum2 ca_ = canon2(a), cb_ = canon2(b);                                                     \
    assert_memory_equal(ca_.w, cb_.w, sizeof(ca_.w));                                              \
  } while (0)

static void test_order_and_split(void **state) {
  (void)state;
  static double v[N];
  rng r = {7};
  for (int i = 0; i < N; i++)
    v[i] = value(&r);
  rs_xsum fwd = {0}, back = {0}, halves[2] = {0};
  rs_xsum2 fwd2 = {0}, back2 = {0}, halves2[2] = {0};
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
    assert_same_sum(&halves[1], &fwd);
    assert_same_sum2(&halves2[1], &fwd2);
  }
  assert_same_sum(&fwd, &back);
  assert_same_sum2(&fwd2, &back2);
}

/* Values k / 1024 with integer k: the exact sum is an integer sum. */
static void test_exact_against_integers(void **state) {
  (void)state;
  rng r = {11};
  rs_xsum s = {0};
  rs_xsum2 s2 = {0};
  uint64_t k_sum = 0;
  for (int i = 0; i < 100000; i++) {
    uint64_t k = rng_next(&r) % 10000000; /* up to about 9766 */
    rs_xsum_add(&s, (double)k / 1024.0);
    rs_xsum2_add(&s2, (double)k / 1024.0, (double)k / 1024.0);
    k_sum += k;
  }
  assert_true(rs_xsum_value(&s) == (double)k_sum / 1024.0);
  /* n Sxx - Sx^2 over n, for a constant: exactly 0 */
  rs_xsum c = {0};
  rs_xsum2 c2 = {0};
  for (int i = 0; i < 777; i++) {
    rs_xsum_add(&c, 0.1);
    rs_xsum2_add(&c2, 0.1, 0.1);
  }
  assert_true(rs_xsum_comoment(777, &c, &c, &c2) == 0.0);
  /* a known variance: 1..n has sum (x - mean)^2 = n (n^2 - 1) / 12 */
  rs_xsum a = {0};
  rs_xsum2 a2 = {0};
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
  rs_xsum sx = {0}, sy = {0};
  rs_xsum2 sxy = {0};
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
  rs_xsum s = {0};
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
  rs_xsum fast = {0}, slow = {0};
  rs_xsum2 fast2 = {0}, slow2 = {0};
  const double edge[] = {
      0x1p-44, 0x1p-45, 0x1.fffffffffffffp-45, 0x1p99, 0x1.fffffffffffffp99, 1e-9, 1e-300, 5e-324,
      0.0,     0x1p50};
  for (int i = 0; i < 20000; i++) {
    double x = i < 10 ? edge[i] : value(&r), y = i < 10 ? edge[9 - i] : value(&r);
    rs_xsum_add(&fast, x);
    rs_xsum_add_slow(&slow, x);
    rs_xsum2_add(&fast2, x, y);
    rs_xsum2_add_slow(&slow2, x, y);
    assert_same_sum(&fast, &slow);
    assert_same_sum2(&fast2, &slow2);
  }
}

/* Values for the pending blocks (xsum.h): runs of one narrow range (the
 * block's window), jumps to another range (outside it, and the window's
 * move once the block is empty), and the edges of the fast ranges. */
static double block_value(rng *r, int run) {
  static const double edge[] = {0x1p-44,
                                0x1.fffffffffffffp-45,
                                0x1p99,
                                0x1.fffffffffffffp99,
                                0x1p100,
                                1e300,
                                5e-324,
                                0x1p-1022,
                                1e-9,
                                0x1p-4,
                                0x1.fffffffffffffp6,
                                0x1p7,
                                0x1.fffffffffffffp-5};
  switch (run % 5) {
  case 0: return (double)(rng_next(r) % 1000) / 10.0; /* 0 .. 99.9, mostly in one window */
  case 1: return ldexp(1.0 + rng_uniform(r), (int)(rng_next(r) % 11) - 4);
  case 2: return edge[rng_next(r) % (sizeof(edge) / sizeof(edge[0]))];
  case 3: return exp(rng_uniform(r) * 80.0 - 40.0);
  default: return 0x1.fffffffffffffp6; /* the window's top mantissa, over and over: carries */
  }
}

/* The blocks against the reference adds of xsum.c (rs_xsum_add_slow, which
 * never uses them), value by value, over runs that move the window. */
static void test_blocks_match_reference(void **state) {
  (void)state;
  rng r = {29};
  rs_xsum fast, ref;
  rs_xsum2 fast2, ref2, sq, sqref;
  memset(&fast, 0, sizeof(fast));
  memset(&ref, 0, sizeof(ref));
  memset(&fast2, 0, sizeof(fast2));
  memset(&ref2, 0, sizeof(ref2));
  memset(&sq, 0, sizeof(sq));
  memset(&sqref, 0, sizeof(sqref));
  for (int run = 0; run < 200; run++) {
    int len = 1 + (int)(rng_next(&r) % 3000);
    for (int i = 0; i < len; i++) {
      double x = block_value(&r, run), y = block_value(&r, run + (i & 1));
      rs_xsum_add(&fast, x);
      rs_xsum_add_slow(&ref, x);
      rs_xsum2_add(&fast2, x, y);
      rs_xsum2_add_slow(&ref2, x, y);
      rs_xsum2_add(&sq, x, x);
      rs_xsum2_add_slow(&sqref, x, x);
    }
    assert_same_sum(&fast, &ref);
    assert_same_sum2(&fast2, &ref2);
    assert_same_sum2(&sq, &sqref);
    assert_true(rs_xsum_value(&fast) == rs_xsum_value(&ref));
  }
  /* a fresh sum whose first value is far from the default window, then
   * values near it: the window moved there */
  memset(&fast, 0, sizeof(fast));
  memset(&ref, 0, sizeof(ref));
  for (int i = 0; i < 1000; i++) {
    double x = 3.0e6 + (double)i;
    rs_xsum_add(&fast, x);
    rs_xsum_add_slow(&ref, x);
  }
  assert_true(fast.p[0] != 0);
  assert_same_sum(&fast, &ref);
  assert_true(rs_xsum_value(&fast) == 1000 * 3.0e6 + 999.0 * 1000.0 / 2.0);
}

/* Cancellation in the co-moment with the sums in blocks: a constant series
 * gives exactly 0, and x against 200 - x exactly minus the variance sum. */
static void test_blocks_cancel(void **state) {
  (void)state;
  rs_xsum sx, sy;
  rs_xsum2 sxx, sxy;
  memset(&sx, 0, sizeof(sx));
  memset(&sy, 0, sizeof(sy));
  memset(&sxx, 0, sizeof(sxx));
  memset(&sxy, 0, sizeof(sxy));
  for (int i = 0; i < 100000; i++) {
    rs_xsum_add(&sx, 0.1);
    rs_xsum2_add(&sxx, 0.1, 0.1);
  }
  assert_true(sx.p[0] != 0 && sxx.p[0] != 0); /* the blocks took them */
  assert_true(rs_xsum_comoment(100000, &sx, &sx, &sxx) == 0.0);
  memset(&sx, 0, sizeof(sx));
  memset(&sxx, 0, sizeof(sxx));
  for (int i = 0; i <= 200; i++) {
    rs_xsum_add(&sx, (double)i);
    rs_xsum_add(&sy, (double)(200 - i));
    rs_xsum2_add(&sxx, (double)i, (double)i);
    rs_xsum2_add(&sxy, (double)i, (double)(200 - i));
  }
  double vxx = rs_xsum_comoment(201, &sx, &sx, &sxx);
  double vxy = rs_xsum_comoment(201, &sx, &sy, &sxy);
  assert_true(vxx == 201.0 * (201.0 * 201.0 - 1.0) / 12.0);
  assert_true(vxy == -vxx);
}

/* rs_xsum_add_moments against its two adds, state for state (the words,
 * the blocks and their windows), over runs that move the windows: from a
 * fresh pair (windows at twice each other), after both moved to one value
 * (delta 1), after they moved apart (values to one only), and at the
 * clamped ends of the range. */
static void assert_same_state(const rs_xsum *a, const rs_xsum2 *a2, const rs_xsum *b,
                              const rs_xsum2 *b2) {
  assert_memory_equal(a->w, b->w, sizeof(a->w));
  assert_memory_equal(a->p, b->p, sizeof(a->p));
  assert_int_equal(a->pb, b->pb);
  assert_memory_equal(a2->w, b2->w, sizeof(a2->w));
  assert_memory_equal(a2->p, b2->p, sizeof(a2->p));
  assert_int_equal(a2->pb, b2->pb);
}

static void test_moments_match_two_adds(void **state) {
  (void)state;
  rng r = {43};
  static const double firsts[] = {0.5, 3005.0, 16384.0, 1e-9, 0x1p49, 0x1.8p-44, 7.0};
  for (int run = 0; run < 400; run++) {
    rs_xsum s1, t1;
    rs_xsum2 s2, t2;
    memset(&s1, 0, sizeof(s1));
    memset(&s2, 0, sizeof(s2));
    memset(&t1, 0, sizeof(t1));
    memset(&t2, 0, sizeof(t2));
    if (run % 3 == 1) { /* both windows moved to one value: delta 1 */
      double f = firsts[rng_next(&r) % (sizeof(firsts) / sizeof(firsts[0]))];
      rs_xsum_add_moments(&s1, &s2, f);
      rs_xsum_add(&t1, f);
      rs_xsum2_add(&t2, f, f);
    } else if (run % 3 == 2) { /* s2's window moved alone: the two adds */
      double f = ldexp(1.0 + rng_uniform(&r), (int)(rng_next(&r) % 60) - 20);
      rs_xsum2_add(&s2, f, f);
      rs_xsum2_add(&t2, f, f);
    }
    int len = 1 + (int)(rng_next(&r) % 2000);
    for (int i = 0; i < len; i++) {
      double x = (i & 3) == 3 ? value(&r) : block_value(&r, run);
      rs_xsum_add_moments(&s1, &s2, x);
      rs_xsum_add(&t1, x);
      rs_xsum2_add(&t2, x, x);
      if ((i & 255) == 0)
        assert_same_state(&s1, &s2, &t1, &t2);
    }
    assert_same_state(&s1, &s2, &t1, &t2);
  }
  /* carries out of crafted blocks: every pair of low words near a wrap,
   * values whose squares' low words are all ones or none */
  static const uint64_t words[] = {0, 1, UINT64_C(1) << 63, UINT64_MAX - 1, UINT64_MAX};
  static const double vals[] = {0x1.fffffffffffffp6, 0x1p-4, 0x1.0000000000001p0, 99.9, 3.0};
  for (size_t i = 0; i < 5 * 5 * 5 * 5; i++) {
    rs_xsum s1, t1;
    rs_xsum2 s2, t2;
    memset(&s1, 0, sizeof(s1));
    memset(&s2, 0, sizeof(s2));
    s1.p[0] = words[i % 5];
    s2.p[0] = words[i / 5 % 5];
    s2.p[1] = words[i / 25 % 5];
    t1 = s1;
    t2 = s2;
    double x = vals[i / 125];
    rs_xsum_add_moments(&s1, &s2, x);
    rs_xsum_add(&t1, x);
    rs_xsum2_add(&t2, x, x);
    assert_same_state(&s1, &s2, &t1, &t2);
  }
  /* the fast path taken: a fresh pair in the default window, and a pair
   * moved to 3005 (delta 1), hold their values in the blocks */
  rs_xsum s1;
  rs_xsum2 s2;
  memset(&s1, 0, sizeof(s1));
  memset(&s2, 0, sizeof(s2));
  rs_xsum_add_moments(&s1, &s2, 25.6);
  assert_true((s1.p[0] | s1.p[1]) != 0 && (s2.p[0] | s2.p[1] | s2.p[2]) != 0);
  memset(&s1, 0, sizeof(s1));
  memset(&s2, 0, sizeof(s2));
  rs_xsum_add_moments(&s1, &s2, 3005.0); /* moves both windows, to w */
  assert_int_equal((uint32_t)(2 * s1.pb - s2.pb), 1);
  rs_xsum_add_moments(&s1, &s2, 3007.0);
  assert_true((s1.p[0] | s1.p[1]) != 0 && (s2.p[0] | s2.p[1] | s2.p[2]) != 0);
  assert_true(rs_xsum_value(&s1) == 6012.0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_order_and_split),   cmocka_unit_test(test_exact_against_integers),
      cmocka_unit_test(test_comoment_sign),     cmocka_unit_test(test_rounding),
      cmocka_unit_test(test_fast_matches_slow), cmocka_unit_test(test_blocks_match_reference),
      cmocka_unit_test(test_blocks_cancel),     cmocka_unit_test(test_moments_match_two_adds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
