#include <math.h>

#include "jsonw.h"
#include "rightsize/num.h"
#include "rightsize/report_summary.h"
#include "sketch.h"
#include "rightsize/version.h"

static const char *const quantile_keys[RS_QUANTILE_COUNT] = {"p50", "p90", "p95", "p99"};

static void json_metric(rs_jsonw *w, rs_metric m, const rs_metric_stats *ms) {
  rs_jsonw_object(w, rs_metric_key(m));
  rs_jsonw_string(w, "unit", rs_metric_unit(m));
  rs_jsonw_uint(w, "count", ms->count);
  rs_jsonw_number(w, "min", ms->min);
  rs_jsonw_number(w, "mean", ms->mean);
  rs_jsonw_number(w, "stddev", ms->stddev);
  for (int q = 0; q < RS_QUANTILE_COUNT; q++)
    rs_jsonw_number(w, quantile_keys[q], ms->q[q]);
  rs_jsonw_number(w, "max", ms->max);
  rs_jsonw_number(w, "present", ms->present);
  rs_jsonw_end(w, '}');
}

static void json_metrics(rs_jsonw *w, const char *key, const rs_metric_stats *ms,
                         bool per_device_only) {
  rs_jsonw_object(w, key);
  for (int m = 0; m < RS_METRIC_COUNT; m++) {
    if (ms[m].count == 0 || (per_device_only && !rs_metric_per_device((rs_metric)m)))
      continue;
    json_metric(w, (rs_metric)m, &ms[m]);
  }
  rs_jsonw_end(w, '}');
}

static void json_windows(rs_jsonw *w, const char *key, const rs_window_stats *ws) {
  rs_jsonw_object(w, key);
  rs_jsonw_number(w, "window_s", ws->window_s);
  rs_jsonw_uint(w, "windows", ws->windows);
  rs_jsonw_number(w, "p50", ws->p50);
  rs_jsonw_number(w, "p95", ws->p95);
  rs_jsonw_number(w, "max", ws->max);
  rs_jsonw_end(w, '}');
}

static void json_time(rs_jsonw *w, const char *key, double t) {
  char buf[32];
  if (!isfinite(t)) {
    rs_jsonw_null(w, key);
    return;
  }
  rs_time_format(t, buf, sizeof(buf));
  rs_jsonw_string(w, key, buf);
}

static void json_coverage(rs_jsonw *w, const rs_coverage *c) {
  rs_jsonw_object(w, "coverage");
  rs_jsonw_uint(w, "rows", c->rows);
  rs_jsonw_uint(w, "series", c->series);
  json_time(w, "first", c->first);
  json_time(w, "last", c->last);
  rs_jsonw_number(w, "duration_s", c->duration_s);
  rs_jsonw_number(w, "interval_s", c->interval_s);
  rs_jsonw_uint(w, "gaps", c->gaps);
  rs_jsonw_number(w, "gap_s", c->gap_s);
  rs_jsonw_number(w, "longest_interval_s", c->longest_gap_s);
  rs_jsonw_uint(w, "duplicates", c->duplicates);
  rs_jsonw_uint(w, "out_of_order", c->out_of_order);
  rs_jsonw_number(w, "expected_per_series", c->expected_per_series);
  rs_jsonw_end(w, '}');
}

static void json_profile(rs_jsonw *w, const rs_profile *p) {
  if (p == NULL) {
    rs_jsonw_null(w, "profile");
    rs_jsonw_null(w, "current");
    rs_jsonw_null(w, "slo");
    return;
  }
  rs_jsonw_string(w, "profile", p->path);
  rs_jsonw_object(w, "current");
  rs_jsonw_string(w, "provider", p->current.provider);
  rs_jsonw_string(w, "instance", p->current.instance);
  rs_jsonw_uint(w, "replicas", p->current.replicas);
  rs_jsonw_string(w, "region", p->current.region);
  rs_jsonw_end(w, '}');
  rs_jsonw_object(w, "slo");
  rs_jsonw_number(w, "latency_p99_ms", p->slo.latency_p99_ms);
  rs_jsonw_number(w, "latency_p95_ms", p->slo.latency_p95_ms);
  rs_jsonw_end(w, '}');
}

static void json_inputs(rs_jsonw *w, const rs_summary *sum) {
  rs_jsonw_array(w, "inputs");
  for (size_t i = 0; i < sum->ninputs; i++) {
    rs_jsonw_object(w, NULL);
    rs_jsonw_string(w, "path", sum->inputs[i].path);
    rs_jsonw_string(w, "format", rs_format_name(sum->inputs[i].format));
    rs_jsonw_uint(w, "rows", sum->inputs[i].rows);
    rs_jsonw_uint(w, "repeated_headers", sum->inputs[i].repeated_headers);
    rs_jsonw_bool(w, "devices_by_key", (sum->inputs[i].notes & RS_INGEST_NOTE_DEVICE_KEYS) != 0);
    rs_jsonw_end(w, '}');
  }
  if (sum->inline_rows) {
    rs_jsonw_object(w, NULL);
    rs_jsonw_string(w, "path", sum->profile ? sum->profile->path : NULL);
    rs_jsonw_string(w, "format", "inline");
    rs_jsonw_uint(w, "rows", sum->inline_rows);
    rs_jsonw_end(w, '}');
  }
  rs_jsonw_end(w, ']');
}

static void json_devices(rs_jsonw *w, const rs_endpoint_stats *st) {
  rs_jsonw_array(w, "devices");
  for (size_t i = 0; i < st->ndevices; i++) {
    rs_jsonw_object(w, NULL);
    rs_jsonw_uint(w, "index", (uint64_t)st->devices[i].index);
    json_metrics(w, "metrics", st->devices[i].m, true);
    json_windows(w, "gpu_mem_window_peaks", &st->devices[i].mem_windows);
    rs_jsonw_end(w, '}');
  }
  rs_jsonw_end(w, ']');
}

static void json_warnings(rs_jsonw *w, const rs_summary *sum) {
  rs_jsonw_array(w, "warnings");
  for (size_t i = 0; i < sum->nwarnings; i++) {
    rs_jsonw_object(w, NULL);
    rs_jsonw_string(w, "code", rs_warning_code_name(sum->warnings[i].code));
    rs_jsonw_string(w, "message", sum->warnings[i].text);
    rs_jsonw_end(w, '}');
  }
  rs_jsonw_end(w, ']');
}

rs_status rs_report_summary_json(rs_buf *out, const rs_summary *sum) {
  const rs_endpoint_stats *st = &sum->stats;
  rs_jsonw w;
  rs_jsonw_init(&w, out);
  rs_jsonw_object(&w, NULL);
  rs_jsonw_string(&w, "schema", RS_SUMMARY_JSON_SCHEMA);
  rs_jsonw_string(&w, "rightsize_version", rs_version());
  rs_jsonw_string(&w, "endpoint", sum->name);
  rs_jsonw_string(&w, "source", rs_source_name(sum->source));
  json_profile(&w, sum->profile);
  json_inputs(&w, sum);
  rs_jsonw_object(&w, "quantiles");
  rs_jsonw_string(&w, "method", sum->exact ? "exact" : "sketch");
  rs_jsonw_number(&w, "relative_error", sum->exact ? 0.0 : RS_SKETCH_ALPHA);
  rs_jsonw_end(&w, '}');
  json_coverage(&w, &st->coverage);
  json_metrics(&w, "metrics", st->m, false);
  json_devices(&w, st);
  if (st->busiest_device >= 0)
    rs_jsonw_uint(&w, "busiest_device", (uint64_t)st->busiest_device);
  else
    rs_jsonw_null(&w, "busiest_device");
  json_windows(&w, "gpu_mem_window_peaks", &st->gpu_mem_windows);
  json_windows(&w, "host_mem_window_peaks", &st->host_mem_windows);
  rs_jsonw_object(&w, "traffic");
  rs_jsonw_number(&w, "peak_to_mean", st->rate_peak_to_mean);
  rs_jsonw_number(&w, "p99_to_mean", st->rate_p99_to_mean);
  rs_jsonw_number(&w, "cv", st->rate_cv);
  rs_jsonw_end(&w, '}');
  json_warnings(&w, sum);
  rs_jsonw_end(&w, '}');
  rs_jsonw_finish(&w);
  return rs_buf_status(out);
}
