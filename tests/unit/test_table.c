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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_text),
      cmocka_unit_test(test_markdown),
      cmocka_unit_test(test_too_many_columns),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
