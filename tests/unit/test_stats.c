#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sketch.h"
#include "rightsize/stats.h"
#include "stats_internal.h"
#include "test_support.h"

#define BOUND (RS_SKETCH_ALPHA * (1.0 + 1e-9))
#define GIB 1073741824.0
#define T0 1764507600.0 /* 2025-11-30T13:00:00Z, on an hour boundary */

#define BIT(m) (1u << RS_METRIC_##m)

static double rng_lognormal(rng *r, double mu, double sigma) {
  return exp(mu + sigma * rng_normal(r));
}

static rs_sample row(double t, int gpu, size_t line) {
  rs_sample s;
  memset(&s, 0, sizeof(s));
  s.t = t;
  s.gpu = gpu;
  s.path = "data/a.csv";
  s.line = line;
  s.t_col = 1;
  return s;
}

static void put(rs_sample *s, rs_metric m, double v) {
  s->present |= 1u << m;
  s->v[m] = v;
}

static rs_stats *make(const rs_stats_options *o) {
  rs_stats *st = NULL;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_stats_new(&st, o, &err), RS_OK);
  assert_non_null(st);
  rs_stats_begin_file(st, "data/a.csv");
  return st;
}

static void add_ok(rs_stats *st, const rs_sample *s) {
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_stats_add(st, s, &err), RS_OK);
}

static void finish_ok(rs_stats *st, rs_endpoint_stats *out) {
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_stats_finish(st, out, &err), RS_OK);
}

static void assert_close(double got, double want, double rel) {
  if (!(fabs(got - want) <= rel * fabs(want) + 1e-12))
    fail_msg("got %.17g, want %.17g (rel %g)", got, want, rel);
}

static void test_moments_exact(void **state) {
  (void)state;
  rs_stats *st = make(NULL);
  rs_endpoint_stats out;
  for (int i = 1; i <= 100; i++) {
    rs_sample s = row(T0 + 10.0 * i, 0, (size_t)i + 1);
    put(&s, RS_METRIC_GPU_UTIL, (double)(101 - i)); /* descending: order must not matter */
    add_ok(st, &s);
  }
  finish_ok(st, &out);
  const rs_metric_stats *u = &out.m[RS_METRIC_GPU_UTIL];
  assert_int_equal(u->count, 100);
  assert_true(u->min == 1.0 && u->max == 100.0);
  assert_close(u->mean, 50.5, 1e-15);
  assert_close(u->stddev, sqrt((100.0 * 100.0 - 1.0) / 12.0), 1e-12); /* population */
  assert_false(u->exact);
  /* ranks floor(q * 99): values 50, 90, 95, 99 */
  const double want[RS_QUANTILE_COUNT] = {50, 90, 95, 99};
  for (int q = 0; q < RS_QUANTILE_COUNT; q++)
    assert_close(u->q[q], want[q], BOUND);
  assert_int_equal(out.m[RS_METRIC_CPU_UTIL].count, 0);
  assert_true(isnan(out.m[RS_METRIC_CPU_UTIL].mean));
  assert_true(isnan(out.m[RS_METRIC_CPU_UTIL].q[0]));
  rs_stats_free(st);
  rs_stats_free(NULL);
}

static void test_levels(void **state) {
  (void)state;
  assert_true(rs_quantile_levels[0] == 0.50);
  assert_true(rs_quantile_levels[1] == 0.90);
  assert_true(rs_quantile_levels[2] == 0.95);
  assert_true(rs_quantile_levels[3] == 0.99);
}

static void test_sketch_vs_exact(void **state) {
  (void)state;
  rs_stats_options eo = {.exact = true};
  rs_stats *sk = make(NULL), *ex = make(&eo);
  rs_endpoint_stats a, b;
  rng r = {11};
  size_t n = 20000;
  double *v = malloc(n * sizeof(*v));
  for (size_t i = 0; i < n; i++) {
    rs_sample s = row(T0 + (double)i, -1, i + 2);
    v[i] = rng_lognormal(&r, 4.0, 1.5);
    put(&s, RS_METRIC_LATENCY_P99, v[i]);
    add_ok(sk, &s);
    add_ok(ex, &s);
  }
  finish_ok(sk, &a);
  finish_ok(ex, &b);
  qsort(v, n, sizeof(*v), cmp_double);
  const rs_metric_stats *ms = &a.m[RS_METRIC_LATENCY_P99], *me = &b.m[RS_METRIC_LATENCY_P99];
  assert_false(ms->exact);
  assert_true(me->exact);
  for (int q = 0; q < RS_QUANTILE_COUNT; q++) {
    double exact = v[(size_t)floor(rs_quantile_levels[q] * (double)(n - 1))];
    assert_true(me->q[q] == exact);
    assert_close(ms->q[q], exact, BOUND);
  }
  assert_true(ms->min == me->min && ms->max == me->max && ms->mean == me->mean);
  /* finishing again (the values are now sorted) gives the same answer */
  finish_ok(ex, &a);
  assert_memory_equal(&a.m[RS_METRIC_LATENCY_P99], me, sizeof(*me));
  free(v);
  rs_stats_free(sk);
  rs_stats_free(ex);
}

static void test_exact_cap(void **state) {
  (void)state;
  rs_stats_options eo = {.exact = true, .exact_max_values = 10};
  rs_stats *st = make(&eo);
  rs_error err;
  for (int i = 0; i < 10; i++) {
    rs_sample s = row(T0 + i, -1, (size_t)i + 2);
    put(&s, RS_METRIC_REQUEST_RATE, 5.0);
    add_ok(st, &s);
  }
  rs_sample s = row(T0 + 10, -1, 12);
  put(&s, RS_METRIC_REQUEST_RATE, 5.0);
  rs_error_clear(&err);
  assert_int_equal(rs_stats_add(st, &s, &err), RS_LIMIT);
  assert_int_equal(err.status, RS_LIMIT);
  assert_string_equal(err.path, "data/a.csv");
  assert_int_equal(err.line, 12);
  assert_non_null(strstr(err.msg, "more than 10 values"));
  assert_non_null(strstr(err.msg, "--exact"));
  rs_stats_free(st);
}

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Exact quantiles are order statistics, selected (not sorted) per device
 * and over the devices pooled: each agrees with a sort of its own values,
 * ties and all, and a second finish gives the same answer. */
static void test_exact_selection_per_device(void **state) {
  (void)state;
  rs_stats_options eo = {.exact = true};
  rs_stats *st = make(&eo);
  rs_endpoint_stats out, again;
  rng r = {29};
  size_t n = 3001;
  double *dev[2], *all = malloc(2 * n * sizeof(double));
  dev[0] = malloc(n * sizeof(double));
  dev[1] = malloc(n * sizeof(double));
  for (size_t i = 0; i < n; i++) {
    for (int d = 0; d < 2; d++) {
      rs_sample s = row(T0 + (double)i, d, 2 * i + 2 + (size_t)d);
      /* device 1 has many equal values: selection must handle ties */
      double v = d == 0 ? rng_lognormal(&r, 3.0, 1.0) : (double)(rng_next(&r) % 7);
      dev[d][i] = all[2 * i + (size_t)d] = v;
      put(&s, RS_METRIC_GPU_UTIL, v);
      add_ok(st, &s);
    }
  }
  finish_ok(st, &out);
  qsort(all, 2 * n, sizeof(double), cmp_dbl);
  for (int d = 0; d < 2; d++)
    qsort(dev[d], n, sizeof(double), cmp_dbl);
  assert_int_equal(out.ndevices, 2);
  for (int q = 0; q < RS_QUANTILE_COUNT; q++) {
    double lv = rs_quantile_levels[q];
    assert_true(out.m[RS_METRIC_GPU_UTIL].exact);
    assert_true(out.m[RS_METRIC_GPU_UTIL].q[q] == all[(size_t)floor(lv * (double)(2 * n - 1))]);
    for (int d = 0; d < 2; d++)
      assert_true(out.devices[d].m[RS_METRIC_GPU_UTIL].q[q] ==
                  dev[d][(size_t)floor(lv * (double)(n - 1))]);
  }
  finish_ok(st, &again);
  assert_memory_equal(&again.m[RS_METRIC_GPU_UTIL], &out.m[RS_METRIC_GPU_UTIL], sizeof(out.m[0]));
  assert_memory_equal(&again.devices[1].m[RS_METRIC_GPU_UTIL],
                      &out.devices[1].m[RS_METRIC_GPU_UTIL], sizeof(out.m[0]));
  free(dev[0]);
  free(dev[1]);
  free(all);
  rs_stats_free(st);
}

/* The cap counts the values of every metric together. */
static void test_exact_cap_all_metrics(void **state) {
  (void)state;
  rs_stats_options eo = {.exact = true, .exact_max_values = 10};
  rs_stats *st = make(&eo);
  rs_error err;
  for (int i = 0; i < 5; i++) {
    rs_sample s = row(T0 + i, -1, (size_t)i + 2);
    put(&s, RS_METRIC_REQUEST_RATE, 5.0);
    put(&s, RS_METRIC_CPU_UTIL, 50.0);
    add_ok(st, &s);
  }
  rs_sample s = row(T0 + 5, -1, 7);
  put(&s, RS_METRIC_CPU_UTIL, 50.0);
  rs_error_clear(&err);
  assert_int_equal(rs_stats_add(st, &s, &err), RS_LIMIT);
  assert_int_equal(err.line, 7);
  assert_non_null(strstr(err.msg, "more than 10 values kept for --exact"));
  rs_stats_free(st);
}

/* Pooling two devices' values needs a copy, which the cap must leave room for. */
static void test_exact_cap_pooling(void **state) {
  (void)state;
  rs_stats_options eo = {.exact = true, .exact_max_values = 10};
  rs_stats *st = make(&eo);
  rs_endpoint_stats out;
  rs_error err;
  for (int i = 0; i < 4; i++) {
    for (int d = 0; d < 2; d++) {
      rs_sample s = row(T0 + i, d, (size_t)(2 * i + d + 2));
      put(&s, RS_METRIC_GPU_UTIL, 10.0 * i + d);
      add_ok(st, &s);
    }
  }
  rs_error_clear(&err);
  assert_int_equal(rs_stats_finish(st, &out, &err), RS_LIMIT);
  assert_non_null(strstr(err.msg, "pooling the devices' 'gpu_util'"));
  rs_stats_free(st);
}

static void test_per_device_split(void **state) {
  (void)state;
  rs_stats *st = make(NULL);
  rs_endpoint_stats out;
  for (int i = 0; i < 50; i++) {
    rs_sample a = row(T0 + i, 3, (size_t)(2 * i + 2));
    rs_sample b = row(T0 + i, 0, (size_t)(2 * i + 3));
    put(&a, RS_METRIC_GPU_MEM_USED, (20 + i % 5) * GIB);
    put(&a, RS_METRIC_GPU_UTIL, 90.0);
    put(&a, RS_METRIC_REQUEST_RATE, 7.0); /* host-level: pooled only */
    put(&b, RS_METRIC_GPU_MEM_USED, 2 * GIB);
    put(&b, RS_METRIC_GPU_UTIL, 1.0);
    add_ok(st, &a);
    add_ok(st, &b);
  }
  finish_ok(st, &out);
  assert_int_equal(out.ndevices, 2);
  assert_int_equal(out.devices[0].index, 0);
  assert_int_equal(out.devices[1].index, 3);
  assert_true(out.devices[0].m[RS_METRIC_GPU_MEM_USED].max == 2 * GIB);
  assert_true(out.devices[1].m[RS_METRIC_GPU_MEM_USED].max == 24 * GIB);
  assert_true(out.devices[1].m[RS_METRIC_GPU_UTIL].mean == 90.0);
  assert_int_equal(out.devices[1].m[RS_METRIC_GPU_UTIL].count, 50);
  assert_int_equal(out.devices[1].m[RS_METRIC_REQUEST_RATE].count, 0);
  assert_int_equal(out.m[RS_METRIC_GPU_MEM_USED].count, 100);
  assert_true(out.m[RS_METRIC_GPU_MEM_USED].min == 2 * GIB);
  assert_close(out.m[RS_METRIC_GPU_UTIL].mean, 45.5, 1e-15);
  assert_int_equal(out.busiest_device, 3);
  assert_true(out.gpu_mem_windows.max == 24 * GIB);
  /* two series, one per device: same timestamps are not duplicates */
  assert_int_equal(out.coverage.series, 2);
  assert_int_equal(out.coverage.duplicates, 0);
  rs_stats_free(st);
}

static void test_gpu_minus_one(void **state) {
  (void)state;
  rs_stats *st = make(NULL);
  rs_endpoint_stats out;
  rs_sample h = row(T0, -1, 2);
  put(&h, RS_METRIC_REQUEST_RATE, 3.0);
  add_ok(st, &h);
  finish_ok(st, &out);
  /* host-only rows make no device */
  assert_int_equal(out.ndevices, 0);
  assert_int_equal(out.busiest_device, -1);
  assert_int_equal(out.gpu_mem_windows.windows, 0);
  assert_true(out.gpu_mem_windows.window_s == 3600.0);

  rs_sample g = row(T0 + 1, -1, 3);
  put(&g, RS_METRIC_GPU_MEM_USED, 8 * GIB);
  add_ok(st, &g);
  finish_ok(st, &out);
  assert_int_equal(out.ndevices, 1);
  assert_int_equal(out.devices[0].index, 0);
  assert_int_equal(out.devices[0].m[RS_METRIC_GPU_MEM_USED].count, 1);
  assert_int_equal(out.busiest_device, 0);
  /* and they are device 0's series: going back in time on it is an error */
  rs_error err;
  rs_sample d0 = row(T0 - 5, 0, 4);
  rs_error_clear(&err);
  assert_int_equal(rs_stats_add(st, &d0, &err), RS_INVALID);
  assert_int_equal(err.line, 4);
  rs_stats_free(st);
}

static void test_coverage(void **state) {
  (void)state;
  rs_stats_options o = {.allow_unordered = true};
  rs_stats *st = make(&o);
  rs_endpoint_stats out;
  double t = T0;
  size_t line = 2;
  for (int i = 0; i < 100; i++) {
    t += i == 50 ? 100.0 : 10.0;
    rs_sample s = row(t, 1, line++);
    put(&s, RS_METRIC_GPU_UTIL, 50.0);
    add_ok(st, &s);
    if (i == 20)
      add_ok(st, &s); /* a duplicate */
    if (i == 70) {
      rs_sample old = row(t - 35.0, 1, line++);
      add_ok(st, &old); /* out of order, accepted */
    }
  }
  finish_ok(st, &out);
  const rs_coverage *c = &out.coverage;
  assert_int_equal(c->rows, 102);
  assert_int_equal(c->series, 1);
  assert_true(c->first == T0 + 10.0);
  assert_true(c->last == t);
  assert_true(c->duration_s == t - (T0 + 10.0));
  assert_close(c->interval_s, 10.0, BOUND);
  assert_int_equal(c->gaps, 1);
  assert_close(c->gap_s, 90.0, 0.01 * 10.0 / 90.0 + 1e-9);
  assert_true(c->longest_gap_s == 100.0);
  assert_int_equal(c->duplicates, 1);
  assert_int_equal(c->out_of_order, 1);
  assert_int_equal(out.m[RS_METRIC_GPU_UTIL].count, 101); /* the late row had no values */

  /* a new file restarts each series: an earlier time is fine there */
  rs_stats_begin_file(st, "data/b.csv");
  rs_sample s = row(T0, 1, 2);
  add_ok(st, &s);
  finish_ok(st, &out);
  assert_int_equal(out.coverage.series, 2);
  assert_int_equal(out.coverage.out_of_order, 1);
  assert_true(out.coverage.first == T0);
  rs_stats_free(st);
}

/* Rows of one request's tokens (a request log's) are events between the
 * 60 s interval rows: they feed the token statistics and the time span, not
 * the sampling interval or its gaps. */
static void test_request_events(void **state) {
  (void)state;
  rs_stats *st = make(NULL);
  rs_endpoint_stats out;
  size_t line = 2;
  for (int k = 1; k <= 10; k++) {
    for (int j = 0; j < 7; j++) { /* irregular arrivals, up to 50 s apart */
      rs_sample s = row(T0 + 60.0 * (k - 1) + j * j, -1, line++);
      put(&s, RS_METRIC_PROMPT_TOKENS, 100.0 * j);
      put(&s, RS_METRIC_OUTPUT_TOKENS, 10.0);
      add_ok(st, &s);
    }
    rs_sample iv = row(T0 + 60.0 * k, -1, line++);
    put(&iv, RS_METRIC_REQUEST_RATE, 7.0 / 60.0);
    add_ok(st, &iv);
  }
  finish_ok(st, &out);
  assert_int_equal(out.coverage.rows, 80);
  assert_close(out.coverage.interval_s, 60.0, BOUND);
  assert_int_equal(out.coverage.gaps, 0);
  assert_true(out.coverage.first == T0);
  assert_true(out.coverage.last == T0 + 600.0);
  assert_int_equal(out.m[RS_METRIC_PROMPT_TOKENS].count, 70);
  assert_close(out.m[RS_METRIC_PROMPT_TOKENS].max, 600.0, 1e-12);
  assert_int_equal(out.m[RS_METRIC_REQUEST_RATE].count, 10);
  rs_stats_free(st);
}

static void test_coverage_empty(void **state) {
  (void)state;
  rs_stats *st = make(NULL);
  rs_endpoint_stats out;
  finish_ok(st, &out);
  assert_int_equal(out.coverage.rows, 0);
  assert_true(isnan(out.coverage.first) && isnan(out.coverage.last));
  assert_true(isnan(out.coverage.interval_s));
  assert_int_equal(out.coverage.gaps, 0);
  assert_true(isnan(out.rate_peak_to_mean) && isnan(out.rate_cv));
  assert_int_equal(out.host_mem_windows.windows, 0);
  rs_stats_free(st);
}

static void test_backwards_error(void **state) {
  (void)state;
  rs_stats *st = make(NULL);
  rs_error err;
  rs_sample a = row(1764511501.0, 2, 7);
  rs_sample other = row(1764511400.0, 1, 8); /* another series: no error */
  rs_sample b = row(1764511491.5, 2, 9);
  b.t_col = 5;
  add_ok(st, &a);
  add_ok(st, &other);
  rs_error_clear(&err);
  assert_int_equal(rs_stats_add(st, &b, &err), RS_INVALID);
  assert_int_equal(err.status, RS_INVALID);
  assert_string_equal(err.path, "data/a.csv");
  assert_int_equal(err.line, 9);
  assert_int_equal(err.col, 5);
  assert_string_equal(err.msg, "timestamp goes backwards (2025-11-30T14:04:51Z after "
                               "2025-11-30T14:05:01Z), expected rows in time order; sort the "
                               "file or pass --allow-unordered");
  /* the failed row is not counted */
  rs_endpoint_stats out;
  finish_ok(st, &out);
  assert_int_equal(out.coverage.rows, 2);
  assert_true(out.coverage.first == 1764511400.0);
  rs_stats_free(st);
}

/* Three hours at one sample a minute: peaks 10, 30 and 20 GiB. */
static void test_window_peaks(void **state) {
  (void)state;
  rs_stats *st = make(NULL);
  rs_endpoint_stats out, again;
  const double peak[3] = {10 * GIB, 30 * GIB, 20 * GIB};
  for (int i = 0; i < 180; i++) {
    int h = i / 60;
    rs_sample s = row(T0 + 60.0 * i, 0, (size_t)i + 2);
    put(&s, RS_METRIC_GPU_MEM_USED, i % 60 == 30 ? peak[h] : 1 * GIB + i);
    put(&s, RS_METRIC_HOST_MEM_USED, (double)(h + 1) * GIB);
    add_ok(st, &s);
  }
  finish_ok(st, &out);
  const rs_window_stats *w = &out.gpu_mem_windows;
  assert_int_equal(w->windows, 3);
  assert_true(w->window_s == 3600.0);
  assert_true(w->max == 30 * GIB);
  assert_close(w->p50, 20 * GIB, BOUND); /* rank floor(0.5 * 2) = 1 */
  assert_close(w->p95, 20 * GIB, BOUND);
  assert_memory_equal(&out.devices[0].mem_windows, w, sizeof(*w));
  assert_int_equal(out.host_mem_windows.windows, 3);
  assert_true(out.host_mem_windows.max == 3 * GIB);
  assert_close(out.host_mem_windows.p50, 2 * GIB, BOUND);

  /* finish does not close the open window: more rows extend it */
  finish_ok(st, &again);
  assert_memory_equal(&again.gpu_mem_windows, w, sizeof(*w));
  rs_sample s = row(T0 + 3.0 * 3600 - 1, 0, 200);
  put(&s, RS_METRIC_GPU_MEM_USED, 40 * GIB);
  add_ok(st, &s);
  finish_ok(st, &again);
  assert_int_equal(again.gpu_mem_windows.windows, 3);
  assert_true(again.gpu_mem_windows.max == 40 * GIB);
  rs_stats_free(st);

  /* a 30-minute window doubles the count */
  rs_stats_options o = {.window_s = 1800};
  st = make(&o);
  for (int i = 0; i < 180; i++) {
    rs_sample r = row(T0 + 60.0 * i, 0, (size_t)i + 2);
    put(&r, RS_METRIC_GPU_MEM_USED, peak[i / 60]);
    add_ok(st, &r);
  }
  finish_ok(st, &out);
  assert_int_equal(out.gpu_mem_windows.windows, 6);
  assert_true(out.gpu_mem_windows.window_s == 1800.0);
  rs_stats_free(st);
}

static void test_rate_shape(void **state) {
  (void)state;
  rs_stats *st = make(NULL);
  rs_endpoint_stats out;
  for (int i = 0; i < 10; i++) {
    rs_sample s = row(T0 + i, -1, (size_t)i + 2);
    put(&s, RS_METRIC_REQUEST_RATE, i == 4 ? 100.0 : 10.0);
    add_ok(st, &s);
  }
  finish_ok(st, &out);
  /* mean 19, population stddev sqrt(1090 - 361) = 27 */
  assert_close(out.m[RS_METRIC_REQUEST_RATE].mean, 19.0, 1e-15);
  assert_close(out.rate_peak_to_mean, 100.0 / 19.0, 1e-15);
  assert_close(out.rate_cv, 27.0 / 19.0, 1e-12);
  assert_close(out.rate_p99_to_mean, 10.0 / 19.0, BOUND); /* rank floor(0.99 * 9) = 8 */
  rs_stats_free(st);

  st = make(NULL);
  for (int i = 0; i < 3; i++) {
    rs_sample s = row(T0 + i, -1, (size_t)i + 2);
    put(&s, RS_METRIC_REQUEST_RATE, 0.0);
    add_ok(st, &s);
  }
  finish_ok(st, &out);
  assert_true(isnan(out.rate_peak_to_mean));
  assert_true(isnan(out.rate_p99_to_mean));
  assert_true(isnan(out.rate_cv));
  rs_stats_free(st);
}

/* The load lines: y = a + b x recovered exactly from exact data, noise
 * gives the least-squares answer, rows without a rate do not count. */
static void test_load_lines(void **state) {
  (void)state;
  rs_stats *st = make(NULL);
  rs_endpoint_stats out;
  rng r = {5};
  for (int i = 0; i < 1000; i++) {
    double x = 1.0 + 30.0 * rng_uniform(&r);
    rs_sample s = row(T0 + 60.0 * i, 0, (size_t)i + 2);
    put(&s, RS_METRIC_REQUEST_RATE, x);
    put(&s, RS_METRIC_GPU_UTIL, 1.1 + 1.38 * x);
    put(&s, RS_METRIC_CPU_UTIL, 4.4 + 0.24 * x + rng_normal(&r));
    put(&s, RS_METRIC_NET_RX, 110000.0 * x);
    add_ok(st, &s);
    rs_sample idle = row(T0 + 60.0 * i, 1, (size_t)i + 2); /* no rate: not paired */
    put(&idle, RS_METRIC_GPU_UTIL, 0.0);
    add_ok(st, &idle);
  }
  finish_ok(st, &out);
  const rs_linear_fit *g = &out.devices[0].util_vs_rate;
  assert_int_equal(g->n, 1000);
  assert_close(g->slope, 1.38, 1e-9);
  assert_close(g->intercept, 1.1, 1e-9);
  assert_close(g->r2, 1.0, 1e-9);
  assert_int_equal(out.devices[1].util_vs_rate.n, 0);
  assert_true(isnan(out.devices[1].util_vs_rate.slope));
  assert_close(out.cpu_vs_rate.slope, 0.24, 0.05);
  assert_close(out.cpu_vs_rate.intercept, 4.4, 0.05);
  assert_true(out.cpu_vs_rate.r2 > 0.5 && out.cpu_vs_rate.r2 < 1.0);
  assert_close(out.net_rx_vs_rate.slope, 110000.0, 1e-9);
  assert_int_equal(out.net_tx_vs_rate.n, 0);
  rs_stats_free(st);

  /* A constant rate has no slope. */
  st = make(NULL);
  for (int i = 0; i < 5; i++) {
    rs_sample s = row(T0 + i, -1, (size_t)i + 2);
    put(&s, RS_METRIC_REQUEST_RATE, 3.0);
    put(&s, RS_METRIC_CPU_UTIL, 10.0 + i);
    add_ok(st, &s);
  }
  finish_ok(st, &out);
  assert_int_equal(out.cpu_vs_rate.n, 5);
  assert_true(isnan(out.cpu_vs_rate.slope) && isnan(out.cpu_vs_rate.r2));
  assert_close(out.cpu_vs_rate.y_mean, 12.0, 1e-15);
  rs_stats_free(st);
}

/* Rows of file f (0 or 1): two devices, several metrics, a gap. */
static void feed_file(rs_stats *st, int f, rng *r) {
  rs_stats_begin_file(st, f ? "data/b.csv" : "data/a.csv");
  double t = T0 + f * 1800.0;
  for (int i = 0; i < 3000; i++) {
    t += (i % 500 == 499) ? 600.0 : 15.0;
    for (int d = 0; d < 2; d++) {
      rs_sample s = row(t, d + f, (size_t)i + 2); /* device 1 is in both files */
      put(&s, RS_METRIC_GPU_MEM_USED, (10.0 + 20.0 * rng_uniform(r)) * GIB);
      put(&s, RS_METRIC_GPU_UTIL, 100.0 * rng_uniform(r));
      put(&s, RS_METRIC_HOST_MEM_USED, (50.0 + rng_uniform(r)) * GIB);
      put(&s, RS_METRIC_LATENCY_P95, rng_lognormal(r, 3.0, 1.0));
      if (d == 0) {
        double x = rng_lognormal(r, 2.0, 0.5);
        put(&s, RS_METRIC_REQUEST_RATE, x);
        put(&s, RS_METRIC_CPU_UTIL, 3.0 + 0.5 * x + rng_uniform(r));
      }
      add_ok(st, &s);
    }
  }
}

static void check_same(const rs_endpoint_stats *a, const rs_endpoint_stats *b) {
  assert_memory_equal(&a->coverage, &b->coverage, sizeof(a->coverage));
  assert_memory_equal(&a->gpu_mem_windows, &b->gpu_mem_windows, sizeof(a->gpu_mem_windows));
  assert_memory_equal(&a->host_mem_windows, &b->host_mem_windows, sizeof(a->host_mem_windows));
  assert_int_equal(a->ndevices, b->ndevices);
  assert_int_equal(a->busiest_device, b->busiest_device);
  for (int m = 0; m < RS_METRIC_COUNT; m++) {
    const rs_metric_stats *x = &a->m[m], *y = &b->m[m];
    assert_int_equal(x->count, y->count);
    if (x->count == 0)
      continue;
    assert_true(x->min == y->min && x->max == y->max);
    assert_close(x->mean, y->mean, 1e-12);
    assert_close(x->stddev, y->stddev, 1e-9);
    for (int q = 0; q < RS_QUANTILE_COUNT; q++)
      assert_true(x->q[q] == y->q[q]);
  }
  assert_int_equal(a->load.intervals, b->load.intervals);
  assert_int_equal(a->load.nbuckets, b->load.nbuckets);
  for (size_t i = 0; i < a->load.nbuckets; i++) {
    const rs_load_bucket *x = &a->load.b[i], *y = &b->load.b[i];
    assert_int_equal(x->n, y->n);
    assert_close(x->rate_mean, y->rate_mean, 1e-12);
    for (int q = 0; q < RS_LOAD_LATENCIES; q++)
      assert_true(x->lat_ms[q] == y->lat_ms[q] || (isnan(x->lat_ms[q]) && isnan(y->lat_ms[q])));
  }
  assert_int_equal(a->cpu_vs_rate.n, b->cpu_vs_rate.n);
  assert_close(a->cpu_vs_rate.slope, b->cpu_vs_rate.slope, 1e-9);
  assert_close(a->cpu_vs_rate.intercept, b->cpu_vs_rate.intercept, 1e-9);
  for (size_t d = 0; d < a->ndevices; d++) {
    assert_int_equal(a->devices[d].index, b->devices[d].index);
    assert_int_equal(a->devices[d].util_vs_rate.n, b->devices[d].util_vs_rate.n);
    if (a->devices[d].util_vs_rate.n > 1)
      assert_close(a->devices[d].util_vs_rate.slope, b->devices[d].util_vs_rate.slope, 1e-9);
    assert_memory_equal(&a->devices[d].mem_windows, &b->devices[d].mem_windows,
                        sizeof(a->devices[d].mem_windows));
    assert_int_equal(a->devices[d].m[RS_METRIC_GPU_UTIL].count,
                     b->devices[d].m[RS_METRIC_GPU_UTIL].count);
    assert_true(a->devices[d].m[RS_METRIC_GPU_UTIL].q[1] ==
                b->devices[d].m[RS_METRIC_GPU_UTIL].q[1]);
  }
}

static void merge_case(const rs_stats_options *o) {
  rs_stats *all = make(o), *p1 = make(o), *p2 = make(o);
  rs_endpoint_stats a, b;
  rs_error err;
  rng r1 = {21}, r2 = {21};
  feed_file(all, 0, &r1);
  feed_file(all, 1, &r1);
  feed_file(p1, 0, &r2);
  feed_file(p2, 1, &r2);
  rs_error_clear(&err);
  assert_int_equal(rs_stats_merge(p1, p2, &err), RS_OK);
  finish_ok(all, &a);
  finish_ok(p1, &b);
  assert_int_equal(a.ndevices, 3);
  assert_int_equal(a.coverage.series, 4);
  assert_int_equal(a.coverage.gaps, 4 * 6);
  check_same(&a, &b);
  rs_stats_free(all);
  rs_stats_free(p1);
  rs_stats_free(p2);
}

/* A pair's fit from its rows' own (x, y), in long double: the reference
 * for test_load_line_links. */
typedef struct ref_pair {
  uint64_t n;
  long double sx, sy, sxx, sxy;
} ref_pair;

static void ref_add(ref_pair *p, double x, double y) {
  p->n++;
  p->sx += x;
  p->sy += y;
  p->sxx += (long double)x * x;
  p->sxy += (long double)x * y;
}

static void ref_check(const ref_pair *p, const rs_linear_fit *f) {
  assert_int_equal(f->n, p->n);
  if (p->n < 2)
    return;
  long double n = (long double)p->n, mx = p->sx / n, my = p->sy / n;
  long double slope = (p->sxy / n - mx * my) / (p->sxx / n - mx * mx);
  assert_close(f->x_mean, (double)mx, 1e-12);
  assert_close(f->y_mean, (double)my, 1e-12);
  assert_close(f->slope, (double)slope, 1e-9);
}

/* The load lines' sums shared with the metrics' own while every value of
 * both came in a pair (stats.c, pair): rows that break that (a rate without
 * the utilization, a utilization or CPU without a rate, a rate on another
 * device, values far from the rest) at a random row, then mixed rows; every
 * fit against its rows summed directly. */
static void test_load_line_links(void **state) {
  (void)state;
  rng r = {41};
  for (int trial = 0; trial < 40; trial++) {
    rs_stats *st = make(NULL);
    rs_endpoint_stats out;
    ref_pair dev[3] = {{0}}, cpu = {0};
    int cut = (int)(rng_next(&r) % 300), kind = trial % 5;
    for (int i = 0; i < 400; i++) {
      double x = 1.0 + 30.0 * rng_uniform(&r);
      int gpu = 0;
      bool has_rate = true, has_util = true, has_cpu = true;
      if (i == cut) { /* the row that breaks a link */
        gpu = kind == 3 ? 2 : 0;
        has_rate = kind != 1 && kind != 4;
        has_util = kind != 0;
        has_cpu = kind != 2;
        x = 1000.0 + x;
      } else if (i > cut && trial % 2 == 0) { /* then anything */
        gpu = (int)(rng_next(&r) % 3);
        has_rate = rng_next(&r) % 4 != 0;
        has_util = rng_next(&r) % 4 != 0;
        has_cpu = rng_next(&r) % 3 != 0;
      }
      double y = 5.0 + 2.0 * x + rng_uniform(&r), c = 3.0 + 0.5 * x + rng_uniform(&r);
      rs_sample s = row(T0 + i, gpu, (size_t)i + 2);
      if (has_rate)
        put(&s, RS_METRIC_REQUEST_RATE, x);
      if (has_util)
        put(&s, RS_METRIC_GPU_UTIL, y > 100.0 ? 100.0 : y);
      if (has_cpu)
        put(&s, RS_METRIC_CPU_UTIL, c > 100.0 ? 100.0 : c);
      add_ok(st, &s);
      if (has_rate && has_util)
        ref_add(&dev[gpu], x, s.v[RS_METRIC_GPU_UTIL]);
      if (has_rate && has_cpu)
        ref_add(&cpu, x, s.v[RS_METRIC_CPU_UTIL]);
    }
    finish_ok(st, &out);
    for (size_t k = 0; k < out.ndevices; k++)
      ref_check(&dev[out.devices[k].index], &out.devices[k].util_vs_rate);
    ref_check(&cpu, &out.cpu_vs_rate);
    assert_int_equal(out.net_rx_vs_rate.n, 0);
    rs_stats_free(st);
  }
}

static void test_merge_equals_one(void **state) {
  (void)state;
  rs_stats_options eo = {.exact = true};
  merge_case(NULL);
  merge_case(&eo);
}

static void test_merge_exact_cap(void **state) {
  (void)state;
  rs_stats_options eo = {.exact = true, .exact_max_values = 3};
  rs_stats *a = make(&eo), *b = make(&eo);
  rs_error err;
  for (int i = 0; i < 2; i++) {
    rs_sample s = row(T0 + i, -1, (size_t)i + 2);
    put(&s, RS_METRIC_CPU_UTIL, 1.0);
    add_ok(a, &s);
    add_ok(b, &s);
  }
  rs_error_clear(&err);
  assert_int_equal(rs_stats_merge(a, b, &err), RS_LIMIT);
  assert_non_null(strstr(err.msg, "more than 3 values"));
  rs_stats_free(a);
  rs_stats_free(b);
}

/* Latency by load: each interval lands in the bucket of its rate, the
 * bucket keeps the median of its intervals' quantiles; rows without a
 * latency or without a rate are not intervals. */
static void test_load_buckets(void **state) {
  (void)state;
  rs_stats *st = make(NULL);
  rs_endpoint_stats out;
  size_t line = 2;
  /* 1 req/s: p99 of 10, 20, 30 ms -> median 20; 8 req/s: p99 40 ms (x2) */
  const double rates[] = {1.0, 1.0, 1.0, 8.0, 8.0, 0.0};
  const double p99[] = {10.0, 30.0, 20.0, 40.0, 40.0, 5.0};
  for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
    rs_sample s = row(T0 + 60.0 * (double)i, -1, line++);
    put(&s, RS_METRIC_REQUEST_RATE, rates[i]);
    put(&s, RS_METRIC_LATENCY_P99, p99[i]);
    if (i < 3)
      put(&s, RS_METRIC_LATENCY_P50, 4.0);
    add_ok(st, &s);
  }
  rs_sample norate = row(T0 + 1000.0, -1, line++), nolat = row(T0 + 1060.0, -1, line++);
  put(&norate, RS_METRIC_LATENCY_P99, 99.0);
  put(&nolat, RS_METRIC_REQUEST_RATE, 50.0);
  add_ok(st, &norate);
  add_ok(st, &nolat);
  finish_ok(st, &out);
  assert_int_equal(out.load.intervals, 6);
  assert_int_equal(out.load.nbuckets, 3);
  const rs_load_bucket *z = &out.load.b[0], *one = &out.load.b[1], *eight = &out.load.b[2];
  assert_int_equal(z->n, 1);
  assert_true(z->rate_lo == 0.0);
  assert_int_equal(one->n, 3);
  assert_close(one->rate_mean, 1.0, 1e-12);
  assert_true(one->rate_lo <= 1.0 && 1.0 < one->rate_hi);
  assert_close(one->rate_hi / one->rate_lo, RS_LOAD_STEP, 1e-12);
  assert_close(one->lat_ms[2], 20.0, BOUND);
  assert_close(one->lat_ms[0], 4.0, BOUND);
  assert_int_equal(one->lat_n[1], 0);
  assert_true(isnan(one->lat_ms[1]));
  assert_int_equal(eight->n, 2);
  assert_true(eight->rate_lo <= 8.0 && 8.0 < eight->rate_hi);
  assert_close(eight->lat_ms[2], 40.0, BOUND);
  assert_true(isnan(eight->lat_ms[0]));
  rs_stats_free(st);
}

static void test_sink(void **state) {
  (void)state;
  rs_stats *st = make(NULL);
  rs_endpoint_stats out;
  rs_error err;
  rs_sample s = row(T0, -1, 2);
  put(&s, RS_METRIC_BATCH_SIZE, 8.0);
  rs_error_clear(&err);
  assert_int_equal(rs_stats_sink(st, &s, &err), RS_OK);
  finish_ok(st, &out);
  assert_int_equal(out.m[RS_METRIC_BATCH_SIZE].count, 1);
  assert_true(out.m[RS_METRIC_BATCH_SIZE].q[0] == 8.0);
  rs_stats_free(st);
}

/* no_series (a run that draws no chart) leaves the time series empty and
 * every other figure the same bits, read in one pass or in two merged
 * accumulators; a charted metric is what makes a series at all. */
static void test_no_series(void **state) {
  (void)state;
  static rs_endpoint_stats with, without, merged, merged_with;
  rs_stats_options off = {.no_series = true};
  rs_stats *a = make(NULL), *b = make(&off), *c = make(&off), *d = make(NULL);
  rs_stats *c2 = make(NULL), *d2 = make(NULL);
  rng r = {7};
  for (int i = 0; i < 4000; i++) {
    rs_sample s = row(T0 + 60.0 * (double)(i / 2), i % 2, (size_t)i + 2);
    put(&s, RS_METRIC_GPU_UTIL, 100.0 * rng_uniform(&r));
    put(&s, RS_METRIC_GPU_MEM_USED, (1.0 + 15.0 * rng_uniform(&r)) * GIB);
    put(&s, RS_METRIC_REQUEST_RATE, 50.0 * rng_uniform(&r));
    put(&s, RS_METRIC_LATENCY_P99, 5.0 + 50.0 * rng_uniform(&r));
    add_ok(a, &s);
    add_ok(b, &s);
    add_ok(i < 2000 ? c : d, &s);
    add_ok(i < 2000 ? c2 : d2, &s);
  }
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_stats_merge(c, d, &err), RS_OK); /* d's series: not kept in c */
  assert_int_equal(rs_stats_merge(c2, d2, &err), RS_OK);
  finish_ok(a, &with);
  finish_ok(b, &without);
  finish_ok(c, &merged);
  finish_ok(c2, &merged_with);
  assert_true(merged_with.series.nbuckets > 0);
  assert_true(with.series.nbuckets > 0);
  assert_int_equal(with.series.ndevices, 2);
  assert_int_equal(without.series.nbuckets, 0);
  assert_true(without.series.width_s == 0.0);
  assert_int_equal(merged.series.nbuckets, 0);
  assert_memory_equal(&with, &without, offsetof(rs_endpoint_stats, series));
  assert_memory_equal(&merged_with, &merged, offsetof(rs_endpoint_stats, series));
  /* rows without a charted metric make no series, with or without the option */
  rs_stats *e = make(NULL);
  rs_sample s = row(T0, 0, 2);
  put(&s, RS_METRIC_CPU_UTIL, 12.0);
  add_ok(e, &s);
  finish_ok(e, &with);
  assert_int_equal(with.series.nbuckets, 0);
  assert_true(with.series.width_s == 0.0);
  rs_stats_free(a);
  rs_stats_free(b);
  rs_stats_free(c);
  rs_stats_free(d);
  rs_stats_free(c2);
  rs_stats_free(d2);
  rs_stats_free(e);
}

/* A million rows hold no more memory than a hundred thousand did (by then
 * every sketch, including the ~30 load buckets' latency sketches, has met
 * its range). */
static void test_memory_flat(void **state) {
  (void)state;
  rs_stats *st = make(NULL);
  rng r = {31};
  size_t early = 0;
  for (int i = 0; i < 1000000; i++) {
    rs_sample s = row(T0 + (double)(i / 4), i % 4, (size_t)i + 2);
    put(&s, RS_METRIC_GPU_MEM_USED, (1.0 + 79.0 * rng_uniform(&r)) * GIB);
    put(&s, RS_METRIC_GPU_UTIL, 1.0 + 99.0 * rng_uniform(&r)); /* bounded spread */
    put(&s, RS_METRIC_REQUEST_RATE, 1.0 + 999.0 * rng_uniform(&r));
    put(&s, RS_METRIC_LATENCY_P99, 5.0 + 995.0 * rng_uniform(&r));
    add_ok(st, &s);
    if (i == 99999)
      early = rs_stats_footprint(st);
  }
  size_t late = rs_stats_footprint(st);
  rs_endpoint_stats out;
  finish_ok(st, &out);
  assert_true(early > 0);
  /* a few growth steps of 64 bins at the edges of each sketch (the metrics'
   * and the load buckets'), never growth with the row count */
  size_t slack = (8 + out.load.nbuckets) * 64;
  if (late > early + slack)
    fail_msg("footprint grew from %zu to %zu", early, late);
  assert_true(late < 20000);
  assert_int_equal(out.coverage.rows, 1000000);
  assert_int_equal(out.coverage.series, 4);
  assert_close(out.coverage.interval_s, 1.0, BOUND);
  assert_int_equal(out.gpu_mem_windows.windows, 70); /* 250000 s / 3600 s, rounded up */
  rs_stats_free(st);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_moments_exact),
      cmocka_unit_test(test_levels),
      cmocka_unit_test(test_sketch_vs_exact),
      cmocka_unit_test(test_exact_cap),
      cmocka_unit_test(test_exact_selection_per_device),
      cmocka_unit_test(test_exact_cap_all_metrics),
      cmocka_unit_test(test_exact_cap_pooling),
      cmocka_unit_test(test_per_device_split),
      cmocka_unit_test(test_gpu_minus_one),
      cmocka_unit_test(test_coverage),
      cmocka_unit_test(test_coverage_empty),
      cmocka_unit_test(test_backwards_error),
      cmocka_unit_test(test_window_peaks),
      cmocka_unit_test(test_rate_shape),
      cmocka_unit_test(test_load_lines),
      cmocka_unit_test(test_load_line_links),
      cmocka_unit_test(test_load_buckets),
      cmocka_unit_test(test_merge_equals_one),
      cmocka_unit_test(test_merge_exact_cap),
      cmocka_unit_test(test_sink),
      cmocka_unit_test(test_memory_flat),
      cmocka_unit_test(test_no_series),
      cmocka_unit_test(test_request_events),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
