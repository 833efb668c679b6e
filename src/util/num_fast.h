/* The number parser's fast path, inline for the CSV row loop (util layer).
 *
 * A short unsigned decimal, digits with at most one '.', at most 15 digits
 * in all (so the digits, as an integer, are below 2^53 and exact, and so is
 * the power of ten): the value is one correctly rounded division, the same
 * double rs_num_parse_double gives. Anything else (a sign, an exponent,
 * spaces, a unit, more digits) returns false and goes to the full parser. */
#ifndef RIGHTSIZE_NUM_FAST_H
#define RIGHTSIZE_NUM_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RS_NUM_FAST_DIGITS 15

static inline bool rs_num_parse_fast(const char *s, size_t n, double *out) {
  static const double p10[RS_NUM_FAST_DIGITS + 1] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                                     1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  uint64_t mant = 0;
  size_t digits = 0, frac = 0;
  bool point = false;
  if (n == 0 || n > RS_NUM_FAST_DIGITS + 1)
    return false;
  for (size_t i = 0; i < n; i++) {
    unsigned d = (unsigned)(unsigned char)s[i] - '0';
    if (d <= 9) {
      mant = mant * 10 + d;
      digits++;
      frac += point;
    } else if (s[i] == '.' && !point) {
      point = true;
    } else {
      return false;
    }
  }
  if (digits == 0 || digits > RS_NUM_FAST_DIGITS)
    return false;
  *out = frac ? (double)mant / p10[frac] : (double)mant;
  return true;
}

#endif
