/* Prometheus query_range JSON and CloudWatch get-metric-data output read
 * as a stream: memory flat in the file's size (docs/scale.md, "Exports").
 *
 * A query_range answer: pass 1 reads the document once, in order, through
 * a fixed window (a pull tokenizer with line:col), checks its structure and
 * labels and skims the points (skim_values: their times in order, no value
 * read), noting where each mapped series' values start. Rows need the
 * series joined by time; each series is in time order (as Prometheus
 * answers), so pass 2 merges them: one small window per series over the
 * same bytes (the file, or a spooled copy of standard input or a
 * decompressed stream), picked in rs_export_emit's order (a scan, or a heap
 * past 64 series), each point checked as the tree reader does
 * (rs_export_point_make) and the points of one time folded into rows. The
 * common point, [1764460800,"3012"], is read without the tokenizer
 * (quick_point_read), each number once. When pass 2 meets a mistake, pass 1
 * runs again in full (read_values: every point checked, in file order), so
 * the error reported is the first in the file, as before.
 *
 * CloudWatch get-metric-data output: pass 1 checks every point in file
 * order and notes the place of every CW_BLOCK-th timestamp and value of
 * each result; pass 2 reads a block of a result again at a time, oldest
 * first whichever order the result is in, into the same merge.
 *
 * Only the series' notes, one window each (two for a CloudWatch result and
 * a block of its points) and the points of one time stay in memory.
 *
 * Files up to RS_INGEST_EXPORT_MAX keep the tree reader's exact behaviour:
 * pass 1 is strict (plain strings, keys in the exporters' order, nothing
 * the tree reader might read differently) and any error or anything unusual
 * hands the file to rs_ingest_export_at, whose output and messages are then
 * the answer. Larger files, which the tree reader refuses, get this
 * reader's own positioned errors. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static rs_status fail(cursor *c, rs_status st, const char *what) {
  long long at = c->base + (long long)c->pos;
  size_t col = (size_t)(at - c->line_start - c->cont) + 1;
  return rs_error_set(c->err, st, c->path, c->line, col, "%s", what);
}

/* Strict mode refuses what the tree reader might read differently. */
static rs_status unusual(cursor *c, const char *what) {
  char msg[160];
  snprintf(msg, sizeof(msg), "%s, which the streaming JSON reader does not take", what);
  return fail(c, RS_INVALID, msg);
}

static rs_status fill(cursor *c) {
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
static rs_status skip_ws(cursor *c) {
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
static rs_status peek(cursor *c, int *ch) {
  rs_status st = skip_ws(c);
  *ch = c->pos < c->end ? (unsigned char)c->buf[c->pos] : -1;
  return st;
}

static rs_status syntax(cursor *c, int ch) {
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

static rs_status expect(cursor *c, char want) {
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

static void here(const cursor *c, size_t *line, size_t *col) {
  *line = c->line;
  *col = (size_t)(c->base + (long long)c->pos - c->line_start - c->cont) + 1;
}

/* A string at pos (the opening quote), its text unescaped in place is not
 * needed: strict mode refuses escapes, and so does this reader for now. */
static rs_status string_token(cursor *c, token *t, size_t max) {
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

static bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/* A JSON number (RFC 8259's grammar), true, false or null. */
static rs_status bare_token(cursor *c, token *t, size_t max) {
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

static rs_status scalar(cursor *c, token *t, size_t max) {
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

static rs_status key_token(cursor *c, token *t) {
  int ch;
  rs_status st = peek(c, &ch);
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
static rs_status key_is(cursor *c, const char *const *words, int *which) {
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

static bool is(const token *t, const char *word) {
  return t->len == strlen(word) && memcmp(t->text, word, t->len) == 0;
}

/* After an item of a list or object: true for another item, false at the
 * closing bracket. */
static rs_status next_item(cursor *c, char close, bool *more) {
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
static rs_status open_bracket(cursor *c, char open, char close, bool *more) {
  int ch;
  rs_status st = expect(c, open);
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
static rs_status skip_value(cursor *c, int depth) {
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

/* ---- the series ---- */

typedef struct series {
  const char *key; /* arena */
  rs_series_rule rule;
  int gpu;
  long long off; /* the values' '[' (a CloudWatch result: its timestamps' first item) */
  size_t line;
  long long line_start, cont;
  bool cw;           /* a CloudWatch result: its points in blocks (cw_block) */
  bool dp;           /* get-metric-statistics Datapoints: one object per time */
  bool newest_first; /* CloudWatch's default order */
  uint64_t n;        /* a CloudWatch result's points */
  size_t mark0;      /* where its blocks' places start in reader.marks */
} series;

/* Where a token starts, to read from there again. */
typedef struct place {
  long long off, line_start, cont;
  size_t line;
} place;

typedef struct label {
  char *key, *value;
  size_t line, col; /* the value's */
} label;

typedef struct reader {
  rs_export *x;
  cursor *c;
  series *s;
  size_t n, cap;
  uint64_t points;
  label labels[MAX_LABELS];
  size_t nlabels;
  bool skim;    /* pass 1 only finds the points (skim_values); pass 2 checks them */
  bool cw;      /* CloudWatch get-metric-data output rather than a query_range answer */
  place *marks; /* CloudWatch: per block of CW_BLOCK points, its first timestamp, value */
  size_t nmarks, marks_cap;
  struct dp_ctx *dp;      /* get-metric-statistics: the metric's label, keys and rules */
  struct day_cache *days; /* CloudWatch, pass 1 */
} reader;

static void labels_clear(reader *r) {
  for (size_t i = 0; i < r->nlabels; i++) {
    free(r->labels[i].key);
    free(r->labels[i].value);
  }
  r->nlabels = 0;
}

static const label *label_get(const reader *r, const char *key) {
  for (size_t i = 0; i < r->nlabels; i++)
    if (strcmp(r->labels[i].key, key) == 0)
      return &r->labels[i];
  return NULL;
}

static char *copy_text(const token *t) {
  char *s = malloc(t->len + 1);
  if (s != NULL) {
    memcpy(s, t->text, t->len);
    s[t->len] = '\0';
  }
  return s;
}

static rs_status read_labels(reader *r) {
  cursor *c = r->c;
  bool more;
  token k, v;
  rs_status st = open_bracket(c, '{', '}', &more);
  labels_clear(r);
  while (st == RS_OK && more) {
    char *key;
    if ((st = key_token(c, &k)) != RS_OK)
      return st;
    if ((key = copy_text(&k)) == NULL)
      return rs_error_set(c->err, RS_NOMEM, c->path, 0, 0, "out of memory reading labels");
    st = expect(c, ':');
    if (st == RS_OK)
      st = scalar(c, &v, LOOK);
    if (st == RS_OK && !v.quoted)
      st = unusual(c, "a label value that is not a string");
    if (st == RS_OK && label_get(r, key) != NULL)
      st = unusual(c, "a duplicate label");
    if (st == RS_OK && r->nlabels == MAX_LABELS)
      st = unusual(c, "more than 256 labels on a series");
    if (st != RS_OK) {
      free(key);
      return st;
    }
    label *l = &r->labels[r->nlabels++];
    l->key = key;
    l->line = v.line;
    l->col = v.col;
    if ((l->value = copy_text(&v)) == NULL)
      return rs_error_set(c->err, RS_NOMEM, c->path, 0, 0, "out of memory reading labels");
    st = next_item(c, '}', &more);
  }
  return st;
}

static bool selected(const reader *r) {
  const rs_selection *sel = r->x->select;
  for (size_t k = 0; sel != NULL && k < sel->n; k++) {
    const label *l = label_get(r, sel->m[k].key);
    if (l == NULL || strcmp(l->value, sel->m[k].value) != 0)
      return false;
  }
  return true;
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
  for (v = p = p + 2; p - v < 32 && (unsigned char)(*p - 0x20) < 0x60 && *p != '"' && *p != '\\';
       p++)
    ;
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

/* Pass 1's point through the tokenizer: its time, and whether its value is
 * "NaN" (no value). Any mistake is an error; pass 1 then runs again in
 * full (read_values) for the message. */
static rs_status skim_point(cursor *c, double *t, bool *nan) {
  token tt, v;
  rs_status st = expect(c, '[');
  if (st == RS_OK)
    st = scalar(c, &tt, POINT_TOKEN);
  if (st == RS_OK && rs_export_number(tt.text, tt.len, t) != RS_OK)
    st = fail(c, RS_INVALID, "a point without a timestamp");
  if (st == RS_OK)
    st = expect(c, ',');
  if (st == RS_OK)
    st = scalar(c, &v, POINT_TOKEN);
  if (st == RS_OK)
    *nan = is(&v, "NaN");
  return st == RS_OK ? expect(c, ']') : st;
}

/* One point [t, "v"]: its time and value checked as the tree reader does. */
static rs_status read_point(cursor *c, const rs_export *x, const series *s, rs_export_point *p,
                            bool *kept) {
  token t, v;
  double when;
  rs_status st = expect(c, '[');
  if (st == RS_OK)
    st = scalar(c, &t, POINT_TOKEN);
  if (st != RS_OK)
    return st;
  if (rs_export_number(t.text, t.len, &when) != RS_OK || !rs_time_in_range(when))
    return rs_error_set(c->err, RS_INVALID, c->path, t.line, t.col,
                        "expected a timestamp in unix seconds from 1970-01-01 to 9999-12-31 UTC "
                        "in series '%s', got '%.*s'",
                        s->key, (int)t.len, t.text);
  st = expect(c, ',');
  if (st == RS_OK)
    st = scalar(c, &v, POINT_TOKEN);
  if (st == RS_OK)
    st = rs_export_point_make(x, &s->rule, s->key, s->gpu, when, v.text, v.len, v.line, v.col, p,
                              kept, c->err);
  return st == RS_OK ? expect(c, ']') : st;
}

/* A series with n points to merge, noted for pass 2. */
static rs_status keep_series(reader *r, const series *s, uint64_t n) {
  cursor *c = r->c;
  rs_status st = RS_OK;
  if (n > 0) {
    if (r->n == MAX_SERIES)
      return rs_error_set(c->err, RS_LIMIT, c->path, s->line, 1,
                          "more than %d series with points in one file", MAX_SERIES);
    if (r->n == r->cap) {
      size_t cap = r->cap ? r->cap * 2 : 64;
      series *grown = rs_realloc_array(r->s, cap, sizeof(*grown));
      if (grown == NULL)
        return rs_error_set(c->err, RS_NOMEM, c->path, 0, 0, "out of memory reading series");
      r->s = grown;
      r->cap = cap;
    }
    r->s[r->n++] = *s;
    r->points += n;
  }
  return st;
}

/* Where a series' values start (noted for pass 2), then past their '['. */
static rs_status values_start(cursor *c, series *s, bool *more) {
  rs_status st = skip_ws(c);
  if (st != RS_OK)
    return st;
  s->off = c->base + (long long)c->pos;
  s->line = c->line;
  s->line_start = c->line_start;
  s->cont = c->cont;
  return open_bracket(c, '[', ']', more);
}

/* The values of a mapped series: every point checked, in file order. */
static rs_status read_values(reader *r, series *s) {
  cursor *c = r->c;
  bool more;
  double last = -1.0;
  uint64_t kept_n = 0;
  rs_status st = values_start(c, s, &more);
  while (st == RS_OK && more) {
    rs_export_point p;
    bool kept;
    int ch;
    if ((st = peek(c, &ch)) == RS_OK && ch != '[')
      st = ch == '{' || ch == '"' || ch == '-' || is_digit((char)ch)
               ? unusual(c, "a point that is not a list [unix_seconds, \"value\"]")
               : syntax(c, ch);
    if (st == RS_OK)
      st = read_point(c, r->x, s, &p, &kept);
    if (st == RS_OK && kept) {
      if (p.t < last)
        return rs_error_set(c->err, RS_INVALID, c->path, p.line, p.col,
                            "a point of series '%s' earlier than the one before it, expected "
                            "the points of a series in time order (as Prometheus answers)",
                            s->key);
      last = p.t;
      kept_n++;
    }
    if (st == RS_OK)
      st = next_item(c, ']', &more);
  }
  return st == RS_OK ? keep_series(r, s, kept_n) : st;
}

/* Pass 1 in skim mode: the values' place and their times in order, no value
 * read (pass 2 checks each as read_point does). The strict checks are those
 * of the tokenizer. */
static rs_status skim_values(reader *r, series *s) {
  cursor *c = r->c;
  bool more;
  double last = -1.0;
  uint64_t n = 0;
  rs_status st = values_start(c, s, &more);
  while (st == RS_OK && more) {
    double t;
    size_t end;
    bool nan = false;
    if ((st = ensure(c)) != RS_OK)
      return st;
    if (quick_skim(c, &t, &nan, &end)) {
      c->pos = end;
    } else if ((st = skim_point(c, &t, &nan)) != RS_OK) {
      return st;
    }
    if (!nan) {
      if (t < last)
        return fail(c, RS_INVALID, "a point earlier than the one before it");
      last = t;
      n++;
    }
    st = next_point(c, &more);
  }
  return st == RS_OK ? keep_series(r, s, n) : st;
}

/* What prom_series does once a series has its labels and its values. */
static rs_status series_values(reader *r) {
  cursor *c = r->c;
  rs_export *x = r->x;
  series s = {.gpu = -1};
  bool found = false;
  const label *key, *gpu;
  rs_status st;
  if (!selected(r)) {
    rs_export_deselect(x);
    return skip_value(c, 4);
  }
  key = label_get(r, "rs_metric");
  if (key == NULL)
    key = label_get(r, "__name__");
  if (key == NULL) {
    x->series++;
    if (x->unmapped == NULL)
      x->unmapped = "(a series without __name__ or rs_metric label)";
    return skip_value(c, 4);
  }
  if (rs_llm_is_series(x, key->value))
    return unusual(c, "a vLLM, TGI or SGLang counter or histogram");
  if ((s.key = rs_arena_strdup(x->arena, key->value)) == NULL)
    return rs_arena_error(x->arena, c->err, c->path, "reading the file");
  st = rs_export_rule(x, s.key, &s.rule, &found, key->line, key->col, c->err);
  if (st != RS_OK)
    return st;
  if (!found)
    return skip_value(c, 4);
  gpu = label_get(r, "gpu");
  if (gpu != NULL && rs_metric_per_device(s.rule.metric))
    st = rs_export_gpu(&s.gpu, x, gpu->value, strlen(gpu->value), gpu->line, gpu->col, c->err);
  if (st != RS_OK)
    return st;
  return r->skim ? skim_values(r, &s) : read_values(r, &s);
}

static rs_status read_series(reader *r) {
  cursor *c = r->c;
  static const char *const keys[] = {"metric", "values", "value", NULL};
  bool more, metric = false, values = false;
  int ch, which;
  rs_status st = peek(c, &ch);
  if (st == RS_OK && ch != '{')
    return ch == '[' || ch == '"' ? unusual(c, "a series that is not an object") : syntax(c, ch);
  st = open_bracket(c, '{', '}', &more);
  while (st == RS_OK && more) {
    if ((st = key_is(c, keys, &which)) != RS_OK)
      return st;
    if (which == 0) {
      if (metric || values)
        return unusual(c, metric ? "a duplicate key 'metric'" : "'metric' after 'values'");
      metric = true;
      if ((st = peek(c, &ch)) == RS_OK && ch != '{')
        return unusual(c, "labels that are not an object");
      st = read_labels(r);
    } else if (which == 1) {
      if (!metric || values)
        return unusual(c, values ? "a duplicate key 'values'" : "'values' before 'metric'");
      values = true;
      if ((st = peek(c, &ch)) == RS_OK && ch != '[')
        return unusual(c, "values that are not a list");
      st = series_values(r);
    } else if (which == 2) {
      return unusual(c, "an instant vector ('value')");
    } else {
      st = skip_value(c, 4);
    }
    if (st == RS_OK)
      st = next_item(c, '}', &more);
  }
  if (st == RS_OK && !values)
    return unusual(c, "a series without 'metric' and 'values'");
  return st;
}

static rs_status read_result(reader *r) {
  cursor *c = r->c;
  bool more;
  int ch;
  rs_status st = peek(c, &ch);
  if (st == RS_OK && ch != '[')
    return unusual(c, "a result that is not a list");
  if (st == RS_OK)
    st = open_bracket(c, '[', ']', &more);
  if (st == RS_OK && !more)
    return unusual(c, "no samples: the query returned no series");
  while (st == RS_OK && more) {
    st = read_series(r);
    if (st == RS_OK)
      st = next_item(c, ']', &more);
  }
  return st;
}

/* A key whose value must be the string want. */
static rs_status want_text(cursor *c, const char *key, const char *want) {
  token t;
  rs_status st = scalar(c, &t, LOOK);
  if (st == RS_OK && (!t.quoted || !is(&t, want)))
    return rs_error_set(c->err, RS_INVALID, c->path, t.line, t.col,
                        "%s is not '%s', which the streaming JSON reader does not take", key, want);
  return st;
}

static rs_status read_data(reader *r) {
  cursor *c = r->c;
  static const char *const keys[] = {"resultType", "result", NULL};
  bool more, type = false, result = false;
  int ch, which;
  rs_status st = peek(c, &ch);
  if (st == RS_OK && ch != '{')
    return unusual(c, "data that is not an object");
  if (st == RS_OK)
    st = open_bracket(c, '{', '}', &more);
  while (st == RS_OK && more) {
    if ((st = key_is(c, keys, &which)) != RS_OK)
      return st;
    if (which == 0) {
      if (type)
        return unusual(c, "a duplicate key 'resultType'");
      type = true;
      st = want_text(c, "resultType", "matrix");
    } else if (which == 1) {
      if (!type || result)
        return unusual(c, result ? "a duplicate key 'result'" : "'result' before 'resultType'");
      result = true;
      st = read_result(r);
    } else {
      st = skip_value(c, 2);
    }
    if (st == RS_OK)
      st = next_item(c, '}', &more);
  }
  if (st == RS_OK && !result)
    return unusual(c, "data without 'result'");
  return st;
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
static int time_of_day(const char *s) {
  const char *p = s + 11;
  for (int i = 0; i < 8; i++)
    if (i % 3 == 2 ? p[i] != ':' : (unsigned)(p[i] - '0') > 9)
      return -1;
  int h = (p[0] - '0') * 10 + p[1] - '0', m = (p[3] - '0') * 10 + p[4] - '0',
      sec = (p[6] - '0') * 10 + p[7] - '0';
  return h <= 23 && m <= 59 && sec <= 59 ? h * 3600 + m * 60 + sec : -1;
}

/* rs_time_parse, the same value. */
static rs_status time_parse(day_cache *d, const char *s, size_t n, double *out) {
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

/* ---- CloudWatch get-metric-data, pass 1 ----
 *
 * Each result's Timestamps and Values are checked in file order as the tree
 * reader checks them (rs_time_parse, rs_export_point_make), and the place
 * of every CW_BLOCK-th item noted: pass 2 reads a block of points again from
 * there, oldest first, whichever order the result is in (CloudWatch answers
 * newest first unless asked otherwise). */

typedef struct cw_result {
  const char *label, *id, *code, *key; /* arena */
  size_t lline, lcol, iline, icol, cline, ccol, rline, rcol, vline, vcol;
  bool times, values, found;
  rs_series_rule rule;
  uint64_t nts, nv;
  double last;
  int dir; /* 1 oldest first, -1 newest first, 0 not known yet */
  size_t mark0;
} cw_result;

static place place_of(const cursor *c) {
  return (place){.off = c->base + (long long)c->pos,
                 .line_start = c->line_start,
                 .cont = c->cont,
                 .line = c->line};
}

/* The place of item i (of the timestamps, or the values) of a result. */
static rs_status cw_mark(reader *r, const cw_result *w, uint64_t i, bool values) {
  size_t at = w->mark0 + 2 * (size_t)(i / CW_BLOCK) + values;
  if (at >= r->marks_cap) {
    size_t cap = r->marks_cap ? r->marks_cap * 2 : 256;
    place *grown;
    while (cap <= at)
      cap *= 2;
    if ((grown = rs_realloc_array(r->marks, cap, sizeof(*grown))) == NULL)
      return rs_error_set(r->c->err, RS_NOMEM, r->c->path, 0, 0, "out of memory reading results");
    /* zeroed: a datapoints series leaves the values' places unset */
    memset(grown + r->marks_cap, 0, (cap - r->marks_cap) * sizeof(*grown));
    r->marks = grown;
    r->marks_cap = cap;
  }
  r->marks[at] = place_of(r->c);
  if (at >= r->nmarks)
    r->nmarks = at + 1;
  return RS_OK;
}

static rs_status cw_text(cursor *c, rs_export *x, const char **out, size_t *line, size_t *col) {
  token t;
  rs_status st = scalar(c, &t, LOOK);
  if (st == RS_OK && !t.quoted)
    return unusual(c, "a label, id or status that is not a string");
  if (st == RS_OK && *out != NULL)
    return unusual(c, "a duplicate key in a result");
  if (st == RS_OK && (*out = rs_arena_strndup(x->arena, t.text, t.len)) == NULL)
    return rs_arena_error(x->arena, c->err, c->path, "reading the file");
  *line = t.line;
  *col = t.col;
  return st;
}

/* The result's series (at its Timestamps, once Label or Id is known). */
static rs_status cw_series(reader *r, cw_result *w) {
  cursor *c = r->c;
  const char *name = w->label ? w->label : w->id;
  size_t line = w->label ? w->lline : w->iline, col = w->label ? w->lcol : w->icol;
  rs_status st;
  if (name == NULL)
    return unusual(c, "'Timestamps' before 'Label' and 'Id'");
  st = rs_cw_key(&w->key, r->x, name, w->id, line, col, c->err);
  if (st == RS_OK)
    st = rs_export_rule(r->x, w->key, &w->rule, &w->found, line, col, c->err);
  w->mark0 = r->nmarks;
  return st;
}

/* A result's Timestamps (values false) or Values: checked when the result
 * maps to a metric, counted always. */
static rs_status cw_items(reader *r, cw_result *w, bool values) {
  cursor *c = r->c;
  bool more;
  token t;
  uint64_t *n = values ? &w->nv : &w->nts;
  rs_status st = open_bracket(c, '[', ']', &more);
  while (st == RS_OK && more) {
    if ((st = skip_ws(c)) != RS_OK)
      return st;
    if (w->found && *n % CW_BLOCK == 0 && (!values || *n < w->nts) &&
        (st = cw_mark(r, w, *n, values)) != RS_OK)
      return st;
    if (!w->found) {
      st = skip_value(c, 5);
    } else if (!values) {
      double when;
      if ((st = scalar(c, &t, POINT_TOKEN)) != RS_OK)
        return st;
      if (time_parse(r->days, t.text, t.len, &when) != RS_OK)
        return rs_error_set(c->err, RS_INVALID, c->path, t.line, t.col,
                            "expected an RFC 3339 timestamp from 1970-01-01 to 9999-12-31 UTC in "
                            "'%s'",
                            w->label ? w->label : w->id);
      if (*n > 0 && when != w->last) {
        int dir = when > w->last ? 1 : -1;
        if (w->dir != 0 && dir != w->dir)
          return rs_error_set(c->err, RS_INVALID, c->path, t.line, t.col,
                              "the timestamps of '%s' go back and forth, expected them newest "
                              "or oldest first (as CloudWatch answers), which the streaming JSON "
                              "reader needs",
                              w->label ? w->label : w->id);
        w->dir = dir;
      }
      w->last = when;
    } else {
      rs_export_point p;
      bool kept;
      if ((st = scalar(c, &t, POINT_TOKEN)) != RS_OK)
        return st;
      if (t.quoted)
        return rs_error_set(c->err, RS_INVALID, c->path, t.line, t.col,
                            "expected a number in the values of '%s'", w->label ? w->label : w->id);
      st = rs_export_point_make(r->x, &w->rule, w->key, -1, w->last, t.text, t.len, t.line, t.col,
                                &p, &kept, c->err);
    }
    (*n)++;
    if (st == RS_OK)
      st = next_item(c, ']', &more);
  }
  return st;
}

/* After a result's last key: what the tree reader checks of it. */
static rs_status cw_check(reader *r, cw_result *w) {
  cursor *c = r->c;
  rs_status st;
  if (w->label == NULL && w->id == NULL)
    return rs_error_set(c->err, RS_INVALID, c->path, w->rline, w->rcol,
                        "missing key 'Label' (or 'Id') in a metric data result");
  st = rs_cw_status(r->x, w->code, w->label ? w->label : w->id, w->cline, w->ccol, c->err);
  if (st == RS_OK && !w->times)
    return rs_error_set(c->err, RS_INVALID, c->path, w->rline, w->rcol,
                        "missing key 'Timestamps' in a metric data result");
  if (st == RS_OK && !w->values)
    return rs_error_set(c->err, RS_INVALID, c->path, w->rline, w->rcol,
                        "missing key 'Values' in a metric data result");
  if (st == RS_OK && w->nts != w->nv)
    return rs_error_set(c->err, RS_INVALID, c->path, w->vline, w->vcol,
                        "'%s' has %llu values for %llu timestamps, expected one value per "
                        "timestamp",
                        w->label ? w->label : w->id, (unsigned long long)w->nv,
                        (unsigned long long)w->nts);
  if (st != RS_OK || !w->found || w->nts == 0)
    return st;
  if (r->n >= CW_MAX_RESULTS)
    return rs_error_set(c->err, RS_LIMIT, c->path, w->rline, w->rcol,
                        "more than %d results with points in one file", CW_MAX_RESULTS);
  series s = {.key = w->key,
              .rule = w->rule,
              .gpu = -1,
              .off = r->marks[w->mark0].off,
              .line = r->marks[w->mark0].line,
              .line_start = r->marks[w->mark0].line_start,
              .cont = r->marks[w->mark0].cont,
              .cw = true,
              .newest_first = w->dir < 0,
              .n = w->nts,
              .mark0 = w->mark0};
  return keep_series(r, &s, w->nts);
}

static rs_status cw_result_read(reader *r) {
  cursor *c = r->c;
  static const char *const keys[] = {"Id", "Label", "Timestamps", "Values", "StatusCode", NULL};
  cw_result w = {.dir = 0};
  bool more;
  int ch, which;
  rs_status st = peek(c, &ch);
  if (st == RS_OK && ch != '{')
    return ch == '[' || ch == '"' ? unusual(c, "a result that is not an object") : syntax(c, ch);
  here(c, &w.rline, &w.rcol);
  st = open_bracket(c, '{', '}', &more);
  while (st == RS_OK && more) {
    if ((st = key_is(c, keys, &which)) != RS_OK)
      return st;
    if (which == 0) {
      st = cw_text(c, r->x, &w.id, &w.iline, &w.icol);
    } else if (which == 1) {
      st = cw_text(c, r->x, &w.label, &w.lline, &w.lcol);
    } else if (which == 2 || which == 3) {
      bool values = which == 3;
      if ((values ? w.values : w.times) || (values && !w.times))
        return unusual(c, values ? "'Values' before 'Timestamps', or twice"
                                 : "a duplicate key "
                                   "'Timestamps'");
      if ((st = peek(c, &ch)) == RS_OK && ch != '[')
        return unusual(c, "timestamps or values that are not a list");
      if (!values)
        st = cw_series(r, &w);
      if (values)
        here(c, &w.vline, &w.vcol);
      if (st == RS_OK)
        st = cw_items(r, &w, values);
      w.times = true;
      w.values = values;
    } else if (which == 4) {
      st = cw_text(c, r->x, &w.code, &w.cline, &w.ccol);
    } else {
      st = skip_value(c, 4);
    }
    if (st == RS_OK)
      st = next_item(c, '}', &more);
  }
  return st == RS_OK ? cw_check(r, &w) : st;
}

/* ---- CloudWatch get-metric-statistics ("Datapoints") ----
 *
 * One metric, a datapoint object per time with the statistics asked for;
 * the one used is the tree reader's (ingest_json.c, datapoint()). Streamed
 * as one series in blocks, like a get-metric-data result, when the
 * datapoints are in time order (either way); the API answers at most 1,440
 * of them a call, in no promised order, so an unordered file is the tree
 * reader's up to its cap and an error beyond. */

#define DP_STATS 3 /* ModelLatency's p50, p95, p99; one statistic otherwise */

typedef struct dp_ctx {
  const char *label; /* arena */
  bool latency, invocations;
  const char *keys[DP_STATS]; /* the series keys */
  rs_series_rule rules[DP_STATS];
  signed char known[DP_STATS]; /* pass 1: the rule found (1), not found (-1), not asked (0) */
  day_cache days;
} dp_ctx;

/* A scalar of a datapoint, copied: the object's keys may come in any order. */
typedef struct dp_text {
  char text[POINT_TOKEN + 1];
  size_t len, line, col;
  bool set, scalar;
} dp_text;

static rs_status dp_take(cursor *c, dp_text *t) {
  token k;
  int ch;
  rs_status st = peek(c, &ch);
  if (st != RS_OK)
    return st;
  if (t->set)
    return unusual(c, "a duplicate key in a datapoint");
  t->set = true;
  if (ch == '[' || ch == '{') /* not a statistic the tree reader reads: skipped */
    return skip_value(c, 6);
  if ((st = scalar(c, &k, POINT_TOKEN)) != RS_OK)
    return st;
  memcpy(t->text, k.text, k.len);
  t->text[k.len] = '\0';
  t->len = k.len;
  t->line = k.line;
  t->col = k.col;
  t->scalar = true;
  return RS_OK;
}

/* What a datapoint holds: its Timestamp, Average, Maximum, Sum, and p50,
 * p95, p99 of its ExtendedStatistics. */
typedef struct dp_read {
  dp_text ts, stat[DP_STATS], avg, max, sum;
  bool ext, ext_map;
  size_t line, col;
} dp_read;

static rs_status dp_extended(cursor *c, dp_read *d) {
  static const char *const keys[] = {"p50", "p95", "p99", NULL};
  bool more;
  int which;
  rs_status st = open_bracket(c, '{', '}', &more);
  d->ext_map = true;
  while (st == RS_OK && more) {
    if ((st = key_is(c, keys, &which)) != RS_OK)
      return st;
    st = which >= 0 ? dp_take(c, &d->stat[which]) : skip_value(c, 6);
    if (st == RS_OK)
      st = next_item(c, '}', &more);
  }
  return st;
}

/* A datapoint as the AWS CLI prints it, on one line, e.g.
 * {"Timestamp": "2025-11-30T00:00:00+00:00", "Average": 26.5, "Unit": "Percent"}:
 * keys of letters, values plain ASCII texts or plain decimals, each key
 * followed by ": " or ":" and each value by ", " or "," or the closing
 * brace, no statistic twice and no ExtendedStatistics. Read straight from
 * the window into d, as dp_object would; false, with nothing consumed, for
 * anything else, which dp_object then reads. c->pos is at the '{'. */
static bool dp_quick(cursor *c, dp_read *d) {
  static const char *const keys[] = {"Timestamp", "Average", "Maximum", "Sum"};
  dp_text *slot[] = {&d->ts, &d->avg, &d->max, &d->sum};
  const char *b = c->buf, *p = b + c->pos + 1, *e = b + c->end;
  long long col0 = c->base - c->line_start - c->cont + 1; /* a byte's column: col0 + offset */
  if (e - p < QUICK_DP)
    return false;
  e = p + QUICK_DP - 8; /* the datapoint is shorter; a few bytes past e may be read */
  for (;;) {
    const char *k = p + 1, *v, *at;
    dp_text *t = NULL;
    size_t klen, vlen;
    if (*p != '"')
      return false;
    for (p = k; p < e && (unsigned)((*p | 0x20) - 'a') < 26; p++)
      ;
    klen = (size_t)(p - k);
    if (*p != '"' || *++p != ':')
      return false;
    p += p[1] == ' ' ? 2 : 1;
    for (int i = 0; i < 4; i++)
      if (klen == strlen(keys[i]) && memcmp(k, keys[i], klen) == 0)
        t = slot[i];
    if (t == NULL && klen == 18 && memcmp(k, "ExtendedStatistics", 18) == 0)
      return false;
    if (t != NULL && t->set)
      return false;
    v = at = p;
    if (*p == '"') {
      for (v = ++p; *p != '"'; p++)
        if (p >= e || (unsigned char)*p < 0x20 || (unsigned char)*p >= 0x80 || *p == '\\')
          return false;
      vlen = (size_t)(p++ - v);
    } else {
      p += *p == '-';
      if (*p == '0')
        p++;
      else if ((unsigned)(*p - '1') < 9)
        while (p < e && (unsigned)(*p - '0') < 10)
          p++;
      else
        return false;
      if (*p == '.') {
        if ((unsigned)(*++p - '0') >= 10)
          return false;
        while (p < e && (unsigned)(*p - '0') < 10)
          p++;
      }
      vlen = (size_t)(p - v);
    }
    if (p >= e || vlen > POINT_TOKEN)
      return false;
    if (t != NULL) {
      memcpy(t->text, v, vlen);
      t->text[vlen] = '\0';
      t->len = vlen;
      t->line = c->line;
      t->col = (size_t)(col0 + (at - b));
      t->set = t->scalar = true;
    }
    if (*p == '}') {
      c->pos = (size_t)(p + 1 - b);
      return true;
    }
    if (*p != ',')
      return false;
    p += p[1] == ' ' ? 2 : 1;
  }
}

/* Nothing read into d yet (the flags only: a text is written before it is
 * read). */
static void dp_clear(dp_read *d) {
  d->ts.set = d->avg.set = d->max.set = d->sum.set = false;
  d->ts.scalar = d->avg.scalar = d->max.scalar = d->sum.scalar = false;
  for (int i = 0; i < DP_STATS; i++)
    d->stat[i].set = d->stat[i].scalar = false;
  d->ext = d->ext_map = false;
}

static rs_status dp_object(cursor *c, dp_read *d) {
  static const char *const keys[] = {"Timestamp",          "Average", "Maximum", "Sum",
                                     "ExtendedStatistics", NULL};
  dp_text *slot[] = {&d->ts, &d->avg, &d->max, &d->sum};
  bool more;
  int ch, which;
  rs_status st = peek(c, &ch);
  dp_clear(d);
  if (st == RS_OK && ch != '{')
    return ch == '[' || ch == '"' ? unusual(c, "a datapoint that is not an object") : syntax(c, ch);
  here(c, &d->line, &d->col);
  if (dp_quick(c, d))
    return RS_OK;
  dp_clear(d); /* what the quick read took before it gave up */
  st = open_bracket(c, '{', '}', &more);
  while (st == RS_OK && more) {
    if ((st = key_is(c, keys, &which)) != RS_OK)
      return st;
    if (which == 4) {
      if (d->ext)
        return unusual(c, "a duplicate key in a datapoint");
      d->ext = true;
      if ((st = peek(c, &ch)) == RS_OK)
        st = ch == '{' ? dp_extended(c, d) : skip_value(c, 6);
    } else {
      st = which >= 0 ? dp_take(c, slot[which]) : skip_value(c, 6);
    }
    if (st == RS_OK)
      st = next_item(c, '}', &more);
  }
  return st;
}

/* One statistic as the tree reader's stat_point takes it. Pass 1 (x set)
 * resolves the rule each time, as that reader does (it counts series);
 * pass 2 uses the rule pass 1 found. */
static rs_status dp_point(rs_export *x, const rs_export *xc, dp_ctx *p, int i, const dp_text *v,
                          double when, rs_export_point *out, size_t *n, rs_error *err) {
  bool found = true, kept;
  rs_status st;
  if (!v->set || !v->scalar)
    return RS_OK;
  if (x != NULL && p->known[i] != 0) {
    /* what rs_export_rule does for a key it has resolved before: the same
     * rule, the series counted */
    x->series++;
    if (p->known[i] < 0)
      return RS_OK;
    x->mapped++;
  } else if (x != NULL) {
    st = rs_export_rule(x, p->keys[i], &p->rules[i], &found, v->line, v->col, err);
    if (st == RS_OK)
      p->known[i] = found ? 1 : -1;
    if (st != RS_OK || !found) {
      p->rules[i].ignore = true;
      return st;
    }
  } else if (p->rules[i].ignore) {
    return RS_OK;
  }
  st = rs_export_point_make(xc, &p->rules[i], p->keys[i], -1, when, v->text, v->len, v->line,
                            v->col, &out[*n], &kept, err);
  if (st == RS_OK && kept)
    (*n)++;
  return st;
}

/* A datapoint's points (at most DP_STATS) and its time, checked as the tree
 * reader's datapoint() checks them. */
static rs_status dp_points(cursor *c, rs_export *x, const rs_export *xc, dp_ctx *p,
                           rs_export_point *out, size_t *n, double *when) {
  dp_read d;
  rs_status st = dp_object(c, &d);
  *n = 0;
  if (st != RS_OK)
    return st;
  if (!d.ts.set)
    return rs_error_set(c->err, RS_INVALID, c->path, d.line, d.col,
                        "missing key 'Timestamp' in a datapoint");
  if (!d.ts.scalar)
    return unusual(c, "a Timestamp that is not a text");
  if (time_parse(&p->days, d.ts.text, d.ts.len, when) != RS_OK)
    return rs_error_set(c->err, RS_INVALID, c->path, d.ts.line, d.ts.col,
                        "expected an RFC 3339 timestamp in '%s'", p->label);
  if (p->latency) {
    if (!d.ext_map)
      return rs_error_set(c->err, RS_INVALID, c->path, d.line, d.col,
                          "'ModelLatency' datapoint without ExtendedStatistics, expected "
                          "percentiles (--extended-statistics p50 p95 p99)");
    for (int i = 0; st == RS_OK && i < DP_STATS; i++)
      st = dp_point(x, xc, p, i, &d.stat[i], *when, out, n, c->err);
    return st;
  }
  return dp_point(x, xc, p, 0,
                  p->invocations ? &d.sum
                  : d.avg.set    ? &d.avg
                                 : &d.max,
                  *when, out, n, c->err);
}

static rs_status dp_context(reader *r, const char *name) {
  static const char *const pct[] = {"ModelLatency p50", "ModelLatency p95", "ModelLatency p99"};
  dp_ctx *p = rs_arena_alloc(r->x->arena, sizeof(*p));
  if (p == NULL)
    return rs_arena_error(r->x->arena, r->c->err, r->c->path, "reading the file");
  memset(p, 0, sizeof(*p));
  p->label = name;
  p->latency = strcmp(name, "ModelLatency") == 0;
  p->invocations = strcmp(name, "Invocations") == 0;
  for (int i = 0; i < DP_STATS; i++)
    p->keys[i] = p->latency ? pct[i] : name;
  r->dp = p;
  return RS_OK;
}

/* Pass 1 over Datapoints: every datapoint checked, in order, blocks noted. */
static rs_status dp_list(reader *r) {
  cursor *c = r->c;
  cw_result w = {.dir = 0, .found = true};
  rs_export_point pts[DP_STATS];
  bool more;
  size_t line, col, n;
  uint64_t kept = 0;
  rs_status st;
  here(c, &line, &col);
  w.mark0 = r->nmarks;
  st = open_bracket(c, '[', ']', &more);
  if (st == RS_OK && !more)
    return rs_error_set(c->err, RS_INVALID, c->path, line, col, "no samples: Datapoints is empty");
  while (st == RS_OK && more) {
    double when;
    size_t at_line, at_col;
    if ((st = skip_ws(c)) != RS_OK)
      return st;
    if (w.nts % CW_BLOCK == 0 && (st = cw_mark(r, &w, w.nts, false)) != RS_OK)
      return st;
    here(c, &at_line, &at_col);
    if ((st = dp_points(c, r->x, r->x, r->dp, pts, &n, &when)) != RS_OK)
      return st;
    if (w.nts > 0 && when != w.last) {
      int dir = when > w.last ? 1 : -1;
      if (w.dir != 0 && dir != w.dir)
        return rs_error_set(c->err, RS_INVALID, c->path, at_line, at_col,
                            "a datapoint out of time order, which the streaming JSON reader "
                            "does not take: expected the datapoints oldest or newest first "
                            "(get-metric-statistics answers at most 1,440 a call, in no set "
                            "order; a file this size is a join of answers: sort it by "
                            "Timestamp, e.g. jq '.Datapoints |= sort_by(.Timestamp)')");
      w.dir = dir;
    }
    w.last = when;
    w.nts++;
    kept += n;
    st = next_item(c, ']', &more);
  }
  if (st != RS_OK)
    return st;
  if (r->x->series == 0) /* no datapoint held the statistic we read */
    r->x->series = 1, r->x->unmapped = r->dp->label;
  if (kept == 0)
    return RS_OK;
  series s = {.key = r->dp->label,
              .gpu = -1,
              .off = r->marks[w.mark0].off,
              .cw = true,
              .dp = true,
              .newest_first = w.dir < 0,
              .n = w.nts,
              .mark0 = w.mark0};
  return keep_series(r, &s, kept);
}

static rs_status cw_root(reader *r) {
  cursor *c = r->c;
  static const char *const keys[] = {"MetricDataResults", "NextToken", "Datapoints", "Label", NULL};
  const char *name = NULL;
  size_t lline = 0, lcol = 0;
  bool more, results = false, points = false;
  int ch, which;
  size_t line = c->line, col;
  token t;
  rs_status st;
  here(c, &line, &col);
  st = open_bracket(c, '{', '}', &more);
  while (st == RS_OK && more) {
    if ((st = key_is(c, keys, &which)) != RS_OK)
      return st;
    if (which == 0) {
      bool items;
      size_t rl, rc;
      if (results || (st = peek(c, &ch)) != RS_OK || ch != '[')
        return st != RS_OK ? st : unusual(c, "results that are not a list, or twice");
      here(c, &rl, &rc);
      results = true;
      st = open_bracket(c, '[', ']', &items);
      if (st == RS_OK && !items)
        return rs_error_set(c->err, RS_INVALID, c->path, rl, rc,
                            "no samples: MetricDataResults is empty");
      while (st == RS_OK && items) {
        st = cw_result_read(r);
        if (st == RS_OK)
          st = next_item(c, ']', &items);
      }
    } else if (which == 1) {
      if ((st = scalar(c, &t, LOOK)) == RS_OK && t.len > 0 && !(is(&t, "null") && !t.quoted))
        return rs_error_set(c->err, RS_INVALID, c->path, t.line, t.col,
                            "the output ends with a NextToken: more points wait on another "
                            "page, expected the whole answer; let the AWS CLI paginate (no "
                            "--no-paginate or --max-items) and save its whole output");
    } else if (which == 2) {
      if ((st = peek(c, &ch)) != RS_OK)
        return st;
      if (name == NULL || points || results || ch != '[')
        return unusual(c, "'Datapoints' that is not a list after 'Label'");
      points = true;
      st = dp_context(r, name);
      if (st == RS_OK)
        st = dp_list(r);
    } else if (which == 3) {
      if (points)
        return unusual(c, "'Label' after 'Datapoints'");
      st = cw_text(c, r->x, &name, &lline, &lcol);
    } else {
      st = skip_value(c, 1);
    }
    if (st == RS_OK)
      st = next_item(c, '}', &more);
  }
  if (st == RS_OK && results && points)
    return unusual(c, "both 'MetricDataResults' and 'Datapoints'");
  if (st == RS_OK && !results && !points)
    return rs_error_set(c->err, RS_INVALID, c->path, line, col,
                        "missing key 'MetricDataResults' in the response");
  return st;
}

static rs_status read_root(reader *r) {
  cursor *c = r->c;
  static const char *const keys[] = {"status", "data", NULL};
  bool more, status = false, data = false;
  int ch, which;
  rs_status st = peek(c, &ch);
  if (st != RS_OK)
    return st;
  if (c->base == 0 && c->pos == 0 && c->end >= 3 && memcmp(c->buf, "\xEF\xBB\xBF", 3) == 0) {
    if (c->strict)
      return unusual(c, "a byte order mark");
    c->pos = 3;
    c->cont = 2;
    if ((st = peek(c, &ch)) != RS_OK)
      return st;
  }
  if (r->cw) {
    if (ch != '{')
      return ch < 0 ? syntax(c, ch)
                    : rs_error_set(c->err, RS_SYNTAX, c->path, c->line, 1,
                                   "a text file that is not a JSON object, expected CloudWatch "
                                   "get-metric-data output");
    st = cw_root(r);
  } else if (ch == '[') {
    st = read_result(r);
  } else if (ch == '{') {
    st = open_bracket(c, '{', '}', &more);
    while (st == RS_OK && more) {
      if ((st = key_is(c, keys, &which)) != RS_OK)
        return st;
      if (which == 0) {
        if (status)
          return unusual(c, "a duplicate key 'status'");
        status = true;
        st = want_text(c, "status", "success");
      } else if (which == 1) {
        if (!status || data)
          return unusual(c, data ? "a duplicate key 'data'" : "'data' before 'status'");
        data = true;
        st = read_data(r);
      } else {
        st = skip_value(c, 1);
      }
      if (st == RS_OK)
        st = next_item(c, '}', &more);
    }
    if (st == RS_OK && !data)
      return unusual(c, "a response without 'status' and 'data'");
  } else {
    return ch < 0 ? syntax(c, ch)
                  : rs_error_set(c->err, RS_SYNTAX, c->path, 1, 1,
                                 "a text file that is not JSON (it does not start with '{' or "
                                 "'['), expected a JSON object");
  }
  if (st == RS_OK)
    st = peek(c, &ch);
  if (st == RS_OK && ch >= 0)
    return fail(c, RS_SYNTAX, "trailing characters after the JSON value");
  return st;
}

/* ---- pass 2: the merge ---- */

typedef struct stream {
  cursor c; /* a CloudWatch result: over its timestamps */
  const series *s;
  double lim; /* a query_range series: a scaled value up to this is kept as it is (quick_value) */
  int gpu;    /* its points' GPU (-1: not a per-device metric) */
  rs_export_point head;
  bool more; /* the list has items left after head */
  /* a CloudWatch result: */
  cursor v;           /* over its values */
  const place *marks; /* its blocks' places, two a block */
  struct dp_ctx *dp;  /* a get-metric-statistics answer's */
  day_cache days;
  rs_export_point *block; /* the block read, CW_BLOCK points (DP_STATS a datapoint) */
  size_t nblock, at;      /* its points, the next to hand out */
  size_t next, nblocks;   /* blocks read, blocks in all */
} stream;

static void go_to(cursor *c, const place *p) {
  c->base = c->next_off = p->off;
  c->pos = c->end = 0;
  c->eof = false;
  c->line = p->line;
  c->line_start = p->line_start;
  c->cont = p->cont;
}

/* A block read newest first, turned oldest first; points of one time keep
 * their file order (rs_export_emit's tie-break). */
static void oldest_first(rs_export_point *p, size_t n) {
  for (size_t i = 0, j = n; i + 1 < j; i++, j--) {
    rs_export_point t = p[i];
    p[i] = p[j - 1];
    p[j - 1] = t;
  }
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && p[j].t == p[i].t)
      j++;
    for (size_t a = i, z = j; a + 1 < z; a++, z--) {
      rs_export_point t = p[a];
      p[a] = p[z - 1];
      p[z - 1] = t;
    }
    i = j;
  }
}

/* n datapoints of a get-metric-statistics answer from the cursor. */
static rs_status dp_block(stream *m, const rs_export *x, size_t n) {
  rs_status st = RS_OK;
  m->nblock = 0;
  for (size_t i = 0; st == RS_OK && i < n; i++) {
    size_t got;
    double when;
    bool more;
    st = dp_points(&m->c, NULL, x, m->dp, m->block + m->nblock, &got, &when);
    m->nblock += got;
    if (st == RS_OK)
      st = next_item(&m->c, ']', &more);
  }
  return st;
}

/* Block b of a CloudWatch result, read again (pass 1 checked it). */
static rs_status cw_block(stream *m, const rs_export *x, size_t b) {
  const series *s = m->s;
  size_t n =
      s->n - (uint64_t)b * CW_BLOCK < CW_BLOCK ? (size_t)(s->n - (uint64_t)b * CW_BLOCK) : CW_BLOCK;
  rs_status st = RS_OK;
  go_to(&m->c, &m->marks[2 * b]);
  go_to(&m->v, &m->marks[2 * b + 1]);
  /* a block ends where the next starts: read no further */
  m->c.limit = b + 1 < m->nblocks ? m->marks[2 * b + 2].off : 0;
  m->v.limit = b + 1 < m->nblocks ? m->marks[2 * b + 3].off : 0;
  m->at = 0;
  if (s->dp) {
    st = dp_block(m, x, n);
    if (st == RS_OK && s->newest_first)
      oldest_first(m->block, m->nblock);
    return st;
  }
  for (size_t i = 0; st == RS_OK && i < n; i++) {
    token t, v;
    double when;
    bool more, kept;
    if ((st = scalar(&m->c, &t, POINT_TOKEN)) != RS_OK)
      return st;
    if (time_parse(&m->days, t.text, t.len, &when) != RS_OK)
      return rs_error_set(m->c.err, RS_INVALID, m->c.path, t.line, t.col,
                          "expected an RFC 3339 timestamp from 1970-01-01 to 9999-12-31 UTC in "
                          "'%s'",
                          s->key);
    st = next_item(&m->c, ']', &more);
    if (st == RS_OK)
      st = scalar(&m->v, &v, POINT_TOKEN);
    if (st == RS_OK)
      st = rs_export_point_make(x, &s->rule, s->key, -1, when, v.text, v.len, v.line, v.col,
                                &m->block[i], &kept, m->c.err);
    if (st == RS_OK)
      st = next_item(&m->v, ']', &more);
  }
  m->nblock = n;
  if (st == RS_OK && s->newest_first)
    oldest_first(m->block, m->nblock);
  return st;
}

/* The next point of a CloudWatch result, oldest first. */
static rs_status cw_advance(stream *m, const rs_export *x, bool *got) {
  rs_status st = RS_OK;
  *got = false;
  if (m->at == m->nblock) {
    if (m->next == m->nblocks)
      return RS_OK;
    st = cw_block(m, x, m->s->newest_first ? m->nblocks - 1 - m->next : m->next);
    m->next++;
    if (st != RS_OK)
      return st;
  }
  if (m->nblock == 0) /* datapoints without the statistic read */
    return cw_advance(m, x, got);
  m->head = m->block[m->at++];
  *got = true;
  return st;
}

static bool before(const rs_export_point *p, const rs_export_point *q) {
  if (p->t != q->t)
    return p->t < q->t;
  if (p->gpu != q->gpu)
    return p->gpu < q->gpu;
  if (p->metric != q->metric)
    return p->metric < q->metric;
  if (p->line != q->line)
    return p->line < q->line;
  return p->col < q->col;
}

/* What rs_export_point_value keeps as it is (a value neither refused nor
 * clamped): 0, or from RS_METRIC_MIN_NONZERO to the metric's largest
 * value, its upper bound and the rule's cap. */
static double quick_limit(const rs_series_rule *rule) {
  double lim = rs_metric_max(rule->metric), upper = rs_metric_upper(rule->metric);
  if (upper > 0 && upper < lim)
    lim = upper;
  if (rule->cap > 0 && rule->cap < lim)
    lim = rule->cap;
  return lim;
}

/* The next kept point of a stream into head: false at its end. */
static rs_status advance(stream *m, const rs_export *x, bool *got) {
  rs_status st = RS_OK;
  if (m->s->cw)
    return cw_advance(m, x, got);
  *got = false;
  while (st == RS_OK && m->more) {
    cursor *c = &m->c;
    quick_point q;
    bool kept = true;
    if ((st = ensure(c)) != RS_OK)
      return st;
    if (quick_point_read(c, &q) && q.t >= RS_TIME_MIN && q.t < RS_TIME_END) {
      size_t col = (size_t)(c->base + (long long)q.vq - c->line_start - c->cont) + 1;
      double v = q.v * m->s->rule.scale + 0.0;
      if (v == 0.0 || (v >= RS_METRIC_MIN_NONZERO && v <= m->lim)) /* as point_value has it */
        m->head = (rs_export_point){.t = q.t,
                                    .v = v,
                                    .gpu = m->gpu,
                                    .metric = m->s->rule.metric,
                                    .ep = x->cur_ep,
                                    .key = m->s->key,
                                    .line = c->line,
                                    .col = col};
      else
        st = rs_export_point_value(x, &m->s->rule, m->s->key, m->s->gpu, q.t, q.v,
                                   c->buf + q.vq + 1, q.vlen, c->line, col, &m->head, c->err);
      c->pos = q.end;
    } else {
      st = read_point(c, x, m->s, &m->head, &kept);
    }
    if (st == RS_OK)
      st = next_point(c, &m->more);
    if (st == RS_OK && kept) {
      *got = true;
      break;
    }
  }
  return st;
}

static void sift_down(stream **h, size_t n, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && before(&h[l]->head, &h[m]->head))
      m = l;
    if (r < n && before(&h[r]->head, &h[m]->head))
      m = r;
    if (m == i)
      return;
    stream *t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
}

/* (GPU, metric, file order) of the streams' series. */
static int stream_order(const void *a, const void *b) {
  const stream *p = *(stream *const *)a, *q = *(stream *const *)b;
  if (p->head.gpu != q->head.gpu)
    return p->head.gpu < q->head.gpu ? -1 : 1;
  if (p->head.metric != q->head.metric)
    return p->head.metric < q->head.metric ? -1 : 1;
  return (p->s > q->s) - (p->s < q->s);
}

/* The series' windows read fd, or mem when it is set; size: the input's
 * bytes (a window never needs more than the input and one byte, which
 * keeps small inputs from allocating 256 KiB a series). */
static rs_status merge(reader *r, int fd, const char *mem, long long size, rs_sample_sink sink,
                       void *ctx, uint64_t *rows, rs_error *err) {
  rs_export *x = r->x;
  size_t cursors = r->cw ? 2 * r->n : r->n;
  size_t window = MERGE_MEMORY / cursors, n = 0, nb = 0, bcap = 0;
  rs_export_point *batch = NULL, *blocks = NULL;
  stream *ms = calloc(r->n, sizeof(*ms));
  stream **heap = calloc(r->n, sizeof(*heap));
  char *bufs;
  rs_status st = RS_OK;
  if (window > MERGE_WINDOW)
    window = MERGE_WINDOW;
  if (size >= 0 && (unsigned long long)size < window - 1)
    window = (size_t)size + 1;
  if (window < 2 * SMALL_LOOK)
    window = 2 * SMALL_LOOK;
  bufs = rs_malloc_array(cursors, window);
  if (r->cw)
    blocks = rs_malloc_array(r->n, DP_STATS * CW_BLOCK * sizeof(*blocks));
  if (ms == NULL || heap == NULL || bufs == NULL || (r->cw && blocks == NULL))
    st = rs_error_set(err, RS_NOMEM, x->path, 0, 0, "out of memory merging the series");
  for (size_t i = 0; st == RS_OK && i < r->n; i++) {
    stream *m = &ms[i];
    bool got;
    m->s = &r->s[i];
    if (m->s->cw) {
      cursor blank = {.cap = window,
                      .look = SMALL_LOOK,
                      .fd = fd,
                      .mem = mem,
                      .mem_len = size,
                      .strict = false,
                      .path = x->path,
                      .err = err};
      m->c = m->v = blank;
      m->c.buf = bufs + 2 * i * window;
      m->v.buf = bufs + (2 * i + 1) * window;
      m->marks = r->marks + m->s->mark0;
      m->block = blocks + i * DP_STATS * CW_BLOCK;
      m->dp = r->dp;
      m->nblocks = (size_t)((m->s->n + CW_BLOCK - 1) / CW_BLOCK);
      st = advance(m, x, &got);
      if (st == RS_OK && got)
        heap[n++] = m;
      continue;
    }
    m->c = (cursor){.buf = bufs + i * window,
                    .cap = window,
                    .look = SMALL_LOOK,
                    .base = r->s[i].off,
                    .fd = fd,
                    .mem = mem,
                    .mem_len = size,
                    .next_off = r->s[i].off,
                    .line = r->s[i].line,
                    .line_start = r->s[i].line_start,
                    .cont = r->s[i].cont,
                    .strict = false,
                    .path = x->path,
                    .err = err};
    m->lim = quick_limit(&m->s->rule);
    m->gpu = rs_metric_per_device(m->s->rule.metric) ? m->s->gpu : -1;
    st = open_bracket(&m->c, '[', ']', &m->more);
    if (st == RS_OK)
      st = advance(m, x, &got);
    if (st == RS_OK && got)
      heap[n++] = m;
  }
  /* Few series: each time, the smallest head time, then the streams in
   * (GPU, metric, file) order, which is rs_export_emit's order among points
   * of one time (a series' points follow the series before it in the file).
   * Many: a heap. */
  bool linear = n <= LINEAR_MAX;
  size_t cur = 0;
  double tmin = 0.0;
  if (linear && n > 1)
    qsort(heap, n, sizeof(*heap), stream_order);
  for (size_t i = n; !linear && st == RS_OK && i-- > 0;)
    sift_down(heap, n, i);
  while (st == RS_OK && n > 0) {
    stream *m = heap[0];
    bool got;
    if (linear) {
      while (cur < n && heap[cur]->head.t != tmin)
        cur++;
      if (cur == n || nb == 0) { /* a new time: the smallest head */
        tmin = heap[0]->head.t;
        for (size_t i = 1; i < n; i++)
          if (heap[i]->head.t < tmin)
            tmin = heap[i]->head.t;
        for (cur = 0; heap[cur]->head.t != tmin;)
          cur++;
      }
      m = heap[cur];
    }
    if (nb > 0 && m->head.t != batch[0].t) {
      st = rs_export_emit_batch(x, batch, nb, sink, ctx, rows, err);
      nb = 0;
      if (st != RS_OK)
        break;
    }
    if (nb == bcap) {
      size_t cap = bcap ? bcap * 2 : 256;
      rs_export_point *grown;
      if (nb >= MAX_BATCH) {
        st = rs_error_set(err, RS_LIMIT, x->path, m->head.line, m->head.col,
                          "more than %zu points at one time", MAX_BATCH);
        break;
      }
      if ((grown = rs_realloc_array(batch, cap, sizeof(*grown))) == NULL) {
        st = rs_error_set(err, RS_NOMEM, x->path, 0, 0, "out of memory merging the series");
        break;
      }
      batch = grown;
      bcap = cap;
    }
    batch[nb++] = m->head;
    st = advance(m, x, &got);
    if (linear && st == RS_OK && !got) {
      memmove(heap + cur, heap + cur + 1, (n - cur - 1) * sizeof(*heap));
      n--;
    } else if (!linear) {
      if (st == RS_OK && !got)
        heap[0] = heap[--n];
      sift_down(heap, n, 0);
    }
  }
  if (st == RS_OK && nb > 0)
    st = rs_export_emit_batch(x, batch, nb, sink, ctx, rows, err);
  free(batch);
  free(blocks);
  free(bufs);
  free(heap);
  free(ms);
  return st;
}

/* ---- the entry point ---- */

size_t rs_json_stream_tree_max = RS_INGEST_EXPORT_MAX;

/* The whole input from fd (or mem when it is set), for the tree reader. */
static rs_status fallback(int fd, const char *mem, long long size, const char *path,
                          rs_sample_format format, double instant_t, const rs_ingest_options *opts,
                          rs_sample_sink sink, void *ctx, rs_ingest_result *result, rs_error *err) {
  char *data = malloc((size_t)size + 1);
  size_t got = 0;
  rs_status st;
  if (data == NULL)
    return rs_error_set(err, RS_NOMEM, path, 0, 0, "out of memory reading the document");
  if (mem != NULL) {
    memcpy(data, mem, (size_t)size);
    got = (size_t)size;
  }
  while (got < (size_t)size) {
    ssize_t n = pread(fd, data + got, (size_t)size - got, (off_t)got);
    if (n <= 0) {
      free(data);
      return rs_error_set(err, RS_IO, path, 0, 0, "cannot read: %s",
                          n < 0 ? strerror(errno) : "the file shrank");
    }
    got += (size_t)n;
  }
  data[size] = '\0';
  rs_error_clear(err);
  st = rs_ingest_export_at(path, data, (size_t)size, format, instant_t, opts, sink, ctx, result,
                           err);
  free(data);
  return st;
}

/* One reading of a file: the state the passes share. */
typedef struct job {
  rs_arena arena;
  rs_export x;
  rs_series_map defaults;
  reader r;
  cursor c;
  char *buf;         /* pass 1's window */
  size_t wcap;       /* its size */
  const char *mem;   /* a plain memory input, read in place (else NULL) */
  long long mem_len; /* its bytes */
  const char *path;
  const rs_ingest_options *opts;
  rs_sample_format format;
  day_cache days;
  rs_error *err;
} job;

static void begin(job *j) {
  rs_arena_init(&j->arena, 0);
  memset(&j->r, 0, sizeof(j->r));
  rs_export_init(&j->x, &j->arena, j->path, j->opts && j->opts->map ? j->opts->map : &j->defaults);
  j->x.select = j->opts && j->opts->select && j->opts->select->n > 0 ? j->opts->select : NULL;
}

static void end(job *j) {
  free(j->r.s);
  free(j->r.marks);
  j->r.s = NULL;
  j->r.marks = NULL;
  rs_export_release(&j->x);
  rs_arena_release(&j->arena);
}

/* Pass 1 over the cursor's stream or file. */
static rs_status pass1(job *j, bool skim) {
  j->r.x = &j->x;
  j->r.c = &j->c;
  j->r.cw = j->format == RS_FORMAT_CLOUDWATCH;
  j->r.skim = skim && !j->r.cw;
  memset(&j->days, 0, sizeof(j->days));
  j->r.days = &j->days;
  rs_status st = fill(&j->c);
  if (st == RS_OK)
    st = read_root(&j->r);
  labels_clear(&j->r);
  return st;
}

/* Pass 1 again, from a fresh start, over the whole file fd. */
static rs_status rerun(job *j, int fd, bool strict, bool skim) {
  end(j);
  begin(j);
  j->c = (cursor){.buf = j->buf,
                  .cap = j->wcap,
                  .look = LOOK,
                  .fd = fd,
                  .mem = j->mem,
                  .mem_len = j->mem_len,
                  .line = 1,
                  .strict = strict,
                  .path = j->path,
                  .err = j->err};
  rs_error_clear(j->err);
  return pass1(j, skim);
}

static bool data_error(rs_status st) {
  return st == RS_INVALID || st == RS_SYNTAX || st == RS_LIMIT;
}

/* After a full pass 1 that failed: an empty file's error, the tree reader
 * for a file it takes (*tree set: its rows and result are the answer), or
 * a strict pass again without strictness for a copy over the cap. */
static rs_status settle(job *j, rs_status st, int fd, long long size, rs_sample_format format,
                        double instant_t, rs_sample_sink sink, void *ctx, rs_ingest_result *result,
                        bool *tree) {
  if (st == RS_OK || (fd < 0 && j->mem == NULL))
    return st;
  if (size == 0) {
    rs_error_clear(j->err);
    return rs_error_set(j->err, RS_INVALID, j->path, 1, 1, "empty file, expected %s data",
                        rs_format_name(format));
  }
  if (size <= (long long)rs_json_stream_tree_max) {
    *tree = true;
    return fallback(fd, j->mem, size, j->path, format, instant_t, j->opts, sink, ctx, result,
                    j->err);
  }
  if (j->c.strict) /* a copy over the cap that strict pass 1 refused: read it as a big file */
    return rerun(j, fd, false, false);
  return st;
}

rs_status rs_ingest_json_stream(rs_instream *in, const char *path, rs_sample_format format,
                                double instant_t, const rs_ingest_options *opts,
                                rs_sample_sink sink, void *ctx, rs_ingest_result *result,
                                bool *handled, rs_error *err) {
  job j = {.path = path, .opts = opts, .format = format, .err = err};
  struct stat sb;
  FILE *spool = NULL;
  int fd = -1;
  long long size = -1;
  uint64_t rows = 0;
  bool strict, full = false, tree = false;
  rs_status st = RS_OK;
  size_t mem_len = 0;
  bool seekable;
  *handled = true;
  j.mem = rs_instream_memory(in, &mem_len);
  /* A plain memory input is read in place, and a plain regular file again
   * from its start (a memory input's name is never opened); anything else
   * (standard input, a decompressed stream) is copied to a temporary file
   * as pass 1 reads it. */
  if (j.mem != NULL) {
    size = j.mem_len = (long long)mem_len;
  } else if (rs_instream_encoding(in) == NULL && strcmp(path, "-") != 0 &&
             (fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
      size = (long long)sb.st_size;
    } else {
      close(fd);
      fd = -1;
    }
  }
  /* Pass 1's window: the whole input when it is smaller than WINDOW. */
  j.wcap = WINDOW;
  if (size >= 0 && (unsigned long long)size < j.wcap - 1)
    j.wcap = (size_t)size + 1;
  if ((j.buf = malloc(j.wcap)) == NULL) {
    if (fd >= 0)
      close(fd);
    return rs_error_set(err, RS_NOMEM, path, 0, 0, "out of memory reading the document");
  }
  j.c = (cursor){.buf = j.buf,
                 .cap = j.wcap,
                 .look = LOOK,
                 .fd = -1,
                 .mem = j.mem,
                 .mem_len = j.mem_len,
                 .line = 1,
                 .path = path,
                 .err = err};
  if (j.mem != NULL) {
    /* read in place */
  } else if (fd < 0) {
    if ((spool = tmpfile()) == NULL) { /* no temporary directory: read it whole */
      free(j.buf);
      *handled = false;
      return RS_OK;
    }
    j.c.in = in;
    j.c.spool = spool;
  } else {
    j.c.fd = fd;
  }
  strict = j.c.strict = size < 0 || size <= (long long)rs_json_stream_tree_max;

  rs_series_map_init(&j.defaults);
  begin(&j);
  st = pass1(&j, true);
  full = j.r.cw; /* CloudWatch's pass 1 checks every point */
  if (spool != NULL) {
    /* the rest of the input into the copy (after an error), then read it */
    while (st == RS_OK || data_error(st)) {
      if (j.c.eof)
        break;
      j.c.pos = j.c.end;
      rs_status rd = fill(&j.c);
      if (rd != RS_OK) {
        st = rd;
        break;
      }
    }
    if (j.c.eof && fflush(spool) == 0) {
      fd = fileno(spool);
      size = j.c.base + (long long)j.c.end;
    }
  }
  /* Pass 1 skims: whatever it refuses, the full pass (every point checked
   * in file order) says why, or takes. */
  seekable = fd >= 0 || j.mem != NULL;
  if (data_error(st) && !full && seekable && size > 0) {
    st = rerun(&j, fd, strict, false);
    full = true;
  }
  st = settle(&j, st, fd, size, format, instant_t, sink, ctx, result, &tree);
  if (!tree) {
    if (st == RS_OK && j.r.points == 0)
      st = rs_export_no_samples(&j.x, err);
    else if (st == RS_OK && !seekable)
      st = rs_error_set(err, RS_IO, path, 0, 0, "cannot read the temporary copy of the input");
    else if (st == RS_OK) {
      st = merge(&j.r, fd, j.mem, size, sink, ctx, &rows, err);
      /* Pass 2 checks the points pass 1 skimmed, in time order: the full
       * pass finds the first mistake in file order, the one reported as
       * before; without one, pass 2's own error (a clash of series) stands. */
      if (data_error(st) && j.r.cw && size <= (long long)rs_json_stream_tree_max) {
        /* the tree reader's message (pass 1 took it all, so it fails too) */
        tree = true;
        st = fallback(fd, j.mem, size, path, format, instant_t, opts, sink, ctx, result, err);
      } else if (data_error(st) && !full) {
        rs_error found = *err;
        st = settle(&j, rerun(&j, fd, strict, false), fd, size, format, instant_t, sink, ctx,
                    result, &tree);
        if (st == RS_OK && !tree) {
          *err = found;
          st = found.status;
        }
      }
    }
  }
  if (result != NULL && !tree) {
    memset(result, 0, sizeof(*result));
    result->format = format;
    result->rows = rows;
    result->notes = j.x.notes;
  }
  end(&j);
  free(j.buf);
  if (spool != NULL)
    fclose(spool);
  else if (fd >= 0)
    close(fd);
  return st;
}
