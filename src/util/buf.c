#include "rightsize/buf.h"

#include "escape.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rs_buf_init(rs_buf *buf, size_t cap) {
  memset(buf, 0, sizeof(*buf));
  buf->cap = cap ? cap : RS_BUF_DEFAULT_CAP;
}

void rs_buf_release(rs_buf *buf) {
  free(buf->data);
  size_t cap = buf->cap;
  memset(buf, 0, sizeof(*buf));
  buf->cap = cap;
}

rs_status rs_buf_status(const rs_buf *buf) {
  /* A caller that set `failed` itself did so because its own malloc failed. */
  return !buf->failed ? RS_OK : buf->why != RS_OK ? buf->why : RS_NOMEM;
}

void rs_buf_reset(rs_buf *buf) {
  buf->len = 0;
  buf->failed = false;
  buf->why = RS_OK;
  if (buf->data)
    buf->data[0] = '\0';
}

static rs_status grow(rs_buf *buf, size_t extra) {
  size_t need, na;
  char *p;
  if (buf->failed)
    return rs_buf_status(buf);
  if (extra > buf->cap || buf->len > buf->cap - extra) {
    buf->failed = true;
    return buf->why = RS_LIMIT;
  }
  need = buf->len + extra + 1;
  if (need <= buf->alloc)
    return RS_OK;
  na = buf->alloc ? buf->alloc : 256;
  while (na < need)
    na = na > ((size_t)-1) / 2 ? need : na * 2;
  p = realloc(buf->data, na);
  if (p == NULL) {
    buf->failed = true;
    return buf->why = RS_NOMEM;
  }
  buf->data = p;
  buf->alloc = na;
  return RS_OK;
}

rs_status rs_buf_append(rs_buf *buf, const void *data, size_t n) {
  rs_status st = grow(buf, n);
  if (st != RS_OK)
    return st;
  if (n)
    memcpy(buf->data + buf->len, data, n);
  buf->len += n;
  buf->data[buf->len] = '\0';
  return RS_OK;
}

rs_status rs_buf_puts(rs_buf *buf, const char *s) { return rs_buf_append(buf, s, strlen(s)); }

rs_status rs_buf_putc(rs_buf *buf, char c) { return rs_buf_append(buf, &c, 1); }

rs_status rs_buf_printf(rs_buf *buf, const char *fmt, ...) {
  va_list ap;
  int n;
  char small[256];
  rs_status st;

  va_start(ap, fmt);
  n = vsnprintf(small, sizeof(small), fmt, ap);
  va_end(ap);
  if (n < 0)
    return RS_INTERNAL;
  if ((size_t)n < sizeof(small))
    return rs_buf_append(buf, small, (size_t)n);
  st = grow(buf, (size_t)n);
  if (st != RS_OK)
    return st;
  va_start(ap, fmt);
  vsnprintf(buf->data + buf->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  buf->len += (size_t)n;
  return RS_OK;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid. */
static size_t utf8_len(const unsigned char *s) {
  if (s[0] < 0x80)
    return 1;
  if (s[0] >= 0xC2 && s[0] <= 0xDF)
    return (s[1] & 0xC0) == 0x80 ? 2 : 0;
  if (s[0] >= 0xE0 && s[0] <= 0xEF) {
    if ((s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80)
      return 0;
    if (s[0] == 0xE0 && s[1] < 0xA0)
      return 0;
    if (s[0] == 0xED && s[1] > 0x9F)
      return 0;
    return 3;
  }
  if (s[0] >= 0xF0 && s[0] <= 0xF4) {
    if ((s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80)
      return 0;
    if ((s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] > 0x8F))
      return 0;
    return 4;
  }
  return 0;
}

rs_status rs_buf_put_json_string(rs_buf *buf, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  rs_buf_putc(buf, '"');
  while (*p) {
    size_t n;
    switch (*p) {
    case '"':
      rs_buf_puts(buf, "\\\"");
      p++;
      continue;
    case '\\':
      rs_buf_puts(buf, "\\\\");
      p++;
      continue;
    case '\n':
      rs_buf_puts(buf, "\\n");
      p++;
      continue;
    case '\r':
      rs_buf_puts(buf, "\\r");
      p++;
      continue;
    case '\t':
      rs_buf_puts(buf, "\\t");
      p++;
      continue;
    default: break;
    }
    if (*p < 0x20) {
      rs_buf_printf(buf, "\\u%04x", *p);
      p++;
      continue;
    }
    n = utf8_len(p);
    if (n == 0) {
      rs_buf_puts(buf, "\\ufffd");
      p++;
      continue;
    }
    rs_buf_append(buf, p, n);
    p += n;
  }
  return rs_buf_putc(buf, '"');
}

rs_status rs_buf_put_text(rs_buf *buf, const char *s) {
  char text[1024];
  size_t n = rs_escape_text(text, sizeof(text), s, strlen(s), 0);
  return rs_buf_append(buf, text, n);
}

rs_status rs_buf_put_markdown(rs_buf *buf, const char *s) {
  char text[1024];
  size_t n = rs_escape_markdown(text, sizeof(text), s, strlen(s));
  return rs_buf_append(buf, text, n);
}

/* The integer k (|k| < 2^50) with a point before its last decimals digits:
 * what printf's "%.*f" prints for k / 10^decimals. That quotient is
 * rounded to the double nearest it, within 2^-53 |k| / 10^decimals <
 * 2^-3 / 10^decimals of it, far inside half a unit of the last printed
 * place, so printf's correctly rounded digits of that double are k's
 * whatever its rule for ties (tests/unit/test_buf.c compares the two on
 * random values). A table of a few hundred figures cost a printf each. */
static rs_status put_scaled(rs_buf *buf, double k, int decimals) {
  char tmp[32], *p = tmp + sizeof(tmp);
  unsigned long long u = (unsigned long long)fabs(k);
  int n = 0;
  do {
    if (n == decimals && n > 0)
      *--p = '.';
    *--p = (char)('0' + u % 10);
    u /= 10;
    n++;
  } while (u > 0 || n <= decimals);
  if (k < 0)
    *--p = '-';
  return rs_buf_append(buf, p, (size_t)(tmp + sizeof(tmp) - p));
}

rs_status rs_buf_put_fixed(rs_buf *buf, double v, int decimals) {
  if (!isfinite(v))
    return rs_buf_puts(buf, "null");
  if (v == 0.0)
    v = 0.0; /* no "-0.000" */
  /* Round half away from zero at the printed precision first, so that a
   * value such as -0.0004 prints as 0.000 and not -0.000. */
  double scale = pow(10.0, decimals);
  double k = round(v * scale);
  double r = k / scale;
  /* Past 2^53 (or past the range of a double) the scaled value has no
   * fraction left to round, and rounding it would print "inf" or "nan". */
  if (!isfinite(v * scale) || fabs(v * scale) >= 9007199254740992.0)
    r = v;
  else if (decimals >= 0 && decimals <= 9 && fabs(k) < 0x1p50)
    return put_scaled(buf, k, decimals);
  if (r == 0.0)
    r = 0.0;
  return rs_buf_printf(buf, "%.*f", decimals, r);
}

rs_status rs_buf_put_csv(rs_buf *buf, const char *s) {
  if (strpbrk(s, ",\"\r\n") == NULL)
    return rs_buf_puts(buf, s);
  rs_buf_putc(buf, '"');
  for (; *s; s++) {
    if (*s == '"')
      rs_buf_putc(buf, '"');
    rs_buf_putc(buf, *s);
  }
  return rs_buf_putc(buf, '"');
}

void rs_buf_rstrip(rs_buf *buf) {
  while (buf->len > 0 && buf->data[buf->len - 1] == ' ')
    buf->data[--buf->len] = '\0';
}
