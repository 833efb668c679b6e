/* Report writers. Each formats an already computed model into a buffer;
 * none computes anything, so table and JSON always agree. Output is
 * deterministic: fixed float formatting, fixed order, no timestamps. */
#ifndef RIGHTSIZE_REPORT_H
#define RIGHTSIZE_REPORT_H

#include "rightsize/audit.h"
#include "rightsize/buf.h"
#include "rightsize/error.h"
#include "rightsize/fit.h"
#include "rightsize/jsonw.h"
#include "rightsize/policy.h"
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

#define RS_CHECK_JSON_SCHEMA "rightsize.check/1"

typedef enum {
  RS_CHECK_TEXT,
  RS_CHECK_JSON,
  RS_CHECK_MARKDOWN,
  RS_CHECK_GITHUB,
  RS_CHECK_JUNIT
} rs_check_format;

/* `rightsize check` over n evaluated profiles (docs/ci.md): text, JSON,
 * Markdown (a pull-request comment), GitHub annotations (one ::error per
 * failed policy, one ::notice per profile that passes) or JUnit XML. */
rs_status rs_report_check(rs_buf *out, const rs_check_result *results, size_t n,
                          rs_check_format format);

#define RS_AUDIT_JSON_SCHEMA "rightsize.audit/1"

typedef enum { RS_AUDIT_TABLE, RS_AUDIT_JSON, RS_AUDIT_MARKDOWN, RS_AUDIT_CSV } rs_audit_format;

/* `rightsize audit`: the fleet ranked by savings with totals, the
 * consolidation plan when there is one, the profiles that failed. */
rs_status rs_report_audit(rs_buf *out, const rs_audit *a, const rs_catalog *cat,
                          rs_price_basis basis, const rs_overlay *overlay, rs_audit_format format);

/* The "catalog" and "pricing" members every JSON document that prices
 * shapes starts with (docs/json.md). */
void rs_report_json_pricing(rs_jsonw *w, const rs_catalog *cat, rs_price_basis basis,
                            const rs_overlay *overlay);

#endif
