/* Per-request logs: detection, token rows, interval rows (rates and
 * percentiles), statuses, and every bad input with its position. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rightsize/ingest.h"

#define MAX_KEEP 64

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

static bool has(const rs_sample *s, rs_metric m) { return (s->present & (1u << m)) != 0; }

static void assert_near(double got, double want) {
  if (fabs(got - want) > 1e-9 * (fabs(want) + 1.0))
    fail_msg("got %.17g, want %.17g", got, want);
}

static rs_status run_text(const char *text, rs_sample_format format, double interval_s,
                          keep_sink *ks, rs_ingest_result *res, rs_error *err) {
  rs_ingest_options opts = {.format = format, .interval_s = interval_s};
  memset(ks, 0, sizeof(*ks));
  rs_error_clear(err);
  return rs_ingest_memory("log.csv", text, strlen(text), &opts, keep_rows, ks, res, err);
}

static void expect_error(const char *text, rs_sample_format format, rs_status st, size_t line,
                         size_t col, const char *needle) {
  keep_sink ks;
  rs_error err;
  assert_int_equal(run_text(text, format, 0, &ks, NULL, &err), st);
  assert_int_equal(err.status, st);
  assert_string_equal(err.path, "log.csv");
  assert_int_equal(err.line, line);
  assert_int_equal(err.col, col);
  if (strstr(err.msg, needle) == NULL)
    fail_msg("message '%s' lacks '%s'", err.msg, needle);
}

/* The Azure LLM inference trace's header and its 7-digit fractions. */
static void test_azure_header_and_timestamps(void **state) {
  keep_sink ks;
  rs_error err;
  rs_ingest_result res;
  (void)state;
  assert_int_equal(run_text("TIMESTAMP,ContextTokens,GeneratedTokens\n"
                            "2023-11-16 18:15:46.6805900,374,44\n"
                            "2023-11-16 18:15:50.9951690,396,109",
                            RS_FORMAT_AUTO, 0, &ks, &res, &err),
                   RS_OK);
  assert_int_equal(res.format, RS_FORMAT_REQUESTS);
  assert_int_equal(res.columns, 3);
  assert_int_equal(ks.rows, 2); /* two token rows; the one cut-short interval has no latency */
  assert_near(ks.kept[0].t, 1700158546.68059);
  assert_near(ks.kept[1].t, 1700158550.995169);
  assert_near(ks.kept[0].v[RS_METRIC_PROMPT_TOKENS], 374);
  assert_near(ks.kept[0].v[RS_METRIC_OUTPUT_TOKENS], 44);
  assert_near(ks.kept[1].v[RS_METRIC_OUTPUT_TOKENS], 109);
  assert_int_equal(ks.kept[0].present,
                   (1u << RS_METRIC_PROMPT_TOKENS) | (1u << RS_METRIC_OUTPUT_TOKENS));
  assert_int_equal(ks.kept[0].line, 2);
  assert_int_equal(ks.kept[0].gpu, -1);
}

/* Intervals start at the first request; a full interval's row comes at its
 * end, after its requests, with rates over the interval; an empty one says 0. */
static void test_interval_rates(void **state) {
  keep_sink ks;
  rs_error err;
  (void)state;
  assert_int_equal(run_text("timestamp,input_tokens,completion_tokens\n"
                            "1000,100,10\n1010,200,20\n1020,300,30\n" /* [1000,1060) */
                            "1130,50,5\n",                            /* after an empty one */
                            RS_FORMAT_AUTO, 0, &ks, NULL, &err),
                   RS_OK);
  assert_int_equal(ks.rows, 6);
  const rs_sample *a = &ks.kept[3], *b = &ks.kept[4];
  assert_near(a->t, 1060);
  assert_near(a->v[RS_METRIC_REQUEST_RATE], 3.0 / 60);
  assert_near(a->v[RS_METRIC_PROMPT_TOKEN_RATE], 600.0 / 60);
  assert_near(a->v[RS_METRIC_OUTPUT_TOKEN_RATE], 60.0 / 60);
  assert_false(has(a, RS_METRIC_PROMPT_TOKENS));
  assert_false(has(a, RS_METRIC_LATENCY_P50));
  assert_near(b->t, 1120);
  assert_true(has(b, RS_METRIC_REQUEST_RATE));
  assert_near(b->v[RS_METRIC_REQUEST_RATE], 0.0);
  assert_near(b->v[RS_METRIC_OUTPUT_TOKEN_RATE], 0.0);
  assert_near(ks.kept[5].t, 1130);
  assert_near(ks.kept[5].v[RS_METRIC_PROMPT_TOKENS], 50);
  for (size_t i = 1; i < ks.rows; i++)
    assert_true(ks.kept[i].t >= ks.kept[i - 1].t);
}

static void test_interval_option(void **state) {
  keep_sink ks;
  rs_error err;
  (void)state;
  assert_int_equal(
      run_text("time,output_tokens\n0,1\n5,1\n12,1\n", RS_FORMAT_REQUESTS, 10, &ks, NULL, &err),
      RS_OK);
  assert_int_equal(ks.rows, 4);
  assert_near(ks.kept[2].t, 10);
  assert_near(ks.kept[2].v[RS_METRIC_REQUEST_RATE], 0.2);
  assert_false(has(&ks.kept[2], RS_METRIC_PROMPT_TOKEN_RATE)); /* no prompt column */
  assert_near(ks.kept[2].v[RS_METRIC_OUTPUT_TOKEN_RATE], 0.2);
}

/* Percentiles interpolate between order statistics as numpy.percentile does:
 * for 1..100 ms, p50 50.5, p95 95.05, p99 99.01. */
static void test_latency_percentiles(void **state) {
  char text[8192];
  size_t n = 0;
  keep_sink ks;
  rs_error err;
  (void)state;
  n += (size_t)snprintf(text + n, sizeof(text) - n, "timestamp,latency_ms,ttft,itl\n");
  for (int i = 100; i >= 1; i--) /* out of value order, in time order */
    n += (size_t)snprintf(text + n, sizeof(text) - n, "%d,%d,%g,%g\n", 100 - i, i, i / 1000.0,
                          i % 2 ? 0.020 : 0.040);
  n += (size_t)snprintf(text + n, sizeof(text) - n, "200,7,,\n");
  assert_int_equal(run_text(text, RS_FORMAT_AUTO, 100, &ks, NULL, &err), RS_OK);
  /* no token columns: no per-request rows; a full interval, an empty one, one cut short */
  assert_int_equal(ks.rows, 3);
  const rs_sample *s = &ks.kept[0];
  assert_near(s->t, 100);
  assert_near(s->v[RS_METRIC_REQUEST_RATE], 1.0);
  assert_near(s->v[RS_METRIC_LATENCY_P50], 50.5);
  assert_near(s->v[RS_METRIC_LATENCY_P95], 95.05);
  assert_near(s->v[RS_METRIC_LATENCY_P99], 99.01);
  assert_near(s->v[RS_METRIC_TTFT_P50], 50.5); /* seconds read as seconds, kept in ms */
  assert_near(s->v[RS_METRIC_TPOT_P50], 30.0);
  assert_near(s->v[RS_METRIC_TPOT_P99], 40.0);
  assert_near(ks.kept[1].t, 200);
  assert_int_equal(ks.kept[1].present, 1u << RS_METRIC_REQUEST_RATE);
  assert_near(ks.kept[1].v[RS_METRIC_REQUEST_RATE], 0);
  /* the last interval is cut short by the end of the log: percentiles, no rates */
  assert_near(ks.kept[2].t, 200);
  assert_near(ks.kept[2].v[RS_METRIC_LATENCY_P99], 7);
  assert_false(has(&ks.kept[2], RS_METRIC_REQUEST_RATE));
  assert_false(has(&ks.kept[2], RS_METRIC_TTFT_P50));
}

static void test_duration_units(void **state) {
  keep_sink ks;
  rs_error err;
  (void)state;
  assert_int_equal(run_text("timestamp,e2e_latency_us,ttft_s,prompt_tokens\n"
                            "0,250000,350ms,10\n",
                            RS_FORMAT_AUTO, 0, &ks, NULL, &err),
                   RS_OK);
  assert_int_equal(ks.rows, 2);
  assert_near(ks.kept[1].v[RS_METRIC_LATENCY_P50], 250);
  assert_near(ks.kept[1].v[RS_METRIC_TTFT_P50], 350);
}

/* A failed request is an arrival (rate) but not served work (tokens, latencies). */
static void test_status(void **state) {
  keep_sink ks;
  rs_error err;
  (void)state;
  assert_int_equal(run_text("timestamp,prompt_tokens,output_tokens,latency,status\n"
                            "0,10,1,0.5,200\n1,20,2,0.1,500\n2,30,3,0.7,OK\n3,40,4,0.2,error\n"
                            "4,50,5,0.9,\n60,1,1,1,201\n",
                            RS_FORMAT_AUTO, 0, &ks, NULL, &err),
                   RS_OK);
  assert_int_equal(ks.rows, 6); /* 3 ok requests, the interval, the last request and its cut */
  assert_near(ks.kept[1].v[RS_METRIC_PROMPT_TOKENS], 30);
  const rs_sample *s = &ks.kept[3];
  assert_near(s->v[RS_METRIC_REQUEST_RATE], 5.0 / 60);
  assert_near(s->v[RS_METRIC_PROMPT_TOKEN_RATE], 90.0 / 60);
  assert_near(s->v[RS_METRIC_LATENCY_P50], 700);
}

/* Headers of native names only stay native, whatever tokens they carry. */
static void test_detection(void **state) {
  keep_sink ks;
  rs_error err;
  rs_ingest_result res;
  (void)state;
  assert_int_equal(run_text("timestamp,prompt_tokens,output_tokens,x_id\n1,2,3,a\n", RS_FORMAT_AUTO,
                            0, &ks, &res, &err),
                   RS_OK);
  assert_int_equal(res.format, RS_FORMAT_NATIVE);
  assert_int_equal(run_text("Timestamp,Request tokens,Response tokens,Model\n1,2,3,m\n",
                            RS_FORMAT_AUTO, 0, &ks, &res, &err),
                   RS_OK);
  assert_int_equal(res.format, RS_FORMAT_REQUESTS);
  assert_near(ks.kept[0].v[RS_METRIC_OUTPUT_TOKENS], 3);
  /* a time and no request column: native, with its own message */
  expect_error("timestamp,latency_p99_msx\n1,2\n", RS_FORMAT_AUTO, RS_INVALID, 1, 11,
               "unknown column");
}

static void test_bad_header(void **state) {
  (void)state;
  expect_error("timestamp,model\n1,m\n", RS_FORMAT_REQUESTS, RS_INVALID, 1, 1,
               "missing a request column");
  expect_error("id,prompt_tokens\n1,2\n", RS_FORMAT_REQUESTS, RS_INVALID, 1, 1,
               "missing required column 'timestamp'");
  expect_error("time,prompt_tokens,ContextTokens\n1,2,3\n", RS_FORMAT_AUTO, RS_INVALID, 1, 20,
               "column 'ContextTokens' repeats column 2 'prompt_tokens'");
  expect_error("", RS_FORMAT_REQUESTS, RS_INVALID, 1, 1, "empty file");
  expect_error("time,prompt_tokens\n", RS_FORMAT_AUTO, RS_INVALID, 2, 1, "no samples");
}

static void test_bad_cells(void **state) {
  (void)state;
  expect_error("time,prompt_tokens\n1,2\n2023-13-01 00:00:00,3\n", RS_FORMAT_AUTO, RS_INVALID, 3, 1,
               "expected a timestamp");
  expect_error("time,prompt_tokens\n1,2\n,3\n", RS_FORMAT_AUTO, RS_INVALID, 3, 1,
               "got an empty cell");
  expect_error("time,output_tokens\n1,-4\n", RS_FORMAT_AUTO, RS_INVALID, 2, 3,
               "expected a token count >= 0 in column 'output_tokens', got '-4'");
  expect_error("time,output_tokens\n1,many\n", RS_FORMAT_AUTO, RS_INVALID, 2, 3,
               "expected a token count in column");
  expect_error("time,output_tokens\n1,nan\n", RS_FORMAT_AUTO, RS_INVALID, 2, 3,
               "expected a token count in column");
  expect_error("time,ttft\n1,-0.2\n", RS_FORMAT_AUTO, RS_INVALID, 2, 3,
               "expected a duration >= 0 (in s, or with a unit such as 350ms)");
  expect_error("time,prompt_tokens\n1,2\n1,2,3\n", RS_FORMAT_AUTO, RS_INVALID, 3, 5,
               "row has 3 fields, expected 2");
  expect_error("time,prompt_tokens\n5,2\n4,2\n", RS_FORMAT_AUTO, RS_INVALID, 3, 1,
               "timestamp goes backwards");
  expect_error("time,prompt_tokens\n5,2\n99999999999,2\n", RS_FORMAT_AUTO, RS_LIMIT, 3, 1,
               "more than 10000000 intervals");
}

/* The sink's error stops the run and comes back unchanged. */
static rs_status failing_sink(void *ctx, const rs_sample *s, rs_error *err) {
  (void)ctx;
  return rs_error_set(err, RS_POLICY, s->path, s->line, 1, "sink says stop");
}

static void test_sink_error(void **state) {
  rs_error err;
  rs_ingest_options opts = {.format = RS_FORMAT_AUTO};
  const char *text = "time,prompt_tokens\n1,2\n";
  (void)state;
  rs_error_clear(&err);
  assert_int_equal(
      rs_ingest_memory("log.csv", text, strlen(text), &opts, failing_sink, NULL, NULL, &err),
      RS_POLICY);
  assert_int_equal(err.line, 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_azure_header_and_timestamps),
      cmocka_unit_test(test_interval_rates),
      cmocka_unit_test(test_interval_option),
      cmocka_unit_test(test_latency_percentiles),
      cmocka_unit_test(test_duration_units),
      cmocka_unit_test(test_status),
      cmocka_unit_test(test_detection),
      cmocka_unit_test(test_bad_header),
      cmocka_unit_test(test_bad_cells),
      cmocka_unit_test(test_sink_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
