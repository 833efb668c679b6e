/* Text and Markdown tables (table.h). */
#include "table.h"

#include <string.h>

static void md_cell(rs_buf *out, const char *s) {
  rs_buf_puts(out, "| ");
  for (; *s; s++) {
    if (*s == '|')
      rs_buf_putc(out, '\\');
    rs_buf_putc(out, *s);
  }
  rs_buf_putc(out, ' ');
}

static void text_row(rs_buf *out, size_t ncols, const char *const *row, const bool *numeric,
                     const size_t *width, bool head) {
  for (size_t k = 0; k < ncols; k++) {
    const char *sep = k ? "  " : "";
    int w = (int)width[k];
    if (numeric[k] && !head)
      rs_buf_printf(out, "%s%*s", sep, w, row[k]);
    else
      rs_buf_printf(out, "%s%-*s", sep, w, row[k]);
  }
  rs_buf_rstrip(out);
  rs_buf_putc(out, '\n');
}

void rs_table_write(rs_buf *out, rs_table_style style, size_t ncols, const char *const *heads,
                    const bool *numeric, const char *const *cells, size_t nrows) {
  if (style == RS_TABLE_MARKDOWN) {
    for (size_t k = 0; k < ncols; k++)
      md_cell(out, heads[k]);
    rs_buf_puts(out, "|\n");
    for (size_t k = 0; k < ncols; k++)
      rs_buf_puts(out, numeric[k] ? "| ---: " : "| --- ");
    rs_buf_puts(out, "|\n");
    for (size_t i = 0; i < nrows; i++) {
      for (size_t k = 0; k < ncols; k++)
        md_cell(out, cells[i * ncols + k]);
      rs_buf_puts(out, "|\n");
    }
    return;
  }
  size_t width[64];
  if (ncols > sizeof(width) / sizeof(width[0])) {
    out->failed = true;
    out->why = RS_INTERNAL; /* a writer asked for more columns than any report has */
    return;
  }
  for (size_t k = 0; k < ncols; k++) {
    width[k] = strlen(heads[k]);
    for (size_t i = 0; i < nrows; i++) {
      size_t n = strlen(cells[i * ncols + k]);
      if (n > width[k])
        width[k] = n;
    }
  }
  text_row(out, ncols, heads, numeric, width, true);
  for (size_t i = 0; i < nrows; i++)
    text_row(out, ncols, cells + i * ncols, numeric, width, false);
}

static size_t hang(const char *line, size_t len, size_t width, size_t label) {
  size_t lead = 0, at = 0;
  while (lead < len && line[lead] == ' ')
    lead++;
  if (lead == 0)
    return label;
  for (size_t i = lead; i + 1 < len && i < width / 2; i++)
    if (line[i] == ' ' && line[i + 1] == ' ') {
      while (i < len && line[i] == ' ')
        i++;
      at = i;
    }
  return at ? at : lead + 2;
}

void rs_text_wrap(rs_buf *out, const rs_buf *text, size_t width, size_t label) {
  const char *p = text->data, *end = text->data + text->len;
  if (text->failed)
    out->failed = true;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
    size_t indent = hang(p, len, width, label), col = 0, start = 0;
    while (len - start + col > width) {
      size_t cut = start + width - col;
      while (cut > start && p[cut] != ' ')
        cut--;
      if (cut == start) /* no space in reach: break after the long word */
        for (cut = start + width - col; cut < len && p[cut] != ' '; cut++)
          ;
      if (cut >= len)
        break;
      rs_buf_printf(out, "%.*s\n%*s", (int)(cut - start), p + start, (int)indent, "");
      col = indent;
      start = cut + 1;
    }
    rs_buf_printf(out, "%.*s%s", (int)(len - start), p + start, nl ? "\n" : "");
    p += len + (nl ? 1 : 0);
  }
}
