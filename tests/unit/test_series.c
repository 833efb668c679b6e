/* The downsampled time series behind the HTML charts (stats.h rs_series):
 * bounded buckets, exact min/mean/max, the same result whatever the order
 * or split of the input. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rightsize/stats.h"

#define T0 1764507600.0 /* 2025-11-30T13:00:00Z */

static rs_sample row(double t, int gpu, double util, double mem, double rate) {
  rs_sample s;
  memset(&s, 0, sizeof(s));
  s.t = t;
  s.gpu = gpu;
  s.path = "data/a.csv";
  s.line = 2;
  s.t_col = 1;
  s.present = (1u << RS_METRIC_GPU_UTIL) | (1u << RS_METRIC_GPU_MEM_USED);
  s.v[RS_METRIC_GPU_UTIL] = util;
  s.v[RS_METRIC_GPU_MEM_USED] = mem;
  if (rate >= 0) {
    s.present |= 1u << RS_METRIC_REQUEST_RATE;
    s.v[RS_METRIC_REQUEST_RATE] = rate;
  }
  return s;
}

static rs_stats *make(void) {
  rs_stats *st = NULL;
  rs_error err;
  rs_error_clear(&err);
  rs_stats_options o = {.allow_unordered = true};
  assert_int_equal(rs_stats_new(&st, &o, &err), RS_OK);
  rs_stats_begin_file(st, "data/a.csv");
  return st;
}

static void add(rs_stats *st, rs_sample s) {
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_stats_add(st, &s, &err), RS_OK);
}

static rs_endpoint_stats *finish(rs_stats *st) {
  rs_endpoint_stats *out = malloc(sizeof(*out));
  rs_error err;
  rs_error_clear(&err);
  assert_non_null(out);
  assert_int_equal(rs_stats_finish(st, out, &err), RS_OK);
  return out;
}

/* A few rows within three seconds: one-second buckets, exact values. */
static void test_small_exact(void **state) {
  (void)state;
  rs_stats *st = make();
  add(st, row(T0 + 0.2, 0, 10, 100, 4));
  add(st, row(T0 + 0.7, 0, 30, 300, 6));
  add(st, row(T0 + 2.5, 0, 50, 200, -1));
  rs_endpoint_stats *o = finish(st);
  const rs_series *s = &o->series;
  assert_true(s->width_s == 1.0);
  assert_true(s->t0 == T0);
  assert_int_equal(s->nbuckets, 3);
  assert_int_equal(s->ndevices, 1);
  assert_int_equal(s->device[0], 0);
  assert_true(s->util[0][0].min == 10 && s->util[0][0].max == 30 && s->util[0][0].mean == 20);
  assert_true(isnan(s->util[0][1].mean)); /* an empty bucket is a gap, not a zero */
  assert_true(s->mem[0][2].max == 200);
  assert_true(s->rate[0].mean == 5 && isnan(s->rate[2].mean));
  free(o);
  rs_stats_free(st);
}

/* A week of 10 s rows fits the bucket cap; the extremes survive. */
static void test_week_bounded(void **state) {
  (void)state;
  rs_stats *st = make();
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  size_t n = 0;
  for (double t = 0; t < 7 * 86400.0; t += 10, n++) {
    double u = 50 + 40 * sin(t / 86400.0 * 6.283185307179586) + (n % 97 == 0 ? 9 : 0);
    lo = fmin(lo, u);
    hi = fmax(hi, u);
    sum += u;
    add(st, row(T0 + t, 1, u, 1e9, 5));
  }
  rs_endpoint_stats *o = finish(st);
  const rs_series *s = &o->series;
  assert_true(s->nbuckets <= RS_SERIES_BUCKETS && s->nbuckets > RS_SERIES_BUCKETS / 2);
  assert_true(s->width_s == 4096.0); /* a power of two: 2^12 s, 148 buckets for 7 days */
  assert_true(s->t0 <= T0 && s->t0 + s->width_s * (double)s->nbuckets > T0 + 7 * 86400.0 - 10);
  assert_int_equal(s->ndevices, 1);
  assert_int_equal(s->device[0], 1);
  double mlo = INFINITY, mhi = -INFINITY;
  for (size_t i = 0; i < s->nbuckets; i++) {
    mlo = fmin(mlo, s->util[0][i].min);
    mhi = fmax(mhi, s->util[0][i].max);
  }
  assert_true(mlo == lo && mhi == hi);
  assert_true(fabs(o->m[RS_METRIC_GPU_UTIL].mean - sum / (double)n) < 1e-9);
  free(o);
  rs_stats_free(st);
}

static void assert_same(const rs_series *a, const rs_series *b) {
  assert_true(a->t0 == b->t0 && a->width_s == b->width_s);
  assert_int_equal(a->nbuckets, b->nbuckets);
  assert_int_equal(a->ndevices, b->ndevices);
  for (size_t d = 0; d < a->ndevices; d++)
    for (size_t i = 0; i < a->nbuckets; i++) {
      const rs_series_point *x = &a->util[d][i], *y = &b->util[d][i];
      if (isnan(x->mean) != isnan(y->mean) ||
          (!isnan(x->mean) && (x->min != y->min || x->max != y->max ||
                               fabs(x->mean - y->mean) > 1e-9 * fabs(y->mean))))
        fail_msg("device %zu bucket %zu differs", d, i);
    }
}

/* Two halves merged either way, and rows read backwards, give the series
 * of one pass in order. */
static void test_merge_and_order(void **state) {
  (void)state;
  rs_stats *one = make(), *a = make(), *b = make(), *back = make();
  rs_error err;
  rs_error_clear(&err);
  const size_t n = 20000;
  for (size_t i = 0; i < n; i++) {
    rs_sample s = row(T0 + 37.0 * (double)i, (int)(i % 3), (double)(i % 101), 1e9, 2);
    add(one, s);
    add(i < n / 3 ? a : b, s);
    rs_sample r = row(T0 + 37.0 * (double)(n - 1 - i), (int)((n - 1 - i) % 3),
                      (double)((n - 1 - i) % 101), 1e9, 2);
    rs_stats_begin_file(back, "data/a.csv"); /* each row its own series start */
    add(back, r);
  }
  assert_int_equal(rs_stats_merge(b, a, &err), RS_OK);
  rs_endpoint_stats *o1 = finish(one), *ob = finish(b), *orv = finish(back);
  assert_int_equal(o1->series.ndevices, 3);
  assert_same(&ob->series, &o1->series);
  assert_same(&orv->series, &o1->series);
  free(o1);
  free(ob);
  free(orv);
  rs_stats_free(one);
  rs_stats_free(a);
  rs_stats_free(b);
  rs_stats_free(back);
}

/* Devices past RS_SERIES_DEVICES are in the statistics, not the chart. */
static void test_device_cap(void **state) {
  (void)state;
  rs_stats *st = make();
  add(st, row(T0, 2, 10, 1, -1));
  add(st, row(T0, RS_SERIES_DEVICES + 1, 10, 1, -1));
  rs_endpoint_stats *o = finish(st);
  assert_int_equal(o->ndevices, 2);
  assert_int_equal(o->series.ndevices, 1);
  assert_int_equal(o->series.device[0], 2);
  free(o);
  rs_stats_free(st);
}

/* Rows on bucket edges, a double either side of them and between them
 * (over a range that coarsens the width, and across 0 into negative
 * times, where no edges are memoised): each lands in bucket floor(t /
 * width) of the final width, as the division puts it. */
static void check_edges(double t_first, size_t seconds) {
  rs_stats *st = make();
  size_t n = 0;
  double *ts = malloc(4 * seconds * sizeof(*ts)), *us = malloc(4 * seconds * sizeof(*us));
  assert_non_null(ts);
  assert_non_null(us);
  for (size_t k = 0; k < seconds; k++) {
    double e = t_first + (double)k;
    const double at[4] = {nextafter(e, -INFINITY), e, nextafter(e, INFINITY), e + 0.5};
    for (int j = 0; j < 4; j++, n++) {
      ts[n] = at[j];
      us[n] = (double)((n * 7919) % 1000) / 10.0;
      add(st, row(ts[n], 0, us[n], 1, -1));
    }
  }
  rs_endpoint_stats *o = finish(st);
  const rs_series *s = &o->series;
  assert_true(s->nbuckets <= RS_SERIES_BUCKETS);
  for (size_t b = 0; b < s->nbuckets; b++) {
    double lo = INFINITY, hi = -INFINITY, k = floor(s->t0 / s->width_s) + (double)b;
    for (size_t i = 0; i < n; i++)
      if (floor(ts[i] / s->width_s) == k) {
        lo = fmin(lo, us[i]);
        hi = fmax(hi, us[i]);
      }
    const rs_series_point *p = &s->util[0][b];
    if (isinf(lo) ? !isnan(p->mean) : (p->min != lo || p->max != hi))
      fail_msg("bucket %zu (width %g): min %g max %g, expected %g %g", b, s->width_s, p->min,
               p->max, lo, hi);
  }
  free(ts);
  free(us);
  free(o);
  rs_stats_free(st);
}

static void test_bucket_edges(void **state) {
  (void)state;
  check_edges(T0, 200);    /* one-second buckets */
  check_edges(T0, 3000);   /* coarsened to 16 s */
  check_edges(-600, 1200); /* negative times and 0 */
  check_edges(-0.5, 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_small_exact),     cmocka_unit_test(test_week_bounded),
      cmocka_unit_test(test_merge_and_order), cmocka_unit_test(test_device_cap),
      cmocka_unit_test(test_bucket_edges),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
