/* The pull tokenizer of the streaming JSON reader (ingest_json_stream.c):
 * a window over the input (a file read with pread, a stream copied to a
 * spool file, or memory) with line:col, the JSON tokens, the common
 * query_range point read without the tokenizer, and RFC 3339 times with the
 * day remembered. Static inline: the reader's files (ingest_json_prom.c,
 * ingest_json_cloudwatch.c, ingest_json_stream.c) each compile it, so the
 * hot paths stay inlined. */
#ifndef RS_INGEST_JSON_CURSOR_H
#define RS_INGEST_JSON_CURSOR_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ingest_internal.h"
#include "ingest_stream.h"
#include "rightsize/num.h"

#define WINDOW ((size_t)1 << 20)        /* pass 1's window */
#define LOOK ((size_t)64 << 10)         /* a token (a string) is at most this long */
#define POINT_TOKEN 256                 /* a timestamp or value text is at most this long */
#define SMALL_LOOK 512                  /* pass 2's look-ahead (point tokens only) */
#define MERGE_MEMORY ((size_t)16 << 20) /* pass 2's windows together */
#define MERGE_WINDOW ((size_t)64 << 10) /* one series' window at most */
#define MAX_SERIES 100000               /* mapped series with points */
#define MAX_BATCH ((size_t)1 << 20)     /* points of one time */
#define LINEAR_MAX 64                   /* series merged by a scan rather than a heap */
#define MAX_DEPTH 60                    /* the tree reader's limit is 64 */
#define KEY_MAX 1000                    /* the tree reader's keys are at most 1024 characters */
#define MAX_LABELS 256
#define CW_BLOCK 1024      /* CloudWatch points read again at once (per result, in pass 2) */
#define CW_MAX_RESULTS 500 /* CloudWatch answers at most 500 queries at once */
#define QUICK_POINT 80     /* bytes a quick point may look at: 2 numbers of 32, 5 marks, margin */
#define QUICK_DP 400       /* a quick datapoint (dp_quick) is shorter than this */

/* Why pass 1 stopped: RS_OK, an error (err set), or a file the strict pass
 * does not take as it is (err set too, for files over the cap). */

typedef struct cursor {
  char *buf;
  size_t cap, look;
  size_t pos, end;
  long long base; /* file offset of buf[0] */
  bool eof;
  rs_instream *in; /* pass 1: the stream, copied to spool when set */
  FILE *spool;
  int fd;          /* pass 2 (and pass 1 over a file): read with pread */
  const char *mem; /* or, for a plain memory input, read from here */
  long long mem_len;
  long long next_off; /* the offset the next read starts at */
  long long limit;    /* pass 2: no read past this offset, taken as the end (0: none) */
  size_t line;
  long long line_start; /* file offset of the current line's first byte */
  long long cont;       /* UTF-8 continuation bytes on this line before pos */
  bool strict;
  const char *path;
  rs_error *err;
} cursor;

static inline rs_status fail(cursor *c, rs_status st, const char *what) {
  long long at = c->base + (long long)c->pos;
  size_t col = (size_t)(at - c->line_start - c->cont) + 1;
  return rs_error_set(c->err, st, c->path, c->line, col, "%s", what);
}

/* Strict mode refuses what the tree reader might read differently. */
static inline rs_status unusual(cursor *c, const char *what) {
  char msg[160];
  snprintf(msg, sizeof(msg), "%s, which the streaming JSON reader does not take", what);
  return fail(c, RS_INVALID, msg);
}

static inline rs_status fill(cursor *c) {
  if (c->pos > 0) {
    memmove(c->buf, c->buf + c->pos, c->end - c->pos);
    c->base += (long long)c->pos;
    c->end -= c->pos;
    c->pos = 0;
  }
  while (c->end < c->cap && !c->eof) {
    size_t got = 0;
    if (c->in != NULL) {
      rs_status st = rs_instream_read(c->in, c->buf + c->end, c->cap - c->end, &got, c->err);
      if (st != RS_OK)
        return st;
      if (got > 0 && c->spool != NULL && fwrite(c->buf + c->end, 1, got, c->spool) != got)
        return rs_error_set(c->err, RS_IO, c->path, 0, 0,
                            "cannot write the temporary copy of the input: %s", strerror(errno));
    } else if (c->mem != NULL) {
      long long stop = c->limit > 0 && c->limit < c->mem_len ? c->limit : c->mem_len;
      got = c->next_off < stop ? (size_t)(stop - c->next_off) : 0;
      if (got > c->cap - c->end)
        got = c->cap - c->end;
      if (got > 0)
        memcpy(c->buf + c->end, c->mem + c->next_off, got);
      c->next_off += (long long)got;
    } else {
      size_t want = c->cap - c->end;
      if (c->limit > 0 && (long long)want > c->limit - c->next_off)
        want = (size_t)(c->limit - c->next_off);
      ssize_t n = want > 0 ? pread(c->fd, c->buf + c->end, want, (off_t)c->next_off) : 0;
      if (n < 0)
        return rs_error_set(c->err, RS_IO, c->path, 0, 0, "cannot read: %s", strerror(errno));
      got = (size_t)n;
      c->next_off += n;
    }
    if (got == 0)
      c->eof = true;
    c->end += got;
    if (got > 0 && c->end - c->pos >= c->look)
      break;
  }
  return RS_OK;
}

static inline rs_status ensure(cursor *c) {
  return c->end - c->pos >= c->look || c->eof ? RS_OK : fill(c);
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && defined(__GNUC__)
#define SWAR 1 /* eight bytes looked at together (below, and digits8) */
#define ONES 0x0101010101010101u
#define HIGHS 0x8080808080808080u
/* The eight bytes at p as one number, the first byte lowest. */
static inline uint64_t load8(const char *p) {
  uint64_t x;
  memcpy(&x, p, 8);
  return x;
}
/* The high bit of each byte of x that is zero (exact up to the first). */
static inline uint64_t zero_bytes(uint64_t x) { return (x - ONES) & ~x & HIGHS; }
#else
#define SWAR 0
#endif

/* Skips JSON white space, counting lines (YAML's breaks: \n, \r\n, \r). */
static inline rs_status skip_ws(cursor *c) {
  for (;;) {
    while (c->pos < c->end) {
      char ch = c->buf[c->pos];
      if (ch == ' ') {
        c->pos++;
#if SWAR
        /* indentation: runs of spaces, eight at a time */
        while (c->pos + 8 <= c->end && c->buf[c->pos] == ' ') {
          uint64_t x = load8(c->buf + c->pos) ^ (0x20 * ONES);
          if (x != 0) {
            c->pos += (unsigned)__builtin_ctzll(x) >> 3;
            break;
          }
          c->pos += 8;
        }
#endif
      } else if (ch == '\n') {
        c->pos++;
        c->line++;
        c->line_start = c->base + (long long)c->pos;
        c->cont = 0;
      } else if (ch == '\r') {
        if (c->pos + 1 >= c->end && !c->eof) {
          rs_status st = fill(c);
          if (st != RS_OK)
            return st;
          continue;
        }
        if (c->pos + 1 < c->end && c->buf[c->pos + 1] == '\n')
          c->pos++;
        else if (c->strict)
          return unusual(c, "a carriage return without a line feed");
        c->pos++;
        c->line++;
        c->line_start = c->base + (long long)c->pos;
        c->cont = 0;
      } else if (ch == '\t') {
        if (c->strict)
          return unusual(c, "a tab");
        c->pos++;
      } else {
        return ensure(c);
      }
    }
    if (c->eof)
      return RS_OK;
    rs_status st = fill(c);
    if (st != RS_OK)
      return st;
  }
}

/* The next significant character, or -1 at the end of the input. */
static inline rs_status peek(cursor *c, int *ch) {
  rs_status st = skip_ws(c);
  *ch = c->pos < c->end ? (unsigned char)c->buf[c->pos] : -1;
  return st;
}

static inline rs_status syntax(cursor *c, int ch) {
  if (ch < 0)
    return fail(c, RS_SYNTAX,
                "unexpected end of the JSON text, expected a value or a closing bracket");
  size_t n = 0;
  while (n < 16 && c->pos + n < c->end && c->buf[c->pos + n] != '\n' && c->buf[c->pos + n] != '\r')
    n++;
  char msg[48];
  snprintf(msg, sizeof(msg), "invalid JSON at '%.*s'", (int)n, c->buf + c->pos);
  return fail(c, RS_SYNTAX, msg);
}

static inline rs_status expect(cursor *c, char want) {
  int ch;
  rs_status st = peek(c, &ch);
  if (st != RS_OK)
    return st;
  if (ch != want)
    return syntax(c, ch);
  c->pos++;
  return RS_OK;
}

/* A scalar token: its text (borrowed from the window until the next read),
 * where it starts, and whether it was a string. */
typedef struct token {
  const char *text;
  size_t len, line, col;
  bool quoted;
} token;

static inline void here(const cursor *c, size_t *line, size_t *col) {
  *line = c->line;
  *col = (size_t)(c->base + (long long)c->pos - c->line_start - c->cont) + 1;
}

/* A string at pos (the opening quote), its text unescaped in place is not
 * needed: strict mode refuses escapes, and so does this reader for now. */
static inline rs_status string_token(cursor *c, token *t, size_t max) {
  size_t i = c->pos + 1;
  long long cont = 0;
  here(c, &t->line, &t->col);
  for (;; i++) {
#if SWAR
    /* plain ASCII text, eight bytes at a time, up to the first byte that
     * needs a look: '"', '\\', a control character or a non-ASCII byte */
    while (i + 8 <= c->end && i - c->pos + 8 <= max) {
      uint64_t x = load8(c->buf + i);
      uint64_t stop = zero_bytes(x ^ (0x22 * ONES)) | zero_bytes(x ^ (0x5C * ONES)) |
                      ((x - 0x20 * ONES) & ~x & HIGHS) | (x & HIGHS);
      if (stop != 0) {
        i += (unsigned)__builtin_ctzll(stop) >> 3;
        break;
      }
      i += 8;
    }
#endif
    if (i >= c->end || i - c->pos - 1 > max) {
      c->pos = i < c->end ? i : c->end;
      return c->eof && i >= c->end ? syntax(c, -1)
                                   : fail(c, RS_LIMIT, "a string longer than 64 KiB");
    }
    unsigned char ch = (unsigned char)c->buf[i];
    if (ch == '"')
      break;
    if (ch == '\\') {
      c->pos = i;
      return unusual(c, "a string with a backslash escape");
    }
    if (ch < 0x20) {
      c->pos = i;
      return syntax(c, ch);
    }
    if (ch >= 0x80) {
      if (c->strict) {
        c->pos = i;
        return unusual(c, "a string with non-ASCII text");
      }
      if ((ch & 0xC0) == 0x80)
        cont++;
    }
  }
  t->text = c->buf + c->pos + 1;
  t->len = i - c->pos - 1;
  t->quoted = true;
  c->pos = i + 1;
  c->cont += cont;
  return RS_OK;
}

static inline bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/* A JSON number (RFC 8259's grammar), true, false or null. */
static inline rs_status bare_token(cursor *c, token *t, size_t max) {
  const char *p = c->buf + c->pos, *e = c->buf + c->end, *s = p;
  here(c, &t->line, &t->col);
  if (*p == 't' || *p == 'f' || *p == 'n') {
    const char *word = *p == 't' ? "true" : *p == 'f' ? "false" : "null";
    size_t n = strlen(word);
    if ((size_t)(e - p) < n || memcmp(p, word, n) != 0)
      return syntax(c, (unsigned char)*p);
    t->text = p;
    t->len = n;
  } else {
    if (p < e && *p == '-')
      p++;
    if (p < e && *p == '0')
      p++;
    else if (p < e && is_digit(*p))
      while (p < e && is_digit(*p))
        p++;
    else
      return syntax(c, p < e ? (unsigned char)*s : -1);
    if (p < e && *p == '.') {
      if (++p >= e || !is_digit(*p))
        return syntax(c, (unsigned char)*s);
      while (p < e && is_digit(*p))
        p++;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
      p++;
      if (p < e && (*p == '+' || *p == '-'))
        p++;
      if (p >= e || !is_digit(*p))
        return syntax(c, (unsigned char)*s);
      while (p < e && is_digit(*p))
        p++;
    }
    t->text = s;
    t->len = (size_t)(p - s);
  }
  if (t->len > max)
    return fail(c, RS_LIMIT, "a number longer than 256 characters");
  t->quoted = false;
  c->pos += t->len;
  return RS_OK;
}

static inline rs_status scalar(cursor *c, token *t, size_t max) {
  int ch;
  rs_status st = peek(c, &ch);
  if (st != RS_OK)
    return st;
  if (ch == '"')
    return string_token(c, t, max);
  if (ch == '-' || is_digit((char)ch) || ch == 't' || ch == 'f' || ch == 'n')
    return bare_token(c, t, max);
  return ch == '[' || ch == '{' ? unusual(c, "a list or object where a text was expected")
                                : syntax(c, ch);
}

static inline rs_status key_token(cursor *c, token *t) {
  int ch;
  rs_status st = peek(c, &ch);
  t->text = NULL; /* set on every path: GCC cannot tell once this is inlined */
  t->len = 0;
  if (st != RS_OK)
    return st;
  if (ch != '"')
    return syntax(c, ch);
  st = string_token(c, t, LOOK);
  if (st == RS_OK && t->len > KEY_MAX && c->strict)
    return unusual(c, "a key longer than 1000 characters");
  return st;
}

/* Which of words[] a key is (-1: none), then past its ':' (which may move
 * the window, so the key's text is read first). */
static inline rs_status key_is(cursor *c, const char *const *words, int *which) {
  token t;
  rs_status st = key_token(c, &t);
  *which = -1;
  for (int i = 0; st == RS_OK && words != NULL && words[i] != NULL; i++)
    if (t.len > 0 && words[i][0] == t.text[0] && t.len == strlen(words[i]) &&
        memcmp(t.text, words[i], t.len) == 0) {
      *which = i;
      break;
    }
  return st == RS_OK ? expect(c, ':') : st;
}

static inline bool is(const token *t, const char *word) {
  return t->len == strlen(word) && memcmp(t->text, word, t->len) == 0;
}

/* After an item of a list or object: true for another item, false at the
 * closing bracket. */
static inline rs_status next_item(cursor *c, char close, bool *more) {
  int ch;
  rs_status st = peek(c, &ch);
  if (st != RS_OK)
    return st;
  if (ch == ',') {
    c->pos++;
    *more = true;
    return RS_OK;
  }
  if (ch != close)
    return syntax(c, ch);
  c->pos++;
  *more = false;
  return RS_OK;
}

/* Opens a list or object: *more false when it is empty. */
static inline rs_status open_bracket(cursor *c, char open, char close, bool *more) {
  int ch;
  rs_status st = expect(c, open);
  *more = false;
  if (st == RS_OK)
    st = peek(c, &ch);
  if (st != RS_OK)
    return st;
  *more = ch != close;
  if (!*more)
    c->pos++;
  return RS_OK;
}

/* Checks and skips a value. Strict mode takes no object in a skipped value
 * (its keys are not checked for duplicates, as the tree reader does). */
static inline rs_status skip_value(cursor *c, int depth) {
  int ch;
  bool more;
  token t;
  rs_status st = peek(c, &ch);
  if (st != RS_OK)
    return st;
  if (depth > MAX_DEPTH)
    return c->strict ? unusual(c, "nesting deeper than 60 levels")
                     : fail(c, RS_LIMIT, "nesting deeper than 60 levels");
  if (ch == '[' || ch == '{') {
    char close = ch == '[' ? ']' : '}';
    if (ch == '{' && c->strict)
      return unusual(c, "an object in a part of the response that is not read");
    st = open_bracket(c, (char)ch, close, &more);
    while (st == RS_OK && more) {
      int which;
      if (ch == '{')
        st = key_is(c, NULL, &which);
      if (st == RS_OK)
        st = skip_value(c, depth + 1);
      if (st == RS_OK)
        st = next_item(c, close, &more);
    }
    return st;
  }
  return scalar(c, &t, LOOK);
}

/* ---- the common point, without the tokenizer ---- */

static const double pow10_exact[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

/* The run of ASCII digits at p, at most 8, as a number: its length. Eight
 * bytes from p must be readable. The bytes are looked at together (SWAR):
 * one load, a mask of the bytes that are not digits, and the digits
 * combined in three multiplications (Lemire, "Fast integer parsing"). */
static inline unsigned digits8(const char *p, uint64_t *v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && defined(__GNUC__)
  uint64_t x, stop;
  unsigned k;
  memcpy(&x, p, 8);
  x ^= 0x3030303030303030u; /* '0'..'9' -> 0..9, any other byte -> not 0..9 */
  stop = ((x + 0x7676767676767676u) | x) & 0x8080808080808080u;
  k = stop ? (unsigned)__builtin_ctzll(stop) >> 3 : 8;
  if (k == 0) {
    *v = 0;
    return 0;
  }
  x <<= 8 * (8 - k); /* the digits at the top, zeros (leading zeros) below */
  x = (x * 10 + (x >> 8)) & 0x00FF00FF00FF00FFu;
  x = (x * 100 + (x >> 16)) & 0x0000FFFF0000FFFFu;
  *v = (x * 10000 + (x >> 32)) & 0xFFFFFFFFu;
  return k;
#else
  unsigned k = 0;
  uint64_t m = 0;
  while (k < 8 && (unsigned)(p[k] - '0') <= 9)
    m = m * 10 + (uint64_t)(p[k++] - '0');
  *v = m;
  return k;
#endif
}

/* digits[.digits], at most 15 digits: the value rs_export_number gives
 * (one exact integer over an exact power of ten), and the end; NULL for
 * anything else. 32 bytes from p must be readable. */
static inline const char *short_decimal(const char *p, double *out) {
  static const uint64_t scale[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
  uint64_t m, part;
  unsigned k = digits8(p, &m), n = k, frac = 0;
  const char *q = p + k;
  if (k == 0)
    return NULL;
  if (k == 8) {
    k = digits8(q, &part);
    if (k == 8)
      return NULL;
    m = m * scale[k] + part;
    n += k;
    q += k;
  }
  if (*q == '.') {
    frac = digits8(q + 1, &part);
    if (frac == 0 || frac == 8)
      return NULL;
    m = m * scale[frac] + part;
    n += frac;
    q += 1 + frac;
  }
  if (n > 15)
    return NULL;
  *out = frac ? (double)m / pow10_exact[frac] : (double)m;
  return q;
}

/* A point as Prometheus writes it, [1764460800,"3012"] or with a decimal
 * time and value, and nothing else (no white space, no sign, no exponent,
 * a bare time without a leading zero): read straight from the window.
 * False, with nothing consumed, for anything else; the tokenizer reads
 * that, with the same result. *vq: the offset of the value's quote. */
typedef struct quick_point {
  double t, v;
  size_t vq, vlen, end;
} quick_point;

static inline bool quick_point_read(const cursor *c, quick_point *q) {
  const char *b = c->buf, *p = b + c->pos, *v;
  if (c->end - c->pos < QUICK_POINT || *p != '[' || (*++p == '0' && p[1] != '.' && p[1] != ','))
    return false;
  if ((p = short_decimal(p, &q->t)) == NULL || p[0] != ',' || p[1] != '"')
    return false;
  v = p + 2;
  if ((p = short_decimal(v, &q->v)) == NULL || p[0] != '"' || p[1] != ']')
    return false;
  q->vq = (size_t)(v - 1 - b);
  q->vlen = (size_t)(p - v);
  q->end = (size_t)(p + 2 - b);
  return true;
}

/* quick_point_read for pass 1's skim: the time, the value's text only
 * found (plain ASCII, no escape: what the tokenizer takes as it is), *nan
 * when it is "NaN", *end where the point ends. False, with nothing
 * consumed, for anything else. */
static inline bool quick_skim(const cursor *c, double *t, bool *nan, size_t *end) {
  const char *b = c->buf, *p = b + c->pos, *v;
  if (c->end - c->pos < QUICK_POINT || *p != '[' || (*++p == '0' && p[1] != '.' && p[1] != ','))
    return false;
  if ((p = short_decimal(p, t)) == NULL || p[0] != ',' || p[1] != '"')
    return false;
  v = p = p + 2;
#if SWAR
  {
    /* the first of 8 bytes that is '"', '\\', a control or non-ASCII byte */
    uint64_t x = load8(v);
    uint64_t stop = zero_bytes(x ^ (0x22 * ONES)) | zero_bytes(x ^ (0x5C * ONES)) |
                    ((x - 0x20 * ONES) & ~x & HIGHS) | (x & HIGHS);
    if (stop != 0)
      p = v + ((unsigned)__builtin_ctzll(stop) >> 3);
    else
      for (p = v + 8; p - v < 32 && (unsigned char)(*p - 0x20) < 0x60 && *p != '"' && *p != '\\';
           p++)
        ;
  }
#else
  for (; p - v < 32 && (unsigned char)(*p - 0x20) < 0x60 && *p != '"' && *p != '\\'; p++)
    ;
#endif
  if (*p != '"' || p[1] != ']')
    return false;
  *nan = p - v == 3 && memcmp(v, "NaN", 3) == 0;
  *end = (size_t)(p + 2 - b);
  return true;
}

/* next_item for a list of points, the common ',' or ']' first. */
static inline rs_status next_point(cursor *c, bool *more) {
  if (c->pos < c->end && (c->buf[c->pos] == ',' || c->buf[c->pos] == ']')) {
    *more = c->buf[c->pos++] == ',';
    return RS_OK;
  }
  return next_item(c, ']', more);
}

/* ---- RFC 3339 times, the day remembered ---- */

/* The last whole-second time read, "2026-11-30T14:05:01+00:00": a time of
 * the same day and zone (the same text but for HH:MM:SS) is that day plus
 * its time of day, exact in a double, without parsing the date again. */
typedef struct day_cache {
  char text[40];
  size_t len;
  double t, tod;
} day_cache;

/* HH:MM:SS at s + 11 as seconds of the day; -1 when it is not one. */
static inline int time_of_day(const char *s) {
  const char *p = s + 11;
  for (int i = 0; i < 8; i++)
    if (i % 3 == 2 ? p[i] != ':' : (unsigned)(p[i] - '0') > 9)
      return -1;
  int h = (p[0] - '0') * 10 + p[1] - '0', m = (p[3] - '0') * 10 + p[4] - '0',
      sec = (p[6] - '0') * 10 + p[7] - '0';
  return h <= 23 && m <= 59 && sec <= 59 ? h * 3600 + m * 60 + sec : -1;
}

/* rs_time_parse, the same value. */
static inline rs_status time_parse(day_cache *d, const char *s, size_t n, double *out) {
  int tod;
  rs_status st;
  if (n >= 20 && d->len == n && memcmp(s, d->text, 11) == 0 &&
      memcmp(s + 19, d->text + 19, n - 19) == 0 && (tod = time_of_day(s)) >= 0) {
    double t = d->t - d->tod + tod;
    if (rs_time_in_range(t)) {
      *out = t;
      return RS_OK;
    }
  }
  st = rs_time_parse(s, n, out);
  if (st == RS_OK && n >= 20 && n < sizeof(d->text) && s[10] == 'T' &&
      *out == (double)(long long)*out && (tod = time_of_day(s)) >= 0) {
    memcpy(d->text, s, n);
    d->len = n;
    d->t = *out;
    d->tod = tod;
  }
  return st;
}

#endif
