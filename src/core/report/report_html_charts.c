/* The charts of one fit (html.h): utilization, memory and request rate
 * over time against the target's capacity, the ceiling and the headroom;
 * latency against load with the back-test's curve; the candidates on cost
 * against projected latency with the SLO and the Pareto front. Each chart
 * says in words (its <desc> and caption) what it shows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "rightsize/num.h"
#include "svg.h"

#define W 960
#define H 300

/* Hours (or days past three days) since the first bucket, for the x axis. */
typedef struct timeline {
  double x[RS_SERIES_BUCKETS];
  double unit_s;
  const char *label;
} timeline;

static void timeline_init(timeline *t, const rs_series *s) {
  double span = s->width_s * (double)s->nbuckets;
  t->unit_s = span > 3 * 86400.0 ? 86400.0 : 3600.0;
  t->label = span > 3 * 86400.0 ? "time since the first sample (days)"
                                : "time since the first sample (hours)";
  for (size_t i = 0; i < s->nbuckets; i++)
    t->x[i] = ((double)i + 0.5) * s->width_s / t->unit_s;
}

static void pick(double *dst, const rs_series_point *p, size_t n, int which, double scale) {
  for (size_t i = 0; i < n; i++)
    dst[i] = (which == 0 ? p[i].min : which == 1 ? p[i].mean : p[i].max) / scale;
}

static void caption_bucket(char *dst, size_t n, const rs_series *s) {
  snprintf(dst, n, "%zu buckets of %.0f s; line: mean per bucket, band: min to max", s->nbuckets,
           s->width_s);
}

static void util_chart(rs_buf *out, const rs_fit_result *r, const timeline *t, const char *id) {
  const rs_series *s = &r->summary->stats.series;
  const rs_candidate *tg = r->verdict.target;
  double lo[RS_SERIES_BUCKETS], mid[RS_SERIES_BUCKETS], hi[RS_SERIES_BUCKETS];
  char buf[256], cap[160], cid[64];
  rs_svg_axis x = {0, (double)s->nbuckets * s->width_s / t->unit_s, false, t->label, false};
  rs_svg_axis y = {0, 100, false, "GPU utilization (%)", false};
  rs_svg_plot p;
  snprintf(cid, sizeof(cid), "%s-util", id);
  snprintf(buf, sizeof(buf),
           "Utilization of each current device over time, with the %.0f%% ceiling%s.",
           r->opts.max_util * 100.0, tg ? " and the target's projected utilization" : "");
  rs_svg_begin(&p, out, cid, W, H, "GPU utilization over time", buf, &x, &y);
  rs_svg_axes(&p);
  for (size_t d = 0; d < s->ndevices; d++) {
    pick(lo, s->util[d], s->nbuckets, 0, 1);
    pick(mid, s->util[d], s->nbuckets, 1, 1);
    pick(hi, s->util[d], s->nbuckets, 2, 1);
    rs_svg_band(&p, t->x, lo, hi, s->nbuckets, rs_svg_color(d), 0.15);
    snprintf(buf, sizeof(buf), "GPU %d", s->device[d]);
    rs_svg_line(&p, t->x, mid, s->nbuckets, rs_svg_color(d), 1.5, NULL, buf);
    rs_svg_legend(&p, d, rs_svg_color(d), NULL, false, RS_SVG_CIRCLE, buf);
  }
  snprintf(buf, sizeof(buf), "ceiling %.0f%%", r->opts.max_util * 100.0);
  rs_svg_rule(&p, r->opts.max_util * 100.0, false, RS_SVG_VERMILION, "6 4", buf);
  if (tg) {
    snprintf(buf, sizeof(buf), "%s x%u at the design peak: %.0f%%", tg->inst->name, tg->replicas,
             tg->util * 100.0);
    rs_svg_rule(&p, tg->util * 100.0, false, RS_SVG_BLACK, "2 3", buf);
  }
  caption_bucket(cap, sizeof(cap), s);
  snprintf(buf, sizeof(buf), "Utilization of the current devices (%s).", cap);
  rs_svg_end(&p, buf);
}

static double series_max(const rs_series_point (*pts)[RS_SERIES_BUCKETS], size_t ndev, size_t n) {
  double m = 0;
  for (size_t d = 0; d < ndev; d++)
    for (size_t i = 0; i < n; i++)
      if (pts[d][i].max > m)
        m = pts[d][i].max;
  return m;
}

static void mem_chart(rs_buf *out, const rs_fit_result *r, const timeline *t, const char *id) {
  const rs_series *s = &r->summary->stats.series;
  const rs_demand *dm = &r->demand;
  const rs_candidate *tg = r->verdict.target;
  double hi[RS_SERIES_BUCKETS], top = series_max(s->mem, s->ndevices, s->nbuckets) / RS_GIB;
  char buf[256], cid[64];
  top = fmax(top, dm->mem_need_head / RS_GIB);
  top = fmax(top, r->current.mem_capacity / RS_GIB);
  if (tg)
    top = fmax(top, tg->mem_capacity / RS_GIB);
  rs_svg_axis x = {0, (double)s->nbuckets * s->width_s / t->unit_s, false, t->label, false};
  rs_svg_axis y = {0, top * 1.08, false, "GPU memory used (GiB)", false};
  rs_svg_plot p;
  snprintf(cid, sizeof(cid), "%s-mem", id);
  rs_svg_begin(&p, out, cid, W, H, "GPU memory over time",
               "Peak memory of each current device per time bucket, the need with headroom, "
               "and the memory per server of the current and the target shape.",
               &x, &y);
  rs_svg_axes(&p);
  for (size_t d = 0; d < s->ndevices; d++) {
    pick(hi, s->mem[d], s->nbuckets, 2, RS_GIB);
    snprintf(buf, sizeof(buf), "GPU %d (peak per bucket)", s->device[d]);
    rs_svg_line(&p, t->x, hi, s->nbuckets, rs_svg_color(d), 1.5, NULL, buf);
    rs_svg_legend(&p, d, rs_svg_color(d), NULL, false, RS_SVG_CIRCLE, buf);
  }
  snprintf(buf, sizeof(buf), "needed with %.0f%% headroom: %.2f GiB", r->opts.headroom * 100.0,
           dm->mem_need_head / RS_GIB);
  rs_svg_rule(&p, dm->mem_need_head / RS_GIB, false, RS_SVG_VERMILION, "6 4", buf);
  snprintf(buf, sizeof(buf), "now, %s: %.2f GiB per server", r->current.inst->name,
           r->current.mem_capacity / RS_GIB);
  rs_svg_rule(&p, r->current.mem_capacity / RS_GIB, false, RS_SVG_PURPLE, "1 3", buf);
  if (tg) {
    snprintf(buf, sizeof(buf), "target, %s: %.2f GiB per server", tg->inst->name,
             tg->mem_capacity / RS_GIB);
    rs_svg_rule(&p, tg->mem_capacity / RS_GIB, false, RS_SVG_BLACK, "2 3", buf);
  }
  rs_svg_end(&p, "Memory of the current devices: the largest value in each time bucket. The "
                 "target must hold the need with headroom.");
}

static void rate_chart(rs_buf *out, const rs_fit_result *r, const timeline *t, const char *id) {
  const rs_series *s = &r->summary->stats.series;
  const rs_demand *dm = &r->demand;
  double lo[RS_SERIES_BUCKETS], mid[RS_SERIES_BUCKETS], hi[RS_SERIES_BUCKETS];
  char buf[256], cap[160], cid[64];
  pick(lo, s->rate, s->nbuckets, 0, 1);
  pick(mid, s->rate, s->nbuckets, 1, 1);
  pick(hi, s->rate, s->nbuckets, 2, 1);
  double top = dm->design_peak;
  for (size_t i = 0; i < s->nbuckets; i++)
    top = isfinite(hi[i]) && hi[i] > top ? hi[i] : top;
  rs_svg_axis x = {0, (double)s->nbuckets * s->width_s / t->unit_s, false, t->label, false};
  rs_svg_axis y = {0, top * 1.08, false, "request rate (req/s)", false};
  rs_svg_plot p;
  snprintf(cid, sizeof(cid), "%s-rate", id);
  rs_svg_begin(&p, out, cid, W, H, "Request rate over time",
               "The endpoint's request rate per time bucket and the design peak the fit sizes "
               "for.",
               &x, &y);
  rs_svg_axes(&p);
  rs_svg_band(&p, t->x, lo, hi, s->nbuckets, RS_SVG_BLUE, 0.18);
  rs_svg_line(&p, t->x, mid, s->nbuckets, RS_SVG_BLUE, 1.5, NULL, "request rate");
  rs_svg_legend(&p, 0, RS_SVG_BLUE, NULL, false, RS_SVG_CIRCLE, "request rate (mean per bucket)");
  snprintf(buf, sizeof(buf), "design peak %.2f req/s (%s)", dm->design_peak, dm->peak_basis);
  rs_svg_rule(&p, dm->design_peak, false, RS_SVG_VERMILION, "6 4", buf);
  caption_bucket(cap, sizeof(cap), s);
  snprintf(buf, sizeof(buf), "Request rate (%s).", cap);
  rs_svg_end(&p, buf);
}

/* Observed latency by load bucket and the back-test's fitted curve. */
static void latency_chart(rs_buf *out, const rs_fit_result *r, const char *id) {
  const rs_load_stats *ld = &r->summary->stats.load;
  const rs_demand *dm = &r->demand;
  const rs_backtest *bt = &dm->backtest;
  int qi = dm->slo_quantile >= 0.99 ? 2 : 1;
  double xmax = dm->design_peak, ymax = dm->slo_ms;
  char buf[256], cid[64], qname[16];
  snprintf(qname, sizeof(qname), "p%.0f", dm->slo_quantile * 100.0);
  for (size_t i = 0; i < ld->nbuckets; i++) {
    xmax = fmax(xmax, ld->b[i].rate_mean);
    ymax = isfinite(ld->b[i].lat_ms[qi]) ? fmax(ymax, ld->b[i].lat_ms[qi]) : ymax;
  }
  for (size_t i = 0; i < bt->ncurve; i++) {
    xmax = fmax(xmax, bt->curve_rate[i]);
    ymax = isfinite(bt->curve_ms[i]) ? fmax(ymax, fmin(bt->curve_ms[i], 2 * dm->slo_ms)) : ymax;
  }
  rs_svg_axis x = {0, xmax * 1.05, false, "request rate (req/s)", false};
  rs_svg_axis y = {0, ymax * 1.1, false, "latency (ms)", false};
  rs_svg_plot p;
  snprintf(cid, sizeof(cid), "%s-latency", id);
  snprintf(buf, sizeof(buf),
           "Observed p50 and %s latency of the current deployment by load bucket, the "
           "back-test's fitted %s curve, the SLO and the design peak.",
           qname, qname);
  rs_svg_begin(&p, out, cid, W, H, "Latency against load", buf, &x, &y);
  rs_svg_axes(&p);
  rs_svg_line(&p, bt->curve_rate, bt->curve_ms, bt->ncurve, RS_SVG_BLACK, 2, "5 3", "model");
  for (size_t i = 0; i < ld->nbuckets; i++) {
    const rs_load_bucket *b = &ld->b[i];
    snprintf(buf, sizeof(buf), "%.2f req/s, %llu intervals: p50 %.2f ms", b->rate_mean,
             (unsigned long long)b->n, b->lat_ms[0]);
    rs_svg_marker(&p, b->rate_mean, b->lat_ms[0], RS_SVG_CIRCLE, 3.5, RS_SVG_SKY, true, buf);
    snprintf(buf, sizeof(buf), "%.2f req/s, %llu intervals: %s %.2f ms", b->rate_mean,
             (unsigned long long)b->n, qname, b->lat_ms[qi]);
    rs_svg_marker(&p, b->rate_mean, b->lat_ms[qi], RS_SVG_TRIANGLE, 4, RS_SVG_BLUE, true, buf);
  }
  snprintf(buf, sizeof(buf), "SLO %s %g ms", qname, dm->slo_ms);
  rs_svg_rule(&p, dm->slo_ms, false, RS_SVG_VERMILION, "6 4", buf);
  snprintf(buf, sizeof(buf), "design peak %.2f req/s", dm->design_peak);
  rs_svg_rule(&p, dm->design_peak, true, RS_SVG_ORANGE, "2 3", buf);
  rs_svg_legend(&p, 0, RS_SVG_SKY, NULL, true, RS_SVG_CIRCLE, "observed p50");
  snprintf(buf, sizeof(buf), "observed %s", qname);
  rs_svg_legend(&p, 1, RS_SVG_BLUE, NULL, true, RS_SVG_TRIANGLE, buf);
  if (bt->ncurve) {
    snprintf(buf, sizeof(buf), "model %s (back-test: predicted/observed %.2f)", qname,
             bt->ratio_median);
    rs_svg_legend(&p, 2, RS_SVG_BLACK, "5 3", false, RS_SVG_CIRCLE, buf);
  }
  rs_svg_end(&p, "Each point is the median over the intervals of one load bucket; the dashed "
                 "curve is the service model fitted to this history (docs/model.md "
                 "\"Back-test\").");
}

static int cmp_latency(const void *a, const void *b) {
  const rs_candidate *x = *(const rs_candidate *const *)a, *y = *(const rs_candidate *const *)b;
  if (x->latency_q_ms != y->latency_q_ms)
    return x->latency_q_ms < y->latency_q_ms ? -1 : 1;
  if (x->usd_per_month != y->usd_per_month)
    return x->usd_per_month < y->usd_per_month ? -1 : 1;
  return strcmp(x->inst->name, y->inst->name);
}

/* The Pareto front over (latency, cost): the fitting shapes no other beats
 * on both. Sorted by latency, a shape is on the front when it is cheaper
 * than every faster one. */
static void pareto_line(const rs_svg_plot *p, const rs_fit_result *r) {
  const rs_candidate **v = malloc(r->nfitting * sizeof(*v) + 1);
  double *xs = malloc(r->nfitting * sizeof(double) + 1),
         *ys = malloc(r->nfitting * sizeof(double) + 1);
  size_t n = 0, k = 0;
  if (v && xs && ys) {
    for (size_t i = 0; i < r->nfitting; i++)
      if (isfinite(r->fitting[i].latency_q_ms) && isfinite(r->fitting[i].usd_per_month))
        v[n++] = &r->fitting[i];
    qsort(v, n, sizeof(*v), cmp_latency);
    for (size_t i = 0; i < n; i++)
      if (k == 0 || v[i]->usd_per_month < ys[k - 1]) {
        xs[k] = v[i]->latency_q_ms;
        ys[k++] = v[i]->usd_per_month;
      }
    rs_svg_line(p, xs, ys, k, RS_SVG_GREEN, 2, NULL, "Pareto front");
  }
  free(v);
  free(xs);
  free(ys);
}

static void cost_point(const rs_svg_plot *p, const rs_candidate *c, rs_svg_shape m, double r,
                       const char *color, bool filled, const char *role) {
  char buf[256];
  snprintf(buf, sizeof(buf), "%s%s %s x%u: %.2f $/month, %.1f ms, bound by %s", role,
           c->inst->provider, c->inst->name, c->replicas, c->usd_per_month, c->latency_q_ms,
           rs_constraint_name(c->binding));
  rs_svg_marker(p, c->latency_q_ms, c->usd_per_month, m, r, color, filled, buf);
}

static void cost_chart(rs_buf *out, const rs_fit_result *r, const char *id) {
  const rs_demand *dm = &r->demand;
  double xmax = dm->slo_ms, ylo = INFINITY, yhi = 0;
  char buf[256], cid[64];
  const rs_candidate *all[2] = {&r->current, r->verdict.target};
  for (size_t i = 0; i < r->nfitting; i++) {
    const rs_candidate *c = &r->fitting[i];
    if (isfinite(c->latency_q_ms))
      xmax = fmax(xmax, c->latency_q_ms);
    if (c->usd_per_month > 0) {
      ylo = fmin(ylo, c->usd_per_month);
      yhi = fmax(yhi, c->usd_per_month);
    }
  }
  for (size_t i = 0; i < 2; i++)
    if (all[i] && all[i]->usd_per_month > 0) {
      ylo = fmin(ylo, all[i]->usd_per_month);
      yhi = fmax(yhi, all[i]->usd_per_month);
      xmax = isfinite(all[i]->latency_q_ms) ? fmax(xmax, all[i]->latency_q_ms) : xmax;
    }
  rs_svg_axis x = {0, xmax * 1.1, false, "projected latency at the SLO quantile (ms)", false};
  rs_svg_axis y = {ylo * 0.8, yhi * 1.25, true, "cost ($/month, log scale)", false};
  rs_svg_plot p;
  snprintf(cid, sizeof(cid), "%s-cost", id);
  rs_svg_begin(&p, out, cid, W, 360, "Candidates: cost against projected latency",
               "Every shape that fits, by monthly cost and projected latency, with the current "
               "deployment, the recommended target, the SLO and the Pareto front.",
               &x, &y);
  rs_svg_axes(&p);
  pareto_line(&p, r);
  for (size_t i = 0; i < r->nfitting; i++)
    if (&r->fitting[i] != r->verdict.target)
      cost_point(&p, &r->fitting[i], RS_SVG_CIRCLE, 3.5, RS_SVG_BLUE, false, "");
  cost_point(&p, &r->current, RS_SVG_SQUARE, 5, RS_SVG_VERMILION, true, "now: ");
  if (r->verdict.target)
    cost_point(&p, r->verdict.target, RS_SVG_DIAMOND, 6, RS_SVG_ORANGE, true, "target: ");
  snprintf(buf, sizeof(buf), "SLO %g ms", dm->slo_ms);
  rs_svg_rule(&p, dm->slo_ms, true, RS_SVG_VERMILION, "6 4", buf);
  rs_svg_legend(&p, 0, RS_SVG_BLUE, NULL, true, RS_SVG_CIRCLE, "a shape that fits");
  rs_svg_legend(&p, 1, RS_SVG_GREEN, NULL, false, RS_SVG_CIRCLE, "Pareto front");
  rs_svg_legend(&p, 2, RS_SVG_VERMILION, NULL, true, RS_SVG_SQUARE, "now");
  if (r->verdict.target)
    rs_svg_legend(&p, 3, RS_SVG_ORANGE, NULL, true, RS_SVG_DIAMOND, "recommended");
  rs_svg_end(&p, "Lower and further left is better; a shape right of the SLO line would miss "
                 "it. Hover a point for its shape, cost and binding constraint.");
}

void rs_html_fit_charts(rs_buf *out, const rs_fit_result *r, const char *id) {
  const rs_series *s = &r->summary->stats.series;
  timeline t;
  if (s->nbuckets > 0) {
    rs_buf_puts(out, "<h2>Over time</h2>\n");
    timeline_init(&t, s);
    if (s->ndevices > 0) {
      util_chart(out, r, &t, id);
      mem_chart(out, r, &t, id);
    }
    rate_chart(out, r, &t, id);
  }
  if (r->summary->stats.load.nbuckets > 0) {
    rs_buf_puts(out, "<h2>Latency against load</h2>\n");
    latency_chart(out, r, id);
  }
  if (r->nfitting > 0 || isfinite(r->current.usd_per_month)) {
    rs_buf_puts(out, "<h2>Candidates</h2>\n");
    cost_chart(out, r, id);
  }
}
