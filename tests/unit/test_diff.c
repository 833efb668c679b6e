/* rs_diff_compute and the gate (diff.h): rows by name, added and removed
 * endpoints, deltas and percentages, the largest rise. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "rightsize/diff.h"

static rs_diff_endpoint ep(const char *name, const char *shape, unsigned replicas, double month,
                           double per_million, double latency) {
  rs_diff_endpoint e;
  memset(&e, 0, sizeof(e));
  e.endpoint = name;
  e.s =
      (rs_diff_side){true, "aws", shape, replicas, month, per_million, latency, "latency", "move"};
  return e;
}

static void compute(rs_diff *d, rs_arena *arena, rs_diff_doc *a, rs_diff_doc *b) {
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_diff_compute(d, arena, a, b, &err), RS_OK);
}

static void test_rows_and_totals(void **state) {
  (void)state;
  rs_arena arena;
  rs_arena_init(&arena, 0);
  rs_diff_endpoint o[] = {ep("b", "g6.xlarge", 1, 500, 20, 40),
                          ep("a", "g5.xlarge", 1, 700, 30, 30),
                          ep("gone", "c7g.large", 2, 100, 5, 10)};
  rs_diff_endpoint n[] = {ep("a", "g5.xlarge", 1, 700, 30, 30),
                          ep("b", "g6.xlarge", 2, 1000, 40, 20),
                          ep("new", "inf2.xlarge", 1, 550, NAN, NAN)};
  rs_diff_doc da = {"old.json", "recommendation", o, 3}, db = {"new.json", "audit", n, 3};
  rs_diff d;
  compute(&d, &arena, &da, &db);
  assert_int_equal(d.nrows, 4);
  const char *order[] = {"a", "b", "gone", "new"};
  for (size_t i = 0; i < 4; i++)
    assert_string_equal(d.rows[i].endpoint, order[i]);
  assert_false(d.rows[0].changed); /* the same figures */
  assert_true(d.rows[1].changed);
  assert_true(d.rows[1].month_delta == 500 && d.rows[1].month_pct == 100);
  assert_true(d.rows[1].per_million_pct == 100 && d.rows[1].latency_delta_ms == -20);
  assert_true(d.rows[2].old.present && !d.rows[2].new_.present && d.rows[2].changed);
  assert_true(!d.rows[3].old.present && d.rows[3].new_.present && isnan(d.rows[3].month_pct));
  assert_int_equal(d.changed, 3);
  assert_true(d.old_month == 1300 && d.new_month == 2250);
  assert_true(fabs(d.month_pct - 950.0 / 1300.0 * 100.0) < 1e-9);
  /* b's cost per million doubled: above the total's 73% */
  assert_true(d.worst_pct == 100);
  assert_string_equal(d.worst_what, "b $ per 1M requests");
  assert_true(rs_diff_exceeds(&d, 99.9));
  assert_false(rs_diff_exceeds(&d, 100));
  assert_false(rs_diff_exceeds(&d, NAN)); /* no gate */
  rs_arena_release(&arena);
}

/* A cheaper change never trips the gate; nothing comparable never does. */
static void test_gate_on_drop_and_nothing(void **state) {
  (void)state;
  rs_arena arena;
  rs_arena_init(&arena, 0);
  rs_diff_endpoint o[] = {ep("a", "g5.xlarge", 2, 1000, 40, 30)};
  rs_diff_endpoint n[] = {ep("a", "g5.xlarge", 1, 500, 20, 45)};
  rs_diff_doc da = {"old.json", "profile", o, 1}, db = {"new.json", "profile", n, 1};
  rs_diff d;
  compute(&d, &arena, &da, &db);
  assert_true(d.month_pct == -50);
  assert_false(rs_diff_exceeds(&d, 0));
  rs_diff_doc empty = {"e.json", "audit", NULL, 0};
  compute(&d, &arena, &empty, &empty);
  assert_int_equal(d.nrows, 0);
  assert_true(isnan(d.worst_pct));
  assert_false(rs_diff_exceeds(&d, 0));
  rs_arena_release(&arena);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rows_and_totals),
      cmocka_unit_test(test_gate_on_drop_and_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
