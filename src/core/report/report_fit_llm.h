/* The LLM serving lines of `recommend` (docs/model.md "LLM serving"):
 * printed only for an LLM fit (demand.llm.on), so other reports keep their
 * bytes. Core-private; each writer only formats what the fit computed. */
#ifndef RS_REPORT_FIT_LLM_H
#define RS_REPORT_FIT_LLM_H

#include "jsonw.h"
#include "rightsize/buf.h"
#include "rightsize/fit.h"

/* The "llm" header line: model facts, tokens, efficiencies, SLOs. */
void rs_report_llm_header(rs_buf *out, const rs_fit_result *r, const char *pre, const char *post,
                          const char *eol);
/* The "tokens" line for candidate c: TTFT, TPOT and $ per million tokens. */
void rs_report_llm_line(rs_buf *out, const rs_fit_result *r, const rs_candidate *c, const char *pre,
                        const char *post, const char *eol);
/* --explain lines for the winner c: running batch, KV, step shares, what binds. */
void rs_report_llm_explain(rs_buf *out, const rs_fit_result *r, const rs_candidate *c,
                           const char *item);
/* JSON: the demand's and a candidate's "llm" objects. */
void rs_report_llm_json_demand(rs_jsonw *w, const rs_demand *d);
void rs_report_llm_json_candidate(rs_jsonw *w, const rs_candidate *c);

#endif
