/* The HTML writers of recommend, check and audit (`--format html`): one
 * self-contained page each (inline CSS and SVG charts, no script, no
 * network), deterministic bytes, readable with scripts off and printable.
 * Writers format; every number they print or chart is in the result. */
#ifndef RIGHTSIZE_REPORT_HTML_H
#define RIGHTSIZE_REPORT_HTML_H

#include "rightsize/audit.h"
#include "rightsize/buf.h"
#include "rightsize/error.h"
#include "rightsize/fit.h"
#include "rightsize/policy.h"

/* `rightsize recommend -f html`: the answer at a glance (what to move to,
 * what it saves, the binding constraint and its margin), then utilization,
 * memory and request rate over time against the target's capacity, the
 * ceiling and the headroom; latency against load with the back-test's
 * curve; the candidates on cost against projected latency with the SLO and
 * the Pareto front; the ranked table and the warnings. */
rs_status rs_report_fit_html(rs_buf *out, const rs_fit_result *r);

/* `rightsize check -f html`: the verdict, every profile's policies, and
 * each profile's cost against its best fitting shape. */
rs_status rs_report_check_html(rs_buf *out, const rs_check_report *rep);

/* `rightsize audit -f html`: totals, savings by endpoint, the consolidation
 * plan when one was asked for, and the ranked table. */
rs_status rs_report_audit_html(rs_buf *out, const rs_audit *a);

#endif
