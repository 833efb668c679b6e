/* Report writers. Each formats an already computed model into a buffer;
 * none computes anything, so table and JSON always agree. Output is
 * deterministic: fixed float formatting, fixed order, no timestamps. */
#ifndef RIGHTSIZE_REPORT_H
#define RIGHTSIZE_REPORT_H

#include "rightsize/buf.h"
#include "rightsize/error.h"
#include "rightsize/fit.h"
#include "rightsize/jsonw.h"
#include "rightsize/summary.h"

#define RS_SUMMARY_JSON_SCHEMA "rightsize.profile-summary/1"

/* The human table of `rightsize profile`. */
rs_status rs_report_summary_table(rs_buf *out, const rs_summary *sum);

/* The JSON document of `rightsize profile --format json` (docs/json.md). */
rs_status rs_report_summary_json(rs_buf *out, const rs_summary *sum);

#define RS_FIT_JSON_SCHEMA "rightsize.recommendation/1"

typedef struct rs_report_fit_options {
  size_t top;   /* ranked rows shown; 0: all */
  bool explain; /* margins of the winner, every rejected shape with its reason */
} rs_report_fit_options;

/* `rightsize recommend` as a table, Markdown (a pull-request comment), CSV
 * (ranked rows and the current deployment), or JSON (docs/json.md). */
rs_status rs_report_fit_table(rs_buf *out, const rs_fit_result *r, const rs_report_fit_options *o);
rs_status rs_report_fit_markdown(rs_buf *out, const rs_fit_result *r,
                                 const rs_report_fit_options *o);
rs_status rs_report_fit_csv(rs_buf *out, const rs_fit_result *r, const rs_report_fit_options *o);
rs_status rs_report_fit_json(rs_buf *out, const rs_fit_result *r, const rs_report_fit_options *o);

/* The "catalog" and "pricing" members every JSON document that prices
 * shapes starts with (docs/json.md). */
void rs_report_json_pricing(rs_jsonw *w, const rs_catalog *cat, rs_price_basis basis,
                            const rs_overlay *overlay);

#endif
