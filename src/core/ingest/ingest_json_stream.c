/* Prometheus query_range JSON read as a stream: memory flat in the file's
 * size (docs/scale.md, "Exports").
 *
 * Pass 1 reads the document once, in order, through a fixed window (a pull
 * tokenizer with line:col), checks every point as the tree reader does
 * (rs_export_point_make) and notes where each mapped series' values start.
 * Rows need the series joined by time; each series is in time order (as
 * Prometheus answers), so pass 2 merges them: one small window per series
 * over the same bytes (the file, or a spooled copy of standard input or a
 * decompressed stream), picked in rs_export_emit's order (a scan, or a heap
 * past 64 series), and the points of one time folded into rows. Only the series' notes, one window
 * each and the points of one time stay in memory.
 *
 * Files up to RS_INGEST_EXPORT_MAX keep the tree reader's exact behaviour:
 * pass 1 is strict (plain strings, keys in Prometheus' order, nothing the
 * tree reader might read differently) and any error or anything unusual
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

#define WINDOW ((size_t)1 << 20)         /* pass 1's window */
#define LOOK ((size_t)64 << 10)          /* a token (a string) is at most this long */
#define POINT_TOKEN 256                  /* a timestamp or value text is at most this long */
#define SMALL_LOOK 512                   /* pass 2's look-ahead (point tokens only) */
#define MERGE_MEMORY ((size_t)16 << 20)  /* pass 2's windows together */
#define MERGE_WINDOW ((size_t)256 << 10) /* one series' window at most */
#define MAX_SERIES 100000                /* mapped series with points */
#define MAX_BATCH ((size_t)1 << 20)      /* points of one time */
#define LINEAR_MAX 64                    /* series merged by a scan rather than a heap */
#define MAX_DEPTH 60                     /* the tree reader's limit is 64 */
#define KEY_MAX 1000                     /* the tree reader's keys are at most 1024 characters */
#define MAX_LABELS 256

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
      got = c->next_off < c->mem_len ? (size_t)(c->mem_len - c->next_off) : 0;
      if (got > c->cap - c->end)
        got = c->cap - c->end;
      if (got > 0)
        memcpy(c->buf + c->end, c->mem + c->next_off, got);
      c->next_off += (long long)got;
    } else {
      ssize_t n = pread(c->fd, c->buf + c->end, c->cap - c->end, (off_t)c->next_off);
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

/* Skips JSON white space, counting lines (YAML's breaks: \n, \r\n, \r). */
static rs_status skip_ws(cursor *c) {
  for (;;) {
    while (c->pos < c->end) {
      char ch = c->buf[c->pos];
      if (ch == ' ') {
        c->pos++;
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
    if (t.len == strlen(words[i]) && memcmp(t.text, words[i], t.len) == 0)
      *which = i;
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
  long long off; /* the values' '[' */
  size_t line;
  long long line_start, cont;
} series;

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

/* The values of a mapped series: every point checked, in file order. */
static rs_status read_values(reader *r, series *s) {
  cursor *c = r->c;
  bool more;
  double last = -1.0;
  uint64_t kept_n = 0;
  rs_status st = skip_ws(c);
  if (st != RS_OK)
    return st;
  s->off = c->base + (long long)c->pos;
  s->line = c->line;
  s->line_start = c->line_start;
  s->cont = c->cont;
  st = open_bracket(c, '[', ']', &more);
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
  if (st == RS_OK && kept_n > 0) {
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
    r->points += kept_n;
  }
  return st;
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
  return st == RS_OK ? read_values(r, &s) : st;
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
  if (ch == '[') {
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
  cursor c;
  const series *s;
  rs_export_point head;
  bool more; /* the list has items left after head */
} stream;

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

/* The next kept point of a stream into head: false at its end. */
static rs_status advance(stream *m, const rs_export *x, bool *got) {
  rs_status st = RS_OK;
  *got = false;
  while (st == RS_OK && m->more) {
    bool kept;
    st = read_point(&m->c, x, m->s, &m->head, &kept);
    if (st == RS_OK)
      st = next_item(&m->c, ']', &m->more);
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
  size_t window = MERGE_MEMORY / r->n, n = 0, nb = 0, bcap = 0;
  rs_export_point *batch = NULL;
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
  bufs = rs_malloc_array(r->n, window);
  if (ms == NULL || heap == NULL || bufs == NULL)
    st = rs_error_set(err, RS_NOMEM, x->path, 0, 0, "out of memory merging the series");
  for (size_t i = 0; st == RS_OK && i < r->n; i++) {
    stream *m = &ms[i];
    bool got;
    m->s = &r->s[i];
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
  free(bufs);
  free(heap);
  free(ms);
  return st;
}

/* ---- the entry point ---- */

size_t rs_json_stream_tree_max = RS_INGEST_EXPORT_MAX;

/* The whole input from fd (or mem), for the tree reader. */
static rs_status fallback(int fd, const char *mem, long long size, const char *path,
                          rs_sample_format format, double instant_t, const rs_ingest_options *opts,
                          rs_sample_sink sink, void *ctx, rs_ingest_result *result, rs_error *err) {
  char *data = malloc((size_t)size + 1);
  size_t got = 0;
  rs_status st;
  if (data == NULL)
    return rs_error_set(err, RS_NOMEM, path, 0, 0, "out of memory reading the document");
  if (mem != NULL && size > 0) {
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

/* Pass 1 over the stream or the file; *size: the bytes read. */
static rs_status pass1(reader *r, cursor *c, rs_export *x) {
  r->x = x;
  r->c = c;
  rs_status st = fill(c);
  if (st == RS_OK)
    st = read_root(r);
  labels_clear(r);
  return st;
}

static void begin(rs_export *x, rs_arena *arena, reader *r, const char *path,
                  const rs_ingest_options *opts, const rs_series_map *defaults) {
  rs_arena_init(arena, 0);
  memset(r, 0, sizeof(*r));
  rs_export_init(x, arena, path, opts && opts->map ? opts->map : defaults);
  x->select = opts && opts->select && opts->select->n > 0 ? opts->select : NULL;
}

rs_status rs_ingest_prom_json_stream(rs_instream *in, const char *path, rs_sample_format format,
                                     double instant_t, const rs_ingest_options *opts,
                                     rs_sample_sink sink, void *ctx, rs_ingest_result *result,
                                     bool *handled, rs_error *err) {
  rs_arena arena;
  rs_export x;
  rs_series_map defaults;
  reader r;
  struct stat sb;
  FILE *spool = NULL;
  int fd = -1;
  long long size = -1;
  uint64_t rows = 0;
  rs_status st = RS_OK;
  size_t mem_len = 0, wcap = WINDOW;
  const char *mem = rs_instream_memory(in, &mem_len);
  char *buf;
  cursor c = {.look = LOOK, .fd = -1, .line = 1, .path = path, .err = err};
  *handled = true;
  /* A plain memory input is read in place, and a plain regular file again
   * from its start (a memory input's name is never opened); anything else
   * (standard input, a decompressed stream) is copied to a temporary file
   * as pass 1 reads it. */
  if (mem != NULL) {
    size = (long long)mem_len;
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
  if (size >= 0 && (unsigned long long)size < wcap - 1)
    wcap = (size_t)size + 1;
  if ((buf = malloc(wcap)) == NULL) {
    if (fd >= 0)
      close(fd);
    return rs_error_set(err, RS_NOMEM, path, 0, 0, "out of memory reading the document");
  }
  c.buf = buf;
  c.cap = wcap;
  if (mem != NULL) {
    c.mem = mem;
    c.mem_len = size;
  } else if (fd < 0) {
    if ((spool = tmpfile()) == NULL) { /* no temporary directory: read it whole */
      free(buf);
      *handled = false;
      return RS_OK;
    }
    c.in = in;
    c.spool = spool;
  } else {
    c.fd = fd;
  }
  c.strict = size < 0 || size <= (long long)rs_json_stream_tree_max;

  rs_series_map_init(&defaults);
  begin(&x, &arena, &r, path, opts, &defaults);
  st = pass1(&r, &c, &x);
  if (spool != NULL) {
    /* the rest of the input into the copy (after an error), then read it */
    while (st == RS_OK || st == RS_INVALID || st == RS_SYNTAX || st == RS_LIMIT) {
      if (c.eof)
        break;
      c.pos = c.end;
      rs_status rd = fill(&c);
      if (rd != RS_OK) {
        st = rd;
        break;
      }
    }
    if (c.eof && fflush(spool) == 0) {
      fd = fileno(spool);
      size = c.base + (long long)c.end;
    }
  }
  bool seekable = fd >= 0 || mem != NULL;
  if (st != RS_OK && seekable && size == 0) {
    rs_error_clear(err);
    st = rs_error_set(err, RS_INVALID, path, 1, 1, "empty file, expected %s data",
                      rs_format_name(format));
  } else if (st != RS_OK && seekable && size <= (long long)rs_json_stream_tree_max) {
    st = fallback(fd, mem, size, path, format, instant_t, opts, sink, ctx, result, err);
    goto done_fallback;
  } else if (st != RS_OK && seekable && c.strict) {
    /* a copy over the cap that strict pass 1 refused: read it as a big file */
    rs_export_release(&x);
    rs_arena_release(&arena);
    free(r.s);
    begin(&x, &arena, &r, path, opts, &defaults);
    c = (cursor){.buf = buf,
                 .cap = wcap,
                 .look = LOOK,
                 .fd = fd,
                 .mem = mem,
                 .mem_len = size,
                 .line = 1,
                 .path = path,
                 .err = err};
    rs_error_clear(err);
    st = pass1(&r, &c, &x);
  }
  if (st == RS_OK && r.points == 0)
    st = rs_export_no_samples(&x, err);
  if (st == RS_OK && !seekable)
    st = rs_error_set(err, RS_IO, path, 0, 0, "cannot read the temporary copy of the input");
  if (st == RS_OK)
    st = merge(&r, fd, mem, size, sink, ctx, &rows, err);
  if (result != NULL) {
    memset(result, 0, sizeof(*result));
    result->format = format;
    result->rows = rows;
    result->notes = x.notes;
  }
done_fallback:
  free(r.s);
  rs_export_release(&x);
  rs_arena_release(&arena);
  free(buf);
  if (spool != NULL)
    fclose(spool);
  else if (fd >= 0)
    close(fd);
  return st;
}
