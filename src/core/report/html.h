/* What the HTML writers share (report_html*.c): the page frame, escaping,
 * numbers, and the charts of one fit (also drawn by check). */
#ifndef RS_HTML_H
#define RS_HTML_H

#include <stdbool.h>

#include "rightsize/buf.h"
#include "rightsize/fit.h"

/* <!doctype html> ... <body><main> with the inline style sheet; title is
 * escaped. */
void rs_html_begin(rs_buf *out, const char *title);
/* The footer (tool version and catalog, never a time) and </html>. */
void rs_html_end(rs_buf *out, const rs_catalog *cat);
/* s escaped for text and attribute values. */
void rs_html_text(rs_buf *out, const char *s);
/* v with decimals, or "-" when not finite. */
void rs_html_num(rs_buf *out, double v, int decimals);

/* The charts of one fit: over time, latency by load, cost against latency.
 * id prefixes the element ids (unique per page). */
void rs_html_fit_charts(rs_buf *out, const rs_fit_result *r, const char *id);

#endif
