#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv.h"

static rs_csv_reader *open_mem(const char *data, size_t len, const rs_csv_options *opts) {
  rs_csv_reader *r = NULL;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_csv_open_memory(&r, "mem.csv", data, len, opts, &err), RS_OK);
  assert_non_null(r);
  return r;
}

/* Reads every record into "a|b|c\n" lines (quoted fields in brackets). */
static char *dump(rs_csv_reader *r, rs_status *st, rs_error *err) {
  size_t cap = 1 << 20, len = 0;
  char *out = calloc(1, cap);
  const rs_csv_field *f;
  size_t n;
  rs_error_clear(err);
  while ((*st = rs_csv_next(r, &f, &n, err)) == RS_OK && n > 0) {
    for (size_t i = 0; i < n; i++) {
      assert_int_equal(f[i].text[f[i].len], '\0');
      assert_true(len + f[i].len + 4 < cap);
      len += (size_t)snprintf(out + len, cap - len, "%s%s%s%s", i ? "|" : "",
                              f[i].quoted ? "[" : "", f[i].text, f[i].quoted ? "]" : "");
    }
    assert_true(len + 1 < cap);
    len += (size_t)snprintf(out + len, cap - len, "\n");
  }
  return out;
}

static void expect_records(const char *data, size_t len, const char *want) {
  rs_csv_reader *r = open_mem(data, len, NULL);
  rs_error err;
  rs_status st;
  char *got = dump(r, &st, &err);
  assert_int_equal(st, RS_OK);
  assert_string_equal(got, want);
  free(got);
  rs_csv_free(r);
}

#define EXPECT(lit, want) expect_records(lit, sizeof(lit) - 1, want)

static void test_basic_shapes(void **state) {
  (void)state;
  EXPECT("a,b,c\n1,2,3\n", "a|b|c\n1|2|3\n");
  EXPECT("a,b\r\n1,2\r\n", "a|b\n1|2\n");
  EXPECT("a,b\n1,2", "a|b\n1|2\n");     /* no final newline */
  EXPECT("a,b\r\n1,2\r", "a|b\n1|2\n"); /* CR at the very end */
  EXPECT("\xEF\xBB\xBF"
         "a,b\n",
         "a|b\n");                                /* BOM stripped */
  EXPECT("x,\xEF\xBB\xBF\n", "x|\xEF\xBB\xBF\n"); /* only at the start */
  EXPECT("\n\r\na\n\n\nb\r\n\n", "a\nb\n");       /* blank lines skipped */
  EXPECT(",,\n", "||\n");
  EXPECT(" a , b \n", " a | b \n"); /* not trimmed */
  EXPECT("a\rb,c\n", "a\rb|c\n");   /* a lone CR is data */
  EXPECT("", "");
  EXPECT("\xEF\xBB\xBF", "");
  EXPECT("\n\n", "");
  EXPECT("5\",b\n", "5\"|b\n"); /* a quote inside a field is data */
}

static void test_quoted(void **state) {
  (void)state;
  EXPECT("\"a,b\",c\n", "[a,b]|c\n");
  EXPECT("\"say \"\"hi\"\"\",x\n", "[say \"hi\"]|x\n");
  EXPECT("\"\",\"\"\n", "[]|[]\n");
  EXPECT("\"\"\n", "[]\n"); /* one empty field is not a blank line */
  EXPECT("\"multi\nline\",2\r\n3,4\n", "[multi\nline]|2\n3|4\n");
  EXPECT("\"crlf\r\ninside\"\r\n", "[crlf\r\ninside]\n");
  EXPECT("a,\"b\"\r\n", "a|[b]\n");
  EXPECT("a,\"b\"", "a|[b]\n");
  EXPECT("a,\"b\"\r", "a|[b]\n");
  EXPECT("a\r,\"b\"\n", "a\r|[b]\n");
  EXPECT("x,\"\"\"\"\n", "x|[\"]\n");
}

static void test_positions(void **state) {
  (void)state;
  static const char data[] = "\xEF\xBB\xBF"
                             "id,name\n"
                             "\n"
                             "7,\"two\nlines\",tail\r\n"
                             "abc,,\"q\"\n";
  rs_csv_reader *r = open_mem(data, sizeof(data) - 1, NULL);
  const rs_csv_field *f;
  size_t n;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_csv_next(r, &f, &n, &err), RS_OK);
  assert_int_equal(n, 2);
  assert_int_equal(f[0].line, 1);
  assert_int_equal(f[0].col, 1); /* the BOM takes no column */
  assert_int_equal(f[1].col, 4);
  assert_int_equal(rs_csv_next(r, &f, &n, &err), RS_OK);
  assert_int_equal(n, 3);
  assert_int_equal(f[0].line, 3);
  assert_int_equal(f[0].col, 1);
  assert_int_equal(f[1].line, 3);
  assert_int_equal(f[1].col, 3); /* the opening quote */
  assert_true(f[1].quoted);
  assert_int_equal(f[1].len, 9);
  assert_int_equal(f[2].line, 4);
  assert_int_equal(f[2].col, 8);
  assert_string_equal(f[2].text, "tail");
  assert_int_equal(rs_csv_next(r, &f, &n, &err), RS_OK);
  assert_int_equal(n, 3);
  assert_int_equal(f[0].line, 5);
  assert_int_equal(f[1].col, 5);
  assert_int_equal(f[1].len, 0);
  assert_int_equal(f[2].col, 6);
  assert_int_equal(rs_csv_next(r, &f, &n, &err), RS_OK);
  assert_int_equal(n, 0);
  assert_int_equal(rs_csv_offset(r), sizeof(data) - 1);
  assert_int_equal(rs_csv_next(r, &f, &n, &err), RS_OK); /* stays at the end */
  assert_int_equal(n, 0);
  assert_string_equal(rs_csv_path(r), "mem.csv");
  rs_csv_free(r);
}

static void expect_error(const char *data, size_t len, const rs_csv_options *opts, rs_status want,
                         size_t line, size_t col, const char *msg) {
  rs_csv_reader *r = open_mem(data, len, opts);
  rs_error err;
  rs_status st;
  char *got = dump(r, &st, &err);
  assert_int_equal(st, want);
  assert_int_equal(err.status, want);
  assert_string_equal(err.path, "mem.csv");
  assert_int_equal(err.line, line);
  assert_int_equal(err.col, col);
  if (strstr(err.msg, msg) == NULL)
    fail_msg("message '%s' lacks '%s'", err.msg, msg);
  free(got);
  rs_csv_free(r);
}

#define EXPECT_ERR(lit, st, line, col, msg)                                                        \
  expect_error(lit, sizeof(lit) - 1, NULL, st, line, col, msg)

static void test_syntax_errors(void **state) {
  (void)state;
  EXPECT_ERR("a,b\n1,\"open\n2,3\n", RS_SYNTAX, 2, 3, "unterminated quoted field");
  EXPECT_ERR("\"", RS_SYNTAX, 1, 1, "unterminated quoted field");
  EXPECT_ERR("x,\"ab\"\"", RS_SYNTAX, 1, 3, "unterminated quoted field");
  EXPECT_ERR("a\n\"q\"x,b\n", RS_SYNTAX, 2, 4, "unexpected character after closing quote");
  EXPECT_ERR("\"two\nlines\" ,b\n", RS_SYNTAX, 2, 7, "unexpected character after closing quote");
  EXPECT_ERR("\"q\"\rx\n", RS_SYNTAX, 1, 4, "unexpected character after closing quote");
}

static void test_limits(void **state) {
  (void)state;
  rs_csv_options o = {';', 16, 3};
  expect_error("ok\n0123456789abcdefX\n", 21, &o, RS_LIMIT, 2, 1, "line longer than 16 bytes");
  expect_error("ok\n\"0123456789abcdef\"\n", 22, &o, RS_LIMIT, 2, 1, "line longer than 16 bytes");
  expect_error("a;b;c\n1;2;3;4\n", 14, &o, RS_LIMIT, 2, 7, "more than 3 fields");
  expect_error("a;b;\"c\";\"d\"\n", 12, &o, RS_LIMIT, 1, 9, "more than 3 fields");
  expect_records("0123456789abcdef\n", 17, "0123456789abcdef\n"); /* default limits */
}

static void test_delimiter_option(void **state) {
  (void)state;
  rs_csv_options o = {';', 0, 0};
  rs_csv_reader *r = open_mem("a;\"b;c\";d,e\n", 12, &o);
  rs_error err;
  rs_status st;
  char *got = dump(r, &st, &err);
  assert_int_equal(st, RS_OK);
  assert_string_equal(got, "a|[b;c]|d,e\n");
  free(got);
  rs_csv_free(r);
}

static void test_default_field_cap(void **state) {
  (void)state;
  char data[2200];
  memset(data, ',', 1024);
  data[1024] = '\n';
  /* 1024 commas are 1025 fields, one over the default. */
  expect_error(data, 1025, NULL, RS_LIMIT, 1, 1025, "more than 1024 fields");
  char want[1100];
  memset(want, '|', 1023);
  memcpy(want + 1023, "\n", 2);
  expect_records(data + 1, 1024, want); /* exactly 1024 is fine */
}

static char *write_temp(const char *data, size_t len) {
  char *path = strdup("/tmp/rs_test_csv_XXXXXX");
  int fd = mkstemp(path);
  FILE *fp;
  assert_true(fd >= 0);
  fp = fdopen(fd, "wb");
  assert_non_null(fp);
  assert_int_equal(fwrite(data, 1, len, fp), len);
  fclose(fp);
  return path;
}

static rs_csv_reader *open_file(const char *path) {
  rs_csv_reader *r = NULL;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_csv_open(&r, path, NULL, &err), RS_OK);
  return r;
}

/* A file larger than one read chunk, with records and quotes spanning the
 * chunk boundaries, reads the same as from memory. */
static void test_file_matches_memory(void **state) {
  (void)state;
  size_t cap = 400000, len = 0;
  char *data = malloc(cap);
  for (int i = 0; len < cap - 100; i++) {
    if (i % 7 == 0)
      len += (size_t)snprintf(data + len, cap - len, "%d,\"q,%d\nx\"\"y\",z\r\n", i, i * 3);
    else
      len += (size_t)snprintf(data + len, cap - len, "%d,%d,plain\n", i, i * 3);
  }
  char *path = write_temp(data, len);
  rs_csv_reader *rf = open_file(path), *rm = open_mem(data, len, NULL);
  rs_error err;
  rs_status sf, sm;
  char *a = dump(rf, &sf, &err), *b = dump(rm, &sm, &err);
  assert_int_equal(sf, RS_OK);
  assert_int_equal(sm, RS_OK);
  assert_string_equal(a, b);
  assert_int_equal(rs_csv_offset(rf), len);
  assert_string_equal(rs_csv_path(rf), path);
  free(a);
  free(b);
  rs_csv_free(rf);
  rs_csv_free(rm);
  unlink(path);
  free(path);
  free(data);
}

static void test_file_long_line(void **state) {
  (void)state;
  size_t len = (size_t)2 << 20;
  char *data = malloc(len + 8);
  memcpy(data, "a,b\n", 4);
  memset(data + 4, 'x', len);
  char *path = write_temp(data, len + 4);
  rs_csv_reader *r = open_file(path);
  const rs_csv_field *f;
  size_t n;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_csv_next(r, &f, &n, &err), RS_OK);
  assert_int_equal(n, 2);
  assert_int_equal(rs_csv_next(r, &f, &n, &err), RS_LIMIT);
  assert_int_equal(err.status, RS_LIMIT);
  assert_int_equal(err.line, 2);
  assert_int_equal(err.col, 1);
  assert_string_equal(err.msg, "line longer than 1048576 bytes");
  assert_string_equal(err.path, path);
  rs_csv_free(r);
  /* The same over memory, and a quoted one. */
  data[4] = '"';
  expect_error(data, len + 4, NULL, RS_LIMIT, 2, 1, "line longer than 1048576 bytes");
  unlink(path);
  free(path);
  free(data);
}

static void test_file_bom_crlf_no_newline(void **state) {
  (void)state;
  static const char data[] = "\xEF\xBB\xBF"
                             "t,v\r\n1,\"2\"\r\n3,4";
  char *path = write_temp(data, sizeof(data) - 1);
  rs_csv_reader *r = open_file(path);
  rs_error err;
  rs_status st;
  char *got = dump(r, &st, &err);
  assert_int_equal(st, RS_OK);
  assert_string_equal(got, "t|v\n1|[2]\n3|4\n");
  free(got);
  rs_csv_free(r);
  unlink(path);
  free(path);
}

static void test_open_errors(void **state) {
  (void)state;
  rs_csv_reader *r = (rs_csv_reader *)&r;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_csv_open(&r, "/tmp", NULL, &err), RS_IO);
  assert_null(r);
  assert_string_equal(err.path, "/tmp");
  assert_int_equal(err.line, 0);
  assert_string_equal(err.msg, "is a directory, expected a file");
  rs_error_clear(&err);
  r = (rs_csv_reader *)&r;
  assert_int_equal(rs_csv_open(&r, "/nonexistent/rs/none.csv", NULL, &err), RS_IO);
  assert_null(r);
  assert_string_equal(err.path, "/nonexistent/rs/none.csv");
  assert_int_equal(err.line, 0);
  assert_string_equal(err.msg, "cannot open: No such file or directory");
  rs_csv_free(NULL);
}

static void test_stdin(void **state) {
  (void)state;
  rs_csv_reader *r = NULL;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_csv_open(&r, "-", NULL, &err), RS_OK);
  assert_string_equal(rs_csv_path(r), "-");
  rs_csv_free(r); /* does not close stdin */
  assert_true(fileno(stdin) == 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_basic_shapes),
      cmocka_unit_test(test_quoted),
      cmocka_unit_test(test_positions),
      cmocka_unit_test(test_syntax_errors),
      cmocka_unit_test(test_limits),
      cmocka_unit_test(test_delimiter_option),
      cmocka_unit_test(test_default_field_cap),
      cmocka_unit_test(test_file_matches_memory),
      cmocka_unit_test(test_file_long_line),
      cmocka_unit_test(test_file_bom_crlf_no_newline),
      cmocka_unit_test(test_open_errors),
      cmocka_unit_test(test_stdin),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
