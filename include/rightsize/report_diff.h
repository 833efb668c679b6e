/* The writers of `rightsize diff`: text, Markdown (a pull-request comment)
 * and JSON (rightsize.diff/1, docs/json.md). Writers format; every number
 * they print is in the rs_diff. */
#ifndef RIGHTSIZE_REPORT_DIFF_H
#define RIGHTSIZE_REPORT_DIFF_H

#include "rightsize/buf.h"
#include "rightsize/diff.h"
#include "rightsize/error.h"

typedef enum { RS_DIFF_TEXT, RS_DIFF_MARKDOWN, RS_DIFF_JSON } rs_diff_format;

/* d in format; fail_above is the --fail-above gate in percent (NaN: none),
 * said in the summary line. */
rs_status rs_report_diff(rs_buf *out, const rs_diff *d, rs_diff_format format, double fail_above);

#endif
