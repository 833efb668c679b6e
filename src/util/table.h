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

/* Copies text to out (a failed text fails out), breaking each line wider than width
 * columns at a space. A continuation hangs under the line's value: for a
 * line that starts at column 0, at column label (where its padded labels
 * end, "bound by   ..."); for an indented line, at the end of the last run of
 * two or more spaces in its first half, where its last aligned column
 * starts ("  FAIL  max-overprovision      the ..."), else two columns further
 * in than the line. A word longer than the width stays whole. */
void rs_text_wrap(rs_buf *out, const rs_buf *text, size_t width, size_t label);

#endif
