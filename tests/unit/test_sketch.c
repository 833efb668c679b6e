#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sketch.h"
#include "test_support.h"

/* Floating-point slack on top of the bound for values on bucket edges. */
#define BOUND (RS_SKETCH_ALPHA * (1.0 + 1e-9))
#define GAMMA ((1.0 + RS_SKETCH_ALPHA) / (1.0 - RS_SKETCH_ALPHA))

static void add_all(rs_sketch *s, const double *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    assert_int_equal(rs_sketch_add(s, v[i]), RS_OK);
}

/* Every quantile at 0.1% steps is within alpha of the exact value at the
 * same rank; q = 0 and q = 1 are exact. Sorts v. */
static void check_bound(double *v, size_t n) {
  rs_sketch s;
  rs_sketch_init(&s);
  add_all(&s, v, n);
  qsort(v, n, sizeof(*v), cmp_double);
  assert_int_equal(s.count, n);
  assert_true(rs_sketch_quantile(&s, 0.0) == v[0]);
  assert_true(rs_sketch_quantile(&s, 1.0) == v[n - 1]);
  for (int k = 0; k <= 1000; k++) {
    double q = k / 1000.0;
    double exact = v[(size_t)floor(q * (double)(n - 1))];
    double got = rs_sketch_quantile(&s, q);
    if (fabs(got - exact) > BOUND * exact + RS_SKETCH_MIN_VALUE)
      fail_msg("q=%g: sketch %.17g, exact %.17g", q, got, exact);
  }
  rs_sketch_release(&s);
}

static void test_bound_uniform(void **state) {
  (void)state;
  rng r = {1};
  size_t n = 20000;
  double *v = malloc(n * sizeof(*v));
  for (size_t i = 0; i < n; i++)
    v[i] = 1000.0 * rng_uniform(&r);
  check_bound(v, n);
  free(v);
}

static void test_bound_lognormal(void **state) {
  (void)state;
  rng r = {2};
  size_t n = 20000;
  double *v = malloc(n * sizeof(*v));
  for (size_t i = 0; i < n; i++)
    v[i] = exp(3.0 + 2.0 * rng_normal(&r));
  check_bound(v, n);
  free(v);
}

static void test_bound_with_zeros(void **state) {
  (void)state;
  rng r = {3};
  size_t n = 10000;
  double *v = malloc(n * sizeof(*v));
  for (size_t i = 0; i < n; i++)
    v[i] = rng_uniform(&r) < 0.3 ? 0.0 : 100.0 * rng_uniform(&r);
  check_bound(v, n);
  free(v);
}

static void test_bound_huge_range(void **state) {
  (void)state;
  rng r = {4};
  size_t n = 20000;
  double *v = malloc(n * sizeof(*v));
  rs_sketch s;
  for (size_t i = 0; i < n; i++)
    v[i] = pow(10.0, -6.0 + 18.0 * rng_uniform(&r));
  v[0] = 1e-6;
  v[1] = 1e12;
  rs_sketch_init(&s);
  add_all(&s, v, n);
  /* 18 decades at ratio gamma are ~2072 buckets, plus growth slack */
  assert_true(s.nbins >= 2072);
  assert_true(s.nbins <= 2072 + 256);
  rs_sketch_release(&s);
  check_bound(v, n);
  free(v);
}

static void test_constant(void **state) {
  (void)state;
  rs_sketch s;
  rs_sketch_init(&s);
  for (int i = 0; i < 1000; i++)
    assert_int_equal(rs_sketch_add(&s, 42.5), RS_OK);
  /* clamping into [min, max] makes a constant stream exact */
  for (int k = 0; k <= 100; k++)
    assert_true(rs_sketch_quantile(&s, k / 100.0) == 42.5);
  assert_true(s.sum == 42500.0);
  rs_sketch_release(&s);
}

/* Values on and next to every bucket edge across the whole range: catches
 * an index function that drifts from log(v) / log(gamma). */
static void test_bucket_edges(void **state) {
  (void)state;
  for (int i = -1030; i <= 35000; i += 7) {
    double base = pow(GAMMA, i);
    double vs[3] = {nextafter(base, 0.0), base, nextafter(base, INFINITY)};
    for (int j = 0; j < 3; j++) {
      rs_sketch s;
      rs_sketch_init(&s);
      assert_int_equal(rs_sketch_add(&s, vs[j]), RS_OK);
      assert_int_equal(rs_sketch_add(&s, vs[j] * 4.0 < 1e308 ? vs[j] * 4.0 : vs[j]), RS_OK);
      double got = rs_sketch_quantile(&s, 0.5); /* rank 0: the smaller value */
      if (fabs(got - vs[j]) > BOUND * vs[j])
        fail_msg("gamma^%d: sketch %.17g, value %.17g", i, got, vs[j]);
      rs_sketch_release(&s);
    }
  }
}

/* The reference mapping the table-driven index must reproduce exactly. */
static int32_t libm_index(double v) { return (int32_t)ceil(log(v) * 49.99833328888678); }

/* Every bucket edge from 1e-9 to 1e300 and the values a few ulps either
 * side of it (where the fast index defers to log()), then log-uniform
 * random values over the whole range and short decimals as metrics write
 * them (the fast path): the same index as ceil(log(v) / log(gamma)). */
static void test_index_matches_libm(void **state) {
  (void)state;
  size_t checked = 0;
  for (int i = -1036; i <= 34538; i++) {
    double v = exp((double)i / 49.99833328888678);
    for (int k = 0; k < 6; k++)
      v = nextafter(v, 0.0);
    for (int k = 0; k < 13; k++, v = nextafter(v, INFINITY)) {
      if (v < RS_SKETCH_MIN_VALUE)
        continue;
      if (rs_sketch_index(v) != libm_index(v))
        fail_msg("%.17g: index %d, log() gives %d", v, rs_sketch_index(v), libm_index(v));
      checked++;
    }
  }
  uint64_t x = 88172645463325252ull; /* xorshift64 */
  for (int n = 0; n < 2000000; n++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    double u = (double)(x >> 11) / 9007199254740992.0;
    double v = n % 2 ? exp(-20.7 + u * 711.0) : floor(u * 1e7) / 100.0;
    if (v < RS_SKETCH_MIN_VALUE || !isfinite(v))
      continue;
    if (rs_sketch_index(v) != libm_index(v))
      fail_msg("%.17g: index %d, log() gives %d", v, rs_sketch_index(v), libm_index(v));
    checked++;
  }
  assert_true(checked > 2000000);
}

/* The add path finds the bucket by table (sketch.h): every bucket edge and
 * its neighbours, and values log-uniform over the range, land in the bin of
 * the reference index, and zeros and values below the minimum in the zero
 * count. */
static void test_add_matches_libm(void **state) {
  (void)state;
  rs_sketch s;
  rs_sketch_init(&s);
  uint64_t x = 2463534242ull, zeros = 0, n = 0;
  for (int k = 0; k < 400000; k++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    double u = (double)(x >> 11) / 9007199254740992.0, v;
    if (k % 4 == 0) { /* near an edge */
      v = exp((double)(int)(u * 35000 - 1000) / 49.99833328888678);
      for (int j = (int)(x % 7); j > 0; j--)
        v = nextafter(v, (x & 8) ? INFINITY : 0.0);
    } else {
      v = k % 4 == 1 ? exp(-25.0 + u * 730.0) : floor(u * 1e6) / 100.0;
    }
    if (!isfinite(v))
      continue;
    int32_t i = v >= RS_SKETCH_MIN_VALUE ? libm_index(v) : 0;
    bool held = v >= RS_SKETCH_MIN_VALUE && i >= s.offset && i < s.offset + (int32_t)s.nbins;
    uint64_t was = held ? s.bins[i - s.offset] : 0;
    assert_int_equal(rs_sketch_add(&s, v), RS_OK);
    n++;
    if (v < RS_SKETCH_MIN_VALUE) {
      zeros++;
      continue;
    }
    assert_true(i >= s.offset && i < s.offset + (int32_t)s.nbins);
    if (s.bins[i - s.offset] != was + 1)
      fail_msg("%.17g: not added to bin %d", v, i);
  }
  uint64_t binned = 0;
  for (uint32_t j = 0; j < s.nbins; j++)
    binned += s.bins[j];
  assert_int_equal(binned, n - zeros); /* and so to no other bin */
  assert_int_equal(rs_sketch_zero_count(&s), zeros);
  assert_int_equal(s.count, n);
  rs_sketch_release(&s);
}

/* The cell table (sketch.h) against rs_sketch_index, cell by cell: for
 * every cell of every exponent a value can take (1e-9 to DBL_MAX), its
 * first and last doubles and, where a bucket edge falls inside it (found by
 * bisection over rs_sketch_index), the edge and its neighbours; then three
 * million doubles drawn uniformly over the bit patterns of that range. The
 * add path's index is the reference's for each, whichever exponent's cells
 * were built first. */
static int32_t add_path_index(rs_sketch *s, double v) {
  int32_t idx;
  assert_int_equal(rs_sketch_add_index(s, v, &idx), RS_OK);
  if (idx == INT32_MIN) /* the slow path, which built the cells */
    assert_int_equal(rs_sketch_add_index(s, v, &idx), RS_OK);
  return idx;
}

static void check_add_path(rs_sketch *s, uint64_t b) {
  double v;
  memcpy(&v, &b, sizeof(v));
  int32_t got = add_path_index(s, v), want = rs_sketch_index(v);
  if (got != want)
    fail_msg("%.17g (%016llx): add path index %d, rs_sketch_index %d", v, (unsigned long long)b,
             got, want);
}

static void test_cells_match_index(void **state) {
  (void)state;
  rs_sketch s;
  uint64_t lo_bits, hi_bits, span = UINT64_C(1) << RS_SKETCH_KEY_SHIFT, edges = 0;
  double lo = RS_SKETCH_MIN_VALUE, hi = DBL_MAX;
  memcpy(&lo_bits, &lo, sizeof(lo));
  memcpy(&hi_bits, &hi, sizeof(hi));
  rs_sketch_init(&s);
  /* bins over the whole range first, so that only the cells decide */
  assert_int_equal(rs_sketch_add(&s, lo), RS_OK);
  assert_int_equal(rs_sketch_add(&s, hi), RS_OK);
  for (uint64_t k = lo_bits >> RS_SKETCH_KEY_SHIFT; k <= hi_bits >> RS_SKETCH_KEY_SHIFT; k++) {
    uint64_t first = k << RS_SKETCH_KEY_SHIFT, last = first + span - 1;
    if (first < lo_bits)
      first = lo_bits;
    check_add_path(&s, first);
    check_add_path(&s, last);
    double f, l;
    memcpy(&f, &first, sizeof(f));
    memcpy(&l, &last, sizeof(l));
    if (rs_sketch_index(l) == rs_sketch_index(f))
      continue;
    uint64_t a = first, b = last; /* index(a) < index(b): b -> the edge */
    while (b - a > 1) {
      uint64_t mid = a + (b - a) / 2;
      double m;
      memcpy(&m, &mid, sizeof(m));
      if (rs_sketch_index(m) == rs_sketch_index(f))
        a = mid;
      else
        b = mid;
    }
    check_add_path(&s, b - 1);
    check_add_path(&s, b);
    if (b < last)
      check_add_path(&s, b + 1);
    edges++;
  }
  assert_true(edges > 35000);         /* every bucket edge from 1e-9 to DBL_MAX */
  uint64_t x = 0x9E3779B97F4A7C15ull; /* xorshift64 */
  for (int n = 0; n < 3000000; n++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    check_add_path(&s, lo_bits + x % (hi_bits - lo_bits + 1));
  }
  rs_sketch_release(&s);
}

/* A value added again by its index (rs_sketch_add_again, the interval
 * memo of the statistics) leaves the sketch as rs_sketch_add does, bit for
 * bit: runs of one value, among others that widen the bin array both ways
 * (so its offset moves under a kept index), zeros and values below the
 * minimum, which have no index. The statistics keep the value with its
 * index and add it again while the next one is the same. */
static void test_add_again_matches_add(void **state) {
  (void)state;
  rng r = {17};
  rs_sketch want, got;
  rs_sketch_init(&want);
  rs_sketch_init(&got);
  double last = 0.0;
  int32_t idx = INT32_MIN;
  for (int i = 0; i < 200000; i++) {
    double v;
    switch (rng_next(&r) % 8) {
    case 0: v = exp(rng_uniform(&r) * 60.0 - 30.0); break;  /* another value, anywhere */
    case 1: v = (double)(rng_next(&r) % 3) * 0.5e-9; break; /* zero or below the minimum */
    default: v = last; break;                               /* the last one again */
    }
    assert_int_equal(rs_sketch_add(&want, v), RS_OK);
    if (v == last && idx != INT32_MIN) {
      assert_true(want.min <= v && v <= want.max); /* add_again's precondition */
      assert_int_equal(rs_sketch_add_again(&got, v, idx), RS_OK);
    } else {
      /* no index for a zero, nor from the slow path (a new block or bins) */
      assert_int_equal(rs_sketch_add_index(&got, v, &idx), RS_OK);
      if (idx != INT32_MIN)
        assert_int_equal(idx, rs_sketch_index(v));
    }
    got.sum += v; /* neither keeps the sum: the statistics add it so */
    last = v;
    assert_int_equal(got.count, want.count);
    assert_int_equal(rs_sketch_zero_count(&got), rs_sketch_zero_count(&want));
    assert_memory_equal(&got.sum, &want.sum, sizeof(double));
    assert_memory_equal(&got.min, &want.min, sizeof(double));
    assert_memory_equal(&got.max, &want.max, sizeof(double));
    assert_int_equal(got.offset, want.offset);
    assert_int_equal(got.nbins, want.nbins);
  }
  assert_memory_equal(got.bins, want.bins, want.nbins * sizeof(*want.bins));
  rs_sketch_release(&want);
  rs_sketch_release(&got);
}

static void test_empty(void **state) {
  (void)state;
  rs_sketch s;
  rs_sketch_init(&s);
  assert_true(isnan(rs_sketch_quantile(&s, 0.0)));
  assert_true(isnan(rs_sketch_quantile(&s, 0.5)));
  assert_true(isnan(rs_sketch_quantile(&s, 1.0)));
  assert_int_equal(rs_sketch_count_above(&s, 0.0), 0);
  assert_true(rs_sketch_sum_above(&s, 0.0) == 0.0);
  rs_sketch_release(&s);
  rs_sketch_release(&s); /* release leaves an empty, releasable sketch */
  assert_null(s.bins);
}

static void test_q_outside_unit(void **state) {
  (void)state;
  rs_sketch s;
  rs_sketch_init(&s);
  assert_int_equal(rs_sketch_add(&s, 3.0), RS_OK);
  assert_int_equal(rs_sketch_add(&s, 7.0), RS_OK);
  assert_true(rs_sketch_quantile(&s, -1.0) == 3.0);
  assert_true(rs_sketch_quantile(&s, 2.0) == 7.0);
  assert_true(isnan(rs_sketch_quantile(&s, NAN)));
  rs_sketch_release(&s);
}

static void test_merge_equals_adding_all(void **state) {
  (void)state;
  rng r = {5};
  rs_sketch all, a, b, empty;
  rs_sketch_init(&all);
  rs_sketch_init(&a);
  rs_sketch_init(&b);
  rs_sketch_init(&empty);
  for (int i = 0; i < 5000; i++) {
    /* a holds small values, b large ones and zeros: merging must widen */
    double v = i % 2 ? exp(rng_normal(&r)) : (i % 10 == 0 ? 0.0 : 1e6 * rng_uniform(&r));
    assert_int_equal(rs_sketch_add(&all, v), RS_OK);
    assert_int_equal(rs_sketch_add(i % 2 ? &a : &b, v), RS_OK);
  }
  assert_int_equal(rs_sketch_merge(&a, &empty), RS_OK);
  assert_int_equal(rs_sketch_merge(&empty, &a), RS_OK); /* into an empty sketch */
  assert_int_equal(rs_sketch_merge(&empty, &b), RS_OK);
  assert_int_equal(empty.count, all.count);
  assert_int_equal(rs_sketch_zero_count(&empty), rs_sketch_zero_count(&all));
  assert_true(empty.min == all.min && empty.max == all.max);
  assert_true(fabs(empty.sum - all.sum) <= 1e-9 * all.sum);
  for (int k = 0; k <= 1000; k++)
    assert_true(rs_sketch_quantile(&empty, k / 1000.0) == rs_sketch_quantile(&all, k / 1000.0));
  for (double x = 0.01; x < 2e6; x *= 1.7) {
    assert_int_equal(rs_sketch_count_above(&empty, x), rs_sketch_count_above(&all, x));
    assert_true(fabs(rs_sketch_sum_above(&empty, x) - rs_sketch_sum_above(&all, x)) <=
                1e-9 * all.sum);
  }
  rs_sketch_release(&all);
  rs_sketch_release(&a);
  rs_sketch_release(&b);
  rs_sketch_release(&empty);
}

static void test_count_and_sum_above(void **state) {
  (void)state;
  rs_sketch s;
  rs_sketch_init(&s);
  for (int i = 1; i <= 1000; i++)
    assert_int_equal(rs_sketch_add(&s, (double)i), RS_OK);
  for (double x = 1.5; x < 1000; x *= 1.3) {
    uint64_t c = rs_sketch_count_above(&s, x);
    /* exact counts above x and above x*(1+2a) bracket the bucketed answer */
    uint64_t hi = (uint64_t)(1000 - floor(x));
    uint64_t lo = (uint64_t)(1000 - floor(x * (1.0 + 2.0 * RS_SKETCH_ALPHA)));
    if (c > hi || c < lo)
      fail_msg("count_above(%g) = %llu, expected in [%llu, %llu]", x, (unsigned long long)c,
               (unsigned long long)lo, (unsigned long long)hi);
    /* and the exact sums above the same two limits bracket the sum */
    double sum = rs_sketch_sum_above(&s, x), s_hi = 0, s_lo = 0;
    for (int i = 1; i <= 1000; i++) {
      s_hi += i > x ? i : 0;
      s_lo += i > x * (1.0 + 2.0 * RS_SKETCH_ALPHA) ? i : 0;
    }
    if (sum > s_hi * (1 + BOUND) || sum < s_lo * (1 - BOUND))
      fail_msg("sum_above(%g) = %g, expected in [%g, %g]", x, sum, s_lo, s_hi);
  }
  assert_int_equal(rs_sketch_count_above(&s, 1000.0), 0);
  assert_int_equal(rs_sketch_count_above(&s, 0.5), 1000);
  assert_true(rs_sketch_sum_above(&s, 0.5) == 500500.0);
  assert_true(rs_sketch_sum_above(&s, 1000.0) == 0.0);
  rs_sketch_release(&s);

  /* the gap shape stats uses: 99 intervals of 10 s and one of 100 s */
  rs_sketch_init(&s);
  for (int i = 0; i < 99; i++)
    assert_int_equal(rs_sketch_add(&s, 10.0), RS_OK);
  assert_int_equal(rs_sketch_add(&s, 100.0), RS_OK);
  assert_int_equal(rs_sketch_count_above(&s, 30.0), 1);
  assert_true(rs_sketch_sum_above(&s, 30.0) == 100.0); /* clamped to the exact max */
  rs_sketch_release(&s);
}

static void test_zeros_count_as_zero(void **state) {
  (void)state;
  rs_sketch s;
  rs_sketch_init(&s);
  assert_int_equal(rs_sketch_add(&s, 0.0), RS_OK);
  assert_int_equal(rs_sketch_add(&s, RS_SKETCH_MIN_VALUE / 2), RS_OK);
  assert_int_equal(rs_sketch_add(&s, 5.0), RS_OK);
  assert_int_equal(rs_sketch_zero_count(&s), 2);
  assert_int_equal(rs_sketch_count_above(&s, 0.0), 1);
  assert_int_equal(rs_sketch_count_above(&s, -1.0), 3);
  assert_true(rs_sketch_quantile(&s, 0.5) == 0.0);
  rs_sketch_release(&s);
}

static void test_memory_flat(void **state) {
  (void)state;
  rng r = {6};
  rs_sketch s;
  uint32_t after_1k = 0;
  rs_sketch_init(&s);
  for (int i = 0; i < 1000000; i++) {
    assert_int_equal(rs_sketch_add(&s, 1.0 + 99.0 * rng_uniform(&r)), RS_OK);
    if (i == 999)
      after_1k = s.nbins;
  }
  /* [1, 100) spans ~231 buckets: the array stops growing with the range */
  assert_int_equal(s.count, 1000000);
  assert_true(s.nbins <= 231 + 2 * 64 + 2);
  assert_true(s.nbins == after_1k);
  rs_sketch_release(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bound_uniform),
      cmocka_unit_test(test_bound_lognormal),
      cmocka_unit_test(test_bound_with_zeros),
      cmocka_unit_test(test_bound_huge_range),
      cmocka_unit_test(test_constant),
      cmocka_unit_test(test_bucket_edges),
      cmocka_unit_test(test_index_matches_libm),
      cmocka_unit_test(test_add_matches_libm),
      cmocka_unit_test(test_cells_match_index),
      cmocka_unit_test(test_add_again_matches_add),
      cmocka_unit_test(test_empty),
      cmocka_unit_test(test_q_outside_unit),
      cmocka_unit_test(test_merge_equals_adding_all),
      cmocka_unit_test(test_count_and_sum_above),
      cmocka_unit_test(test_zeros_count_as_zero),
      cmocka_unit_test(test_memory_flat),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
