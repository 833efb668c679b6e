/* vLLM, TGI and SGLang metrics through the Prometheus query_range reader:
 * gauges scaled, counters into rates (restarts counted from 0), histograms
 * into p50/p95/p99 per point, summed over label sets. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "rightsize/buf.h"
#include "rightsize/ingest.h"

#define MAX_KEEP 16

typedef struct keep_sink {
  size_t rows;
  rs_sample kept[MAX_KEEP];
} keep_sink;

static rs_status keep_rows(void *ctx, const rs_sample *s, rs_error *err) {
  keep_sink *ks = ctx;
  (void)err;
  if (ks->rows < MAX_KEEP)
    ks->kept[ks->rows] = *s;
  ks->rows++;
  return RS_OK;
}

static void assert_near(double got, double want) {
  if (fabs(got - want) > 1e-9 * (fabs(want) + 1.0))
    fail_msg("got %.17g, want %.17g", got, want);
}

static bool has(const rs_sample *s, rs_metric m) { return (s->present & (1u << m)) != 0; }

static rs_status run(const char *result, keep_sink *ks, rs_error *err) {
  char doc[8192];
  rs_ingest_options opts = {.format = RS_FORMAT_AUTO};
  snprintf(doc, sizeof(doc),
           "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[%s]}}", result);
  memset(ks, 0, sizeof(*ks));
  rs_error_clear(err);
  return rs_ingest_memory("q.json", doc, strlen(doc), &opts, keep_rows, ks, NULL, err);
}

static void test_gauges(void **state) {
  keep_sink ks;
  rs_error err;
  (void)state;
  assert_int_equal(
      run("{\"metric\":{\"__name__\":\"sglang:token_usage\"},\"values\":[[100,\"0.25\"]]},"
          "{\"metric\":{\"__name__\":\"tgi_queue_size\"},\"values\":[[100,\"3\"]]},"
          "{\"metric\":{\"__name__\":\"vllm:num_requests_running\"},\"values\":[[100,\"7\"]]}",
          &ks, &err),
      RS_OK);
  assert_int_equal(ks.rows, 1);
  assert_near(ks.kept[0].v[RS_METRIC_KV_CACHE_USAGE], 25);
  assert_near(ks.kept[0].v[RS_METRIC_REQUESTS_WAITING], 3);
  assert_near(ks.kept[0].v[RS_METRIC_REQUESTS_RUNNING], 7);
}

/* Two label sets summed; a decrease is a restart counted from 0. */
static void test_counters(void **state) {
  keep_sink ks;
  rs_error err;
  (void)state;
  assert_int_equal(run("{\"metric\":{\"__name__\":\"vllm:request_success_total\",\"r\":\"a\"},"
                       "\"values\":[[0,\"10\"],[10,\"30\"],[20,\"5\"]]},"
                       "{\"metric\":{\"__name__\":\"vllm:request_success_total\",\"r\":\"b\"},"
                       "\"values\":[[0,\"0\"],[10,\"10\"],[20,\"20\"]]}",
                       &ks, &err),
                   RS_OK);
  assert_int_equal(ks.rows, 2); /* the first point has no increase */
  assert_near(ks.kept[0].t, 10);
  assert_near(ks.kept[0].v[RS_METRIC_REQUEST_RATE], 3.0);
  assert_near(ks.kept[1].v[RS_METRIC_REQUEST_RATE], 1.5);
}

/* Buckets of two label sets summed by le, then interpolated: 100 requests,
 * 20 <= 0.1 s, 50 <= 0.25 s, 90 <= 0.5 s, 98 <= 1 s. */
static void test_histogram(void **state) {
  char buf[4096];
  size_t n = 0;
  static const char *const les[] = {"0.1", "0.25", "0.5", "1", "+Inf"};
  static const int half[] = {10, 25, 45, 49, 50};
  keep_sink ks;
  rs_error err;
  (void)state;
  for (int s = 0; s < 2; s++)
    for (int b = 0; b < 5; b++)
      n += (size_t)snprintf(buf + n, sizeof(buf) - n,
                            "%s{\"metric\":{\"__name__\":\"sglang:time_to_first_token_seconds_"
                            "bucket\",\"le\":\"%s\",\"pod\":\"%d\"},\"values\":[[0,\"5\"],[60,"
                            "\"%d\"]]}",
                            n ? "," : "", les[b], s, 5 + half[b]);
  n += (size_t)snprintf(buf + n, sizeof(buf) - n,
                        ",{\"metric\":{\"__name__\":\"sglang:time_to_first_token_seconds_sum\"},"
                        "\"values\":[[0,\"1\"],[60,\"9\"]]}");
  assert_int_equal(run(buf, &ks, &err), RS_OK);
  assert_int_equal(ks.rows, 1);
  assert_near(ks.kept[0].v[RS_METRIC_TTFT_P50], 250);
  assert_near(ks.kept[0].v[RS_METRIC_TTFT_P95], 812.5);
  assert_near(ks.kept[0].v[RS_METRIC_TTFT_P99], 1000); /* in +Inf: the highest finite bound */
  assert_false(has(&ks.kept[0], RS_METRIC_LATENCY_P50));
}

/* No requests in a step: no percentile at that time. */
static void test_histogram_idle(void **state) {
  keep_sink ks;
  rs_error err;
  (void)state;
  assert_int_equal(run("{\"metric\":{\"__name__\":\"tgi_request_duration_bucket\",\"le\":\"1\"},"
                       "\"values\":[[0,\"4\"],[60,\"4\"]]},"
                       "{\"metric\":{\"__name__\":\"tgi_request_duration_bucket\",\"le\":\"+Inf\"},"
                       "\"values\":[[0,\"4\"],[60,\"4\"]]},"
                       "{\"metric\":{\"__name__\":\"tgi_queue_size\"},\"values\":[[60,\"0\"]]}",
                       &ks, &err),
                   RS_OK);
  assert_int_equal(ks.rows, 1);
  assert_false(has(&ks.kept[0], RS_METRIC_LATENCY_P50));
  assert_true(has(&ks.kept[0], RS_METRIC_REQUESTS_WAITING));
}

static void test_bad_buckets(void **state) {
  keep_sink ks;
  rs_error err;
  (void)state;
  assert_int_equal(run("{\"metric\":{\"__name__\":\"vllm:e2e_request_latency_seconds_bucket\"},"
                       "\"values\":[[0,\"4\"]]}",
                       &ks, &err),
                   RS_INVALID);
  assert_non_null(strstr(err.msg, "expected an 'le' label on the buckets of "
                                  "'vllm:e2e_request_latency_seconds'"));
  assert_int_equal(run("{\"metric\":{\"__name__\":\"vllm:e2e_request_latency_seconds_bucket\","
                       "\"le\":\"fast\"},\"values\":[[0,\"4\"]]}",
                       &ks, &err),
                   RS_INVALID);
  assert_non_null(strstr(err.msg, "got 'fast'"));
  assert_int_equal(run("{\"metric\":{\"__name__\":\"vllm:prompt_tokens_total\"},"
                       "\"values\":[[0,\"-4\"]]}",
                       &ks, &err),
                   RS_INVALID);
  assert_non_null(strstr(err.msg, "expected a count >= 0 in series 'vllm:prompt_tokens_total'"));
  assert_int_equal(err.line, 1);
  assert_true(err.col > 1);
}

/* Text exposition scrapes: series told apart by their other labels, le read. */
static void test_text_exposition(void **state) {
  const char *text = "# TYPE vllm:request_success_total counter\n"
                     "vllm:request_success_total{reason=\"stop\"} 10 0\n"
                     "vllm:request_success_total{reason=\"length\"} 0 0\n"
                     "tgi_request_duration_bucket{le=\"1\"} 0 0\n"
                     "tgi_request_duration_bucket{le=\"+Inf\"} 0 0\n"
                     "tgi_request_duration_sum 0 0\n"
                     "vllm:request_success_total{reason=\"stop\"} 30 10000\n"
                     "vllm:request_success_total{reason=\"length\"} 10 10000\n"
                     "tgi_request_duration_bucket{le=\"1\"} 4 10000\n"
                     "tgi_request_duration_bucket{le=\"+Inf\"} 8 10000\n"
                     "tgi_request_duration_sum 9.5 10000\n";
  rs_ingest_options opts = {.format = RS_FORMAT_AUTO};
  rs_ingest_result res;
  keep_sink ks;
  rs_error err;
  (void)state;
  memset(&ks, 0, sizeof(ks));
  rs_error_clear(&err);
  assert_int_equal(
      rs_ingest_memory("s.prom", text, strlen(text), &opts, keep_rows, &ks, &res, &err), RS_OK);
  assert_int_equal(res.format, RS_FORMAT_PROM_TEXT);
  assert_int_equal(ks.rows, 1);
  assert_near(ks.kept[0].t, 10);
  assert_near(ks.kept[0].v[RS_METRIC_REQUEST_RATE], 3.0);
  assert_near(ks.kept[0].v[RS_METRIC_LATENCY_P50], 1000); /* rank 4 of 8: the top of le 1 */
  assert_near(ks.kept[0].v[RS_METRIC_LATENCY_P95], 1000); /* in +Inf: the highest bound */
}

/* ---- the streamed exposition against the whole-document reader ---- */

/* Every row a reader hands on. */
typedef struct all_rows {
  rs_sample *s;
  size_t n, cap;
} all_rows;

static rs_status add_row(void *ctx, const rs_sample *s, rs_error *err) {
  all_rows *a = ctx;
  (void)err;
  if (a->n == a->cap) {
    a->cap = a->cap ? 2 * a->cap : 1024;
    a->s = realloc(a->s, a->cap * sizeof(*a->s));
    assert_non_null(a->s);
  }
  a->s[a->n++] = *s;
  return RS_OK;
}

#define SCRAPES 4000
#define T0S 1796047200LL

static const char *const models[2] = {"m-a", "m-b"};
static const double bounds[6] = {0.01, 0.025, 0.05, 0.1, 0.25, 0.5};

/* One sample of the generated vLLM server: series k (0..NSERIES) at scrape
 * i; name, labels and value into the out parameters; false when the series
 * has no sample then (model m-b starts at scrape 900, after rows were
 * handed on; its generation counter restarts at scrape 1500). */
#define NSERIES 22
static bool sample_of(int k, int i, const char **name, char *labels, size_t cap, double *v) {
  int m = k / 11, j = k % 11;
  unsigned h = (unsigned)(i * 2654435761u) ^ (unsigned)(k * 40503u);
  if (m == 1 && i < 900)
    return false;
  if (j == 0) {
    *name = "vllm:num_requests_running";
    snprintf(labels, cap, "model_name=\"%s\"", models[m]);
    *v = (double)(h % 40);
    return m == 0; /* one series: two would clash */
  }
  if (j == 1 || j == 2) {
    int r = m == 1 && i >= 1500 ? i - 1500 : i;
    *name = j == 1 ? "vllm:generation_tokens_total" : "vllm:request_success_total";
    snprintf(labels, cap, "model_name=\"%s\"", models[m]);
    *v = j == 1 ? 130.0 * r + (double)(r % 7) : 3.0 * r;
    return true;
  }
  *name = "vllm:time_to_first_token_seconds_bucket";
  if (j < 9)
    snprintf(labels, cap, "model_name=\"%s\",le=\"%g\"", models[m], bounds[j - 3]);
  else if (j == 9)
    snprintf(labels, cap, "model_name=\"%s\",le=\"+Inf\"", models[m]);
  else {
    *name = "vllm:time_to_first_token_seconds_sum";
    snprintf(labels, cap, "model_name=\"%s\"", models[m]);
  }
  /* cumulative: bucket b holds about (b + 1) / 7 of the requests so far */
  *v = j >= 9 ? 10.0 * i : (double)((i * 10 * (j - 2)) / 7 + (j == 5 ? (int)(h % 3) : 0));
  return true;
}

static void gen_text(rs_buf *b) {
  char labels[128];
  const char *name;
  double v;
  for (int i = 0; i < SCRAPES; i++)
    for (int k = 0; k < NSERIES; k++)
      if (sample_of(k, i, &name, labels, sizeof(labels), &v))
        rs_buf_printf(b, "%s{%s} %.17g %lld\n", name, labels, v, (T0S + 15 * i) * 1000);
}

static void gen_json(rs_buf *b) {
  char labels[128], quoted[160];
  const char *name;
  double v;
  rs_buf_puts(b, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[");
  for (int k = 0; k < NSERIES; k++) {
    int n = 0;
    for (int i = 0; i < SCRAPES; i++) {
      if (!sample_of(k, i, &name, labels, sizeof(labels), &v))
        continue;
      if (n++ == 0) {
        size_t q = 0;
        for (const char *c = labels; *c && q + 2 < sizeof(quoted); c++) {
          if (*c == '=')
            quoted[q++] = ':';
          else
            quoted[q++] = *c;
        }
        quoted[q] = 0;
        /* model_name:"m-a",le:"0.01" -> "model_name":"m-a","le":"0.01" */
        rs_buf_printf(b, "%s{\"metric\":{\"__name__\":\"%s\"", k ? "," : "", name);
        for (char *f = strtok(quoted, ","); f; f = strtok(NULL, ",")) {
          char *colon = strchr(f, ':');
          *colon = 0;
          rs_buf_printf(b, ",\"%s\":%s", f, colon + 1);
        }
        rs_buf_puts(b, "},\"values\":[");
      }
      rs_buf_printf(b, "%s[%lld,\"%.17g\"]", n > 1 ? "," : "", T0S + 15 * i, v);
    }
    if (n > 0)
      rs_buf_puts(b, "]}");
  }
  rs_buf_puts(b, "]}}\n");
}

static void rows_of(const char *path, const rs_buf *b, all_rows *out) {
  rs_ingest_options opts = {.format = RS_FORMAT_AUTO};
  rs_error err;
  memset(out, 0, sizeof(*out));
  rs_error_clear(&err);
  if (rs_ingest_memory(path, b->data, b->len, &opts, add_row, out, NULL, &err) != RS_OK)
    fail_msg("%s:%zu:%zu: %s", err.path, err.line, err.col, err.msg);
}

/* Megabytes of scrapes, more than the exposition reader holds at once, so
 * counters and histograms are turned into rows as it reads: the rows are
 * those of the same series read whole from a query_range answer, bit for
 * bit (a counter restart and a series first met late included). */
static void test_streamed_same_as_document(void **state) {
  rs_buf text, json;
  all_rows a, b;
  (void)state;
  rs_buf_init(&text, 0);
  rs_buf_init(&json, 0);
  gen_text(&text);
  gen_json(&json);
  assert_false(text.failed || json.failed);
  assert_true(text.len > (size_t)4 << 20);
  rows_of("g.prom", &text, &a);
  rows_of("g.json", &json, &b);
  assert_int_equal(a.n, SCRAPES);
  assert_int_equal(a.n, b.n);
  for (size_t i = 0; i < a.n; i++) {
    assert_true(a.s[i].t == b.s[i].t);
    assert_int_equal(a.s[i].gpu, b.s[i].gpu);
    assert_int_equal(a.s[i].present, b.s[i].present);
    assert_memory_equal(a.s[i].v, b.s[i].v, sizeof(a.s[i].v));
  }
  assert_true(has(&a.s[SCRAPES - 1], RS_METRIC_TTFT_P99));
  assert_true(has(&a.s[SCRAPES - 1], RS_METRIC_OUTPUT_TOKEN_RATE));
  free(a.s);
  free(b.s);
  rs_buf_release(&text);
  rs_buf_release(&json);
}

/* n scrapes a minute apart of a request counter and a latency histogram
 * whose buckets turn to a negative bound (a quantile below 0) from scrape
 * neg on; line bad (0: none) malformed. */
static void gen_negative(rs_buf *b, int n, int neg, int bad) {
  int line = 0;
  for (int i = 0; i < n; i++) {
    long long ms = (T0S + 60LL * i) * 1000;
    const char *le = i >= neg ? "-1" : "1";
    rs_buf_printf(b, "vllm:request_success_total %d %lld\n", 3 * i, ms);
    rs_buf_printf(b, "vllm:e2e_request_latency_seconds_bucket{le=\"%s\"} %d %lld\n", le, i, ms);
    rs_buf_printf(b, "vllm:e2e_request_latency_seconds_bucket{le=\"+Inf\"} %d %lld\n", 2 * i, ms);
    line += 3;
    if (line == bad)
      rs_buf_puts(b, "vllm:e2e_request_latency_seconds_bucket{le=\"1\" 4 5\n");
  }
}

/* An error in a rate or quantile deep in a streamed file is named where
 * it is (the first bucket of its time), after any malformed line, as when
 * the whole file was read. */
static void test_streamed_errors(void **state) {
  rs_ingest_options opts = {.format = RS_FORMAT_AUTO};
  keep_sink ks;
  rs_error err;
  rs_buf b;
  (void)state;
  rs_buf_init(&b, 0);
  gen_negative(&b, 10000, 6000, 0); /* 30,000 samples: rows handed on */
  memset(&ks, 0, sizeof(ks));
  rs_error_clear(&err);
  assert_int_equal(rs_ingest_memory("n.prom", b.data, b.len, &opts, keep_rows, &ks, NULL, &err),
                   RS_INVALID);
  assert_int_equal(err.line, 3 * 6001 + 2); /* the bucket le="-1" of scrape 6001 */
  assert_non_null(
      strstr(err.msg, "expected a value >= 0 in series 'vllm:e2e_request_latency_seconds'"));
  rs_buf_release(&b);
  rs_buf_init(&b, 0);
  gen_negative(&b, 10000, 6000, 27000);
  rs_error_clear(&err);
  assert_int_equal(rs_ingest_memory("n.prom", b.data, b.len, &opts, keep_rows, &ks, NULL, &err),
                   RS_INVALID);
  assert_int_equal(err.line, 27001);
  assert_non_null(strstr(err.msg, "expected ',' or '}' after a label"));
  rs_buf_release(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gauges),
      cmocka_unit_test(test_counters),
      cmocka_unit_test(test_histogram),
      cmocka_unit_test(test_histogram_idle),
      cmocka_unit_test(test_bad_buckets),
      cmocka_unit_test(test_text_exposition),
      cmocka_unit_test(test_streamed_same_as_document),
      cmocka_unit_test(test_streamed_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
