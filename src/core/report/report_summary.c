#include "rightsize/report_summary.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rightsize/num.h"
#include "sketch.h"
#include "rightsize/version.h"

/* How a canonical unit is shown in the table: divisor, label, decimals. */
typedef struct display_unit {
  double div;
  const char *label;
  int decimals;
} display_unit;

static display_unit display_for(rs_metric m) {
  const char *u = rs_metric_unit(m);
  if (strcmp(u, "bytes") == 0)
    return (display_unit){RS_GIB, "GiB", 3};
  if (strcmp(u, "percent") == 0)
    return (display_unit){1.0, "%", 1};
  if (strcmp(u, "bytes_per_s") == 0)
    return (display_unit){1e6, "MB/s", 3};
  if (strcmp(u, "requests_per_s") == 0)
    return (display_unit){1.0, "req/s", 2};
  if (strcmp(u, "ms") == 0)
    return (display_unit){1.0, "ms", 1};
  if (strcmp(u, "tokens_per_s") == 0)
    return (display_unit){1.0, "tok/s", 1};
  if (strcmp(u, "tokens") == 0)
    return (display_unit){1.0, "tok", 0};
  return (display_unit){1.0, "", 1};
}

/* Right-aligned fixed number in a column of `width`. */
static void put_col(rs_buf *out, double v, int decimals, int width) {
  char tmp[64];
  rs_buf scratch;
  rs_buf_init(&scratch, 64);
  if (rs_buf_put_fixed(&scratch, v, decimals) != RS_OK && !out->failed) {
    /* The report fails as a whole: a number lost to malloc is never "-". */
    out->failed = true;
    out->why = scratch.why;
  }
  snprintf(tmp, sizeof(tmp), "%*s", width, scratch.data ? scratch.data : "-");
  rs_buf_release(&scratch);
  rs_buf_puts(out, tmp);
}

static void put_duration(rs_buf *out, double s) {
  if (!isfinite(s))
    rs_buf_puts(out, "-");
  else if (s >= 2 * 86400.0)
    rs_buf_printf(out, "%.1f d", s / 86400.0);
  else if (s >= 2 * 3600.0)
    rs_buf_printf(out, "%.1f h", s / 3600.0);
  else if (s >= 120.0)
    rs_buf_printf(out, "%.1f min", s / 60.0);
  else
    rs_buf_printf(out, "%.3g s", s);
}

static void table_header(rs_buf *out, const rs_summary *sum) {
  const rs_profile *p = sum->profile;
  rs_buf_puts(out, "endpoint   ");
  rs_buf_put_text(out, sum->name);
  rs_buf_putc(out, '\n');
  if (p) {
    rs_buf_puts(out, "profile    ");
    rs_buf_put_text(out, p->path);
    rs_buf_putc(out, '\n');
    rs_buf_printf(out, "source     %s\n", rs_source_name(sum->source));
    rs_buf_printf(out, "current    %s %s x%llu", p->current.provider, p->current.instance,
                  (unsigned long long)p->current.replicas);
    if (p->current.region)
      rs_buf_printf(out, " (%s)", p->current.region);
    rs_buf_puts(out, "\nslo        ");
    if (isfinite(p->slo.latency_p99_ms))
      rs_buf_printf(out, "p99 <= %g ms", p->slo.latency_p99_ms);
    if (isfinite(p->slo.latency_p95_ms))
      rs_buf_printf(out, "%sp95 <= %g ms", isfinite(p->slo.latency_p99_ms) ? ", " : "",
                    p->slo.latency_p95_ms);
    rs_buf_puts(out, "\n");
  }
  for (size_t i = 0; i < sum->ninputs; i++) {
    const rs_summary_input *in = &sum->inputs[i];
    rs_buf_printf(out, "%s %s (%s, %llu rows", i == 0 ? "inputs    " : "          ", in->path,
                  rs_format_name(in->format), (unsigned long long)in->rows);
    if (in->repeated_headers)
      rs_buf_printf(out, ", %llu repeated header lines skipped",
                    (unsigned long long)in->repeated_headers);
    if (in->notes & RS_INGEST_NOTE_DEVICE_KEYS)
      rs_buf_puts(out, ", GPUs numbered by bus id or uuid in first-seen order");
    rs_buf_puts(out, ")\n");
  }
  if (sum->inline_rows)
    rs_buf_printf(out, "%s inline rows in the profile (%llu rows)\n",
                  sum->ninputs ? "          " : "inputs    ", (unsigned long long)sum->inline_rows);
}

static void table_coverage(rs_buf *out, const rs_coverage *c) {
  char a[32], b[32];
  rs_time_format(c->first, a, sizeof(a));
  rs_time_format(c->last, b, sizeof(b));
  rs_buf_printf(out, "coverage   %s .. %s (", a, b);
  put_duration(out, c->duration_s);
  rs_buf_puts(out, "), typical interval ");
  put_duration(out, c->interval_s);
  rs_buf_printf(out, ", %llu series\n", (unsigned long long)c->series);
  rs_buf_printf(out, "gaps       %llu across the series (", (unsigned long long)c->gaps);
  put_duration(out, c->gap_s);
  rs_buf_puts(out, " of samples missing, longest interval ");
  put_duration(out, c->longest_gap_s);
  rs_buf_printf(out, "), %llu duplicate and %llu out-of-order rows\n",
                (unsigned long long)c->duplicates, (unsigned long long)c->out_of_order);
}

/* "88% (12% missing)": a share of expected samples. */
static void put_share(rs_buf *out, double share) {
  double pct = floor(1000.0 * share + 0.5) / 10.0;
  rs_buf_printf(out, "%.1f%%", pct);
  if (pct < 100.0)
    rs_buf_printf(out, " (%.1f%% missing)", 100.0 - pct);
}

static void table_present(rs_buf *out, const rs_endpoint_stats *st) {
  const char *sep = "";
  if (!isfinite(st->coverage.expected_per_series))
    return;
  rs_buf_printf(
      out, "present    of %.0f expected samples per series:", st->coverage.expected_per_series);
  for (int m = 0; m < RS_METRIC_COUNT; m++) {
    if (st->m[m].count == 0 || !isfinite(st->m[m].present))
      continue;
    rs_buf_printf(out, "%s %s ", sep, rs_metric_key((rs_metric)m));
    put_share(out, st->m[m].present);
    sep = ",";
  }
  rs_buf_puts(out, "\n");
  if (st->ndevices == 0)
    return;
  rs_buf_puts(out, "           per GPU (its least complete metric):");
  for (size_t i = 0; i < st->ndevices; i++) {
    double low = NAN;
    for (int m = 0; m < RS_METRIC_COUNT; m++)
      if (isfinite(st->devices[i].m[m].present) && !(st->devices[i].m[m].present >= low))
        low = st->devices[i].m[m].present;
    rs_buf_printf(out, "%s %d ", i ? "," : "", st->devices[i].index);
    if (isfinite(low))
      put_share(out, low);
    else
      rs_buf_puts(out, "-");
  }
  rs_buf_puts(out, "\n");
}

static void table_metric_row(rs_buf *out, int width, const char *name, rs_metric m,
                             const rs_metric_stats *ms) {
  display_unit d = display_for(m);
  rs_buf_printf(out, "%-*s %-6s %9llu", width, name, d.label, (unsigned long long)ms->count);
  put_col(out, ms->min / d.div, d.decimals, 10);
  put_col(out, ms->mean / d.div, d.decimals, 10);
  for (int q = 0; q < RS_QUANTILE_COUNT; q++)
    put_col(out, ms->q[q] / d.div, d.decimals, 10);
  put_col(out, ms->max / d.div, d.decimals, 10);
  rs_buf_puts(out, "\n");
}

static void table_metrics_head(rs_buf *out, int width, const char *first) {
  rs_buf_printf(out, "%-*s %-6s %9s %10s %10s %10s %10s %10s %10s %10s\n", width, first, "unit",
                "count", "min", "mean", "p50", "p90", "p95", "p99", "max");
}

static void table_metrics(rs_buf *out, const rs_summary *sum) {
  const rs_endpoint_stats *st = &sum->stats;
  int width = 16; /* wider only when a longer key (prompt_token_rate) is present */
  for (int m = 0; m < RS_METRIC_COUNT; m++)
    if (st->m[m].count > 0 && (int)strlen(rs_metric_key((rs_metric)m)) > width)
      width = (int)strlen(rs_metric_key((rs_metric)m));
  rs_buf_puts(out, "\n");
  table_metrics_head(out, width, "metric");
  for (int m = 0; m < RS_METRIC_COUNT; m++)
    if (st->m[m].count > 0)
      table_metric_row(out, width, rs_metric_key((rs_metric)m), (rs_metric)m, &st->m[m]);
  if (sum->exact)
    rs_buf_puts(out, "(quantiles exact)\n");
  else
    rs_buf_printf(out,
                  "(quantiles from a sketch, within %g%% of the exact value; --exact for "
                  "exact)\n",
                  100.0 * RS_SKETCH_ALPHA);
}

static void table_devices(rs_buf *out, const rs_endpoint_stats *st) {
  char name[32];
  if (st->ndevices == 0)
    return;
  rs_buf_puts(out, "\nper device\n");
  table_metrics_head(out, 16, "gpu.metric");
  for (size_t i = 0; i < st->ndevices; i++) {
    const rs_device_stats *d = &st->devices[i];
    for (int m = 0; m < RS_METRIC_COUNT; m++) {
      if (!rs_metric_per_device((rs_metric)m) || d->m[m].count == 0)
        continue;
      snprintf(name, sizeof(name), "%d.%s", d->index, rs_metric_key((rs_metric)m));
      table_metric_row(out, 16, name, (rs_metric)m, &d->m[m]);
    }
  }
}

static void table_shape(rs_buf *out, const rs_endpoint_stats *st) {
  const double gib = RS_GIB;
  const rs_window_stats *w = &st->gpu_mem_windows;
  if (st->m[RS_METRIC_REQUEST_RATE].count > 0 && isfinite(st->rate_peak_to_mean))
    rs_buf_printf(out, "\ntraffic    peak/mean %.2f, p99/mean %.2f, cv %.2f\n",
                  st->rate_peak_to_mean, st->rate_p99_to_mean, st->rate_cv);
  if (w->windows > 0) {
    rs_buf_printf(out,
                  "gpu memory peaks per %g min window (GPU %d): p50 %.3f GiB, p95 %.3f GiB, "
                  "max %.3f GiB over %llu windows",
                  w->window_s / 60.0, st->busiest_device, w->p50 / gib, w->p95 / gib, w->max / gib,
                  (unsigned long long)w->windows);
    if (w->p95 > 0)
      rs_buf_printf(out, " (max/p95 %.2f)", w->max / w->p95);
    rs_buf_puts(out, "\n");
  }
}

static void table_warnings(rs_buf *out, const rs_summary *sum) {
  rs_buf_puts(out, "\nwarnings\n");
  if (sum->nwarnings == 0)
    rs_buf_puts(out, "  none\n");
  for (size_t i = 0; i < sum->nwarnings; i++)
    rs_buf_printf(out, "  %-15s %s\n", rs_warning_code_name(sum->warnings[i].code),
                  sum->warnings[i].text);
}

rs_status rs_report_summary_table(rs_buf *out, const rs_summary *sum) {
  table_header(out, sum);
  table_coverage(out, &sum->stats.coverage);
  table_present(out, &sum->stats);
  table_metrics(out, sum);
  table_devices(out, &sum->stats);
  table_shape(out, &sum->stats);
  table_warnings(out, sum);
  return rs_buf_status(out);
}
