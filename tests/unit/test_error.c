#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "rightsize/error.h"

static void test_format_with_position(void **state) {
  (void)state;
  rs_error err;
  char buf[256];
  rs_error_clear(&err);
  assert_int_equal(rs_error_set(&err, RS_INVALID, "a.csv", 17, 4,
                                "expected a number in column '%s', got '%s'", "gpu_util_pct",
                                "n/a"),
                   RS_INVALID);
  assert_string_equal(rs_error_format(&err, buf, sizeof(buf)),
                      "a.csv:17:4: expected a number in column 'gpu_util_pct', got 'n/a'");
}

static void test_first_error_wins(void **state) {
  (void)state;
  rs_error err;
  char buf[256];
  rs_error_clear(&err);
  rs_error_set(&err, RS_SYNTAX, "x.yaml", 3, 1, "first");
  rs_error_set(&err, RS_IO, "y.yaml", 0, 0, "second");
  assert_int_equal(err.status, RS_SYNTAX);
  assert_string_equal(rs_error_format(&err, buf, sizeof(buf)), "x.yaml:3:1: first");
}

static void test_format_without_position(void **state) {
  (void)state;
  rs_error err;
  char buf[256];
  rs_error_clear(&err);
  rs_error_set(&err, RS_IO, "gone.csv", 0, 0, "cannot open: No such file or directory");
  assert_string_equal(rs_error_format(&err, buf, sizeof(buf)),
                      "gone.csv: cannot open: No such file or directory");
  rs_error_clear(&err);
  rs_error_set(&err, RS_USAGE, NULL, 0, 0, "bad");
  assert_string_equal(rs_error_format(&err, buf, sizeof(buf)), "bad");
  rs_error_set(NULL, RS_IO, NULL, 0, 0, "ignored"); /* NULL err is allowed */
}

static void test_exit_codes_distinct(void **state) {
  (void)state;
  assert_int_equal(rs_status_exit_code(RS_OK), 0);
  assert_int_equal(rs_status_exit_code(RS_POLICY), 1);
  assert_int_equal(rs_status_exit_code(RS_USAGE), 2);
  assert_int_equal(rs_status_exit_code(RS_SYNTAX), 3);
  assert_int_equal(rs_status_exit_code(RS_INVALID), 3);
  assert_int_equal(rs_status_exit_code(RS_IO), 3);
  assert_int_equal(rs_status_exit_code(RS_NOFIT), 4);
  assert_int_equal(rs_status_exit_code(RS_NOMEM), 5);
  assert_string_equal(rs_status_name(RS_LIMIT), "LIMIT");
  assert_string_equal(rs_status_name((rs_status)999), "UNKNOWN");
}

/* Untrusted text in a message stays one line: a newline cannot forge a
 * second "rightsize:" line or a GitHub "::error::" command, ESC reaches no
 * terminal, invalid UTF-8 and C1 controls are shown as bytes. */
static void test_message_escaped(void **state) {
  rs_error err;
  char buf[RS_ERROR_PATH_MAX + RS_ERROR_MSG_MAX + 8];
  (void)state;
  rs_error_clear(&err);
  rs_error_set(&err, RS_INVALID, "a\nb.csv", 2, 3, "got '%s'",
               "x\n::error::owned\r\t\x1b[31m\x7f\xff\xc2\x9b caf\xc3\xa9");
  assert_string_equal(rs_error_format(&err, buf, sizeof(buf)),
                      "a\\nb.csv:2:3: got 'x\\n::error::owned\\r\\t\\x1b[31m\\x7f\\xff\\xc2\\x9b "
                      "caf\xc3\xa9'");
  assert_null(strchr(buf, '\n'));
}

/* A message longer than the room is cut with "...", never mid-escape. */
static void test_message_capped(void **state) {
  rs_error err;
  char big[4000];
  (void)state;
  memset(big, '\n', sizeof(big) - 1);
  big[sizeof(big) - 1] = '\0';
  rs_error_clear(&err);
  rs_error_set(&err, RS_INVALID, NULL, 0, 0, "got '%s'", big);
  size_t n = strlen(err.msg);
  assert_true(n < sizeof(err.msg));
  assert_string_equal(err.msg + n - 3, "...");
  assert_memory_equal(err.msg + n - 5, "\\n", 2); /* whole escapes only */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_format_with_position),    cmocka_unit_test(test_first_error_wins),
      cmocka_unit_test(test_format_without_position), cmocka_unit_test(test_exit_codes_distinct),
      cmocka_unit_test(test_message_escaped),         cmocka_unit_test(test_message_capped),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
