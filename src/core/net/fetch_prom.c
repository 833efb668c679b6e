/* rightsize fetch prometheus: PromQL range queries through a transport,
 * merged into rows like a query_range file (include/rightsize/fetch.h). */
#include "rightsize/fetch.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ingest_internal.h"
#include "rightsize/num.h"

/* Prometheus refuses more than 11,000 points per series in one query. */
#define MAX_STEPS_PER_QUERY 10000.0

/* ---- the queries ---- */

/* One query: the metric it yields and a PromQL template where "$S" is the
 * selector's matchers, "$X" the selector with extra matchers ("$S" plus the
 * template's own, see matchers()), "$W" the per-step window, "$R" the rate
 * window, "$Q" the request counter and "$H" the histogram. */
typedef struct query {
  rs_metric metric;
  const char *expr;
} query;

static const query queries[] = {
    {RS_METRIC_GPU_MEM_USED, "max by (gpu) (max_over_time(DCGM_FI_DEV_FB_USED{$S}[$W])) * 1048576"},
    {RS_METRIC_GPU_UTIL, "avg by (gpu) (avg_over_time(DCGM_FI_DEV_GPU_UTIL{$S}[$W]))"},
    {RS_METRIC_CPU_UTIL, "100 * (1 - avg(rate(node_cpu_seconds_total{$S$,mode=\"idle\"}[$R])))"},
    {RS_METRIC_HOST_MEM_USED,
     "max(node_memory_MemTotal_bytes{$S} - node_memory_MemAvailable_bytes{$S})"},
    {RS_METRIC_NET_RX, "sum(rate(node_network_receive_bytes_total{$S$,device!=\"lo\"}[$R]))"},
    {RS_METRIC_NET_TX, "sum(rate(node_network_transmit_bytes_total{$S$,device!=\"lo\"}[$R]))"},
    {RS_METRIC_REQUEST_RATE, "sum(rate($Q{$S}[$R]))"},
    {RS_METRIC_LATENCY_P50,
     "1000 * histogram_quantile(0.5, sum by (le) (rate($H_bucket{$S}[$R])))"},
    {RS_METRIC_LATENCY_P95,
     "1000 * histogram_quantile(0.95, sum by (le) (rate($H_bucket{$S}[$R])))"},
    {RS_METRIC_LATENCY_P99,
     "1000 * histogram_quantile(0.99, sum by (le) (rate($H_bucket{$S}[$R])))"},
};

rs_status rs_fetch_check_selector(const char *selector, rs_error *err) {
  size_t n = selector ? strlen(selector) : 0;
  bool quoted = false;
  if (n < 2 || selector[0] != '{' || selector[n - 1] != '}')
    return rs_error_set(err, RS_USAGE, NULL, 0, 0,
                        "bad --selector '%s', expected label matchers in braces such as "
                        "'{job=\"bert\"}'",
                        selector ? selector : "");
  for (size_t i = 1; i + 1 < n; i++) {
    if (selector[i] == '\\' && quoted)
      i++;
    else if (selector[i] == '"')
      quoted = !quoted;
    if (!quoted && (selector[i] == '{' || selector[i] == '}' || selector[i] == '['))
      return rs_error_set(err, RS_USAGE, NULL, 0, 0,
                          "bad --selector '%s', expected only label matchers inside one pair "
                          "of braces",
                          selector);
  }
  if (quoted)
    return rs_error_set(err, RS_USAGE, NULL, 0, 0, "bad --selector '%s', expected a closing '\"'",
                        selector);
  return RS_OK;
}

/* A Prometheus duration in milliseconds ("59999ms"). */
static void put_ms(rs_buf *b, double seconds) {
  rs_buf_printf(b, "%.0fms", seconds * 1000.0 < 1 ? 1 : seconds * 1000.0);
}

/* Expands a template. "$S$,m" is the selector's matchers then ",m" (or just
 * "m" when the selector is empty). */
static rs_status expand(rs_buf *b, const char *expr, const rs_fetch_prom_options *o) {
  size_t slen = strlen(o->selector) - 2;
  const char *inner = o->selector + 1;
  for (const char *p = expr; *p; p++) {
    if (*p != '$' || p[1] == '\0') {
      rs_buf_putc(b, *p);
      continue;
    }
    switch (*++p) {
    case 'S':
      rs_buf_append(b, inner, slen);
      if (p[1] == '$' && p[2] == ',') {
        p += 2;
        if (slen == 0)
          continue;
        rs_buf_putc(b, ',');
      }
      break;
    case 'W': put_ms(b, o->step_s - 0.001); break; /* (t - step, t]: each sample in one window */
    case 'R': put_ms(b, o->rate_window_s); break;
    case 'Q': rs_buf_puts(b, o->requests_metric); break;
    case 'H': rs_buf_puts(b, o->latency_histogram); break;
    default:
      rs_buf_putc(b, '$');
      rs_buf_putc(b, *p);
      break;
    }
  }
  return rs_buf_status(b);
}

/* label_replace tags every answer with rs_metric, which the reader maps. */
static rs_status build_url(rs_buf *url, const rs_fetch_prom_options *o, const query *q,
                           double start, double end) {
  rs_buf expr;
  size_t base = strlen(o->url);
  rs_status st;
  while (base > 0 && o->url[base - 1] == '/')
    base--;
  rs_buf_init(&expr, 0);
  rs_buf_puts(&expr, "label_replace(");
  st = expand(&expr, q->expr, o);
  rs_buf_printf(&expr, ", \"rs_metric\", \"%s\", \"\", \"\")", rs_metric_key(q->metric));
  rs_buf_reset(url);
  rs_buf_append(url, o->url, base);
  rs_buf_puts(url, "/api/v1/query_range?query=");
  if (st == RS_OK && !expr.failed)
    st = rs_http_put_query_value(url, expr.data);
  rs_buf_printf(url, "&start=%.3f&end=%.3f&step=%.3f", start, end, o->step_s);
  rs_buf_release(&expr);
  if (st == RS_OK && (expr.failed || url->failed))
    st = RS_NOMEM;
  return st;
}

/* ---- requests ---- */

static bool is_error_payload(const rs_buf *body) {
  return body->len > 0 && body->data[0] == '{' && strstr(body->data, "\"error\"") != NULL;
}

/* Overwrites every copy of the credential in a server's answer with '*'s
 * (same length: positions in the answer still hold), so an error text that
 * echoes the token never reaches a CI log. Both the whole Authorization
 * value and the secret after its scheme ("Bearer ") are looked for. */
static void redact(rs_buf *body, const char *authorization) {
  const char *secret = authorization ? strchr(authorization, ' ') : NULL;
  const char *forms[2] = {authorization, secret ? secret + 1 : NULL};
  for (size_t f = 0; f < 2; f++) {
    size_t n = forms[f] ? strlen(forms[f]) : 0;
    if (n < 4)
      continue; /* too short to be a credential; masking it would mangle the answer */
    for (size_t i = 0; i + n <= body->len; i++)
      if (memcmp(body->data + i, forms[f], n) == 0)
        memset(body->data + i, '*', n);
  }
}

/* Runs one query over [start, end] and reads the answer into x. */
static rs_status one_query(rs_export *x, const rs_fetch_prom_options *o, rs_transport *t,
                           const query *q, double start, double end, rs_fetch_result *res,
                           rs_error *err) {
  rs_buf url, body;
  rs_http_request req = o->http;
  long status = 0;
  char name[96];
  rs_status st;
  rs_buf_init(&url, 0);
  rs_buf_init(&body, req.max_bytes ? req.max_bytes : RS_HTTP_DEFAULT_MAX);
  st = build_url(&url, o, q, start, end);
  req.url = url.data;
  if (st == RS_OK)
    st = rs_http_get(t, &req, o->retry, &status, &body, err);
  snprintf(name, sizeof(name), "prometheus answer for %s", rs_metric_key(q->metric));
  x->path = rs_arena_strdup(x->arena, name);
  if (st == RS_OK && x->path == NULL)
    st = rs_arena_error(x->arena, err, NULL, "reading the answer");
  if (st == RS_OK)
    res->requests++;
  if (st == RS_OK)
    redact(&body, req.authorization);
  /* Prometheus explains 400 (bad_data) and 422 (execution) in a JSON body. */
  if (st == RS_OK && status != 200 &&
      !((status == 400 || status == 422) && is_error_payload(&body)))
    st = rs_error_set(err, RS_IO, NULL, 0, 0, "%s: HTTP status %ld%s, expected 200", o->url, status,
                      status == 401 || status == 403   ? " (check the credential)"
                      : status == 429 || status >= 500 ? " after retries"
                                                       : "");
  if (st == RS_OK) {
    size_t before = x->n;
    st = rs_ingest_prom_json(x, body.len ? body.data : "", body.len, err);
    if (st == RS_OK && x->n > before)
      res->metrics++;
  }
  rs_buf_release(&url);
  rs_buf_release(&body);
  return st;
}

/* The range checks and the number of queries, before the first one is sent. */
static rs_status check_range(const rs_fetch_prom_options *o, rs_error *err) {
  double nq = (double)(sizeof(queries) / sizeof(queries[0]));
  if (!isfinite(o->start) || !isfinite(o->end) || !(o->start < o->end) || !(o->step_s >= 1))
    return rs_error_set(err, RS_USAGE, NULL, 0, 0,
                        "bad time range, expected start before end and a step of at least 1s");
  if (o->end - o->start > RS_FETCH_MAX_SINCE_S)
    return rs_error_set(err, RS_USAGE, NULL, 0, 0, "the time range is longer than %.0f days",
                        RS_FETCH_MAX_SINCE_S / 86400);
  double chunks = floor((o->end - o->start) / (o->step_s * (MAX_STEPS_PER_QUERY + 1))) + 1;
  if (chunks * nq > RS_FETCH_MAX_REQUESTS)
    return rs_error_set(err, RS_LIMIT, NULL, 0, 0,
                        "the range needs %.0f queries, more than %d; use a coarser --step or a "
                        "shorter --since",
                        chunks * nq, RS_FETCH_MAX_REQUESTS);
  return RS_OK;
}

static rs_status run_all(rs_export *x, const rs_fetch_prom_options *o, rs_transport *t,
                         rs_fetch_result *res, rs_error *err) {
  double span = o->step_s * MAX_STEPS_PER_QUERY;
  rs_status st = RS_OK;
  for (size_t i = 0; st == RS_OK && i < sizeof(queries) / sizeof(queries[0]); i++) {
    size_t metrics = res->metrics;
    for (double s = o->start; st == RS_OK && s <= o->end; s += span + o->step_s) {
      double e = s + span < o->end ? s + span : o->end;
      st = one_query(x, o, t, &queries[i], s, e, res, err);
    }
    if (res->metrics > metrics + 1)
      res->metrics = metrics + 1; /* count a metric once, however many chunks */
  }
  return st;
}

rs_status rs_fetch_prometheus(const rs_fetch_prom_options *opts, rs_transport *t,
                              rs_sample_sink sink, void *ctx, rs_fetch_result *res, rs_error *err) {
  rs_fetch_prom_options o = *opts;
  rs_series_map map;
  rs_arena arena;
  rs_export x;
  rs_status st;
  memset(res, 0, sizeof(*res));
  if (o.requests_metric == NULL)
    o.requests_metric = "http_requests_total";
  if (o.latency_histogram == NULL)
    o.latency_histogram = "http_request_duration_seconds";
  if (o.rate_window_s <= 0)
    o.rate_window_s = o.step_s > 300 ? o.step_s : 300;
  st = rs_fetch_check_selector(o.selector, err);
  if (st == RS_OK)
    st = check_range(&o, err);
  if (st != RS_OK)
    return st;
  rs_series_map_init(&map);
  rs_arena_init(&arena, 0);
  rs_export_init(&x, &arena, "prometheus", &map);
  x.allow_empty = true;
  st = run_all(&x, &o, t, res, err);
  if (st == RS_OK && x.n == 0)
    st = rs_error_set(err, RS_INVALID, NULL, 0, 0,
                      "no samples: no query matched any series for %s at %s in the time range, "
                      "expected DCGM, node_exporter or request metrics (see docs/sources.md)",
                      o.selector, o.url);
  if (st == RS_OK) {
    x.path = o.url;
    st = rs_export_emit(&x, sink, ctx, &res->rows, err);
  }
  rs_export_release(&x);
  rs_arena_release(&arena);
  return st;
}

/* ---- native CSV out ---- */

static const char *unit_suffix(const char *unit) {
  static const struct {
    const char *unit, *suffix;
  } suffixes[] = {{"bytes", "_bytes"},
                  {"percent", "_pct"},
                  {"bytes_per_s", "_bytes_per_s"},
                  {"requests_per_s", "_rps"},
                  {"ms", "_ms"},
                  {"count", ""},
                  {"tokens", ""},
                  {"tokens_per_s", "_tps"}};
  for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
    if (strcmp(suffixes[i].unit, unit) == 0)
      return suffixes[i].suffix;
  return "";
}

/* Unix seconds with the milliseconds Prometheus keeps, in the one form the
 * native reader takes (digits, a point, digits: never %g's exponent), and
 * read back with that reader's parser before it is written. */
static rs_status put_timestamp(rs_buf *out, double t, rs_error *err) {
  char text[40];
  double back;
  int n = rs_time_in_range(t) ? snprintf(text, sizeof(text), "%.3f", t) : 0;
  while (n > 0 && text[n - 1] == '0')
    text[--n] = '\0';
  if (n > 0 && text[n - 1] == '.')
    text[--n] = '\0';
  if (n <= 0 || rs_time_parse(text, (size_t)n, &back) != RS_OK || fabs(back - t) > 0.0005)
    return rs_error_set(err, RS_INTERNAL, NULL, 0, 0,
                        "cannot write the timestamp %.17g as unix seconds the samples reader "
                        "accepts",
                        t);
  rs_buf_append(out, text, (size_t)n);
  return rs_buf_putc(out, ',');
}

rs_status rs_fetch_csv_sink(void *ctx, const rs_sample *s, rs_error *err) {
  rs_buf *out = ctx;
  rs_status st;
  if (out->len == 0) {
    rs_buf_puts(out, "timestamp,gpu_index");
    for (int m = 0; m < RS_METRIC_COUNT; m++)
      rs_buf_printf(out, ",%s%s", rs_metric_key((rs_metric)m),
                    unit_suffix(rs_metric_unit((rs_metric)m)));
    rs_buf_putc(out, '\n');
  }
  st = put_timestamp(out, s->t, err);
  if (st != RS_OK)
    return st;
  if (s->gpu >= 0)
    rs_buf_printf(out, "%d", s->gpu);
  for (int m = 0; m < RS_METRIC_COUNT; m++) {
    rs_buf_putc(out, ',');
    if (s->present & (1u << m))
      rs_buf_printf(out, "%.17g", s->v[m]);
  }
  rs_buf_putc(out, '\n');
  if (out->failed)
    return rs_error_set(err, rs_buf_status(out), NULL, 0, 0, "the samples do not fit in memory");
  return RS_OK;
}
