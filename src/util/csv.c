#include "rightsize/csv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CHUNK ((size_t)64 * 1024)

struct rs_csv_reader {
  FILE *fp;          /* NULL for memory input */
  bool owns_fp;
  char *path;
  rs_csv_options opt;
  const char *mem;   /* memory input */
  size_t mem_len, mem_off;
  char *in;          /* file read buffer */
  size_t in_len, in_off;
  bool eof;
  char *rec;         /* unquoted bytes of the current record, fields NUL-separated */
  size_t rec_len, rec_alloc;
  rs_csv_field *fields;
  size_t nfields, fields_alloc;
  size_t line;       /* line of the next byte */
  size_t col;
  size_t offset;     /* bytes consumed */
  bool started;
};

static void set_defaults(rs_csv_options *o, const rs_csv_options *given) {
  if (given)
    *o = *given;
  else
    memset(o, 0, sizeof(*o));
  if (o->delimiter == 0)
    o->delimiter = ',';
  if (o->max_record_bytes == 0)
    o->max_record_bytes = (size_t)1 << 20;
  if (o->max_fields == 0)
    o->max_fields = 1024;
}

static rs_status reader_new(rs_csv_reader **out, const char *name, const rs_csv_options *opts,
                            rs_error *err) {
  rs_csv_reader *r = calloc(1, sizeof(*r));
  if (r == NULL || (r->path = strdup(name)) == NULL) {
    free(r);
    return rs_error_set(err, RS_NOMEM, name, 0, 0, "out of memory opening the file");
  }
  set_defaults(&r->opt, opts);
  r->line = 1;
  r->col = 1;
  *out = r;
  return RS_OK;
}

rs_status rs_csv_open(rs_csv_reader **out, const char *path, const rs_csv_options *opts,
                      rs_error *err) {
  rs_csv_reader *r;
  struct stat sb;
  rs_status st;
  *out = NULL;
  if (strcmp(path, "-") != 0) {
    if (stat(path, &sb) != 0)
      return rs_error_set(err, RS_IO, path, 0, 0, "cannot open: %s", strerror(errno));
    if (S_ISDIR(sb.st_mode))
      return rs_error_set(err, RS_IO, path, 0, 0, "is a directory, expected a file");
  }
  st = reader_new(&r, path, opts, err);
  if (st != RS_OK)
    return st;
  if (strcmp(path, "-") == 0) {
    r->fp = stdin;
  } else {
    r->fp = fopen(path, "rb");
    r->owns_fp = true;
    if (r->fp == NULL) {
      st = rs_error_set(err, RS_IO, path, 0, 0, "cannot open: %s", strerror(errno));
      rs_csv_free(r);
      return st;
    }
  }
  r->in = malloc(CHUNK);
  if (r->in == NULL) {
    rs_csv_free(r);
    return rs_error_set(err, RS_NOMEM, path, 0, 0, "out of memory opening the file");
  }
  *out = r;
  return RS_OK;
}

rs_status rs_csv_open_memory(rs_csv_reader **out, const char *name, const char *data, size_t len,
                             const rs_csv_options *opts, rs_error *err) {
  rs_csv_reader *r;
  rs_status st = reader_new(&r, name, opts, err);
  *out = NULL;
  if (st != RS_OK)
    return st;
  r->mem = data;
  r->mem_len = len;
  *out = r;
  return RS_OK;
}

/* Makes bytes available at r->in[r->in_off..in_len); false at end of input. */
static bool fill(rs_csv_reader *r, rs_error *err, rs_status *st) {
  if (r->mem) {
    if (r->in == NULL) { /* memory input: expose the whole buffer once */
      r->in = (char *)r->mem;
      r->in_len = r->mem_len;
      r->in_off = 0;
      return r->in_len > 0;
    }
    return false;
  }
  if (r->eof)
    return false;
  r->in_len = fread(r->in, 1, CHUNK, r->fp);
  r->in_off = 0;
  if (r->in_len < CHUNK) {
    if (ferror(r->fp)) {
      *st = rs_error_set(err, RS_IO, r->path, r->line, 0, "read error: %s", strerror(errno));
      return false;
    }
    r->eof = true;
  }
  return r->in_len > 0;
}

static rs_status rec_putc(rs_csv_reader *r, char c, rs_error *err) {
  if (r->rec_len + 1 >= r->rec_alloc) {
    size_t na = r->rec_alloc ? r->rec_alloc * 2 : 4096;
    char *p;
    if (r->rec_len >= r->opt.max_record_bytes)
      return rs_error_set(err, RS_LIMIT, r->path, r->line, 1, "line longer than %zu bytes",
                          r->opt.max_record_bytes);
    if (na > r->opt.max_record_bytes + 2)
      na = r->opt.max_record_bytes + 2;
    p = realloc(r->rec, na);
    if (p == NULL)
      return rs_error_set(err, RS_NOMEM, r->path, r->line, 1, "out of memory reading a line");
    r->rec = p;
    r->rec_alloc = na;
  }
  r->rec[r->rec_len++] = c;
  return RS_OK;
}

static rs_status field_start(rs_csv_reader *r, rs_error *err) {
  if (r->nfields >= r->opt.max_fields)
    return rs_error_set(err, RS_LIMIT, r->path, r->line, r->col, "more than %zu fields",
                        r->opt.max_fields);
  if (r->nfields == r->fields_alloc) {
    size_t na = r->fields_alloc ? r->fields_alloc * 2 : 32;
    rs_csv_field *p = realloc(r->fields, na * sizeof(*p));
    if (p == NULL)
      return rs_error_set(err, RS_NOMEM, r->path, r->line, 1, "out of memory reading a line");
    r->fields = p;
    r->fields_alloc = na;
  }
  /* len holds the start offset into rec until the record is complete (rec may
   * move while it grows); finalize() turns it into text and length. */
  r->fields[r->nfields].text = NULL;
  r->fields[r->nfields].len = r->rec_len;
  r->fields[r->nfields].line = r->line;
  r->fields[r->nfields].col = r->col;
  r->fields[r->nfields].quoted = false;
  r->nfields++;
  return RS_OK;
}

/* Next byte, or -1 at end of input (-2 on read error). */
static int next_byte(rs_csv_reader *r, rs_error *err, rs_status *st) {
  if (r->in_off >= r->in_len && !fill(r, err, st))
    return *st == RS_OK ? -1 : -2;
  r->offset++;
  return (unsigned char)r->in[r->in_off++];
}

static int peek_byte(rs_csv_reader *r, rs_error *err, rs_status *st) {
  if (r->in_off >= r->in_len && !fill(r, err, st))
    return *st == RS_OK ? -1 : -2;
  return (unsigned char)r->in[r->in_off];
}

/* Copies the unquoted run of plain bytes quickly (the common case). */
static rs_status plain_run(rs_csv_reader *r, rs_error *err) {
  const char d = r->opt.delimiter;
  while (r->in_off < r->in_len) {
    char c = r->in[r->in_off];
    if (c == d || c == '\n' || c == '\r' || c == '"')
      return RS_OK;
    rs_status st = rec_putc(r, c, err);
    if (st != RS_OK)
      return st;
    r->in_off++;
    r->offset++;
    r->col++;
  }
  return RS_OK;
}

static rs_status quoted_field(rs_csv_reader *r, rs_error *err) {
  size_t qline = r->line, qcol = r->col;
  rs_status st = RS_OK;
  r->fields[r->nfields - 1].quoted = true;
  r->col++;
  for (;;) {
    int c = next_byte(r, err, &st);
    if (c == -2)
      return st;
    if (c == -1)
      return rs_error_set(err, RS_SYNTAX, r->path, qline, qcol, "unterminated quoted field");
    if (c == '"') {
      int p = peek_byte(r, err, &st);
      if (p == '"') {
        next_byte(r, err, &st);
        r->col += 2;
        st = rec_putc(r, '"', err);
      } else {
        r->col++;
        if (p >= 0 && p != r->opt.delimiter && p != '\n' && p != '\r')
          return rs_error_set(err, RS_SYNTAX, r->path, r->line, r->col,
                              "unexpected character after closing quote, expected '%c' or end "
                              "of line",
                              r->opt.delimiter);
        return st;
      }
    } else {
      if (c == '\n') {
        r->line++;
        r->col = 1;
      } else {
        r->col++;
      }
      st = rec_putc(r, (char)c, err);
    }
    if (st != RS_OK)
      return st;
  }
}

static void finalize(rs_csv_reader *r) {
  for (size_t i = 0; i < r->nfields; i++) {
    size_t start = r->fields[i].len;
    size_t end = i + 1 < r->nfields ? r->fields[i + 1].len - 1 : r->rec_len;
    r->fields[i].text = r->rec + start;
    r->fields[i].len = end - start;
    r->rec[end] = '\0';
  }
}

/* Reads one physical record into rec/fields; *got is false at end of input. */
static rs_status read_record(rs_csv_reader *r, bool *got, rs_error *err) {
  rs_status st = RS_OK;
  int c;
  r->rec_len = 0;
  r->nfields = 0;
  *got = false;
  if ((c = peek_byte(r, err, &st)) < 0)
    return st;
  *got = true;
  if ((st = field_start(r, err)) != RS_OK)
    return st;
  for (;;) {
    if ((st = plain_run(r, err)) != RS_OK)
      return st;
    c = next_byte(r, err, &st);
    if (c == -2)
      return st;
    if (c == -1 || c == '\n') {
      r->line++;
      r->col = 1;
      break;
    }
    if (c == '\r') {
      if (peek_byte(r, err, &st) == '\n')
        continue; /* the LF ends the record */
      r->col++;
      if ((st = rec_putc(r, '\r', err)) != RS_OK)
        return st;
    } else if (c == r->opt.delimiter) {
      r->col++;
      if ((st = rec_putc(r, '\0', err)) != RS_OK || (st = field_start(r, err)) != RS_OK)
        return st;
    } else if (c == '"') {
      size_t start = r->fields[r->nfields - 1].len;
      if (r->rec_len != start) {
        r->col++;
        if ((st = rec_putc(r, '"', err)) != RS_OK)
          return st;
      } else if ((st = quoted_field(r, err)) != RS_OK) {
        return st;
      }
    }
  }
  return rec_putc(r, '\0', err);
}

static void strip_bom(rs_csv_reader *r, rs_error *err) {
  rs_status st = RS_OK;
  if (peek_byte(r, err, &st) == 0xEF && r->in_len - r->in_off >= 3 &&
      (unsigned char)r->in[r->in_off + 1] == 0xBB && (unsigned char)r->in[r->in_off + 2] == 0xBF) {
    r->in_off += 3;
    r->offset += 3;
  }
}

rs_status rs_csv_next(rs_csv_reader *r, const rs_csv_field **fields, size_t *nfields,
                      rs_error *err) {
  rs_status st;
  bool got;
  *fields = NULL;
  *nfields = 0;
  if (!r->started) {
    r->started = true;
    strip_bom(r, err);
  }
  for (;;) {
    st = read_record(r, &got, err);
    if (st != RS_OK || !got)
      return st;
    r->rec_len--; /* the terminating NUL added by read_record */
    if (r->nfields == 1 && r->rec_len == 0 && !r->fields[0].quoted)
      continue; /* blank line */
    if (r->nfields == 1 && r->rec_len == 1 && r->rec[0] == '\r')
      continue;
    finalize(r);
    /* A CR left at the very end of the record (a lone CR before EOF). */
    rs_csv_field *last = &r->fields[r->nfields - 1];
    if (!last->quoted && last->len > 0 && last->text[last->len - 1] == '\r')
      ((char *)last->text)[--last->len] = '\0';
    *fields = r->fields;
    *nfields = r->nfields;
    return RS_OK;
  }
}

const char *rs_csv_path(const rs_csv_reader *r) { return r->path; }

size_t rs_csv_offset(const rs_csv_reader *r) { return r->offset; }

void rs_csv_free(rs_csv_reader *r) {
  if (r == NULL)
    return;
  if (r->owns_fp && r->fp)
    fclose(r->fp);
  if (r->mem == NULL)
    free(r->in);
  free(r->rec);
  free(r->fields);
  free(r->path);
  free(r);
}
