/* A small streaming JSON writer over rs_buf: two-space indentation, keys in
 * the order written, commas handled, numbers in a fixed locale-free form.
 * Callers nest at most RS_JSONW_DEPTH levels (asserted). */
#ifndef RIGHTSIZE_JSONW_H
#define RIGHTSIZE_JSONW_H

#include <stdbool.h>
#include <stdint.h>

#include "rightsize/buf.h"

#define RS_JSONW_DEPTH 16

typedef struct rs_jsonw {
  rs_buf *out;
  int depth;
  bool first[RS_JSONW_DEPTH]; /* no member written yet at this level */
  bool after_key;
} rs_jsonw;

void rs_jsonw_init(rs_jsonw *w, rs_buf *out);

/* Containers. key may be NULL inside arrays and at the top level. */
void rs_jsonw_object(rs_jsonw *w, const char *key);
void rs_jsonw_array(rs_jsonw *w, const char *key);
void rs_jsonw_end(rs_jsonw *w, char close); /* '}' or ']' */

/* Members. A non-finite number is written as null. */
void rs_jsonw_string(rs_jsonw *w, const char *key, const char *value); /* NULL -> null */
void rs_jsonw_number(rs_jsonw *w, const char *key, double value);
void rs_jsonw_uint(rs_jsonw *w, const char *key, uint64_t value);
void rs_jsonw_bool(rs_jsonw *w, const char *key, bool value);
void rs_jsonw_null(rs_jsonw *w, const char *key);

/* Ends the document with a newline. */
void rs_jsonw_finish(rs_jsonw *w);

#endif
