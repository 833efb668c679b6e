/* The HTML pages of `rightsize check` and `rightsize audit` (report_html.h):
 * the verdict or the totals first, then a chart (cost against the best
 * fitting shape per profile; savings by endpoint and the consolidation
 * plan), then the tables. The frame and escaping are report_html.c's. */
#include <math.h>
#include <stdio.h>

#include "html.h"
#include "rightsize/num.h"
#include "rightsize/report_html.h"
#include "svg.h"

#define W 960
#define MAX_BARS 40 /* rows charted; the table lists every one */
#define ROW_PX 22
#define MAX_FIT_CHARTS 8 /* check: profiles whose fit charts are drawn */

static double bar_height(size_t rows) { return 62.0 + ROW_PX * (double)rows; }

static void money_cell(rs_buf *out, double v) {
  rs_buf_puts(out, "<td class=\"n\">");
  rs_html_num(out, v, 2);
  rs_buf_puts(out, "</td>");
}

static void card(rs_buf *out, const char *head, double usd, const char *note) {
  rs_buf_puts(out, "<div class=\"card\"><span>");
  rs_html_text(out, head);
  rs_buf_puts(out, "</span><b>");
  rs_html_num(out, usd, 2);
  rs_buf_puts(out, " $/month</b><span>");
  rs_html_text(out, note);
  rs_buf_puts(out, "</span></div>\n");
}

/* ---- audit ---- */

static const char *row_name(const rs_audit_row *r) { return r->endpoint ? r->endpoint : r->path; }

/* Savings per endpoint as horizontal bars (an upsize goes left of zero). */
static void savings_chart(rs_buf *out, const rs_audit *a) {
  size_t n = 0;
  double lo = 0, hi = 0;
  for (size_t i = 0; i < a->nrows && n < MAX_BARS; i++)
    if (a->rows[i].ok && isfinite(a->rows[i].savings_month)) {
      lo = fmin(lo, a->rows[i].savings_month);
      hi = fmax(hi, a->rows[i].savings_month);
      n++;
    }
  if (n == 0)
    return;
  rs_svg_axis x = {lo, hi * 1.15 + (hi == lo), false, "savings ($/month)", false};
  rs_svg_axis y = {0, 1, false, "", true};
  rs_svg_plot p;
  rs_buf_puts(out, "<h2>Savings by endpoint</h2>\n");
  rs_svg_begin(&p, out, "audit-savings", W, (int)bar_height(n), "Monthly savings by endpoint",
               "One bar per audited endpoint, ranked by what moving it to the recommended shape "
               "saves each month; bars left of zero cost more (an upsize).",
               &x, &y);
  p.left = 230;
  p.width = W - 230 - 90;
  rs_svg_axes(&p);
  size_t k = 0;
  for (size_t i = 0; i < a->nrows && k < n; i++) {
    const rs_audit_row *r = &a->rows[i];
    if (!r->ok || !isfinite(r->savings_month))
      continue;
    char v[96];
    snprintf(v, sizeof(v), "%.2f (%s)", r->savings_month,
             r->after ? r->after->name : rs_verdict_name(r->verdict));
    rs_svg_hbar(&p, k++, n, 0, r->savings_month,
                r->savings_month < 0 ? RS_SVG_VERMILION : RS_SVG_BLUE, row_name(r), v);
  }
  rs_svg_end(&p, "Blue: a saving; vermilion: a cost increase. The bar's label names the shape "
                 "it moves to, or the verdict when it stays.");
}

static void packing_rows(rs_buf *out, const rs_audit *a, const rs_packing *pk) {
  for (size_t i = 0; i < pk->ninstances; i++) {
    const rs_packed_instance *in = &pk->instances[i];
    rs_buf_puts(out, "<tr><td>");
    rs_html_text(out, pk->shape->provider);
    rs_buf_puts(out, " ");
    rs_html_text(out, pk->shape->name);
    rs_buf_printf(out, " #%zu</td><td>", i + 1);
    for (size_t e = 0; e < in->nendpoints; e++) {
      rs_buf_puts(out, e ? ", " : "");
      rs_html_text(out, row_name(&a->rows[in->endpoints[e].row]));
      rs_buf_printf(out, " (device %u, %.1f ms)", in->endpoints[e].device,
                    in->endpoints[e].latency_ms);
    }
    rs_buf_printf(out, "</td><td class=\"n\">%u</td>", in->devices_used);
    money_cell(out, pk->instance_month);
    rs_buf_puts(out, "</tr>\n");
  }
}

/* The consolidation plan: what each shared shape saves, then its instances. */
static void consolidation(rs_buf *out, const rs_audit *a) {
  const rs_consolidation *c = a->consolidation;
  if (c == NULL)
    return;
  rs_buf_printf(out,
                "<h2>Consolidation plan</h2>\n<p>%zu endpoints share %zu shape%s: %.2f $/month "
                "instead of %.2f $/month sized one by one, saving %.2f $/month more; the fleet "
                "then costs %.2f $/month.</p>\n",
                c->packed, c->npackings, c->npackings == 1 ? "" : "s", c->month, c->baseline_month,
                c->savings_month, c->fleet_month);
  if (c->npackings > 0)
    rs_buf_printf(out,
                  "<p>%zu shared instance%s; no packing of the same endpoints on the same shapes "
                  "needs fewer than %zu (+%.1f%%).</p>\n",
                  c->instances, c->instances == 1 ? "" : "s", c->lower_bound,
                  100.0 * c->above_bound);
  if (c->npackings > 0) {
    double hi = 0;
    for (size_t i = 0; i < c->npackings; i++)
      hi = fmax(hi, c->packings[i].baseline_month);
    rs_svg_axis x = {0, hi * 1.2, false, "cost ($/month)", false};
    rs_svg_axis y = {0, 1, false, "", true};
    rs_svg_plot p;
    rs_svg_begin(&p, out, "audit-consolidation", W, (int)bar_height(2 * c->npackings),
                 "Consolidation: shared against one by one",
                 "For each shared shape, the cost of its endpoints sized one by one and the cost "
                 "of the shared instances.",
                 &x, &y);
    p.left = 230;
    p.width = W - 230 - 90;
    rs_svg_axes(&p);
    for (size_t i = 0; i < c->npackings; i++) {
      const rs_packing *pk = &c->packings[i];
      char label[160], v[64];
      snprintf(label, sizeof(label), "%s one by one", pk->shape->name);
      snprintf(v, sizeof(v), "%.2f", pk->baseline_month);
      rs_svg_hbar(&p, 2 * i, 2 * c->npackings, 0, pk->baseline_month, RS_SVG_ORANGE, label, v);
      snprintf(label, sizeof(label), "%s shared x%zu", pk->shape->name, pk->ninstances);
      snprintf(v, sizeof(v), "%.2f", pk->month);
      rs_svg_hbar(&p, 2 * i + 1, 2 * c->npackings, 0, pk->month, RS_SVG_GREEN, label, v);
    }
    rs_svg_end(&p, "Orange: the endpoints on their own recommended shapes; green: the same "
                   "endpoints packed onto shared instances.");
  }
  rs_buf_puts(out, "<table>\n<tr><th>instance</th><th>endpoints (device, projected latency)</th>"
                   "<th class=\"n\">devices used</th><th class=\"n\">$/month</th></tr>\n");
  for (size_t i = 0; i < c->npackings; i++)
    packing_rows(out, a, &c->packings[i]);
  rs_buf_puts(out, "</table>\n");
}

static void audit_table(rs_buf *out, const rs_audit *a) {
  rs_buf_puts(out, "<h2>Endpoints</h2>\n<table>\n<tr><th>endpoint</th><th>current</th>"
                   "<th class=\"n\">now $/month</th><th>recommended</th><th class=\"n\">after "
                   "$/month</th><th class=\"n\">saves $/month</th><th class=\"n\">saves</th>"
                   "<th>verdict</th><th>confidence</th></tr>\n");
  for (size_t i = 0; i < a->nrows; i++) {
    const rs_audit_row *r = &a->rows[i];
    rs_buf_puts(out, "<tr><td>");
    rs_html_text(out, row_name(r));
    if (!r->ok) {
      rs_buf_puts(out, "</td><td colspan=\"8\">could not be audited: ");
      rs_html_text(out, r->err->msg);
      rs_buf_puts(out, "</td></tr>\n");
      continue;
    }
    rs_buf_puts(out, "</td><td>");
    rs_html_text(out, r->current->name);
    rs_buf_printf(out, " x%u</td>", r->current_fit_replicas);
    money_cell(out, r->now_month);
    rs_buf_puts(out, "<td>");
    if (r->after)
      rs_buf_printf(out, "%s x%u", r->after->name, r->after_replicas);
    else
      rs_buf_puts(out, "-");
    rs_buf_puts(out, "</td>");
    money_cell(out, r->after_month);
    money_cell(out, r->savings_month);
    rs_buf_puts(out, "<td class=\"n\">");
    rs_html_num(out, r->savings_pct, 1);
    rs_buf_printf(out, "%%</td><td>%s</td><td>%s</td></tr>\n", rs_verdict_name(r->verdict),
                  rs_confidence_name(r->confidence));
  }
  rs_buf_puts(out, "</table>\n");
}

rs_status rs_report_audit_html(rs_buf *out, const rs_audit *a) {
  char note[160];
  rs_html_begin(out, "rightsize audit");
  rs_buf_printf(out, "<h1>Fleet audit: %zu endpoint%s, saves %.2f $/month</h1>\n", a->nrows,
                a->nrows == 1 ? "" : "s", a->savings_month);
  rs_buf_puts(out, "<div class=\"glance\">\n");
  card(out, "the fleet now", a->now_month, "every audited endpoint as it runs");
  card(out, "after the moves", a->after_month, "each endpoint on its recommended shape");
  snprintf(note, sizeof(note), "%.1f%% of today's cost", a->savings_pct);
  card(out, "saves", a->savings_month, note);
  if (a->consolidation) {
    snprintf(note, sizeof(note), "%zu endpoints on shared instances", a->consolidation->packed);
    card(out, "with consolidation", a->consolidation->fleet_month, note);
  }
  rs_buf_puts(out, "</div>\n");
  if (a->nfailed)
    rs_buf_printf(out,
                  "<p class=\"verdict fail\">%zu profile%s could not be audited (listed "
                  "below).</p>\n",
                  a->nfailed, a->nfailed == 1 ? "" : "s");
  savings_chart(out, a);
  consolidation(out, a);
  audit_table(out, a);
  rs_html_end(out, a->catalog);
  return rs_buf_status(out);
}

/* ---- check ---- */

/* Each profile's evaluated cost beside its best fitting shape's. */
static void check_chart(rs_buf *out, const rs_check_report *rep) {
  double hi = 0;
  for (size_t i = 0; i < rep->nresults; i++) {
    const rs_check_result *c = &rep->results[i];
    hi = fmax(hi, isfinite(c->evaluated->usd_per_month) ? c->evaluated->usd_per_month : 0);
    if (c->fit->nfitting)
      hi = fmax(hi, c->fit->fitting[0].usd_per_month);
  }
  if (rep->nresults == 0 || rep->nresults > MAX_BARS / 2 || !(hi > 0))
    return;
  rs_svg_axis x = {0, hi * 1.2, false, "cost ($/month)", false};
  rs_svg_axis y = {0, 1, false, "", true};
  rs_svg_plot p;
  size_t rows = 2 * rep->nresults;
  rs_svg_begin(&p, out, "check-cost", W, (int)bar_height(rows),
               "Cost checked against the cheapest fitting shape",
               "For each profile, the monthly cost of the deployment checked and of the cheapest "
               "shape that fits; the gap is the overprovisioning.",
               &x, &y);
  p.left = 260;
  p.width = W - 260 - 90;
  rs_svg_axes(&p);
  for (size_t i = 0; i < rep->nresults; i++) {
    const rs_check_result *c = &rep->results[i];
    char label[200], v[96];
    snprintf(label, sizeof(label), "%s: %s x%u", c->fit->summary->profile->endpoint,
             c->evaluated->inst->name, c->evaluated->replicas);
    if (isfinite(c->evaluated->usd_per_month))
      snprintf(v, sizeof(v), "%.2f (%s)", c->evaluated->usd_per_month, c->pass ? "pass" : "fail");
    else
      snprintf(v, sizeof(v), "no price (%s)", c->pass ? "pass" : "fail");
    rs_svg_hbar(&p, 2 * i, rows, 0, c->evaluated->usd_per_month,
                c->pass ? RS_SVG_BLUE : RS_SVG_VERMILION, label, v);
    if (c->fit->nfitting) {
      const rs_candidate *b = &c->fit->fitting[0];
      snprintf(label, sizeof(label), "cheapest fit: %s x%u", b->inst->name, b->replicas);
      snprintf(v, sizeof(v), "%.2f", b->usd_per_month);
      rs_svg_hbar(&p, 2 * i + 1, rows, 0, b->usd_per_month, RS_SVG_GREEN, label, v);
    }
  }
  rs_svg_end(&p, "Blue: a profile that passes every policy; vermilion: one that fails; green: "
                 "the cheapest shape that fits the same profile.");
}

static void check_result(rs_buf *out, const rs_check_result *c) {
  rs_buf_puts(out, "<h2>");
  rs_html_text(out, c->fit->summary->profile->endpoint);
  rs_buf_printf(out, ": %s</h2>\n<p>%s ", c->pass ? "pass" : "fail",
                c->proposed ? "proposed" : "current");
  rs_html_text(out, c->evaluated->inst->provider);
  rs_buf_puts(out, " ");
  rs_html_text(out, c->evaluated->inst->name);
  rs_buf_printf(out, " x%u: ", c->evaluated->replicas);
  rs_html_num(out, c->evaluated->usd_per_month, 2);
  rs_buf_puts(out, " $/month, bound by ");
  rs_buf_puts(out, rs_constraint_name(c->evaluated->binding));
  rs_buf_puts(out, "; overprovisioned ");
  rs_html_num(out, c->overprovision_pct, 1);
  rs_buf_puts(out, "% over the cheapest fitting shape.</p>\n<table>\n<tr><th>policy</th>"
                   "<th>result</th><th>measured against the limit</th></tr>\n");
  for (size_t i = 0; i < c->nchecks; i++) {
    const rs_policy_check *k = &c->checks[i];
    rs_buf_printf(out, "<tr><td>%s</td><td>%s</td><td>", rs_policy_key(k->kind),
                  k->pass ? "pass" : "<b>fail</b>");
    rs_html_text(out, k->text);
    rs_buf_puts(out, "</td></tr>\n");
  }
  rs_buf_puts(out, "</table>\n");
}

rs_status rs_report_check_html(rs_buf *out, const rs_check_report *rep) {
  rs_html_begin(out, "rightsize check");
  rs_buf_printf(out, "<h1>Policy check: %s</h1>\n", rep->pass ? "pass" : "fail");
  rs_buf_printf(out,
                "<p class=\"verdict%s\">%zu of %zu profile%s failed; %zu of %zu polic%s "
                "failed.</p>\n",
                rep->pass ? "" : " fail", rep->failed, rep->nresults, rep->nresults == 1 ? "" : "s",
                rep->failed_checks, rep->nchecks, rep->nchecks == 1 ? "y" : "ies");
  check_chart(out, rep);
  for (size_t i = 0; i < rep->nresults; i++) {
    check_result(out, &rep->results[i]);
    if (i < MAX_FIT_CHARTS) { /* a long list keeps its tables, not every chart */
      char id[32];
      snprintf(id, sizeof(id), "check%zu", i + 1);
      rs_html_fit_charts(out, rep->results[i].fit, id);
    }
  }
  rs_html_end(out, rep->catalog);
  return rs_buf_status(out);
}
