/* `rightsize diff` as text, Markdown or JSON (report_diff.h). The text and
 * the Markdown share one table made by row_cells(). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "rightsize/report_diff.h"
#include "rightsize/version.h"
#include "table.h"

#define NCOLS 10
#define CELL 96

static const char *const heads[NCOLS] = {"ENDPOINT", "OLD",        "NEW",       "USD_MONTH",
                                         "CHANGE",   "USD_PER_1M", "CHANGE_1M", "P99_MS",
                                         "BOUND",    "VERDICT"};
static const bool numeric[NCOLS] = {false, false, false, true,  true,
                                    true,  true,  true,  false, false};

/* The default text table, within 100 columns: the shape once when only the
 * count changes, the changes rather than both sides' money, the new
 * verdict; --wide (and Markdown) print the ten columns above. */
#define NNARROW 6
static const char *const narrow_heads[NNARROW] = {"ENDPOINT",  "SHAPE",  "USD_MONTH_CHANGE",
                                                  "CHANGE_1M", "P99_MS", "VERDICT"};
static const bool narrow_numeric[NNARROW] = {false, false, true, true, true, false};

static void shape(char *dst, const rs_diff_side *s) {
  if (!s->present)
    snprintf(dst, CELL, "-");
  else if (s->provider)
    snprintf(dst, CELL, "%s %s x%u", s->provider, s->shape ? s->shape : "?", s->replicas);
  else
    snprintf(dst, CELL, "%s x%u", s->shape ? s->shape : "?", s->replicas);
}

/* v, or 0 when it prints as zero at dec decimals: never "-0.0". */
static double snap(double v, int dec) { return fabs(v) < 0.5 * pow(10.0, -dec) ? 0.0 : v; }

static void num(char *dst, size_t n, double v, int dec) {
  if (isfinite(v))
    snprintf(dst, n, "%.*f", dec, snap(v, dec));
  else
    snprintf(dst, n, "-");
}

/* "a -> b", or "a" when both are the same. */
static void pair(char *dst, double a, double b, int dec) {
  char x[40], y[40];
  num(x, sizeof(x), a, dec);
  num(y, sizeof(y), b, dec);
  if (strcmp(x, y) == 0)
    snprintf(dst, CELL, "%s", x);
  else
    snprintf(dst, CELL, "%s -> %s", x, y);
}

static void words(char *dst, const char *a, const char *b) {
  a = a ? a : "-";
  b = b ? b : "-";
  if (strcmp(a, b) == 0)
    snprintf(dst, CELL, "%s", a);
  else
    snprintf(dst, CELL, "%s -> %s", a, b);
}

static void change(char *dst, double delta, double pct, int dec) {
  char d[40];
  num(d, sizeof(d), delta, dec);
  if (!isfinite(delta))
    snprintf(dst, CELL, "-");
  else if (isfinite(pct))
    snprintf(dst, CELL, "%s%s (%+.1f%%)", snap(delta, dec) > 0 ? "+" : "", d, snap(pct, 1));
  else
    snprintf(dst, CELL, "%s%s", snap(delta, dec) > 0 ? "+" : "", d);
}

static void row_cells(char (*c)[CELL], const rs_diff_row *r) {
  const rs_diff_side *o = &r->old, *n = &r->new_;
  snprintf(c[0], CELL, "%s", r->endpoint);
  shape(c[1], o);
  shape(c[2], n);
  pair(c[3], o->present ? o->usd_month : NAN, n->present ? n->usd_month : NAN, 2);
  change(c[4], r->month_delta, r->month_pct, 2);
  pair(c[5], o->present ? o->usd_per_million : NAN, n->present ? n->usd_per_million : NAN, 2);
  change(c[6], r->per_million_delta, r->per_million_pct, 2);
  pair(c[7], o->present ? o->latency_ms : NAN, n->present ? n->latency_ms : NAN, 1);
  words(c[8], o->present ? o->binding : NULL, n->present ? n->binding : NULL);
  words(c[9], o->present ? o->verdict : NULL, n->present ? n->verdict : NULL);
}

/* "g6.xlarge x1 -> x2" when only the count changes, else both shapes. */
static void shapes(char *dst, const rs_diff_side *o, const rs_diff_side *n) {
  char a[CELL], b[CELL];
  if (o->present && n->present && o->shape && n->shape && strcmp(o->shape, n->shape) == 0 &&
      (o->provider == n->provider ||
       (o->provider && n->provider && strcmp(o->provider, n->provider) == 0))) {
    if (o->replicas == n->replicas)
      snprintf(dst, CELL, "%s x%u", n->shape, n->replicas);
    else
      snprintf(dst, CELL, "%s x%u -> x%u", n->shape, o->replicas, n->replicas);
    return;
  }
  shape(a, o);
  shape(b, n);
  snprintf(dst, CELL, "%.40s -> %.40s", a, b);
}

static void pct_cell(char *dst, double pct) {
  if (isfinite(pct))
    snprintf(dst, CELL, "%+.1f%%", snap(pct, 1));
  else
    snprintf(dst, CELL, "-");
}

static void narrow_cells(char (*c)[CELL], const rs_diff_row *r) {
  const rs_diff_side *o = &r->old, *n = &r->new_;
  snprintf(c[0], CELL, "%s", r->endpoint);
  shapes(c[1], o, n);
  change(c[2], r->month_delta, r->month_pct, 2);
  pct_cell(c[3], r->per_million_pct);
  pair(c[4], o->present ? o->latency_ms : NAN, n->present ? n->latency_ms : NAN, 1);
  snprintf(c[5], CELL, "%s", n->present && n->verdict ? n->verdict : "-");
}

static rs_status put_table(rs_buf *out, const rs_diff *d, rs_table_style style, bool wide) {
  size_t ncols = wide ? NCOLS : NNARROW;
  char(*cells)[CELL] = calloc(d->nrows * ncols + 1, CELL);
  const char **ptrs = calloc(d->nrows * ncols + 1, sizeof(*ptrs));
  if (cells == NULL || ptrs == NULL) {
    free(cells);
    free(ptrs);
    return RS_NOMEM;
  }
  for (size_t i = 0; i < d->nrows; i++) {
    if (wide)
      row_cells(cells + i * ncols, &d->rows[i]);
    else
      narrow_cells(cells + i * ncols, &d->rows[i]);
  }
  for (size_t i = 0; i < d->nrows * ncols; i++)
    ptrs[i] = cells[i];
  rs_table_write(out, style, ncols, wide ? heads : narrow_heads, wide ? numeric : narrow_numeric,
                 ptrs, d->nrows);
  free(cells);
  free(ptrs);
  return RS_OK;
}

/* The summary lines: what was compared, the total, the gate. */
static void put_summary(rs_buf *out, const rs_diff *d, double fail_above, bool md) {
  const char *b = md ? "**" : "", *eol = md ? "  \n" : "\n";
  char delta[CELL];
  change(delta, d->month_delta, d->month_pct, 2);
  rs_buf_printf(out, "%sold%s       %s (%s)%s", b, b, d->old->path, d->old->kind, eol);
  rs_buf_printf(out, "%snew%s       %s (%s)%s", b, b, d->new_->path, d->new_->kind, eol);
  rs_buf_printf(out, "%stotal%s     %.2f -> %.2f $/month: %s; %zu of %zu endpoint%s changed%s", b,
                b, d->old_month, d->new_month, delta, d->changed, d->nrows,
                d->nrows == 1 ? "" : "s", eol);
  if (isfinite(d->worst_pct))
    rs_buf_printf(out, "%slargest%s   %+.1f%% (%s)", b, b, snap(d->worst_pct, 1), d->worst_what);
  else
    rs_buf_printf(out, "%slargest%s   - (nothing to compare)", b, b);
  if (isfinite(fail_above))
    rs_buf_printf(out, "; --fail-above %g%%: %s", fail_above,
                  rs_diff_exceeds(d, fail_above) ? "FAIL" : "pass");
  rs_buf_puts(out, eol);
}

static void side_json(rs_jsonw *w, const char *key, const rs_diff_side *s) {
  if (!s->present) {
    rs_jsonw_null(w, key);
    return;
  }
  rs_jsonw_object(w, key);
  rs_jsonw_string(w, "provider", s->provider);
  rs_jsonw_string(w, "instance", s->shape);
  rs_jsonw_uint(w, "replicas", s->replicas);
  rs_jsonw_number(w, "usd_per_month", s->usd_month);
  rs_jsonw_number(w, "usd_per_million", s->usd_per_million);
  rs_jsonw_number(w, "latency_ms", s->latency_ms);
  rs_jsonw_string(w, "binding", s->binding);
  rs_jsonw_string(w, "verdict", s->verdict);
  rs_jsonw_end(w, '}');
}

static void doc_json(rs_jsonw *w, const char *key, const rs_diff_doc *doc) {
  rs_jsonw_object(w, key);
  rs_jsonw_string(w, "path", doc->path);
  rs_jsonw_string(w, "kind", doc->kind);
  rs_jsonw_end(w, '}');
}

static rs_status put_json(rs_buf *out, const rs_diff *d, double fail_above) {
  rs_jsonw w;
  rs_jsonw_init(&w, out);
  rs_jsonw_object(&w, NULL);
  rs_jsonw_string(&w, "schema", RS_DIFF_JSON_SCHEMA);
  rs_jsonw_string(&w, "rightsize_version", rs_version());
  doc_json(&w, "old", d->old);
  doc_json(&w, "new", d->new_);
  rs_jsonw_object(&w, "totals");
  rs_jsonw_number(&w, "usd_per_month_old", d->old_month);
  rs_jsonw_number(&w, "usd_per_month_new", d->new_month);
  rs_jsonw_number(&w, "usd_per_month_change", d->month_delta);
  rs_jsonw_number(&w, "usd_per_month_change_pct", d->month_pct);
  rs_jsonw_uint(&w, "endpoints", d->nrows);
  rs_jsonw_uint(&w, "changed", d->changed);
  rs_jsonw_end(&w, '}');
  rs_jsonw_object(&w, "largest_rise");
  rs_jsonw_number(&w, "pct", d->worst_pct);
  rs_jsonw_string(&w, "what", d->worst_what);
  rs_jsonw_number(&w, "fail_above_pct", fail_above);
  if (isfinite(fail_above))
    rs_jsonw_bool(&w, "failed", rs_diff_exceeds(d, fail_above));
  else
    rs_jsonw_null(&w, "failed");
  rs_jsonw_end(&w, '}');
  rs_jsonw_array(&w, "endpoints");
  for (size_t i = 0; i < d->nrows; i++) {
    const rs_diff_row *r = &d->rows[i];
    rs_jsonw_object(&w, NULL);
    rs_jsonw_string(&w, "endpoint", r->endpoint);
    rs_jsonw_bool(&w, "changed", r->changed);
    side_json(&w, "old", &r->old);
    side_json(&w, "new", &r->new_);
    rs_jsonw_number(&w, "usd_per_month_change", r->month_delta);
    rs_jsonw_number(&w, "usd_per_month_change_pct", r->month_pct);
    rs_jsonw_number(&w, "usd_per_million_change", r->per_million_delta);
    rs_jsonw_number(&w, "usd_per_million_change_pct", r->per_million_pct);
    rs_jsonw_number(&w, "latency_change_ms", r->latency_delta_ms);
    rs_jsonw_end(&w, '}');
  }
  rs_jsonw_end(&w, ']');
  rs_jsonw_end(&w, '}');
  rs_jsonw_finish(&w);
  return rs_buf_status(out);
}

rs_status rs_report_diff(rs_buf *out, const rs_diff *d, rs_diff_format format, double fail_above,
                         bool wide) {
  rs_status st = RS_OK;
  switch (format) {
  case RS_DIFF_JSON: return put_json(out, d, fail_above);
  case RS_DIFF_MARKDOWN:
    rs_buf_puts(out, "### rightsize diff\n\n");
    put_summary(out, d, fail_above, true);
    rs_buf_puts(out, "\n");
    st = put_table(out, d, RS_TABLE_MARKDOWN, true);
    break;
  default:
    put_summary(out, d, fail_above, false);
    rs_buf_puts(out, "\n");
    st = put_table(out, d, RS_TABLE_TEXT, wide);
  }
  return st == RS_OK ? rs_buf_status(out) : st;
}
