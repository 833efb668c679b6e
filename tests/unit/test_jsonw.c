#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "jsonw.h"

static void test_nested_document(void **state) {
  (void)state;
  rs_buf b;
  rs_jsonw w;
  rs_buf_init(&b, 0);
  rs_jsonw_init(&w, &b);
  rs_jsonw_object(&w, NULL);
  rs_jsonw_string(&w, "name", "a\"b");
  rs_jsonw_number(&w, "x", 1.5);
  rs_jsonw_number(&w, "n", 3.0);
  rs_jsonw_number(&w, "nan", NAN);
  rs_jsonw_uint(&w, "big", 18446744073709551615ull);
  rs_jsonw_bool(&w, "ok", true);
  rs_jsonw_string(&w, "none", NULL);
  rs_jsonw_array(&w, "list");
  rs_jsonw_number(&w, NULL, -0.0);
  rs_jsonw_object(&w, NULL);
  rs_jsonw_end(&w, '}');
  rs_jsonw_end(&w, ']');
  rs_jsonw_array(&w, "empty");
  rs_jsonw_end(&w, ']');
  rs_jsonw_end(&w, '}');
  rs_jsonw_finish(&w);
  assert_string_equal(b.data, "{\n"
                              "  \"name\": \"a\\\"b\",\n"
                              "  \"x\": 1.5,\n"
                              "  \"n\": 3,\n"
                              "  \"nan\": null,\n"
                              "  \"big\": 18446744073709551615,\n"
                              "  \"ok\": true,\n"
                              "  \"none\": null,\n"
                              "  \"list\": [\n"
                              "    0,\n"
                              "    {}\n"
                              "  ],\n"
                              "  \"empty\": []\n"
                              "}\n");
  rs_buf_release(&b);
}

static void test_numbers_fixed_form(void **state) {
  (void)state;
  rs_buf b;
  rs_jsonw w;
  rs_buf_init(&b, 0);
  rs_jsonw_init(&w, &b);
  rs_jsonw_array(&w, NULL);
  rs_jsonw_number(&w, NULL, 0.1);
  rs_jsonw_number(&w, NULL, 3221225472.0);
  rs_jsonw_number(&w, NULL, 1e300);
  rs_jsonw_number(&w, NULL, INFINITY);
  rs_jsonw_end(&w, ']');
  assert_string_equal(b.data, "[\n  0.1,\n  3221225472,\n  1e+300,\n  null\n]");
  rs_buf_release(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_nested_document),
      cmocka_unit_test(test_numbers_fixed_form),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
