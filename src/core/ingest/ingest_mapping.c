/* The CSV parts of a mapping file: csv (which column is what), files (the
 * metric of each long-format file), select, and profile (kept as a node for
 * rs_profile_template). docs/samples-format.md, "Any CSV". */
#include <stdio.h>
#include <string.h>

#include "ingest_internal.h"
#include "rightsize/num.h"

static const char *const csv_keys[] = {"time",          "time_unit", "value",  "metric",
                                       "unit",          "scale",     "device", "endpoint",
                                       "metric_column", "columns",   NULL};
static const char *const rule_keys[] = {"metric", "unit", "scale", "select", NULL};

static bool metric_named(rs_metric *out, const char *key) {
  for (int m = 0; m < RS_METRIC_COUNT; m++) {
    if (strcmp(rs_metric_key((rs_metric)m), key) == 0) {
      *out = (rs_metric)m;
      return true;
    }
  }
  return false;
}

static bool is_any(const char *s, const char *const *words) {
  for (; *words != NULL; words++)
    if (strcmp(s, *words) == 0)
      return true;
  return false;
}

/* A unit by itself ("MiB"): the parser reads "1MiB". */
static bool unit_of(rs_unit_kind kind, const char *unit, double *out) {
  char buf[48];
  int n = snprintf(buf, sizeof(buf), "1%s", unit);
  return n > 1 && (size_t)n < sizeof(buf) &&
         rs_units_parse(kind, buf, (size_t)n, NULL, out) == RS_OK && *out > 0;
}

/* The factor from unit to the metric's canonical unit; false when the unit
 * does not fit the metric. expect names what would. */
static bool unit_scale(rs_metric m, const char *unit, double *out, const char **expect) {
  static const char *const per_s[] = {"per_s", "/s", "rps", "tps", NULL};
  static const char *const per_min[] = {"per_min", "/min", "rpm", "tpm", NULL};
  const char *canon = rs_metric_unit(m);
  *out = 1.0;
  if (strcmp(canon, "bytes") == 0) {
    *expect = "B, KB, MB, GB, KiB, MiB or GiB";
    return strcmp(unit, "bytes") == 0 || unit_of(RS_UNIT_BYTES, unit, out);
  }
  if (strcmp(canon, "percent") == 0) {
    *expect = "percent (0..100) or ratio (0..1)";
    *out = strcmp(unit, "ratio") == 0 ? 100.0 : 1.0;
    return strcmp(unit, "ratio") == 0 || strcmp(unit, "percent") == 0 || strcmp(unit, "%") == 0;
  }
  if (strcmp(canon, "ms") == 0) {
    *expect = "s, ms, us or ns";
    bool ok = unit_of(RS_UNIT_SECONDS, unit, out);
    *out *= 1000.0;
    return ok;
  }
  if (strcmp(canon, "bytes_per_s") == 0) {
    *expect = "B/s, KB/s, MB/s, Mbps or Gbps";
    return unit_of(RS_UNIT_BITRATE, unit, out);
  }
  if (strcmp(canon, "requests_per_s") == 0 || strcmp(canon, "tokens_per_s") == 0) {
    *expect = "per_s or per_min";
    *out = is_any(unit, per_min) ? 1.0 / 60.0 : 1.0;
    return is_any(unit, per_s) || is_any(unit, per_min);
  }
  *expect = canon;
  return strcmp(unit, canon) == 0;
}

static rs_status read_unit(double *scale, rs_metric m, const rs_node *n, const char *path,
                           const char *what, rs_error *err) {
  const char *unit, *expect = "";
  double f;
  rs_status st = rs_node_string(n, path, what, &unit, err);
  if (st == RS_OK && !unit_scale(m, unit, &f, &expect))
    return rs_error_set(err, RS_INVALID, path, n->line, n->col,
                        "%s: unknown unit '%s' for %s, expected %s", what, unit, rs_metric_key(m),
                        expect);
  if (st == RS_OK)
    *scale *= f;
  return st;
}

static rs_status read_metric(rs_metric *out, const rs_node *n, const char *path, const char *what,
                             rs_error *err) {
  const char *name;
  rs_status st = rs_node_string(n, path, what, &name, err);
  if (st == RS_OK && !metric_named(out, name))
    return rs_error_set(err, RS_INVALID, path, n->line, n->col,
                        "%s: unknown metric '%s', expected a metric key such as gpu_util, "
                        "gpu_mem_used or request_rate (see docs/samples-format.md)",
                        what, name);
  return st;
}

static rs_status read_select(rs_selection *out, const rs_node *n, const char *path,
                             const char *what, rs_error *err) {
  rs_status st = rs_node_expect(n, RS_NODE_MAP, path, what, err);
  for (size_t i = 0; st == RS_OK && i < n->n; i++) {
    const char *v;
    const rs_node *k = n->keys[i];
    st = rs_node_string(n->items[i], path, what, &v, err);
    if (st == RS_OK && (out->n == RS_SELECT_MAX || k->len == 0 || k->len >= RS_SELECT_KEY_MAX))
      return rs_error_set(err, RS_INVALID, path, k->line, k->col,
                          "%s: expected at most %d columns with names of 1 to %d bytes", what,
                          RS_SELECT_MAX, RS_SELECT_KEY_MAX - 1);
    if (st == RS_OK) {
      memcpy(out->m[out->n].key, k->text, k->len + 1);
      out->m[out->n++].value = v;
    }
  }
  return st;
}

/* NAME: ignore | METRIC | {metric, unit, scale, select}. */
static rs_status read_rule(rs_csv_rule *r, const rs_node *key, const rs_node *val, const char *path,
                           const char *what, rs_error *err) {
  const rs_node *mn = val, *n;
  rs_status st = RS_OK;
  memset(r, 0, sizeof(*r));
  r->name = key->text;
  r->scale = 1.0;
  r->line = key->line;
  r->col = key->col;
  if (val->kind == RS_NODE_SCALAR && strcmp(val->text, "ignore") == 0) {
    r->ignore = true;
    return RS_OK;
  }
  if (val->kind == RS_NODE_MAP) {
    st = rs_node_check_keys(val, path, what, rule_keys, err);
    if (st == RS_OK && (mn = rs_node_get(val, "metric")) == NULL)
      return rs_error_set(err, RS_INVALID, path, val->line, val->col, "%s.%s: missing key 'metric'",
                          what, key->text);
  }
  if (st == RS_OK)
    st = read_metric(&r->metric, mn, path, what, err);
  if (st == RS_OK && val->kind == RS_NODE_MAP && (n = rs_node_get(val, "unit")) != NULL)
    st = read_unit(&r->scale, r->metric, n, path, what, err);
  if (st == RS_OK && val->kind == RS_NODE_MAP && (n = rs_node_get(val, "scale")) != NULL) {
    double f = 0;
    st = rs_node_double(n, path, what, &f, err);
    if (st == RS_OK && !(f > 0))
      return rs_error_set(err, RS_INVALID, path, n->line, n->col, "%s.scale: expected a number > 0",
                          what);
    r->scale *= f;
  }
  if (st == RS_OK && val->kind == RS_NODE_MAP && (n = rs_node_get(val, "select")) != NULL)
    st = read_select(&r->select, n, path, what, err);
  return st;
}

static rs_status read_rules(rs_csv_rule **out, size_t *nout, rs_arena *arena, const rs_node *n,
                            const char *path, const char *what, rs_error *err) {
  rs_status st = rs_node_expect(n, RS_NODE_MAP, path, what, err);
  if (st != RS_OK)
    return st;
  *out = rs_arena_alloc_array(arena, n->n ? n->n : 1, sizeof(**out));
  if (*out == NULL)
    return rs_arena_error(arena, err, path, "reading the mapping");
  for (size_t i = 0; st == RS_OK && i < n->n; i++)
    st = read_rule(&(*out)[i], n->keys[i], n->items[i], path, what, err);
  *nout = n->n;
  return st;
}

static rs_status opt_column(const char **out, const rs_node *csv, const char *key, const char *path,
                            rs_error *err) {
  const rs_node *n = rs_node_get(csv, key);
  char what[32];
  snprintf(what, sizeof(what), "csv.%s", key);
  return n == NULL ? RS_OK : rs_node_string(n, path, what, out, err);
}

static rs_status read_time_unit(rs_csv_map *cm, const rs_node *csv, const char *path,
                                rs_error *err) {
  static const char *const names[] = {"s", "ms", "us", "ns", NULL};
  static const double scales[] = {1.0, 1e-3, 1e-6, 1e-9};
  const rs_node *n = rs_node_get(csv, "time_unit");
  const char *u;
  if (n == NULL)
    return RS_OK;
  rs_status st = rs_node_string(n, path, "csv.time_unit", &u, err);
  for (size_t i = 0; st == RS_OK && names[i] != NULL; i++) {
    if (strcmp(u, names[i]) == 0) {
      cm->time_scale = scales[i];
      return RS_OK;
    }
  }
  if (st == RS_OK)
    st = rs_error_set(err, RS_INVALID, path, n->line, n->col,
                      "csv.time_unit: unknown unit '%s', expected s, ms, us or ns (unix time)", u);
  return st;
}

/* csv.metric with csv.unit and csv.scale: one metric for a long file. */
static rs_status read_file_metric(rs_csv_map *cm, const rs_node *csv, const char *path,
                                  rs_error *err) {
  const rs_node *n = rs_node_get(csv, "metric"), *u = rs_node_get(csv, "unit");
  const rs_node *s = rs_node_get(csv, "scale");
  rs_status st = RS_OK;
  cm->scale = 1.0;
  if (n == NULL && (u != NULL || s != NULL))
    return rs_error_set(err, RS_INVALID, path, (u ? u : s)->line, (u ? u : s)->col,
                        "csv.%s: expected csv.metric beside it", u ? "unit" : "scale");
  if (n == NULL)
    return RS_OK;
  cm->has_metric = true;
  st = read_metric(&cm->metric, n, path, "csv.metric", err);
  if (st == RS_OK && u != NULL)
    st = read_unit(&cm->scale, cm->metric, u, path, "csv.unit", err);
  if (st == RS_OK && s != NULL) {
    double f = 0;
    st = rs_node_double(s, path, "csv.scale", &f, err);
    if (st == RS_OK && !(f > 0))
      st = rs_error_set(err, RS_INVALID, path, s->line, s->col, "csv.scale: expected a number > 0");
    cm->scale *= f;
  }
  return st;
}

static rs_status read_csv(rs_csv_map *cm, rs_arena *arena, const rs_node *csv, const char *path,
                          rs_error *err) {
  const rs_node *n;
  rs_status st = rs_node_expect(csv, RS_NODE_MAP, path, "csv", err);
  if (st == RS_OK)
    st = rs_node_check_keys(csv, path, "csv", csv_keys, err);
  cm->set = true;
  cm->line = csv->line;
  cm->col = csv->col;
  if (st == RS_OK && rs_node_get(csv, "time") == NULL)
    return rs_error_set(err, RS_INVALID, path, csv->line, csv->col,
                        "csv: missing key 'time' (the column holding the time)");
  if (st == RS_OK)
    st = opt_column(&cm->time, csv, "time", path, err);
  if (st == RS_OK)
    st = opt_column(&cm->value, csv, "value", path, err);
  if (st == RS_OK)
    st = opt_column(&cm->metric_column, csv, "metric_column", path, err);
  if (st == RS_OK)
    st = opt_column(&cm->device, csv, "device", path, err);
  if (st == RS_OK)
    st = opt_column(&cm->endpoint, csv, "endpoint", path, err);
  if (st == RS_OK)
    st = read_time_unit(cm, csv, path, err);
  if (st == RS_OK)
    st = read_file_metric(cm, csv, path, err);
  if (st == RS_OK && (n = rs_node_get(csv, "columns")) != NULL)
    st = read_rules(&cm->columns, &cm->ncolumns, arena, n, path, "csv.columns", err);
  if (st == RS_OK && cm->value == NULL && cm->ncolumns == 0)
    st = rs_error_set(err, RS_INVALID, path, csv->line, csv->col,
                      "csv: expected 'value' (long format: one row per time and series) or "
                      "'columns' (wide format: one column per metric)");
  if (st == RS_OK && cm->value == NULL && (cm->has_metric || cm->metric_column))
    st = rs_error_set(err, RS_INVALID, path, csv->line, csv->col,
                      "csv: 'metric' and 'metric_column' name the metric of the 'value' column, "
                      "expected 'value' beside them");
  return st;
}

rs_status rs_csvmap_load(rs_series_map *out, rs_arena *arena, const rs_node *root, const char *path,
                         rs_error *err) {
  const rs_node *n;
  rs_status st = RS_OK;
  out->csv.path = path;
  out->profile = rs_node_get(root, "profile");
  if ((n = rs_node_get(root, "csv")) != NULL)
    st = read_csv(&out->csv, arena, n, path, err);
  if (st == RS_OK && (n = rs_node_get(root, "files")) != NULL)
    st = read_rules(&out->csv.files, &out->csv.nfiles, arena, n, path, "files", err);
  if (st == RS_OK && (n = rs_node_get(root, "select")) != NULL)
    st = read_select(&out->csv.select, n, path, "select", err);
  if (st == RS_OK && !out->csv.set && (out->csv.nfiles > 0 || out->csv.select.n > 0))
    st = rs_error_set(err, RS_INVALID, path, root->line, root->col,
                      "the mapping: 'files' and 'select' apply to CSV files, expected a 'csv' "
                      "section naming the columns");
  return st;
}
