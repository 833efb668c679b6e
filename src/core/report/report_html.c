/* The recommendation as one self-contained HTML page (docs/cli.md
 * "HTML"): the answer first (what to move to, what it saves, why it is
 * safe), then the charts (report_html_charts.c), the ranked shapes and the
 * warnings. No script, no external asset: it prints, it reads with scripts
 * off, and the same result gives the same bytes. */
#include <math.h>
#include <stdio.h>

#include "html.h"
#include "svg.h"
#include "rightsize/num.h"
#include "rightsize/report_html.h"
#include "rightsize/version.h"

static const char style[] =
    "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#111;"
    "background:#fff;margin:0}\n"
    "main{max-width:1060px;margin:0 auto;padding:16px 24px}\n"
    "h1{font-size:1.5em;margin:.4em 0}h2{font-size:1.15em;margin:1.4em 0 .4em;"
    "border-bottom:1px solid #ccc}\n"
    ".glance{display:flex;flex-wrap:wrap;gap:12px;margin:12px 0}\n"
    ".card{border:1px solid #bbb;border-radius:6px;padding:8px 12px;min-width:200px;flex:1}\n"
    ".card b{display:block;font-size:1.3em}.card span{color:#444;font-size:.9em}\n"
    ".verdict{border-left:6px solid #0072B2;padding:6px 12px;background:#f3f8fc}\n"
    ".fail{border-left-color:#D55E00;background:#fdf3ee}\n"
    "table{border-collapse:collapse;font-size:.9em;margin:8px 0}\n"
    "th,td{border-bottom:1px solid #ddd;padding:3px 8px;text-align:left}\n"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    "tr.now{font-style:italic}tr.target{font-weight:bold}\n"
    "figure.chart{margin:12px 0}figcaption{font-size:.9em;color:#333;max-width:900px}\n"
    "svg{max-width:100%;height:auto;font-size:12px}\n"
    ".frame{fill:none;stroke:#555}.grid{stroke:#e4e4e4}.tick{fill:#333}"
    ".axis-label{fill:#111;font-weight:600}\n"
    ".rule-label{font-weight:600}.legend text{fill:#111}\n"
    "footer{color:#555;font-size:.85em;margin:2em 0 1em}\n"
    "@media print{main{max-width:none}.card{break-inside:avoid}figure{break-inside:avoid}}\n";

/* One escaping rule for page text and SVG: svg.c's. */
void rs_html_text(rs_buf *out, const char *s) { rs_svg_escape(out, s); }

void rs_html_num(rs_buf *out, double v, int decimals) {
  if (!isfinite(v))
    rs_buf_puts(out, "-");
  else
    rs_buf_printf(out, "%.*f", decimals, v == 0 ? 0.0 : v);
}

void rs_html_begin(rs_buf *out, const char *title) {
  rs_buf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                   "<meta name=\"generator\" content=\"rightsize\">\n<title>");
  rs_html_text(out, title);
  rs_buf_printf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", style);
}

void rs_html_end(rs_buf *out, const rs_catalog *cat) {
  rs_buf_printf(out, "<footer>rightsize %s", rs_version());
  if (cat) {
    rs_buf_puts(out, "; catalog ");
    rs_html_text(out, cat->version);
    rs_buf_puts(out, ", prices as of ");
    rs_html_text(out, cat->prices_as_of);
    rs_buf_puts(out, ", sha256 ");
    rs_html_text(out, cat->sha256);
  }
  rs_buf_puts(out, ". The model is in docs/model.md.</footer>\n</main>\n</body>\n</html>\n");
}

static void card(rs_buf *out, const char *head, const char *value, const char *note) {
  rs_buf_puts(out, "<div class=\"card\"><span>");
  rs_html_text(out, head);
  rs_buf_puts(out, "</span><b>");
  rs_html_text(out, value);
  rs_buf_puts(out, "</b><span>");
  rs_html_text(out, note);
  rs_buf_puts(out, "</span></div>\n");
}

static void shape_text(char *dst, size_t n, const rs_candidate *c) {
  snprintf(dst, n, "%s %s x%u", c->inst->provider, c->inst->name, c->replicas);
}

/* v with decimals and a suffix into dst; "-" when not finite (unpriced). */
static void fmt(char *dst, size_t n, double v, int decimals, const char *suffix) {
  if (isfinite(v))
    snprintf(dst, n, "%.*f%s", decimals, v == 0 ? 0.0 : v, suffix);
  else
    snprintf(dst, n, "-");
}

/* The three cards: now, the target (or keep), what it saves. */
static void glance_cards(rs_buf *out, const rs_fit_result *r) {
  const rs_candidate *t = r->verdict.target;
  char v[160], note[200], num[64];
  shape_text(v, sizeof(v), &r->current);
  fmt(num, sizeof(num), r->current.usd_per_month, 2, " $/month now");
  snprintf(note, sizeof(note), "%s",
           isfinite(r->current.usd_per_month) ? num : "no price in the catalog");
  rs_buf_puts(out, "<div class=\"glance\">\n");
  card(out, "running now", v, note);
  if (t) {
    shape_text(v, sizeof(v), t);
    fmt(num, sizeof(num), t->usd_per_month, 2, " $/month");
    snprintf(note, sizeof(note), "%s, %s", num,
             t->inst->accelerator ? t->inst->accelerator->name : "CPU only");
    card(out, "move to", v, note);
    fmt(v, sizeof(v), r->verdict.savings_month, 2, " $/month");
    fmt(num, sizeof(num), r->verdict.savings_pct, 1, "%");
    snprintf(note, sizeof(note), "%s of today's cost", num);
    card(out, "saves", v, note);
  } else {
    card(out, "recommendation", rs_action_name(r->verdict.action),
         rs_verdict_name(r->verdict.code));
  }
  rs_buf_puts(out, "</div>\n");
}

/* Why it is safe: the binding constraint and the margins of the shape the
 * verdict names (the current one when there is none). */
static void glance_safety(rs_buf *out, const rs_fit_result *r) {
  const rs_demand *d = &r->demand;
  const rs_candidate *c = r->verdict.target ? r->verdict.target : &r->current;
  rs_buf_puts(out, r->verdict.target ? "<p><b>Why it is safe:</b> " : "<p><b>As it runs:</b> ");
  rs_html_text(out, c->inst->name);
  rs_buf_printf(out, " x%u is bound by <b>%s</b>", c->replicas, rs_constraint_name(c->binding));
  if (c->binding_why) {
    rs_buf_puts(out, " (");
    rs_html_text(out, c->binding_why);
    rs_buf_puts(out, ")");
  }
  rs_buf_puts(out, ". ");
  if (isfinite(c->latency_q_ms))
    rs_buf_printf(out, "Projected p%.0f latency %.1f ms against the %g ms SLO (%.1f ms to spare); ",
                  d->slo_quantile * 100.0, c->latency_q_ms, d->slo_ms, d->slo_ms - c->latency_q_ms);
  if (isfinite(c->util))
    rs_buf_printf(out, "utilization %.0f%% at the design peak of %.2f req/s, ceiling %.0f%%; ",
                  c->util * 100.0, d->design_peak, r->opts.max_util * 100.0);
  rs_buf_printf(out,
                "memory %.2f GiB needed with %.0f%% headroom, %.2f GiB per server (%.0f%% "
                "free). Confidence <b>%s</b>",
                d->mem_need_head / RS_GIB, r->opts.headroom * 100.0, c->mem_capacity / RS_GIB,
                c->mem_free * 100.0, rs_confidence_name(c->confidence));
  for (size_t i = 0; i < c->nreasons; i++) {
    rs_buf_puts(out, i ? "; " : ": ");
    rs_html_text(out, c->reasons[i]);
  }
  rs_buf_puts(out, ".</p>\n");
}

static void glance(rs_buf *out, const rs_fit_result *r) {
  rs_buf_puts(out, "<h1>");
  rs_html_text(out, r->summary->profile->endpoint);
  rs_buf_puts(out, ": ");
  if (r->verdict.target)
    rs_buf_printf(out, "move to %s %s x%u", r->verdict.target->inst->provider,
                  r->verdict.target->inst->name, r->verdict.target->replicas);
  else
    rs_html_text(out, rs_verdict_name(r->verdict.code));
  rs_buf_puts(out, "</h1>\n");
  glance_cards(out, r);
  rs_buf_printf(out, "<p class=\"verdict%s\"><b>",
                r->verdict.action == RS_ACTION_NOFIT ? " fail" : "");
  rs_html_text(out, rs_verdict_name(r->verdict.code));
  rs_buf_puts(out, ":</b> ");
  rs_html_text(out, r->verdict.reason);
  rs_buf_puts(out, "</p>\n");
  glance_safety(out, r);
}

static void table_row(rs_buf *out, const rs_candidate *c, const char *rank, const char *cls) {
  rs_buf_printf(out, "<tr class=\"%s\"><td>%s</td><td>", cls, rank);
  rs_html_text(out, c->inst->provider);
  rs_buf_puts(out, "</td><td>");
  rs_html_text(out, c->inst->name);
  rs_buf_printf(out, "</td><td class=\"n\">%u</td><td class=\"n\">", c->replicas);
  rs_html_num(out, c->util * 100.0, 0);
  rs_buf_puts(out, "%</td><td class=\"n\">");
  rs_html_num(out, c->latency_q_ms, 1);
  rs_buf_puts(out, "</td><td class=\"n\">");
  rs_html_num(out, c->mem_free * 100.0, 0);
  rs_buf_puts(out, "%</td><td class=\"n\">");
  rs_html_num(out, c->usd_per_month, 2);
  rs_buf_puts(out, "</td><td class=\"n\">");
  rs_html_num(out, c->usd_per_million, 2);
  rs_buf_printf(out, "</td><td>%s</td><td>%s</td></tr>\n", rs_constraint_name(c->binding),
                rs_confidence_name(c->confidence));
}

static void ranked_table(rs_buf *out, const rs_fit_result *r) {
  size_t n = r->nfitting < 10 ? r->nfitting : 10;
  rs_buf_printf(out, "<h2>Ranked shapes (%zu of %zu that fit; %zu rejected)</h2>\n", n, r->nfitting,
                r->nrejected);
  rs_buf_printf(out,
                "<table>\n<tr><th>rank</th><th>cloud</th><th>shape</th><th class=\"n\">"
                "replicas</th><th class=\"n\">utilization</th><th class=\"n\">p%.0f ms</th>"
                "<th class=\"n\">memory free</th><th class=\"n\">$/month</th>"
                "<th class=\"n\">$ per 1M req</th><th>bound by</th><th>confidence</th></tr>\n",
                r->demand.slo_quantile * 100.0);
  for (size_t i = 0; i < n; i++) {
    char rank[24];
    snprintf(rank, sizeof(rank), "%zu", i + 1);
    table_row(out, &r->fitting[i], rank, &r->fitting[i] == r->verdict.target ? "target" : "fit");
  }
  table_row(out, &r->current, "now", "now");
  rs_buf_puts(out, "</table>\n");
}

static void warnings(rs_buf *out, const rs_fit_result *r) {
  if (r->nwarnings == 0)
    return;
  rs_buf_puts(out, "<h2>Warnings</h2>\n<ul>\n");
  for (size_t i = 0; i < r->nwarnings; i++) {
    rs_buf_printf(out, "<li><b>%s</b>: ", rs_warning_code_name(r->warnings[i].code));
    rs_html_text(out, r->warnings[i].text);
    rs_buf_puts(out, "</li>\n");
  }
  rs_buf_puts(out, "</ul>\n");
}

rs_status rs_report_fit_html(rs_buf *out, const rs_fit_result *r) {
  char title[256];
  snprintf(title, sizeof(title), "rightsize: %s", r->summary->profile->endpoint);
  rs_html_begin(out, title);
  glance(out, r);
  rs_html_fit_charts(out, r, "fit");
  ranked_table(out, r);
  warnings(out, r);
  rs_html_end(out, r->catalog);
  return rs_buf_status(out);
}
