/* The native reader's fast path (rs_ingest_native_lines): rows it parses in
 * place must be the rows the cell parser (rs_sample_set_cell) makes of the
 * same text, bit for bit, and rows it does not take must reach the sink
 * through the CSV reader exactly as before. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest_internal.h"
#include "time_fast.h"
#include "rightsize/ingest.h"

#define MAX_ROWS 4096
#define NCOLS 6

static const char *const header =
    "timestamp,gpu_index,gpu_mem_used_mib,gpu_util_pct,x_note,latency_p99_s";

/* Cell texts the fast path takes and ones it leaves to the full parser:
 * long mantissas, exponents, signs, leading zeros, spaces, quotes, units. */
static const char *const small[] = {"0",
                                    "0.0",
                                    "007.50",
                                    "12.25",
                                    "3.14159265358979",
                                    "1e1",
                                    "+5",
                                    "-0",
                                    " 7",
                                    "7 ",
                                    "",
                                    "\"12.5\"",
                                    "0.000000001",
                                    "99.999999999999",
                                    "100",
                                    "1.5E-1",
                                    "00000000000000012.5",
                                    "0.1234567890123456789",
                                    "12.345678901234567",
                                    "9.99999999999999"};
static const char *const large[] = {
    "0",  "3005.0", "999999999.999999", "65535.99", "1.5e5", "107374182.400001", "",
    "42", "0.0",    "123456.789012345", "20.5",     "7"};
static const char *const times[] = {"1764460800",
                                    "1764460800.5",
                                    "2025-12-01T00:00:00Z",
                                    " 1764460801",
                                    "1764460802.25",
                                    "\"1764460803\"",
                                    "2025-12-01T00:00:01.250Z",
                                    "2025-12-01t00:00:02+05:30",
                                    "2025-12-01 00:00:03-0800",
                                    "2025-12-01T23:59:60z",
                                    "2024-02-29T12:00:00Z",
                                    "2025/12/01 00:00:04.5",
                                    "2025-12-01T00:00:05",
                                    "2025-12-02T00:00:06.1234567890123456Z",
                                    "\"2025-12-02T00:00:07Z\"",
                                    "2025-12-02T00:00:08Z "};
static const char *const gpus[] = {"0", "3", "12", "63", "", "07", " 1"};
static const char *const notes[] = {"", "abc", "\"a,b\"", "x y", "\"q\"\"q\""};

typedef struct rows {
  size_t n;
  rs_sample s[MAX_ROWS];
} rows;

static rs_status keep(void *ctx, const rs_sample *s, rs_error *err) {
  rows *r = ctx;
  (void)err;
  assert_true(r->n < MAX_ROWS);
  r->s[r->n++] = *s;
  return RS_OK;
}

static uint64_t next(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

#define PICK(arr, x) arr[next(x) % (sizeof(arr) / sizeof(arr[0]))]

/* The cell text without its quotes, as the CSV reader hands it over. */
static void unquote(char *out, const char *cell) {
  size_t n = strlen(cell), o = 0;
  if (n < 2 || cell[0] != '"') {
    memcpy(out, cell, n + 1);
    return;
  }
  for (size_t i = 1; i + 1 < n; i++) {
    out[o++] = cell[i];
    if (cell[i] == '"')
      i++;
  }
  out[o] = '\0';
}

/* The sample rs_sample_set_cell makes of the cells (the reference). */
static void reference(rs_sample *s, const char *const cells[NCOLS], size_t line) {
  static const char *const names[NCOLS] = {"timestamp",    "gpu_index", "gpu_mem_used_mib",
                                           "gpu_util_pct", "x_note",    "latency_p99_s"};
  rs_error err;
  memset(s, 0, sizeof(*s));
  s->gpu = -1;
  s->line = line;
  for (int i = 0; i < NCOLS; i++) {
    rs_column c;
    char text[64];
    unquote(text, cells[i]);
    assert_int_equal(rs_column_from_name(&c, names[i], strlen(names[i])), RS_OK);
    if (c.kind == RS_COL_TIMESTAMP)
      s->t_col = 1;
    rs_error_clear(&err);
    if (rs_sample_set_cell(s, &c, text, strlen(text), "ref", line, 1, &err) != RS_OK)
      fail_msg("reference: '%s' in %s: %s", text, names[i], err.msg);
  }
}

static void assert_same(const rs_sample *got, const rs_sample *want) {
  assert_int_equal(got->line, want->line);
  assert_int_equal(got->present, want->present);
  assert_int_equal(got->gpu, want->gpu);
  assert_memory_equal(&got->t, &want->t, sizeof(double));
  assert_int_equal(got->t_col, 1);
  for (int m = 0; m < RS_METRIC_COUNT; m++)
    if (got->present & (1u << m))
      assert_memory_equal(&got->v[m], &want->v[m], sizeof(double));
}

/* Reads text (then frees it) and compares its rows with want. */
static void read_and_compare(const char *name, char *text, size_t len, const rs_sample *want,
                             size_t nwant, int round) {
  static rows got;
  rs_error err;
  got.n = 0;
  rs_error_clear(&err);
  rs_status st = rs_ingest_memory(name, text, len, NULL, keep, &got, NULL, &err);
  if (st != RS_OK)
    fail_msg("round %d: %s", round, err.msg);
  assert_int_equal(got.n, nwant);
  for (size_t i = 0; i < nwant; i++)
    assert_same(&got.s[i], &want[i]);
  free(text);
}

/* A random plain decimal of at most max_int integer digits and nine
 * fraction digits (at least one digit in all) into buf. */
static const char *random_decimal(char *buf, uint64_t *x, unsigned max_int) {
  unsigned ni = (unsigned)(next(x) % (max_int + 1)), nf = (unsigned)(next(x) % 10), k = 0;
  bool point = nf > 0 || next(x) % 4 == 0;
  if (ni == 0 && nf == 0)
    ni = 1;
  for (unsigned i = 0; i < ni; i++)
    buf[k++] = (char)('0' + next(x) % 10);
  if (point)
    buf[k++] = '.';
  for (unsigned i = 0; i < nf; i++)
    buf[k++] = (char)('0' + next(x) % 10);
  buf[k] = '\0';
  return buf;
}

/* Random rows from the lists above (or, with generated, random decimals
 * in the two wide metric columns), LF or CRLF, some blank lines, the last
 * line with or without its newline: every row as the reference parses it. */
static void rows_match(uint64_t x, bool generated, bool sparse, bool repeat) {
  static rs_sample want[MAX_ROWS];
  static char last[sizeof(gpus) / sizeof(gpus[0])][NCOLS][40]; /* a device's last cells */
  bool has_last[sizeof(gpus) / sizeof(gpus[0])] = {false};
  const char *prev_time = NULL;
  for (int round = 0; round < 40; round++) {
    size_t cap = 1 << 18, len = 0, line = 1, nwant = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    len += (size_t)snprintf(text + len, cap - len, "%s\n", header);
    for (int r = 0; r < 80; r++) {
      char mem[32], lat[32];
      size_t g = (size_t)(next(&x) % (sizeof(gpus) / sizeof(gpus[0])));
      const char *cells[NCOLS] = {PICK(times, &x), gpus[g],         PICK(large, &x),
                                  PICK(small, &x), PICK(notes, &x), PICK(small, &x)};
      if (generated) {
        cells[2] = random_decimal(mem, &x, 9);
        cells[5] = random_decimal(lat, &x, 2);
      }
      if (sparse && r > 0 && next(&x) % 2 == 0) /* the previous row's time */
        cells[0] = prev_time;
      if (sparse && next(&x) % 2 == 0) /* empty from a column on, or all but the last */
        for (int i = 2 + (int)(next(&x) % 4); i < NCOLS - (next(&x) % 5 == 0); i++)
          cells[i] = "";
      if (repeat && has_last[g] && next(&x) % 4 != 0) /* the device's last row after its index */
        for (int i = 2; i < NCOLS; i++)
          cells[i] = last[g][i];
      if (repeat) {
        for (int i = 2; i < NCOLS; i++)
          if (cells[i] != last[g][i])
            snprintf(last[g][i], sizeof(last[g][i]), "%s", cells[i]);
        has_last[g] = true;
      }
      prev_time = cells[0];
      line++;
      if (next(&x) % 16 == 0) { /* a blank line */
        len += (size_t)snprintf(text + len, cap - len, "\n");
        line++;
      }
      reference(&want[nwant++], cells, line);
      for (int i = 0; i < NCOLS; i++)
        len += (size_t)snprintf(text + len, cap - len, "%s%s", i ? "," : "", cells[i]);
      len += (size_t)snprintf(text + len, cap - len, "%s", next(&x) % 4 == 0 ? "\r\n" : "\n");
    }
    if (round % 2) /* no final newline */
      len -= text[len - 2] == '\r' ? 2 : 1;
    read_and_compare("mem.csv", text, len, want, nwant, round);
  }
}

static void test_rows_match_cell_parser(void **state) {
  (void)state;
  rows_match(88172645463325252ull, false, false, false);
}

/* Rows of sparse files (a run of empty cells to the end of the line, or
 * to the last cell) and rows repeating the previous row's time (the
 * row loop's memo of its timestamp cell): the reference's rows too. */
static void test_sparse_rows_match_cell_parser(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 10; seed++)
    rows_match(seed * 0xD1B54A32D192ED03ull, seed % 2 == 0, true, false);
}

/* Rows repeating a device's last cells after its index, often short (an
 * idle GPU's rows, the row loop's memo of them), beside rows that differ
 * in one cell, in the line end (LF, CRLF) or only in their device: the
 * reference's rows. */
static void test_repeated_rows_match_cell_parser(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 16; seed++)
    rows_match(seed * 0x9E3779B97F4A7C15ull, seed % 2 == 0, seed % 4 < 2, true);
}

/* Decimals of every length up to 9 + 9 digits (the eight-digit step of
 * long integer parts, the digit loop, a lone point): the cell parser's
 * value, bit for bit. */
static void test_random_decimals_match(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 25; seed++)
    rows_match(seed * 0x9E3779B97F4A7C15ull, true, false, false);
}

static rs_status fail_second(void *ctx, const rs_sample *s, rs_error *err) {
  rows *r = ctx;
  r->s[r->n++] = *s;
  if (r->n == 2)
    return rs_error_set(err, RS_INVALID, s->path, s->line, s->t_col, "stop");
  return RS_OK;
}

/* The row loop over cols, rows into got. */
static rs_native_rows native_rows(const rs_native_col *cols, size_t ncols, rs_sample *s,
                                  rs_time_day *day, rows *got) {
  return (rs_native_rows){.cols = cols,
                          .ncols = ncols,
                          .max_line = 1 << 20,
                          .path = "p",
                          .s = s,
                          .day = day,
                          .sink = keep,
                          .ctx = got};
}

/* The row loop over text, copied to a heap block of exactly its length
 * (a read past it is a heap overflow the sanitizer builds report): the
 * bytes used, the lines in *lines, the sink's status in *st. */
static size_t lines_exact(rs_native_rows *nr, const char *text, size_t len, size_t *lines,
                          rs_status *st) {
  char *block = malloc(len);
  rs_error err;
  assert_non_null(block);
  memcpy(block, text, len);
  rs_error_clear(&err);
  size_t used = rs_ingest_native_lines(nr, block, len, 1, lines, st, &err);
  free(block);
  return used;
}

/* The zero sink's rows: each must have every present value +0. */
static size_t zero_rows;
static rs_status keep_zeros(void *ctx, const rs_sample *s, rs_error *err) {
  for (uint32_t bits = s->present; bits != 0; bits &= bits - 1) {
    double v = s->v[__builtin_ctz(bits)];
    assert_true(v == 0.0 && !signbit(v));
  }
  zero_rows++;
  return keep(ctx, s, err);
}

/* The row loop takes no line of text. */
static void expect_stop(rs_native_rows *nr, const char *text, rows *got) {
  size_t lines;
  rs_status st;
  got->n = 0;
  assert_int_equal(lines_exact(nr, text, strlen(text), &lines, &st), 0);
  assert_int_equal(lines, 0);
  assert_int_equal(got->n, 0);
}

/* Directly: it stops before the first line it does not take, having
 * handed over nothing of it, and passes a sink error up. */
static void test_lines_stop_and_sink_error(void **state) {
  (void)state;
  static rows got;
  rs_sample s = {.gpu = -1};
  rs_time_day day = {.valid = false};
  const rs_native_col cols[3] = {{.kind = RS_COL_TIMESTAMP},
                                 {.kind = RS_COL_METRIC,
                                  .metric = RS_METRIC_GPU_UTIL,
                                  .bit = 1u << RS_METRIC_GPU_UTIL,
                                  .scale = 1.0,
                                  .max = 100.0},
                                 {.kind = RS_COL_IGNORED}};
  rs_native_rows nr = native_rows(cols, 3, &s, &day, &got);
  const char *text = "10,1.5,a\r\n11,,\n12,101,b\n13,2,c\n";
  size_t lines;
  rs_status st;
  rs_error err;
  got.n = 0;
  rs_error_clear(&err);
  size_t used = rs_ingest_native_lines(&nr, text, strlen(text), 7, &lines, &st, &err);
  assert_int_equal(st, RS_OK);
  assert_int_equal(lines, 2);
  assert_int_equal(used, strlen("10,1.5,a\r\n11,,\n"));
  assert_int_equal(nr.rows, 2);
  assert_int_equal(got.n, 2);
  assert_int_equal(got.s[0].line, 7);
  assert_true(got.s[0].v[RS_METRIC_GPU_UTIL] == 1.5);
  assert_int_equal(got.s[1].line, 8);
  assert_int_equal(got.s[1].present, 0); /* the previous row's value cleared */
  assert_true(got.s[1].t == 11.0);

  /* too many fields, too few, a quote, a line over the limit */
  const char *stops[] = {"10,1,a,b\n", "10,1\n", "10,\"1\",a\n", "10,1,aaaaaaaaaa\n"};
  nr.max_line = 12;
  for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
    expect_stop(&nr, stops[i], &got);

  nr.sink = fail_second;
  nr.max_line = 1 << 20;
  nr.rows = 0;
  got.n = 0;
  text = "10,1,a\n11,2,b\n12,3,c\n";
  used = rs_ingest_native_lines(&nr, text, strlen(text), 2, &lines, &st, &err);
  assert_int_equal(st, RS_INVALID);
  assert_int_equal(err.line, 3);
  assert_int_equal(lines, 1);
  assert_int_equal(nr.rows, 1);
}

/* A timestamp and one metric column (in its canonical unit) into cols. */
static void time_and_metric(rs_native_col cols[2], rs_metric m, double max) {
  cols[0] = (rs_native_col){.kind = RS_COL_TIMESTAMP};
  cols[1] =
      (rs_native_col){.kind = RS_COL_METRIC, .metric = m, .bit = 1u << m, .scale = 1.0, .max = max};
}

/* The row loop over text (len bytes), which must take all of it, as n rows. */
static void expect_rows(rs_native_rows *nr, const char *text, size_t len, rows *got, size_t n) {
  size_t lines;
  rs_status st;
  got->n = 0;
  assert_int_equal(lines_exact(nr, text, len, &lines, &st), len);
  assert_int_equal(st, RS_OK);
  assert_int_equal(got->n, n);
}

/* An idle GPU's repeated rows (the memo's, every value +0) go to the zero
 * sink, and only those: a repeated row with a value that is not zero, a
 * first row and a row of other bytes go to the sink. Both sinks see the
 * rows the sink alone sees, in the same order, bit for bit. */
static void test_idle_rows_to_zero_sink(void **state) {
  (void)state;
  static rows plain, split;
  rs_sample s = {.gpu = -1};
  rs_time_day day = {.valid = false};
  rs_native_col cols[4] = {{.kind = RS_COL_TIMESTAMP},
                           {.kind = RS_COL_GPU_INDEX},
                           {.kind = RS_COL_METRIC,
                            .metric = RS_METRIC_GPU_MEM_USED,
                            .bit = 1u << RS_METRIC_GPU_MEM_USED,
                            .scale = 1048576.0,
                            .max = 1e15},
                           {.kind = RS_COL_METRIC,
                            .metric = RS_METRIC_GPU_UTIL,
                            .bit = 1u << RS_METRIC_GPU_UTIL,
                            .scale = 1.0,
                            .max = 100.0}};
  const char *text = "10,0,3005.0,25.6\n10,1,0.0,0.0\n10,2,7.0,0.0\n10,3,0.0,\n"
                     "11,0,3005.0,25.6\n11,1,0.0,0.0\n11,2,7.0,0.0\n11,3,0.0,\n"
                     "12,0,0.0,0.0\n12,1,0.0,0.0\n12,2,7.0,0.0\n12,3,0,\n"
                     "13,0,0.0,0.0\n13,1,0.0,0.0\n13,2,7.0,0.0\n13,3,0,\n"
                     "14,0,3005.0,25.6\n14,2,3005.0,25.6\n"; /* the memo reads 32 bytes on */
  rs_native_rows nr = native_rows(cols, 4, &s, &day, &plain);
  expect_rows(&nr, text, strlen(text), &plain, 18);
  s = (rs_sample){.gpu = -1};
  nr = native_rows(cols, 4, &s, &day, &split);
  nr.zero_sink = keep_zeros;
  zero_rows = 0;
  expect_rows(&nr, text, strlen(text), &split, 18);
  /* 11,1 11,3 12,1 13,0 13,1 13,3: repeats of a row of zeros */
  assert_int_equal(zero_rows, 6);
  for (size_t i = 0; i < 18; i++) {
    assert_int_equal(split.s[i].present, plain.s[i].present);
    assert_int_equal(split.s[i].gpu, plain.s[i].gpu);
    assert_int_equal(split.s[i].line, plain.s[i].line);
    assert_memory_equal(split.s[i].v, plain.s[i].v, sizeof(plain.s[i].v));
  }
}

/* A short metric cell (rs_num_parse_short's shapes and the byte loop's)
 * as the last cell of a buffer that ends with its line, in a heap block of
 * exactly the text's size: the value strtod gives, and no read past the
 * block (the sanitizer builds check). Cells the fast path leaves stop the
 * lines before them. */
static void test_short_cells_at_buffer_end(void **state) {
  (void)state;
  static rows got;
  rs_sample s = {.gpu = -1};
  rs_time_day day = {.valid = false};
  rs_native_col cols[2];
  time_and_metric(cols, RS_METRIC_GPU_UTIL, 100.0);
  rs_native_rows nr = native_rows(cols, 2, &s, &day, &got);
  static const char *const cells[] = {"0.0", "25.6", "12.68", "99.99", "1.5",    "7",
                                      "5.",  ".5",   "0.125", "100.0", "007.50", "3.14159"};
  for (size_t i = 0; i < sizeof(cells) / sizeof(cells[0]); i++) {
    for (int crlf = 0; crlf < 2; crlf++) {
      char line[32];
      size_t len = (size_t)snprintf(line, sizeof(line), "10,%s%s", cells[i], crlf ? "\r\n" : "\n");
      expect_rows(&nr, line, len, &got, 1);
      assert_true(got.s[0].v[RS_METRIC_GPU_UTIL] == strtod(cells[i], NULL));
    }
  }
  static const char *const stops[] = {"10,1.2.\n", "10,12.3.4\n", "10,1.5e1\n", "10,-1.5\n",
                                      "10,100.01\n"};
  for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
    expect_stop(&nr, stops[i], &got);
}

/* Integer cells of 1 to 10 digits (leading zeros too; word_integer reads
 * up to 7 in one word, the byte loop the rest) and such integers with a
 * fraction, each line followed by another so a word is readable, or last
 * in the buffer: the value strtod gives, bit for bit. */
static void test_integer_cells_match_strtod(void **state) {
  (void)state;
  static rows got;
  rs_sample s = {.gpu = -1};
  rs_time_day day = {.valid = false};
  rs_native_col cols[2];
  time_and_metric(cols, RS_METRIC_NET_RX, 1e15);
  rs_native_rows nr = native_rows(cols, 2, &s, &day, &got);
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int n = 0; n < 200000; n++) {
    char cell[32], line[64];
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    unsigned digits = 1 + (unsigned)(x % 10),
             frac = (x >> 8) % 4 == 0 ? (unsigned)((x >> 12) % 4) : 0;
    uint64_t y = x >> 20;
    size_t k = 0;
    for (unsigned d = 0; d < digits; d++, y /= 10)
      cell[k++] = (char)('0' + ((x >> 16) % 3 == 0 && d < 2 ? 0 : y % 10));
    if (frac > 0) {
      cell[k++] = '.';
      for (unsigned d = 0; d < frac; d++, y /= 7)
        cell[k++] = (char)('0' + y % 10);
    }
    cell[k] = '\0';
    int last = (x >> 24) % 4 == 0;
    size_t len = (size_t)snprintf(line, sizeof(line), "10,%s%s", cell, last ? "\n" : "\n11,1\n");
    expect_rows(&nr, line, len, &got, last ? 1 : 2);
    double want = strtod(cell, NULL);
    if (memcmp(&got.s[0].v[RS_METRIC_NET_RX], &want, sizeof(want)) != 0)
      fail_msg("'%s' read as %.17g, strtod gives %.17g", cell, got.s[0].v[RS_METRIC_NET_RX], want);
  }
}

/* nvidia-smi rows (through the reader and do_row, whose cells with units
 * have a fast path too): every row as rs_ingest_set_cell reads its cells
 * under the columns the header names. */
static void test_nvsmi_rows_match_cell_parser(void **state) {
  (void)state;
  static const char *const utils[] = {" 47 %",  "47 %",   " 47%",   " 0 %",   " 100 %", " 4.5 %",
                                      " [N/A]", " 47  %", "\t47 %", " 047 %", " 1e1 %", " 47 % "};
  static const char *const mems[] = {" 73411 MiB", " 0 MiB",       " 1.5 MiB",
                                     "81920 MiB",  " 81920MiB",    " [Not Supported]",
                                     " 1e3 MiB",   " 73411   MiB", " 3 MiB "};
  static const char *const idx[] = {" 0", "1", " 12", " 63", " 07"};
  static const char *const stamps[] = {"2026/11/30 00:00:00.136", "2026/11/30 00:00:30",
                                       "2026/12/01 23:59:59.999", "1764460800"};
  const rs_column cols[5] = {
      {.kind = RS_COL_TIMESTAMP},
      {.kind = RS_COL_GPU_INDEX},
      {.kind = RS_COL_METRIC, .metric = RS_METRIC_GPU_UTIL, .scale = 1.0, .unit = "%"},
      {.kind = RS_COL_METRIC, .metric = RS_METRIC_GPU_MEM_USED, .scale = RS_MIB, .unit = "MiB"},
      {.kind = RS_COL_METRIC, .metric = RS_METRIC_GPU_MEM_TOTAL, .scale = RS_MIB, .unit = "MiB"}};
  static rs_sample want[MAX_ROWS];
  uint64_t x = 0x2545F4914F6CDD1Dull;
  for (int round = 0; round < 20; round++) {
    size_t cap = 1 << 18, nwant = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t len = (size_t)snprintf(text, cap,
                                  "timestamp, index, utilization.gpu [%%], "
                                  "memory.used [MiB], memory.total [MiB]\n");
    for (int r = 0; r < 100; r++) {
      const char *cells[5] = {PICK(stamps, &x), PICK(idx, &x), PICK(utils, &x), PICK(mems, &x),
                              PICK(mems, &x)};
      rs_sample *w = &want[nwant++];
      memset(w, 0, sizeof(*w));
      w->gpu = -1;
      w->line = (size_t)r + 2;
      size_t col = 1;
      for (int i = 0; i < 5; i++) {
        rs_error err;
        rs_error_clear(&err);
        if (i == 0)
          w->t_col = col;
        if (rs_ingest_set_cell(w, &cols[i], "c", cells[i], strlen(cells[i]), "ref", w->line, col,
                               &err) != RS_OK)
          fail_msg("reference: '%s': %s", cells[i], err.msg);
        col += strlen(cells[i]) + 1;
        len += (size_t)snprintf(text + len, cap - len, "%s%s", i ? "," : "", cells[i]);
      }
      len += (size_t)snprintf(text + len, cap - len, "\n");
    }
    read_and_compare("gpu.log", text, len, want, nwant, round);
  }
}

/* Errors in rows after fast ones: the same message and position as the
 * cell parser gives (the row goes through it). */
static void test_errors_after_fast_rows(void **state) {
  (void)state;
  static const struct {
    const char *row;
    size_t col;
    const char *needle;
  } cases[] = {
      {"1764460803,0,nan,1\r\n", 14, "expected a finite number in column 'gpu_mem_used_mib'"},
      {"1764460803,0,-inf,1\n", 14, "expected a finite number in column 'gpu_mem_used_mib'"},
      {"1764460803,0,1,Infinity\n", 16, "expected a finite number in column 'gpu_util_pct'"},
      {"1764460803,0,-1,1\n", 14, "expected a value >= 0"},
      {"1764460803,0,1.5.5,1\n", 14, "expected a number"},
      {"1764460803,x,1,1\n", 12, "an integer gpu index"},
      {"17644608030000000000,0,1,1\n", 1, "timestamp"},
      {"1764460803,0,1e999,1\n", 14, "finite"},
      {"1764460803,64,1,1\n", 12, "gpu index between 0 and 63"},
      {"1764460803,0,1,100.5\n", 16, "percentage between 0 and 100"},
      {"1764460803,0,1\n", 15, "row has 3 fields, expected 4"},
      {"1764460803,0,1,0.0000000001\n", 16, "0 or a value from"},
      {"2026-02-29T00:00:00Z,0,1,1\n", 1, "timestamp"},
      {"2026-11-23T24:00:00Z,0,1,1\n", 1, "timestamp"},
      {"2026-11-23T00:00:00+24:00,0,1,1\n", 1, "timestamp"},
      {"2026-11-23T00:00:00.Z,0,1,1\n", 1, "timestamp"},
      {"1970-01-01T00:00:00+01:00,0,1,1\n", 1, "timestamp"},
      {"2026-11-23T00:00:00Z,0,1,101\n", 26, "percentage between 0 and 100"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char text[256];
    static rows got;
    rs_error err;
    snprintf(text, sizeof(text),
             "timestamp,gpu_index,gpu_mem_used_mib,gpu_util_pct\r\n1764460800,0,1.5,2\r\n"
             "1764460801,1,2.5,3\r\n%s",
             cases[i].row);
    got.n = 0;
    rs_error_clear(&err);
    rs_status st = rs_ingest_memory("mem.csv", text, strlen(text), NULL, keep, &got, NULL, &err);
    if (st != RS_INVALID || got.n != 2 || err.line != 4)
      fail_msg("case %zu: status %d, %zu rows, %zu:%zu: %s", i, st, got.n, err.line, err.col,
               err.msg);
    if (err.col != cases[i].col || strstr(err.msg, cases[i].needle) == NULL)
      fail_msg("case %zu: %zu:%zu: %s", i, err.line, err.col, err.msg);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rows_match_cell_parser),
      cmocka_unit_test(test_sparse_rows_match_cell_parser),
      cmocka_unit_test(test_repeated_rows_match_cell_parser),
      cmocka_unit_test(test_random_decimals_match),
      cmocka_unit_test(test_nvsmi_rows_match_cell_parser),
      cmocka_unit_test(test_lines_stop_and_sink_error),
      cmocka_unit_test(test_short_cells_at_buffer_end),
      cmocka_unit_test(test_integer_cells_match_strtod),
      cmocka_unit_test(test_errors_after_fast_rows),
      cmocka_unit_test(test_idle_rows_to_zero_sink),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
