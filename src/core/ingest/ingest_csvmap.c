/* Any CSV through a mapping's csv section (docs/samples-format.md, "Any
 * CSV"): long format (one row per time and series: a value column, the
 * metric from the file's mapping entry or a column naming the series) or
 * wide (one column per metric). Rows become points (ingest_export.c merges
 * them into rows by time and device), filtered by label columns and keyed
 * by an endpoint column when there is one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest_internal.h"
#include "ingest_stream.h"
#include "rightsize/num.h"

/* ---- selections ---- */

rs_status rs_selection_add(rs_selection *s, const char *text) {
  const char *eq = strchr(text, '=');
  if (eq == NULL || eq == text || (size_t)(eq - text) >= RS_SELECT_KEY_MAX)
    return RS_USAGE;
  if (s->n == RS_SELECT_MAX)
    return RS_LIMIT;
  memcpy(s->m[s->n].key, text, (size_t)(eq - text));
  s->m[s->n].key[eq - text] = '\0';
  s->m[s->n].value = eq + 1;
  s->n++;
  return RS_OK;
}

rs_status rs_selection_merge(rs_selection *to, const rs_selection *from) {
  for (size_t i = 0; from != NULL && i < from->n; i++) {
    if (to->n == RS_SELECT_MAX)
      return RS_LIMIT;
    to->m[to->n++] = from->m[i];
  }
  return RS_OK;
}

/* ---- the header ---- */

/* Distinct series names in a metric column kept with their rule. */
#define KEYS_CACHED 512

/* A mapped column: where it is in the file (-1: absent). */
typedef struct mapped {
  const rs_csv_map *cm;
  const rs_csv_rule *file; /* the files: entry for this file, or NULL */
  rs_selection sel;        /* --select, the mapping's select and the file's */
  int sel_col[RS_SELECT_MAX];
  int time, value, metric, device, endpoint;
  int *wide; /* per header column: index into cm->columns, or -1 */
  size_t ncols;
  const char *const *names; /* header names (arena) */
  struct {
    const char *key; /* arena */
    rs_series_rule rule;
    bool found;
  } seen[KEYS_CACHED]; /* series named in the metric column so far */
  size_t nseen;
} mapped;

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

static int find_col(const mapped *m, const char *name) {
  for (size_t i = 0; name != NULL && i < m->ncols; i++)
    if (strcmp(m->names[i], name) == 0)
      return (int)i;
  return -1;
}

/* "column 'X' (mapping m.yaml csv.value) is not in the header of F". */
static rs_status missing(const mapped *m, const rs_csv_field *f, const char *name, const char *what,
                         const char *path, rs_error *err) {
  char have[160] = "";
  size_t used = 0;
  for (size_t i = 0; i < m->ncols && used + 4 < sizeof(have); i++) {
    int w = snprintf(have + used, sizeof(have) - used, "%s'%s'", i ? ", " : "", m->names[i]);
    used += w > 0 ? (size_t)w : 0;
  }
  return rs_error_set(err, RS_INVALID, path, f[0].line, f[0].col,
                      "column '%s' (%s in mapping %s) is not in the header, expected one of %s",
                      name, what, m->cm->path, have);
}

static rs_status named_col(int *out, const mapped *m, const rs_csv_field *f, const char *name,
                           const char *what, const char *path, rs_error *err) {
  *out = find_col(m, name);
  if (name != NULL && *out < 0)
    return missing(m, f, name, what, path, err);
  return RS_OK;
}

static rs_status resolve_wide(mapped *m, rs_arena *arena, const rs_csv_field *f, const char *path,
                              rs_error *err) {
  m->wide = rs_arena_alloc_array(arena, m->ncols, sizeof(*m->wide));
  if (m->wide == NULL)
    return rs_arena_error(arena, err, path, "reading the header");
  for (size_t i = 0; i < m->ncols; i++)
    m->wide[i] = -1;
  for (size_t k = 0; k < m->cm->ncolumns; k++) {
    int c = find_col(m, m->cm->columns[k].name);
    if (c < 0)
      return missing(m, f, m->cm->columns[k].name, "csv.columns", path, err);
    m->wide[c] = (int)k;
  }
  return RS_OK;
}

static rs_status resolve(mapped *m, rs_arena *arena, const rs_csv_field *f, const char *path,
                         rs_error *err) {
  const rs_csv_map *cm = m->cm;
  rs_status st = named_col(&m->time, m, f, cm->time, "csv.time", path, err);
  if (st == RS_OK)
    st = named_col(&m->value, m, f, cm->value, "csv.value", path, err);
  if (st == RS_OK)
    st = named_col(&m->metric, m, f, cm->metric_column, "csv.metric_column", path, err);
  if (st == RS_OK)
    st = named_col(&m->device, m, f, cm->device, "csv.device", path, err);
  if (st == RS_OK)
    st = named_col(&m->endpoint, m, f, cm->endpoint, "csv.endpoint", path, err);
  for (size_t k = 0; st == RS_OK && k < m->sel.n; k++)
    st = named_col(&m->sel_col[k], m, f, m->sel.m[k].key, "a selected column", path, err);
  if (st == RS_OK)
    st = resolve_wide(m, arena, f, path, err);
  if (st == RS_OK && m->value >= 0 && m->metric < 0 && !cm->has_metric && m->file == NULL)
    st = rs_error_set(err, RS_INVALID, path, f[0].line, f[0].col,
                      "no metric for the values of '%s': name the file under files: in mapping %s, "
                      "or set csv.metric or csv.metric_column (see docs/samples-format.md)",
                      base_name(path), cm->path);
  return st;
}

static rs_status header(mapped *m, rs_arena *arena, const rs_csv_field *f, size_t n,
                        const char *path, rs_error *err) {
  const char **names = rs_arena_alloc_array(arena, n, sizeof(*names));
  if (names == NULL)
    return rs_arena_error(arena, err, path, "reading the header");
  for (size_t i = 0; i < n; i++) {
    size_t len = f[i].len;
    const char *name = rs_ingest_trim(f[i].text, &len);
    if ((names[i] = rs_arena_strndup(arena, name, len)) == NULL)
      return rs_arena_error(arena, err, path, "reading the header");
  }
  m->names = names;
  m->ncols = n;
  return resolve(m, arena, f, path, err);
}

/* ---- rows ---- */

static bool cell_is(const rs_csv_field *f, const char *want) {
  size_t len = f->len;
  const char *s = rs_ingest_trim(f->text, &len);
  return strlen(want) == len && memcmp(s, want, len) == 0;
}

static rs_status row_time(double *t, const mapped *m, const rs_export *x, const rs_csv_field *f,
                          rs_error *err) {
  size_t len = f->len;
  const char *s = rs_ingest_trim(f->text, &len);
  double v;
  if (m->cm->time_scale > 0 && rs_num_parse_double(s, len, &v) == RS_OK && v >= 0) {
    *t = v * m->cm->time_scale;
    return RS_OK;
  }
  if (m->cm->time_scale == 0 && len > 0 && rs_time_parse(s, len, t) == RS_OK)
    return RS_OK;
  return rs_error_set(
      err, RS_INVALID, x->path, f->line, f->col, "expected a %s in column '%s', got '%.*s'",
      m->cm->time_scale > 0 ? "number (the time as csv.time_unit says)"
                            : "timestamp (unix seconds or RFC 3339)",
      m->names[m->time], (int)(len > RS_INGEST_QUOTE_MAX ? RS_INGEST_QUOTE_MAX : len), s);
}

/* The rule for a long-format row: the file's, the section's, or the
 * series named in the metric column (through series: and the defaults). */
static rs_status long_rule(rs_series_rule *out, bool *found, mapped *m, rs_export *x,
                           const rs_csv_field *f, rs_error *err) {
  const rs_csv_rule *r = m->file;
  if (r == NULL && m->metric < 0) {
    *out = (rs_series_rule){m->names[m->value], false, m->cm->metric, m->cm->scale, 0.0};
    *found = true;
    return RS_OK;
  }
  if (r != NULL) {
    *out = (rs_series_rule){r->name, r->ignore, r->metric, r->scale, 0.0};
    *found = !r->ignore;
    return RS_OK;
  }
  size_t len = f[m->metric].len;
  const char *s = rs_ingest_trim(f[m->metric].text, &len);
  for (size_t i = 0; i < m->nseen; i++) {
    if (strlen(m->seen[i].key) == len && memcmp(m->seen[i].key, s, len) == 0) {
      *out = m->seen[i].rule;
      *found = m->seen[i].found;
      return RS_OK;
    }
  }
  if (m->nseen == KEYS_CACHED)
    return rs_error_set(err, RS_LIMIT, x->path, f[m->metric].line, f[m->metric].col,
                        "more than %d distinct names in column '%s'", KEYS_CACHED,
                        m->names[m->metric]);
  char *key = rs_arena_strndup(x->arena, s, len);
  if (key == NULL)
    return rs_arena_error(x->arena, err, x->path, "reading the file");
  rs_status st = rs_export_rule(x, key, out, found, f[m->metric].line, f[m->metric].col, err);
  m->seen[m->nseen].key = key;
  m->seen[m->nseen].rule = *out;
  m->seen[m->nseen++].found = *found;
  return st;
}

static rs_status add_value(rs_export *x, const rs_series_rule *rule, int gpu, double t,
                           const rs_csv_field *f, rs_error *err) {
  size_t len = f->len;
  const char *s = rs_ingest_trim(f->text, &len);
  if (len == 0)
    return RS_OK; /* not measured in this row */
  return rs_export_add(x, rule, rule->key, gpu, t, s, len, f->line, f->col, err);
}

static rs_status row_points(mapped *m, rs_export *x, const rs_csv_field *f, double t, int gpu,
                            rs_error *err) {
  rs_status st = RS_OK;
  if (m->value >= 0) {
    rs_series_rule rule;
    bool found = false;
    st = long_rule(&rule, &found, m, x, f, err);
    if (st == RS_OK && found)
      st = add_value(x, &rule, gpu, t, &f[m->value], err);
  }
  for (size_t i = 0; st == RS_OK && i < m->ncols; i++) {
    if (m->wide[i] < 0 || m->cm->columns[m->wide[i]].ignore)
      continue;
    const rs_csv_rule *c = &m->cm->columns[m->wide[i]];
    rs_series_rule rule = {m->names[i], false, c->metric, c->scale, 0.0};
    st = add_value(x, &rule, gpu, t, &f[i], err);
  }
  return st;
}

static rs_status row(mapped *m, rs_export *x, const rs_csv_field *f, size_t n, rs_error *err) {
  double t;
  int gpu = -1;
  unsigned ep = 0;
  if (n != m->ncols)
    return rs_error_set(err, RS_INVALID, x->path, f[0].line, f[n < m->ncols ? n - 1 : m->ncols].col,
                        "row has %zu fields, expected %zu (as in the header)", n, m->ncols);
  for (size_t k = 0; k < m->sel.n; k++) {
    if (!cell_is(&f[m->sel_col[k]], m->sel.m[k].value)) {
      rs_export_deselect(x);
      return RS_OK;
    }
  }
  rs_status st = row_time(&t, m, x, &f[m->time], err);
  if (st == RS_OK && m->device >= 0 && f[m->device].len > 0)
    st = rs_export_gpu(&gpu, x, f[m->device].text, f[m->device].len, f[m->device].line,
                       f[m->device].col, err);
  if (st == RS_OK && m->endpoint >= 0) {
    size_t len = f[m->endpoint].len;
    const char *s = rs_ingest_trim(f[m->endpoint].text, &len);
    if (len == 0)
      return RS_OK; /* a row about no endpoint (Alibaba's API rows): not any pod's */
    st = rs_export_endpoint(x, &ep, s, len, f[m->endpoint].line, f[m->endpoint].col, err);
  }
  x->cur_ep = ep;
  if (st == RS_OK)
    st = row_points(m, x, f, t, gpu, err);
  if (st == RS_OK)
    x->mapped++;
  return st;
}

static const rs_csv_rule *file_rule(const rs_csv_map *cm, const char *path) {
  const char *base = base_name(path);
  for (size_t i = 0; i < cm->nfiles; i++)
    if (strcmp(cm->files[i].name, base) == 0)
      return &cm->files[i];
  return NULL;
}

static rs_status setup(mapped *m, const rs_csv_map *cm, const char *path,
                       const rs_ingest_options *opts, rs_error *err) {
  memset(m, 0, sizeof(*m));
  m->cm = cm;
  m->file = file_rule(cm, path);
  if (cm->nfiles > 0 && m->file == NULL && !cm->has_metric && cm->metric_column == NULL &&
      cm->ncolumns == 0)
    return rs_error_set(err, RS_INVALID, path, 0, 0,
                        "the file is not named under files: in mapping %s, expected an entry "
                        "for '%s'",
                        cm->path, base_name(path));
  rs_status st = rs_selection_merge(&m->sel, opts ? opts->select : NULL);
  if (st == RS_OK)
    st = rs_selection_merge(&m->sel, &cm->select);
  if (st == RS_OK && m->file != NULL)
    st = rs_selection_merge(&m->sel, &m->file->select);
  if (st != RS_OK)
    return rs_error_set(err, RS_LIMIT, path, 0, 0, "more than %d selections", RS_SELECT_MAX);
  return RS_OK;
}

rs_status rs_ingest_csvmap(rs_export *x, rs_csv_reader *reader, const char *path,
                           const rs_ingest_options *opts, rs_error *err) {
  const rs_csv_field *f;
  size_t n;
  mapped m;
  rs_status st = setup(&m, &x->map->csv, path, opts, err);
  x->ep_column = x->map->csv.endpoint;
  if (st == RS_OK && m.file != NULL && m.file->ignore)
    return RS_OK; /* files: NAME: ignore */
  if (st == RS_OK)
    st = rs_csv_next(reader, &f, &n, err);
  if (st != RS_OK)
    return st;
  if (n == 0)
    return rs_error_set(err, RS_INVALID, path, 1, 1, "empty file, expected a CSV header");
  if ((st = header(&m, x->arena, f, n, path, err)) != RS_OK)
    return st;
  if (m.metric < 0)
    x->series++;
  while ((st = rs_csv_next(reader, &f, &n, err)) == RS_OK && n > 0) {
    if (m.ncols > 1 && n == m.ncols && cell_is(&f[m.time], m.names[m.time]))
      continue; /* the header again: concatenated files */
    if ((st = row(&m, x, f, n, err)) != RS_OK)
      return st;
  }
  return st;
}

/* ---- many endpoints ---- */

/* Appends rows to one endpoint's array (grown in the arena by doubling). */
typedef struct collect {
  rs_arena *arena;
  rs_endpoint_rows *e;
  size_t cap;
} collect;

static rs_status collect_row(void *ctx, const rs_sample *s, rs_error *err) {
  collect *c = ctx;
  if (c->e->nrows == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 256;
    rs_sample *grown = rs_arena_alloc_array(c->arena, cap, sizeof(*grown));
    if (grown == NULL)
      return rs_arena_error(c->arena, err, s->path, "splitting the rows by endpoint");
    if (c->e->nrows)
      memcpy(grown, c->e->rows, c->e->nrows * sizeof(*grown));
    c->e->rows = grown;
    c->cap = cap;
  }
  c->e->rows[c->e->nrows++] = *s;
  return RS_OK;
}

static rs_status read_one(rs_export *x, const char *path, const rs_ingest_options *opts,
                          rs_error *err) {
  rs_instream *in = NULL;
  rs_csv_reader *reader = NULL;
  rs_csv_options copts = {',', opts->max_record_bytes, 0};
  rs_status st = rs_instream_open(&in, path, err);
  if (st == RS_OK)
    st = rs_csv_open_source(&reader, path, rs_instream_read, in, &copts, err);
  x->path = path;
  if (st == RS_OK)
    st = rs_ingest_csvmap(x, reader, path, opts, err);
  rs_csv_free(reader);
  rs_instream_free(in);
  return st;
}

static int cmp_rows_name(const void *a, const void *b) {
  return strcmp(((const rs_endpoint_rows *)a)->name, ((const rs_endpoint_rows *)b)->name);
}

/* Emits every endpoint's rows into its own array, then sorts by name. */
static rs_status split_rows(rs_endpoint_rows **out, size_t *n, rs_arena *arena, rs_export *x,
                            rs_error *err) {
  size_t cursor = 0;
  uint64_t rows = 0;
  rs_endpoint_rows *eps = rs_arena_alloc_array(arena, x->neps ? x->neps : 1, sizeof(*eps));
  if (eps == NULL)
    return rs_arena_error(arena, err, NULL, "splitting the rows by endpoint");
  rs_status st = RS_OK;
  for (unsigned e = 0; st == RS_OK && e < x->neps; e++) {
    collect c = {arena, &eps[e], 0};
    eps[e].name = x->eps[e];
    st = rs_export_emit_endpoint(x, e, &cursor, collect_row, &c, &rows, err);
  }
  size_t kept = 0;
  for (size_t e = 0; e < x->neps; e++)
    if (eps[e].nrows > 0)
      eps[kept++] = eps[e]; /* an endpoint whose rows held no values */
  if (kept > 1)             /* qsort(NULL, 0, ...) is undefined */
    qsort(eps, kept, sizeof(*eps), cmp_rows_name);
  *out = eps;
  *n = kept;
  return st;
}

rs_status rs_ingest_split(rs_endpoint_rows **out, size_t *n, rs_arena *arena,
                          const char *const *paths, size_t npaths, const rs_ingest_options *opts,
                          rs_error *err) {
  rs_export x;
  *out = NULL;
  *n = 0;
  if (opts == NULL || opts->map == NULL || opts->map->csv.endpoint == NULL)
    return rs_error_set(err, RS_USAGE, NULL, 0, 0,
                        "the mapping names no endpoint column (csv.endpoint), expected one to "
                        "split the files by endpoint (see docs/sources.md)");
  rs_export_init(&x, arena, npaths ? paths[0] : "", opts->map);
  rs_status st = RS_OK;
  for (size_t i = 0; st == RS_OK && i < npaths; i++)
    st = read_one(&x, paths[i], opts, err);
  if (st == RS_OK && x.neps == 0)
    st = rs_error_set(err, RS_INVALID, npaths ? paths[0] : NULL, 0, 0,
                      "no samples: no row names an endpoint in column '%s'", x.ep_column);
  if (st == RS_OK)
    st = split_rows(out, n, arena, &x, err);
  rs_export_release(&x);
  return st;
}
