#include "rightsize/profile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "ingest_internal.h"
#include "rightsize/doc.h"

typedef struct ctx {
  rs_arena *arena;
  const char *path; /* the profile file */
  rs_error *err;
  rs_profile *p;
} ctx;

static const char *const source_names[] = {"production", "loadtest", "chaos", "synthetic"};
static const char *const bound_names[] = {"unknown", "compute", "memory", "mixed"};

const char *rs_source_name(rs_data_source s) {
  return (unsigned)s < 4 ? source_names[s] : "unknown";
}

const char *rs_bound_name(rs_bound b) { return (unsigned)b < 4 ? bound_names[b] : "unknown"; }

static rs_status nomem(ctx *c) {
  return rs_arena_error(c->arena, c->err, c->path, "reading the profile");
}

/* One of a fixed set of words; the index goes to *out, which is count (no
 * word) on failure, so that *out is defined on every path (gcc -O3 cannot
 * tell that rs_error_set never returns RS_OK). */
static rs_status one_of(ctx *c, const rs_node *n, const char *what, const char *const *names,
                        size_t count, unsigned *out) {
  const char *s;
  char list[256] = "";
  size_t used = 0;
  rs_status st;
  *out = (unsigned)count;
  st = rs_node_string(n, c->path, what, &s, c->err);
  if (st != RS_OK)
    return st;
  for (size_t i = 0; i < count; i++) {
    if (strcmp(names[i], s) == 0) {
      *out = (unsigned)i;
      return RS_OK;
    }
    used += (size_t)snprintf(list + used, used < sizeof(list) ? sizeof(list) - used : 0, "%s%s",
                             i ? ", " : "", names[i]);
    if (used >= sizeof(list))
      used = sizeof(list) - 1;
  }
  return rs_error_set(c->err, RS_INVALID, c->path, n->line, n->col,
                      "%s: unknown value '%s', expected one of: %s", what, s, list);
}

static rs_status require(ctx *c, const rs_node *map, const char *key, const char *what,
                         const rs_node **out) {
  *out = rs_node_get(map, key);
  if (*out == NULL)
    return rs_error_set(c->err, RS_INVALID, c->path, map->line, map->col,
                        "missing required key '%s' in %s", key, what);
  return RS_OK;
}

static rs_status positive(ctx *c, const rs_node *n, const char *what, double v, bool allow_zero) {
  if (!(v > 0) && !(allow_zero && v == 0))
    return rs_error_set(c->err, RS_INVALID, c->path, n->line, n->col,
                        "%s: expected a value > 0, got '%s'", what, n->text);
  return RS_OK;
}

static rs_status opt_size(ctx *c, const rs_node *map, const char *key, const char *what,
                          double *out) {
  const rs_node *n = rs_node_get(map, key);
  *out = NAN;
  if (n == NULL)
    return RS_OK;
  return rs_node_units(n, c->path, what, RS_UNIT_BYTES, NULL, out, c->err);
}

static rs_status opt_duration_ms(ctx *c, const rs_node *map, const char *key, const char *what,
                                 double *out) {
  const rs_node *n = rs_node_get(map, key);
  double s;
  rs_status st;
  *out = NAN;
  if (n == NULL)
    return RS_OK;
  st = rs_node_units(n, c->path, what, RS_UNIT_SECONDS, "ms", &s, c->err);
  if (st == RS_OK)
    st = positive(c, n, what, s, false);
  if (st == RS_OK)
    *out = s * 1000.0;
  return st;
}

static rs_status opt_uint(ctx *c, const rs_node *map, const char *key, const char *what,
                          uint64_t min, uint64_t dflt, uint64_t *out) {
  const rs_node *n = rs_node_get(map, key);
  rs_status st;
  *out = dflt;
  if (n == NULL)
    return RS_OK;
  st = rs_node_uint(n, c->path, what, UINT32_MAX, out, c->err);
  if (st == RS_OK && *out < min)
    st = rs_error_set(c->err, RS_INVALID, c->path, n->line, n->col,
                      "%s: expected an integer >= %llu, got '%s'", what, (unsigned long long)min,
                      n->text);
  return st;
}

static rs_status opt_bool(ctx *c, const rs_node *map, const char *key, const char *what,
                          bool *out) {
  const rs_node *n = rs_node_get(map, key);
  *out = false;
  return n ? rs_node_bool(n, c->path, what, out, c->err) : RS_OK;
}

static rs_status opt_string(ctx *c, const rs_node *map, const char *key, const char *what,
                            const char **out) {
  const rs_node *n = rs_node_get(map, key);
  *out = NULL;
  return n ? rs_node_string(n, c->path, what, out, c->err) : RS_OK;
}

static const char *const model_keys[] = {"framework",
                                         "families",
                                         "weights",
                                         "max_batch",
                                         "activation_per_sample",
                                         "bound",
                                         "shardable",
                                         "preallocates",
                                         "prealloc_fraction",
                                         "kv_cache",
                                         "workload",
                                         "precision",
                                         "name",
                                         "params",
                                         "kv_precision",
                                         NULL};
static const char *const kv_keys[] = {"layers",          "kv_heads",   "head_dim",
                                      "bytes_per_value", "max_tokens", NULL};

static rs_status read_families(ctx *c, const rs_node *n) {
  rs_status st = rs_node_expect(n, RS_NODE_SEQ, c->path, "model.families", c->err);
  if (st != RS_OK)
    return st;
  if (n->n == 0)
    return rs_error_set(c->err, RS_INVALID, c->path, n->line, n->col,
                        "model.families: expected at least one of nvidia-gpu, cpu, inferentia, "
                        "trainium, tpu");
  for (size_t i = 0; i < n->n; i++) {
    const char *s;
    unsigned bit;
    st = rs_node_string(n->items[i], c->path, "model.families", &s, c->err);
    if (st != RS_OK)
      return st;
    bit = rs_family_from_name(s);
    if (bit == 0)
      return rs_error_set(c->err, RS_INVALID, c->path, n->items[i]->line, n->items[i]->col,
                          "model.families: unknown family '%s', expected nvidia-gpu, cpu, "
                          "inferentia, trainium or tpu",
                          s);
    c->p->model.families |= bit;
  }
  return RS_OK;
}

static rs_status read_kv(ctx *c, const rs_node *n) {
  rs_kv_cache *kv = &c->p->model.kv;
  const rs_node *v;
  rs_status st = rs_node_expect(n, RS_NODE_MAP, c->path, "model.kv_cache", c->err);
  if (st == RS_OK)
    st = rs_node_check_keys(n, c->path, "model.kv_cache", kv_keys, c->err);
  uint64_t *ints[] = {&kv->layers, &kv->kv_heads, &kv->head_dim, NULL, &kv->max_tokens};
  for (int i = 0; st == RS_OK && kv_keys[i]; i++) {
    char what[64];
    snprintf(what, sizeof(what), "model.kv_cache.%s", kv_keys[i]);
    st = require(c, n, kv_keys[i], "model.kv_cache", &v);
    if (st == RS_OK && ints[i])
      st = rs_node_uint(v, c->path, what, UINT32_MAX, ints[i], c->err);
    else if (st == RS_OK)
      st = rs_node_double(v, c->path, what, &kv->bytes_per_value, c->err);
    if (st == RS_OK && ints[i] && *ints[i] == 0)
      st = positive(c, v, what, 0, false);
    if (st == RS_OK && !ints[i])
      st = positive(c, v, what, kv->bytes_per_value, false);
  }
  kv->set = st == RS_OK;
  return st;
}

/* model.workload and model.precision (docs/profile-format.md). */
static rs_status read_projection_keys(ctx *c, const rs_node *m) {
  static const char *const workloads[] = {
#define RS_WORKLOAD_KEY(name, key) key,
      RS_WORKLOAD_MAP(RS_WORKLOAD_KEY)
#undef RS_WORKLOAD_KEY
  };
  static const char *const precisions[] = {
#define RS_PRECISION_KEY(name, key, bytes) key,
      RS_PRECISION_MAP(RS_PRECISION_KEY)
#undef RS_PRECISION_KEY
  };
  const rs_node *n;
  unsigned idx;
  rs_status st = RS_OK;
  if ((n = rs_node_get(m, "workload")) != NULL &&
      (st = one_of(c, n, "model.workload", workloads, RS_WORKLOAD_COUNT, &idx)) == RS_OK) {
    c->p->model.workload = (rs_workload)idx;
    c->p->model.workload_set = true;
  }
  if (st == RS_OK && (n = rs_node_get(m, "precision")) != NULL &&
      (st = one_of(c, n, "model.precision", precisions, RS_PRECISION_COUNT, &idx)) == RS_OK) {
    c->p->model.precision = (rs_precision)idx;
    c->p->model.precision_set = true;
  }
  return st;
}

/* model.name, model.params, model.kv_precision (LLM serving). The name is
 * looked up in the model facts when fitting, which knows the table. */
static rs_status read_llm_keys(ctx *c, const rs_node *m) {
  static const char *const kv_precisions[] = {"fp16", "bf16", "fp8", "int8"};
  const rs_node *n;
  unsigned idx;
  rs_status st = opt_string(c, m, "name", "model.name", &c->p->model.name);
  if (st == RS_OK && (n = rs_node_get(m, "name")) != NULL) {
    c->p->model.name_line = n->line;
    c->p->model.name_col = n->col;
  }
  if (st == RS_OK && (n = rs_node_get(m, "params")) != NULL) {
    st =
        rs_node_units(n, c->path, "model.params", RS_UNIT_COUNT, NULL, &c->p->model.params, c->err);
    if (st == RS_OK)
      st = positive(c, n, "model.params", c->p->model.params, false);
  }
  if (st == RS_OK && (n = rs_node_get(m, "kv_precision")) != NULL &&
      (st = one_of(c, n, "model.kv_precision", kv_precisions, 4, &idx)) == RS_OK)
    c->p->model.kv_bytes_per_value = idx < 2 ? 2.0 : 1.0;
  return st;
}

static rs_status read_model(ctx *c, const rs_node *m) {
  rs_profile *p = c->p;
  const rs_node *n;
  unsigned idx;
  rs_status st = rs_node_expect(m, RS_NODE_MAP, c->path, "model", c->err);
  if (st == RS_OK)
    st = rs_node_check_keys(m, c->path, "model", model_keys, c->err);
  if (st == RS_OK)
    st = opt_string(c, m, "framework", "model.framework", &p->model.framework);
  if (st == RS_OK)
    st = require(c, m, "families", "model", &n);
  if (st == RS_OK)
    st = read_families(c, n);
  if (st == RS_OK)
    st = opt_size(c, m, "weights", "model.weights", &p->model.weights_bytes);
  if (st == RS_OK)
    st = opt_uint(c, m, "max_batch", "model.max_batch", 1, 1, &p->model.max_batch);
  if (st == RS_OK)
    st = opt_size(c, m, "activation_per_sample", "model.activation_per_sample",
                  &p->model.activation_bytes_per_sample);
  if (st == RS_OK && (n = rs_node_get(m, "bound")) != NULL &&
      (st = one_of(c, n, "model.bound", bound_names + 1, 3, &idx)) == RS_OK)
    p->model.bound = (rs_bound)(idx + 1);
  if (st == RS_OK)
    st = read_projection_keys(c, m);
  if (st == RS_OK)
    st = opt_bool(c, m, "shardable", "model.shardable", &p->model.shardable);
  if (st == RS_OK)
    st = opt_bool(c, m, "preallocates", "model.preallocates", &p->model.preallocates);
  p->model.prealloc_fraction = 0.9;
  if (st == RS_OK && (n = rs_node_get(m, "prealloc_fraction")) != NULL) {
    st = rs_node_double(n, c->path, "model.prealloc_fraction", &p->model.prealloc_fraction, c->err);
    if (st == RS_OK && !(p->model.prealloc_fraction > 0 && p->model.prealloc_fraction <= 1))
      st =
          rs_error_set(c->err, RS_INVALID, c->path, n->line, n->col,
                       "model.prealloc_fraction: expected a fraction in (0, 1], got '%s'", n->text);
  }
  if (st == RS_OK && (n = rs_node_get(m, "kv_cache")) != NULL)
    st = read_kv(c, n);
  if (st == RS_OK)
    st = read_llm_keys(c, m);
  return st;
}

static const char *const current_keys[] = {"provider", "instance", "replicas", "region", NULL};

static rs_status read_current(ctx *c, const rs_node *m) {
  const rs_node *n;
  unsigned idx;
  rs_status st = rs_node_expect(m, RS_NODE_MAP, c->path, "current", c->err);
  if (st == RS_OK)
    st = rs_node_check_keys(m, c->path, "current", current_keys, c->err);
  if (st == RS_OK)
    st = require(c, m, "provider", "current", &n);
  if (st == RS_OK &&
      (st = one_of(c, n, "current.provider", rs_provider_names, RS_PROVIDER_COUNT, &idx)) == RS_OK)
    c->p->current.provider = rs_provider_names[idx];
  if (st == RS_OK)
    st = require(c, m, "instance", "current", &n);
  if (st == RS_OK) {
    st = rs_node_string(n, c->path, "current.instance", &c->p->current.instance, c->err);
    c->p->current.line = n->line;
    c->p->current.col = n->col;
  }
  if (st == RS_OK)
    st = opt_uint(c, m, "replicas", "current.replicas", 1, 1, &c->p->current.replicas);
  if (st == RS_OK)
    st = opt_string(c, m, "region", "current.region", &c->p->current.region);
  return st;
}

static const char *const slo_keys[] = {"latency_p99", "latency_p95", "ttft_p95", "ttft_p99",
                                       "tpot_p95",    "tpot_p99",    NULL};
static const char *const traffic_keys[] = {"peak_rps", "growth", "rate_scope", "cold_start", NULL};
static const char *const scope_names[] = {"replica", "endpoint"};

static rs_status read_slo(ctx *c, const rs_node *m) {
  rs_status st = rs_node_expect(m, RS_NODE_MAP, c->path, "slo", c->err);
  if (st == RS_OK)
    st = rs_node_check_keys(m, c->path, "slo", slo_keys, c->err);
  if (st == RS_OK)
    st = opt_duration_ms(c, m, "latency_p99", "slo.latency_p99", &c->p->slo.latency_p99_ms);
  if (st == RS_OK)
    st = opt_duration_ms(c, m, "latency_p95", "slo.latency_p95", &c->p->slo.latency_p95_ms);
  double *llm[] = {&c->p->slo.ttft_p95_ms, &c->p->slo.ttft_p99_ms, &c->p->slo.tpot_p95_ms,
                   &c->p->slo.tpot_p99_ms};
  for (int i = 0; i < 4 && st == RS_OK; i++) {
    char what[32];
    snprintf(what, sizeof(what), "slo.%s", slo_keys[2 + i]);
    st = opt_duration_ms(c, m, slo_keys[2 + i], what, llm[i]);
  }
  if (st == RS_OK && isnan(c->p->slo.latency_p99_ms) && isnan(c->p->slo.latency_p95_ms))
    st = rs_error_set(c->err, RS_INVALID, c->path, m->line, m->col,
                      "slo: expected latency_p99 or latency_p95 (for example latency_p99: 50ms)");
  return st;
}

static rs_status opt_positive(ctx *c, const rs_node *map, const char *key, const char *what,
                              double dflt, double *out) {
  const rs_node *n = rs_node_get(map, key);
  rs_status st;
  *out = dflt;
  if (n == NULL)
    return RS_OK;
  st = rs_node_double(n, c->path, what, out, c->err);
  return st == RS_OK ? positive(c, n, what, *out, false) : st;
}

static rs_status read_traffic(ctx *c, const rs_node *m) {
  rs_status st = rs_node_expect(m, RS_NODE_MAP, c->path, "traffic", c->err);
  if (st == RS_OK)
    st = rs_node_check_keys(m, c->path, "traffic", traffic_keys, c->err);
  if (st == RS_OK)
    st = opt_positive(c, m, "peak_rps", "traffic.peak_rps", NAN, &c->p->traffic.peak_rps);
  if (st == RS_OK)
    st = opt_positive(c, m, "growth", "traffic.growth", 1.0, &c->p->traffic.growth);
  const rs_node *n = rs_node_get(m, "rate_scope");
  unsigned idx = 0;
  if (st == RS_OK && n != NULL &&
      (st = one_of(c, n, "traffic.rate_scope", scope_names, 2, &idx)) == RS_OK)
    c->p->traffic.rate_per_endpoint = idx == 1;
  double ms = NAN; /* the autoscaling plan's lead time (docs/model.md) */
  if (st == RS_OK && (st = opt_duration_ms(c, m, "cold_start", "traffic.cold_start", &ms)) == RS_OK)
    c->p->traffic.cold_start_s = ms / 1000.0;
  return st;
}

static const char *const file_keys[] = {"path", "format", "mapping", "interval", NULL};
static const char *const rows_keys[] = {"rows", NULL};

/* given, relative to the profile's directory unless absolute (arena). */
static char *beside_profile(ctx *c, const char *given) {
  const char *slash = strrchr(c->path, '/');
  size_t dir = slash ? (size_t)(slash - c->path) + 1 : 0;
  size_t len = strlen(given);
  char *full;
  if (given[0] == '/')
    dir = 0;
  full = rs_arena_alloc(c->arena, dir + len + 1);
  if (full != NULL) {
    memcpy(full, c->path, dir);
    memcpy(full + dir, given, len + 1);
  }
  return full;
}

static rs_status resolve(ctx *c, const rs_node *n, rs_sample_file *f) {
  struct stat sb;
  char *full = beside_profile(c, f->given);
  if (full == NULL)
    return nomem(c);
  f->path = full;
  f->line = n->line;
  f->col = n->col;
  if (stat(full, &sb) != 0) /* one stat: its errno tells a loop from a missing file */
    return errno == ELOOP
               ? rs_error_set(c->err, RS_IO, c->path, n->line, n->col,
                              "sample file '%s' is a symbolic link loop (looked at %s)", f->given,
                              full)
               : rs_error_set(c->err, RS_IO, c->path, n->line, n->col,
                              "sample file '%s' not found (looked at %s)", f->given, full);
  if (S_ISDIR(sb.st_mode))
    return rs_error_set(c->err, RS_IO, c->path, n->line, n->col,
                        "sample file '%s' (%s) is a directory, expected a file", f->given, full);
  if (!S_ISREG(sb.st_mode))
    return rs_error_set(c->err, RS_IO, c->path, n->line, n->col,
                        "sample file '%s' (%s) is not a regular file", f->given, full);
  return RS_OK;
}

/* samples[].interval: a request log's rate interval (0 when not given). */
static rs_status read_interval(ctx *c, const rs_node *item, rs_sample_file *f) {
  const rs_node *n = rs_node_get(item, "interval");
  rs_status st;
  f->interval_s = 0.0;
  if (n == NULL)
    return RS_OK;
  st =
      rs_node_units(n, c->path, "samples[].interval", RS_UNIT_SECONDS, "s", &f->interval_s, c->err);
  if (st == RS_OK && f->interval_s < 1)
    st = rs_error_set(c->err, RS_INVALID, c->path, n->line, n->col,
                      "samples[].interval: expected a duration of at least 1s");
  return st;
}

static rs_status read_file_entry(ctx *c, const rs_node *item, rs_sample_file *f) {
  const rs_node *n = item;
  rs_status st = RS_OK;
  f->format = RS_FORMAT_AUTO;
  f->mapping = NULL;
  f->interval_s = 0.0;
  if (item->kind == RS_NODE_MAP) {
    st = rs_node_check_keys(item, c->path, "samples[]", file_keys, c->err);
    if (st == RS_OK)
      st = read_interval(c, item, f);
    if (st == RS_OK)
      st = require(c, item, "path", "samples[]", &n);
    const rs_node *fmt = rs_node_get(item, "format");
    if (st == RS_OK && fmt) {
      const char *s;
      st = rs_node_string(fmt, c->path, "samples[].format", &s, c->err);
      if (st == RS_OK && rs_format_from_name(&f->format, s) != RS_OK)
        st = rs_error_set(c->err, RS_INVALID, c->path, fmt->line, fmt->col,
                          "samples[].format: unknown format '%s', expected " RS_FORMAT_NAMES, s);
    }
    const rs_node *map = rs_node_get(item, "mapping");
    const char *given = NULL;
    if (st == RS_OK && map &&
        (st = rs_node_string(map, c->path, "samples[].mapping", &given, c->err)) == RS_OK &&
        (f->mapping = beside_profile(c, given)) == NULL)
      return nomem(c);
  }
  if (st == RS_OK)
    st = rs_node_string(n, c->path, "samples[].path", &f->given, c->err);
  return st == RS_OK ? resolve(c, n, f) : st;
}

static rs_status unknown_column(ctx *c, const rs_node *k) {
  char near[64];
  if (rs_ingest_native_suggest(near, sizeof(near), k->text, k->len))
    return rs_error_set(c->err, RS_INVALID, c->path, k->line, k->col,
                        "unknown column '%s' in an inline row, expected a native column name "
                        "(see docs/samples-format.md); did you mean '%s'?",
                        k->text, near);
  return rs_error_set(c->err, RS_INVALID, c->path, k->line, k->col,
                      "unknown column '%s' in an inline row, expected a native column name "
                      "(see docs/samples-format.md)",
                      k->text);
}

static rs_status read_row(ctx *c, const rs_node *row, rs_sample *s) {
  rs_status st = rs_node_expect(row, RS_NODE_MAP, c->path, "samples[].rows[]", c->err);
  memset(s, 0, sizeof(*s));
  s->gpu = -1;
  s->t = NAN;
  s->path = c->path;
  s->line = row->line;
  for (size_t i = 0; st == RS_OK && i < row->n; i++) {
    const rs_node *k = row->keys[i], *v = row->items[i];
    rs_column col;
    if (rs_column_from_name(&col, k->text, k->len) != RS_OK)
      return unknown_column(c, k);
    st = rs_node_expect(v, RS_NODE_SCALAR, c->path, k->text, c->err);
    if (st == RS_OK)
      st = rs_sample_set_cell(s, &col, v->text, v->len, c->path, v->line, v->col, c->err);
    if (col.kind == RS_COL_TIMESTAMP)
      s->t_col = v->col;
  }
  if (st == RS_OK && isnan(s->t))
    st = rs_error_set(c->err, RS_INVALID, c->path, row->line, row->col,
                      "inline row has no timestamp, expected a 'timestamp' key");
  return st;
}

static rs_status read_rows(ctx *c, const rs_node *entry) {
  const rs_node *rows;
  rs_profile *p = c->p;
  rs_status st = rs_node_check_keys(entry, c->path, "samples[]", rows_keys, c->err);
  if (st == RS_OK)
    st = require(c, entry, "rows", "samples[]", &rows);
  if (st == RS_OK)
    st = rs_node_expect(rows, RS_NODE_SEQ, c->path, "samples[].rows", c->err);
  if (st != RS_OK)
    return st;
  rs_sample *grown = rs_arena_alloc_array(c->arena, p->nrows + rows->n + 1, sizeof(*grown));
  if (grown == NULL)
    return nomem(c);
  if (p->nrows)
    memcpy(grown, p->rows, p->nrows * sizeof(*grown));
  p->rows = grown;
  for (size_t i = 0; st == RS_OK && i < rows->n; i++)
    st = read_row(c, rows->items[i], &p->rows[p->nrows++]);
  return st;
}

static rs_status read_samples(ctx *c, const rs_node *list) {
  rs_profile *p = c->p;
  rs_status st = rs_node_expect(list, RS_NODE_SEQ, c->path, "samples", c->err);
  if (st == RS_OK && list->n == 0)
    st = rs_error_set(c->err, RS_INVALID, c->path, list->line, list->col,
                      "samples: expected at least one sample file or inline rows");
  if (st != RS_OK)
    return st;
  p->files = rs_arena_alloc_array(c->arena, list->n, sizeof(*p->files));
  if (p->files == NULL)
    return nomem(c);
  for (size_t i = 0; st == RS_OK && i < list->n; i++) {
    const rs_node *item = list->items[i];
    if (item->kind == RS_NODE_MAP && rs_node_get(item, "rows"))
      st = read_rows(c, item);
    else
      st = read_file_entry(c, item, &p->files[p->nfiles++]);
  }
  return st;
}

static const char *const bench_keys[] = {"instance",    "batch",       "throughput_rps",
                                         "latency_p99", "latency_p50", NULL};

static rs_status read_benchmark(ctx *c, const rs_node *m, rs_benchmark *b) {
  const rs_node *n;
  rs_status st = rs_node_expect(m, RS_NODE_MAP, c->path, "benchmarks[]", c->err);
  b->line = m->line;
  b->col = m->col;
  if (st == RS_OK)
    st = rs_node_check_keys(m, c->path, "benchmarks[]", bench_keys, c->err);
  if (st == RS_OK)
    st = require(c, m, "instance", "benchmarks[]", &n);
  if (st == RS_OK)
    st = rs_node_string(n, c->path, "benchmarks[].instance", &b->instance, c->err);
  if (st == RS_OK)
    st = opt_uint(c, m, "batch", "benchmarks[].batch", 1, 1, &b->batch);
  if (st == RS_OK)
    st = require(c, m, "throughput_rps", "benchmarks[]", &n);
  if (st == RS_OK)
    st = rs_node_double(n, c->path, "benchmarks[].throughput_rps", &b->throughput_rps, c->err);
  if (st == RS_OK)
    st = positive(c, n, "benchmarks[].throughput_rps", b->throughput_rps, false);
  if (st == RS_OK)
    st = opt_duration_ms(c, m, "latency_p99", "benchmarks[].latency_p99", &b->latency_p99_ms);
  if (st == RS_OK)
    st = opt_duration_ms(c, m, "latency_p50", "benchmarks[].latency_p50", &b->latency_p50_ms);
  return st;
}

static rs_status read_benchmarks(ctx *c, const rs_node *list) {
  rs_status st = rs_node_expect(list, RS_NODE_SEQ, c->path, "benchmarks", c->err);
  if (st != RS_OK)
    return st;
  c->p->benchmarks = rs_arena_alloc_array(c->arena, list->n + 1, sizeof(*c->p->benchmarks));
  if (c->p->benchmarks == NULL)
    return nomem(c);
  for (size_t i = 0; st == RS_OK && i < list->n; i++)
    st = read_benchmark(c, list->items[i], &c->p->benchmarks[c->p->nbenchmarks++]);
  return st;
}

static rs_status read_schema(ctx *c, const rs_node *n) {
  rs_profile *p = c->p;
  const char *dot;
  int64_t major, minor = 0;
  if (n->kind != RS_NODE_SCALAR)
    return rs_node_expect(n, RS_NODE_SCALAR, c->path, "schema", c->err);
  dot = strchr(n->text, '.');
  if (rs_num_parse_int64(n->text, dot ? (size_t)(dot - n->text) : n->len, &major) != RS_OK ||
      (dot && rs_num_parse_int64(dot + 1, strlen(dot + 1), &minor) != RS_OK) || major < 0 ||
      minor < 0)
    return rs_error_set(c->err, RS_INVALID, c->path, n->line, n->col,
                        "schema: expected a version such as 1 or \"1.0\", got '%s'", n->text);
  if (major != RS_PROFILE_SCHEMA_MAJOR)
    return rs_error_set(c->err, RS_INVALID, c->path, n->line, n->col,
                        "unsupported schema %lld, expected %d", (long long)major,
                        RS_PROFILE_SCHEMA_MAJOR);
  p->schema_major = (unsigned)major;
  p->schema_minor = (unsigned)minor;
  return RS_OK;
}

static const char *const top_keys[] = {"schema",  "endpoint",   "description", "source",
                                       "model",   "current",    "slo",         "traffic",
                                       "samples", "benchmarks", NULL};

/* Reads a required section with its reader. */
static rs_status section(ctx *c, const rs_node *root, const char *key,
                         rs_status (*reader)(ctx *, const rs_node *), bool required) {
  const rs_node *n = rs_node_get(root, key);
  if (n == NULL)
    return required ? require(c, root, key, "the profile", &n) : RS_OK;
  return reader(c, n);
}

static rs_status read_top(ctx *c, const rs_node *root) {
  const rs_node *n;
  unsigned idx;
  rs_status st = rs_node_expect(root, RS_NODE_MAP, c->path, "the profile", c->err);
  if (st == RS_OK)
    st = rs_node_check_keys(root, c->path, "the profile", top_keys, c->err);
  if (st == RS_OK)
    st = section(c, root, "schema", read_schema, true);
  if (st == RS_OK)
    st = require(c, root, "endpoint", "the profile", &n);
  if (st == RS_OK)
    st = rs_node_string(n, c->path, "endpoint", &c->p->endpoint, c->err);
  if (st == RS_OK)
    st = opt_string(c, root, "description", "description", &c->p->description);
  if (st == RS_OK && (n = rs_node_get(root, "source")) != NULL &&
      (st = one_of(c, n, "source", source_names, 4, &idx)) == RS_OK)
    c->p->source = (rs_data_source)idx;
  if (st == RS_OK)
    st = section(c, root, "model", read_model, true);
  if (st == RS_OK)
    st = section(c, root, "current", read_current, true);
  if (st == RS_OK)
    st = section(c, root, "slo", read_slo, true);
  if (st == RS_OK)
    st = section(c, root, "traffic", read_traffic, false);
  if (st == RS_OK)
    st = section(c, root, "samples", read_samples, true);
  if (st == RS_OK)
    st = section(c, root, "benchmarks", read_benchmarks, false);
  return st;
}

/* A profile with every default set, in c->p. */
static rs_status fresh(ctx *c, rs_arena *arena, const char *path, rs_error *err) {
  c->arena = arena;
  c->path = path;
  c->err = err;
  c->p = rs_arena_alloc(arena, sizeof(*c->p));
  if (c->p == NULL)
    return nomem(c);
  c->p->path = path;
  c->p->traffic.peak_rps = NAN;
  c->p->traffic.growth = 1.0;
  c->p->slo.latency_p99_ms = c->p->slo.latency_p95_ms = NAN;
  c->p->model.weights_bytes = c->p->model.activation_bytes_per_sample = NAN;
  c->p->model.max_batch = 1;
  c->p->current.replicas = 1;
  c->p->schema_major = RS_PROFILE_SCHEMA_MAJOR;
  return RS_OK;
}

static const char *const template_keys[] = {"description", "source",  "model",      "current",
                                            "slo",         "traffic", "benchmarks", NULL};

rs_status rs_profile_template(rs_profile **out, rs_arena *arena, const char *path,
                              const rs_node *node, rs_error *err) {
  ctx c;
  const rs_node *n;
  unsigned idx;
  *out = NULL;
  rs_status st = fresh(&c, arena, path, err);
  if (st == RS_OK)
    st = rs_node_expect(node, RS_NODE_MAP, path, "profile", err);
  if (st == RS_OK)
    st = rs_node_check_keys(node, path, "profile", template_keys, err);
  if (st == RS_OK)
    st = opt_string(&c, node, "description", "profile.description", &c.p->description);
  if (st == RS_OK && (n = rs_node_get(node, "source")) != NULL &&
      (st = one_of(&c, n, "source", source_names, 4, &idx)) == RS_OK)
    c.p->source = (rs_data_source)idx;
  if (st == RS_OK)
    st = section(&c, node, "model", read_model, true);
  if (st == RS_OK)
    st = section(&c, node, "current", read_current, true);
  if (st == RS_OK)
    st = section(&c, node, "slo", read_slo, true);
  if (st == RS_OK)
    st = section(&c, node, "traffic", read_traffic, false);
  if (st == RS_OK)
    st = section(&c, node, "benchmarks", read_benchmarks, false);
  if (st == RS_OK)
    *out = c.p;
  return st;
}

rs_status rs_profile_load(rs_profile **out, rs_arena *arena, const char *path, rs_error *err) {
  rs_doc doc;
  ctx c;
  rs_status st;
  *out = NULL;
  st = rs_doc_load(&doc, arena, path, 0, err);
  if (st != RS_OK)
    return st;
  if ((st = fresh(&c, arena, doc.path, err)) != RS_OK)
    return st;
  c.p->traffic.peak_rps = NAN;
  c.p->traffic.growth = 1.0;
  c.p->traffic.cold_start_s = NAN;
  c.p->slo.latency_p99_ms = c.p->slo.latency_p95_ms = NAN;
  c.p->slo.ttft_p95_ms = c.p->slo.ttft_p99_ms = c.p->slo.tpot_p95_ms = c.p->slo.tpot_p99_ms = NAN;
  c.p->model.weights_bytes = c.p->model.activation_bytes_per_sample = NAN;
  c.p->model.params = c.p->model.kv_bytes_per_value = NAN;
  c.p->model.max_batch = 1;
  c.p->current.replicas = 1;
  st = read_top(&c, doc.root);
  if (st == RS_OK)
    *out = c.p;
  return st;
}

bool rs_profile_is_path(const char *path) {
  const char *dot = strrchr(path, '.');
  if (dot == NULL)
    return false;
  if (strcmp(dot, ".json") == 0)
    return rs_ingest_detect_file(path) == RS_FORMAT_AUTO;
  return strcmp(dot, ".yaml") == 0 || strcmp(dot, ".yml") == 0;
}
