/* The streaming JSON reader (ingest_json_stream.c), Prometheus query_range
 * and CloudWatch get-metric-data: the same rows
 * as the tree reader (rs_ingest_export_at), row for row, over documents that
 * cross its windows; its own positioned errors (what files over the tree
 * reader's cap get); the hand-over of unusual files to the tree reader; the
 * fast number paths. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "ingest_internal.h"
#include "rightsize/buf.h"
#include "rightsize/ingest.h"
#include "rightsize/num.h"
#include "test_support.h"

typedef struct rows {
  rs_sample *r;
  size_t n, cap;
} rows;

static rs_status collect(void *ctx, const rs_sample *s, rs_error *err) {
  rows *rs = ctx;
  (void)err;
  if (rs->n == rs->cap) {
    rs->cap = rs->cap ? rs->cap * 2 : 256;
    rs->r = realloc(rs->r, rs->cap * sizeof(*rs->r));
    assert_non_null(rs->r);
  }
  rs->r[rs->n++] = *s;
  return RS_OK;
}

/* The format the helpers below read: Prometheus JSON unless a test says. */
static rs_sample_format format = RS_FORMAT_PROM_JSON;

/* Rows through the streaming reader (rs_ingest_memory: the spooled path). */
static rs_status stream_rows(rows *out, const char *text, size_t len, const rs_selection *sel,
                             rs_error *err) {
  rs_ingest_options o = {.format = format, .select = sel};
  memset(out, 0, sizeof(*out));
  rs_error_clear(err);
  return rs_ingest_memory("m.json", text, len, &o, collect, out, NULL, err);
}

/* The same, with nothing handed over to the tree reader: the streaming
 * reader's own rows or error. */
static rs_status own_rows(rows *out, const char *text, const rs_selection *sel, rs_error *err) {
  size_t keep = rs_json_stream_tree_max;
  rs_json_stream_tree_max = 0;
  rs_status st = stream_rows(out, text, strlen(text), sel, err);
  rs_json_stream_tree_max = keep;
  return st;
}

/* Rows through the tree reader. */
static rs_status tree_rows(rows *out, const char *text, size_t len, const rs_selection *sel,
                           rs_error *err) {
  rs_ingest_options o = {.format = format, .select = sel};
  memset(out, 0, sizeof(*out));
  rs_error_clear(err);
  return rs_ingest_export_at("m.json", text, len, format, 0.0, &o, collect, out, NULL, err);
}

static void assert_same_rows(const rows *a, const rows *b) {
  assert_int_equal(a->n, b->n);
  for (size_t i = 0; i < a->n; i++) {
    const rs_sample *p = &a->r[i], *q = &b->r[i];
    assert_true(p->t == q->t);
    assert_int_equal(p->gpu, q->gpu);
    assert_int_equal(p->present, q->present);
    assert_int_equal(p->line, q->line);
    assert_int_equal(p->t_col, q->t_col);
    for (int m = 0; m < RS_METRIC_COUNT; m++)
      if (p->present & (1u << m))
        assert_true(p->v[m] == q->v[m]);
  }
}

/* Both readers on text; with tree_max 0 the streaming reader hands nothing
 * over, so what it gives is its own. */
static void same_both_ways(const char *text, const rs_selection *sel) {
  rows a, b;
  rs_error ea, eb;
  rs_status sa = own_rows(&a, text, sel, &ea);
  rs_status sb = tree_rows(&b, text, strlen(text), sel, &eb);
  if (sa != RS_OK || sb != RS_OK)
    fail_msg("stream %d '%s' at %zu:%zu, tree %d '%s'", sa, ea.msg, ea.line, ea.col, sb, eb.msg);
  assert_true(a.n > 0);
  assert_same_rows(&a, &b);
  free(a.r);
  free(b.r);
}

/* A query_range answer: series of names x GPUs, n points each, every
 * point on its own line when pretty (so positions move), NaN now and then. */
static char *answer(size_t n, bool pretty, bool bare, size_t nseries) {
  static const char *const names[] = {"DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_GPU_UTIL",
                                      "instance:node_cpu_utilisation:rate5m"};
  rs_buf b;
  rs_buf_init(&b, (size_t)1 << 30);
  if (!bare)
    assert_int_equal(rs_buf_puts(&b, "{\"status\" : \"success\", \"warnings\": [\"w\"],\n"
                                     "\"data\":{\"resultType\":\"matrix\",\"result\":"),
                     RS_OK);
  assert_int_equal(rs_buf_puts(&b, "[\n"), RS_OK);
  for (size_t k = 0; k < nseries; k++) {
    size_t name = k < 3 ? k : k % 2, gpu = k / 2; /* one cpu series, no clash */
    assert_int_equal(rs_buf_printf(&b,
                                   "%s {\"metric\":{\"__name__\":\"%s\",\"gpu\":\"%zu\","
                                   "\"Hostname\":\"node-a\"},\"extra\":[1,[true,null]],\n"
                                   "  \"values\":[",
                                   k ? "," : "", names[name], gpu),
                     RS_OK);
    bool first = true;
    for (size_t i = 0; i < n; i++) {
      /* series start at different times and some skip points, so times
       * interleave unevenly */
      double t = 1700000000.0 + 15.0 * (double)(i + k % 2 * 3) + (k == 5 ? 0.5 : 0.0);
      unsigned v = (unsigned)((i * 7919 + k * 31) % 97);
      if ((i + k) % 13 == 5)
        continue;
      assert_int_equal(rs_buf_printf(&b, "%s%s[%.1f, \"%s\"]", first ? "" : ",",
                                     pretty ? "\n   " : "", t,
                                     i % 41 == 3 ? "NaN"
                                     : name == 2 ? (v % 2 ? "0.25" : "1e-1")
                                                 : (v % 3 ? "42" : "12.75")),
                       RS_OK);
      first = false;
    }
    assert_int_equal(rs_buf_puts(&b, "]}\n"), RS_OK);
  }
  assert_int_equal(rs_buf_puts(&b, bare ? "]\n" : "]}}\n"), RS_OK);
  return b.data; /* the buffer's, now the caller's */
}

static void test_same_rows_as_tree(void **state) {
  (void)state;
  char *small = answer(20, false, false, 7), *pretty = answer(200, true, false, 7),
       *bare = answer(50, false, true, 7);
  char *big = answer(60000, true, false, 7);  /* several MB: many windows */
  char *many = answer(300, false, false, 70); /* more series than a scan merges: a heap */
  assert_true(strlen(big) > ((size_t)3 << 20));
  same_both_ways(small, NULL);
  same_both_ways(pretty, NULL);
  same_both_ways(bare, NULL);
  same_both_ways(big, NULL);
  same_both_ways(many, NULL);
  rs_selection sel = {.n = 0};
  assert_int_equal(rs_selection_add(&sel, "gpu=1"), RS_OK);
  same_both_ways(pretty, &sel);
  free(small);
  free(pretty);
  free(bare);
  free(big);
  free(many);
}

/* The streaming reader's own errors: the tree reader's message where the
 * check is the same one (points, clashes), a position everywhere. */
static void same_error(const char *text) {
  rows a, b;
  rs_error ea, eb;
  rs_status sa = own_rows(&a, text, NULL, &ea);
  rs_status sb = tree_rows(&b, text, strlen(text), NULL, &eb);
  assert_int_not_equal(sa, RS_OK);
  assert_int_equal(sa, sb);
  assert_string_equal(ea.msg, eb.msg);
  assert_int_equal(ea.line, eb.line);
  assert_int_equal(ea.col, eb.col);
  free(a.r);
  free(b.r);
}

static void own_error(const char *text, size_t line, size_t col, const char *part) {
  rows a;
  rs_error ea;
  rs_status sa = own_rows(&a, text, NULL, &ea);
  assert_int_not_equal(sa, RS_OK);
  if (strstr(ea.msg, part) == NULL || ea.line != line || ea.col != col)
    fail_msg("got %zu:%zu '%s', want %zu:%zu '%s'", ea.line, ea.col, ea.msg, line, col, part);
  assert_string_equal(ea.path, "m.json");
  free(a.r);
}

#define HEAD "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[\n"

static void test_errors(void **state) {
  (void)state;
  /* a value, a timestamp, a clash of two series: the same messages */
  same_error(HEAD "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\"},\n"
                  " \"values\":[[1700000000,\"50\"],\n  [1700000015,\"abc\"]]}]}}");
  same_error(HEAD "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\"},\n"
                  " \"values\":[[1700000000,\"50\"],[1e300,\"5\"]]}]}}");
  same_error(HEAD "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\"},\"values\":[[1700000000,"
                  "\"50\"]]},\n{\"metric\":{\"rs_metric\":\"gpu_util\"},\"values\":[[1700000000,"
                  "\"51\"]]}]}}");
  same_error(HEAD "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\",\"gpu\":\"99\"},\n"
                  " \"values\":[[1700000000,\"50\"]]}]}}");
  same_error(HEAD "{\"metric\":{\"__name__\":\"up\"},\"values\":[[1700000000,\"1\"]]}]}}");
  /* two bad values: the merge meets the second series' first (an earlier
   * time); the error is the first in the file, as the tree reader says */
  same_error(HEAD "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\",\"gpu\":\"0\"},\"values\":"
                  "[[1700000000,\"1\"],[1700000030,\"abc\"]]},\n{\"metric\":{\"__name__\":"
                  "\"DCGM_FI_DEV_GPU_UTIL\",\"gpu\":\"1\"},\"values\":[[1700000000,\"1\"],"
                  "[1700000015,\"-5\"]]}]}}");
  /* its own: syntax, order, unusual text, what follows the value */
  own_error(HEAD "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\"},\n"
                 " \"values\":[[1700000000,\"50\"] [1700000015,\"5\"]]}]}}",
            3, 30, "invalid JSON at '[1700000015,\"5\"]'");
  own_error(HEAD "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\"},\n"
                 " \"values\":[[1700000015,\"50\"],\n [1700000000,\"5\"]]}]}}",
            4, 14, "earlier than the one before it");
  own_error(HEAD "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\"},\n"
                 " \"values\":[[1700000000,\"50\"]]}]}} x",
            3, 35, "trailing characters after the JSON value");
  own_error(HEAD "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\"},\n"
                 " \"values\":[[1700000000,\"50\"]",
            3, 29, "unexpected end of the JSON text");
  own_error(HEAD "{\"metric\":{\"__name__\":\"a\\u00e9\"},\"values\":[]}]}}", 2, 25,
            "backslash escape");
  own_error(HEAD "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\"},\"values\":[[1700000000,\n"
                 "\"5\x01\"]]}]}}",
            3, 3, "invalid JSON");
  own_error("hello", 1, 1, "not JSON");
}

/* Unusual files up to the cap are the tree reader's to read: the same rows
 * or the same error, whatever the streaming reader would say. */
static void test_hand_over(void **state) {
  (void)state;
  static const char *const docs[] = {
      /* values before metric, a label with an escape, points out of order */
      HEAD "{\"values\":[[1700000015,\"5\"],[1700000000,\"6\"]],\n"
           "\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\",\"x\":\"a\\\"b\"}}]}}",
      /* status after data, tabs */
      "{\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":{\"__name__\":"
      "\"DCGM_FI_DEV_GPU_UTIL\"},\t\"values\":[[1700000000,\"5\"]]}]},\"status\":\"success\"}",
      /* an error the tree reader words its own way */
      "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"parse error\"}",
      HEAD "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\"},\"value\":[1700000000,\"5\"]}]}}",
      HEAD "]}}",
  };
  for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
    rows a, b;
    rs_error ea, eb;
    rs_status sa = stream_rows(&a, docs[i], strlen(docs[i]), NULL, &ea);
    rs_status sb = tree_rows(&b, docs[i], strlen(docs[i]), NULL, &eb);
    assert_int_equal(sa, sb);
    if (sa == RS_OK) {
      assert_same_rows(&a, &b);
    } else {
      assert_string_equal(ea.msg, eb.msg);
      assert_int_equal(ea.line, eb.line);
      assert_int_equal(ea.col, eb.col);
    }
    free(a.r);
    free(b.r);
  }
}

/* A whole file of the test data into memory. */
static char *load(const char *rel, size_t *len) {
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", RS_TEST_DATA, rel);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  assert_int_equal(fseek(f, 0, SEEK_END), 0);
  long n = ftell(f);
  assert_true(n >= 0);
  rewind(f);
  char *buf = malloc((size_t)n + 1);
  assert_non_null(buf);
  assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  buf[n] = '\0';
  *len = (size_t)n;
  return buf;
}

/* Rows of a file read by path (the file is read in place, with pread). */
static rs_status file_rows(rows *out, const char *path, rs_error *err) {
  rs_ingest_options o = {.format = RS_FORMAT_PROM_JSON};
  memset(out, 0, sizeof(*out));
  rs_error_clear(err);
  return rs_ingest_file(path, &o, collect, out, NULL, err);
}

/* text written to a temporary file: its path (static). */
static const char *temp_file(const char *text, size_t len) {
  static char path[64];
  snprintf(path, sizeof(path), "/tmp/rs_test_json_stream.%ld.json", (long)getpid());
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(text, 1, len, f), len);
  assert_int_equal(fclose(f), 0);
  return path;
}

/* The three sources of the streaming reader give the same rows: a plain
 * memory input (read in place), a compressed one (spooled to a temporary
 * file as pass 1 reads it) and a regular file (pread), for documents
 * smaller than one window (each window sized to the input) and larger. */
static void test_sources(void **state) {
  (void)state;
  size_t plen, zlen;
  char *plain = load("exports/dcgm_query_range.json", &plen),
       *packed = load("compressed/dcgm_query_range.json.zst", &zlen);
  char *big = answer(60000, true, false, 7), *many = answer(300, false, false, 70);
  rows a, b, c;
  rs_error ea, eb, ec;
  assert_int_equal(stream_rows(&a, plain, plen, NULL, &ea), RS_OK);
  assert_int_equal(stream_rows(&b, packed, zlen, NULL, &eb), RS_OK);
  assert_int_equal(file_rows(&c, RS_TEST_DATA "/exports/dcgm_query_range.json", &ec), RS_OK);
  assert_true(a.n > 0);
  assert_same_rows(&a, &b);
  assert_same_rows(&a, &c);
  free(a.r);
  free(b.r);
  free(c.r);
  const char *const docs[] = {big, many};
  for (size_t i = 0; i < 2; i++) {
    size_t len = strlen(docs[i]);
    const char *path = temp_file(docs[i], len);
    rs_status sa = stream_rows(&a, docs[i], len, NULL, &ea), sc = file_rows(&c, path, &ec);
    unlink(path);
    assert_int_equal(sa, RS_OK);
    assert_int_equal(sc, RS_OK);
    assert_true(a.n > 0);
    assert_same_rows(&a, &c);
    free(a.r);
    free(c.r);
  }
  free(plain);
  free(packed);
  free(big);
  free(many);
}

/* A memory input is read from memory even when its name is the path of a
 * regular file (the reader once reopened the name and read the file). */
static void test_memory_not_the_named_file(void **state) {
  (void)state;
  const char *doc = HEAD "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\"},\n"
                         " \"values\":[[1700000000,\"50\"],[1700000015,\"51\"]]}]}}";
  const char *path = RS_TEST_DATA "/exports/dcgm_query_range.json";
  rs_ingest_options o = {.format = RS_FORMAT_PROM_JSON};
  rows a = {0}, b = {0};
  rs_error ea, eb;
  rs_error_clear(&ea);
  assert_int_equal(rs_ingest_memory(path, doc, strlen(doc), &o, collect, &a, NULL, &ea), RS_OK);
  assert_int_equal(tree_rows(&b, doc, strlen(doc), NULL, &eb), RS_OK);
  assert_int_equal(a.n, 2);
  assert_same_rows(&a, &b);
  free(a.r);
  free(b.r);
  /* and an error in it is positioned in the memory text, not the file */
  const char *bad = HEAD "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\"},\n"
                         " \"values\":[[1700000000,\"abc\"]]}]}}";
  memset(&a, 0, sizeof(a));
  rs_error_clear(&ea);
  assert_int_not_equal(rs_ingest_memory(path, bad, strlen(bad), &o, collect, &a, NULL, &ea), RS_OK);
  assert_int_equal(ea.line, 3);
  assert_non_null(strstr(ea.msg, "abc"));
  free(a.r);
}

/* The fast path of short decimals gives rs_num_parse_double's value. */
static void test_fast_numbers(void **state) {
  (void)state;
  rng r = {5};
  char text[40];
  static const char *const odd[] = {"0",
                                    "-0",
                                    "1.",
                                    ".5",
                                    "-.5",
                                    "007",
                                    "123456789012345",
                                    "1234567890123456",
                                    "0.000000000000001",
                                    "1e3",
                                    "+1",
                                    "-",
                                    ".",
                                    "1..2",
                                    "9007199254740993"};
  for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
    double a = -1, b = -1;
    rs_status sa = rs_export_number(odd[i], strlen(odd[i]), &a);
    rs_status sb = rs_num_parse_double(odd[i], strlen(odd[i]), &b);
    assert_int_equal(sa, sb);
    assert_memory_equal(&a, &b, sizeof(a));
  }
  for (int i = 0; i < 200000; i++) {
    uint64_t m = rng_next(&r) % 1000000000000000ull >> (rng_next(&r) % 50);
    int frac = (int)(rng_next(&r) % 16);
    int n = snprintf(text, sizeof(text), "%llu", (unsigned long long)m);
    if (frac > 0 && frac < n) { /* a point frac digits from the end */
      memmove(text + n - frac + 1, text + n - frac, (size_t)frac + 1);
      text[n - frac] = '.';
      n++;
    }
    double a, b;
    assert_int_equal(rs_export_number(text, (size_t)n, &a), RS_OK);
    assert_int_equal(rs_num_parse_double(text, (size_t)n, &b), RS_OK);
    if (memcmp(&a, &b, sizeof(a)) != 0)
      fail_msg("'%s': %.17g, want %.17g", text, a, b);
  }
}

/* Short decimals of every length, as the quick point reads them (times
 * and values, with and without a fraction): the tree reader's values. */
static void test_quick_points(void **state) {
  (void)state;
  rng r = {11};
  rs_buf b;
  rs_buf_init(&b, (size_t)1 << 26);
  assert_int_equal(rs_buf_puts(&b, HEAD "{\"metric\":{\"rs_metric\":\"gpu_mem_used\"},"
                                        "\"values\":["),
                   RS_OK);
  for (int i = 0; i < 20000; i++) {
    uint64_t m = 1 + (rng_next(&r) % 999999999999999ull >> (rng_next(&r) % 50));
    int frac = (int)(rng_next(&r) % 10), n;
    char text[40];
    n = snprintf(text, sizeof(text), "%llu", (unsigned long long)m);
    if (frac > 0 && frac < n) {
      memmove(text + n - frac + 1, text + n - frac, (size_t)frac + 1);
      text[n - frac] = '.';
    }
    /* times 1e9.. with 0 to 5 decimals, rising */
    assert_int_equal(
        rs_buf_printf(&b, "%s[%.*f,\"%s\"]", i ? "," : "", i % 6, 1000000000.0 + i * 1.5, text),
        RS_OK);
  }
  assert_int_equal(rs_buf_puts(&b, "]}]}}"), RS_OK);
  same_both_ways(b.data, NULL);
  rs_buf_release(&b);
}

/* CloudWatch get-metric-data output as the AWS CLI prints it: results of n
 * points, newest first (or oldest first), one item a line. */
static char *cw_output(size_t n, bool newest_first, bool pretty) {
  static const char *const labels[][2] = {{"gpu", "GPUUtilization"},
                                          {"cpu", "CPUUtilization"},
                                          {"inv", "Invocations"},
                                          {"other", "DiskUtilization"},
                                          {"latency_p99", "ModelLatency"}};
  const char *sep = pretty ? ",\n                " : ", ";
  rs_buf b;
  rs_buf_init(&b, (size_t)1 << 30);
  assert_int_equal(rs_buf_puts(&b, "{\n    \"MetricDataResults\": [\n"), RS_OK);
  for (size_t k = 0; k < 5; k++) {
    assert_int_equal(rs_buf_printf(&b,
                                   "%s        {\n            \"Id\": \"%s\",\n"
                                   "            \"Label\": \"%s\",\n"
                                   "            \"Timestamps\": [",
                                   k ? ",\n" : "", labels[k][0], labels[k][1]),
                     RS_OK);
    /* results of different lengths, so blocks and times interleave unevenly */
    size_t len = n - k * 7;
    for (size_t i = 0; i < len; i++) {
      size_t j = newest_first ? len - 1 - i : i;
      long long t = 1764460800 + 60 * (long long)(j + k % 2);
      char when[32];
      time_t tt = (time_t)t;
      struct tm tm;
      gmtime_r(&tt, &tm);
      strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S+00:00", &tm);
      assert_int_equal(rs_buf_printf(&b, "%s\"%s\"", i ? sep : "", when), RS_OK);
    }
    assert_int_equal(rs_buf_puts(&b, "],\n            \"Values\": ["), RS_OK);
    for (size_t i = 0; i < len; i++)
      assert_int_equal(
          rs_buf_printf(&b, "%s%.1f", i ? sep : "", (double)((i * 7919 + k * 31) % 997) / 10.0),
          RS_OK);
    assert_int_equal(rs_buf_puts(&b, "],\n            \"StatusCode\": \"Complete\"\n        }"),
                     RS_OK);
  }
  assert_int_equal(rs_buf_puts(&b, "\n    ],\n    \"Messages\": []\n}\n"), RS_OK);
  return b.data;
}

/* A query_range answer of one GPU-utilization series whose first point's
 * value is first, then 40 ordinary points (so the first is read by the
 * quick path, which needs look-ahead). */
static char *util_series(const char *first) {
  rs_buf b;
  rs_buf_init(&b, (size_t)1 << 20);
  assert_int_equal(rs_buf_printf(&b,
                                 HEAD "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\","
                                      "\"gpu\":\"0\"},\"values\":[[1700000000,\"%s\"]",
                                 first),
                   RS_OK);
  for (int i = 1; i <= 40; i++)
    assert_int_equal(rs_buf_printf(&b, ",[%d,\"%d\"]", 1700000000 + 15 * i, i), RS_OK);
  assert_int_equal(rs_buf_puts(&b, "]}]}}"), RS_OK);
  return b.data;
}

static void test_quick_values(void **state) {
  (void)state;
  /* kept as they are, clamped to 100 (within 1e-9 of it), refused: the
   * quick check of pass 2 and rs_export_point_value agree */
  static const char *const kept[] = {"0", "0.000000001", "99.99", "100", "100.00000000001"};
  static const char *const refused[] = {"0.0000000001", "100.5", "1000000"};
  for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
    char *doc = util_series(kept[i]);
    same_both_ways(doc, NULL);
    free(doc);
  }
  for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
    char *doc = util_series(refused[i]);
    same_error(doc);
    free(doc);
  }
}

static void test_cloudwatch(void **state) {
  (void)state;
  char *docs[] = {cw_output(30, true, false), cw_output(3000, true, true),
                  cw_output(2000, false, true), cw_output(40000, true, true)};
  format = RS_FORMAT_CLOUDWATCH;
  assert_true(strlen(docs[3]) > ((size_t)3 << 20));
  for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
    same_both_ways(docs[i], NULL);
    free(docs[i]);
  }
  /* times of one day in another zone, with a fraction, in Z: the day
   * remembered gives rs_time_parse's value; and out of range after the
   * offset, its error */
  same_both_ways("{\"MetricDataResults\": [{\"Id\": \"a\", \"Label\": \"CPUUtilization\",\n"
                 "\"Timestamps\": [\"2026-11-30T14:03:00+01:00\", \"2026-11-30T14:02:00+01:00\",\n"
                 "\"2026-11-30T14:01:30.5+01:00\", \"2026-11-30T13:01:00Z\",\n"
                 "\"2026-11-30T13:00:00+01:00\", \"2026-11-30T11:00:00+01:00\"],\n"
                 "\"Values\": [1, 2, 3, 4, 5, 6]}]}",
                 NULL);
  same_error("{\"MetricDataResults\": [{\"Id\": \"a\", \"Label\": \"CPUUtilization\",\n"
             "\"Timestamps\": [\"9999-12-31T22:00:00-01:00\", \"9999-12-31T23:30:00-01:00\"],\n"
             "\"Values\": [1, 2]}]}");
  /* the tree reader's messages, where and as it words them */
  same_error("{\"MetricDataResults\": [{\"Id\": \"a\", \"Label\": \"CPUUtilization\",\n"
             "\"Timestamps\": [\"2026-11-30T14:03:00Z\",\n \"2026-11-30T14:02:00Z\"],\n"
             "\"Values\": [1.0, \"2\"]}]}");
  same_error("{\"MetricDataResults\": [{\"Id\": \"a\", \"Label\": \"CPUUtilization\",\n"
             "\"Timestamps\": [\"2026-11-30T14:03:00Z\",\n \"yesterday\"],\n"
             "\"Values\": [1.0, 2.0]}]}");
  same_error("{\"MetricDataResults\": [{\"Id\": \"a\", \"Label\": \"CPUUtilization\",\n"
             "\"Timestamps\": [\"2026-11-30T14:03:00Z\"],\n \"Values\": [1.0, 2.0]}]}");
  same_error("{\"MetricDataResults\": [{\"Id\": \"a\", \"Label\": \"CPUUtilization\",\n"
             "\"Timestamps\": [\"2026-11-30T14:03:00Z\"],\n \"Values\": [-1.0],\n"
             "\"StatusCode\": \"Complete\"}]}");
  same_error("{\"MetricDataResults\": [{\"Id\": \"a\", \"Label\": \"CPUUtilization\",\n"
             "\"Timestamps\": [\"2026-11-30T14:03:00Z\"],\n \"Values\": [1.0],\n"
             "\"StatusCode\": \"PartialData\"}]}");
  same_error("{\"MetricDataResults\": [{\"Id\": \"m1\", \"Label\": \"ModelLatency\",\n"
             "\"Timestamps\": [\"2026-11-30T14:03:00Z\"],\n \"Values\": [1.0]}]}");
  same_error("{\"MetricDataResults\": []}");
  /* pass 1 skims the values: a bad one is still the error reported when a
   * later result has another mistake (the full pass finds it first) */
  same_error("{\"MetricDataResults\": [{\"Id\": \"a\", \"Label\": \"CPUUtilization\",\n"
             "\"Timestamps\": [\"2026-11-30T14:04:00Z\", \"2026-11-30T14:03:00Z\"],\n"
             "\"Values\": [1.0, true]},\n"
             "{\"Id\": \"b\", \"Label\": \"GPUUtilization\",\n"
             "\"Timestamps\": [\"2026-11-30T14:03:00Z\", \"never\"], \"Values\": [1.0, 2.0]}]}");
  same_error("{\"MetricDataResults\": [{\"Id\": \"a\", \"Label\": \"CPUUtilization\",\n"
             "\"Timestamps\": [\"2026-11-30T14:04:00Z\", \"2026-11-30T14:03:00Z\"],\n"
             "\"Values\": [1.0, 1e999]},\n"
             "{\"Id\": \"b\", \"Label\": \"GPUUtilization\",\n"
             "\"Timestamps\": [\"2026-11-30T14:03:00Z\"], \"Values\": [101.0]}]}");
  /* its own */
  own_error("{\"MetricDataResults\": [{\"Id\": \"a\", \"Label\": \"CPUUtilization\",\n"
            "\"Timestamps\": [\"2026-11-30T14:03:00Z\", \"2026-11-30T14:05:00Z\",\n"
            " \"2026-11-30T14:04:00Z\"], \"Values\": [1.0, 2.0, 3.0]}]}",
            3, 2, "go back and forth");
  own_error("{\"MetricDataResults\": [{\"Id\": \"a\", \"Label\": \"CPUUtilization\",\n"
            "\"Timestamps\": [\"2026-11-30T14:03:00Z\"], \"Values\": [1.0]}],\n"
            "\"NextToken\": \"abc\"}",
            3, 14, "ends with a NextToken");
  format = RS_FORMAT_PROM_JSON;
}

/* get-metric-statistics output: n datapoints of a metric, in time order
 * (or not), one object a line, some without the statistic read. */
static char *cw_statistics(const char *label, size_t n, int order) {
  rs_buf b;
  rs_buf_init(&b, (size_t)1 << 30);
  assert_int_equal(rs_buf_printf(&b, "{\n    \"Label\": \"%s\",\n    \"Datapoints\": [\n", label),
                   RS_OK);
  for (size_t i = 0; i < n; i++) {
    size_t j = order > 0 ? i : order < 0 ? n - 1 - i : (i * 7) % n; /* 7: coprime with n */
    double v = (double)((j * 7919) % 997) / 10.0;
    char when[32];
    time_t tt = (time_t)(1764460800 + 60 * (long long)j);
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S+00:00", &tm);
    assert_int_equal(rs_buf_printf(&b, "%s        {\"Timestamp\": \"%s\", ", i ? ",\n" : "", when),
                     RS_OK);
    if (strcmp(label, "ModelLatency") == 0)
      assert_int_equal(rs_buf_printf(&b,
                                     "\"ExtendedStatistics\": {\"p50\": %.1f, \"p95\": %.1f, "
                                     "\"p99\": %.1f}, ",
                                     v * 100, v * 150, v * 200),
                       RS_OK);
    else if (j % 5 == 2) /* no Average: Maximum is read */
      assert_int_equal(rs_buf_printf(&b, "\"Maximum\": %.1f, \"Sum\": %.1f, ", v, v * 60), RS_OK);
    else
      assert_int_equal(
          rs_buf_printf(&b, "\"Average\": %.1f, \"Maximum\": %.1f, \"Sum\": %.1f, ", v, v, v * 60),
          RS_OK);
    assert_int_equal(rs_buf_puts(&b, "\"Unit\": \"Percent\"}"), RS_OK);
  }
  assert_int_equal(rs_buf_puts(&b, "\n    ]\n}\n"), RS_OK);
  return b.data;
}

static void test_cloudwatch_statistics(void **state) {
  (void)state;
  char *docs[] = {
      cw_statistics("GPUUtilization", 50, 1),  cw_statistics("CPUUtilization", 3000, -1),
      cw_statistics("ModelLatency", 2500, -1), cw_statistics("Invocations", 2100, 1),
      cw_statistics("GPUUtilization", 50, 0),  cw_statistics("ModelLatency", 30000, 1)};
  format = RS_FORMAT_CLOUDWATCH;
  assert_true(strlen(docs[5]) > ((size_t)3 << 20));
  for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
    rows a, b;
    rs_error ea, eb;
    if (i != 4) { /* the unordered one is the tree reader's */
      same_both_ways(docs[i], NULL);
    } else {
      own_error(docs[i], 12, 9, "a datapoint out of time order");
    }
    /* as the CLI reads it: handed over when unusual, the same rows */
    if (stream_rows(&a, docs[i], strlen(docs[i]), NULL, &ea) != RS_OK)
      fail_msg("doc %zu: %d %zu:%zu %s", i, ea.status, ea.line, ea.col, ea.msg);
    assert_int_equal(tree_rows(&b, docs[i], strlen(docs[i]), NULL, &eb), RS_OK);
    assert_same_rows(&a, &b);
    free(a.r);
    free(b.r);
    free(docs[i]);
  }
  same_error("{\"Label\": \"GPUUtilization\", \"Datapoints\": [\n"
             "{\"Timestamp\": \"2026-11-30T14:03:00Z\", \"Average\": 1.0},\n"
             "{\"Average\": 2.0}]}");
  same_error("{\"Label\": \"GPUUtilization\", \"Datapoints\": [\n"
             "{\"Timestamp\": \"2026-11-30T14:03:00Z\", \"Average\": 1.0},\n"
             "{\"Timestamp\": \"soon\", \"Average\": 2.0}]}");
  same_error("{\"Label\": \"ModelLatency\", \"Datapoints\": [\n"
             "{\"Timestamp\": \"2026-11-30T14:03:00Z\", \"Average\": 1.0}]}");
  same_error("{\"Label\": \"GPUUtilization\", \"Datapoints\": [\n"
             "{\"Timestamp\": \"2026-11-30T14:03:00Z\", \"Average\": 101.0}]}");
  same_error("{\"Label\": \"GPUUtilization\", \"Datapoints\": []}");
  same_error("{\"Label\": \"GPUUtilization\", \"Datapoints\": [\n"
             "{\"Timestamp\": \"2026-11-30T14:03:00Z\", \"Sum\": 1.0}]}");
  format = RS_FORMAT_PROM_JSON;
}

/* One get-metric-statistics answer read by the streaming reader twice: as
 * it is (short: every datapoint through the tokenizer) and with 600 spaces
 * after it (every datapoint through the quick read of the AWS CLI's layout,
 * which needs that much look-ahead): the same rows, or the same error at
 * the same place. */
static void quick_datapoint(const char *label, const char *const *points, size_t n) {
  rs_buf b, padded;
  rows a, q;
  rs_error ea, eq;
  rs_buf_init(&b, (size_t)1 << 20);
  rs_buf_init(&padded, (size_t)1 << 20);
  assert_int_equal(rs_buf_printf(&b, "{\n    \"Label\": \"%s\",\n    \"Datapoints\": [\n", label),
                   RS_OK);
  for (size_t i = 0; i < n; i++)
    assert_int_equal(rs_buf_printf(&b, "%s        %s", i ? ",\n" : "", points[i]), RS_OK);
  assert_int_equal(rs_buf_puts(&b, "\n    ]\n}\n"), RS_OK);
  assert_int_equal(rs_buf_puts(&padded, b.data), RS_OK);
  for (int i = 0; i < 600; i++)
    assert_int_equal(rs_buf_puts(&padded, " "), RS_OK);
  rs_status sa = own_rows(&a, b.data, NULL, &ea);
  rs_status sq = own_rows(&q, padded.data, NULL, &eq);
  if (sa != sq ||
      (sa != RS_OK && (strcmp(ea.msg, eq.msg) != 0 || ea.line != eq.line || ea.col != eq.col)))
    fail_msg("%s: tokenizer %d %zu:%zu '%s', quick %d %zu:%zu '%s'", points[0], sa, ea.line, ea.col,
             ea.msg, sq, eq.line, eq.col, eq.msg);
  if (sa == RS_OK)
    assert_same_rows(&a, &q);
  free(a.r);
  free(q.r);
  rs_buf_release(&b);
  rs_buf_release(&padded);
}

static void test_quick_datapoints(void **state) {
  (void)state;
  /* the layout the quick read takes, and what it leaves to the tokenizer */
  static const char *const cases[][3] = {
      {"{\"Timestamp\": \"2026-11-30T14:03:00+00:00\", \"Average\": 26.5, \"Unit\": \"Percent\"}",
       "{\"Timestamp\": \"2026-11-30T14:04:00+00:00\", \"Average\": 0, \"Unit\": \"Percent\"}",
       "{\"Timestamp\": \"2026-11-30T14:05:00+00:00\", \"Average\": 100.00, \"Unit\": "
       "\"Percent\"}"},
      /* any key order, no space, unknown keys, Maximum without Average */
      {"{\"Unit\":\"Percent\",\"Average\":26.5,\"Timestamp\":\"2026-11-30T14:03:00Z\"}",
       "{\"SampleCount\": 60.0, \"Timestamp\": \"2026-11-30T14:04:00Z\", \"Maximum\": 7}",
       "{\"Timestamp\": \"2026-11-30T14:05:00Z\",\"Minimum\": 1.5, \"Sum\": 3.0, \"Maximum\": "
       "9.25}"},
      /* left to the tokenizer: an exponent, a tab, white space before ':' */
      {"{\"Timestamp\": \"2026-11-30T14:03:00Z\", \"Average\": 2.5e1}",
       "{\"Timestamp\": \"2026-11-30T14:04:00Z\",\t\"Average\": 3}",
       "{\"Timestamp\" : \"2026-11-30T14:05:00Z\", \"Average\": 4}"},
      /* errors: a value out of range, a negative one, a bad time */
      {"{\"Timestamp\": \"2026-11-30T14:03:00Z\", \"Average\": 1.0}",
       "{\"Timestamp\": \"2026-11-30T14:04:00Z\", \"Unit\": \"Percent\", \"Average\": 101.5}",
       "{\"Timestamp\": \"2026-11-30T14:05:00Z\", \"Average\": 1.0}"},
      {"{\"Timestamp\": \"2026-11-30T14:03:00Z\", \"Average\": 1.0}",
       "{\"Timestamp\": \"2026-11-30T14:04:00Z\", \"Average\": -2.0}",
       "{\"Timestamp\": \"2026-11-30T14:05:00Z\", \"Average\": 1.0}"},
      {"{\"Timestamp\": \"2026-11-30T14:03:00Z\", \"Average\": 1.0}",
       "{\"Average\": 2.0, \"Timestamp\": \"2026-11-30 later\"}",
       "{\"Timestamp\": \"2026-11-30T14:05:00Z\", \"Average\": 1.0}"},
      /* a duplicate statistic, a missing Timestamp, a number as Timestamp,
       * a malformed number, a string as a value, a leading zero */
      {"{\"Timestamp\": \"2026-11-30T14:03:00Z\", \"Average\": 1.0, \"Average\": 2.0}",
       "{\"Timestamp\": \"2026-11-30T14:04:00Z\", \"Average\": 1.0}",
       "{\"Timestamp\": \"2026-11-30T14:05:00Z\", \"Average\": 1.0}"},
      {"{\"Timestamp\": \"2026-11-30T14:03:00Z\", \"Average\": 1.0}",
       "{\"Unit\": \"Percent\", \"Average\": 1.0}",
       "{\"Timestamp\": \"2026-11-30T14:05:00Z\", \"Average\": 1.0}"},
      {"{\"Timestamp\": 1764511380, \"Average\": 1.0}",
       "{\"Timestamp\": \"2026-11-30T14:04:00Z\", \"Average\": 1.0}",
       "{\"Timestamp\": \"2026-11-30T14:05:00Z\", \"Average\": 1.0}"},
      {"{\"Timestamp\": \"2026-11-30T14:03:00Z\", \"Average\": 1.}",
       "{\"Timestamp\": \"2026-11-30T14:04:00Z\", \"Average\": 1.0}",
       "{\"Timestamp\": \"2026-11-30T14:05:00Z\", \"Average\": 1.0}"},
      {"{\"Timestamp\": \"2026-11-30T14:03:00Z\", \"Average\": \"1.0\"}",
       "{\"Timestamp\": \"2026-11-30T14:04:00Z\", \"Average\": 1.0}",
       "{\"Timestamp\": \"2026-11-30T14:05:00Z\", \"Average\": 1.0}"},
      {"{\"Timestamp\": \"2026-11-30T14:03:00Z\", \"Average\": 01.0}",
       "{\"Timestamp\": \"2026-11-30T14:04:00Z\", \"Average\": 1.0}",
       "{\"Timestamp\": \"2026-11-30T14:05:00Z\", \"Average\": 1.0}"},
  };
  format = RS_FORMAT_CLOUDWATCH;
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    quick_datapoint("GPUUtilization", cases[i], 3);
  /* ModelLatency's percentiles are the tokenizer's, the others' quick */
  static const char *const latency[] = {
      "{\"Timestamp\": \"2026-11-30T14:03:00Z\", \"ExtendedStatistics\": {\"p50\": 1.5, "
      "\"p95\": 2.5, \"p99\": 3.5}, \"Unit\": \"Microseconds\"}",
      "{\"Timestamp\": \"2026-11-30T14:04:00Z\", \"Average\": 9.0}"};
  quick_datapoint("ModelLatency", latency, 2);
  format = RS_FORMAT_PROM_JSON;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_rows_as_tree),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_hand_over),
      cmocka_unit_test(test_sources),
      cmocka_unit_test(test_memory_not_the_named_file),
      cmocka_unit_test(test_fast_numbers),
      cmocka_unit_test(test_quick_points),
      cmocka_unit_test(test_quick_values),
      cmocka_unit_test(test_cloudwatch),
      cmocka_unit_test(test_cloudwatch_statistics),
      cmocka_unit_test(test_quick_datapoints),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
