/* The writers of `rightsize check` (docs/ci.md). */
#ifndef RIGHTSIZE_REPORT_CHECK_H
#define RIGHTSIZE_REPORT_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "rightsize/buf.h"
#include "rightsize/error.h"
#include "rightsize/policy.h"

#define RS_CHECK_JSON_SCHEMA "rightsize.check/1"

typedef enum {
  RS_CHECK_TEXT,
  RS_CHECK_JSON,
  RS_CHECK_MARKDOWN,
  RS_CHECK_GITHUB,
  RS_CHECK_JUNIT,
  RS_CHECK_HTML /* rs_report_check_html (report_html.h) */
} rs_check_format;

/* `rightsize check` (docs/ci.md) from the report rs_pipeline_check made:
 * text, JSON, Markdown (a pull-request comment), GitHub annotations (one
 * ::error per failed policy, one ::notice per profile that passes) or JUnit
 * XML. Formats only: the verdict and the counts are the report's. The
 * text wraps lines wider than RS_REPORT_FIT_WIDTH (report_fit.h) with a
 * hanging indent unless wide. */
rs_status rs_report_check(rs_buf *out, const rs_check_report *rep, rs_check_format format,
                          bool wide);

#endif
