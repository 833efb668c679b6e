/* The time parser's fast path (src/util/time_fast.h) against rs_time_parse:
 * every stamp it takes has the same value bit for bit, every stamp
 * rs_time_parse rejects it rejects too, and every fixed-layout stamp with
 * at most 15 fraction digits is taken, whatever the cached date. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rightsize/num.h"
#include "time_fast.h"

static uint64_t next(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

static unsigned below(uint64_t *x, unsigned n) { return (unsigned)(next(x) % n); }

/* Checks one stamp with a fresh date and with the running one: returns
 * whether the fast path took it. */
static bool check(const char *s, rs_time_day *running) {
  size_t n = strlen(s);
  double want = -1.0, fresh_t = -2.0, run_t = -3.0;
  rs_time_day fresh = {.valid = false};
  rs_status st = rs_time_parse(s, n, &want);
  bool a = rs_time_parse_fast_field(s, n, &fresh, &fresh_t);
  bool b = rs_time_parse_fast_field(s, n, running, &run_t);
  if (a != b)
    fail_msg("'%s': fresh date %d, cached date %d", s, a, b);
  if (a && st != RS_OK)
    fail_msg("'%s': the fast path took what rs_time_parse rejects (%d)", s, (int)st);
  if (a &&
      (memcmp(&fresh_t, &want, sizeof(double)) != 0 || memcmp(&run_t, &want, sizeof(double)) != 0))
    fail_msg("'%s': %.17g and %.17g, expected %.17g", s, fresh_t, run_t, want);
  return a;
}

/* Random stamps around every field's bounds: dates (leap days, month
 * ends, day 0, month 13, years out of range), times (hour 24, minute 60,
 * leap second 60 and 61), fractions of 0 to 18 digits, every zone form
 * and bad ones, both separators. */
static void test_generated_stamps(void **state) {
  (void)state;
  static const unsigned years[] = {1969, 1970, 1999, 2000, 2023, 2024, 2026, 2100, 2400, 9999};
  static const char *const tseps[] = {"T", "t", " ", "_"};
  uint64_t x = 0x9E3779B97F4A7C15ull;
  rs_time_day running = {.valid = false};
  size_t taken = 0, valid = 0;
  for (int i = 0; i < 200000; i++) {
    char s[96], frac[24] = "", zone[16] = "";
    bool slash = below(&x, 8) == 0;
    unsigned y = years[below(&x, sizeof(years) / sizeof(years[0]))];
    unsigned mo = below(&x, 16) == 0 ? below(&x, 14) : 1 + below(&x, 12);
    unsigned d = below(&x, 8) == 0 ? below(&x, 33) : 28 + below(&x, 4);
    if (below(&x, 2))
      d = 1 + below(&x, 28);
    unsigned h = below(&x, 16) == 0 ? 23 + below(&x, 3) : below(&x, 24);
    unsigned mi = below(&x, 16) == 0 ? 59 + below(&x, 2) : below(&x, 60);
    unsigned sec = below(&x, 16) == 0 ? 59 + below(&x, 3) : below(&x, 60);
    unsigned fd = below(&x, 3) == 0 ? below(&x, 19) : 0;
    if (fd > 0 || below(&x, 64) == 0) {
      size_t k = 0;
      frac[k++] = '.';
      for (unsigned j = 0; j < fd; j++)
        frac[k++] = (char)('0' + below(&x, 10));
      frac[k] = '\0';
    }
    switch (slash ? 0 : below(&x, 8)) {
    case 0: break;
    case 1:
    case 2: snprintf(zone, sizeof(zone), "Z"); break;
    case 3: snprintf(zone, sizeof(zone), "z"); break;
    case 4:
      snprintf(zone, sizeof(zone), "%c%02u:%02u", below(&x, 2) ? '+' : '-', below(&x, 26),
               below(&x, 61));
      break;
    case 5:
      snprintf(zone, sizeof(zone), "%c%02u%02u", below(&x, 2) ? '+' : '-', below(&x, 24),
               below(&x, 60));
      break;
    case 6: snprintf(zone, sizeof(zone), "%c%02u", below(&x, 2) ? '+' : '-', below(&x, 24)); break;
    default: snprintf(zone, sizeof(zone), "%s", below(&x, 2) ? "ZZ" : "+05:30x"); break;
    }
    const char *tsep = slash ? (below(&x, 4) ? " " : "T") : tseps[below(&x, 4)];
    snprintf(s, sizeof(s), "%04u%c%02u%c%02u%s%02u:%02u:%02u%s%s", y, slash ? '/' : '-', mo,
             slash ? '/' : '-', d, tsep, h, mi, sec, frac, zone);
    bool mutated = below(&x, 32) == 0;
    if (mutated) /* one byte changed */
      s[below(&x, (unsigned)strlen(s))] = "0a:-T .+"[below(&x, 8)];
    double t;
    bool ok = rs_time_parse(s, strlen(s), &t) == RS_OK;
    bool fast = check(s, &running);
    /* Complete on the fixed layout: whatever rs_time_parse reads with at
     * most 15 fraction digits, the fast path reads too. */
    if (ok && !mutated && fd <= RS_TIME_FAST_FRAC_DIGITS && !fast)
      fail_msg("'%s': valid, not taken by the fast path", s);
    valid += ok;
    taken += fast;
  }
  /* the generator exercises both sides */
  assert_true(valid > 50000);
  assert_true(taken > 50000);
  assert_true(valid - taken > 100);
}

/* Leap days, month ends and the range's edges, one by one. */
static void test_edges(void **state) {
  (void)state;
  static const struct {
    const char *s;
    bool ok;
  } cases[] = {
      {"2024-02-29T00:00:00Z", true},
      {"2023-02-29T00:00:00Z", false},
      {"2000-02-29T12:00:00Z", true},
      {"2100-02-29T12:00:00Z", false},
      {"2026-04-31T00:00:00Z", false},
      {"2026-12-31T23:59:60Z", true},
      {"1970-01-01T00:00:00Z", true},
      {"1970-01-01T00:00:00+00:01", false},
      {"1970-01-01T00:59:00+01:00", false},
      {"1970-01-01T01:00:00+01:00", true},
      {"9999-12-31T23:59:59Z", true},
      {"9999-12-31T23:59:59-00:01", false},
      {"2026-11-23T00:00:00.Z", false},
      {"2026-11-23T00:00:00.5", true},
      {"2026/11/23 14:05:01.123", true},
      {"2026/11/23T14:05:01", false},
      {"2026/11/23 14:05:01Z", false},
      {"2026-11-23 14:05:01+0530", true},
      {"2026-11-23T14:05:01+05", false},
      {"2026-11-23T24:00:00Z", false},
      {"2026-11-23T00:00", false},
      {"2026-1-23T00:00:00Z", false},
      {"2026-11-23T00:00:00.123456789012345Z", true},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    rs_time_day day = {.valid = false};
    double t;
    if (check(cases[i].s, &day) != cases[i].ok)
      fail_msg("'%s': expected %s", cases[i].s, cases[i].ok ? "taken" : "rejected");
    assert_int_equal(rs_time_parse(cases[i].s, strlen(cases[i].s), &t) == RS_OK, cases[i].ok);
  }
  /* 16 fraction digits: valid, left to rs_time_parse */
  rs_time_day day = {.valid = false};
  double t;
  assert_false(rs_time_parse_fast_field("2026-11-23T00:00:00.1234567890123456Z", 37, &day, &t));
}

/* In a row: the byte after the stamp, never a byte past the end given. */
static void test_in_row(void **state) {
  (void)state;
  rs_time_day day = {.valid = false};
  double t;
  const char *row = "2026-11-23T00:01:02.5Z,1,2\n";
  const char *e = rs_time_parse_fast(row, row + strlen(row), &day, &t);
  assert_ptr_equal(e, row + 22);
  assert_true(t == 1795392062.5);
  row = "2026-11-23T00:01:03,1\n"; /* no zone, cached date */
  e = rs_time_parse_fast(row, row + strlen(row), &day, &t);
  assert_ptr_equal(e, row + 19);
  assert_true(t == 1795392063.0);
  /* cut inside the fraction and the zone: taken only as far as the end */
  row = "2026-11-23T00:01:03.25+01:00";
  assert_ptr_equal(rs_time_parse_fast(row, row + 21, &day, &t), row + 21);
  assert_null(rs_time_parse_fast(row, row + 25, &day, &t));
  assert_null(rs_time_parse_fast(row, row + 18, &day, &t));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_generated_stamps),
      cmocka_unit_test(test_edges),
      cmocka_unit_test(test_in_row),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
