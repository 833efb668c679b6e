/* Shared between ingest.c (detection, dispatch, the row loop, cell parsing)
 * and the two header readers, ingest_native.c and ingest_nvsmi.c. */
#ifndef RIGHTSIZE_INGEST_INTERNAL_H
#define RIGHTSIZE_INGEST_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "rightsize/arena.h"
#include "rightsize/csv.h"
#include "rightsize/ingest.h"

/* The columns of one file, as its header (or the headerless default) says.
 * Names are copies owned by the arena that built the layout: header fields
 * are borrowed from the CSV reader only until its next record. */
typedef struct rs_ingest_layout {
  rs_column *cols;
  const char **names; /* as written in the header, trimmed: used in messages */
  size_t ncols;
  bool headerless;    /* the first record is data (nvidia-smi csv,noheader) */
  const char *ragged; /* what a wrong field count message adds in parentheses */
} rs_ingest_layout;

/* The longest value text quoted back in an error message. */
#define RS_INGEST_QUOTE_MAX 64

/* Trims spaces and tabs from both ends of s[0..*len), returns the new start. */
const char *rs_ingest_trim(const char *s, size_t *len);

/* Allocates cols and names for n columns in arena; RS_NOMEM through err. */
rs_status rs_ingest_layout_alloc(rs_ingest_layout *out, rs_arena *arena, size_t n, rs_error *err);

/* Shared header checks for both formats: a duplicate timestamp, index or
 * metric column (reported at the second one, naming the first), and a
 * missing timestamp column. */
rs_status rs_ingest_layout_check(const rs_ingest_layout *layout, const rs_csv_field *fields,
                                 const char *path, rs_error *err);

/* rs_sample_set_cell with the column's name as written in the header. */
rs_status rs_ingest_set_cell(rs_sample *s, const rs_column *c, const char *colname,
                             const char *text, size_t len, const char *path, size_t line,
                             size_t col, rs_error *err);

/* Native header (ingest_native.c): every name must be a documented column or
 * start with x_. */
rs_status rs_ingest_native_header(rs_ingest_layout *out, rs_arena *arena,
                                  const rs_csv_field *fields, size_t n, const char *path,
                                  rs_error *err);

/* Suggests the native column name closest to name (edit distance <= 2) into
 * buf; false when none is close enough. */
bool rs_ingest_native_suggest(char *buf, size_t size, const char *name, size_t len);

/* Enumerates every native column name (ingest.c, next to the table): false
 * when i is past the end. */
bool rs_ingest_native_name(char *buf, size_t size, size_t i);

/* nvidia-smi (ingest_nvsmi.c). */
bool rs_ingest_nvsmi_is_header(const rs_csv_field *fields, size_t n);
bool rs_ingest_nvsmi_is_timestamp(const char *s, size_t len);
rs_status rs_ingest_nvsmi_header(rs_ingest_layout *out, rs_arena *arena, const rs_csv_field *fields,
                                 size_t n, const char *path, rs_error *err);
/* The layout of csv,noheader logs: timestamp,index,utilization.gpu,memory.used,memory.total. */
rs_status rs_ingest_nvsmi_default(rs_ingest_layout *out, rs_arena *arena, rs_error *err);

#endif
