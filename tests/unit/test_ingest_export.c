/* Exported formats (docs/sources.md): Prometheus query_range JSON, text
 * exposition scrapes, CloudWatch get-metric-data JSON. Each must give the
 * same statistics as the equivalent native CSV, and every bad input one
 * positioned error. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rightsize/buf.h"
#include "rightsize/ingest.h"
#include "rightsize/stats.h"
#include "test_support.h"

#define DATA RS_TEST_DATA "/exports/"

static void assert_close(double got, double want, const char *what) {
  if (isnan(got) && isnan(want))
    return;
  if (!(fabs(got - want) <= 1e-9 * (fabs(want) + 1.0)))
    fail_msg("%s: got %.17g, want %.17g", what, got, want);
}

static void assert_same_metric(const rs_metric_stats *a, const rs_metric_stats *b,
                               const char *what) {
  if (a->count != b->count)
    fail_msg("%s: count %llu, want %llu", what, (unsigned long long)a->count,
             (unsigned long long)b->count);
  if (a->count == 0)
    return;
  assert_close(a->min, b->min, what);
  assert_close(a->max, b->max, what);
  assert_close(a->mean, b->mean, what);
  assert_close(a->stddev, b->stddev, what);
  for (int q = 0; q < RS_QUANTILE_COUNT; q++)
    assert_close(a->q[q], b->q[q], what);
}

static void assert_same_stats(const rs_endpoint_stats *a, const rs_endpoint_stats *b) {
  assert_int_equal(a->coverage.rows, b->coverage.rows);
  assert_int_equal(a->coverage.series, b->coverage.series);
  assert_close(a->coverage.first, b->coverage.first, "first");
  assert_close(a->coverage.last, b->coverage.last, "last");
  assert_close(a->coverage.interval_s, b->coverage.interval_s, "interval");
  assert_int_equal(a->coverage.gaps, b->coverage.gaps);
  assert_int_equal(a->coverage.out_of_order, 0);
  assert_int_equal(a->coverage.duplicates, b->coverage.duplicates);
  assert_int_equal(a->coverage.duplicates, 0);
  for (int m = 0; m < RS_METRIC_COUNT; m++)
    assert_same_metric(&a->m[m], &b->m[m], rs_metric_key((rs_metric)m));
  assert_int_equal(a->ndevices, b->ndevices);
  for (size_t d = 0; d < a->ndevices; d++) {
    assert_int_equal(a->devices[d].index, b->devices[d].index);
    for (int m = 0; m < RS_METRIC_COUNT; m++)
      assert_same_metric(&a->devices[d].m[m], &b->devices[d].m[m], rs_metric_key((rs_metric)m));
  }
}

/* Statistics (exact quantiles) of a file or a buffer. */
static rs_status stats_of(rs_endpoint_stats *out, const char *path, const char *data, size_t len,
                          rs_sample_format format, const rs_series_map *map, rs_ingest_result *res,
                          rs_error *err) {
  rs_stats *st = NULL;
  rs_stats_options so = {.exact = true};
  rs_ingest_options io = {.format = format, .max_record_bytes = 0, .map = map};
  rs_status s;
  rs_error_clear(err);
  s = rs_stats_new(&st, &so, err);
  assert_int_equal(s, RS_OK);
  rs_stats_begin_file(st, path);
  s = data ? rs_ingest_memory(path, data, len, &io, rs_stats_sink, st, res, err)
           : rs_ingest_file(path, &io, rs_stats_sink, st, res, err);
  if (s == RS_OK)
    s = rs_stats_finish(st, out, err);
  rs_stats_free(st);
  return s;
}

static void same_as_csv(const char *export_path, const char *csv_path, rs_sample_format want,
                        const rs_series_map *map) {
  static rs_endpoint_stats a, b;
  rs_ingest_result res;
  rs_error err;
  if (stats_of(&a, export_path, NULL, 0, RS_FORMAT_AUTO, map, &res, &err) != RS_OK)
    fail_msg("%s: %s:%zu:%zu: %s", export_path, err.path, err.line, err.col, err.msg);
  assert_int_equal(res.format, want);
  assert_int_equal(stats_of(&b, csv_path, NULL, 0, RS_FORMAT_NATIVE, NULL, NULL, &err), RS_OK);
  assert_same_stats(&a, &b);
}

static void test_format_names(void **state) {
  rs_sample_format f;
  (void)state;
  assert_int_equal(rs_format_from_name(&f, "prometheus-json"), RS_OK);
  assert_int_equal(f, RS_FORMAT_PROM_JSON);
  assert_int_equal(rs_format_from_name(&f, "prometheus-text"), RS_OK);
  assert_int_equal(f, RS_FORMAT_PROM_TEXT);
  assert_int_equal(rs_format_from_name(&f, "cloudwatch-json"), RS_OK);
  assert_int_equal(f, RS_FORMAT_CLOUDWATCH);
  assert_string_equal(rs_format_name(RS_FORMAT_CLOUDWATCH), "cloudwatch-json");
  assert_int_equal(rs_format_from_name(&f, "prometheus"), RS_USAGE);
}

/* The committed examples (also shown in docs/sources.md). */
static void test_examples_match_native(void **state) {
  rs_series_map map;
  rs_error err;
  rs_arena *arena = *state;
  same_as_csv(DATA "dcgm_query_range.json", DATA "dcgm_query_range.csv", RS_FORMAT_PROM_JSON, NULL);
  same_as_csv(DATA "dcgm_scrapes.prom", DATA "dcgm_scrapes.csv", RS_FORMAT_PROM_TEXT, NULL);
  rs_error_clear(&err);
  assert_int_equal(rs_series_map_load(&map, arena, DATA "sagemaker_mapping.yaml", &err), RS_OK);
  assert_close(map.gpu_mem_total, 16.0 * 1073741824.0, "gpu_mem_total");
  assert_close(map.gpus, 4, "gpus");
  same_as_csv(DATA "sagemaker_get_metric_data.json", DATA "sagemaker_get_metric_data.csv",
              RS_FORMAT_CLOUDWATCH, &map);
}

/* ---- generated: a day at 60 s, 2 GPUs, the same values in each format ---- */

#define POINTS 1440
#define T0 1796047200.0

typedef struct gen {
  int mem[2][POINTS], util[2][POINTS]; /* MiB, percent */
  int cpu[POINTS];                     /* percent */
  double rate[POINTS], p99[POINTS];    /* requests/s, ms */
} gen;

static void generate(gen *g) {
  rng r = {42};
  for (int i = 0; i < POINTS; i++) {
    for (int d = 0; d < 2; d++) {
      g->mem[d][i] = 3000 + d * 1000 + (int)(rng_uniform(&r) * 500);
      g->util[d][i] = (int)(rng_uniform(&r) * 100);
    }
    g->cpu[i] = (int)(rng_uniform(&r) * 100);
    g->rate[i] = (double)(int)(rng_uniform(&r) * 4000) / 8.0;
    g->p99[i] = (double)(int)(rng_uniform(&r) * 1600) / 16.0;
  }
}

/* days: the generated day repeated, one after the other. */
static void gen_csv(rs_buf *b, const gen *g, int days) {
  rs_buf_puts(b, "timestamp,gpu_index,gpu_mem_used_mib,gpu_util_pct,cpu_util_pct,"
                 "request_rate_rps,latency_p99_ms\n");
  for (int k = 0; k < days * POINTS; k++) {
    int i = k % POINTS;
    double t = T0 + 60.0 * k;
    rs_buf_printf(b, "%.0f,0,%d,%d,%d,%.17g,%.17g\n", t, g->mem[0][i], g->util[0][i], g->cpu[i],
                  g->rate[i], g->p99[i]);
    rs_buf_printf(b, "%.0f,1,%d,%d,,,\n", t, g->mem[1][i], g->util[1][i]);
  }
}

static void json_series(rs_buf *b, const char *labels, const int *iv, const double *dv,
                        double div) {
  rs_buf_printf(b, "{\"metric\":{%s},\"values\":[", labels);
  for (int i = 0; i < POINTS; i++)
    rs_buf_printf(b, "%s[%.3f,\"%.17g\"]", i ? "," : "", T0 + 60.0 * i,
                  (iv ? (double)iv[i] : dv[i]) / div);
  rs_buf_puts(b, "]}");
}

static void gen_prom_json(rs_buf *b, const gen *g) {
  char labels[128];
  rs_buf_puts(b, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[");
  for (int d = 0; d < 2; d++) {
    snprintf(labels, sizeof(labels), "\"__name__\":\"DCGM_FI_DEV_FB_USED\",\"gpu\":\"%d\"", d);
    json_series(b, labels, g->mem[d], NULL, 1);
    rs_buf_putc(b, ',');
    snprintf(labels, sizeof(labels),
             "\"__name__\":\"DCGM_FI_PROF_GR_ENGINE_ACTIVE\",\"gpu\":\"%d\"", d);
    json_series(b, labels, g->util[d], NULL, 100);
    rs_buf_putc(b, ',');
  }
  json_series(b, "\"__name__\":\"instance:node_cpu_utilisation:rate5m\"", g->cpu, NULL, 100);
  rs_buf_putc(b, ',');
  json_series(b, "\"rs_metric\":\"request_rate\"", NULL, g->rate, 1);
  rs_buf_putc(b, ',');
  json_series(b, "\"rs_metric\":\"latency_p99\"", NULL, g->p99, 1);
  rs_buf_puts(b, "]}}\n");
}

static void gen_prom_text(rs_buf *b, const gen *g, int days) {
  for (int k = 0; k < days * POINTS; k++) {
    int i = k % POINTS;
    long long ms = (long long)(T0 + 60.0 * k) * 1000;
    rs_buf_puts(b, "# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).\n"
                   "# TYPE DCGM_FI_DEV_FB_USED gauge\n");
    for (int d = 0; d < 2; d++)
      rs_buf_printf(
          b, "DCGM_FI_DEV_FB_USED{gpu=\"%d\",UUID=\"GPU-%d\",modelName=\"A \\\"x\\\"\"} %d %lld\n",
          d, d, g->mem[d][i], ms);
    for (int d = 0; d < 2; d++)
      rs_buf_printf(b, "DCGM_FI_DEV_GPU_UTIL{gpu=\"%d\"} %d %lld\n", d, g->util[d][i], ms);
    rs_buf_printf(b, "up{job=\"x\",rs_metric=\"cpu_util\"} %d %lld\n", g->cpu[i], ms);
    rs_buf_printf(b, "rs{rs_metric=\"request_rate\"} %.17g %lld\n", g->rate[i], ms);
    rs_buf_printf(b, "rs{rs_metric=\"latency_p99\"} %.17g %lld\n", g->p99[i], ms);
  }
}

static void check_generated(const rs_buf *csv, const rs_buf *exp, rs_sample_format want, int days) {
  static rs_endpoint_stats a, b;
  rs_ingest_result res;
  rs_error err;
  assert_false(csv->failed || exp->failed);
  if (stats_of(&a, "gen", exp->data, exp->len, RS_FORMAT_AUTO, NULL, &res, &err) != RS_OK)
    fail_msg("%s:%zu:%zu: %s", err.path, err.line, err.col, err.msg);
  assert_int_equal(res.format, want);
  assert_int_equal(res.rows, 2 * POINTS * days);
  assert_int_equal(stats_of(&b, "gen.csv", csv->data, csv->len, RS_FORMAT_NATIVE, NULL, NULL, &err),
                   RS_OK);
  assert_same_stats(&a, &b);
  assert_int_equal(a.ndevices, 2);
  assert_int_equal(a.m[RS_METRIC_GPU_UTIL].count, 2 * POINTS * days);
}

static void test_generated_match_native(void **state) {
  static gen g;
  rs_buf csv, pj, pt;
  (void)state;
  generate(&g);
  rs_buf_init(&csv, 0);
  rs_buf_init(&pj, 0);
  rs_buf_init(&pt, 0);
  gen_csv(&csv, &g, 1);
  gen_prom_json(&pj, &g);
  gen_prom_text(&pt, &g, 1);
  check_generated(&csv, &pj, RS_FORMAT_PROM_JSON, 1);
  check_generated(&csv, &pt, RS_FORMAT_PROM_TEXT, 1);
  rs_buf_release(&csv);
  rs_buf_release(&pj);
  rs_buf_release(&pt);
}

/* Six days of scrapes (60,480 samples): more than the exposition reader
 * holds, so it hands rows on as it reads; the statistics are still those of
 * the native CSV of the same values. */
static void test_generated_text_streamed(void **state) {
  static gen g;
  rs_buf csv, pt;
  (void)state;
  generate(&g);
  rs_buf_init(&csv, 0);
  rs_buf_init(&pt, 0);
  gen_csv(&csv, &g, 6);
  gen_prom_text(&pt, &g, 6);
  check_generated(&csv, &pt, RS_FORMAT_PROM_TEXT, 6);
  rs_buf_release(&csv);
  rs_buf_release(&pt);
}

/* n scrapes of 8 GPUs' utilization, one a minute (n * 8 sample lines), with
 * timestamps when stamped. */
static void gen_util_scrapes(rs_buf *b, int n, bool stamped) {
  for (int k = 0; k < n; k++)
    for (int d = 0; d < 8; d++) {
      rs_buf_printf(b, "DCGM_FI_DEV_GPU_UTIL{gpu=\"%d\"} %d", d, (k + d) % 101);
      if (stamped)
        rs_buf_printf(b, " %lld", (long long)(T0 + 60.0 * k) * 1000);
      rs_buf_putc(b, '\n');
    }
}

/* The streamed reader's own limits: a counter first met after rows were
 * handed on is read (its rate from its second point), one older than rows
 * handed on is named where it is, and too many samples at one time too. */
static void test_text_stream_limits(void **state) {
  static rs_endpoint_stats a;
  rs_buf b;
  rs_error err;
  rs_ingest_result res;
  long long end = (long long)(T0 + 60.0 * 4000) * 1000;
  (void)state;
  rs_buf_init(&b, 0);
  gen_util_scrapes(&b, 4000, true); /* 32,000 samples: rows handed on */
  rs_buf_printf(&b, "vllm:prompt_tokens_total 10 %lld\n", end);
  rs_buf_printf(&b, "vllm:prompt_tokens_total 40 %lld\n", end + 60000);
  assert_false(b.failed);
  if (stats_of(&a, "t.prom", b.data, b.len, RS_FORMAT_AUTO, NULL, &res, &err) != RS_OK)
    fail_msg("%s:%zu:%zu: %s", err.path, err.line, err.col, err.msg);
  assert_int_equal(res.rows, 32001);
  assert_int_equal(a.m[RS_METRIC_PROMPT_TOKEN_RATE].count, 1);
  assert_true(a.m[RS_METRIC_PROMPT_TOKEN_RATE].max == 0.5); /* 30 tokens in 60 s */
  rs_buf_printf(&b, "vllm:prompt_tokens_total 50 %lld\n", (long long)T0 * 1000);
  assert_int_equal(stats_of(&a, "t.prom", b.data, b.len, RS_FORMAT_AUTO, NULL, NULL, &err),
                   RS_INVALID);
  assert_int_equal(err.line, 32003);
  assert_int_equal(err.col, 29); /* the timestamp */
  assert_non_null(strstr(err.msg, "after samples up to"));
  rs_buf_release(&b);
  rs_buf_init(&b, 0);
  gen_util_scrapes(&b, 40000, false); /* 320,000 samples of one instant */
  assert_false(b.failed);
  rs_ingest_options io = {.format = RS_FORMAT_PROM_TEXT, .instant_t = T0};
  rs_stats *st = NULL;
  rs_stats_options so = {.exact = false};
  assert_int_equal(rs_stats_new(&st, &so, &err), RS_OK);
  rs_stats_begin_file(st, "t.prom");
  rs_error_clear(&err);
  assert_int_equal(rs_ingest_memory("t.prom", b.data, b.len, &io, rs_stats_sink, st, NULL, &err),
                   RS_LIMIT);
  assert_int_equal(err.line, 262144); /* the sample that filled the reader */
  assert_non_null(strstr(err.msg, "more than 262144 samples at one time"));
  rs_stats_free(st);
  rs_buf_release(&b);
}

/* ---- errors: one positioned message each, no rows ---- */

typedef struct bad_case {
  const char *text;
  rs_sample_format format;
  rs_status status;
  size_t line, col;
  const char *msg; /* a part of the message */
} bad_case;

#define PJ(result)                                                                                 \
  "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":" result "}}"
#define FB(values)                                                                                 \
  "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_FB_USED\",\"gpu\":\"0\"},\"values\":" values "}"
#define CW(body) "{\"MetricDataResults\":[" body "]}"

static const bad_case bad_cases[] = {
    {"{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"parse error at char 3\"}",
     RS_FORMAT_AUTO, RS_INVALID, 1, 11, "the query failed: bad_data: parse error at char 3"},
    {"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}", RS_FORMAT_AUTO,
     RS_INVALID, 1, 42,
     "found resultType 'vector' (an instant query, /api/v1/query), expected 'matrix'"},
    {PJ("[]"), RS_FORMAT_AUTO, RS_INVALID, 1, 60, "no samples: the query returned no series"},
    {PJ("[" FB("[[1796047200,\"3012\"]") "]"), RS_FORMAT_PROM_JSON, RS_SYNTAX, 1, 0, "JSON"},
    {"{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"res", RS_FORMAT_AUTO, RS_SYNTAX,
     1, 0, "invalid JSON at"},
    {PJ("[" FB("[[1796047200,\"lots\"]]") "]"), RS_FORMAT_AUTO, RS_INVALID, 1, 0,
     "expected a number in series 'DCGM_FI_DEV_FB_USED', got 'lots'"},
    {PJ("[" FB("[[1796047200,\"-3\"]]") "]"), RS_FORMAT_AUTO, RS_INVALID, 1, 0, "a value >= 0"},
    {PJ("[" FB("[[1796047200,\"+Inf\"]]") "]"), RS_FORMAT_AUTO, RS_INVALID, 1, 0,
     "a finite number"},
    {PJ("[" FB("[[1796047200]]") "]"), RS_FORMAT_AUTO, RS_INVALID, 1, 0,
     "expected a point [unix_seconds, \"value\"]"},
    {PJ("[" FB("[[\"soon\",\"1\"]]") "]"), RS_FORMAT_AUTO, RS_INVALID, 1, 0,
     "expected a timestamp in unix seconds"},
    {PJ("[{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\",\"gpu\":\"64\"},\"values\":[]}]"),
     RS_FORMAT_AUTO, RS_INVALID, 1, 0, "expected a gpu label between 0 and 63, got '64'"},
    {PJ("[{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\"},\"values\":[[1,\"150\"]]}]"),
     RS_FORMAT_AUTO, RS_INVALID, 1, 0, "a percentage between 0 and 100"},
    {PJ("[{\"metric\":{\"__name__\":\"up\"},\"values\":[[1,\"1\"]]}]"), RS_FORMAT_AUTO, RS_INVALID,
     1, 1, "no series maps to a rightsize metric (first was 'up')"},
    {PJ("[{\"metric\":{\"__name__\":\"up\"}}]"), RS_FORMAT_AUTO, RS_INVALID, 1, 0,
     "missing key 'values'"},
    {PJ("[" FB("[[1796047200,\"1\"]]") "," FB("[[1796047200,\"2\"]]") "]"), RS_FORMAT_AUTO,
     RS_INVALID, 1, 0, "as series 'DCGM_FI_DEV_FB_USED' at line 1 does"},
    {PJ("[" FB("[]") "]"), RS_FORMAT_AUTO, RS_INVALID, 1, 1, "the series hold no points"},
    {"DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 15 1000\nDCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 15\n",
     RS_FORMAT_AUTO, RS_INVALID, 2, 33, "expected a timestamp in milliseconds after the value"},
    /* Text in memory has no modification time: a scrape without timestamps
     * is refused at its first sample (a file's mixing is a CLI case). */
    {"DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 15\nDCGM_FI_DEV_GPU_UTIL{gpu=\"1\"} 15 1000\n",
     RS_FORMAT_AUTO, RS_INVALID, 1, 33, "has no time of its own"},
    {"DCGM_FI_DEV_GPU_UTIL{gpu=\"0} 15 1000\n", RS_FORMAT_AUTO, RS_INVALID, 1, 26,
     "unterminated label value"},
    {"DCGM_FI_DEV_GPU_UTIL{gpu=0} 15 1000\n", RS_FORMAT_AUTO, RS_INVALID, 1, 26,
     "expected a quoted label value"},
    {"DCGM_FI_DEV_GPU_UTIL{gpu=\"0\" 15 1000\n", RS_FORMAT_AUTO, RS_INVALID, 1, 30,
     "expected ',' or '}' after a label"},
    {"# TYPE x gauge\nDCGM_FI_DEV_GPU_UTIL 15 1000 9\n", RS_FORMAT_AUTO, RS_INVALID, 2, 30,
     "expected the end of the line"},
    {"DCGM_FI_DEV_GPU_UTIL 15 1.5e3\n", RS_FORMAT_AUTO, RS_INVALID, 1, 25,
     "expected a timestamp in milliseconds since the epoch"},
    {"DCGM_FI_DEV_GPU_UTIL 15 1000\n{bad} 1 1\n", RS_FORMAT_PROM_TEXT, RS_INVALID, 2, 1,
     "expected a metric name"},
    {"# HELP only comments\n", RS_FORMAT_AUTO, RS_INVALID, 1, 1, "the file holds no series"},
    {CW("{\"Label\":\"GPUUtilization\",\"Timestamps\":[\"2026-11-30T14:01:00Z\"],\"Values\":[]}"),
     RS_FORMAT_AUTO, RS_INVALID, 1, 0, "has 0 values for 1 timestamps"},
    {CW("{\"Label\":\"GPUMemoryUtilization\",\"Timestamps\":[],\"Values\":[]}"), RS_FORMAT_AUTO,
     RS_INVALID, 1, 0, "set gpu_mem_total in a mapping file"},
    {CW("{\"Label\":\"CPUUtilization\",\"Timestamps\":[\"yesterday\"],\"Values\":[1]}"),
     RS_FORMAT_AUTO, RS_INVALID, 1, 0,
     "expected an RFC 3339 timestamp from 1970-01-01 to 9999-12-31 UTC in 'CPUUtilization'"},
    {CW("{\"Label\":\"CPUUtilization\",\"Timestamps\":[\"2026-11-30T14:01:00Z\"],\"Values\":[\"1\"]"
        "}"),
     RS_FORMAT_AUTO, RS_INVALID, 1, 0, "expected a number in the values of 'CPUUtilization'"},
    {CW("{\"Timestamps\":[],\"Values\":[]}"), RS_FORMAT_AUTO, RS_INVALID, 1, 0,
     "missing key 'Label'"},
    {"{\"MetricDataResults\":[]}", RS_FORMAT_AUTO, RS_INVALID, 1, 0,
     "no samples: MetricDataResults is empty"},
    {"[1,2]", RS_FORMAT_CLOUDWATCH, RS_INVALID, 1, 1, "expected a mapping"},
};

static void test_bad_inputs(void **state) {
  static rs_endpoint_stats out;
  (void)state;
  for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
    const bad_case *c = &bad_cases[i];
    rs_error err;
    rs_ingest_result res;
    rs_status st = stats_of(&out, "bad", c->text, strlen(c->text), c->format, NULL, &res, &err);
    if (st != c->status || strstr(err.msg, c->msg) == NULL || err.line != c->line ||
        (c->col != 0 && err.col != c->col))
      fail_msg("case %zu: got %s %zu:%zu '%s'", i, rs_status_name(st), err.line, err.col, err.msg);
    assert_string_equal(err.path, "bad");
    assert_null(strchr(err.msg, '\n'));
    assert_int_equal(res.rows, 0);
  }
}

static void test_mapping_file(void **state) {
  static rs_endpoint_stats out;
  rs_arena *arena = *state;
  rs_series_map map;
  rs_error err;
  const char *text =
      PJ("[{\"metric\":{\"__name__\":\"my_latency_seconds\"},\"values\":[[1,\"0.25\"]]},"
         "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\"},\"values\":[[1,\"5\"]]}]");
  const char *path = "/tmp/rs_test_mapping.yaml";
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("series:\n  my_latency_seconds: {metric: latency_p99, scale: 1000}\n"
        "  DCGM_FI_DEV_GPU_UTIL: ignore\n",
        f);
  fclose(f);
  rs_error_clear(&err);
  assert_int_equal(rs_series_map_load(&map, arena, path, &err), RS_OK);
  assert_int_equal(map.nrules, 2);
  assert_int_equal(stats_of(&out, "m", text, strlen(text), RS_FORMAT_AUTO, &map, NULL, &err),
                   RS_OK);
  assert_int_equal(out.m[RS_METRIC_LATENCY_P99].count, 1);
  assert_close(out.m[RS_METRIC_LATENCY_P99].max, 250.0, "p99");
  assert_int_equal(out.m[RS_METRIC_GPU_UTIL].count, 0);

  f = fopen(path, "w");
  fputs("series:\n  x: {metric: latency_p98}\n", f);
  fclose(f);
  assert_int_equal(rs_series_map_load(&map, arena, path, &err), RS_INVALID);
  assert_int_equal(err.line, 2);
  assert_non_null(strstr(err.msg, "unknown metric 'latency_p98'"));
  f = fopen(path, "w");
  fputs("gpus: 0\n", f);
  fclose(f);
  rs_error_clear(&err);
  assert_int_equal(rs_series_map_load(&map, arena, path, &err), RS_INVALID);
  assert_non_null(strstr(err.msg, "gpus: expected an integer >= 1"));
  f = fopen(path, "w");
  fputs("gpu_memory: 16GiB\n", f);
  fclose(f);
  rs_error_clear(&err);
  assert_int_equal(rs_series_map_load(&map, arena, path, &err), RS_INVALID);
  assert_int_equal(err.line, 1);
  f = fopen(path, "w");
  fputs("series:\n  x: {scale: 2}\n", f);
  fclose(f);
  rs_error_clear(&err);
  assert_int_equal(rs_series_map_load(&map, arena, path, &err), RS_INVALID);
  assert_non_null(strstr(err.msg, "missing key 'metric'"));
  remove(path);
}

/* An exported file read from a path: empty, missing; standard input is read
 * like a file (the test runs with it empty or at /dev/null). */
static void test_files(void **state) {
  static rs_endpoint_stats out;
  rs_error err;
  (void)state;
  const char *path = "/tmp/rs_test_empty.json";
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fclose(f);
  assert_int_equal(stats_of(&out, path, NULL, 0, RS_FORMAT_PROM_JSON, NULL, NULL, &err),
                   RS_INVALID);
  assert_non_null(strstr(err.msg, "empty file"));
  remove(path);
  assert_int_equal(stats_of(&out, "-", NULL, 0, RS_FORMAT_PROM_TEXT, NULL, NULL, &err), RS_INVALID);
  assert_non_null(strstr(err.msg, "empty file, expected prometheus-text data"));
  assert_int_equal(
      stats_of(&out, "/nonexistent/x.json", NULL, 0, RS_FORMAT_PROM_JSON, NULL, NULL, &err), RS_IO);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_format_names),
      cmocka_unit_test_setup_teardown(test_examples_match_native, setup_arena, teardown_arena),
      cmocka_unit_test(test_generated_match_native),
      cmocka_unit_test(test_generated_text_streamed),
      cmocka_unit_test(test_text_stream_limits),
      cmocka_unit_test(test_bad_inputs),
      cmocka_unit_test_setup_teardown(test_mapping_file, setup_arena, teardown_arena),
      cmocka_unit_test(test_files),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
