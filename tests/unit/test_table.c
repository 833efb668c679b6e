/* Text and Markdown tables. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "table.h"

static const char *const heads[3] = {"NAME", "N", "NOTE"};
static const bool numeric[3] = {false, true, false};

static void test_text(void **state) {
  (void)state;
  const char *cells[] = {"a", "1", "x", "longer", "1234", ""};
  rs_buf out;
  rs_buf_init(&out, 0);
  rs_table_write(&out, RS_TABLE_TEXT, 3, heads, numeric, cells, 2);
  /* widths from the widest cell, numbers right-aligned under left-aligned
   * headers, no trailing spaces */
  assert_string_equal(out.data, "NAME    N     NOTE\n"
                                "a          1  x\n"
                                "longer  1234\n");
  rs_buf_release(&out);
}

static void test_markdown(void **state) {
  (void)state;
  const char *cells[] = {"a|b", "1", ""};
  rs_buf out;
  rs_buf_init(&out, 0);
  rs_table_write(&out, RS_TABLE_MARKDOWN, 3, heads, numeric, cells, 1);
  assert_string_equal(out.data, "| NAME | N | NOTE |\n"
                                "| --- | ---: | --- |\n"
                                "| a\\|b | 1 |  |\n");
  rs_buf_release(&out);
}

static void test_too_many_columns(void **state) {
  (void)state;
  const char *h[65], *c[65];
  bool num[65];
  for (int i = 0; i < 65; i++) {
    h[i] = c[i] = "x";
    num[i] = false;
  }
  rs_buf out;
  rs_buf_init(&out, 0);
  rs_table_write(&out, RS_TABLE_TEXT, 65, h, num, c, 1);
  assert_true(out.failed);
  rs_buf_release(&out);
}

static void wrap(rs_buf *out, const char *text, size_t width, size_t label) {
  rs_buf in;
  rs_buf_init(&in, 0);
  rs_buf_puts(&in, text);
  rs_buf_reset(out);
  rs_text_wrap(out, &in, width, label);
  rs_buf_putc(out, '\0');
  rs_buf_release(&in);
}

/* Lines break at a space before the width; a continuation hangs under a
 * top-level line's label column, under an indented line's last aligned
 * column, or two further in; a word longer than the width stays whole. */
static void test_wrap(void **state) {
  (void)state;
  rs_buf out;
  rs_buf_init(&out, 0);
  wrap(&out, "short\n", 20, 4);
  assert_string_equal(out.data, "short\n");
  wrap(&out, "key one two three four five\n", 20, 4);
  assert_string_equal(out.data, "key one two three\n    four five\n");
  wrap(&out, "  FAIL  policy  aa bb cc dd ee ff gg hh ii jj\n", 30, 4);
  assert_string_equal(out.data, "  FAIL  policy  aa bb cc dd ee\n"
                                "                ff gg hh ii jj\n");
  wrap(&out, "  item aaaa bbbb cccc dddd\n", 14, 4);
  assert_string_equal(out.data, "  item aaaa\n    bbbb cccc\n    dddd\n");
  wrap(&out, "x abcdefghijklmnopqrstuvwxyz y\nno newline at the end", 10, 2);
  assert_string_equal(out.data,
                      "x\n  abcdefghijklmnopqrstuvwxyz\n  y\nno newline\n  at the\n  end");
  for (size_t i = 0; i + 1 < out.len; i++) /* no line ends in a space */
    assert_false(out.data[i] == ' ' && out.data[i + 1] == '\n');
  rs_buf_release(&out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_text),
      cmocka_unit_test(test_markdown),
      cmocka_unit_test(test_too_many_columns),
      cmocka_unit_test(test_wrap),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
