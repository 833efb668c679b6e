#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rightsize/catalog.h"
#include "rightsize/pricing.h"
#include "test_support.h"

#define DATA RS_TEST_DATA "/pricing/"

static const rs_instance *shape(const rs_catalog *cat, const char *name) {
  const rs_instance *in = rs_catalog_find(cat, name);
  assert_non_null(in);
  return in;
}

static void near(double a, double b) { assert_true(fabs(a - b) < 1e-9); }

static void test_basis_names(void **state) {
  (void)state;
  rs_price_basis b;
  assert_int_equal(rs_price_basis_from_name(&b, "spot"), RS_OK);
  assert_int_equal(b, RS_BASIS_SPOT);
  assert_int_equal(rs_price_basis_from_name(&b, "reserved"), RS_OK);
  assert_int_equal(b, RS_BASIS_RESERVED);
  assert_int_equal(rs_price_basis_from_name(&b, "cheap"), RS_USAGE);
  assert_string_equal(rs_price_basis_name(RS_BASIS_ONDEMAND), "on-demand");
}

static void test_most_specific_rule_wins(void **state) {
  rs_catalog *cat;
  rs_overlay *o;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_catalog_default(&cat, *state, &err), RS_OK);
  assert_int_equal(rs_overlay_load(&o, *state, DATA "acme.yaml", &err), RS_OK);
  assert_string_equal(o->name, "acme-2026");
  assert_int_equal(o->nrules, 3);
  assert_int_equal(rs_pricing_apply(cat, RS_BASIS_ONDEMAND, o, &err), RS_OK);
  near(shape(cat, "g4dn.xlarge")->price_usd_per_hour, 0.526 * 0.75); /* family rule */
  near(shape(cat, "p3.2xlarge")->price_usd_per_hour,
       shape(cat, "p3.2xlarge")->ondemand_usd_per_hour * 0.80);               /* provider rule */
  near(shape(cat, "p3.8xlarge")->price_usd_per_hour, 9.5);                    /* absolute price */
  near(shape(cat, "Standard_NC4as_T4_v3")->price_usd_per_hour, 0.526 * 0.90); /* global */
  /* the catalog's own prices are untouched */
  near(shape(cat, "g4dn.xlarge")->ondemand_usd_per_hour, 0.526);
}

static void test_reserved_and_spot(void **state) {
  rs_catalog *cat;
  rs_overlay *o;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_catalog_default(&cat, *state, &err), RS_OK);
  assert_int_equal(rs_overlay_load(&o, *state, DATA "acme.yaml", &err), RS_OK);
  assert_int_equal(rs_pricing_apply(cat, RS_BASIS_RESERVED, o, &err), RS_OK);
  near(shape(cat, "p3.8xlarge")->price_usd_per_hour, 9.5 * 0.60);
  near(shape(cat, "g4dn.xlarge")->price_usd_per_hour, 0.526 * 0.75 * 0.60);
  assert_int_equal(rs_pricing_apply(cat, RS_BASIS_SPOT, o, &err), RS_OK);
  near(shape(cat, "p3.8xlarge")->price_usd_per_hour, 2.0);            /* overlay spot */
  near(shape(cat, "g4dn.xlarge")->price_usd_per_hour, 0.1872);        /* catalog spot */
  assert_true(isnan(shape(cat, "g4dn.2xlarge")->price_usd_per_hour)); /* no spot known */
}

static void test_reserved_needs_a_definition(void **state) {
  rs_catalog *cat;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_catalog_default(&cat, *state, &err), RS_OK);
  assert_int_equal(rs_pricing_apply(cat, RS_BASIS_RESERVED, NULL, &err), RS_USAGE);
  assert_non_null(strstr(err.msg, "reserved_discount_pct"));
}

static void test_bad_overlays(void **state) {
  static const struct {
    const char *file;
    size_t line, col;
    const char *msg;
  } cases[] = {
      {"bad-discount.yaml", 2, 15, "discount_pct: expected a percentage from 0 to below 100"},
      {"bad-two-scopes.yaml", 3, 5, "expected exactly one of provider, family or instance"},
      {"bad-unknown-key.yaml", 2, 1, "unknown key 'discount' in the price overlay"},
      {"bad-price.yaml", 4, 19, "rules[].usd_per_hour: expected a price > 0, got '0'"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char path[512];
    rs_overlay *o = (rs_overlay *)1;
    rs_error err;
    rs_error_clear(&err);
    snprintf(path, sizeof(path), DATA "%s", cases[i].file);
    assert_int_equal(rs_overlay_load(&o, *state, path, &err), RS_INVALID);
    assert_null(o);
    assert_int_equal(err.line, cases[i].line);
    assert_int_equal(err.col, cases[i].col);
    assert_non_null(strstr(err.msg, cases[i].msg));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_basis_names),
      cmocka_unit_test_setup_teardown(test_most_specific_rule_wins, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_reserved_and_spot, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_reserved_needs_a_definition, setup_arena,
                                      teardown_arena),
      cmocka_unit_test_setup_teardown(test_bad_overlays, setup_arena, teardown_arena),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
