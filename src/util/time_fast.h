/* The time parser's fast path, inline for the CSV row loops (util layer).
 *
 * An RFC 3339 stamp of the fixed layout YYYY-MM-DDTHH:MM:SS[.f...][zone]
 * ('T', 't' or a space between date and time; zone 'Z', 'z', +hh:mm,
 * -hh:mm, +hhmm, -hhmm or none), or nvidia-smi's YYYY/MM/DD HH:MM:SS[.f...]
 * (no zone): the same double rs_time_parse gives (the fraction, at most 15
 * digits, is one correctly rounded division, as rs_num_parse_double reads
 * it). The date of the previous stamp is kept in a rs_time_day: when the
 * next stamp's first ten bytes are the same, only the time of day is read.
 * Anything else (more fraction digits, a time out of range, a bad field)
 * returns NULL and goes to rs_time_parse, so its errors are unchanged. */
#ifndef RIGHTSIZE_TIME_FAST_H
#define RIGHTSIZE_TIME_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rightsize/num.h"

/* The date of the last stamp read: its ten bytes and its first second. */
typedef struct rs_time_day {
  char date[10];
  bool valid;
  int64_t base; /* days since 1970-01-01 times 86400 */
} rs_time_day;

#define RS_TIME_FAST_FRAC_DIGITS 15

/* Two ASCII digits at s as their value, or a value above 99 when either is
 * not a digit. */
static inline unsigned rs_time_fast_2(const char *s) {
  unsigned a = (unsigned)(unsigned char)s[0] - '0', b = (unsigned)(unsigned char)s[1] - '0';
  return (a > 9 || b > 9) ? 100u : a * 10 + b;
}

/* The date at s (ten bytes, separator sep) as days times 86400 into *base;
 * false when it is not a valid date. */
static inline bool rs_time_fast_date(const char *s, char sep, int64_t *base) {
  unsigned y0 = rs_time_fast_2(s), y1 = rs_time_fast_2(s + 2);
  unsigned mo = rs_time_fast_2(s + 5), d = rs_time_fast_2(s + 8);
  if (y0 > 99 || y1 > 99 || s[4] != sep || s[7] != sep || mo < 1 || mo > 12 || d < 1)
    return false;
  unsigned y = y0 * 100 + y1;
  static const unsigned char dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (d > (mo == 2 && leap ? 29u : dm[mo - 1]))
    return false;
  *base = rs_time_days_from_civil((int64_t)y, mo, d) * 86400;
  return true;
}

/* The stamp at s, reading no byte at or past end; returns the byte after it
 * (the caller checks that the field ends there), or NULL when the fast path
 * does not take it. */
static inline const char *rs_time_parse_fast(const char *s, const char *end, rs_time_day *day,
                                             double *out) {
  static const double p10[RS_TIME_FAST_FRAC_DIGITS + 1] = {
      1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  if (end - s < 19)
    return NULL;
  char sep = s[4];
  int64_t base;
  if (day->valid && memcmp(s, day->date, sizeof(day->date)) == 0) {
    base = day->base;
  } else {
    if ((sep != '-' && sep != '/') || !rs_time_fast_date(s, sep, &base))
      return NULL;
    memcpy(day->date, s, sizeof(day->date));
    day->base = base;
    day->valid = true;
  }
  char tsep = s[10];
  if (!(tsep == ' ' || (sep == '-' && (tsep == 'T' || tsep == 't'))))
    return NULL;
  unsigned h = rs_time_fast_2(s + 11), mi = rs_time_fast_2(s + 14), sec = rs_time_fast_2(s + 17);
  if (s[13] != ':' || s[16] != ':' || h > 23 || mi > 59 || sec > 60)
    return NULL;
  const char *q = s + 19;
  double frac = 0.0;
  if (q < end && *q == '.') {
    const char *f = ++q;
    uint64_t mant = 0;
    unsigned dg;
    while (q < end && (dg = (unsigned)(unsigned char)*q - '0') <= 9) {
      mant = mant * 10 + dg;
      q++;
    }
    size_t k = (size_t)(q - f);
    if (k == 0 || k > RS_TIME_FAST_FRAC_DIGITS)
      return NULL;
    frac = (double)mant / p10[k];
  }
  int64_t offset = 0;
  if (q < end && sep == '-') {
    if (*q == 'Z' || *q == 'z') {
      q++;
    } else if (*q == '+' || *q == '-') {
      int sign = *q == '-' ? -1 : 1;
      unsigned hh, mm;
      if (end - q < 5 || (hh = rs_time_fast_2(q + 1)) > 23)
        return NULL;
      q += 3;
      if (*q == ':')
        q++;
      if (end - q < 2 || (mm = rs_time_fast_2(q)) > 59)
        return NULL;
      q += 2;
      offset = sign * (int64_t)(hh * 3600 + mm * 60);
    }
  }
  double t = (double)(base + h * 3600 + mi * 60 + sec - offset) + frac;
  if (!(t >= RS_TIME_MIN && t < RS_TIME_END)) /* rs_time_in_range */
    return NULL;
  *out = t;
  return q;
}

/* The same for a whole field of n bytes: true and *out when the fast path
 * takes all of it. */
static inline bool rs_time_parse_fast_field(const char *s, size_t n, rs_time_day *day,
                                            double *out) {
  double t;
  if (rs_time_parse_fast(s, s + n, day, &t) != s + n)
    return false;
  *out = t;
  return true;
}

#endif
