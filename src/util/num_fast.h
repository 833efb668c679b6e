/* The number parser's fast path, inline for the CSV row loop (util layer).
 *
 * A short unsigned decimal, digits with at most one '.', at most 15 digits
 * in all (so the digits, as an integer, are below 2^53 and exact, and so is
 * the power of ten): the value is one correctly rounded division, the same
 * double rs_num_parse_double gives. Anything else (a sign, an exponent,
 * spaces, a unit, more digits) returns false and goes to the full parser.
 * rs_num_parse_short is the native row loop's shortcut before it: a
 * metric's usual shapes, read without a loop, the same double again. */
#ifndef RIGHTSIZE_NUM_FAST_H
#define RIGHTSIZE_NUM_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RS_NUM_FAST_DIGITS 15

/* A metric's usual shape at q: 1 to 4 digits, then nothing more or '.'
 * and 1 to 3 digits ("0.0", "25.6", "12.68", "3005.0", "9791", "36.062"):
 * returns the byte that ends it (the first byte that is neither a digit
 * nor the first '.') and sets *out to the same double as rs_num_parse_fast
 * (the digits as an integer, over 10, 100 or 1000: one correctly rounded
 * division), or NULL for any other shape. Reads byte by byte and stops at
 * the first byte that does not fit, so it reads no byte past the one that
 * ends the number: bounds-safe in any buffer whose numbers are followed by
 * a byte that is neither a digit nor '.' (the native row loop's lines end
 * in '\n'). */
static inline const char *rs_num_parse_short(const char *q, double *out) {
  unsigned m = (unsigned)(unsigned char)q[0] - '0', d;
  const char *r = q + 1; /* to the byte after the integer digits */
  if (m > 9)
    return NULL;
  if ((d = (unsigned)(unsigned char)*r - '0') <= 9) {
    m = m * 10 + d, r++;
    if ((d = (unsigned)(unsigned char)*r - '0') <= 9) {
      m = m * 10 + d, r++;
      if ((d = (unsigned)(unsigned char)*r - '0') <= 9)
        m = m * 10 + d, r++;
    }
  }
  if (*r != '.' || (d = (unsigned)(unsigned char)r[1] - '0') > 9) {
    if (*r == '.' || (unsigned)(unsigned char)*r - '0' <= 9)
      return NULL; /* no digit after the '.', or a fifth digit */
    *out = (double)m;
    return r;
  }
  m = m * 10 + d;
  if ((d = (unsigned)(unsigned char)r[2] - '0') > 9) {
    *out = (double)m / 10.0;
    return r + 2;
  }
  unsigned d3 = (unsigned)(unsigned char)r[3] - '0';
  if (d3 > 9) {
    *out = (double)(m * 10 + d) / 100.0;
    return r + 3;
  }
  if ((unsigned)(unsigned char)r[4] - '0' <= 9)
    return NULL;
  *out = (double)((m * 10 + d) * 10 + d3) / 1000.0;
  return r + 4;
}

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
