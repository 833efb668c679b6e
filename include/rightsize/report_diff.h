/* The writers of `rightsize diff`: text, Markdown (a pull-request comment)
 * and JSON (rightsize.diff/1, docs/json.md). Writers format; every number
 * they print is in the rs_diff. */
#ifndef RIGHTSIZE_REPORT_DIFF_H
#define RIGHTSIZE_REPORT_DIFF_H

#include <stdbool.h>

#include "rightsize/buf.h"
#include "rightsize/diff.h"
#include "rightsize/error.h"

typedef enum { RS_DIFF_TEXT, RS_DIFF_MARKDOWN, RS_DIFF_JSON } rs_diff_format;

/* d in format; fail_above is the --fail-above gate in percent (NaN: none),
 * said in the summary line. The text table has six columns within 100
 * (shape, $/month change, cost-per-million change, p99, new verdict) unless
 * wide, which prints all ten, as Markdown always does. */
rs_status rs_report_diff(rs_buf *out, const rs_diff *d, rs_diff_format format, double fail_above,
                         bool wide);

#endif
