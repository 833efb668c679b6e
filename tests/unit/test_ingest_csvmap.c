/* Any CSV through a mapping's csv section (ingest_csvmap.c, ingest_mapping.c):
 * long and wide formats, units, the files: entries, selections, splitting by
 * endpoint, and every bad mapping or header one positioned error. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "rightsize/arena.h"
#include "rightsize/ingest.h"

#define MAP_PATH "/tmp/rs_test_csvmap.yaml"

typedef struct rows {
  rs_sample s[16];
  size_t n;
} rows;

static rs_status keep(void *ctx, const rs_sample *s, rs_error *err) {
  rows *r = ctx;
  (void)err;
  if (r->n < 16)
    r->s[r->n] = *s;
  r->n++;
  return RS_OK;
}

static rs_status load_map(rs_series_map *map, rs_arena *arena, const char *yaml, rs_error *err) {
  FILE *f = fopen(MAP_PATH, "w");
  assert_non_null(f);
  fputs(yaml, f);
  fclose(f);
  rs_error_clear(err);
  return rs_series_map_load(map, arena, MAP_PATH, err);
}

static rs_status ingest(rows *r, const rs_series_map *map, const rs_selection *sel,
                        const char *name, const char *csv, rs_error *err) {
  rs_ingest_options io = {.format = RS_FORMAT_AUTO, .map = map, .select = sel};
  memset(r, 0, sizeof(*r));
  rs_error_clear(err);
  return rs_ingest_memory(name, csv, strlen(csv), &io, keep, r, NULL, err);
}

static const char *const long_csv = "value,ts,pod,kind\n"
                                    "0.25,1796047260,a,x\n"
                                    "0.5,1796047200,a,x\n"
                                    "0.75,1796047200,b,x\n"
                                    "1,1796047200,a,y\n";

static void test_long_file_metric(void **state) {
  rs_arena arena;
  rs_series_map map;
  rs_selection sel = {0};
  rs_error err;
  rows r;
  (void)state;
  rs_arena_init(&arena, 0);
  assert_int_equal(load_map(&map, &arena,
                            "csv: {time: ts, value: value, endpoint: pod}\n"
                            "files:\n  util.csv: {metric: gpu_util, unit: ratio}\n",
                            &err),
                   RS_OK);
  assert_int_equal(rs_selection_add(&sel, "pod=a"), RS_OK);
  assert_int_equal(rs_selection_add(&sel, "kind=x"), RS_OK);
  assert_int_equal(ingest(&r, &map, &sel, "dir/util.csv", long_csv, &err), RS_OK);
  assert_int_equal(r.n, 2); /* sorted by time, ratio -> percent */
  assert_true(r.s[0].t == 1796047200 && r.s[0].v[RS_METRIC_GPU_UTIL] == 50.0);
  assert_true(r.s[1].t == 1796047260 && r.s[1].v[RS_METRIC_GPU_UTIL] == 25.0);
  /* without the pod selection: two endpoints, named in the error */
  rs_selection only_x = {0};
  assert_int_equal(rs_selection_add(&only_x, "kind=x"), RS_OK);
  assert_int_equal(ingest(&r, &map, &only_x, "util.csv", long_csv, &err), RS_INVALID);
  assert_non_null(strstr(err.msg, "the file holds 2 endpoints (column 'pod'"));
  /* a file the mapping does not name */
  assert_int_equal(ingest(&r, &map, &sel, "other.csv", long_csv, &err), RS_INVALID);
  assert_non_null(strstr(err.msg, "not named under files:"));
  rs_arena_release(&arena);
}

static void test_wide_units(void **state) {
  rs_arena arena;
  rs_series_map map;
  rs_error err;
  rows r;
  (void)state;
  rs_arena_init(&arena, 0);
  assert_int_equal(load_map(&map, &arena,
                            "csv:\n  time: t\n  time_unit: ms\n  device: dev\n  columns:\n"
                            "    mem: {metric: gpu_mem_used, unit: MiB}\n"
                            "    lat: {metric: latency_p99, unit: us}\n"
                            "    rpm: {metric: request_rate, unit: per_min}\n"
                            "    junk: ignore\n",
                            &err),
                   RS_OK);
  assert_int_equal(ingest(&r, &map, NULL, "w.csv",
                          "t,dev,mem,lat,rpm,junk,other\n1796047200000,1,2,1500,120,zz,q\n", &err),
                   RS_OK);
  assert_int_equal(r.n, 1);
  assert_int_equal(r.s[0].gpu, 1);
  assert_true(r.s[0].t == 1796047200.0);
  assert_true(r.s[0].v[RS_METRIC_GPU_MEM_USED] == 2.0 * 1048576);
  assert_true(r.s[0].v[RS_METRIC_LATENCY_P99] == 1.5);
  assert_true(r.s[0].v[RS_METRIC_REQUEST_RATE] == 2.0);
  /* a mapped column missing from the header: named with the mapping */
  assert_int_equal(ingest(&r, &map, NULL, "w.csv", "t,dev,mem,lat\n1,0,1,1\n", &err), RS_INVALID);
  assert_non_null(strstr(err.msg, "column 'rpm' (csv.columns in mapping"));
  assert_int_equal(err.line, 1);
  rs_arena_release(&arena);
}

static void test_metric_column_and_split(void **state) {
  rs_arena arena;
  rs_series_map map;
  rs_error err;
  rs_endpoint_rows *eps = NULL;
  size_t n = 0;
  const char *csv = "/tmp/rs_test_csvmap.csv";
  (void)state;
  rs_arena_init(&arena, 0);
  assert_int_equal(load_map(&map, &arena,
                            "csv: {time: ts, value: v, metric_column: name, endpoint: host}\n"
                            "series: {u: {metric: gpu_util}}\n",
                            &err),
                   RS_OK);
  FILE *f = fopen(csv, "w");
  assert_non_null(f);
  fputs(
      "ts,v,name,host\n60,5,u,zeta\n60,7,DCGM_FI_DEV_GPU_UTIL,alpha\n0,9,u,zeta\n60,1,clock,zeta\n",
      f);
  fclose(f);
  rs_ingest_options io = {.format = RS_FORMAT_AUTO, .map = &map};
  assert_int_equal(rs_ingest_split(&eps, &n, &arena, &csv, 1, &io, &err), RS_OK);
  assert_int_equal(n, 2); /* sorted by name; the default DCGM rule applies too */
  assert_string_equal(eps[0].name, "alpha");
  assert_int_equal(eps[0].nrows, 1);
  assert_true(eps[0].rows[0].v[RS_METRIC_GPU_UTIL] == 7.0);
  assert_string_equal(eps[1].name, "zeta");
  assert_int_equal(eps[1].nrows, 2);
  assert_true(eps[1].rows[0].t == 0 && eps[1].rows[1].v[RS_METRIC_GPU_UTIL] == 5.0);
  remove(csv);
  rs_arena_release(&arena);
}

static void assert_bad_map(const char *yaml, size_t line, const char *text) {
  rs_arena arena;
  rs_series_map map;
  rs_error err;
  rs_arena_init(&arena, 0);
  assert_int_not_equal(load_map(&map, &arena, yaml, &err), RS_OK);
  if (strstr(err.msg, text) == NULL)
    fail_msg("message '%s' lacks '%s'", err.msg, text);
  assert_int_equal(err.line, line);
  rs_arena_release(&arena);
}

static void test_bad_mappings(void **state) {
  (void)state;
  assert_bad_map("csv:\n  time: t\n  columns: {m: {metric: gpu_mem_used, unit: MiBs}}\n", 3,
                 "unknown unit 'MiBs' for gpu_mem_used");
  assert_bad_map("csv:\n  time: t\n  columns: {m: {metric: gpu_util, unit: MiB}}\n", 3,
                 "expected percent (0..100) or ratio (0..1)");
  assert_bad_map("csv:\n  time: t\n  columns: {m: gpu_utl}\n", 3, "unknown metric 'gpu_utl'");
  assert_bad_map("csv:\n  value: v\n", 2, "missing key 'time'");
  assert_bad_map("csv:\n  time: t\n", 2, "expected 'value' (long format");
  assert_bad_map("csv:\n  time: t\n  time_unit: h\n  value: v\n  metric: gpu_util\n", 3,
                 "unknown unit 'h', expected s, ms, us or ns");
  assert_bad_map("csv:\n  time: t\n  value: v\n  colums: {}\n", 4, "colums");
  assert_bad_map("files: {a.csv: {metric: gpu_util}}\n", 1, "expected a 'csv' section");
}

static void test_selection_add(void **state) {
  rs_selection s = {0};
  char key[80];
  (void)state;
  assert_int_equal(rs_selection_add(&s, "a=b=c"), RS_OK);
  assert_string_equal(s.m[0].key, "a");
  assert_string_equal(s.m[0].value, "b=c");
  assert_int_equal(rs_selection_add(&s, "k="), RS_OK); /* an empty value is a value */
  assert_int_equal(rs_selection_add(&s, "=v"), RS_USAGE);
  assert_int_equal(rs_selection_add(&s, "novalue"), RS_USAGE);
  memset(key, 'k', sizeof(key));
  key[70] = '=';
  key[71] = '\0';
  assert_int_equal(rs_selection_add(&s, key), RS_USAGE);
  while (s.n < RS_SELECT_MAX)
    assert_int_equal(rs_selection_add(&s, "x=y"), RS_OK);
  assert_int_equal(rs_selection_add(&s, "x=y"), RS_LIMIT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_long_file_metric),        cmocka_unit_test(test_wide_units),
      cmocka_unit_test(test_metric_column_and_split), cmocka_unit_test(test_bad_mappings),
      cmocka_unit_test(test_selection_add),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  remove(MAP_PATH);
  return rc;
}
