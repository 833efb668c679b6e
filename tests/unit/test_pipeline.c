/* The pipeline steps every command calls: opening and pricing a catalog,
 * summarizing a profile or sample files, fitting, and check's verdict
 * computed once in core (counts and pass over every profile). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "rightsize/pipeline.h"
#include "test_support.h"

#define FIXTURE RS_TEST_DATA "/catalog/fixture.yaml"
#define RESNET RS_SOURCE_DIR "/profiles/resnet50-p3.8xlarge.yaml"
#define DISTILBERT RS_SOURCE_DIR "/profiles/distilbert-intent-g4dn.yaml"

static rs_pipeline open_fixture(rs_arena *arena, rs_price_basis basis, const char *overlay) {
  rs_pipeline_options po;
  rs_pipeline p;
  rs_error err;
  rs_error_clear(&err);
  rs_pipeline_options_init(&po);
  po.catalog = FIXTURE;
  po.basis = basis;
  po.overlay = overlay;
  assert_int_equal(rs_pipeline_open(&p, arena, &po, &err), RS_OK);
  return p;
}

static void test_options_init(void **state) {
  rs_pipeline_options po;
  rs_fit_options fit;
  (void)state;
  rs_pipeline_options_init(&po);
  rs_fit_options_init(&fit);
  assert_null(po.catalog);
  assert_null(po.overlay);
  assert_int_equal(po.basis, RS_BASIS_ONDEMAND);
  assert_true(po.fit.headroom == fit.headroom);
  assert_true(po.fit.max_util == fit.max_util);
  assert_int_equal(po.fit.max_replicas, fit.max_replicas);
}

/* The catalog asked for, priced under the basis, the overlay on top. */
static void test_open(void **state) {
  rs_pipeline p = open_fixture(*state, RS_BASIS_ONDEMAND, NULL);
  assert_string_equal(p.catalog->version, "fixture-1");
  assert_int_equal(p.catalog->ninstances, 16);
  assert_null(p.overlay);
  const rs_instance *t4 = rs_catalog_find(p.catalog, "g4dn.xlarge");
  assert_non_null(t4);
  assert_true(t4->price_usd_per_hour == 0.526);

  rs_pipeline spot = open_fixture(*state, RS_BASIS_SPOT, NULL);
  assert_int_equal(spot.basis, RS_BASIS_SPOT);
  assert_true(rs_catalog_find(spot.catalog, "g4dn.xlarge")->price_usd_per_hour == 0.1872);

  rs_pipeline acme = open_fixture(*state, RS_BASIS_ONDEMAND, RS_TEST_DATA "/pricing/acme.yaml");
  assert_non_null(acme.overlay);
  assert_true(rs_catalog_find(acme.catalog, "g4dn.xlarge")->price_usd_per_hour < 0.526);
}

static void test_open_errors(void **state) {
  rs_pipeline_options po;
  rs_pipeline p;
  rs_error err;
  rs_pipeline_options_init(&po);
  rs_error_clear(&err);
  po.catalog = RS_TEST_DATA "/catalog/nope.yaml";
  assert_int_equal(rs_pipeline_open(&p, *state, &po, &err), RS_IO);
  rs_error_clear(&err);
  po.catalog = FIXTURE;
  po.basis = RS_BASIS_RESERVED; /* no overlay says what reserved means */
  assert_int_equal(rs_pipeline_open(&p, *state, &po, &err), RS_USAGE);
  rs_error_clear(&err);
  po.basis = RS_BASIS_ONDEMAND;
  po.overlay = RS_TEST_DATA "/pricing/bad-discount.yaml";
  assert_int_equal(rs_pipeline_open(&p, *state, &po, &err), RS_INVALID);
  assert_non_null(strstr(err.path, "bad-discount.yaml"));
}

/* One profile, or sample files only; never a mix. */
static void test_summarize(void **state) {
  rs_summary *sum;
  rs_error err;
  const char *profile[] = {RESNET};
  const char *samples[] = {RS_TEST_DATA "/summary/two-gpus.csv"};
  const char *mixed[] = {RS_TEST_DATA "/summary/two-gpus.csv", RESNET};
  rs_error_clear(&err);
  assert_int_equal(rs_pipeline_summarize(&sum, *state, profile, 1, NULL, &err), RS_OK);
  assert_non_null(sum->profile);
  assert_string_equal(sum->name, "resnet50-classifier");
  assert_int_equal(rs_pipeline_summarize(&sum, *state, samples, 1, NULL, &err), RS_OK);
  assert_null(sum->profile);
  assert_int_equal(sum->ninputs, 1);
  assert_int_equal(rs_pipeline_summarize(&sum, *state, mixed, 2, NULL, &err), RS_USAGE);
  assert_null(sum);
  assert_non_null(strstr(err.msg, "looks like a profile"));
}

/* Load, summarize and fit in one call; the result carries the money. */
static void test_fit(void **state) {
  rs_pipeline p = open_fixture(*state, RS_BASIS_ONDEMAND, NULL);
  rs_fit_result *r;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_pipeline_fit(&r, *state, &p, RESNET, &err), RS_OK);
  assert_ptr_equal(r->catalog, p.catalog);
  assert_true(r->nfitting > 0);
  assert_true(r->fitting[0].usd_per_month < r->current.usd_per_month);
  /* p3.8xlarge x1 at 12.24 $/h: the current $/month the writers print */
  assert_true(fabs(r->current.usd_per_month - 12.24 * RS_FIT_HOURS_PER_MONTH) < 1e-9);
  assert_true(r->fitting[0].savings_month ==
              r->current.usd_per_month - r->fitting[0].usd_per_month);

  rs_error_clear(&err);
  assert_int_equal(rs_pipeline_fit(&r, *state, &p, RS_TEST_DATA "/profiles/nope.yaml", &err),
                   RS_IO);
  assert_null(r);
}

/* The time series is made only for a run that draws charts
 * (rs_pipeline.charts); the rest of the summary and the fit are the same. */
static void test_fit_charts(void **state) {
  rs_pipeline p = open_fixture(*state, RS_BASIS_ONDEMAND, NULL);
  rs_fit_result *plain, *charted;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_pipeline_fit(&plain, *state, &p, RESNET, &err), RS_OK);
  p.charts = true;
  assert_int_equal(rs_pipeline_fit(&charted, *state, &p, RESNET, &err), RS_OK);
  const rs_endpoint_stats *a = &plain->summary->stats, *b = &charted->summary->stats;
  assert_int_equal(a->series.nbuckets, 0);
  assert_true(a->series.width_s == 0.0);
  assert_true(b->series.nbuckets > 0);
  assert_int_equal(b->series.ndevices, 4);
  assert_memory_equal(&a->coverage, &b->coverage, sizeof(a->coverage));
  assert_memory_equal(a->m, b->m, sizeof(a->m));
  assert_int_equal(plain->nfitting, charted->nfitting);
  assert_true(plain->fitting[0].usd_per_month == charted->fitting[0].usd_per_month);
  assert_ptr_equal(plain->fitting[0].inst, charted->fitting[0].inst);
}

static void test_fit_same_as_steps(void **state) {
  rs_pipeline p = open_fixture(*state, RS_BASIS_ONDEMAND, NULL);
  rs_profile *profile;
  rs_fit_result *a, *b;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_pipeline_fit(&a, *state, &p, DISTILBERT, &err), RS_OK);
  assert_int_equal(rs_profile_load(&profile, *state, DISTILBERT, &err), RS_OK);
  assert_int_equal(rs_pipeline_fit_profile(&b, *state, &p, profile, &err), RS_OK);
  assert_int_equal(a->nfitting, b->nfitting);
  for (size_t i = 0; i < a->nfitting; i++) {
    assert_ptr_equal(a->fitting[i].inst, b->fitting[i].inst);
    assert_true(a->fitting[i].usd_per_month == b->fitting[i].usd_per_month);
  }
}

static rs_policy_set overprovision(double pct) {
  rs_policy_set set;
  memset(&set, 0, sizeof(set));
  set.set[RS_POLICY_OVERPROVISION] = true;
  set.limit[RS_POLICY_OVERPROVISION] = pct;
  return set;
}

/* resnet50 on p3.8xlarge costs over 10x its best fit; distilbert on two
 * g4dn.xlarge 100% over one: a 150% limit fails the first only. */
static void test_check_verdict(void **state) {
  rs_pipeline p = open_fixture(*state, RS_BASIS_ONDEMAND, NULL);
  rs_policy_set set = overprovision(150);
  set.set[RS_POLICY_SLO] = true;
  set.limit[RS_POLICY_SLO] = 1;
  const char *paths[] = {RESNET, DISTILBERT};
  rs_check_request req = {&set, NULL, 0, paths, 2};
  rs_check_report *rep;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_pipeline_check(&rep, *state, &p, &req, &err), RS_OK);
  assert_int_equal(rep->nresults, 2);
  assert_ptr_equal(rep->catalog, p.catalog);
  assert_int_equal(rep->nchecks, 4);
  assert_false(rep->results[0].pass);
  assert_int_equal(rep->results[0].nfailed, 1);
  assert_false(rep->results[0].checks[0].pass); /* RS_POLICY_MAP order: overprovision first */
  assert_true(rep->results[0].checks[0].value > 1000); /* over 10x its best fit */
  assert_true(rep->results[1].pass);
  assert_int_equal(rep->results[1].nfailed, 0);
  assert_true(fabs(rep->results[1].overprovision_pct - 100.0) < 1e-9);
  assert_int_equal(rep->failed, 1);
  assert_int_equal(rep->failed_checks, 1);
  assert_false(rep->pass);
}

static void test_check_proposed(void **state) {
  rs_pipeline p = open_fixture(*state, RS_BASIS_ONDEMAND, NULL);
  rs_policy_set set = overprovision(50);
  const char *paths[] = {RESNET};
  rs_check_request req = {&set, "g4dn.xlarge", 0, paths, 1};
  rs_check_report *rep;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_pipeline_check(&rep, *state, &p, &req, &err), RS_OK);
  assert_true(rep->results[0].proposed);
  assert_string_equal(rep->results[0].evaluated->inst->name, "g4dn.xlarge");
  assert_int_equal(rep->results[0].evaluated->replicas, 1);
  assert_true(rep->pass);
  assert_null(p.fit.proposed); /* the pipeline passed in is not changed */
}

static void test_check_errors(void **state) {
  rs_pipeline p = open_fixture(*state, RS_BASIS_ONDEMAND, NULL);
  rs_policy_set none, set = overprovision(50);
  const char *paths[] = {RESNET};
  const char *samples[] = {RS_SOURCE_DIR "/profiles/resnet50-p3.8xlarge.csv"};
  rs_check_report *rep;
  rs_error err;
  memset(&none, 0, sizeof(none));
  rs_check_request req = {&none, NULL, 0, paths, 1};
  rs_error_clear(&err);
  assert_int_equal(rs_pipeline_check(&rep, *state, &p, &req, &err), RS_USAGE);
  assert_non_null(strstr(err.msg, "at least one policy"));
  req.policies = &set;
  req.instance = "p9.mega";
  rs_error_clear(&err);
  assert_int_equal(rs_pipeline_check(&rep, *state, &p, &req, &err), RS_USAGE);
  assert_non_null(strstr(err.msg, "'p9.mega' is not in catalog fixture-1"));
  req.instance = NULL;
  req.profiles = samples;
  rs_error_clear(&err);
  assert_int_equal(rs_pipeline_check(&rep, *state, &p, &req, &err), RS_USAGE);
  assert_non_null(strstr(err.msg, "is not a profile"));
  assert_null(rep);
}

/* The tally alone: counts over every profile and the verdict. */
static void test_tally(void **state) {
  rs_check_result r[3];
  rs_check_report rep;
  (void)state;
  memset(r, 0, sizeof(r));
  r[0].nchecks = 2;
  r[0].pass = true;
  r[1].nchecks = 3;
  r[1].nfailed = 2;
  r[2].nchecks = 1;
  r[2].pass = true;
  rs_check_report_tally(&rep, r, 3, NULL, RS_BASIS_SPOT, NULL);
  assert_int_equal(rep.nresults, 3);
  assert_int_equal(rep.nchecks, 6);
  assert_int_equal(rep.failed_checks, 2);
  assert_int_equal(rep.failed, 1);
  assert_false(rep.pass);
  assert_int_equal(rep.basis, RS_BASIS_SPOT);
  rs_check_report_tally(&rep, r, 1, NULL, RS_BASIS_ONDEMAND, NULL);
  assert_true(rep.pass);
  assert_int_equal(rep.failed, 0);
  rs_check_report_tally(&rep, r, 0, NULL, RS_BASIS_ONDEMAND, NULL);
  assert_true(rep.pass);
  assert_int_equal(rep.nchecks, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_options_init),
      cmocka_unit_test_setup_teardown(test_open, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_open_errors, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_summarize, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_fit, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_fit_charts, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_fit_same_as_steps, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_check_verdict, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_check_proposed, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_check_errors, setup_arena, teardown_arena),
      cmocka_unit_test(test_tally),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
