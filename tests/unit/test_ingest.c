#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rightsize/ingest.h"

#define DATA RS_TEST_DATA "/samples/"
#define MAX_KEEP 16
#define MIB 1048576.0
#define GIB 1073741824.0

/* A sink that counts rows, keeps the first few, and can fail on request. */
typedef struct counting_sink {
  size_t rows;
  rs_sample kept[MAX_KEEP];
  size_t fail_at; /* 1-based row to fail on, 0: never */
} counting_sink;

static rs_status count_rows(void *ctx, const rs_sample *s, rs_error *err) {
  counting_sink *cs = ctx;
  cs->rows++;
  if (cs->rows <= MAX_KEEP)
    cs->kept[cs->rows - 1] = *s;
  if (cs->fail_at == cs->rows)
    return rs_error_set(err, RS_POLICY, "sink", 42, 7, "sink says stop");
  return RS_OK;
}

static bool has(const rs_sample *s, rs_metric m) { return (s->present & (1u << m)) != 0; }

static void assert_near(double got, double want) {
  if (fabs(got - want) > 1e-12 * (fabs(want) + 1.0))
    fail_msg("got %.17g, want %.17g", got, want);
}

static rs_status ingest(const char *path, rs_sample_format format, counting_sink *cs,
                        rs_ingest_result *res, rs_error *err) {
  rs_ingest_options opts = {.format = format};
  memset(cs, 0, sizeof(*cs));
  rs_error_clear(err);
  return rs_ingest_file(path, &opts, count_rows, cs, res, err);
}

static rs_status ingest_text(const char *text, rs_sample_format format, counting_sink *cs,
                             rs_error *err) {
  rs_ingest_options opts = {.format = format};
  memset(cs, 0, sizeof(*cs));
  rs_error_clear(err);
  return rs_ingest_memory("mem.csv", text, strlen(text), &opts, count_rows, cs, NULL, err);
}

/* Asserts the error's status, position and a message substring. */
static void assert_error(const rs_error *err, rs_status st, const char *path, size_t line,
                         size_t col, const char *needle) {
  assert_int_equal(err->status, st);
  assert_string_equal(err->path, path);
  assert_int_equal(err->line, line);
  assert_int_equal(err->col, col);
  if (strstr(err->msg, needle) == NULL)
    fail_msg("message '%s' lacks '%s'", err->msg, needle);
}

static void expect_file_error(const char *name, size_t line, size_t col, const char *needle) {
  counting_sink cs;
  rs_error err;
  char path[512];
  snprintf(path, sizeof(path), DATA "%s", name);
  assert_int_equal(ingest(path, RS_FORMAT_AUTO, &cs, NULL, &err), RS_INVALID);
  assert_error(&err, RS_INVALID, path, line, col, needle);
}

static void expect_text_error(const char *text, rs_sample_format format, size_t line, size_t col,
                              const char *needle) {
  counting_sink cs;
  rs_error err;
  assert_int_equal(ingest_text(text, format, &cs, &err), RS_INVALID);
  assert_error(&err, RS_INVALID, "mem.csv", line, col, needle);
}

/* ---- names and columns ---- */

static void test_format_names(void **state) {
  rs_sample_format f = RS_FORMAT_NATIVE;
  (void)state;
  assert_int_equal(rs_format_from_name(&f, "nvidia-smi"), RS_OK);
  assert_int_equal(f, RS_FORMAT_NVSMI);
  assert_int_equal(rs_format_from_name(&f, "auto"), RS_OK);
  assert_int_equal(f, RS_FORMAT_AUTO);
  assert_int_equal(rs_format_from_name(&f, "native"), RS_OK);
  assert_int_equal(f, RS_FORMAT_NATIVE);
  assert_int_equal(rs_format_from_name(&f, "tsv"), RS_USAGE);
  assert_int_equal(f, RS_FORMAT_NATIVE);
  assert_int_equal(rs_format_from_name(&f, "csv"), RS_OK); /* any CSV, through a mapping */
  assert_int_equal(f, RS_FORMAT_CSV);
  assert_string_equal(rs_format_name(RS_FORMAT_NVSMI), "nvidia-smi");
  assert_string_equal(rs_format_name(RS_FORMAT_AUTO), "auto");
  assert_string_equal(rs_format_name((rs_sample_format)99), "unknown");
}

static void test_column_from_name(void **state) {
  rs_column c;
  (void)state;
  assert_int_equal(rs_column_from_name(&c, "gpu_mem_used_mib", 16), RS_OK);
  assert_int_equal(c.kind, RS_COL_METRIC);
  assert_int_equal(c.metric, RS_METRIC_GPU_MEM_USED);
  assert_near(c.scale, MIB);
  assert_null(c.unit);
  assert_int_equal(rs_column_from_name(&c, "net_tx_gbit_per_s", 17), RS_OK);
  assert_int_equal(c.metric, RS_METRIC_NET_TX);
  assert_near(c.scale, 1.25e8);
  assert_int_equal(rs_column_from_name(&c, "latency_p95_us", 14), RS_OK);
  assert_near(c.scale, 1e-3);
  assert_int_equal(rs_column_from_name(&c, "timestamp", 9), RS_OK);
  assert_int_equal(c.kind, RS_COL_TIMESTAMP);
  assert_int_equal(rs_column_from_name(&c, "gpu_index", 9), RS_OK);
  assert_int_equal(c.kind, RS_COL_GPU_INDEX);
  assert_int_equal(rs_column_from_name(&c, "x_anything", 10), RS_OK);
  assert_int_equal(c.kind, RS_COL_IGNORED);
  /* the length counts, not the NUL */
  assert_int_equal(rs_column_from_name(&c, "batch_sizeXX", 10), RS_OK);
  assert_int_equal(c.metric, RS_METRIC_BATCH_SIZE);
  assert_int_equal(rs_column_from_name(&c, "gpu_mem_used_tib", 16), RS_INVALID);
  assert_int_equal(rs_column_from_name(&c, "Timestamp", 9), RS_INVALID);
  assert_int_equal(rs_column_from_name(&c, "gpu_mem_used_", 13), RS_INVALID);
}

static void test_sample_set_cell(void **state) {
  rs_sample s;
  rs_column c;
  rs_error err;
  (void)state;
  memset(&s, 0, sizeof(s));
  rs_error_clear(&err);
  assert_int_equal(rs_column_from_name(&c, "latency_p99_s", 13), RS_OK);
  assert_int_equal(rs_sample_set_cell(&s, &c, " 0.5\t", 5, "f.csv", 3, 9, &err), RS_OK);
  assert_true(has(&s, RS_METRIC_LATENCY_P99));
  assert_near(s.v[RS_METRIC_LATENCY_P99], 500.0);
  assert_int_equal(rs_sample_set_cell(&s, &c, "  ", 2, "f.csv", 3, 9, &err), RS_OK);
  assert_int_equal(rs_sample_set_cell(&s, &c, "fast", 4, "f.csv", 3, 9, &err), RS_INVALID);
  assert_error(&err, RS_INVALID, "f.csv", 3, 9,
               "expected a number in column 'latency_p99_s', got 'fast'");
  rs_error_clear(&err);
  assert_int_equal(rs_column_from_name(&c, "timestamp", 9), RS_OK);
  assert_int_equal(rs_sample_set_cell(&s, &c, "2026-11-30T14:05:01Z", 20, "f", 1, 1, &err), RS_OK);
  assert_near(s.t, 1796047501.0);
  assert_int_equal(rs_sample_set_cell(&s, &c, "", 0, "f.csv", 4, 1, &err), RS_INVALID);
  assert_error(&err, RS_INVALID, "f.csv", 4, 1,
               "expected a timestamp in column 'timestamp', got an empty cell");
  rs_error_clear(&err);
  assert_int_equal(rs_sample_set_cell(&s, &c, "yesterday", 9, "f.csv", 5, 1, &err), RS_INVALID);
  assert_error(&err, RS_INVALID, "f.csv", 5, 1, "expected a timestamp");
  rs_error_clear(&err);
  assert_int_equal(rs_column_from_name(&c, "gpu_index", 9), RS_OK);
  assert_int_equal(rs_sample_set_cell(&s, &c, "63", 2, "f.csv", 1, 1, &err), RS_OK);
  assert_int_equal(s.gpu, 63);
  assert_int_equal(rs_sample_set_cell(&s, &c, "64", 2, "f.csv", 6, 12, &err), RS_INVALID);
  assert_error(&err, RS_INVALID, "f.csv", 6, 12,
               "expected a gpu index between 0 and 63 in column 'gpu_index', got '64'");
  rs_error_clear(&err);
  assert_int_equal(rs_sample_set_cell(&s, &c, "1.5", 3, "f.csv", 7, 12, &err), RS_INVALID);
  assert_error(&err, RS_INVALID, "f.csv", 7, 12, "expected an integer gpu index");
}

static void test_cell_units_and_limits(void **state) {
  rs_sample s;
  rs_error err;
  rs_column mib = {RS_COL_METRIC, RS_METRIC_GPU_MEM_USED, MIB, "MiB"};
  rs_column pct = {RS_COL_METRIC, RS_METRIC_GPU_UTIL, 1.0, "%"};
  rs_column raw;
  (void)state;
  memset(&s, 0, sizeof(s));
  rs_error_clear(&err);
  assert_int_equal(rs_sample_set_cell(&s, &mib, "3012 MiB", 8, "f", 1, 1, &err), RS_OK);
  assert_near(s.v[RS_METRIC_GPU_MEM_USED], 3012.0 * MIB);
  assert_int_equal(rs_sample_set_cell(&s, &mib, "7", 1, "f", 1, 1, &err), RS_OK);
  assert_near(s.v[RS_METRIC_GPU_MEM_USED], 7.0 * MIB);
  assert_int_equal(rs_sample_set_cell(&s, &pct, "15 %", 4, "f", 1, 1, &err), RS_OK);
  assert_near(s.v[RS_METRIC_GPU_UTIL], 15.0);
  s.present = 0;
  assert_int_equal(rs_sample_set_cell(&s, &pct, "[N/A]", 5, "f", 1, 1, &err), RS_OK);
  assert_int_equal(rs_sample_set_cell(&s, &pct, "N/A", 3, "f", 1, 1, &err), RS_OK);
  assert_int_equal(s.present, 0);
  assert_int_equal(rs_sample_set_cell(&s, &mib, "3 GiB", 5, "g", 2, 3, &err), RS_INVALID);
  assert_error(&err, RS_INVALID, "g", 2, 3, "expected a value in MiB in column");
  assert_non_null(strstr(err.msg, "got '3 GiB'"));
  rs_error_clear(&err);
  assert_int_equal(rs_sample_set_cell(&s, &pct, "-inf", 4, "g", 2, 3, &err), RS_INVALID);
  assert_error(&err, RS_INVALID, "g", 2, 3, "expected a finite number");
  rs_error_clear(&err);
  assert_int_equal(rs_sample_set_cell(&s, &pct, "1e999", 5, "g", 2, 3, &err), RS_INVALID);
  assert_error(&err, RS_INVALID, "g", 2, 3, "expected a finite number");
  rs_error_clear(&err);
  assert_int_equal(rs_sample_set_cell(&s, &pct, "1,5", 3, "g", 2, 3, &err), RS_INVALID);
  assert_error(&err, RS_INVALID, "g", 2, 3, "expected a number");
  rs_error_clear(&err);
  /* native columns carry the unit in the name, so cells are bare numbers */
  assert_int_equal(rs_column_from_name(&raw, "cpu_util_pct", 12), RS_OK);
  assert_int_equal(rs_sample_set_cell(&s, &raw, "15%", 3, "g", 2, 3, &err), RS_INVALID);
  assert_error(&err, RS_INVALID, "g", 2, 3,
               "expected a number in column 'cpu_util_pct', got '15%'");
  rs_error_clear(&err);
  assert_int_equal(rs_sample_set_cell(&s, &raw, "100.5", 5, "g", 2, 3, &err), RS_INVALID);
  assert_error(&err, RS_INVALID, "g", 2, 3,
               "expected a percentage between 0 and 100 in column 'cpu_util_pct'");
}

/* ---- good files ---- */

static void test_native_full(void **state) {
  counting_sink cs;
  rs_ingest_result res;
  rs_error err;
  (void)state;
  assert_int_equal(ingest(DATA "native_full.csv", RS_FORMAT_AUTO, &cs, &res, &err), RS_OK);
  assert_int_equal(res.format, RS_FORMAT_NATIVE);
  assert_int_equal(res.rows, 3);
  assert_int_equal(res.columns, 15);
  assert_int_equal(cs.rows, 3);
  const rs_sample *s = &cs.kept[0];
  assert_near(s->t, 1796047501.0);
  assert_int_equal(s->gpu, 0);
  assert_string_equal(s->path, DATA "native_full.csv");
  assert_int_equal(s->line, 2);
  assert_int_equal(s->t_col, 1);
  /* every metric up to batch_size: the file predates the LLM metrics */
  assert_int_equal(s->present, (1u << (RS_METRIC_BATCH_SIZE + 1)) - 1);
  assert_near(s->v[RS_METRIC_GPU_MEM_USED], 3012.0 * MIB);
  assert_near(s->v[RS_METRIC_GPU_MEM_TOTAL], 16.0 * GIB);
  assert_near(s->v[RS_METRIC_GPU_UTIL], 15.0);
  assert_near(s->v[RS_METRIC_CPU_UTIL], 40.5);
  assert_near(s->v[RS_METRIC_HOST_MEM_USED], 12e9);
  assert_near(s->v[RS_METRIC_NET_RX], 800.0 * 125000.0);
  assert_near(s->v[RS_METRIC_NET_TX], 1024.0 * 1024.0);
  assert_near(s->v[RS_METRIC_REQUEST_RATE], 120.0);
  assert_near(s->v[RS_METRIC_LATENCY_P50], 12.5);
  assert_near(s->v[RS_METRIC_LATENCY_P95], 45.0);
  assert_near(s->v[RS_METRIC_LATENCY_P99], 500.0);
  assert_near(s->v[RS_METRIC_BATCH_SIZE], 8.0);
  s = &cs.kept[1];
  assert_int_equal(s->gpu, 1);
  assert_int_equal(s->present, (1u << RS_METRIC_GPU_MEM_USED) | (1u << RS_METRIC_GPU_MEM_TOTAL) |
                                   (1u << RS_METRIC_GPU_UTIL));
  assert_near(s->v[RS_METRIC_GPU_UTIL], 0.0);
  s = &cs.kept[2];
  assert_near(s->t, 1796047502.0);
  assert_int_equal(s->line, 4);
  assert_int_equal(s->gpu, 0);
  assert_near(s->v[RS_METRIC_GPU_MEM_USED], 3100.0 * MIB);
  assert_near(s->v[RS_METRIC_LATENCY_P99], 250.0);
}

/* The row loop reuses one sample: a value of one row never shows in the
 * next, empty cells set nothing, and cells off the fast path (spaces, a
 * value with its unit) read as before. */
static void test_rows_do_not_leak(void **state) {
  counting_sink cs;
  rs_error err;
  (void)state;
  assert_int_equal(ingest_text("timestamp,gpu_index,gpu_util_pct,cpu_util_pct,gpu_mem_used_mib\n"
                               "1,0,50,20.5,3000\n"
                               "2,1,,,\n"
                               "3,, 7 ,,1e3\n"
                               "1700000000.25,2,0.0,100,0\n"
                               "5,63,,,\n"
                               "6,07,,,\n",
                               RS_FORMAT_NATIVE, &cs, &err),
                   RS_OK);
  assert_int_equal(cs.rows, 6);
  assert_int_equal(cs.kept[4].gpu, 63);
  assert_int_equal(cs.kept[5].gpu, 7);
  const rs_sample *s = &cs.kept[0];
  assert_near(s->t, 1.0);
  assert_int_equal(s->gpu, 0);
  assert_near(s->v[RS_METRIC_CPU_UTIL], 20.5);
  assert_near(s->v[RS_METRIC_GPU_MEM_USED], 3000.0 * MIB);
  s = &cs.kept[1];
  assert_int_equal(s->gpu, 1);
  assert_int_equal(s->present, 0);
  for (int m = 0; m < RS_METRIC_COUNT; m++)
    assert_true(s->v[m] == 0.0);
  s = &cs.kept[2];
  assert_int_equal(s->gpu, -1);
  assert_int_equal(s->line, 4);
  assert_int_equal(s->present, (1u << RS_METRIC_GPU_UTIL) | (1u << RS_METRIC_GPU_MEM_USED));
  assert_near(s->v[RS_METRIC_GPU_UTIL], 7.0);
  assert_near(s->v[RS_METRIC_GPU_MEM_USED], 1000.0 * MIB);
  assert_true(s->v[RS_METRIC_CPU_UTIL] == 0.0);
  s = &cs.kept[3];
  assert_true(s->t == 1700000000.25);
  assert_int_equal(s->t_col, 1);
  assert_near(s->v[RS_METRIC_CPU_UTIL], 100.0);
  assert_true(s->v[RS_METRIC_GPU_UTIL] == 0.0 && has(s, RS_METRIC_GPU_UTIL));
  /* out of range on the fast path's side: the same message as ever */
  assert_int_equal(ingest_text("timestamp,gpu_index\n1,0\n2,64\n", RS_FORMAT_NATIVE, &cs, &err),
                   RS_INVALID);
  assert_error(&err, RS_INVALID, "mem.csv", 3, 3, "a gpu index between 0 and 63");
  assert_int_equal(
      ingest_text("timestamp,gpu_util_pct\n1,50\n2,100.5\n", RS_FORMAT_NATIVE, &cs, &err),
      RS_INVALID);
  assert_error(&err, RS_INVALID, "mem.csv", 3, 3, "a percentage between 0 and 100");
  assert_int_equal(
      ingest_text("timestamp,gpu_util_pct\n1,50\n2,0.0000000001\n", RS_FORMAT_NATIVE, &cs, &err),
      RS_INVALID);
  assert_error(&err, RS_INVALID, "mem.csv", 3, 3, "0 or a value from");
}

static void test_native_subset(void **state) {
  counting_sink cs;
  rs_ingest_result res;
  rs_error err;
  (void)state;
  assert_int_equal(ingest(DATA "native_subset.csv", RS_FORMAT_NATIVE, &cs, &res, &err), RS_OK);
  assert_int_equal(res.rows, 3);
  assert_int_equal(res.columns, 2);
  assert_int_equal(cs.kept[0].gpu, -1);
  assert_near(cs.kept[0].v[RS_METRIC_GPU_UTIL], 10.0);
  assert_int_equal(cs.kept[1].present, 0); /* an empty cell: absent, still a row */
  assert_near(cs.kept[1].t, 1764511502.0);
  assert_near(cs.kept[2].v[RS_METRIC_GPU_UTIL], 99.5);
}

/* The four nvidia-smi spellings of the same 8 rows over 4 GPUs. */
static void check_nvsmi_rows(const counting_sink *cs) {
  static const int gpus[] = {0, 1, 2, 3, 0, 1, 2, 3};
  static const double used[] = {3012, 0, 512, 16000, 3100, 10, 520, 16001};
  static const double util[] = {15, 0, -1, 100, 20, 5, -1, 99};
  assert_int_equal(cs->rows, 8);
  for (size_t i = 0; i < 8; i++) {
    const rs_sample *s = &cs->kept[i];
    assert_int_equal(s->gpu, gpus[i]);
    assert_near(s->v[RS_METRIC_GPU_MEM_USED], used[i] * MIB);
    assert_near(s->v[RS_METRIC_GPU_MEM_TOTAL], 16384.0 * MIB);
    if (util[i] < 0)
      assert_false(has(s, RS_METRIC_GPU_UTIL));
    else
      assert_near(s->v[RS_METRIC_GPU_UTIL], util[i]);
  }
  assert_near(cs->kept[0].t, 1796047501.123);
  assert_near(cs->kept[7].t, 1796047502.129);
}

static void test_nvsmi_variants(void **state) {
  static const char *const files[] = {"nvsmi_units.csv", "nvsmi_nounits.csv", "nvsmi_noheader.csv",
                                      "nvsmi_noheader_nounits.csv"};
  counting_sink cs;
  rs_ingest_result res;
  rs_error err;
  char path[512];
  (void)state;
  for (size_t i = 0; i < 4; i++) {
    snprintf(path, sizeof(path), DATA "%s", files[i]);
    assert_int_equal(ingest(path, RS_FORMAT_AUTO, &cs, &res, &err), RS_OK);
    assert_int_equal(res.format, RS_FORMAT_NVSMI);
    assert_int_equal(res.columns, 5);
    check_nvsmi_rows(&cs);
    assert_int_equal(cs.kept[0].line, i < 2 ? 2 : 1);
    /* the explicit format reads the same */
    assert_int_equal(ingest(path, RS_FORMAT_NVSMI, &cs, &res, &err), RS_OK);
    check_nvsmi_rows(&cs);
  }
}

static void test_nvsmi_extra_fields(void **state) {
  counting_sink cs;
  rs_ingest_result res;
  rs_error err;
  (void)state;
  assert_int_equal(ingest(DATA "nvsmi_extra_fields.csv", RS_FORMAT_AUTO, &cs, &res, &err), RS_OK);
  assert_int_equal(res.format, RS_FORMAT_NVSMI);
  assert_int_equal(res.columns, 11);
  assert_int_equal(cs.rows, 2);
  assert_int_equal(cs.kept[0].gpu, 0);
  assert_int_equal(cs.kept[0].present, (1u << RS_METRIC_GPU_UTIL) | (1u << RS_METRIC_GPU_MEM_USED));
  assert_int_equal(cs.kept[1].gpu, 1);
  assert_int_equal(cs.kept[1].present, 1u << RS_METRIC_GPU_MEM_USED);
}

static void test_bom_crlf_and_no_final_newline(void **state) {
  counting_sink cs;
  rs_ingest_result res;
  rs_error err;
  (void)state;
  assert_int_equal(ingest(DATA "bom_crlf.csv", RS_FORMAT_AUTO, &cs, &res, &err), RS_OK);
  assert_int_equal(res.format, RS_FORMAT_NATIVE);
  assert_int_equal(cs.rows, 2);
  assert_near(cs.kept[0].v[RS_METRIC_LATENCY_P99], 500.0);
  assert_near(cs.kept[1].v[RS_METRIC_LATENCY_P99], 250.0);
  assert_int_equal(cs.kept[1].line, 3);
  assert_int_equal(ingest(DATA "no_final_newline.csv", RS_FORMAT_AUTO, &cs, &res, &err), RS_OK);
  assert_int_equal(cs.rows, 2);
  assert_near(cs.kept[1].v[RS_METRIC_CPU_UTIL], 20.0);
}

static void test_memory_and_null_options(void **state) {
  static const char text[] = "timestamp,x_host, batch_size \n1796047501,a,4\n\n1796047502,b,\n";
  counting_sink cs;
  rs_ingest_result res;
  rs_error err;
  (void)state;
  memset(&cs, 0, sizeof(cs));
  rs_error_clear(&err);
  assert_int_equal(
      rs_ingest_memory("mem.csv", text, strlen(text), NULL, count_rows, &cs, &res, &err), RS_OK);
  assert_int_equal(res.rows, 2);
  assert_int_equal(res.format, RS_FORMAT_NATIVE);
  assert_near(cs.kept[0].v[RS_METRIC_BATCH_SIZE], 4.0);
  assert_string_equal(cs.kept[0].path, "mem.csv");
  assert_int_equal(cs.kept[1].line, 4); /* the blank line is skipped, lines still count */
  assert_int_equal(cs.kept[1].present, 0);
  memset(&cs, 0, sizeof(cs));
  assert_int_equal(
      rs_ingest_memory("mem.csv", text, strlen(text), NULL, count_rows, &cs, NULL, NULL), RS_OK);
  assert_int_equal(cs.rows, 2);
}

static void test_sink_error_passes_up(void **state) {
  counting_sink cs;
  rs_ingest_options opts = {.format = RS_FORMAT_AUTO};
  rs_error err;
  (void)state;
  memset(&cs, 0, sizeof(cs));
  cs.fail_at = 2;
  rs_error_clear(&err);
  assert_int_equal(rs_ingest_file(DATA "nvsmi_units.csv", &opts, count_rows, &cs, NULL, &err),
                   RS_POLICY);
  assert_int_equal(cs.rows, 2);
  assert_error(&err, RS_POLICY, "sink", 42, 7, "sink says stop");
}

/* ---- bad files ---- */

static void test_missing_file_and_directory(void **state) {
  counting_sink cs;
  rs_error err;
  (void)state;
  assert_int_equal(ingest(DATA "does_not_exist.csv", RS_FORMAT_AUTO, &cs, NULL, &err), RS_IO);
  assert_int_equal(err.status, RS_IO);
  assert_string_equal(err.path, DATA "does_not_exist.csv");
  assert_int_equal(err.line, 0);
  assert_non_null(strstr(err.msg, "cannot open"));
  assert_int_equal(cs.rows, 0);
  assert_int_equal(ingest(RS_TEST_DATA "/samples", RS_FORMAT_AUTO, &cs, NULL, &err), RS_IO);
  assert_int_equal(err.status, RS_IO);
  assert_string_equal(err.path, RS_TEST_DATA "/samples");
  assert_int_equal(err.line, 0);
  assert_non_null(strstr(err.msg, "is a directory"));
}

static void test_empty_and_header_only(void **state) {
  (void)state;
  expect_file_error("empty.csv", 1, 1, "empty file, expected a CSV header");
  expect_file_error("header_only.csv", 2, 1, "no samples: the file has a header but no rows");
  expect_text_error("", RS_FORMAT_AUTO, 1, 1, "empty file, expected a CSV header");
  expect_text_error("\n\n", RS_FORMAT_NVSMI, 1, 1, "empty file, expected a CSV header");
  expect_text_error("timestamp", RS_FORMAT_AUTO, 2, 1, "no samples");
  expect_text_error("timestamp, index, memory.used [MiB]\n", RS_FORMAT_AUTO, 2, 1,
                    "no samples: the file has a header but no rows");
}

static void test_wrong_delimiter(void **state) {
  (void)state;
  expect_file_error("semicolon.csv", 1, 10,
                    "expected comma-separated values, found ';' (the file looks "
                    "semicolon-separated)");
  expect_text_error("timestamp\tgpu_util_pct\n1\t2\n", RS_FORMAT_AUTO, 1, 10,
                    "expected comma-separated values, found a tab (the file looks "
                    "tab-separated)");
}

static void test_ragged_rows(void **state) {
  (void)state;
  expect_file_error("ragged.csv", 3, 18, "row has 4 fields, expected 3 (as in the header)");
  expect_text_error("timestamp,gpu_util_pct,cpu_util_pct\n1,2,3\n1796047503,10\n", RS_FORMAT_AUTO,
                    3, 14, "row has 2 fields, expected 3 (as in the header)");
  expect_text_error("2026/11/30 14:05:01.123, 0, 15 %, 3012 MiB\n", RS_FORMAT_AUTO, 1, 43,
                    "row has 4 fields, expected 5 (headerless nvidia-smi logs must use "
                    "--query-gpu=timestamp,index,utilization.gpu,memory.used,memory.total)");
}

static void test_bad_values(void **state) {
  (void)state;
  expect_file_error("non_numeric.csv", 3, 12,
                    "expected a number in column 'gpu_util_pct', got 'n/a'");
  expect_file_error("nan.csv", 2, 12,
                    "expected a finite number in column 'gpu_util_pct', got 'NaN'");
  expect_file_error("negative_util.csv", 2, 14,
                    "expected a value >= 0 in column 'gpu_util_pct', got '-3'");
  expect_file_error("util_over_100.csv", 3, 12,
                    "expected a percentage between 0 and 100 in column 'gpu_util_pct', got '130'");
  expect_text_error("timestamp,gpu_util_pct\n,5\n", RS_FORMAT_AUTO, 2, 1,
                    "expected a timestamp in column 'timestamp', got an empty cell");
  expect_text_error("timestamp,gpu_index\n1796047501,64\n", RS_FORMAT_AUTO, 2, 12,
                    "expected a gpu index between 0 and 63 in column 'gpu_index', got '64'");
}

static void test_bad_headers(void **state) {
  (void)state;
  expect_file_error("duplicate_column.csv", 1, 37,
                    "duplicate column 'gpu_util_pct', first seen as column 2");
  expect_file_error("unknown_column.csv", 1, 11,
                    "unknown column 'gpu_utl_pct', expected one of the documented columns (see "
                    "docs/samples-format.md) or an x_ prefix for ignored columns; did you mean "
                    "'gpu_util_pct'?");
  expect_text_error("timestamp,gpu_mem_used_mib,gpu_mem_used_gib\n1,2,3\n", RS_FORMAT_AUTO, 1, 28,
                    "column 'gpu_mem_used_gib' repeats column 2 'gpu_mem_used_mib' (both hold "
                    "gpu_mem_used)");
  expect_text_error("gpu_util_pct\n5\n", RS_FORMAT_AUTO, 1, 1,
                    "missing required column 'timestamp'");
  expect_text_error("timestamp,frobnicate\n1,2\n", RS_FORMAT_AUTO, 1, 11, "ignored columns");
  counting_sink cs;
  rs_error err;
  assert_int_equal(ingest_text("timestamp,frobnicate\n1,2\n", RS_FORMAT_AUTO, &cs, &err),
                   RS_INVALID);
  assert_null(strstr(err.msg, "did you mean"));
  expect_text_error("1796047501,5\n", RS_FORMAT_NATIVE, 1, 1,
                    "expected a header naming the columns, got '1796047501'");
}

static void test_format_override(void **state) {
  (void)state;
  /* nvidia-smi output read as native fails on its header */
  expect_text_error("timestamp, index, utilization.gpu [%]\n2026/11/30 14:05:01, 0, 5 %\n",
                    RS_FORMAT_NATIVE, 1, 11, "unknown column 'index'");
  /* native read as nvidia-smi refuses native columns rather than dropping them */
  expect_text_error("timestamp,gpu_util_pct\n1,2\n", RS_FORMAT_NVSMI, 1, 11,
                    "native column 'gpu_util_pct' in an nvidia-smi log");
  expect_text_error("timestamp, utilization.gpu [W]\n1, 2\n", RS_FORMAT_AUTO, 1, 11,
                    "unexpected unit '[W]' for nvidia-smi field 'utilization.gpu', expected "
                    "'[%]'");
  expect_text_error("timestamp, memory.used [MiB]\n2026/11/30 14:05:01, 3 GiB\n", RS_FORMAT_AUTO, 2,
                    21, "expected a value in MiB in column 'memory.used [MiB]', got '3 GiB'");
  expect_text_error("timestamp, memory used\n1, 2\n", RS_FORMAT_NVSMI, 1, 11,
                    "unexpected nvidia-smi header field 'memory used'");
}

static void test_huge_line(void **state) {
  char path[] = "/tmp/rs_ingest_huge_XXXXXX";
  counting_sink cs;
  rs_error err;
  (void)state;
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  assert_non_null(f);
  fputs("timestamp,x_blob\n1796047501,", f);
  for (size_t i = 0; i < 10 * 1024; i++) {
    char chunk[1024];
    memset(chunk, 'a', sizeof(chunk));
    assert_int_equal(fwrite(chunk, 1, sizeof(chunk), f), sizeof(chunk));
  }
  fputs("\n", f);
  assert_int_equal(fclose(f), 0);
  rs_status st = ingest(path, RS_FORMAT_AUTO, &cs, NULL, &err);
  unlink(path);
  assert_int_equal(st, RS_LIMIT);
  assert_int_equal(err.status, RS_LIMIT);
  assert_string_equal(err.path, path);
  assert_int_equal(err.line, 2);
  assert_int_equal(err.col, 1);
  assert_non_null(strstr(err.msg, "longer than"));
  assert_int_equal(cs.rows, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_format_names),
      cmocka_unit_test(test_column_from_name),
      cmocka_unit_test(test_sample_set_cell),
      cmocka_unit_test(test_cell_units_and_limits),
      cmocka_unit_test(test_native_full),
      cmocka_unit_test(test_rows_do_not_leak),
      cmocka_unit_test(test_native_subset),
      cmocka_unit_test(test_nvsmi_variants),
      cmocka_unit_test(test_nvsmi_extra_fields),
      cmocka_unit_test(test_bom_crlf_and_no_final_newline),
      cmocka_unit_test(test_memory_and_null_options),
      cmocka_unit_test(test_sink_error_passes_up),
      cmocka_unit_test(test_missing_file_and_directory),
      cmocka_unit_test(test_empty_and_header_only),
      cmocka_unit_test(test_wrong_delimiter),
      cmocka_unit_test(test_ragged_rows),
      cmocka_unit_test(test_bad_values),
      cmocka_unit_test(test_bad_headers),
      cmocka_unit_test(test_format_override),
      cmocka_unit_test(test_huge_line),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
