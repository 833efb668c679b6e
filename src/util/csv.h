/* A streaming RFC 4180 CSV reader (util layer: libc only).
 *
 * Reads a file in chunks and hands out one record at a time; memory stays
 * bounded by the longest record (capped). It strips a UTF-8 byte-order mark,
 * accepts LF and CRLF line endings and a missing final newline, and tracks the
 * line and column of every field so callers can report positions. Quoted
 * fields may hold the delimiter, doubled quotes and newlines. */
#ifndef RIGHTSIZE_CSV_H
#define RIGHTSIZE_CSV_H

#include <stdbool.h>
#include <stddef.h>

#include "rightsize/error.h"

typedef struct rs_csv_field {
  const char *text; /* unquoted bytes, NUL-terminated; borrowed until the next call */
  size_t len;
  size_t line; /* 1-based line where the field starts */
  size_t col;  /* 1-based byte column where the field starts */
  bool quoted;
} rs_csv_field;

typedef struct rs_csv_options {
  char delimiter;          /* default ',' */
  size_t max_record_bytes; /* default 1 MiB: a longer record is RS_LIMIT */
  size_t max_fields;       /* default 1024 */
} rs_csv_options;

typedef struct rs_csv_reader rs_csv_reader;

/* Opens path for reading ("-" reads standard input). opts may be NULL for the
 * defaults. On failure *out is NULL and err says why (RS_IO with the path).
 * A directory is refused with RS_IO. The reader belongs to the caller. */
rs_status rs_csv_open(rs_csv_reader **out, const char *path, const rs_csv_options *opts,
                      rs_error *err);

/* A byte source for rs_csv_open_source: fills buf with up to cap bytes and
 * sets *got; *got == 0 means end of input. Errors go through err, already
 * positioned by the source (a decompressor knows where it failed). */
typedef rs_status (*rs_csv_read_fn)(void *ctx, char *buf, size_t cap, size_t *got, rs_error *err);

/* Reads from a byte source (a decompressing stream, for example); name is
 * used in messages. ctx is borrowed and must outlive the reader. */
rs_status rs_csv_open_source(rs_csv_reader **out, const char *name, rs_csv_read_fn read, void *ctx,
                             const rs_csv_options *opts, rs_error *err);

/* Reads from a memory buffer (not copied; it must outlive the reader). name is
 * used in error messages. */
rs_status rs_csv_open_memory(rs_csv_reader **out, const char *name, const char *data, size_t len,
                             const rs_csv_options *opts, rs_error *err);

/* Reads the next record. Blank lines (nothing but an optional CR) are skipped.
 * At end of input returns RS_OK with *nfields = 0. Errors: RS_SYNTAX for an
 * unterminated quote or text after a closing quote, RS_LIMIT for an over-long
 * record or too many fields, RS_IO for a read error; each with position. */
rs_status rs_csv_next(rs_csv_reader *r, const rs_csv_field **fields, size_t *nfields,
                      rs_error *err);

/* The buffered input that holds whole lines, for a caller that parses
 * plain lines itself (the native row loop's fast path): *len bytes from the
 * returned pointer, the last of them '\n' (0 and NULL when no whole line is
 * buffered; only once the first record was read). *line is the line number
 * of the first byte and *max_record the record limit. Borrowed until the
 * next call on the reader. */
const char *rs_csv_lines(const rs_csv_reader *r, size_t *len, size_t *line, size_t *max_record);

/* Marks the first len bytes that rs_csv_lines gave, nlines whole lines, as
 * read. */
void rs_csv_skip(rs_csv_reader *r, size_t len, size_t nlines);

/* The path or name given at open, borrowed. */
const char *rs_csv_path(const rs_csv_reader *r);

/* Bytes consumed so far (for progress and benchmarks). */
size_t rs_csv_offset(const rs_csv_reader *r);

/* Closes the file and frees the reader; NULL is a no-op. */
void rs_csv_free(rs_csv_reader *r);

#endif
