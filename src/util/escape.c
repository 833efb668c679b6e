/* Escaping untrusted text (escape.h). */
#include "escape.h"

#include <stdbool.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at s (2-4), or 0 when s[0] does
 * not start one. Overlong forms and surrogates are invalid. */
static size_t utf8_len(const unsigned char *s, size_t n) {
  size_t len;
  unsigned cp;
  if (s[0] >= 0xc2 && s[0] <= 0xdf)
    len = 2, cp = s[0] & 0x1fu;
  else if (s[0] >= 0xe0 && s[0] <= 0xef)
    len = 3, cp = s[0] & 0x0fu;
  else if (s[0] >= 0xf0 && s[0] <= 0xf4)
    len = 4, cp = s[0] & 0x07u;
  else
    return 0;
  if (len > n)
    return 0;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xc0) != 0x80)
      return 0;
    cp = cp << 6 | (s[i] & 0x3fu);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
      (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
    return 0; /* overlong, out of range, a surrogate, or a C1 control */
  return len;
}

/* The escape of the byte c, into e (at least 5 bytes); returns its length. */
static size_t escape_byte(char *e, unsigned char c) {
  static const char hex[] = "0123456789abcdef";
  if (c == '\n' || c == '\r' || c == '\t') {
    e[0] = '\\';
    e[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
    return 2;
  }
  e[0] = '\\';
  e[1] = 'x';
  e[2] = hex[c >> 4];
  e[3] = hex[c & 15];
  return 4;
}

/* The next piece of s at i: a printable byte, a UTF-8 sequence or an
 * escape, into piece; returns its length and advances *i. */
static size_t next_piece(char *piece, const char *s, size_t n, size_t *i) {
  const unsigned char *u = (const unsigned char *)s + *i;
  size_t len;
  if (u[0] >= 0x20 && u[0] < 0x7f) {
    piece[0] = (char)u[0];
    (*i)++;
    return 1;
  }
  if (u[0] >= 0x80 && (len = utf8_len(u, n - *i)) > 0) {
    memcpy(piece, u, len);
    *i += len;
    return len;
  }
  (*i)++;
  return escape_byte(piece, u[0]);
}

/* The escaped length of s[0..n), counted no further than past stop. */
static size_t escaped_len(const char *s, size_t n, size_t stop) {
  size_t i = 0, total = 0;
  char piece[8];
  while (i < n && total <= stop)
    total += next_piece(piece, s, n, &i);
  return total;
}

size_t rs_escape_text(char *dst, size_t size, const char *s, size_t n, size_t cap) {
  size_t i = 0, out = 0;
  char piece[8];
  bool cut;
  if (size == 0)
    return 0;
  /* Cut when over the cap or the room; a cut text keeps room for "...". */
  cut = (cap && n > cap) || escaped_len(s, n, size - 1) > size - 1;
  size_t limit = cap && n > cap ? cap : n;
  size_t room = size - 1 - (cut ? (size - 1 < 3 ? size - 1 : 3) : 0);
  while (i < limit) {
    size_t at = i, k = next_piece(piece, s, n, &i);
    if (k > room - out) {
      i = at;
      break;
    }
    memcpy(dst + out, piece, k);
    out += k;
  }
  if (cut) {
    size_t dots = size - 1 - out < 3 ? size - 1 - out : 3;
    memcpy(dst + out, "...", dots);
    out += dots;
  }
  dst[out] = '\0';
  return out;
}

size_t rs_escape_markdown(char *dst, size_t size, const char *s, size_t n) {
  static const char markup[] = "\\`*_{}[]<>()#+!~&"; /* '|': the table writer escapes it */
  char plain[512];
  size_t out = 0, len = rs_escape_text(plain, sizeof(plain), s, n, 0);
  if (size == 0)
    return 0;
  for (size_t i = 0; i < len; i++) {
    bool mark = strchr(markup, plain[i]) != NULL;
    if (out + 1 + mark >= size)
      break;
    if (mark)
      dst[out++] = '\\';
    dst[out++] = plain[i];
  }
  dst[out] = '\0';
  return out;
}
