/* Parts of one file (rs_stats_new_part, rs_stats_continues,
 * rs_stats_append): random rows folded in one pass and split at random
 * points into parts that are appended give the same summary, bit for bit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rightsize/stats.h"
#include "stats_internal.h"
#include "test_support.h"

#define NROWS 6000
#define T0 1764507600.0

static rs_sample rows[NROWS];

static void put(rs_sample *s, rs_metric m, double v) {
  s->present |= 1u << m;
  s->v[m] = v;
}

/* Rows of up to three GPUs per time, with gaps, repeated times, absent
 * metrics, request events and (unordered) steps back in time. */
static void make_rows(rng *r, bool unordered) {
  double t = T0;
  for (size_t i = 0; i < NROWS; i++) {
    rs_sample *s = &rows[i];
    memset(s, 0, sizeof(*s));
    uint64_t u = rng_next(r) % 100;
    int gpu = (int)(i % 3);
    if (gpu == 0)
      t += u < 3 ? 4000.0 : u < 6 ? 0.0 : 15.0;
    if (unordered && u == 99)
      t -= 900.0;
    s->t = t;
    s->gpu = gpu == 2 && u < 50 ? -1 : gpu;
    s->path = "a.csv";
    s->line = i + 2;
    s->t_col = 1;
    if (u == 42) { /* one request's tokens: an event, off the sampling grid */
      put(s, RS_METRIC_PROMPT_TOKENS, (double)(rng_next(r) % 2000));
      put(s, RS_METRIC_OUTPUT_TOKENS, (double)(rng_next(r) % 500));
      continue;
    }
    if (gpu != 0 && u % 5 == 1) { /* an idle GPU's row: zeros, of two sets */
      put(s, RS_METRIC_GPU_MEM_USED, 0.0);
      if (u % 10 == 1)
        put(s, RS_METRIC_GPU_UTIL, 0.0);
      if (s->gpu < 0)
        put(s, RS_METRIC_CPU_UTIL, 0.0); /* a pooled metric's zero */
      continue;
    }
    put(s, RS_METRIC_GPU_MEM_USED, 1e9 + floor(rng_uniform(r) * 3e9));
    if (u % 7 != 0)
      put(s, RS_METRIC_GPU_UTIL, floor(rng_uniform(r) * 1000.0) / 10.0);
    if (gpu == 0) {
      put(s, RS_METRIC_REQUEST_RATE, 10.0 + floor(rng_uniform(r) * 500.0) / 100.0);
      put(s, RS_METRIC_LATENCY_P50, 5.0 + rng_uniform(r) * 5.0);
      if (u % 3 != 0)
        put(s, RS_METRIC_LATENCY_P99, 18.0 + rng_uniform(r) * 4.0);
      put(s, RS_METRIC_CPU_UTIL, rng_uniform(r) * 100.0);
      put(s, RS_METRIC_HOST_MEM_USED, 8e9 + floor(rng_uniform(r) * 1e9));
      put(s, RS_METRIC_NET_RX, rng_uniform(r) * 1e8);
      put(s, RS_METRIC_TPOT_P50, 20.0 + rng_uniform(r));
    }
  }
}

static rs_stats *fresh(const rs_stats_options *o) {
  rs_stats *st = NULL;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_stats_new(&st, o, &err), RS_OK);
  rs_stats_begin_file(st, "a.csv");
  return st;
}

/* Whether every value of s is +0 (and it has one). */
static bool all_zeros(const rs_sample *s) {
  for (uint32_t bits = s->present; bits != 0; bits &= bits - 1)
    if (s->v[__builtin_ctz(bits)] != 0.0)
      return false;
  return s->present != 0;
}

/* With zeros, rows of zeros go to rs_stats_add_zeros, as the native
 * reader hands an idle GPU's repeated rows over. */
static bool zeros;

static void add_rows(rs_stats *st, size_t from, size_t to) {
  rs_error err;
  rs_error_clear(&err);
  for (size_t i = from; i < to; i++)
    assert_int_equal(zeros && all_zeros(&rows[i]) ? rs_stats_add_zeros(st, &rows[i], &err)
                                                  : rs_stats_add(st, &rows[i], &err),
                     RS_OK);
}

static void finish(rs_stats *st, rs_endpoint_stats *out) {
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_stats_finish(st, out, &err), RS_OK);
}

static int cmp_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return x < y ? -1 : x > y;
}

/* The rows [0, NROWS) cut at n - 1 random points into parts, appended as
 * ingest_parts.c does (into the first, that into ctx), or one by one into
 * ctx; ctx may hold a first file already. false when a cut does not fit
 * (the caller reads in one pass then). */
static bool fold_parts(rs_stats *ctx, rng *r, size_t n, bool into_first) {
  size_t cut[9];
  rs_stats *part[9];
  rs_error err;
  rs_error_clear(&err);
  cut[0] = 0;
  cut[n] = NROWS;
  for (size_t k = 1; k < n; k++)
    cut[k] = (size_t)(rng_next(r) % NROWS);
  qsort(cut + 1, n - 1, sizeof(cut[0]), cmp_size);
  for (size_t k = 0; k < n; k++) {
    assert_int_equal(rs_stats_new_part(&part[k], ctx, &err), RS_OK);
    add_rows(part[k], cut[k], cut[k + 1]);
  }
  bool ok = true;
  rs_stats *acc = into_first ? part[0] : ctx;
  for (size_t k = into_first ? 1 : 0; k < n && ok; k++) {
    ok = rs_stats_continues(acc, part[k]);
    if (ok)
      assert_int_equal(rs_stats_append(acc, part[k], &err), RS_OK);
  }
  if (ok && into_first) {
    ok = rs_stats_continues(ctx, acc);
    if (ok)
      assert_int_equal(rs_stats_append(ctx, acc, &err), RS_OK);
  }
  for (size_t k = 0; k < n; k++)
    rs_stats_free(part[k]);
  return ok;
}

static void check(bool unordered, bool second_file) {
  static rs_endpoint_stats one, split;
  rs_stats_options o = {.allow_unordered = unordered, .window_s = 600.0};
  rng r = {unordered ? 5u : 3u};
  size_t fitted = 0;
  make_rows(&r, unordered);
  rs_stats *ref = fresh(&o);
  if (second_file) {
    add_rows(ref, 0, NROWS / 2);
    rs_stats_begin_file(ref, "b.csv");
  }
  add_rows(ref, 0, NROWS);
  finish(ref, &one);
  rs_stats_free(ref);
  for (int trial = 0; trial < 40; trial++) {
    rs_stats *ctx = fresh(&o);
    zeros = trial % 4 < 2; /* the parts' rows of zeros counted in runs, or one by one */
    if (second_file) {
      add_rows(ctx, 0, NROWS / 2);
      rs_stats_begin_file(ctx, "b.csv");
    }
    if (fold_parts(ctx, &r, 2 + (size_t)(rng_next(&r) % 7), trial % 2 == 0)) {
      finish(ctx, &split);
      assert_memory_equal(&one, &split, sizeof(one));
      fitted++;
    }
    rs_stats_free(ctx);
  }
  zeros = false;
  assert_true(fitted >= (unordered ? 1u : 40u)); /* in time order, every cut fits */
}

static void test_parts_in_order(void **state) {
  (void)state;
  check(false, false);
}

static void test_parts_after_a_file(void **state) {
  (void)state;
  check(false, true);
}

static void test_parts_unordered(void **state) {
  (void)state;
  check(true, false);
}

/* What rs_stats_add keeps from row to row to skip work (a slot's known set
 * of metrics, the grid's last time, the last interval) changes nothing:
 * the rows each taken with every test give the same summary, bit for bit,
 * with --exact too and with a second file. */
static void test_rows_from_scratch(void **state) {
  (void)state;
  static rs_endpoint_stats kept, scratch;
  rs_error err;
  rs_error_clear(&err);
  for (int c = 0; c < 8; c++) {
    bool unordered = c & 1, exact = c & 2, second_file = c & 4;
    rs_stats_options o = {.allow_unordered = unordered, .exact = exact, .window_s = 600.0};
    rng r = {11u + (uint64_t)c};
    rs_stats *st[2];
    make_rows(&r, unordered);
    for (int k = 0; k < 2; k++) {
      st[k] = fresh(&o);
      for (size_t i = 0; i < NROWS; i++) {
        if (second_file && i == NROWS / 2)
          rs_stats_begin_file(st[k], "b.csv");
        if (k == 1)
          rs_stats_forget_rows(st[k]);
        assert_int_equal(rs_stats_add(st[k], &rows[i], &err), RS_OK);
      }
    }
    memset(&kept, 0, sizeof(kept));
    memset(&scratch, 0, sizeof(scratch));
    finish(st[0], &kept);
    finish(st[1], &scratch);
    assert_memory_equal(&kept, &scratch, sizeof(kept));
    rs_stats_free(st[0]);
    rs_stats_free(st[1]);
  }
}

/* Rows of zeros through rs_stats_add_zeros (counted per run of one set)
 * give the summary rs_stats_add gives them, bit for bit: in one pass, with
 * --exact (which keeps the values), and merged from two statistics that
 * each still hold rows of zeros not yet counted. */
static void test_zero_rows_match_adds(void **state) {
  (void)state;
  static rs_endpoint_stats plain, counted;
  rs_error err;
  rs_error_clear(&err);
  for (int c = 0; c < 8; c++) {
    bool unordered = c & 1, exact = c & 2, merged = c & 4;
    rs_stats_options o = {.allow_unordered = unordered, .exact = exact, .window_s = 600.0};
    rng r = {21u + (uint64_t)c};
    rs_endpoint_stats *out[2] = {&plain, &counted};
    size_t nzero = 0;
    make_rows(&r, unordered);
    for (size_t i = 0; i < NROWS; i++)
      nzero += all_zeros(&rows[i]);
    assert_true(nzero > NROWS / 10);
    for (int k = 0; k < 2; k++) {
      zeros = k == 1;
      rs_stats *st = fresh(&o);
      if (merged) {
        rs_stats *b = fresh(&o);
        add_rows(st, 0, NROWS / 2);
        add_rows(b, NROWS / 2, NROWS);
        assert_int_equal(rs_stats_merge(st, b, &err), RS_OK);
        rs_stats_free(b);
      } else {
        add_rows(st, 0, NROWS);
      }
      memset(out[k], 0, sizeof(*out[k]));
      finish(st, out[k]);
      rs_stats_free(st);
    }
    zeros = false;
    assert_memory_equal(&plain, &counted, sizeof(plain));
  }
}

/* A part whose series starts before the rows already folded does not fit. */
static void test_backwards_does_not_fit(void **state) {
  (void)state;
  rs_stats_options o = {0};
  rs_stats *ctx = fresh(&o), *part = NULL;
  rs_error err;
  rs_error_clear(&err);
  rs_sample a = {.t = T0 + 60, .gpu = 0, .path = "a.csv", .line = 2};
  rs_sample b = {.t = T0, .gpu = 0, .path = "a.csv", .line = 3};
  put(&a, RS_METRIC_GPU_UTIL, 10);
  put(&b, RS_METRIC_GPU_UTIL, 20);
  assert_int_equal(rs_stats_add(ctx, &a, &err), RS_OK);
  assert_int_equal(rs_stats_new_part(&part, ctx, &err), RS_OK);
  assert_int_equal(rs_stats_add(part, &b, &err), RS_OK);
  assert_false(rs_stats_continues(ctx, part));
  rs_stats_free(part);
  rs_stats_free(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parts_in_order),    cmocka_unit_test(test_parts_after_a_file),
      cmocka_unit_test(test_parts_unordered),   cmocka_unit_test(test_backwards_does_not_fit),
      cmocka_unit_test(test_rows_from_scratch), cmocka_unit_test(test_zero_rows_match_adds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
