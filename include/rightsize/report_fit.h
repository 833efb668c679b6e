/* The writers of `rightsize recommend`: table, Markdown, CSV and JSON of one
 * fit result. Writers format; every number they print is in the result. */
#ifndef RIGHTSIZE_REPORT_FIT_H
#define RIGHTSIZE_REPORT_FIT_H

#include <stdbool.h>
#include <stddef.h>

#include "rightsize/buf.h"
#include "rightsize/error.h"
#include "rightsize/fit.h"

#define RS_FIT_JSON_SCHEMA "rightsize.recommendation/1"

typedef struct rs_report_fit_options {
  size_t top;   /* ranked rows shown; 0: all */
  bool explain; /* margins of the winner, every rejected shape with its reason */
  bool wide;    /* table: every column, long lines unwrapped (default: RS_REPORT_FIT_WIDTH) */
} rs_report_fit_options;

/* The width the default table's lines keep to (docs/cli.md). */
#define RS_REPORT_FIT_WIDTH 100

/* `rightsize recommend` as a table, Markdown (a pull-request comment), CSV
 * (ranked rows and the current deployment), or JSON (docs/json.md). */
rs_status rs_report_fit_table(rs_buf *out, const rs_fit_result *r, const rs_report_fit_options *o);
rs_status rs_report_fit_markdown(rs_buf *out, const rs_fit_result *r,
                                 const rs_report_fit_options *o);
rs_status rs_report_fit_csv(rs_buf *out, const rs_fit_result *r, const rs_report_fit_options *o);
rs_status rs_report_fit_json(rs_buf *out, const rs_fit_result *r, const rs_report_fit_options *o);

#endif
