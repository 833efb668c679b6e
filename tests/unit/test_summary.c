#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "rightsize/buf.h"
#include "rightsize/doc.h"
#include "rightsize/profile.h"
#include "rightsize/report_summary.h"
#include "rightsize/summary.h"
#include "test_support.h"

#define DATA RS_TEST_DATA "/summary/"

static bool has_warning(const rs_summary *sum, rs_warning_code code) {
  for (size_t i = 0; i < sum->nwarnings; i++)
    if (sum->warnings[i].code == code)
      return true;
  return false;
}

static void test_files_stats_and_warnings(void **state) {
  rs_summary *sum;
  rs_error err;
  const char *paths[] = {DATA "two-gpus.csv"};
  rs_error_clear(&err);
  assert_int_equal(rs_summary_from_files(&sum, *state, paths, 1, NULL, &err), RS_OK);
  assert_int_equal(sum->ninputs, 1);
  assert_int_equal(sum->inputs[0].rows, 18);
  assert_int_equal(sum->inputs[0].format, RS_FORMAT_NATIVE);
  assert_int_equal(sum->stats.ndevices, 2);
  assert_int_equal(sum->stats.m[RS_METRIC_REQUEST_RATE].count, 9);
  assert_int_equal(sum->stats.busiest_device, 0);
  assert_true(has_warning(sum, RS_WARNING_FEW_SAMPLES));
  assert_true(has_warning(sum, RS_WARNING_SHORT_HISTORY));
  assert_true(has_warning(sum, RS_WARNING_IDLE_DEVICES));
  assert_true(has_warning(sum, RS_WARNING_SPIKY_TRAFFIC));
  assert_true(has_warning(sum, RS_WARNING_GAPS));
  assert_false(has_warning(sum, RS_WARNING_LOADTEST_DATA));
  assert_false(has_warning(sum, RS_WARNING_NO_TRAFFIC));
  assert_null(sum->profile);
}

static void test_profile_reads_files_and_inline_rows(void **state) {
  rs_profile *p;
  rs_summary *sum;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_profile_load(&p, *state, DATA "loadtest.yaml", &err), RS_OK);
  assert_int_equal(rs_summary_from_profile(&sum, *state, p, NULL, &err), RS_OK);
  assert_string_equal(sum->name, "summary-test");
  assert_int_equal(sum->inline_rows, 1);
  assert_int_equal(sum->stats.devices[0].m[RS_METRIC_GPU_UTIL].count, 10);
  assert_true(fabs(sum->stats.devices[0].m[RS_METRIC_GPU_UTIL].max - 50.0) < 1e-9);
  assert_true(fabs(sum->stats.m[RS_METRIC_GPU_MEM_USED].max - 2048.0 * 1048576.0) < 1.0);
  assert_true(has_warning(sum, RS_WARNING_LOADTEST_DATA));
}

static void test_bad_sample_file_passes_error_up(void **state) {
  rs_summary *sum = (rs_summary *)1;
  rs_error err;
  const char *paths[] = {DATA "two-gpus.csv", DATA "does-not-exist.csv"};
  rs_error_clear(&err);
  assert_int_equal(rs_summary_from_files(&sum, *state, paths, 2, NULL, &err), RS_IO);
  assert_null(sum);
  assert_non_null(strstr(err.path, "does-not-exist.csv"));
}

static void test_json_report_parses_strictly(void **state) {
  rs_summary *sum;
  rs_error err;
  rs_buf out;
  rs_doc doc;
  const char *paths[] = {DATA "two-gpus.csv"};
  rs_error_clear(&err);
  assert_int_equal(rs_summary_from_files(&sum, *state, paths, 1, NULL, &err), RS_OK);
  rs_buf_init(&out, 0);
  assert_int_equal(rs_report_summary_json(&out, sum), RS_OK);
  /* Our own JSON door checks it strictly (cJSON) and gives us the tree. */
  assert_int_equal(rs_doc_parse(&doc, *state, "out.json", out.data, out.len, true, &err), RS_OK);
  const rs_node *schema = rs_node_get(doc.root, "schema");
  assert_non_null(schema);
  assert_string_equal(schema->text, RS_SUMMARY_JSON_SCHEMA);
  const rs_node *metrics = rs_node_get(doc.root, "metrics");
  const rs_node *rate = rs_node_get(metrics, "request_rate");
  assert_string_equal(rs_node_get(rate, "count")->text, "9");
  assert_string_equal(rs_node_get(rate, "max")->text, "100");
  assert_int_equal(rs_node_get(doc.root, "devices")->n, 2);
  assert_true(rs_node_get(doc.root, "warnings")->n >= 5);
  rs_buf_release(&out);
}

static void test_table_report_is_deterministic(void **state) {
  rs_summary *a, *b;
  rs_error err;
  rs_buf x, y;
  const char *paths[] = {DATA "two-gpus.csv"};
  rs_error_clear(&err);
  assert_int_equal(rs_summary_from_files(&a, *state, paths, 1, NULL, &err), RS_OK);
  assert_int_equal(rs_summary_from_files(&b, *state, paths, 1, NULL, &err), RS_OK);
  rs_buf_init(&x, 0);
  rs_buf_init(&y, 0);
  assert_int_equal(rs_report_summary_table(&x, a), RS_OK);
  assert_int_equal(rs_report_summary_table(&y, b), RS_OK);
  assert_int_equal(x.len, y.len);
  assert_memory_equal(x.data, y.data, x.len);
  assert_non_null(strstr(x.data, "request_rate     req/s          9"));
  assert_non_null(strstr(x.data, "idle-devices"));
  rs_buf_release(&x);
  rs_buf_release(&y);
}

/* Every warning code has a name, and the name reads back as the code. */
static void test_warning_vocabulary(void **state) {
  rs_warning_code c;
  (void)state;
  for (int k = 0; k < RS_WARNING_COUNT; k++) {
    const char *name = rs_warning_code_name((rs_warning_code)k);
    assert_string_not_equal(name, "unknown");
    assert_int_equal(rs_warning_code_from_name(&c, name), RS_OK);
    assert_int_equal(c, k);
  }
  assert_string_equal(rs_warning_code_name(RS_WARNING_SHORT_HISTORY), "short-history");
  assert_string_equal(rs_warning_code_name(RS_WARNING_CURRENT_FAILS_SLO), "current-fails-slo");
  assert_string_equal(rs_warning_code_name(RS_WARNING_COUNT), "unknown");
  assert_int_equal(rs_warning_code_from_name(&c, "short history"), RS_USAGE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_warning_vocabulary),
      cmocka_unit_test_setup_teardown(test_files_stats_and_warnings, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_profile_reads_files_and_inline_rows, setup_arena,
                                      teardown_arena),
      cmocka_unit_test_setup_teardown(test_bad_sample_file_passes_error_up, setup_arena,
                                      teardown_arena),
      cmocka_unit_test_setup_teardown(test_json_report_parses_strictly, setup_arena,
                                      teardown_arena),
      cmocka_unit_test_setup_teardown(test_table_report_is_deterministic, setup_arena,
                                      teardown_arena),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
