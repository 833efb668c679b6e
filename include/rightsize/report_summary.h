/* The writers of `rightsize profile`: the summary as a table or as JSON.
 * Writers format an already computed model; none computes anything.
 * Output is deterministic: fixed float formatting, fixed order. */
#ifndef RIGHTSIZE_REPORT_SUMMARY_H
#define RIGHTSIZE_REPORT_SUMMARY_H

#include "rightsize/buf.h"
#include "rightsize/error.h"
#include "rightsize/summary.h"

#define RS_SUMMARY_JSON_SCHEMA "rightsize.profile-summary/1"

/* The human table of `rightsize profile`. */
rs_status rs_report_summary_table(rs_buf *out, const rs_summary *sum);

/* The JSON document of `rightsize profile --format json` (docs/json.md). */
rs_status rs_report_summary_json(rs_buf *out, const rs_summary *sum);

#endif
