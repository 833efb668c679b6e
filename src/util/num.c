#include "rightsize/num.h"
#include "num_fast.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* The significant digits of a decimal: up to 19 kept in mant, the rest only
 * scale (the first dropped digit rounds). */
typedef struct decimal {
  uint64_t mant;
  int64_t exp10;
  size_t digits;
  bool dropped; /* a digit was dropped; the next ones no longer round */
} decimal;

static void add_digit(decimal *d, char c, bool fraction) {
  d->digits++;
  if (d->mant < 1000000000000000000ull) {
    d->mant = d->mant * 10 + (uint64_t)(c - '0');
    d->exp10 -= fraction;
    return;
  }
  if (!d->dropped && c >= '5')
    d->mant++; /* at most 10^19, still fits */
  d->dropped = true;
  d->exp10 += !fraction;
}

/* [(e|E)[+-]digits] at s[*i]; false when the exponent has no digits. */
static bool scan_exponent(const char *s, size_t n, size_t *i, int64_t *exp10) {
  bool neg = false;
  int64_t e = 0;
  size_t start;
  if (*i >= n || (s[*i] != 'e' && s[*i] != 'E'))
    return true;
  (*i)++;
  if (*i < n && (s[*i] == '+' || s[*i] == '-'))
    neg = s[(*i)++] == '-';
  start = *i;
  for (; *i < n && is_digit(s[*i]); (*i)++)
    if (e < 100000) /* far past any double; keeps the sum from overflowing */
      e = e * 10 + (s[*i] - '0');
  *exp10 += neg ? -e : e;
  return *i > start;
}

static rs_status scale(const decimal *d, double *out) {
  if (d->mant == 0) {
    *out = 0.0;
  } else if (d->mant < (1ull << 53) && d->exp10 >= -22 && d->exp10 <= 22) {
    /* Both operands exact: one correctly rounded operation. */
    *out = d->exp10 >= 0 ? (double)d->mant * pow10_exact[d->exp10]
                         : (double)d->mant / pow10_exact[-d->exp10];
  } else {
    /* 64-bit long double mantissa: mant is exact, powl rounds once. */
    *out = (double)((long double)d->mant * powl(10.0L, (long double)d->exp10));
    if (isinf(*out))
      return RS_LIMIT;
  }
  return RS_OK;
}

rs_status rs_num_parse_double(const char *s, size_t n, double *out) {
  decimal d = {0, 0, 0, false};
  size_t i = 0;
  bool neg = false;
  double v;
  rs_status st;

  if (rs_num_parse_fast(s, n, out))
    return RS_OK;
  if (n > 0 && (s[0] == '+' || s[0] == '-'))
    neg = s[i++] == '-';
  for (; i < n && is_digit(s[i]); i++)
    add_digit(&d, s[i], false);
  if (i < n && s[i] == '.')
    for (i++; i < n && is_digit(s[i]); i++)
      add_digit(&d, s[i], true);
  if (d.digits == 0 || !scan_exponent(s, n, &i, &d.exp10) || i != n)
    return RS_INVALID;
  if ((st = scale(&d, &v)) != RS_OK)
    return st;
  *out = neg && v != 0.0 ? -v : v; /* "-0" is 0: no "-0%" in a report */
  return RS_OK;
}

rs_status rs_num_parse_int64(const char *s, size_t n, int64_t *out) {
  size_t i = 0;
  bool neg = false;
  uint64_t v = 0, lim;
  if (n == 0)
    return RS_INVALID;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    i++;
  }
  if (i == n)
    return RS_INVALID;
  lim = neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX;
  for (; i < n; i++) {
    if (!is_digit(s[i]))
      return RS_INVALID;
    unsigned d = (unsigned)(s[i] - '0');
    if (v > (lim - d) / 10)
      return RS_LIMIT;
    v = v * 10 + d;
  }
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return RS_OK;
}

/* value = number * mul / div; both exact, so "50ms" is exactly 50 / 1000. */
typedef struct unit_row {
  const char *name;
  double mul, div;
} unit_row;

static const unit_row bytes_units[] = {
    {"B", 1, 1},        {"KB", 1e3, 1},     {"MB", 1e6, 1},     {"GB", 1e9, 1},     {"TB", 1e12, 1},
    {"KiB", RS_KIB, 1}, {"MiB", RS_MIB, 1}, {"GiB", RS_GIB, 1}, {"TiB", RS_TIB, 1}, {NULL, 0, 0}};
static const unit_row seconds_units[] = {
    {"ns", 1, 1e9}, {"us", 1, 1e6}, {"ms", 1, 1e3},  {"s", 1, 1},      {"m", 60, 1},
    {"min", 60, 1}, {"h", 3600, 1}, {"d", 86400, 1}, {"w", 604800, 1}, {NULL, 0, 0}};
static const unit_row count_units[] = {{"", 1, 1},    {"k", 1e3, 1}, {"K", 1e3, 1},
                                       {"M", 1e6, 1}, {"G", 1e9, 1}, {NULL, 0, 0}};
static const unit_row percent_units[] = {{"", 1, 1}, {"%", 1, 1}, {NULL, 0, 0}};
static const unit_row bitrate_units[] = {
    {"bps", 1, 8},        {"kbps", 1e3, 8},     {"Mbps", 1e6, 8},     {"Gbps", 1e9, 8},
    {"bit/s", 1, 8},      {"kbit/s", 1e3, 8},   {"Mbit/s", 1e6, 8},   {"Gbit/s", 1e9, 8},
    {"B/s", 1, 1},        {"KB/s", 1e3, 1},     {"MB/s", 1e6, 1},     {"GB/s", 1e9, 1},
    {"KiB/s", RS_KIB, 1}, {"MiB/s", RS_MIB, 1}, {"GiB/s", RS_GIB, 1}, {NULL, 0, 0}};

static const unit_row *table_for(rs_unit_kind kind) {
  switch (kind) {
  case RS_UNIT_BYTES: return bytes_units;
  case RS_UNIT_SECONDS: return seconds_units;
  case RS_UNIT_COUNT: return count_units;
  case RS_UNIT_PERCENT: return percent_units;
  case RS_UNIT_BITRATE: return bitrate_units;
  }
  return NULL;
}

static const unit_row *unit_find(rs_unit_kind kind, const char *u, size_t n) {
  for (const unit_row *r = table_for(kind); r && r->name; r++)
    if (strlen(r->name) == n && memcmp(r->name, u, n) == 0)
      return r;
  return NULL;
}

rs_status rs_units_parse(rs_unit_kind kind, const char *s, size_t n, const char *default_unit,
                         double *out) {
  size_t end = 0, u;
  double v;
  const unit_row *unit;
  rs_status st;
  if (n > 0 && s[0] == '-')
    return RS_INVALID;
  /* The number ends where the first character that cannot continue one is. */
  while (end < n && (is_digit(s[end]) || s[end] == '.' || s[end] == '+' || s[end] == '-' ||
                     ((s[end] == 'e' || s[end] == 'E') && end + 1 < n &&
                      (is_digit(s[end + 1]) || s[end + 1] == '-' || s[end + 1] == '+'))))
    end++;
  st = rs_num_parse_double(s, end, &v);
  if (st != RS_OK)
    return st;
  if (v < 0)
    return RS_INVALID;
  u = end;
  while (u < n && s[u] == ' ')
    u++;
  if (end == n && default_unit != NULL)
    unit = unit_find(kind, default_unit, strlen(default_unit));
  else if (u == n && u != end)
    unit = NULL; /* trailing spaces and no unit */
  else
    unit = unit_find(kind, s + u, n - u); /* "" exists only where a unit is optional */
  if (unit == NULL)
    return RS_INVALID;
  v = v * unit->mul / unit->div;
  if (isinf(v))
    return RS_LIMIT;
  *out = v;
  return RS_OK;
}

int64_t rs_time_days_from_civil(int64_t y, unsigned m, unsigned d) {
  /* Howard Hinnant, "chrono-Compatible Low-Level Date Algorithms". */
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = (unsigned)(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + (int64_t)doe - 719468;
}

static bool leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static unsigned days_in_month(int64_t y, unsigned m) {
  static const unsigned dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : dm[m - 1];
}

/* Reads exactly `width` digits at s[*i]. */
static bool fixed_digits(const char *s, size_t n, size_t *i, int width, unsigned *out) {
  unsigned v = 0;
  for (int k = 0; k < width; k++, (*i)++) {
    if (*i >= n || !is_digit(s[*i]))
      return false;
    v = v * 10 + (unsigned)(s[*i] - '0');
  }
  *out = v;
  return true;
}

static bool expect_char(const char *s, size_t n, size_t *i, char c) {
  if (*i < n && s[*i] == c) {
    (*i)++;
    return true;
  }
  return false;
}

/* Optional ".fff..." fraction, at least one digit after the point. */
static bool fraction(const char *s, size_t n, size_t *i, double *out) {
  size_t start = *i;
  *out = 0.0;
  if (*i >= n || s[*i] != '.')
    return true;
  (*i)++;
  while (*i < n && is_digit(s[*i]))
    (*i)++;
  return rs_num_parse_double(s + start, *i - start, out) == RS_OK;
}

/* Optional zone: Z, +hh:mm, -hh:mm, +hhmm; returns seconds east of UTC. */
static bool zone(const char *s, size_t n, size_t *i, int64_t *offset) {
  unsigned hh, mm;
  int sign;
  *offset = 0;
  if (*i == n)
    return true;
  if (s[*i] == 'Z' || s[*i] == 'z') {
    (*i)++;
    return true;
  }
  if (s[*i] != '+' && s[*i] != '-')
    return false;
  sign = s[*i] == '-' ? -1 : 1;
  (*i)++;
  if (!fixed_digits(s, n, i, 2, &hh))
    return false;
  expect_char(s, n, i, ':');
  if (!fixed_digits(s, n, i, 2, &mm) || hh > 23 || mm > 59)
    return false;
  *offset = sign * (int64_t)(hh * 3600 + mm * 60);
  return true;
}

static rs_status parse_calendar(const char *s, size_t n, double *out) {
  size_t i = 0;
  unsigned y, mo, d, h, mi, sec;
  char sep;
  int64_t offset;
  double frac;
  if (!fixed_digits(s, n, &i, 4, &y))
    return RS_INVALID;
  if (i >= n || (s[i] != '-' && s[i] != '/'))
    return RS_INVALID;
  sep = s[i++];
  if (!fixed_digits(s, n, &i, 2, &mo) || !expect_char(s, n, &i, sep) ||
      !fixed_digits(s, n, &i, 2, &d))
    return RS_INVALID;
  /* RFC 3339 takes 'T' or a space; nvidia-smi writes a space. */
  if (i >= n || !(s[i] == ' ' || (sep == '-' && (s[i] == 'T' || s[i] == 't'))))
    return RS_INVALID;
  i++;
  if (!fixed_digits(s, n, &i, 2, &h) || !expect_char(s, n, &i, ':') ||
      !fixed_digits(s, n, &i, 2, &mi) || !expect_char(s, n, &i, ':') ||
      !fixed_digits(s, n, &i, 2, &sec))
    return RS_INVALID;
  if (!fraction(s, n, &i, &frac))
    return RS_INVALID;
  if (sep == '/')
    offset = 0; /* nvidia-smi: local time without a zone, read as UTC */
  else if (!zone(s, n, &i, &offset))
    return RS_INVALID;
  if (i != n || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 ||
      sec > 60)
    return RS_INVALID;
  double t =
      (double)(rs_time_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - offset) +
      frac;
  if (!rs_time_in_range(t))
    return RS_LIMIT; /* an offset pushed 9999-12-31 into 10000 or 1970-01-01 into 1969 */
  *out = t;
  return RS_OK;
}

rs_status rs_time_parse(const char *s, size_t n, double *out) {
  double v;
  size_t i = 0;
  if (n > 4 && (s[4] == '-' || s[4] == '/'))
    return parse_calendar(s, n, out);
  /* Unix seconds: digits with an optional fraction, nothing else. */
  while (i < n && is_digit(s[i]))
    i++;
  if (i == 0 || (i < n && !fraction(s, n, &i, &v)) || i != n)
    return RS_INVALID;
  if (rs_num_parse_double(s, n, &v) != RS_OK)
    return RS_INVALID;
  if (!rs_time_in_range(v))
    return RS_LIMIT;
  *out = v;
  return RS_OK;
}

bool rs_time_in_range(double t) { return t >= RS_TIME_MIN && t < RS_TIME_END; }

void rs_time_format(double t, char *buf, size_t size) {
  int64_t secs, days, rem;
  /* Only years 0000-9999 print as RFC 3339; the bounds also keep the
   * conversion to int64_t defined (a double past its range is undefined). */
  if (!(t >= RS_TIME_YEAR0 && t < RS_TIME_END)) {
    snprintf(buf, size, "-");
    return;
  }
  secs = (int64_t)floor(t);
  days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
  rem = secs - days * 86400;
  /* civil_from_days (Hinnant) */
  int64_t z = days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  unsigned doe = (unsigned)(z - era * 146097);
  unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = (int64_t)yoe + era * 400;
  unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  unsigned mp = (5 * doy + 2) / 153;
  unsigned d = doy - (153 * mp + 2) / 5 + 1;
  unsigned m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
  snprintf(buf, size, "%04lld-%02u-%02uT%02u:%02u:%02uZ", (long long)y, m, d,
           (unsigned)(rem / 3600), (unsigned)(rem % 3600 / 60), (unsigned)(rem % 60));
}
