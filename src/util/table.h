/* Aligned text tables and Markdown tables over rs_buf, for the report
 * writers: column widths from the widest cell, numbers right-aligned, no
 * trailing spaces; in Markdown a '|' inside a cell is escaped. */
#ifndef RIGHTSIZE_TABLE_H
#define RIGHTSIZE_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "rightsize/buf.h"

typedef enum { RS_TABLE_TEXT, RS_TABLE_MARKDOWN } rs_table_style;

/* Writes a header row and nrows rows of ncols cells each. cells is row
 * major (cells[row * ncols + col]); numeric[col] right-aligns a column. */
void rs_table_write(rs_buf *out, rs_table_style style, size_t ncols, const char *const *heads,
                    const bool *numeric, const char *const *cells, size_t nrows);

#endif
