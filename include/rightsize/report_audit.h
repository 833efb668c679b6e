/* The writers of `rightsize audit`. */
#ifndef RIGHTSIZE_REPORT_AUDIT_H
#define RIGHTSIZE_REPORT_AUDIT_H

#include <stdbool.h>

#include "rightsize/audit.h"
#include "rightsize/buf.h"
#include "rightsize/error.h"

#define RS_AUDIT_JSON_SCHEMA "rightsize.audit/1"

/* RS_AUDIT_HTML is written by rs_report_audit_html (report_html.h). */
typedef enum {
  RS_AUDIT_TABLE,
  RS_AUDIT_JSON,
  RS_AUDIT_MARKDOWN,
  RS_AUDIT_CSV,
  RS_AUDIT_HTML
} rs_audit_format;

/* `rightsize audit`: the fleet ranked by savings with totals, the
 * consolidation plan when there is one, the profiles that failed. Formats
 * only: rows, totals and savings are the audit's (rs_audit_run,
 * rs_audit_consolidate). The default table fits RS_REPORT_FIT_WIDTH
 * (report_fit.h): confidence and warnings go below it, long lines wrap;
 * wide shows every column and wraps nothing. */
rs_status rs_report_audit(rs_buf *out, const rs_audit *a, rs_audit_format format, bool wide);

#endif
