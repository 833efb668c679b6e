/* fetch (include/rightsize/fetch.h) and the HTTP layer under it
 * (include/rightsize/http.h) through a fake transport: retries and backoff,
 * timeouts, error statuses, truncated and oversized bodies, the queries sent
 * and the merge of their answers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rightsize/fetch.h"
#include "rightsize/http.h"
#include "rightsize/ingest.h"
#include "rightsize/num.h"

#define MAX_SCRIPT 16
#define MAX_URLS 64
/* the 13 LLM serving columns after batch_size, empty in a fetch of the default queries */
#define LLM_EMPTY ",,,,,,,,,,,,,"

/* A scripted transport: answer i is used for request i (the last one repeats). */
typedef struct answer {
  rs_status st; /* RS_OK: an HTTP answer; RS_IO: a timeout */
  long status;
  const char *body; /* NULL: answer by query (see by_query) */
} answer;

typedef struct fake {
  answer script[MAX_SCRIPT];
  size_t nscript, calls;
  char urls[MAX_URLS][2048];
  char auth[128];
  double slept[MAX_SCRIPT];
  size_t nslept;
} fake;

/* A body for whatever metric the query asks for: one point per step. */
static void by_query(rs_buf *body, const char *url) {
  static const char *const metrics[] = {"gpu_mem_used", "gpu_util", "request_rate", NULL};
  const char *start = strstr(url, "&start="), *end = strstr(url, "&end=");
  double t0 = 0, t1 = 0;
  sscanf(start + 7, "%lf", &t0);
  sscanf(end + 5, "%lf", &t1);
  rs_buf_puts(body, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[");
  for (size_t m = 0; metrics[m]; m++) {
    char tag[64];
    snprintf(tag, sizeof(tag), "%%22%s%%22", metrics[m]); /* "metric", URL-encoded */
    if (strstr(url, tag) == NULL)
      continue;
    for (int gpu = 0; gpu < (m < 2 ? 2 : 1); gpu++) {
      rs_buf_printf(body, "%s{\"metric\":{\"rs_metric\":\"%s\"%s%d%s},\"values\":[", gpu ? "," : "",
                    metrics[m], m < 2 ? ",\"gpu\":\"" : ",\"x\":\"", gpu, "\"");
      for (double t = t0; t <= t1; t += 60)
        rs_buf_printf(body, "%s[%.3f,\"%d\"]", t > t0 ? "," : "", t, 10 + gpu);
      rs_buf_puts(body, "]}");
    }
  }
  rs_buf_puts(body, "]}}");
}

static rs_status fake_perform(rs_transport *t, const rs_http_request *req, long *status,
                              rs_buf *body, rs_error *err) {
  fake *f = t->ctx;
  const answer *a = &f->script[f->calls < f->nscript ? f->calls : f->nscript - 1];
  if (f->calls < MAX_URLS)
    snprintf(f->urls[f->calls], sizeof(f->urls[0]), "%s", req->url);
  snprintf(f->auth, sizeof(f->auth), "%s", req->authorization ? req->authorization : "");
  f->calls++;
  if (a->st != RS_OK)
    return rs_error_set(err, a->st, NULL, 0, 0, "http://fake: Timeout was reached");
  if (a->body)
    rs_buf_puts(body, a->body);
  else
    by_query(body, req->url);
  if (body->failed)
    return rs_error_set(err, RS_LIMIT, NULL, 0, 0,
                        "http://fake: the response is larger than %zu bytes", req->max_bytes);
  *status = a->status;
  return RS_OK;
}

static void fake_sleep(void *ctx, double s) {
  fake *f = ctx;
  if (f->nslept < MAX_SCRIPT)
    f->slept[f->nslept++] = s;
}

typedef struct setup {
  fake f;
  rs_transport t;
  rs_http_retry retry;
  rs_fetch_prom_options o;
} setup;

static void init(setup *s, const answer *script, size_t n) {
  memset(s, 0, sizeof(*s));
  memcpy(s->f.script, script, n * sizeof(*script));
  s->f.nscript = n;
  s->t.perform = fake_perform;
  s->t.ctx = &s->f;
  s->retry.attempts = 3;
  s->retry.sleep = fake_sleep;
  s->retry.sleep_ctx = &s->f;
  s->o.url = "http://prom:9090/";
  s->o.selector = "{job=\"bert\"}";
  s->o.start = 1796047200;
  s->o.end = 1796047200 + 600;
  s->o.step_s = 60;
  s->o.retry = &s->retry;
}

static rs_status run(setup *s, rs_buf *csv, rs_fetch_result *res, rs_error *err) {
  rs_error_clear(err);
  return rs_fetch_prometheus(&s->o, &s->t, rs_fetch_csv_sink, csv, res, err);
}

static const char ok_empty[] =
    "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}}";

static void test_http_retries_429_then_success(void **state) {
  static setup s;
  answer script[] = {{RS_OK, 429, "slow down"}, {RS_OK, 503, ""}, {RS_OK, 200, "fine"}};
  rs_buf body;
  rs_error err;
  long status = 0;
  rs_http_request req = {"http://x/", NULL, false, 0, 0, 0};
  (void)state;
  init(&s, script, 3);
  rs_buf_init(&body, 0);
  rs_error_clear(&err);
  assert_int_equal(rs_http_get(&s.t, &req, &s.retry, &status, &body, &err), RS_OK);
  assert_int_equal(status, 200);
  assert_string_equal(body.data, "fine");
  assert_int_equal(s.f.calls, 3);
  assert_int_equal(s.f.nslept, 2);
  assert_true(s.f.slept[0] == 1.0 && s.f.slept[1] == 2.0); /* exponential backoff */
  rs_buf_release(&body);
}

static void test_http_gives_up_on_500(void **state) {
  static setup s;
  answer script[] = {{RS_OK, 500, "boom"}};
  rs_buf csv;
  rs_fetch_result res;
  rs_error err;
  (void)state;
  init(&s, script, 1);
  rs_buf_init(&csv, 0);
  assert_int_equal(run(&s, &csv, &res, &err), RS_IO);
  assert_int_equal(s.f.calls, 3);
  assert_string_equal(err.msg, "http://prom:9090/: HTTP status 500 after retries, expected 200");
  assert_int_equal(csv.len, 0);
  rs_buf_release(&csv);
}

static void test_http_no_retry_on_404_or_timeout(void **state) {
  static setup s;
  answer not_found[] = {{RS_OK, 404, "404 page not found"}};
  answer timeout[] = {{RS_IO, 0, NULL}};
  rs_buf csv;
  rs_fetch_result res;
  rs_error err;
  (void)state;
  rs_buf_init(&csv, 0);
  init(&s, not_found, 1);
  assert_int_equal(run(&s, &csv, &res, &err), RS_IO);
  assert_int_equal(s.f.calls, 1);
  assert_non_null(strstr(err.msg, "HTTP status 404, expected 200"));
  init(&s, timeout, 1);
  assert_int_equal(run(&s, &csv, &res, &err), RS_IO);
  assert_int_equal(s.f.calls, 1);
  assert_string_equal(err.msg, "http://fake: Timeout was reached");
  assert_int_equal(csv.len, 0);
  rs_buf_release(&csv);
}

static void test_truncated_and_oversized_bodies(void **state) {
  static setup s;
  answer truncated[] = {
      {RS_OK, 200,
       "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"me"}};
  answer big[] = {{RS_OK, 200, NULL}};
  rs_buf csv;
  rs_fetch_result res;
  rs_error err;
  (void)state;
  rs_buf_init(&csv, 0);
  init(&s, truncated, 1);
  assert_int_equal(run(&s, &csv, &res, &err), RS_SYNTAX);
  assert_string_equal(err.path, "prometheus answer for gpu_mem_used");
  assert_int_equal(err.line, 1);
  init(&s, big, 1);
  s.o.http.max_bytes = 200;
  assert_int_equal(run(&s, &csv, &res, &err), RS_LIMIT);
  assert_non_null(strstr(err.msg, "larger than 200 bytes"));
  assert_int_equal(csv.len, 0);
  rs_buf_release(&csv);
}

static void test_error_payload_and_empty(void **state) {
  static setup s;
  answer bad[] = {{RS_OK, 400,
                   "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"1:17: parse "
                   "error: unexpected identifier\"}"}};
  answer empty[] = {{RS_OK, 200, ok_empty}};
  rs_buf csv;
  rs_fetch_result res;
  rs_error err;
  (void)state;
  rs_buf_init(&csv, 0);
  init(&s, bad, 1);
  assert_int_equal(run(&s, &csv, &res, &err), RS_INVALID);
  assert_string_equal(err.msg,
                      "the query failed: bad_data: 1:17: parse error: unexpected identifier");
  init(&s, empty, 1);
  assert_int_equal(run(&s, &csv, &res, &err), RS_INVALID);
  assert_non_null(strstr(err.msg, "no samples: no query matched any series for {job=\"bert\"}"));
  assert_int_equal(s.f.calls, 10); /* every metric was asked for */
  assert_int_equal(csv.len, 0);
  rs_buf_release(&csv);
}

/* A server that echoes the bearer token in its error text: the token is
 * masked before the error quotes the answer. */
static void test_error_text_token_masked(void **state) {
  static setup s;
  answer bad[] = {{RS_OK, 400,
                   "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"token "
                   "tok-XYZ123 (Bearer tok-XYZ123) refused\"}"}};
  rs_buf csv;
  rs_fetch_result res;
  rs_error err;
  (void)state;
  rs_buf_init(&csv, 0);
  init(&s, bad, 1);
  s.o.http.authorization = "Bearer tok-XYZ123";
  assert_int_equal(run(&s, &csv, &res, &err), RS_INVALID);
  assert_null(strstr(err.msg, "XYZ"));
  assert_string_equal(err.msg,
                      "the query failed: bad_data: token ********** (*****************) refused");
  rs_buf_release(&csv);
}

/* The CSV timestamps are unix seconds the native reader takes (never %g's
 * exponent), and a time it would refuse is not written. */
static void test_csv_timestamps(void **state) {
  rs_buf csv;
  rs_sample smp;
  rs_error err;
  double back;
  (void)state;
  rs_buf_init(&csv, 0);
  memset(&smp, 0, sizeof(smp));
  smp.gpu = -1;
  smp.t = 1796047501.25;
  rs_error_clear(&err);
  assert_int_equal(rs_fetch_csv_sink(&csv, &smp, &err), RS_OK);
  smp.t = 1796047560.0;
  assert_int_equal(rs_fetch_csv_sink(&csv, &smp, &err), RS_OK);
  assert_non_null(strstr(csv.data, "\n1796047501.25,,"));
  assert_non_null(strstr(csv.data, "\n1796047560,,"));
  assert_int_equal(rs_time_parse("1796047501.25", 13, &back), RS_OK);
  smp.t = 1e300;
  assert_int_equal(rs_fetch_csv_sink(&csv, &smp, &err), RS_INTERNAL);
  assert_null(strstr(csv.data, "e+"));
  rs_buf_release(&csv);
}

static rs_status count(void *ctx, const rs_sample *smp, rs_error *err) {
  (void)smp;
  (void)err;
  (*(size_t *)ctx)++;
  return RS_OK;
}

/* Ten queries, their answers merged into rows, written as a native CSV that
 * reads back. */
static void test_queries_and_merge(void **state) {
  static setup s;
  answer script[] = {{RS_OK, 200, NULL}};
  rs_buf csv;
  rs_fetch_result res;
  rs_ingest_result ir;
  rs_ingest_options io = {.format = RS_FORMAT_AUTO};
  rs_error err;
  size_t rows = 0;
  (void)state;
  rs_buf_init(&csv, 0);
  init(&s, script, 1);
  s.o.http.authorization = "Bearer s3cret";
  assert_int_equal(run(&s, &csv, &res, &err), RS_OK);
  assert_int_equal(s.f.calls, 10);
  assert_int_equal(res.requests, 10);
  assert_int_equal(res.metrics, 3);
  assert_int_equal(res.rows, 22); /* 11 steps x 2 GPUs, request rate on GPU 0's row */
  assert_string_equal(s.f.auth, "Bearer s3cret");
  /* the trailing slash of the base is dropped; the selector and the window are in the query */
  assert_non_null(strstr(s.f.urls[0], "http://prom:9090/api/v1/query_range?query=label_replace"));
  assert_non_null(strstr(s.f.urls[0], "DCGM_FI_DEV_FB_USED%7Bjob%3D%22bert%22%7D%5B59999ms%5D"));
  assert_non_null(strstr(s.f.urls[0], "&start=1796047200.000&end=1796047800.000&step=60.000"));
  assert_non_null(strstr(s.f.urls[2], "mode%3D%22idle%22"));
  assert_non_null(strstr(s.f.urls[9], "histogram_quantile%280.99"));
  assert_non_null(strstr(csv.data, "timestamp,gpu_index,gpu_mem_used_bytes,gpu_mem_total_bytes,"));
  assert_non_null(strstr(csv.data, "\n1796047200,0,10,,10,,,,,10,,,," LLM_EMPTY "\n"));
  assert_non_null(strstr(csv.data, "\n1796047200,1,11,,11,,,,,,,,," LLM_EMPTY "\n"));
  assert_int_equal(rs_ingest_memory("csv", csv.data, csv.len, &io, count, &rows, &ir, &err), RS_OK);
  assert_int_equal(ir.format, RS_FORMAT_NATIVE);
  assert_int_equal(rows, res.rows);
  rs_buf_release(&csv);
}

/* More than 10,000 steps: each metric is asked for in chunks. */
static void test_long_range_is_chunked(void **state) {
  static setup s;
  answer script[] = {{RS_OK, 200, ok_empty}};
  rs_buf csv;
  rs_fetch_result res;
  rs_error err;
  (void)state;
  rs_buf_init(&csv, 0);
  init(&s, script, 1);
  s.o.end = s.o.start + 14 * 86400.0; /* 20,160 steps */
  assert_int_equal(run(&s, &csv, &res, &err), RS_INVALID);
  assert_int_equal(s.f.calls, 30);
  assert_non_null(strstr(s.f.urls[0], "&start=1796047200.000&end=1796647200.000"));
  assert_non_null(strstr(s.f.urls[1], "&start=1796647260.000&end=1797247260.000"));
  assert_non_null(strstr(s.f.urls[2], "&start=1797247320.000&end=1797256800.000"));
  rs_buf_release(&csv);
}

static void test_selector_and_encoding(void **state) {
  rs_error err;
  rs_buf b;
  (void)state;
  rs_error_clear(&err);
  assert_int_equal(rs_fetch_check_selector("{job=\"a\"}", &err), RS_OK);
  assert_int_equal(rs_fetch_check_selector("{}", &err), RS_OK);
  assert_int_equal(rs_fetch_check_selector("job=\"a\"", &err), RS_USAGE);
  rs_error_clear(&err);
  assert_int_equal(rs_fetch_check_selector("{job=\"a}", &err), RS_USAGE);
  assert_non_null(strstr(err.msg, "expected a closing '\"'"));
  rs_error_clear(&err);
  assert_int_equal(rs_fetch_check_selector("{a=\"1\"} or up{b=\"2\"}", &err), RS_USAGE);
  rs_buf_init(&b, 0);
  assert_int_equal(rs_http_put_query_value(&b, "a b&c=\"d\"~"), RS_OK);
  assert_string_equal(b.data, "a%20b%26c%3D%22d%22~");
  rs_buf_reset(&b);
  assert_int_equal(rs_http_put_basic_auth(&b, "user:pass"), RS_OK);
  assert_string_equal(b.data, "Basic dXNlcjpwYXNz");
  rs_buf_reset(&b);
  assert_int_equal(rs_http_put_basic_auth(&b, "ab:c"), RS_OK);
  assert_string_equal(b.data, "Basic YWI6Yw==");
  rs_buf_release(&b);
}

/* The range is bounded before a request goes out: --since 1e22s once sent
 * tens of thousands of queries (issue 15). */
static void test_range_bounds_checked_first(void **state) {
  static setup s;
  answer script[] = {{RS_OK, 200, ok_empty}};
  rs_buf csv;
  rs_fetch_result res;
  rs_error err;
  (void)state;
  rs_buf_init(&csv, 0);
  init(&s, script, 1);
  s.o.start = s.o.end - 1e22;
  assert_int_equal(run(&s, &csv, &res, &err), RS_USAGE);
  assert_string_equal(err.msg, "the time range is longer than 400 days");
  init(&s, script, 1);
  s.o.start = s.o.end - RS_FETCH_MAX_SINCE_S;
  s.o.step_s = 1; /* 3456 chunks of 10,001 steps, 10 queries each */
  assert_int_equal(run(&s, &csv, &res, &err), RS_LIMIT);
  assert_non_null(strstr(err.msg, "the range needs 34560 queries, more than 2000"));
  init(&s, script, 1);
  s.o.start = NAN;
  assert_int_equal(run(&s, &csv, &res, &err), RS_USAGE);
  init(&s, script, 1);
  s.o.start = s.o.end;
  assert_int_equal(run(&s, &csv, &res, &err), RS_USAGE);
  assert_int_equal(s.f.calls, 0);
  /* The largest range at the default step is allowed: 58 chunks, 580 queries. */
  init(&s, script, 1);
  s.o.start = s.o.end - RS_FETCH_MAX_SINCE_S;
  assert_int_equal(run(&s, &csv, &res, &err), RS_INVALID); /* every answer empty */
  assert_int_equal(s.f.calls, 580);
  rs_buf_release(&csv);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_http_retries_429_then_success),
      cmocka_unit_test(test_http_gives_up_on_500),
      cmocka_unit_test(test_http_no_retry_on_404_or_timeout),
      cmocka_unit_test(test_truncated_and_oversized_bodies),
      cmocka_unit_test(test_error_text_token_masked),
      cmocka_unit_test(test_csv_timestamps),
      cmocka_unit_test(test_error_payload_and_empty),
      cmocka_unit_test(test_queries_and_merge),
      cmocka_unit_test(test_long_range_is_chunked),
      cmocka_unit_test(test_selector_and_encoding),
      cmocka_unit_test(test_range_bounds_checked_first),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
