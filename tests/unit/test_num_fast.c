/* The native row loop's number shortcut (rs_num_parse_short, src/util/num_fast.h)
 * against the reference parser (rs_num_parse_double, its inline fast path
 * rs_num_parse_fast, and glibc's strtod): it takes exactly the numbers of
 * 1 to 4 digits, without a '.' or with '.' and 1 to 3 digits (a second '.' ends one, as it ends the
 * byte loop's), ends them where the byte loop ends them, and gives the same double bit for bit; it
 * leaves every other text to the byte loop. Each text sits at the very end of a heap block of its
 * own size (the number and the byte that ends it): a read past that byte is a heap overflow that
 * the sanitizer builds report. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "num_fast.h"
#include "rightsize/num.h"

static uint64_t next(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Where the byte loop ends the number at s: the first byte that is neither
 * a digit nor the first '.'. */
static size_t number_end(const char *s) {
  size_t i = 0;
  int point = 0;
  for (;; i++) {
    if (s[i] == '.' && !point)
      point = 1;
    else if (!is_digit(s[i]))
      return i;
  }
}

/* Checks the text s[0..len) (its last byte ends the number: not a digit or
 * '.' after the point); returns whether the shortcut took it. */
static int check(const char *s, size_t len) {
  char *block = malloc(len);
  assert_non_null(block);
  memcpy(block, s, len);
  size_t end = number_end(block), ints = 0;
  while (is_digit(block[ints]))
    ints++;
  int shape = ints >= 1 && ints <= 4 &&
              (block[ints] != '.' || (end - ints - 1 >= 1 && end - ints - 1 <= 3));
  double got = -1.0;
  const char *e = rs_num_parse_short(block, &got);
  if (!shape) {
    if (e != NULL)
      fail_msg("'%.*s' taken (%.17g), expected to be left to the byte loop", (int)len, s, got);
  } else {
    char text[16]; /* the longest shape, dddd.ddd, and its NUL fit */
    double want = -2.0, fast = -3.0;
    memcpy(text, block, end);
    text[end] = '\0';
    if (e != block + end)
      fail_msg("'%.*s' not taken or ended at %td, expected %zu", (int)len, s, e ? e - block : -1,
               end);
    assert_int_equal(rs_num_parse_double(block, end, &want), RS_OK);
    assert_true(rs_num_parse_fast(block, end, &fast));
    if (memcmp(&got, &want, sizeof(got)) != 0 || memcmp(&fast, &want, sizeof(got)) != 0 ||
        want != strtod(text, NULL))
      fail_msg("'%s' read as %.17g, the reference gives %.17g", text, got, want);
  }
  free(block);
  return e != NULL;
}

/* Ten million short decimals as metrics are written: half of them in the
 * data's shapes (d.d, dd.dd, dd.d, d.dd, dddd.d, ddd.dd, d), the rest 1..8
 * digits with the '.' anywhere or nowhere, leading zeros; then a cell's end
 * (',', '\n', '\r') or a byte that is not one (a second '.', an exponent, a
 * sign, a space, a byte above 0x7F, a NUL). */
static void test_random_short_decimals(void **state) {
  (void)state;
  static const char ends[] = {',', ',', ',', '\n', '\r', '.', 'e',  'E',    '-',   '+',
                              ' ', '/', ':', '"',  '%',  'x', '\0', '\x80', '\xff'};
  static const unsigned shapes[][2] = {{2, 1}, {4, 2}, {3, 2}, {3, 1}, {5, 4}, {5, 3}, {1, 9}};
  uint64_t x = 0x9E3779B97F4A7C15ull;
  long taken = 0;
  for (long n = 0; n < 10000000; n++) {
    char s[16];
    uint64_t r = next(&x), y = next(&x);
    unsigned digits = 1 + (unsigned)(r % 8), point = (unsigned)((r >> 8) % (digits + 2));
    if ((r >> 40) & 1) {
      const unsigned *shape = shapes[(r >> 41) % (sizeof(shapes) / sizeof(shapes[0]))];
      digits = shape[0];
      point = shape[1];
    }
    unsigned zeros = (unsigned)((r >> 16) % 4) == 0 ? (unsigned)((r >> 20) % (digits + 1)) : 0;
    size_t len = 0;
    for (unsigned d = 0; d < digits; d++) {
      if (d == point)
        s[len++] = '.';
      s[len++] = d < zeros ? '0' : (char)('0' + y % 10);
      y /= 10;
    }
    if (point == digits)
      s[len++] = '.';
    char last = ends[(r >> 24) % sizeof(ends)];
    if (last == '.' && point > digits)
      last = ','; /* a first '.' would continue the number past the block */
    s[len++] = last;
    taken += check(s, len);
  }
  assert_true(taken > 3000000); /* most of the data's shapes */
}

static void test_edge_cases(void **state) {
  (void)state;
  /* Taken: every shape, zeros, the extremes, every end byte, a second point. */
  static const char *const yes[] = {
      "0.0,",      "0.0\n",  "0.0\r",    "9.9,",    "00.00,",   "99.99,",    "01.50,",   "1.2.",
      "12.34.",    "7.5e",   "7.5-",     "2.6 ",    "12.68\"",  "3.1\x80",   "0.1\xff",  "0.00,",
      "12.3,",     "123.4,", "123.45,",  "1234.5,", "1234.56,", "9999.99\n", "0000.00,", "007.50,",
      "12.3.",     "1.25,",  "5,",       "55,",     "1234,",    "7e",        "0\n",      "1.234,",
      "1234.567,", "0.000,", "36.062\r", "1.234.",  "1e5,",     "1x.5,"};
  for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
    if (!check(yes[i], strlen(yes[i])))
      fail_msg("'%s' was not taken", yes[i]);
  assert_true(check("0.5\0", 4)); /* a NUL ends it too */
  /* Left to the byte loop: other shapes (no digit before the '.' or after
   * it, 5 digits before it or 4 after, 5 without it), signs, more digits
   * (up to 19, the full parser's). */
  static const char *const no[] = {",",
                                   "\n",
                                   ".5,",
                                   "5.,",
                                   "12345,",
                                   "99999\n",
                                   "-1.5,",
                                   "+5.0,",
                                   " 7.0,",
                                   "\"1.5\",",
                                   "12345.6,",
                                   "12345.67,",
                                   "1.2345,",
                                   "1234.5678,",
                                   "0.0000,",
                                   "1..2,",
                                   "12..3,",
                                   "1234567890123456789,",
                                   "0.1234567890123456789,",
                                   "12.3456789012345678,"};
  for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
    if (check(no[i], strlen(no[i])))
      fail_msg("'%s' was taken", no[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_random_short_decimals),
      cmocka_unit_test(test_edge_cases),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
