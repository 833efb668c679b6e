/* The built-in catalog's projection model, fitted at build time by
 * catalog_gen (src/core/model/projection_builtin.c), is the model a run-time
 * rs_proj_fit (with the leave-one-out errors) gives on the same catalog:
 * rows, devices, scales, errors and pairs, byte for byte; and another
 * catalog is still fitted at run time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "projection.h"
#include "test_support.h"

static void test_compiled_equals_fit(void **state) {
  rs_catalog *cat;
  rs_proj_model fitted, compiled, a, b;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_catalog_default(&cat, *state, &err), RS_OK);
  assert_int_equal(rs_proj_fit(&fitted, *state, cat, true), RS_OK);
  assert_int_equal(rs_proj_fit_catalog(&compiled, *state, cat), RS_OK);
  assert_ptr_equal(compiled.cat, cat);
  assert_int_equal(compiled.nrows, fitted.nrows);
  assert_int_equal(compiled.ndevices, fitted.ndevices);
  assert_int_equal(compiled.ngroups, fitted.ngroups);
  assert_int_equal(compiled.npairs, fitted.npairs);
  assert_true(compiled.nrows == 45 && compiled.npairs > 0);
  /* rows and devices point into the run's own catalog, as a fit's do */
  assert_memory_equal(compiled.rows, fitted.rows, fitted.nrows * sizeof(*fitted.rows));
  assert_memory_equal(compiled.devices, fitted.devices, fitted.ndevices * sizeof(*fitted.devices));
  assert_memory_equal(compiled.group_scale, fitted.group_scale,
                      fitted.ngroups * sizeof(*fitted.group_scale));
  for (size_t i = 0; i < fitted.npairs; i++) {
    const rs_proj_pair *p = &compiled.pairs[i], *q = &fitted.pairs[i];
    assert_int_equal(p->a, q->a);
    assert_int_equal(p->b, q->b);
    assert_memory_equal(&p->published, &q->published, sizeof(double));
    assert_memory_equal(&p->projected, &q->projected, sizeof(double));
    assert_int_equal(p->path, q->path);
  }
  /* the rest of the model (intensities, precisions, the leave-one-out
   * errors): bytes, once the arrays and the fit's scratch are set aside */
  memcpy(&a, &compiled, sizeof(a));
  memcpy(&b, &fitted, sizeof(b));
  a.rows = b.rows = NULL;
  a.devices = b.devices = NULL;
  a.group_scale = b.group_scale = NULL;
  a.pairs = b.pairs = NULL;
  a.bench_log_i = b.bench_log_i = NULL;
  assert_memory_equal(a.log_intensity, b.log_intensity, sizeof(a.log_intensity));
  assert_memory_equal(a.precision, b.precision, sizeof(a.precision));
  assert_memory_equal(a.fitted, b.fitted, sizeof(a.fitted));
  assert_memory_equal(&a.prior_log_eff, &b.prior_log_eff, sizeof(double));
  assert_memory_equal(a.loo, b.loo, sizeof(a.loo));
  assert_memory_equal(a.chain, b.chain, sizeof(a.chain));
}

/* A catalog read from a file (even the same bytes) is fitted at run time. */
static void test_other_catalog_is_fitted(void **state) {
  rs_catalog *cat;
  rs_proj_model m, fitted;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(
      rs_catalog_load(&cat, *state, RS_SOURCE_DIR "/catalogs/rightsize-2026.12.0.yaml", &err),
      RS_OK);
  assert_int_equal(rs_proj_fit_catalog(&m, *state, cat), RS_OK);
  assert_int_equal(rs_proj_fit(&fitted, *state, cat, true), RS_OK);
  assert_non_null(m.bench_log_i); /* only a run-time fit keeps its scratch */
  assert_int_equal(m.npairs, fitted.npairs);
  assert_memory_equal(m.loo, fitted.loo, sizeof(m.loo));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_compiled_equals_fit, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_other_catalog_is_fitted, setup_arena, teardown_arena),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
