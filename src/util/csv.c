#include "csv.h"

#include "rightsize/arena.h"
#include "rightsize/file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A file's window starts at WINDOW_START and grows to WINDOW_MAX once
 * WINDOW_GROW_AFTER bytes went through it. A page first touched costs
 * more than a read() on a virtual machine (about 8 us against 1.5 us on
 * the development machine), so a file of a few megabytes reads faster
 * through 16 pages than through 64; a large one pays the extra reads
 * only for its first megabytes. */
#define WINDOW_START ((size_t)64 * 1024)
#define WINDOW_MAX ((size_t)256 * 1024)
#define WINDOW_GROW_AFTER ((size_t)16 << 20)
#define DEFAULT_MAX_RECORD ((size_t)1 << 20)
#define DEFAULT_MAX_FIELDS ((size_t)1024)

/* The input is a window in[pos..end) of bytes not yet consumed. For a file
 * the window is a buffer that is refilled (and doubled while a record does
 * not fit); for memory input it is the caller's buffer. A record is always
 * parsed from the start of the window, so when it runs past the end the
 * window is refilled and the record parsed again from its first byte. */
struct rs_csv_reader {
  FILE *fp; /* NULL for memory input and sources */
  bool owns_fp;
  rs_csv_read_fn read; /* a byte source instead of fp, or NULL */
  void *read_ctx;
  char *path;
  rs_csv_options opt;
  const char *in;
  char *inbuf; /* owned window for file input */
  size_t cap, pos, end;
  bool eof;
  bool started;
  size_t consumed; /* bytes dropped from the window before in[0] */
  size_t line;     /* line of in[pos] */
  char *rec;       /* field bytes of the current record, each NUL-terminated */
  size_t rec_cap;
  rs_csv_field *fields;
  size_t nfields, fields_cap;
};

/* How one parse attempt ended. */
typedef enum { GOT_RECORD, NEED_MORE, FAILED } parse_result;

static void set_defaults(rs_csv_options *o, const rs_csv_options *given) {
  if (given)
    *o = *given;
  else
    memset(o, 0, sizeof(*o));
  if (o->delimiter == 0)
    o->delimiter = ',';
  if (o->max_record_bytes == 0)
    o->max_record_bytes = DEFAULT_MAX_RECORD;
  if (o->max_fields == 0)
    o->max_fields = DEFAULT_MAX_FIELDS;
}

/* A reader with no input yet, or NULL when malloc fails. Returning the
 * pointer (not a status and an out parameter) lets the compiler see that r
 * is set on every path that uses it: gcc -O3 could not see through
 * rs_error_set's return value and warned maybe-uninitialized. */
static rs_csv_reader *reader_new(const char *name, const rs_csv_options *opts) {
  rs_csv_reader *r = calloc(1, sizeof(*r));
  if (r == NULL || (r->path = strdup(name)) == NULL) {
    free(r);
    return NULL;
  }
  set_defaults(&r->opt, opts);
  r->line = 1;
  return r;
}

static rs_status open_stream(rs_csv_reader *r, const char *path, rs_error *err) {
  struct stat sb;
  if (strcmp(path, "-") == 0) {
    r->fp = stdin;
  } else {
    rs_status st = rs_file_open_regular(&r->fp, path, err);
    if (st != RS_OK)
      return st;
    r->owns_fp = true;
  }
  if (fstat(fileno(r->fp), &sb) == 0 && S_ISDIR(sb.st_mode))
    return rs_error_set(err, RS_IO, path, 0, 0, "is a directory, expected a file");
  r->inbuf = malloc(WINDOW_START);
  if (r->inbuf == NULL)
    return rs_error_set(err, RS_NOMEM, path, 0, 0, "out of memory opening the file");
  r->in = r->inbuf;
  r->cap = WINDOW_START;
  return RS_OK;
}

rs_status rs_csv_open(rs_csv_reader **out, const char *path, const rs_csv_options *opts,
                      rs_error *err) {
  rs_csv_reader *r = reader_new(path, opts);
  rs_status st;
  *out = NULL;
  if (r == NULL)
    return rs_error_set(err, RS_NOMEM, path, 0, 0, "out of memory opening the file");
  if ((st = open_stream(r, path, err)) != RS_OK) {
    rs_csv_free(r);
    return st;
  }
  *out = r;
  return RS_OK;
}

rs_status rs_csv_open_source(rs_csv_reader **out, const char *name, rs_csv_read_fn read, void *ctx,
                             const rs_csv_options *opts, rs_error *err) {
  rs_csv_reader *r = reader_new(name, opts);
  *out = NULL;
  if (r == NULL || (r->inbuf = malloc(WINDOW_START)) == NULL) {
    rs_csv_free(r);
    return rs_error_set(err, RS_NOMEM, name, 0, 0, "out of memory opening the file");
  }
  r->in = r->inbuf;
  r->cap = WINDOW_START;
  r->read = read;
  r->read_ctx = ctx;
  *out = r;
  return RS_OK;
}

rs_status rs_csv_open_memory(rs_csv_reader **out, const char *name, const char *data, size_t len,
                             const rs_csv_options *opts, rs_error *err) {
  rs_csv_reader *r = reader_new(name, opts);
  *out = NULL;
  if (r == NULL)
    return rs_error_set(err, RS_NOMEM, name, 0, 0, "out of memory opening the file");
  r->in = data;
  r->end = len;
  r->eof = true;
  *out = r;
  return RS_OK;
}

/* Moves the unconsumed bytes to the front, grows the window when it is full
 * (or, up to WINDOW_MAX, when enough went through it) and reads what fits.
 * Sets eof at end of input. */
static rs_status fill(rs_csv_reader *r, rs_error *err) {
  size_t got;
  if (r->pos > 0) {
    memmove(r->inbuf, r->inbuf + r->pos, r->end - r->pos);
    r->end -= r->pos;
    r->consumed += r->pos;
    r->pos = 0;
  }
  if (r->end == r->cap || (r->cap < WINDOW_MAX && r->consumed >= WINDOW_GROW_AFTER)) {
    char *p = realloc(r->inbuf, r->cap * 2);
    if (p == NULL)
      return rs_error_set(err, RS_NOMEM, r->path, r->line, 1, "out of memory reading a line");
    r->inbuf = p;
    r->in = p;
    r->cap *= 2;
  }
  if (r->read != NULL) {
    rs_status st = r->read(r->read_ctx, r->inbuf + r->end, r->cap - r->end, &got, err);
    if (st != RS_OK)
      return st;
    r->end += got;
    if (got == 0)
      r->eof = true;
    return RS_OK;
  }
  got = fread(r->inbuf + r->end, 1, r->cap - r->end, r->fp);
  r->end += got;
  if (got == 0) {
    if (ferror(r->fp))
      return rs_error_set(err, RS_IO, r->path, r->line, 0, "read error: %s", strerror(errno));
    r->eof = true;
  }
  return RS_OK;
}

static rs_status too_long(const rs_csv_reader *r, rs_error *err) {
  return rs_error_set(err, RS_LIMIT, r->path, r->line, 1, "line longer than %zu bytes",
                      r->opt.max_record_bytes);
}

/* Room for a record parsed from n input bytes: its fields never take more
 * than n bytes plus one terminating NUL. */
static rs_status rec_reserve(rs_csv_reader *r, size_t n, rs_error *err) {
  char *p;
  if (n + 1 <= r->rec_cap)
    return RS_OK;
  p = realloc(r->rec, n + 1);
  if (p == NULL)
    return rs_error_set(err, RS_NOMEM, r->path, r->line, 1, "out of memory reading a line");
  r->rec = p;
  r->rec_cap = n + 1;
  return RS_OK;
}

static rs_status add_field(rs_csv_reader *r, const char *text, size_t len, size_t line, size_t col,
                           bool quoted, rs_error *err) {
  rs_csv_field *f;
  if (r->nfields == r->opt.max_fields)
    return rs_error_set(err, RS_LIMIT, r->path, line, col, "more than %zu fields",
                        r->opt.max_fields);
  if (r->nfields == r->fields_cap) {
    size_t na = r->fields_cap ? r->fields_cap * 2 : 32;
    rs_csv_field *p = rs_realloc_array(r->fields, na, sizeof(*p));
    if (p == NULL)
      return rs_error_set(err, RS_NOMEM, r->path, line, col, "out of memory reading a line");
    r->fields = p;
    r->fields_cap = na;
  }
  f = &r->fields[r->nfields++];
  f->text = text;
  f->len = len;
  f->line = line;
  f->col = col;
  f->quoted = quoted;
  return RS_OK;
}

/* Makes room for at least n fields (up to the cap); RS_LIMIT past it is
 * reported by the caller at the field that overflows. */
static rs_status fields_reserve(rs_csv_reader *r, size_t n, rs_error *err) {
  size_t na = r->fields_cap ? r->fields_cap : 32;
  if (n <= r->fields_cap)
    return RS_OK;
  while (na < n)
    na *= 2;
  rs_csv_field *p = rs_realloc_array(r->fields, na, sizeof(*p));
  if (p == NULL)
    return rs_error_set(err, RS_NOMEM, r->path, r->line, 1, "out of memory reading a line");
  r->fields = p;
  r->fields_cap = na;
  return RS_OK;
}

/* The common case: a line [p, p+len) with no quote in it, split in one
 * pass that copies the bytes and ends each field at its delimiter with a
 * NUL. A quote anywhere sends the line to the quoted parser (*quoted). */
static rs_status split_line(rs_csv_reader *r, const char *p, size_t len, bool *quoted,
                            rs_error *err) {
  const char d = r->opt.delimiter;
  rs_status st = rec_reserve(r, len, err);
  if (st != RS_OK)
    return st;
  char *o = r->rec;
  size_t fstart = 0, n = 0;
  for (size_t i = 0; i < len; i++) {
    char ch = p[i];
    if (ch == '"') {
      *quoted = true;
      return RS_OK;
    }
    if (ch != d) {
      o[i] = ch;
      continue;
    }
    o[i] = '\0';
    if (n == r->fields_cap && (st = fields_reserve(r, n + 1, err)) != RS_OK)
      return st;
    if (n == r->opt.max_fields)
      return rs_error_set(err, RS_LIMIT, r->path, r->line, fstart + 1, "more than %zu fields",
                          r->opt.max_fields);
    r->fields[n] = (rs_csv_field){o + fstart, i - fstart, r->line, fstart + 1, false};
    n++;
    fstart = i + 1;
  }
  o[len] = '\0';
  r->nfields = n;
  return add_field(r, o + fstart, len - fstart, r->line, fstart + 1, false, err);
}

/* Tries the fast path at in[pos]: finds the end of the line and, when the
 * line holds no quote, splits it. *quoted is set when it does. */
static parse_result parse_plain(rs_csv_reader *r, bool *quoted, rs_status *st, rs_error *err) {
  const char *p = r->in + r->pos;
  size_t avail = r->end - r->pos, len, next;
  const char *nl = memchr(p, '\n', avail);
  *quoted = false;
  if (nl == NULL && !r->eof) {
    *st = avail > r->opt.max_record_bytes ? too_long(r, err) : RS_OK;
    return *st == RS_OK ? NEED_MORE : FAILED;
  }
  len = nl ? (size_t)(nl - p) : avail;
  next = nl ? len + 1 : len;
  if (len > 0 && p[len - 1] == '\r')
    len--;
  if (len > r->opt.max_record_bytes) {
    *st = too_long(r, err);
    return FAILED;
  }
  if (len > 0 && ((*st = split_line(r, p, len, quoted, err)) != RS_OK || *quoted))
    return FAILED;
  r->pos += next;
  r->line++;
  return GOT_RECORD;
}

/* A parse of one record with quotes, byte by byte. */
typedef struct quoted_parse {
  rs_csv_reader *r;
  const char *p;   /* first byte of the record */
  const char *q;   /* cursor */
  const char *lim; /* scan limit: end of window or the record cap */
  const char *ls;  /* start of the current line, for columns */
  size_t line;
  char *o; /* output cursor in r->rec */
} quoted_parse;

/* Where the cursor ran into lim: more input, a too-long record, or true end. */
static parse_result at_limit(const quoted_parse *qp, rs_status *st, rs_error *err) {
  const rs_csv_reader *r = qp->r;
  if (qp->lim < r->in + r->end) {
    *st = too_long(r, err);
    return FAILED;
  }
  if (!r->eof) {
    if ((size_t)(qp->lim - qp->p) >= r->opt.max_record_bytes) {
      *st = too_long(r, err);
      return FAILED;
    }
    return NEED_MORE;
  }
  return GOT_RECORD;
}

/* Reads a quoted field whose opening quote is at qp->q. GOT_RECORD means the
 * closing quote was read and the cursor is just past it. */
static parse_result quoted_field(quoted_parse *qp, rs_status *st, rs_error *err) {
  size_t qline = qp->line, qcol = (size_t)(qp->q - qp->ls) + 1;
  parse_result res;
  qp->q++;
  for (;;) {
    const char *q = qp->q;
    if (q == qp->lim) {
      res = at_limit(qp, st, err);
      if (res == GOT_RECORD) {
        *st = rs_error_set(err, RS_SYNTAX, qp->r->path, qline, qcol, "unterminated quoted field");
        res = FAILED;
      }
      return res;
    }
    if (*q == '"') {
      if (q + 1 == qp->lim && (res = at_limit(qp, st, err)) != GOT_RECORD)
        return res;
      if (q + 1 < qp->lim && q[1] == '"') {
        *qp->o++ = '"';
        qp->q += 2;
        continue;
      }
      qp->q++;
      return GOT_RECORD;
    }
    if (*q == '\n') {
      qp->line++;
      qp->ls = q + 1;
    }
    *qp->o++ = *q;
    qp->q++;
  }
}

/* After a closing quote: the delimiter, a line end or the end of input. */
static parse_result after_quote(quoted_parse *qp, rs_status *st, rs_error *err) {
  const char *q = qp->q;
  parse_result res;
  if (q == qp->lim)
    return at_limit(qp, st, err);
  if (*q == qp->r->opt.delimiter || *q == '\n')
    return GOT_RECORD;
  if (*q == '\r') {
    if (q + 1 == qp->lim && (res = at_limit(qp, st, err)) != GOT_RECORD)
      return res;
    if (q + 1 == qp->lim || q[1] == '\n') {
      qp->q++; /* the CR of a CRLF, or a lone CR at the end of input */
      return GOT_RECORD;
    }
  }
  *st = rs_error_set(err, RS_SYNTAX, qp->r->path, qp->line, (size_t)(q - qp->ls) + 1,
                     "unexpected character after closing quote");
  return FAILED;
}

/* An unquoted field in a quoted record: up to the delimiter or line end. */
static parse_result plain_field(quoted_parse *qp, rs_status *st, rs_error *err) {
  const char d = qp->r->opt.delimiter;
  char *start = qp->o;
  while (qp->q < qp->lim && *qp->q != d && *qp->q != '\n')
    *qp->o++ = *qp->q++;
  if (qp->q == qp->lim) {
    parse_result res = at_limit(qp, st, err);
    if (res != GOT_RECORD)
      return res;
  }
  if (qp->o > start && qp->o[-1] == '\r' && (qp->q == qp->lim || *qp->q == '\n'))
    qp->o--; /* CR of a CRLF, or at the end of input */
  return GOT_RECORD;
}

static parse_result parse_quoted(rs_csv_reader *r, rs_status *st, rs_error *err) {
  size_t avail = r->end - r->pos;
  quoted_parse qp = {r, r->in + r->pos, r->in + r->pos, NULL, r->in + r->pos, r->line, NULL};
  qp.lim = qp.p + (avail < r->opt.max_record_bytes ? avail : r->opt.max_record_bytes);
  if ((*st = rec_reserve(r, (size_t)(qp.lim - qp.p), err)) != RS_OK)
    return FAILED;
  qp.o = r->rec;
  for (;;) {
    size_t fline = qp.line, fcol = (size_t)(qp.q - qp.ls) + 1;
    bool quoted = qp.q < qp.lim && *qp.q == '"';
    char *text = qp.o;
    parse_result res = quoted ? quoted_field(&qp, st, err) : plain_field(&qp, st, err);
    if (res == GOT_RECORD && quoted)
      res = after_quote(&qp, st, err);
    if (res != GOT_RECORD)
      return res;
    *qp.o = '\0';
    *st = add_field(r, text, (size_t)(qp.o - text), fline, fcol, quoted, err);
    if (*st != RS_OK)
      return FAILED;
    qp.o++;
    if (qp.q < qp.lim && *qp.q == r->opt.delimiter) {
      qp.q++;
      continue;
    }
    if (qp.q < qp.lim) /* the LF */
      qp.q++;
    r->pos = (size_t)(qp.q - r->in);
    r->line = qp.line + 1;
    return GOT_RECORD;
  }
}

static void strip_bom(rs_csv_reader *r) {
  if (r->end - r->pos >= 3 && memcmp(r->in + r->pos, "\xEF\xBB\xBF", 3) == 0)
    r->pos += 3;
}

/* Makes sure the first bytes are in the window, then drops a BOM. */
static rs_status start(rs_csv_reader *r, rs_error *err) {
  rs_status st = RS_OK;
  r->started = true;
  while ((r->fp || r->read) && !r->eof && r->end < 3 && st == RS_OK)
    st = fill(r, err);
  if (st == RS_OK)
    strip_bom(r);
  return st;
}

/* Parses one record at in[pos], or a blank line (then *nfields stays 0). */
static parse_result parse_record(rs_csv_reader *r, rs_status *st, rs_error *err) {
  bool quoted;
  parse_result res;
  r->nfields = 0;
  res = parse_plain(r, &quoted, st, err);
  if (res == FAILED && quoted) {
    r->nfields = 0;
    res = parse_quoted(r, st, err);
  }
  return res;
}

rs_status rs_csv_next(rs_csv_reader *r, const rs_csv_field **fields, size_t *nfields,
                      rs_error *err) {
  rs_status st = RS_OK;
  *fields = r->fields;
  *nfields = 0;
  if (!r->started && (st = start(r, err)) != RS_OK)
    return st;
  for (;;) {
    parse_result res;
    if (r->pos == r->end) {
      if (r->eof)
        return RS_OK;
      if ((st = fill(r, err)) != RS_OK)
        return st;
      continue;
    }
    res = parse_record(r, &st, err);
    if (res == FAILED)
      return st;
    if (res == NEED_MORE) {
      if ((st = fill(r, err)) != RS_OK)
        return st;
      continue;
    }
    if (r->nfields > 0) {
      *fields = r->fields;
      *nfields = r->nfields;
      return RS_OK;
    }
  }
}

/* The last '\n' in p[0..n), or NULL (memrchr is not in C11 or POSIX). */
static const char *last_newline(const char *p, size_t n) {
  while (n > 0)
    if (p[--n] == '\n')
      return p + n;
  return NULL;
}

const char *rs_csv_lines(const rs_csv_reader *r, size_t *len, size_t *line, size_t *max_record) {
  const char *p = r->in + r->pos, *nl = NULL;
  *len = 0;
  *line = r->line;
  *max_record = r->opt.max_record_bytes;
  if (r->started && r->end > r->pos)
    nl = last_newline(p, r->end - r->pos);
  if (nl == NULL)
    return NULL;
  *len = (size_t)(nl - p) + 1;
  return p;
}

void rs_csv_skip(rs_csv_reader *r, size_t len, size_t nlines) {
  r->pos += len;
  r->line += nlines;
}

const char *rs_csv_path(const rs_csv_reader *r) { return r->path; }

size_t rs_csv_offset(const rs_csv_reader *r) { return r->consumed + r->pos; }

void rs_csv_free(rs_csv_reader *r) {
  if (r == NULL)
    return;
  if (r->owns_fp)
    fclose(r->fp);
  free(r->inbuf);
  free(r->rec);
  free(r->fields);
  free(r->path);
  free(r);
}
