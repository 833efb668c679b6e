#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rightsize/num.h"

static rs_status dbl(const char *s, double *out) { return rs_num_parse_double(s, strlen(s), out); }

static void expect_double(const char *s, double want) {
  double v = -12345.0;
  assert_int_equal(dbl(s, &v), RS_OK);
  if (v != want || signbit(v) != signbit(want))
    fail_msg("'%s' parsed as %.17g, expected %.17g", s, v, want);
}

static void expect_double_status(const char *s, rs_status want) {
  double v = 42.0;
  assert_int_equal(dbl(s, &v), want);
  assert_true(v == 42.0); /* *out untouched on failure */
}

static void test_double_exact(void **state) {
  (void)state;
  expect_double("0", 0.0);
  expect_double("-0", 0.0); /* -0 is 0: no "-0%" in a report */
  expect_double("-0.000", 0.0);
  expect_double("+0.0", 0.0);
  expect_double("0.1", 0.1);
  expect_double("0.3", 0.3);
  expect_double("1", 1.0);
  expect_double("-2.5", -2.5);
  expect_double(".5", 0.5);
  expect_double("-.25", -0.25);
  expect_double("5.", 5.0);
  expect_double("48.5", 48.5);
  expect_double("3012", 3012.0);
  expect_double("1e3", 1000.0);
  expect_double("1E-3", 0.001);
  expect_double("2.5e+2", 250.0);
  expect_double("123.456", 123.456);
  expect_double("9007199254740991", 9007199254740991.0);
  expect_double("1e22", 1e22);
  expect_double("1e23", 1e23);
  expect_double("1e308", 1e308);
  expect_double("1.7976931348623157e308", 1.7976931348623157e308);
  expect_double("2.2250738585072014e-308", 2.2250738585072014e-308);
  expect_double("0.000000000000000000000000000001", 1e-30);
  expect_double("1e-400", 0.0);
  expect_double("000000000000000000000000000012", 12.0);
}

/* Mantissas longer than 19 digits keep 19 and scale: within an ulp or two. */
static void test_double_long_mantissa(void **state) {
  (void)state;
  static const char *cases[] = {
      "12345678901234567890123",
      "1.2345678901234567890123456789",
      "0.000012345678901234567890123",
      "98765432109876543210987654321e-10",
      "3.14159265358979323846264338327950288",
      "123456789012345678.9",
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    double v = 0, want = strtod(cases[i], NULL); /* the trusted reference */
    assert_int_equal(dbl(cases[i], &v), RS_OK);
    if (fabs(v - want) > 2 * (nextafter(want, INFINITY) - want))
      fail_msg("'%s' parsed as %.17g, expected %.17g", cases[i], v, want);
  }
}

/* Short decimals as metrics are written (the inline fast path, up to 15
 * digits): the correctly rounded double, which glibc's strtod gives. */
static void test_double_short_decimals_round_correctly(void **state) {
  (void)state;
  uint64_t x = 0x9E3779B97F4A7C15ull;
  char text[40];
  for (int n = 0; n < 300000; n++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    int digits = 1 + (int)(x % 15);             /* 1..15 digits */
    int point = (int)((x >> 8) % (digits + 2)); /* position of the '.', or none */
    uint64_t y = x >> 16;
    size_t len = 0;
    for (int d = 0; d < digits; d++) {
      if (d == point)
        text[len++] = '.';
      text[len++] = (char)('0' + (y % 10));
      y = y / 10 ? y / 10 : x >> 20;
    }
    if (point == digits)
      text[len++] = '.';
    text[len] = '\0';
    double got = -1.0, want = strtod(text, NULL);
    assert_int_equal(rs_num_parse_double(text, len, &got), RS_OK);
    if (got != want)
      fail_msg("'%s' parsed as %.17g, strtod gives %.17g", text, got, want);
  }
  expect_double("123456789012345", 123456789012345.0);
  expect_double("0.000000000000001", 1e-15);
  expect_double("9.99999999999999", 9.99999999999999);
  expect_double("1234567890123456", 1234567890123456.0); /* 16 digits: the full parser */
  expect_double("5.", 5.0);
  expect_double(".5", 0.5);
  expect_double_status(".", RS_INVALID);
  expect_double_status("1..2", RS_INVALID);
}

static void test_double_rejects(void **state) {
  (void)state;
  static const char *bad[] = {"",      "+",   "-",    ".",   "-.",   "e5",       "1e",
                              "1e+",   "nan", "NaN",  "inf", "-inf", "Infinity", "0x10",
                              "0x1p3", "1 ",  " 1",   "1 0", "1,5",  "1.2.3",    "12abc",
                              "--1",   "+-1", "1e5x", "1.e", "\t1",  "1\n",      "１"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    double v = 42.0;
    if (dbl(bad[i], &v) != RS_INVALID)
      fail_msg("'%s' was not rejected", bad[i]);
    assert_true(v == 42.0);
  }
  expect_double_status("1e309", RS_LIMIT);
  expect_double_status("-1e309", RS_LIMIT);
  expect_double_status("1.8e308", RS_LIMIT);
  expect_double_status("1e99999999999", RS_LIMIT);
}

static void test_double_not_nul_terminated(void **state) {
  (void)state;
  double v = 0;
  assert_int_equal(rs_num_parse_double("12.5xyz", 4, &v), RS_OK);
  assert_true(v == 12.5);
  assert_int_equal(rs_num_parse_double("7,8", 1, &v), RS_OK);
  assert_true(v == 7.0);
}

static void test_int64(void **state) {
  (void)state;
  int64_t v = 0;
  assert_int_equal(rs_num_parse_int64("0", 1, &v), RS_OK);
  assert_true(v == 0);
  assert_int_equal(rs_num_parse_int64("-17", 3, &v), RS_OK);
  assert_true(v == -17);
  assert_int_equal(rs_num_parse_int64("+63", 3, &v), RS_OK);
  assert_true(v == 63);
  assert_int_equal(rs_num_parse_int64("9223372036854775807", 19, &v), RS_OK);
  assert_true(v == INT64_MAX);
  assert_int_equal(rs_num_parse_int64("-9223372036854775808", 20, &v), RS_OK);
  assert_true(v == INT64_MIN);
  v = 5;
  assert_int_equal(rs_num_parse_int64("9223372036854775808", 19, &v), RS_LIMIT);
  assert_int_equal(rs_num_parse_int64("-9223372036854775809", 20, &v), RS_LIMIT);
  assert_int_equal(rs_num_parse_int64("99999999999999999999999", 23, &v), RS_LIMIT);
  assert_int_equal(rs_num_parse_int64("", 0, &v), RS_INVALID);
  assert_int_equal(rs_num_parse_int64("-", 1, &v), RS_INVALID);
  assert_int_equal(rs_num_parse_int64("1.0", 3, &v), RS_INVALID);
  assert_int_equal(rs_num_parse_int64("1e3", 3, &v), RS_INVALID);
  assert_int_equal(rs_num_parse_int64(" 1", 2, &v), RS_INVALID);
  assert_int_equal(rs_num_parse_int64("0x1", 3, &v), RS_INVALID);
  assert_true(v == 5);
}

static void expect_unit(rs_unit_kind kind, const char *s, const char *def, double want) {
  double v = -1;
  rs_status st = rs_units_parse(kind, s, strlen(s), def, &v);
  if (st != RS_OK || v != want)
    fail_msg("'%s' -> status %d value %.17g, expected %.17g", s, (int)st, v, want);
}

static void expect_unit_status(rs_unit_kind kind, const char *s, const char *def, rs_status want) {
  double v = 42.0;
  rs_status st = rs_units_parse(kind, s, strlen(s), def, &v);
  if (st != want)
    fail_msg("'%s' -> status %d, expected %d", s, (int)st, (int)want);
  assert_true(v == 42.0);
}

static void test_units_bytes(void **state) {
  (void)state;
  expect_unit(RS_UNIT_BYTES, "16GiB", NULL, 16.0 * 1073741824.0);
  expect_unit(RS_UNIT_BYTES, "3012 MiB", NULL, 3012.0 * 1048576.0);
  expect_unit(RS_UNIT_BYTES, "1.5KiB", NULL, 1536.0);
  expect_unit(RS_UNIT_BYTES, "2TiB", NULL, 2.0 * 1099511627776.0);
  expect_unit(RS_UNIT_BYTES, "512B", NULL, 512.0);
  expect_unit(RS_UNIT_BYTES, "1KB", NULL, 1e3);
  expect_unit(RS_UNIT_BYTES, "1MB", NULL, 1e6);
  expect_unit(RS_UNIT_BYTES, "80GB", NULL, 80e9);
  expect_unit(RS_UNIT_BYTES, "1TB", NULL, 1e12);
  expect_unit(RS_UNIT_BYTES, "3012", "MiB", 3012.0 * 1048576.0);
  expect_unit(RS_UNIT_BYTES, "7", "B", 7.0);
  expect_unit_status(RS_UNIT_BYTES, "3012", NULL, RS_INVALID);  /* bare needs a default */
  expect_unit_status(RS_UNIT_BYTES, "16gib", NULL, RS_INVALID); /* case-sensitive */
  expect_unit_status(RS_UNIT_BYTES, "16 GiB ", NULL, RS_INVALID);
  expect_unit_status(RS_UNIT_BYTES, "16 ", "MiB", RS_INVALID);
  expect_unit_status(RS_UNIT_BYTES, "16XB", NULL, RS_INVALID);
  expect_unit_status(RS_UNIT_BYTES, "GiB", NULL, RS_INVALID);
  expect_unit_status(RS_UNIT_BYTES, "-1GiB", NULL, RS_INVALID);
  expect_unit_status(RS_UNIT_BYTES, "-0GiB", NULL, RS_INVALID);
  expect_unit_status(RS_UNIT_BYTES, "nanGiB", NULL, RS_INVALID);
  expect_unit_status(RS_UNIT_BYTES, "1e308TiB", NULL, RS_LIMIT);
  expect_unit_status(RS_UNIT_BYTES, "1e309B", NULL, RS_LIMIT);
}

static void test_units_seconds(void **state) {
  (void)state;
  expect_unit(RS_UNIT_SECONDS, "50ms", NULL, 0.05);
  expect_unit(RS_UNIT_SECONDS, "250 us", NULL, 250e-6);
  expect_unit(RS_UNIT_SECONDS, "7ns", NULL, 7e-9);
  expect_unit(RS_UNIT_SECONDS, "1.5s", NULL, 1.5);
  expect_unit(RS_UNIT_SECONDS, "5m", NULL, 300.0);
  expect_unit(RS_UNIT_SECONDS, "5min", NULL, 300.0);
  expect_unit(RS_UNIT_SECONDS, "2h", NULL, 7200.0);
  expect_unit(RS_UNIT_SECONDS, "1d", NULL, 86400.0);
  expect_unit(RS_UNIT_SECONDS, "2w", NULL, 1209600.0);
  expect_unit(RS_UNIT_SECONDS, "1e3ms", NULL, 1.0);
  expect_unit(RS_UNIT_SECONDS, "48.5", "ms", 0.0485);
  expect_unit_status(RS_UNIT_SECONDS, "5M", NULL, RS_INVALID); /* M is mega, not minutes */
  expect_unit_status(RS_UNIT_SECONDS, "5 sec", NULL, RS_INVALID);
  expect_unit_status(RS_UNIT_SECONDS, "5", NULL, RS_INVALID);
  expect_unit_status(RS_UNIT_SECONDS, "5GiB", NULL, RS_INVALID); /* another kind's unit */
  expect_unit_status(RS_UNIT_SECONDS, "5", "GiB", RS_INVALID);
}

static void test_units_count_percent_bitrate(void **state) {
  (void)state;
  expect_unit(RS_UNIT_COUNT, "2k", NULL, 2000.0);
  expect_unit(RS_UNIT_COUNT, "2K", NULL, 2000.0);
  expect_unit(RS_UNIT_COUNT, "1.5M", NULL, 1.5e6);
  expect_unit(RS_UNIT_COUNT, "3 G", NULL, 3e9);
  expect_unit(RS_UNIT_COUNT, "120", NULL, 120.0); /* the suffix is optional */
  expect_unit_status(RS_UNIT_COUNT, "2m", NULL, RS_INVALID);
  expect_unit_status(RS_UNIT_COUNT, "2x", NULL, RS_INVALID);
  expect_unit(RS_UNIT_PERCENT, "15 %", NULL, 15.0);
  expect_unit(RS_UNIT_PERCENT, "50%", NULL, 50.0);
  expect_unit(RS_UNIT_PERCENT, "99.5", NULL, 99.5);
  expect_unit_status(RS_UNIT_PERCENT, "50%%", NULL, RS_INVALID);
  expect_unit_status(RS_UNIT_PERCENT, "-5%", NULL, RS_INVALID);
  expect_unit(RS_UNIT_BITRATE, "25Gbps", NULL, 25e9 / 8);
  expect_unit(RS_UNIT_BITRATE, "100 Mbps", NULL, 12.5e6);
  expect_unit(RS_UNIT_BITRATE, "8kbps", NULL, 1000.0);
  expect_unit(RS_UNIT_BITRATE, "8bps", NULL, 1.0);
  expect_unit(RS_UNIT_BITRATE, "10Gbit/s", NULL, 1.25e9);
  expect_unit(RS_UNIT_BITRATE, "1 B/s", NULL, 1.0);
  expect_unit(RS_UNIT_BITRATE, "3KB/s", NULL, 3e3);
  expect_unit(RS_UNIT_BITRATE, "3MB/s", NULL, 3e6);
  expect_unit(RS_UNIT_BITRATE, "3GB/s", NULL, 3e9);
  expect_unit(RS_UNIT_BITRATE, "2KiB/s", NULL, 2048.0);
  expect_unit(RS_UNIT_BITRATE, "2MiB/s", NULL, 2097152.0);
  expect_unit(RS_UNIT_BITRATE, "1GiB/s", NULL, 1073741824.0);
  expect_unit(RS_UNIT_BITRATE, "40", "Gbps", 5e9);
  expect_unit_status(RS_UNIT_BITRATE, "25GBPS", NULL, RS_INVALID);
  expect_unit_status(RS_UNIT_BITRATE, "25", NULL, RS_INVALID);
  expect_unit_status(RS_UNIT_BITRATE, "25GB", NULL, RS_INVALID);
}

static void expect_time(const char *s, double want) {
  double v = -1;
  rs_status st = rs_time_parse(s, strlen(s), &v);
  if (st != RS_OK || fabs(v - want) > 1e-6)
    fail_msg("'%s' -> status %d value %.6f, expected %.6f", s, (int)st, v, want);
}

static void test_time_parse(void **state) {
  (void)state;
  /* 2026-11-30T14:05:01Z, computed by hand: 20787 days after 1970-01-01. */
  const double base = 20787.0 * 86400 + 14 * 3600 + 5 * 60 + 1;
  assert_true(base == 1796047501.0);
  expect_time("1796047501", base);
  expect_time("1796047501.25", base + 0.25);
  expect_time("0", 0.0);
  expect_time("2026-11-30T14:05:01Z", base);
  expect_time("2026-11-30t14:05:01z", base);
  expect_time("2026-11-30 14:05:01", base); /* no zone: UTC */
  expect_time("2026-11-30T14:05:01.5Z", base + 0.5);
  expect_time("2026-11-30 14:05:01.123+01:00", base + 0.123 - 3600);
  expect_time("2026-11-30T14:05:01-05:30", base + 5.5 * 3600);
  expect_time("2026-11-30T14:05:01+00:00", base);
  expect_time("2026/11/30 14:05:01.123", base + 0.123); /* nvidia-smi, as UTC */
  expect_time("2026/11/30 14:05:01", base);
  expect_time("1970-01-01T00:00:00Z", 0.0);
  expect_time("2028-02-29T00:00:00Z", 1835395200.0); /* leap day */
  expect_time("2000-02-29T00:00:00Z", 951782400.0);  /* divisible by 400 */
  expect_time("2026-12-31T23:59:60Z", 1798761600.0); /* leap second */
  expect_time("9999-12-31T23:59:59.5Z", 253402300799.5);
  expect_time("9999-12-31T23:30:00+01:00", 253402295400.0);
  expect_time("1970-01-01T01:00:00+01:00", 0.0);
  expect_time("253402300799", 253402300799.0);
}

/* One range for every reader: 1970-01-01 to 9999-12-31 UTC, after the
 * offset is applied (docs/samples-format.md, "Ranges"). */
static void test_time_range(void **state) {
  static const char *out_of_range[] = {
      "1969-12-31T23:59:59Z",
      "9999-12-31T23:30:00-01:00",
      "0000-01-01T00:00:00+01:00",
      "1970-01-01T00:30:00+01:00",
      "253402300800",
      "9999-12-31T23:59:60Z",
  };
  (void)state;
  for (size_t i = 0; i < sizeof(out_of_range) / sizeof(out_of_range[0]); i++) {
    double v = 42.0;
    const char *s = out_of_range[i];
    if (rs_time_parse(s, strlen(s), &v) != RS_LIMIT || v != 42.0)
      fail_msg("'%s' accepted or not RS_LIMIT", s);
  }
  assert_true(rs_time_in_range(0.0));
  assert_true(rs_time_in_range(253402300799.999));
  assert_false(rs_time_in_range(253402300800.0));
  assert_false(rs_time_in_range(-0.001));
  assert_false(rs_time_in_range(NAN));
  assert_false(rs_time_in_range(INFINITY));
}

static void test_time_rejects(void **state) {
  (void)state;
  static const char *bad[] = {
      "",
      "-5",
      "1796047501.",
      "1e9",
      "+1796047501",
      "1796047501 ",
      "2026-02-29T00:00:00Z", /* 2026 is not a leap year */
      "1900-02-29T00:00:00Z", /* divisible by 100, not 400 */
      "2026-04-31T00:00:00Z",
      "2026-13-01T00:00:00Z",
      "2026-00-01T00:00:00Z",
      "2026-01-00T00:00:00Z",
      "2026-01-01T24:00:00Z",
      "2026-01-01T23:60:00Z",
      "2026-01-01T23:59:61Z",
      "2026-01-01T00:00:00+24:00",
      "2026-01-01T00:00:00+01:60",
      "2026-01-01T00:00:00+1",
      "2026-01-01T00:00:00.Z",
      "2026-01-01T00:00:00ZZ",
      "2026-01-01T00:00:00 Z",
      "2026-01-01X00:00:00Z",
      "2026-01-01",
      "2026-1-01T00:00:00Z",
      "2026-01-01T0:00:00Z",
      "2026/01-01 00:00:00",
      "2026/01/01T00:00:00",  /* nvidia-smi uses a space */
      "2026/01/01 00:00:00Z", /* and no zone */
      "2026/02/29 00:00:00.000",
      "abcd-01-01T00:00:00Z",
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    double v = 42.0;
    if (rs_time_parse(bad[i], strlen(bad[i]), &v) != RS_INVALID)
      fail_msg("'%s' was not rejected", bad[i]);
    assert_true(v == 42.0);
  }
}

static void test_time_format(void **state) {
  (void)state;
  char buf[32];
  rs_time_format(1796047501.999, buf, sizeof(buf));
  assert_string_equal(buf, "2026-11-30T14:05:01Z");
  rs_time_format(0.0, buf, sizeof(buf));
  assert_string_equal(buf, "1970-01-01T00:00:00Z");
  rs_time_format(1835395200.0, buf, sizeof(buf));
  assert_string_equal(buf, "2028-02-29T00:00:00Z");
  rs_time_format(-0.5, buf, sizeof(buf)); /* floor, not truncation */
  assert_string_equal(buf, "1969-12-31T23:59:59Z");
  rs_time_format(253402300799.0, buf, 21);
  assert_string_equal(buf, "9999-12-31T23:59:59Z");
  rs_time_format(RS_TIME_YEAR0, buf, 21);
  assert_string_equal(buf, "0000-01-01T00:00:00Z");
  /* Past the years it prints, and where int64_t conversion would be
   * undefined (1e300 printed year 292277026596 before): "-". */
  static const double outside[] = {1e300,   -1e300, 253402300800.0, RS_TIME_YEAR0 - 1, 9.3e18,
                                   -9.3e18, NAN,    INFINITY,       -INFINITY};
  for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++) {
    rs_time_format(outside[i], buf, sizeof(buf));
    assert_string_equal(buf, "-");
  }
  /* Round trip over many days, including leap days. */
  for (double t = 0.0; t < 86400.0 * 40000; t += 86400.0 * 13 + 3607.0) {
    double back = 0;
    rs_time_format(t, buf, sizeof(buf));
    assert_int_equal(rs_time_parse(buf, strlen(buf), &back), RS_OK);
    assert_true(back == floor(t));
  }
}

static void test_days_from_civil(void **state) {
  (void)state;
  assert_int_equal(rs_time_days_from_civil(1970, 1, 1), 0);
  assert_int_equal(rs_time_days_from_civil(1970, 1, 2), 1);
  assert_int_equal(rs_time_days_from_civil(1969, 12, 31), -1);
  assert_int_equal(rs_time_days_from_civil(2000, 3, 1), 11017);
  assert_int_equal(rs_time_days_from_civil(2026, 11, 30), 20787);
  assert_int_equal(rs_time_days_from_civil(1600, 1, 1), -135140);
  assert_int_equal(rs_time_days_from_civil(0, 3, 1), -719468);
  assert_int_equal(rs_time_days_from_civil(2028, 3, 1) - rs_time_days_from_civil(2028, 2, 28), 2);
  assert_int_equal(rs_time_days_from_civil(2026, 3, 1) - rs_time_days_from_civil(2026, 2, 28), 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_double_exact),
      cmocka_unit_test(test_double_long_mantissa),
      cmocka_unit_test(test_double_short_decimals_round_correctly),
      cmocka_unit_test(test_double_rejects),
      cmocka_unit_test(test_double_not_nul_terminated),
      cmocka_unit_test(test_int64),
      cmocka_unit_test(test_units_bytes),
      cmocka_unit_test(test_units_seconds),
      cmocka_unit_test(test_units_count_percent_bitrate),
      cmocka_unit_test(test_time_parse),
      cmocka_unit_test(test_time_rejects),
      cmocka_unit_test(test_time_range),
      cmocka_unit_test(test_time_format),
      cmocka_unit_test(test_days_from_civil),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
