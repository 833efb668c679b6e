/* JSON exports through the positioned document layer, so every error has
 * FILE:LINE:COL: a Prometheus HTTP API query_range response (a matrix of
 * labelled series) and CloudWatch get-metric-data output (docs/sources.md). */
#include <stdio.h>
#include <string.h>

#include "ingest_internal.h"
#include "rightsize/doc.h"
#include "rightsize/num.h"

static rs_status parse_any(rs_doc *doc, rs_export *x, const char *data, size_t len, rs_error *err) {
  rs_status st = rs_doc_parse(doc, x->arena, x->path, data, len, true, err);
  if (st == RS_OK && doc->root == NULL)
    return rs_error_set(err, RS_INVALID, x->path, 1, 1, "empty file, expected a JSON object");
  return st;
}

static rs_status parse(rs_doc *doc, rs_export *x, const char *data, size_t len, rs_error *err) {
  rs_status st = parse_any(doc, x, data, len, err);
  if (st == RS_OK)
    st = rs_node_expect(doc->root, RS_NODE_MAP, x->path, "the response", err);
  return st;
}

/* "'a', 'b', 'c'": the first keys of a mapping, for messages about a
 * document of another kind. */
static const char *key_list(rs_export *x, const rs_node *map) {
  char buf[160];
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < map->n && i < 4 && used < sizeof(buf); i++)
    used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s'%.32s'", i ? ", " : "",
                             map->keys[i]->text);
  if (map->n > 4 && used < sizeof(buf))
    snprintf(buf + used, sizeof(buf) - used, ", ...");
  const char *copy = rs_arena_strdup(x->arena, buf);
  return copy ? copy : "";
}

/* A key that must be there, of a kind. */
static rs_status need(const rs_node **out, const rs_export *x, const rs_node *map, const char *key,
                      rs_node_kind kind, const char *what, rs_error *err) {
  *out = rs_node_get(map, key);
  if (*out == NULL)
    return rs_error_set(err, RS_INVALID, x->path, map->line, map->col, "missing key '%s' in %s",
                        key, what);
  return rs_node_expect(*out, kind, x->path, key, err);
}

/* ---- Prometheus query_range ---- */

static rs_status prom_error(const rs_export *x, const rs_node *root, const rs_node *status,
                            rs_error *err) {
  const rs_node *type = rs_node_get(root, "errorType"), *msg = rs_node_get(root, "error");
  return rs_error_set(err, RS_INVALID, x->path, status->line, status->col,
                      "the query failed: %s: %s",
                      type && type->kind == RS_NODE_SCALAR ? type->text : "error",
                      msg && msg->kind == RS_NODE_SCALAR ? msg->text : "(no message)");
}

static rs_status prom_point(rs_export *x, const rs_series_rule *rule, const char *key, int gpu,
                            const rs_node *pt, rs_error *err) {
  double t;
  const rs_node *ts, *v;
  if (pt->kind != RS_NODE_SEQ || pt->n != 2 || pt->items[0]->kind != RS_NODE_SCALAR ||
      pt->items[1]->kind != RS_NODE_SCALAR)
    return rs_error_set(err, RS_INVALID, x->path, pt->line, pt->col,
                        "expected a point [unix_seconds, \"value\"] in series '%s'", key);
  ts = pt->items[0];
  v = pt->items[1];
  if (rs_num_parse_double(ts->text, ts->len, &t) != RS_OK || !rs_time_in_range(t))
    return rs_error_set(err, RS_INVALID, x->path, ts->line, ts->col,
                        "expected a timestamp in unix seconds from 1970-01-01 to 9999-12-31 UTC "
                        "in series '%s', got '%.*s'",
                        key, (int)(ts->len > RS_INGEST_QUOTE_MAX ? RS_INGEST_QUOTE_MAX : ts->len),
                        ts->text);
  return rs_export_add(x, rule, key, gpu, t, v->text, v->len, v->line, v->col, err);
}

/* The key of a series' labels: rs_metric, else __name__; NULL for neither. */
static const rs_node *series_key(const rs_node *labels) {
  const rs_node *k = rs_node_get(labels, "rs_metric");
  return k ? k : rs_node_get(labels, "__name__");
}

/* Whether the series' labels hold every selected KEY=VALUE. */
static bool selected(const rs_export *x, const rs_node *labels) {
  for (size_t k = 0; x->select != NULL && k < x->select->n; k++) {
    const rs_node *v = rs_node_get(labels, x->select->m[k].key);
    if (v == NULL || v->kind != RS_NODE_SCALAR || strcmp(v->text, x->select->m[k].value) != 0)
      return false;
  }
  return true;
}

static rs_status prom_series(rs_export *x, const rs_node *series, rs_error *err) {
  const rs_node *labels, *values, *key, *gpu_label;
  rs_series_rule rule;
  bool found = false;
  int gpu = -1;
  rs_status st = rs_node_expect(series, RS_NODE_MAP, x->path, "data.result[]", err);
  if (st == RS_OK)
    st = need(&labels, x, series, "metric", RS_NODE_MAP, "a series", err);
  if (st == RS_OK)
    st = need(&values, x, series, "values", RS_NODE_SEQ, "a series (a query_range matrix)", err);
  if (st != RS_OK)
    return st;
  if (!selected(x, labels)) {
    rs_export_deselect(x);
    return RS_OK;
  }
  key = series_key(labels);
  if (key == NULL || key->kind != RS_NODE_SCALAR) {
    x->series++;
    if (x->unmapped == NULL)
      x->unmapped = "(a series without __name__ or rs_metric label)";
    return RS_OK;
  }
  if (rs_llm_is_series(x, key->text)) /* vLLM, TGI, SGLang counters and histograms */
    return rs_llm_prom_series(x, labels, values, key, err);
  st = rs_export_rule(x, key->text, &rule, &found, key->line, key->col, err);
  if (st != RS_OK || !found)
    return st;
  gpu_label = rs_node_get(labels, "gpu");
  if (gpu_label && gpu_label->kind == RS_NODE_SCALAR && rs_metric_per_device(rule.metric))
    st = rs_export_gpu(&gpu, x, gpu_label->text, gpu_label->len, gpu_label->line, gpu_label->col,
                       err);
  for (size_t i = 0; st == RS_OK && i < values->n; i++)
    st = prom_point(x, &rule, key->text, gpu, values->items[i], err);
  return st;
}

static rs_status prom_result(rs_export *x, const rs_node *result, rs_error *err) {
  rs_status st = RS_OK;
  if (result->n == 0 && !x->allow_empty)
    return rs_error_set(err, RS_INVALID, x->path, result->line, result->col,
                        "no samples: the query returned no series");
  for (size_t i = 0; st == RS_OK && i < result->n; i++) {
    const rs_node *series = result->items[i];
    if (series->kind == RS_NODE_MAP && rs_node_get(series, "value") != NULL &&
        rs_node_get(series, "values") == NULL)
      return rs_error_set(err, RS_INVALID, x->path, series->line, series->col,
                          "found an instant vector (one 'value' per series, what "
                          "/api/v1/query answers), expected a range matrix ('values'): query "
                          "/api/v1/query_range with start, end and step");
    st = prom_series(x, series, err);
  }
  return st;
}

/* What the document is when it is not a query_range response. */
static rs_status not_prom(const rs_export *x, const rs_node *root, rs_error *err) {
  return rs_error_set(err, RS_INVALID, x->path, root->line, root->col,
                      "found a JSON object with keys %s, expected a Prometheus HTTP API response "
                      "{\"status\": \"success\", \"data\": {\"resultType\": \"matrix\", ...}} "
                      "(a profile is read without --input-format)",
                      key_list((rs_export *)x, root));
}

rs_status rs_ingest_prom_json(rs_export *x, const char *data, size_t len, rs_error *err) {
  rs_doc doc;
  const rs_node *status, *d, *type, *result;
  rs_status st = parse_any(&doc, x, data, len, err);
  if (st == RS_OK && doc.root->kind == RS_NODE_SEQ)
    return prom_result(x, doc.root, err); /* a bare data.result array */
  if (st == RS_OK)
    st = rs_node_expect(doc.root, RS_NODE_MAP, x->path, "the response", err);
  if (st == RS_OK && rs_node_get(doc.root, "status") == NULL &&
      rs_node_get(doc.root, "data") == NULL)
    return not_prom(x, doc.root, err);
  if (st == RS_OK)
    st = need(&status, x, doc.root, "status", RS_NODE_SCALAR, "the response", err);
  if (st != RS_OK)
    return st;
  if (strcmp(status->text, "success") != 0)
    return prom_error(x, doc.root, status, err);
  st = need(&d, x, doc.root, "data", RS_NODE_MAP, "the response", err);
  if (st == RS_OK)
    st = need(&type, x, d, "resultType", RS_NODE_SCALAR, "data", err);
  if (st == RS_OK && strcmp(type->text, "matrix") != 0)
    return rs_error_set(err, RS_INVALID, x->path, type->line, type->col,
                        "found resultType '%s'%s, expected 'matrix' (a range query): query "
                        "/api/v1/query_range with start, end and step",
                        type->text,
                        strcmp(type->text, "vector") == 0 || strcmp(type->text, "scalar") == 0
                            ? " (an instant query, /api/v1/query)"
                            : "");
  if (st == RS_OK)
    st = need(&result, x, d, "result", RS_NODE_SEQ, "data", err);
  if (st == RS_OK)
    st = prom_result(x, result, err);
  return st;
}

/* ---- CloudWatch get-metric-data ---- */

rs_status rs_cw_status(const rs_export *x, const char *code, const char *label, size_t line,
                       size_t col, rs_error *err) {
  if (code == NULL || strcmp(code, "Complete") == 0)
    return RS_OK;
  if (strcmp(code, "PartialData") == 0)
    return rs_error_set(err, RS_INVALID, x->path, line, col,
                        "'%s' has StatusCode PartialData: CloudWatch returned only part of the "
                        "points and the rest wait behind a NextToken, expected Complete; let the "
                        "AWS CLI paginate (no --no-paginate or --max-items) and save its whole "
                        "output",
                        label);
  return rs_error_set(err, RS_INVALID, x->path, line, col,
                      "'%s' has StatusCode %s, expected Complete (repeat the request)", label,
                      code);
}

/* Only a Complete result holds every point of the range. */
static rs_status cw_status(const rs_export *x, const rs_node *res, const char *label,
                           rs_error *err) {
  const rs_node *code = rs_node_get(res, "StatusCode");
  if (code == NULL || code->kind != RS_NODE_SCALAR)
    return RS_OK;
  return rs_cw_status(x, code->text, label, code->line, code->col, err);
}

/* "p99", "latency_p95", "p50_model": the statistic an Id names, or NULL. */
static const char *stat_in(const char *id) {
  static const char *const stats[] = {"p50", "p95", "p99"};
  for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]); i++)
    if (id != NULL && strstr(id, stats[i]) != NULL)
      return stats[i];
  return NULL;
}

rs_status rs_cw_key(const char **out, rs_export *x, const char *label, const char *id, size_t line,
                    size_t col, rs_error *err) {
  const char *stat;
  *out = label;
  if (strcmp(label, "ModelLatency") != 0)
    return RS_OK;
  stat = stat_in(id);
  if (stat == NULL)
    return rs_error_set(err, RS_INVALID, x->path, line, col,
                        "'ModelLatency' (CloudWatch's default label) does not say which "
                        "statistic it holds, expected an Id or Label naming p50, p95 or p99 "
                        "(Id \"p99\" or Label \"ModelLatency p99\" for a p99 Stat)");
  *out = rs_arena_printf(x->arena, "ModelLatency %s", stat);
  return *out ? RS_OK : rs_arena_error(x->arena, err, x->path, "reading the file");
}

/* The series key of a result. CloudWatch's default Label is the metric name,
 * which for ModelLatency does not say the statistic: the query's Id may. */
static rs_status cw_key(const char **out, rs_export *x, const rs_node *res, const rs_node *label,
                        rs_error *err) {
  const rs_node *id = rs_node_get(res, "Id");
  return rs_cw_key(out, x, label->text, id && id->kind == RS_NODE_SCALAR ? id->text : NULL,
                   label->line, label->col, err);
}

static rs_status cw_result(rs_export *x, const rs_node *res, rs_error *err) {
  const rs_node *label, *ts, *vals;
  const char *key = NULL;
  rs_series_rule rule;
  bool found = false;
  rs_status st = rs_node_expect(res, RS_NODE_MAP, x->path, "MetricDataResults[]", err);
  if (st != RS_OK)
    return st;
  label = rs_node_get(res, "Label");
  if (label == NULL)
    label = rs_node_get(res, "Id");
  if (label == NULL || label->kind != RS_NODE_SCALAR)
    return rs_error_set(err, RS_INVALID, x->path, res->line, res->col,
                        "missing key 'Label' (or 'Id') in a metric data result");
  st = cw_status(x, res, label->text, err);
  if (st == RS_OK)
    st = cw_key(&key, x, res, label, err);
  if (st == RS_OK)
    st = need(&ts, x, res, "Timestamps", RS_NODE_SEQ, "a metric data result", err);
  if (st == RS_OK)
    st = need(&vals, x, res, "Values", RS_NODE_SEQ, "a metric data result", err);
  if (st == RS_OK && ts->n != vals->n)
    return rs_error_set(err, RS_INVALID, x->path, vals->line, vals->col,
                        "'%s' has %zu values for %zu timestamps, expected one value per timestamp",
                        label->text, vals->n, ts->n);
  if (st == RS_OK)
    st = rs_export_rule(x, key, &rule, &found, label->line, label->col, err);
  for (size_t i = 0; st == RS_OK && found && i < ts->n; i++) {
    const rs_node *t = ts->items[i], *v = vals->items[i];
    double when;
    if (t->kind != RS_NODE_SCALAR || rs_time_parse(t->text, t->len, &when) != RS_OK)
      return rs_error_set(err, RS_INVALID, x->path, t->line, t->col,
                          "expected an RFC 3339 timestamp from 1970-01-01 to 9999-12-31 UTC in "
                          "'%s'",
                          label->text);
    if (v->kind != RS_NODE_SCALAR || v->quoted)
      return rs_error_set(err, RS_INVALID, x->path, v->line, v->col,
                          "expected a number in the values of '%s'", label->text);
    st = rs_export_add(x, &rule, key, -1, when, v->text, v->len, v->line, v->col, err);
  }
  return st;
}

/* ---- CloudWatch get-metric-statistics ----
 *
 * One metric, its Datapoints each with the statistics asked for. The one
 * used: pNN of ExtendedStatistics for ModelLatency, Sum for Invocations,
 * else Average (Maximum when there is no Average). */

static rs_status stat_point(rs_export *x, const char *key, const char *stat_key,
                            const rs_node *stats, double when, rs_error *err) {
  rs_series_rule rule;
  bool found = false;
  const rs_node *v = rs_node_get(stats, stat_key);
  rs_status st;
  if (v == NULL || v->kind != RS_NODE_SCALAR)
    return RS_OK;
  st = rs_export_rule(x, key, &rule, &found, v->line, v->col, err);
  if (st != RS_OK || !found)
    return st;
  return rs_export_add(x, &rule, key, -1, when, v->text, v->len, v->line, v->col, err);
}

static rs_status datapoint(rs_export *x, const rs_node *label, const rs_node *dp, rs_error *err) {
  static const char *const pct[] = {"p50", "p95", "p99"};
  const rs_node *ts, *ext;
  double when;
  rs_status st = rs_node_expect(dp, RS_NODE_MAP, x->path, "Datapoints[]", err);
  if (st == RS_OK)
    st = need(&ts, x, dp, "Timestamp", RS_NODE_SCALAR, "a datapoint", err);
  if (st != RS_OK)
    return st;
  if (rs_time_parse(ts->text, ts->len, &when) != RS_OK)
    return rs_error_set(err, RS_INVALID, x->path, ts->line, ts->col,
                        "expected an RFC 3339 timestamp in '%s'", label->text);
  if (strcmp(label->text, "ModelLatency") == 0) {
    ext = rs_node_get(dp, "ExtendedStatistics");
    if (ext == NULL || ext->kind != RS_NODE_MAP)
      return rs_error_set(err, RS_INVALID, x->path, dp->line, dp->col,
                          "'ModelLatency' datapoint without ExtendedStatistics, expected "
                          "percentiles (--extended-statistics p50 p95 p99)");
    for (size_t i = 0; st == RS_OK && i < sizeof(pct) / sizeof(pct[0]); i++) {
      const char *key = rs_arena_printf(x->arena, "ModelLatency %s", pct[i]);
      st = key ? stat_point(x, key, pct[i], ext, when, err)
               : rs_arena_error(x->arena, err, x->path, "reading the file");
    }
    return st;
  }
  if (strcmp(label->text, "Invocations") == 0)
    return stat_point(x, label->text, "Sum", dp, when, err);
  return stat_point(x, label->text, rs_node_get(dp, "Average") ? "Average" : "Maximum", dp, when,
                    err);
}

static rs_status cw_statistics(rs_export *x, const rs_node *root, rs_error *err) {
  const rs_node *label, *points;
  rs_status st = need(&label, x, root, "Label", RS_NODE_SCALAR, "the response", err);
  if (st == RS_OK)
    st = need(&points, x, root, "Datapoints", RS_NODE_SEQ, "the response", err);
  if (st == RS_OK && points->n == 0)
    return rs_error_set(err, RS_INVALID, x->path, points->line, points->col,
                        "no samples: Datapoints is empty");
  for (size_t i = 0; st == RS_OK && i < points->n; i++)
    st = datapoint(x, label, points->items[i], err);
  if (st == RS_OK && x->series == 0) /* no datapoint held the statistic we read */
    x->series = 1, x->unmapped = label->text;
  return st;
}

rs_status rs_ingest_cloudwatch(rs_export *x, const char *data, size_t len, rs_error *err) {
  rs_doc doc;
  const rs_node *results, *next;
  rs_status st = parse(&doc, x, data, len, err);
  if (st == RS_OK && rs_node_get(doc.root, "Datapoints") != NULL)
    return cw_statistics(x, doc.root, err);
  next = st == RS_OK ? rs_node_get(doc.root, "NextToken") : NULL;
  if (next != NULL && next->kind == RS_NODE_SCALAR && next->len > 0 &&
      !(strcmp(next->text, "null") == 0 && !next->quoted))
    return rs_error_set(err, RS_INVALID, x->path, next->line, next->col,
                        "the output ends with a NextToken: more points wait on another page, "
                        "expected the whole answer; let the AWS CLI paginate (no --no-paginate "
                        "or --max-items) and save its whole output");
  if (st == RS_OK)
    st = need(&results, x, doc.root, "MetricDataResults", RS_NODE_SEQ, "the response", err);
  if (st == RS_OK && results->n == 0)
    return rs_error_set(err, RS_INVALID, x->path, results->line, results->col,
                        "no samples: MetricDataResults is empty");
  for (size_t i = 0; st == RS_OK && i < results->n; i++)
    st = cw_result(x, results->items[i], err);
  return st;
}
