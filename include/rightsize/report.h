/* Report writers. Each formats an already computed model into a buffer;
 * none computes anything, so table and JSON always agree. Output is
 * deterministic: fixed float formatting, fixed order, no timestamps. */
#ifndef RIGHTSIZE_REPORT_H
#define RIGHTSIZE_REPORT_H

#include "rightsize/buf.h"
#include "rightsize/error.h"
#include "rightsize/summary.h"

#define RS_SUMMARY_JSON_SCHEMA "rightsize.profile-summary/1"

/* The human table of `rightsize profile`. */
rs_status rs_report_summary_table(rs_buf *out, const rs_summary *sum);

/* The JSON document of `rightsize profile --format json` (docs/json.md). */
rs_status rs_report_summary_json(rs_buf *out, const rs_summary *sum);

#endif
