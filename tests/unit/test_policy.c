/* Policy files and their evaluation on the canonical profile. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rightsize/catalog.h"
#include "rightsize/fit.h"
#include "rightsize/policy.h"
#include "rightsize/pricing.h"
#include "rightsize/profile.h"
#include "rightsize/summary.h"
#include "test_fit_support.h"
#include "test_support.h"

#define POLICY(name) RS_TEST_DATA "/policy/" name

static void test_load(void **state) {
  rs_policy_set set;
  rs_error err;
  memset(&set, 0, sizeof(set));
  rs_error_clear(&err);
  assert_int_equal(rs_policy_load(&set, *state, POLICY("strict.yaml"), &err), RS_OK);
  for (int k = 0; k < RS_POLICY_COUNT; k++)
    assert_true(set.set[k]);
  assert_true(set.limit[RS_POLICY_COST_PER_MILLION] == 25);
  assert_true(set.limit[RS_POLICY_OVERPROVISION] == 50);
  assert_true(set.limit[RS_POLICY_CONFIDENCE] == RS_CONF_MEDIUM);
  memset(&set, 0, sizeof(set));
  assert_int_equal(rs_policy_load(&set, *state, POLICY("generous.json"), &err), RS_OK);
  assert_true(set.set[RS_POLICY_OVERPROVISION] && set.set[RS_POLICY_SLO]);
  assert_false(set.set[RS_POLICY_MONTHLY]);
}

static void test_load_errors(void **state) {
  static const struct {
    const char *file;
    size_t line, col;
    const char *msg;
  } cases[] = {
      {"bad-key.yaml", 2, 1, "unknown key 'max_overprovision'"},
      {"bad-value.yaml", 2, 17, "expected low, medium or high, got 'certain'"},
      {"bad-negative.yaml", 2, 18, "expected a number >= 0, got '-5'"},
      {"bad-schema.yaml", 1, 1, "expected 'schema: 1'"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    rs_policy_set set;
    rs_error err;
    char path[512];
    memset(&set, 0, sizeof(set));
    rs_error_clear(&err);
    snprintf(path, sizeof(path), RS_TEST_DATA "/policy/%s", cases[i].file);
    assert_int_equal(rs_policy_load(&set, *state, path, &err), RS_INVALID);
    assert_int_equal(err.line, cases[i].line);
    assert_int_equal(err.col, cases[i].col);
    if (strstr(err.msg, cases[i].msg) == NULL)
      fail_msg("%s: '%s' lacks '%s'", cases[i].file, err.msg, cases[i].msg);
  }
}

static rs_fit_result *canonical(rs_arena *arena, const rs_fit_options *o) {
  return fit_shipped(arena, "profiles/resnet50-p3.8xlarge.yaml", o);
}

static rs_check_result check(rs_arena *arena, const rs_fit_result *fit, rs_policy_kind k,
                             double limit) {
  rs_policy_set set;
  rs_check_result res;
  rs_error err;
  memset(&set, 0, sizeof(set));
  set.set[k] = true;
  set.limit[k] = limit;
  rs_error_clear(&err);
  assert_int_equal(rs_policy_evaluate(&res, arena, &set, fit, &err), RS_OK);
  assert_int_equal(res.nchecks, 1);
  assert_int_equal(res.checks[0].kind, k);
  assert_true(res.pass == res.checks[0].pass);
  return res;
}

/* The over-provisioned canonical deployment fails a 50 % policy and passes a
 * generous one; the numbers behind it are the fit's. */
static void test_canonical(void **state) {
  rs_arena *arena = *state;
  rs_fit_options o;
  rs_fit_options_init(&o);
  rs_fit_result *fit = canonical(arena, &o);
  double best = fit->fitting[0].usd_per_month, now = fit->current.usd_per_month;
  rs_check_result r = check(arena, fit, RS_POLICY_OVERPROVISION, 50);
  assert_false(r.pass);
  assert_true(fabs(r.overprovision_pct - (now / best - 1) * 100) < 1e-9);
  assert_true(r.overprovision_pct > 1000);
  assert_true(check(arena, fit, RS_POLICY_OVERPROVISION, 5000).pass);
  assert_true(check(arena, fit, RS_POLICY_SLO, 1).pass);
  assert_false(check(arena, fit, RS_POLICY_MONTHLY, 1000).pass);
  assert_true(check(arena, fit, RS_POLICY_MONTHLY, 9000).pass);
  r = check(arena, fit, RS_POLICY_COST_PER_MILLION, 25);
  assert_false(r.pass);
  assert_true(fabs(r.checks[0].value - fit->current.usd_per_million) < 1e-12);
  assert_true(check(arena, fit, RS_POLICY_HEADROOM, 20).pass);
  assert_false(check(arena, fit, RS_POLICY_HEADROOM, 90).pass);
  assert_true(check(arena, fit, RS_POLICY_CONFIDENCE, RS_CONF_MEDIUM).pass);
  assert_false(check(arena, fit, RS_POLICY_CONFIDENCE, RS_CONF_HIGH).pass);
  /* the canonical verdict is idle-devices: fail on it, pass on others */
  unsigned mask;
  assert_int_equal(rs_policy_verdicts_parse(&mask, "idle-devices,idle"), RS_OK);
  r = check(arena, fit, RS_POLICY_VERDICT, (double)mask);
  assert_false(r.pass);
  assert_int_equal((int)r.checks[0].value, RS_VERDICT_IDLE_DEVICES);
  assert_int_equal(rs_policy_verdicts_parse(&mask, "underused,no-traffic"), RS_OK);
  assert_true(check(arena, fit, RS_POLICY_VERDICT, (double)mask).pass);
}

/* A proposed deployment is evaluated instead of the current one. */
static void test_proposed(void **state) {
  rs_arena *arena = *state;
  rs_fit_options o;
  rs_fit_options_init(&o);
  rs_fit_result *fit = canonical(arena, &o);
  o.proposed = rs_catalog_find(fit->catalog, "g6.xlarge");
  o.proposed_replicas = 1;
  fit = canonical(arena, &o);
  assert_non_null(fit->proposed);
  rs_check_result r = check(arena, fit, RS_POLICY_OVERPROVISION, 50);
  assert_true(r.pass && r.proposed);
  assert_string_equal(r.evaluated->inst->name, "g6.xlarge");
  assert_true(check(arena, fit, RS_POLICY_SLO, 1).pass);
  /* far more traffic than one T4 carries */
  o.peak_set = true;
  o.peak = RS_PEAK_RPS;
  o.peak_rps = 400;
  fit = canonical(arena, &o);
  r = check(arena, fit, RS_POLICY_SLO, 1);
  assert_false(r.pass);
  assert_non_null(strstr(r.checks[0].text, "utilization"));
}

static void test_names(void **state) {
  (void)state;
  rs_confidence c;
  assert_string_equal(rs_policy_key(RS_POLICY_OVERPROVISION), "max_overprovision_pct");
  assert_string_equal(rs_policy_flag(RS_POLICY_OVERPROVISION), "max-overprovision");
  assert_int_equal(rs_confidence_from_name(&c, "high"), RS_OK);
  assert_int_equal(c, RS_CONF_HIGH);
  assert_int_equal(rs_confidence_from_name(&c, "sure"), RS_USAGE);
  for (int k = 0; k < RS_CONF_COUNT; k++) { /* both directions of one list */
    assert_int_equal(rs_confidence_from_name(&c, rs_confidence_name((rs_confidence)k)), RS_OK);
    assert_int_equal(c, k);
  }
  assert_string_equal(rs_confidence_name(RS_CONF_COUNT), "unknown");
  unsigned mask;
  assert_int_equal(rs_policy_verdicts_parse(&mask, "idle,no-traffic"), RS_OK);
  assert_int_equal(mask, (1u << RS_VERDICT_IDLE) | (1u << RS_VERDICT_NO_TRAFFIC));
  assert_int_equal(rs_policy_verdicts_parse(&mask, "idle,"), RS_USAGE);
  assert_int_equal(rs_policy_verdicts_parse(&mask, ""), RS_USAGE);
  assert_int_equal(rs_policy_verdicts_parse(&mask, "keep"), RS_USAGE);
  assert_string_equal(rs_policy_key(RS_POLICY_VERDICT), "fail_verdicts");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_load, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_load_errors, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_canonical, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_proposed, setup_arena, teardown_arena),
      cmocka_unit_test(test_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
