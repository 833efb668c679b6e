/* Name lists (src/util/names.h) and the vocabularies built on them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "names.h"
#include "rightsize/catalog.h"
#include "rightsize/pricing.h"
#include "rightsize/summary.h"

static void test_find(void **state) {
  (void)state;
  static const char *const names[] = {"low", "medium", "high", NULL, "hidden"};
  assert_int_equal(rs_names_find(names, 3, "low"), 0);
  assert_int_equal(rs_names_find(names, 3, "high"), 2);
  assert_int_equal(rs_names_find(names, 3, "High"), -1);   /* exact, case and all */
  assert_int_equal(rs_names_find(names, 2, "high"), -1);   /* only the first n */
  assert_int_equal(rs_names_find(names, 5, "hidden"), -1); /* NULL ends the list */
  assert_int_equal(rs_names_find(names, 3, NULL), -1);
  assert_int_equal(rs_names_find(names, 3, ""), -1);
}

/* Every vocabulary goes both ways: name(from_name(x)) == x (verdicts:
 * test_verdict.c). */
static void test_round_trips(void **state) {
  (void)state;
  for (int w = 0; w < RS_WARNING_COUNT; w++) {
    rs_warning_code c;
    assert_int_equal(rs_warning_code_from_name(&c, rs_warning_code_name((rs_warning_code)w)),
                     RS_OK);
    assert_int_equal(c, w);
  }
  for (int b = 0; b < RS_BASIS_COUNT; b++) {
    rs_price_basis c;
    assert_int_equal(rs_price_basis_from_name(&c, rs_price_basis_name((rs_price_basis)b)), RS_OK);
    assert_int_equal(c, b);
  }
  for (int p = 0; p < RS_PROVIDER_COUNT; p++)
    assert_int_equal(rs_provider_from_name(rs_provider_names[p]), p);
  for (unsigned i = 0; rs_family_names[i]; i++)
    assert_int_equal(rs_family_from_name(rs_family_names[i]), 1u << i);
  assert_int_equal(rs_provider_from_name("oracle"), -1);
  assert_int_equal(rs_family_from_name("gpu"), 0u);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_find),
      cmocka_unit_test(test_round_trips),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
