/* A growable byte buffer with a hard cap (after curl's dynbuf).
 *
 * Writers build a whole report in an rs_buf and print it only when it is
 * complete, so a failure never leaves a partial report on stdout. */
#ifndef RIGHTSIZE_BUF_H
#define RIGHTSIZE_BUF_H

#include <stdbool.h>
#include <stddef.h>

#include "rightsize/error.h"

typedef struct rs_buf {
  char *data; /* always NUL-terminated when len > 0 or after any append */
  size_t len;
  size_t alloc;
  size_t cap;    /* the most bytes this buffer may hold */
  bool failed;   /* an append hit the cap or malloc failed; later appends are no-ops */
  rs_status why; /* once failed: RS_LIMIT (the cap) or RS_NOMEM (malloc) */
} rs_buf;

#define RS_BUF_DEFAULT_CAP ((size_t)256 << 20)

void rs_buf_init(rs_buf *buf, size_t cap);
void rs_buf_release(rs_buf *buf);
void rs_buf_reset(rs_buf *buf);

/* Append bytes, a string or formatted text. On failure the buffer keeps what
 * it had, `failed` is set and RS_NOMEM (malloc) or RS_LIMIT (cap) is returned. */
rs_status rs_buf_append(rs_buf *buf, const void *data, size_t n);
rs_status rs_buf_puts(rs_buf *buf, const char *s);
rs_status rs_buf_putc(rs_buf *buf, char c);
rs_status rs_buf_printf(rs_buf *buf, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Appends s as a JSON string literal, quotes included, escaping what JSON
 * requires. Invalid UTF-8 bytes become U+FFFD so the output stays valid. */
rs_status rs_buf_put_json_string(rs_buf *buf, const char *s);

/* RS_OK, or why the buffer failed: RS_LIMIT (its cap) or RS_NOMEM (malloc).
 * A writer that appends without checking each call returns this at the end. */
rs_status rs_buf_status(const rs_buf *buf);

/* Drops trailing spaces (a table row whose last cells are empty). */
void rs_buf_rstrip(rs_buf *buf);

/* Appends s as one RFC 4180 CSV field: quoted (quotes doubled) when it
 * holds a comma, a quote or a line break, as is otherwise. */
rs_status rs_buf_put_csv(rs_buf *buf, const char *s);

/* Appends a finite double in a fixed, locale-free form with `decimals`
 * digits after the point ("12.240"); trailing zeros are kept so column
 * widths stay stable. Non-finite values print as "null" (JSON) */
/* Untrusted text (a name, a path, a label) as one line of plain text: the
 * one escaping rule of docs/cli.md ("Untrusted text"), cut at 1023 bytes. */
rs_status rs_buf_put_text(rs_buf *buf, const char *s);

/* The same, as Markdown text: markup characters escaped with a backslash. */
rs_status rs_buf_put_markdown(rs_buf *buf, const char *s);

rs_status rs_buf_put_fixed(rs_buf *buf, double v, int decimals);

#endif
