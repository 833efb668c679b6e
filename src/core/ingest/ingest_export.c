/* Exported formats: detection, the default series mapping, user mapping
 * files, and the merge of per-series points into rows (docs/sources.md).
 * The readers themselves are ingest_json.c and ingest_promtext.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ingest_internal.h"
#include "ingest_stream.h"
#include "rightsize/doc.h"
#include "rightsize/num.h"

/* The most points one file may hold (a year of 10 s points for ~100 series). */
#define MAX_POINTS ((size_t)1 << 28)

/* ---- detection ---- */

static bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

static bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

/* A text exposition sample line: name, optional {labels}, a space. */
static bool looks_exposition(const char *p, const char *end) {
  if (p >= end || !is_name_start(*p))
    return false;
  while (p < end && is_name_char(*p))
    p++;
  return p < end && (*p == '{' || *p == ' ');
}

static bool contains(const char *data, size_t len, const char *word) {
  size_t w = strlen(word);
  for (size_t i = 0; i + w <= len; i++)
    if (memcmp(data + i, word, w) == 0)
      return true;
  return false;
}

rs_sample_format rs_export_sniff(const char *data, size_t len) {
  const char *p = data, *end = data + len;
  if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
    p += 3;
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
    p++;
  if (p == end)
    return RS_FORMAT_AUTO;
  if (*p == '{') {
    size_t n = (size_t)(end - p) < 4096 ? (size_t)(end - p) : 4096;
    if (contains(p, n, "\"MetricDataResults\"") || contains(p, n, "\"Datapoints\""))
      return RS_FORMAT_CLOUDWATCH;
    if (contains(p, n, "\"status\"") || contains(p, n, "\"resultType\""))
      return RS_FORMAT_PROM_JSON;
    return RS_FORMAT_AUTO;
  }
  /* a bare data.result array, saved with jq '.data.result' */
  if (*p == '[' && contains(p, (size_t)(end - p) < 4096 ? (size_t)(end - p) : 4096, "\"metric\""))
    return RS_FORMAT_PROM_JSON;
  if (rs_ingest_dmon_sniff(p, end))
    return RS_FORMAT_DMON;
  if (*p == '#' || looks_exposition(p, end))
    return RS_FORMAT_PROM_TEXT;
  return RS_FORMAT_AUTO;
}

/* ---- the default mapping ---- */

/* How a default rule's scale depends on the mapping settings. */
typedef enum { PLAIN, PER_GPU, PER_CPU, PER_PERIOD, MEM_PCT } scaling;

static const struct {
  const char *key;
  rs_metric metric;
  double scale;
  scaling how;
} default_rules[] = {
    /* DCGM exporter (dcgm-exporter default counters) */
    {"DCGM_FI_DEV_FB_USED", RS_METRIC_GPU_MEM_USED, RS_MIB, PLAIN},
    {"DCGM_FI_DEV_FB_TOTAL", RS_METRIC_GPU_MEM_TOTAL, RS_MIB, PLAIN},
    {"DCGM_FI_DEV_GPU_UTIL", RS_METRIC_GPU_UTIL, 1.0, PLAIN},
    {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", RS_METRIC_GPU_UTIL, 100.0, PLAIN},
    /* node_exporter through the node-mixin recording rules */
    {"instance:node_cpu_utilisation:rate5m", RS_METRIC_CPU_UTIL, 100.0, PLAIN},
    {"instance:node_network_receive_bytes_excluding_lo:rate5m", RS_METRIC_NET_RX, 1.0, PLAIN},
    {"instance:node_network_transmit_bytes_excluding_lo:rate5m", RS_METRIC_NET_TX, 1.0, PLAIN},
    /* SageMaker endpoint metrics in CloudWatch */
    {"GPUUtilization", RS_METRIC_GPU_UTIL, 1.0, PER_GPU},
    {"GPUMemoryUtilization", RS_METRIC_GPU_MEM_USED, 0.01, MEM_PCT},
    {"CPUUtilization", RS_METRIC_CPU_UTIL, 1.0, PER_CPU},
    {"Invocations", RS_METRIC_REQUEST_RATE, 1.0, PER_PERIOD},
    {"ModelLatency p50", RS_METRIC_LATENCY_P50, 1e-3, PLAIN},
    {"ModelLatency p95", RS_METRIC_LATENCY_P95, 1e-3, PLAIN},
    {"ModelLatency p99", RS_METRIC_LATENCY_P99, 1e-3, PLAIN},
};

void rs_series_map_init(rs_series_map *map) {
  memset(map, 0, sizeof(*map));
  map->gpus = 1.0;
  map->cpus = 1.0;
  map->period_s = 60.0;
}

static bool metric_from_key(rs_metric *out, const char *key) {
  for (int m = 0; m < RS_METRIC_COUNT; m++) {
    if (strcmp(rs_metric_key((rs_metric)m), key) == 0) {
      *out = (rs_metric)m;
      return true;
    }
  }
  return false;
}

static rs_status default_rule(rs_export *x, const char *key, rs_series_rule *out, bool *found,
                              size_t line, size_t col, rs_error *err) {
  const rs_series_map *map = x->map;
  out->key = key;
  out->ignore = false;
  out->scale = 1.0;
  out->cap = 0.0;
  if (metric_from_key(&out->metric, key)) {
    *found = true;
    return RS_OK;
  }
  for (size_t i = 0; i < sizeof(default_rules) / sizeof(default_rules[0]); i++) {
    if (strcmp(default_rules[i].key, key) != 0)
      continue;
    out->metric = default_rules[i].metric;
    out->scale = default_rules[i].scale;
    switch (default_rules[i].how) {
    case PLAIN: break;
    case PER_GPU: out->scale /= map->gpus; break;
    case PER_CPU: out->scale /= map->cpus; break;
    case PER_PERIOD: out->scale /= map->period_s; break;
    case MEM_PCT:
      if (map->gpu_mem_total <= 0)
        return rs_error_set(err, RS_INVALID, x->path, line, col,
                            "series '%s' is a percentage of device memory, expected the device "
                            "size: set gpu_mem_total in a mapping file (--mapping, see "
                            "docs/sources.md)",
                            key);
      /* One number for all the GPUs: the busiest device may hold all of
       * it, so it is read as one device's use, at most its memory. */
      out->scale *= map->gpu_mem_total;
      out->cap = map->gpu_mem_total;
      x->notes |= RS_INGEST_NOTE_GPU_MEM_AVG;
      break;
    }
    *found = true;
    return RS_OK;
  }
  *found = rs_llm_gauge(key, &out->metric, &out->scale); /* vLLM, TGI, SGLang */
  return RS_OK;
}

rs_status rs_export_rule(rs_export *x, const char *key, rs_series_rule *out, bool *found,
                         size_t line, size_t col, rs_error *err) {
  rs_status st = RS_OK;
  *found = false;
  x->series++;
  for (size_t i = 0; i < x->map->nrules; i++) {
    if (strcmp(x->map->rules[i].key, key) == 0) {
      *out = x->map->rules[i];
      *found = !out->ignore;
      if (out->ignore)
        return RS_OK;
      break;
    }
  }
  if (!*found)
    st = default_rule(x, key, out, found, line, col, err);
  if (st == RS_OK && *found)
    x->mapped++;
  else if (st == RS_OK && x->unmapped == NULL)
    x->unmapped = rs_arena_strdup(x->arena, key);
  return st;
}

/* ---- points ---- */

void rs_export_init(rs_export *x, rs_arena *arena, const char *path, const rs_series_map *map) {
  memset(x, 0, sizeof(*x));
  x->arena = arena;
  x->path = path;
  x->map = map;
}

void rs_export_release(rs_export *x) {
  rs_llm_free(x->llm);
  x->llm = NULL;
  free(x->pts);
  free(x->eps);
  free(x->ep_hash);
  x->pts = NULL;
  x->eps = NULL;
  x->ep_hash = NULL;
  x->n = x->cap = x->neps = x->eps_cap = x->hash_cap = 0;
}

/* ---- endpoints and selection ---- */

static size_t hash_name(const char *s, size_t len) {
  size_t h = 1469598103934665603u;
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)s[i]) * 1099511628211u;
  return h;
}

/* Doubles the table and re-inserts every name (load kept under a half). */
static bool rehash(rs_export *x) {
  size_t cap = x->hash_cap ? x->hash_cap * 2 : 256;
  unsigned *t = calloc(cap, sizeof(*t));
  const char **names = rs_realloc_array(x->eps, cap / 2, sizeof(*names));
  if (t == NULL || names == NULL) {
    free(t);
    if (names != NULL)
      x->eps = names;
    return false;
  }
  x->eps = names;
  for (size_t i = 0; i < x->neps; i++) {
    size_t h = hash_name(names[i], strlen(names[i])) & (cap - 1);
    while (t[h] != 0)
      h = (h + 1) & (cap - 1);
    t[h] = (unsigned)i + 1;
  }
  free(x->ep_hash);
  x->ep_hash = t;
  x->hash_cap = cap;
  x->eps_cap = cap / 2;
  return true;
}

rs_status rs_export_endpoint(rs_export *x, unsigned *out, const char *name, size_t len, size_t line,
                             size_t col, rs_error *err) {
  if (x->neps + 1 >= x->eps_cap && !rehash(x))
    return rs_error_set(err, RS_NOMEM, x->path, line, col, "out of memory reading endpoints");
  size_t h = hash_name(name, len) & (x->hash_cap - 1);
  for (; x->ep_hash[h] != 0; h = (h + 1) & (x->hash_cap - 1)) {
    const char *e = x->eps[x->ep_hash[h] - 1];
    if (strlen(e) == len && memcmp(e, name, len) == 0) {
      *out = x->ep_hash[h] - 1;
      return RS_OK;
    }
  }
  if (x->neps >= RS_INGEST_MAX_ENDPOINTS)
    return rs_error_set(err, RS_LIMIT, x->path, line, col, "more than %d endpoints",
                        RS_INGEST_MAX_ENDPOINTS);
  if ((x->eps[x->neps] = rs_arena_strndup(x->arena, name, len)) == NULL)
    return rs_arena_error(x->arena, err, x->path, "reading endpoints");
  x->ep_hash[h] = (unsigned)x->neps + 1;
  *out = (unsigned)x->neps++;
  return RS_OK;
}

void rs_export_deselect(rs_export *x) { x->deselected++; }

static bool spelled(const char *s, size_t len, const char *word) {
  return strlen(word) == len && memcmp(s, word, len) == 0;
}

rs_status rs_export_number(const char *s, size_t n, double *out) {
  static const double pow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  uint64_t m = 0;
  size_t i = s != NULL && n > 0 && s[0] == '-', digits = 0, frac = 0;
  bool neg = i == 1, dot = false;
  /* [-]digits[.digits] with at most 15 digits: the integer and the power of
   * ten are exact doubles, so one division is correctly rounded, the value
   * rs_num_parse_double gives (Clinger's fast path). */
  for (; i < n && n <= 17; i++) {
    char c = s[i];
    if (c >= '0' && c <= '9') {
      m = m * 10 + (uint64_t)(c - '0');
      digits++;
      frac += dot;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  if (i == n && n <= 17 && digits > 0 && digits <= 15) {
    double v = (double)m / pow10[frac];
    *out = neg && v != 0.0 ? -v : v;
    return RS_OK;
  }
  return rs_num_parse_double(s, n, out);
}

static rs_status value_fail(const rs_export *x, const char *key, const char *what, const char *text,
                            size_t len, size_t line, size_t col, rs_error *err) {
  int shown = (int)(len > RS_INGEST_QUOTE_MAX ? RS_INGEST_QUOTE_MAX : len);
  return rs_error_set(err, RS_INVALID, x->path, line, col,
                      "expected %s in series '%s', got '%.*s%s'", what, key, shown, text,
                      len > RS_INGEST_QUOTE_MAX ? "..." : "");
}

rs_status rs_export_push(rs_export *x, const rs_export_point *p, rs_error *err) {
  if (x->n == x->cap) {
    size_t cap = x->cap ? x->cap * 2 : 1024;
    rs_export_point *grown;
    if (x->n >= MAX_POINTS)
      return rs_error_set(err, RS_LIMIT, x->path, p->line, p->col,
                          "more than %zu points in one file", MAX_POINTS);
    grown = rs_realloc_array(x->pts, cap, sizeof(*grown));
    if (grown == NULL)
      return rs_error_set(err, RS_NOMEM, x->path, 0, 0, "out of memory reading the points");
    x->pts = grown;
    x->cap = cap;
  }
  x->pts[x->n++] = *p;
  return RS_OK;
}

rs_status rs_export_point_make(const rs_export *x, const rs_series_rule *rule, const char *key,
                               int gpu, double t, const char *text, size_t len, size_t line,
                               size_t col, rs_export_point *out, bool *kept, rs_error *err) {
  double v;
  *kept = false;
  if (spelled(text, len, "NaN"))
    return RS_OK; /* Prometheus' "no value here" (histogram_quantile with no traffic) */
  if (rs_export_number(text, len, &v) != RS_OK)
    return value_fail(x, key,
                      spelled(text, len, "+Inf") || spelled(text, len, "-Inf") ||
                              spelled(text, len, "Inf")
                          ? "a finite number"
                          : "a number",
                      text, len, line, col, err);
  rs_status st = rs_export_point_value(x, rule, key, gpu, t, v, text, len, line, col, out, err);
  *kept = st == RS_OK;
  return st;
}

rs_status rs_export_point_value(const rs_export *x, const rs_series_rule *rule, const char *key,
                                int gpu, double t, double v, const char *text, size_t len,
                                size_t line, size_t col, rs_export_point *out, rs_error *err) {
  rs_export_point p = {
      t, v, rs_metric_per_device(rule->metric) ? gpu : -1, rule->metric, x->cur_ep, key, line, col};
  double upper = rs_metric_upper(rule->metric);
  if (p.v < 0)
    return value_fail(x, key, "a value >= 0", text, len, line, col, err);
  p.v = p.v * rule->scale + 0.0;
  if (!isfinite(p.v))
    return value_fail(x, key, "a finite number", text, len, line, col, err);
  if (upper > 0 && p.v > upper * (1 + 1e-9))
    return value_fail(x, key, "a percentage between 0 and 100 after scaling", text, len, line, col,
                      err);
  if (p.v > upper && upper > 0)
    p.v = upper;
  if (rule->cap > 0 && p.v > rule->cap)
    p.v = rule->cap;
  if (!rs_metric_in_range(rule->metric, p.v)) {
    char what[96];
    rs_ingest_range_text(what, sizeof(what), rule->metric, rule->scale);
    return value_fail(x, key, what, text, len, line, col, err);
  }
  if (!rs_time_in_range(t)) /* the readers check their timestamps; this is the backstop */
    return rs_error_set(err, RS_INVALID, x->path, line, col, "expected %s in series '%s'",
                        RS_INGEST_TIME_RANGE, key);
  *out = p;
  return RS_OK;
}

rs_status rs_export_add(rs_export *x, const rs_series_rule *rule, const char *key, int gpu,
                        double t, const char *text, size_t len, size_t line, size_t col,
                        rs_error *err) {
  rs_export_point p;
  bool kept;
  rs_status st = rs_export_point_make(x, rule, key, gpu, t, text, len, line, col, &p, &kept, err);
  return st == RS_OK && kept ? rs_export_push(x, &p, err) : st;
}

rs_status rs_export_gpu(int *out, const rs_export *x, const char *text, size_t len, size_t line,
                        size_t col, rs_error *err) {
  int64_t idx;
  if (rs_num_parse_int64(text, len, &idx) != RS_OK || idx < 0 || idx >= RS_MAX_DEVICES)
    return rs_error_set(err, RS_INVALID, x->path, line, col,
                        "expected a gpu label between 0 and 63, got '%.*s'",
                        (int)(len > RS_INGEST_QUOTE_MAX ? RS_INGEST_QUOTE_MAX : len), text);
  *out = (int)idx;
  return RS_OK;
}

/* ---- merging into rows ---- */

int rs_export_cmp_points(const rs_export_point *p, const rs_export_point *q) {
  if (p->ep != q->ep)
    return p->ep < q->ep ? -1 : 1;
  if (p->t != q->t)
    return p->t < q->t ? -1 : 1;
  if (p->gpu != q->gpu)
    return p->gpu < q->gpu ? -1 : 1;
  if (p->metric != q->metric)
    return p->metric < q->metric ? -1 : 1;
  /* file order breaks ties, so the report of a clash is stable */
  if (p->line != q->line)
    return p->line < q->line ? -1 : 1;
  return (p->col > q->col) - (p->col < q->col);
}

static int cmp_point(const void *a, const void *b) { return rs_export_cmp_points(a, b); }

void rs_export_sort_points(rs_export_point *pts, size_t n) {
  if (n > 1) /* qsort(NULL, 0, ...) is undefined */
    qsort(pts, n, sizeof(*pts), cmp_point);
}

static rs_status clash(const rs_export *x, const rs_export_point *first,
                       const rs_export_point *second, rs_error *err) {
  char when[32], dev[32] = "";
  rs_time_format(second->t, when, sizeof(when));
  if (second->gpu >= 0)
    snprintf(dev, sizeof(dev), " for gpu %d", second->gpu);
  return rs_error_set(err, RS_INVALID, x->path, second->line, second->col,
                      "series '%s' gives %s%s at %s, as series '%s' at line %zu does, expected "
                      "one series per metric (ignore one in a mapping file, see docs/sources.md)",
                      second->key, rs_metric_key(second->metric), dev, when, first->key,
                      first->line);
}

rs_status rs_export_no_samples(const rs_export *x, rs_error *err) {
  if (x->deselected > 0 && x->mapped == 0)
    return rs_error_set(err, RS_INVALID, x->path, 1, 1,
                        "no samples: %zu series or rows, none of them selected (--select %s=%s%s)",
                        x->deselected, x->select->m[0].key, x->select->m[0].value,
                        x->select->n > 1 ? " and more" : "");
  if (x->series == 0)
    return rs_error_set(err, RS_INVALID, x->path, 1, 1, "no samples: the file holds no series");
  if (x->mapped == 0 && x->unmapped != NULL)
    return rs_error_set(err, RS_INVALID, x->path, 1, 1,
                        "no samples: no series maps to a rightsize metric (first was '%s'), "
                        "expected a known name or a mapping file (see docs/sources.md)",
                        x->unmapped);
  return rs_error_set(err, RS_INVALID, x->path, 1, 1, "no samples: the series hold no points");
}

/* Folds the points [i, j) of one time and GPU into s. */
static rs_status fold(const rs_export *x, size_t i, size_t j, rs_sample *s, rs_error *err) {
  for (size_t k = i; k < j; k++) {
    if (k > i && x->pts[k].metric == x->pts[k - 1].metric)
      return clash(x, &x->pts[k - 1], &x->pts[k], err);
    s->v[x->pts[k].metric] = x->pts[k].v;
    s->present |= 1u << x->pts[k].metric;
  }
  return RS_OK;
}

/* The end of the run of points with the endpoint, time and GPU of point i. */
static size_t run_end(const rs_export *x, size_t i) {
  size_t j = i;
  while (j < x->n && x->pts[j].ep == x->pts[i].ep && x->pts[j].t == x->pts[i].t &&
         x->pts[j].gpu == x->pts[i].gpu)
    j++;
  return j;
}

static bool has_per_device(const rs_sample *s) {
  for (int m = 0; m < RS_METRIC_COUNT; m++)
    if ((s->present & (1u << m)) && rs_metric_per_device((rs_metric)m))
      return true;
  return false;
}

/* Emits the rows of the points [*cursor, end of endpoint ep). */
static rs_status emit_rows(rs_export *x, unsigned ep, size_t *cursor, rs_sample_sink sink,
                           void *ctx, uint64_t *rows, rs_error *err) {
  size_t i = *cursor;
  while (i < x->n && x->pts[i].ep == ep) {
    rs_sample s;
    size_t j = run_end(x, i);
    memset(&s, 0, sizeof(s));
    s.t = x->pts[i].t;
    s.gpu = x->pts[i].gpu;
    s.path = x->path;
    s.line = x->pts[i].line;
    s.t_col = x->pts[i].col;
    rs_status st = fold(x, i, j, &s, err);
    /* Endpoint-level values ride on the first GPU's row at the same time, as
     * docs/samples-format.md asks of native files (one row per time and GPU). */
    if (st == RS_OK && s.gpu == -1 && j < x->n && x->pts[j].ep == ep && x->pts[j].t == s.t &&
        !has_per_device(&s)) {
      s.gpu = x->pts[j].gpu;
      i = j;
      j = run_end(x, i);
      st = fold(x, i, j, &s, err);
    }
    if (st == RS_OK)
      st = sink(ctx, &s, err);
    if (st != RS_OK)
      return st;
    (*rows)++;
    i = j;
  }
  *cursor = i;
  return RS_OK;
}

rs_status rs_export_emit_endpoint(rs_export *x, unsigned ep, size_t *cursor, rs_sample_sink sink,
                                  void *ctx, uint64_t *rows, rs_error *err) {
  if (*cursor == 0 && ep == 0)
    rs_export_sort_points(x->pts, x->n);
  return emit_rows(x, ep, cursor, sink, ctx, rows, err);
}

rs_status rs_export_emit_batch(rs_export *x, rs_export_point *pts, size_t n, rs_sample_sink sink,
                               void *ctx, uint64_t *rows, rs_error *err) {
  rs_export_point *kept = x->pts;
  size_t kept_n = x->n, cursor = 0;
  x->pts = pts;
  x->n = n;
  rs_status st = emit_rows(x, 0, &cursor, sink, ctx, rows, err);
  x->pts = kept;
  x->n = kept_n;
  return st;
}

rs_status rs_export_emit(rs_export *x, rs_sample_sink sink, void *ctx, uint64_t *rows,
                         rs_error *err) {
  size_t cursor = 0;
  *rows = 0;
  if (x->n == 0)
    return rs_export_no_samples(x, err);
  if (x->neps > 1)
    return rs_error_set(err, RS_INVALID, x->path, 1, 1,
                        "the file holds %zu endpoints (column '%s': '%s', '%s', ...), expected "
                        "one: keep one with --select %s=VALUE, or audit them all with "
                        "rightsize audit --mapping (see docs/sources.md)",
                        x->neps, x->ep_column, x->eps[0], x->eps[1], x->ep_column);
  return rs_export_emit_endpoint(x, 0, &cursor, sink, ctx, rows, err);
}

/* ---- entry points ---- */

static rs_status export_run(const char *path, const char *data, size_t len, rs_sample_format format,
                            double instant_t, const rs_ingest_options *opts, rs_sample_sink sink,
                            void *ctx, rs_ingest_result *result, rs_error *err);

rs_status rs_ingest_export(const char *path, const char *data, size_t len, rs_sample_format format,
                           const rs_ingest_options *opts, rs_sample_sink sink, void *ctx,
                           rs_ingest_result *result, rs_error *err) {
  return export_run(path, data, len, format, 0.0, opts, sink, ctx, result, err);
}

static rs_status export_run(const char *path, const char *data, size_t len, rs_sample_format format,
                            double instant_t, const rs_ingest_options *opts, rs_sample_sink sink,
                            void *ctx, rs_ingest_result *result, rs_error *err) {
  rs_arena arena;
  rs_export x;
  rs_series_map defaults;
  rs_status st;
  uint64_t rows = 0;
  if (format == RS_FORMAT_PROM_TEXT) {
    rs_instream *in = NULL;
    st = rs_instream_open_memory(&in, path, data, len, err);
    if (st == RS_OK)
      st = rs_ingest_prom_text_stream(in, path, instant_t, opts, sink, ctx, result, err);
    rs_instream_free(in);
    return st;
  }
  rs_series_map_init(&defaults);
  rs_arena_init(&arena, 0);
  rs_export_init(&x, &arena, path, opts && opts->map ? opts->map : &defaults);
  x.select = opts && opts->select && opts->select->n > 0 ? opts->select : NULL;
  x.instant_t = instant_t;
  if (format == RS_FORMAT_PROM_JSON)
    st = rs_ingest_prom_json(&x, data, len, err);
  else if (format == RS_FORMAT_CLOUDWATCH)
    st = rs_ingest_cloudwatch(&x, data, len, err);
  else if (format == RS_FORMAT_DMON)
    st = rs_ingest_dmon(&x, data, len, err);
  else
    st = RS_OK; /* text exposition: read as a stream, above */
  if (st == RS_OK)
    st = rs_llm_finish(&x, err);
  if (st == RS_OK)
    st = rs_export_emit(&x, sink, ctx, &rows, err);
  rs_export_release(&x);
  rs_arena_release(&arena);
  if (result != NULL) {
    memset(result, 0, sizeof(*result));
    result->format = format;
    result->rows = rows;
    result->notes = x.notes;
  }
  return st;
}

rs_status rs_ingest_export_at(const char *path, const char *data, size_t len,
                              rs_sample_format format, double instant_t,
                              const rs_ingest_options *opts, rs_sample_sink sink, void *ctx,
                              rs_ingest_result *result, rs_error *err) {
  return export_run(path, data, len, format, instant_t, opts, sink, ctx, result, err);
}

/* ---- mapping files ---- */

static const char *const map_keys[] = {"gpu_mem_total", "gpus",  "cpus",   "period",  "series",
                                       "csv",           "files", "select", "profile", NULL};
static const char *const rule_keys[] = {"metric", "scale", NULL};

static rs_status read_rule(rs_series_rule *r, const rs_node *key, const rs_node *val,
                           const char *path, rs_error *err) {
  const char *name = NULL;
  rs_status st = RS_OK;
  const rs_node *mn = val;
  r->key = key->text;
  r->scale = 1.0;
  r->cap = 0.0;
  if (val->kind == RS_NODE_MAP) {
    st = rs_node_check_keys(val, path, "series.*", rule_keys, err);
    mn = rs_node_get(val, "metric");
    if (st == RS_OK && mn == NULL)
      return rs_error_set(err, RS_INVALID, path, val->line, val->col,
                          "series.%s: missing key 'metric'", key->text);
    if (st == RS_OK && rs_node_get(val, "scale") != NULL)
      st = rs_node_double(rs_node_get(val, "scale"), path, "series.*.scale", &r->scale, err);
    if (st == RS_OK && !(r->scale > 0))
      return rs_error_set(err, RS_INVALID, path, val->line, val->col,
                          "series.%s.scale: expected a number > 0", key->text);
  }
  if (st == RS_OK)
    st = rs_node_string(mn, path, "series.*.metric", &name, err);
  if (st != RS_OK)
    return st;
  r->ignore = strcmp(name, "ignore") == 0;
  if (!r->ignore && !metric_from_key(&r->metric, name))
    return rs_error_set(err, RS_INVALID, path, mn->line, mn->col,
                        "series.%s: unknown metric '%s', expected a metric key such as "
                        "gpu_mem_used or latency_p99 (see docs/sources.md), or ignore",
                        key->text, name);
  return RS_OK;
}

static rs_status read_count(double *out, const rs_node *root, const char *key, const char *path,
                            rs_error *err) {
  uint64_t v;
  const rs_node *n = rs_node_get(root, key);
  rs_status st;
  if (n == NULL)
    return RS_OK;
  st = rs_node_uint(n, path, key, 4096, &v, err);
  if (st == RS_OK && v == 0)
    st = rs_error_set(err, RS_INVALID, path, n->line, n->col, "%s: expected an integer >= 1", key);
  if (st == RS_OK)
    *out = (double)v;
  return st;
}

static rs_status read_settings(rs_series_map *out, const rs_node *root, const char *path,
                               rs_error *err) {
  const rs_node *n;
  rs_status st = read_count(&out->gpus, root, "gpus", path, err);
  if (st == RS_OK)
    st = read_count(&out->cpus, root, "cpus", path, err);
  if (st == RS_OK && (n = rs_node_get(root, "gpu_mem_total")) != NULL)
    st = rs_node_units(n, path, "gpu_mem_total", RS_UNIT_BYTES, NULL, &out->gpu_mem_total, err);
  if (st == RS_OK && (n = rs_node_get(root, "period")) != NULL) {
    st = rs_node_units(n, path, "period", RS_UNIT_SECONDS, "s", &out->period_s, err);
    if (st == RS_OK && out->period_s < 1)
      st = rs_error_set(err, RS_INVALID, path, n->line, n->col,
                        "period: expected a duration of at least 1s");
  }
  return st;
}

rs_status rs_series_map_load(rs_series_map *out, rs_arena *arena, const char *path, rs_error *err) {
  rs_doc doc;
  const rs_node *series;
  rs_series_rule *rules;
  rs_status st;
  rs_series_map_init(out);
  st = rs_doc_load(&doc, arena, path, 0, err);
  if (st == RS_OK)
    st = rs_node_expect(doc.root, RS_NODE_MAP, path, "the mapping", err);
  if (st == RS_OK)
    st = rs_node_check_keys(doc.root, path, "the mapping", map_keys, err);
  if (st == RS_OK)
    st = read_settings(out, doc.root, path, err);
  if (st == RS_OK)
    st = rs_csvmap_load(out, arena, doc.root, doc.path, err);
  if (st != RS_OK || (series = rs_node_get(doc.root, "series")) == NULL)
    return st;
  st = rs_node_expect(series, RS_NODE_MAP, path, "series", err);
  if (st != RS_OK)
    return st;
  rules = rs_arena_alloc_array(arena, series->n ? series->n : 1, sizeof(*rules));
  if (rules == NULL)
    return rs_arena_error(arena, err, path, "reading the mapping");
  for (size_t i = 0; st == RS_OK && i < series->n; i++)
    st = read_rule(&rules[i], series->keys[i], series->items[i], path, err);
  out->rules = rules;
  out->nrules = series->n;
  return st;
}
