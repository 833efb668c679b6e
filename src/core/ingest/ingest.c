/* Sample ingestion: format names, detection, the native column table, cell
 * parsing and the row loop shared by both formats. The header readers live
 * in ingest_native.c and ingest_nvsmi.c. */
#include "names.h"
#include "rightsize/ingest.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "ingest_internal.h"
#include "ingest_stream.h"
#include "rightsize/file.h"
#include "rightsize/num.h"
#include "num_fast.h"
#include "stats_internal.h"
#include "time_fast.h"

/* ---- format names ---- */

const char *const rs_sample_format_names[] = {"auto",
                                              "native",
                                              "nvidia-smi",
                                              "prometheus-json",
                                              "prometheus-text",
                                              "cloudwatch-json",
                                              "requests",
                                              "csv",
                                              "nvidia-smi-dmon",
                                              NULL};

rs_status rs_format_from_name(rs_sample_format *out, const char *name) {
  int i = rs_names_find(rs_sample_format_names, RS_FORMAT_COUNT, name);
  if (i < 0)
    return RS_USAGE;
  *out = (rs_sample_format)i;
  return RS_OK;
}

const char *rs_format_name(rs_sample_format f) {
  if ((unsigned)f < RS_FORMAT_COUNT)
    return rs_sample_format_names[f];
  return "unknown";
}

/* ---- the native column table ---- */

typedef struct unit_row {
  const char *suffix;
  double scale; /* to the metric's canonical unit */
} unit_row;

static const unit_row byte_units[] = {{"bytes", 1.0},  {"kib", RS_KIB}, {"mib", RS_MIB},
                                      {"gib", RS_GIB}, {"kb", 1e3},     {"mb", 1e6},
                                      {"gb", 1e9},     {NULL, 0.0}};
static const unit_row rate_units[] = {{"bytes_per_s", 1.0},      {"kib_per_s", RS_KIB},
                                      {"mib_per_s", RS_MIB},     {"mbit_per_s", 1e6 / 8.0},
                                      {"gbit_per_s", 1e9 / 8.0}, {NULL, 0.0}};
static const unit_row time_units[] = {{"ms", 1.0}, {"us", 1e-3}, {"s", 1e3}, {NULL, 0.0}};
static const unit_row no_units[] = {{"", 1.0}, {NULL, 0.0}};

/* A column name is stem + unit suffix; unit-less names use no_units. */
static const struct {
  const char *stem;
  rs_metric metric;
  const unit_row *units;
} native_columns[] = {
    {"gpu_mem_used_", RS_METRIC_GPU_MEM_USED, byte_units},
    {"gpu_mem_total_", RS_METRIC_GPU_MEM_TOTAL, byte_units},
    {"gpu_util_pct", RS_METRIC_GPU_UTIL, no_units},
    {"cpu_util_pct", RS_METRIC_CPU_UTIL, no_units},
    {"host_mem_used_", RS_METRIC_HOST_MEM_USED, byte_units},
    {"net_rx_", RS_METRIC_NET_RX, rate_units},
    {"net_tx_", RS_METRIC_NET_TX, rate_units},
    {"request_rate_rps", RS_METRIC_REQUEST_RATE, no_units},
    {"latency_p50_", RS_METRIC_LATENCY_P50, time_units},
    {"latency_p95_", RS_METRIC_LATENCY_P95, time_units},
    {"latency_p99_", RS_METRIC_LATENCY_P99, time_units},
    {"batch_size", RS_METRIC_BATCH_SIZE, no_units},
    {"prompt_tokens", RS_METRIC_PROMPT_TOKENS, no_units},
    {"output_tokens", RS_METRIC_OUTPUT_TOKENS, no_units},
    {"prompt_token_rate_tps", RS_METRIC_PROMPT_TOKEN_RATE, no_units},
    {"output_token_rate_tps", RS_METRIC_OUTPUT_TOKEN_RATE, no_units},
    {"ttft_p50_", RS_METRIC_TTFT_P50, time_units},
    {"ttft_p95_", RS_METRIC_TTFT_P95, time_units},
    {"ttft_p99_", RS_METRIC_TTFT_P99, time_units},
    {"tpot_p50_", RS_METRIC_TPOT_P50, time_units},
    {"tpot_p95_", RS_METRIC_TPOT_P95, time_units},
    {"tpot_p99_", RS_METRIC_TPOT_P99, time_units},
    {"requests_running", RS_METRIC_REQUESTS_RUNNING, no_units},
    {"requests_waiting", RS_METRIC_REQUESTS_WAITING, no_units},
    {"kv_cache_usage_pct", RS_METRIC_KV_CACHE_USAGE, no_units},
};

#define NATIVE_FAMILIES (sizeof(native_columns) / sizeof(native_columns[0]))

static bool name_is(const char *name, size_t len, const char *word) {
  return strlen(word) == len && memcmp(name, word, len) == 0;
}

rs_status rs_column_from_name(rs_column *out, const char *name, size_t len) {
  rs_column c = {RS_COL_IGNORED, RS_METRIC_GPU_MEM_USED, 1.0, NULL};
  if (name_is(name, len, "timestamp") || name_is(name, len, "gpu_index")) {
    c.kind = name[0] == 't' ? RS_COL_TIMESTAMP : RS_COL_GPU_INDEX;
    *out = c;
    return RS_OK;
  }
  if (len >= 2 && name[0] == 'x' && name[1] == '_') {
    *out = c;
    return RS_OK;
  }
  for (size_t i = 0; i < NATIVE_FAMILIES; i++) {
    size_t stem = strlen(native_columns[i].stem);
    if (len < stem || memcmp(name, native_columns[i].stem, stem) != 0)
      continue;
    for (const unit_row *u = native_columns[i].units; u->suffix != NULL; u++) {
      if (name_is(name + stem, len - stem, u->suffix)) {
        c.kind = RS_COL_METRIC;
        c.metric = native_columns[i].metric;
        c.scale = u->scale;
        *out = c;
        return RS_OK;
      }
    }
  }
  return RS_INVALID;
}

bool rs_ingest_native_name(char *buf, size_t size, size_t i) {
  if (i < 2) {
    snprintf(buf, size, "%s", i == 0 ? "timestamp" : "gpu_index");
    return true;
  }
  i -= 2;
  for (size_t f = 0; f < NATIVE_FAMILIES; f++) {
    for (const unit_row *u = native_columns[f].units; u->suffix != NULL; u++) {
      if (i-- == 0) {
        snprintf(buf, size, "%s%s", native_columns[f].stem, u->suffix);
        return true;
      }
    }
  }
  return false;
}

/* The native name of a column built by rs_column_from_name, for messages
 * from the public rs_sample_set_cell (which is not told the header text). */
static const char *native_name_of(char *buf, size_t size, const rs_column *c) {
  if (c->kind == RS_COL_TIMESTAMP)
    return "timestamp";
  if (c->kind == RS_COL_GPU_INDEX)
    return "gpu_index";
  for (size_t f = 0; f < NATIVE_FAMILIES; f++) {
    if (native_columns[f].metric != c->metric)
      continue;
    for (const unit_row *u = native_columns[f].units; u->suffix != NULL; u++) {
      if (u->scale == c->scale) {
        snprintf(buf, size, "%s%s", native_columns[f].stem, u->suffix);
        return buf;
      }
    }
  }
  return rs_metric_key(c->metric);
}

/* ---- cells ---- */

const char *rs_ingest_trim(const char *s, size_t *len) {
  size_t n = *len;
  while (n > 0 && (*s == ' ' || *s == '\t')) {
    s++;
    n--;
  }
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
    n--;
  *len = n;
  return s;
}

/* One cell being parsed, for error messages. */
typedef struct cell {
  const char *colname;
  const char *text; /* trimmed */
  size_t len;
  const char *path;
  size_t line;
  size_t col;
} cell;

/* "expected WHAT in column 'NAME', got 'TEXT'", with long text cut short. */
static rs_status cell_fail(rs_error *err, const cell *cl, const char *what) {
  int shown = (int)(cl->len > RS_INGEST_QUOTE_MAX ? RS_INGEST_QUOTE_MAX : cl->len);
  return rs_error_set(err, RS_INVALID, cl->path, cl->line, cl->col,
                      "expected %s in column '%s', got '%.*s%s'", what, cl->colname, shown,
                      cl->text, cl->len > RS_INGEST_QUOTE_MAX ? "..." : "");
}

static char ascii_lower(char ch) { return (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ch; }

static bool is_unit_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '%';
}

/* "nan", "-inf", "Infinity": spellings the number parser refuses but that
 * deserve a clearer message than "expected a number". */
static bool is_nonfinite(const char *s, size_t len) {
  static const char *const words[] = {"nan", "inf", "infinity"};
  if (len > 0 && (*s == '+' || *s == '-')) {
    s++;
    len--;
  }
  for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
    size_t i = 0;
    if (strlen(words[w]) != len)
      continue;
    while (i < len && ascii_lower(s[i]) == words[w][i])
      i++;
    if (i == len)
      return true;
  }
  return false;
}

/* nvidia-smi writes "[N/A]", "[Not Supported]", "[Unknown Error]" and the
 * like (always in brackets), and sometimes a bare "N/A". */
static bool is_absent(const char *s, size_t len) {
  if (len >= 2 && s[0] == '[' && s[len - 1] == ']')
    return true;
  return len == 3 && memcmp(s, "N/A", 3) == 0;
}

/* A number, optionally followed by the column's unit ("3012 MiB", "15 %"). */
static rs_status parse_number(double *out, const rs_column *c, const cell *cl, rs_error *err) {
  double v = 0.0;
  rs_status st = rs_num_parse_double(cl->text, cl->len, &v);
  if (st == RS_OK) {
    *out = v;
    return RS_OK;
  }
  if (st == RS_LIMIT || is_nonfinite(cl->text, cl->len))
    return cell_fail(err, cl, "a finite number");
  if (c->unit == NULL)
    return cell_fail(err, cl, "a number");
  size_t end = cl->len;
  while (end > 0 && is_unit_char(cl->text[end - 1]))
    end--;
  size_t nlen = end;
  const char *num = rs_ingest_trim(cl->text, &nlen);
  if (end == cl->len || nlen == 0 || rs_num_parse_double(num, nlen, &v) != RS_OK)
    return cell_fail(err, cl, "a number");
  if (!name_is(cl->text + end, cl->len - end, c->unit)) {
    char what[64];
    snprintf(what, sizeof(what), "a value in %s", c->unit);
    return cell_fail(err, cl, what);
  }
  *out = v;
  return RS_OK;
}

static rs_status set_metric(rs_sample *s, const rs_column *c, const cell *cl, rs_error *err) {
  double v = 0.0;
  rs_status st = parse_number(&v, c, cl, err);
  if (st != RS_OK)
    return st;
  if (v < 0)
    return cell_fail(err, cl, "a value >= 0");
  v = v * c->scale + 0.0; /* + 0.0 turns -0 into 0 */
  if (!isfinite(v))
    return cell_fail(err, cl, "a finite number");
  double upper = rs_metric_upper(c->metric);
  if (upper > 0 && v > upper) {
    char what[64];
    if (strcmp(rs_metric_unit(c->metric), "percent") == 0)
      snprintf(what, sizeof(what), "a percentage between 0 and %g", upper);
    else
      snprintf(what, sizeof(what), "a value <= %g", upper);
    return cell_fail(err, cl, what);
  }
  if (!rs_metric_in_range(c->metric, v)) {
    char what[96];
    rs_ingest_range_text(what, sizeof(what), c->metric, c->scale);
    return cell_fail(err, cl, what);
  }
  s->v[c->metric] = v;
  s->present |= 1u << c->metric;
  return RS_OK;
}

void rs_ingest_range_text(char *buf, size_t size, rs_metric m, double scale) {
  /* In the unit the file writes: a MiB column's bound in MiB. */
  double unit = scale > 0 ? scale : 1.0;
  snprintf(buf, size, "0 or a value from %.3g to %.10g", RS_METRIC_MIN_NONZERO / unit,
           rs_metric_max(m) / unit);
}

static rs_status set_gpu(rs_sample *s, const cell *cl, rs_error *err) {
  int64_t idx;
  if (rs_num_parse_int64(cl->text, cl->len, &idx) != RS_OK)
    return cell_fail(err, cl, "an integer gpu index");
  if (idx < 0 || idx >= RS_MAX_DEVICES)
    return cell_fail(err, cl, "a gpu index between 0 and 63");
  s->gpu = (int)idx;
  return RS_OK;
}

rs_status rs_ingest_set_cell(rs_sample *s, const rs_column *c, const char *colname,
                             const char *text, size_t len, const char *path, size_t line,
                             size_t col, rs_error *err) {
  cell cl = {colname, NULL, len, path, line, col};
  cl.text = rs_ingest_trim(text, &cl.len);
  if (c->kind == RS_COL_IGNORED)
    return RS_OK;
  if (c->kind == RS_COL_TIMESTAMP) {
    if (cl.len == 0)
      return rs_error_set(err, RS_INVALID, path, line, col,
                          "expected a timestamp in column '%s', got an empty cell", colname);
    rs_status st = rs_time_parse(cl.text, cl.len, &s->t);
    if (st == RS_LIMIT)
      return cell_fail(err, &cl, RS_INGEST_TIME_RANGE);
    if (st != RS_OK)
      return cell_fail(err, &cl, "a timestamp (unix seconds, RFC 3339 or YYYY/MM/DD HH:MM:SS)");
    return RS_OK;
  }
  if (cl.len == 0 || is_absent(cl.text, cl.len))
    return RS_OK;
  if (c->kind == RS_COL_GPU_INDEX)
    return set_gpu(s, &cl, err);
  return set_metric(s, c, &cl, err);
}

rs_status rs_sample_set_cell(rs_sample *s, const rs_column *c, const char *text, size_t len,
                             const char *path, size_t line, size_t col, rs_error *err) {
  char buf[64];
  return rs_ingest_set_cell(s, c, native_name_of(buf, sizeof(buf), c), text, len, path, line, col,
                            err);
}

/* ---- layouts ---- */

rs_status rs_ingest_layout_alloc(rs_ingest_layout *out, rs_arena *arena, size_t n, rs_error *err) {
  memset(out, 0, sizeof(*out));
  out->cols = rs_arena_alloc_array(arena, n, sizeof(*out->cols));
  out->names = rs_arena_alloc_array(arena, n, sizeof(*out->names));
  if (out->cols == NULL || out->names == NULL)
    return rs_arena_error(arena, err, NULL, "while reading the header");
  out->ncols = n;
  out->key_col = -1;
  out->ragged = "as in the header";
  return RS_OK;
}

static bool same_role(const rs_column *a, const rs_column *b) {
  if (a->kind != b->kind || a->kind == RS_COL_IGNORED)
    return false;
  return a->kind != RS_COL_METRIC || a->metric == b->metric;
}

rs_status rs_ingest_layout_check(const rs_ingest_layout *layout, const rs_csv_field *fields,
                                 const char *path, rs_error *err) {
  bool have_time = false;
  for (size_t i = 0; i < layout->ncols; i++) {
    const char *name = layout->names[i];
    have_time = have_time || layout->cols[i].kind == RS_COL_TIMESTAMP;
    for (size_t j = 0; j < i; j++) {
      if (!same_role(&layout->cols[i], &layout->cols[j]))
        continue;
      if (strcmp(name, layout->names[j]) == 0)
        return rs_error_set(err, RS_INVALID, path, fields[i].line, fields[i].col,
                            "duplicate column '%s', first seen as column %zu", name, j + 1);
      return rs_error_set(
          err, RS_INVALID, path, fields[i].line, fields[i].col,
          "column '%s' repeats column %zu '%s' (both hold %s)", name, j + 1, layout->names[j],
          layout->cols[i].kind == RS_COL_METRIC
              ? rs_metric_key(layout->cols[i].metric)
              : (layout->cols[i].kind == RS_COL_TIMESTAMP ? "the timestamp" : "the gpu index"));
    }
  }
  if (!have_time)
    return rs_error_set(err, RS_INVALID, path, fields[0].line, fields[0].col,
                        "missing required column 'timestamp'");
  return RS_OK;
}

/* ---- the row loop ---- */

/* One ingestion run. */
typedef struct run {
  rs_csv_reader *reader;
  const char *path; /* the name the caller gave */
  rs_ingest_layout layout;
  rs_sample_sink sink;
  void *ctx;
  rs_ingest_result res;
  rs_arena *arena;
  const char *keys[RS_MAX_DEVICES]; /* device keys (bus id or uuid) in first-seen order */
  size_t nkeys;
  double *col_max; /* per column: rs_metric_max of its metric (canonical), for the fast path */
  rs_native_col *fast_cols; /* native files: the handlers of rs_ingest_native_lines, else NULL */
  rs_sample s;              /* the row being built, reused: only what the last row set is cleared */
  rs_time_day day;          /* the date of the last calendar timestamp (time_fast.h) */
} run;

/* The column just past a field: where a missing field would have started. */
static size_t field_end_col(const rs_csv_field *f) { return f->col + f->len + (f->quoted ? 2 : 0); }

static rs_status check_width(const run *r, const rs_csv_field *f, size_t n, rs_error *err) {
  size_t want = r->layout.ncols;
  if (n == want)
    return RS_OK;
  size_t line = n > want ? f[want].line : f[n - 1].line;
  size_t col = n > want ? f[want].col : field_end_col(&f[n - 1]);
  return rs_error_set(err, RS_INVALID, r->path, line, col, "row has %zu fields, expected %zu (%s)",
                      n, want, r->layout.ragged);
}

/* The GPU a device key (a pci.bus_id or uuid cell) stands for: keys are
 * numbered in the order they first appear. */
static rs_status key_device(run *r, rs_sample *s, const rs_csv_field *f, rs_error *err) {
  size_t len = f->len, i;
  const char *key = rs_ingest_trim(f->text, &len);
  if (len == 0 || (key[0] == '[' && key[len - 1] == ']'))
    return RS_OK; /* [N/A]: not about one device */
  for (i = 0; i < r->nkeys; i++)
    if (strlen(r->keys[i]) == len && memcmp(r->keys[i], key, len) == 0)
      break;
  if (i == RS_MAX_DEVICES)
    return rs_error_set(err, RS_INVALID, r->path, f->line, f->col,
                        "more than %d distinct devices in column '%s'", RS_MAX_DEVICES,
                        r->layout.names[r->layout.key_col]);
  if (i == r->nkeys) {
    r->keys[i] = rs_arena_strndup(r->arena, key, len);
    if (r->keys[i] == NULL)
      return rs_arena_error(r->arena, err, r->path, "while reading device keys");
    r->nkeys++;
  }
  s->gpu = (int)i;
  r->res.notes |= RS_INGEST_NOTE_DEVICE_KEYS;
  return RS_OK;
}

/* A record that repeats the header (logs from a shell loop, files
 * concatenated with cat) is skipped and counted, not read as data. */
static bool is_header_again(const run *r, const rs_csv_field *f, size_t n) {
  if (r->layout.headerless || n != r->layout.ncols)
    return false;
  /* A data row's first cell is a time, the header's a name: most rows end
   * at the first byte. */
  if (f[0].len > 0 && f[0].text[0] >= '0' && f[0].text[0] <= '9' &&
      r->layout.names[0][0] != f[0].text[0])
    return false;
  for (size_t i = 0; i < n; i++) {
    size_t len = f[i].len;
    const char *text = rs_ingest_trim(f[i].text, &len);
    if (strlen(r->layout.names[i]) != len || memcmp(r->layout.names[i], text, len) != 0)
      return false;
  }
  return true;
}

/* The fast path of a metric cell: a short plain decimal (rs_num_parse_fast)
 * whose canonical value is in the metric's range. Exactly what set_metric
 * accepts for such text, with the same value; anything else (units, spaces,
 * [N/A], an error) returns false and goes through rs_ingest_set_cell. */
static bool fast_value(rs_sample *s, const rs_column *c, double maxc, const char *text,
                       size_t len) {
  double v;
  if (!rs_num_parse_fast(text, len, &v))
    return false;
  v = v * c->scale + 0.0;
  if (!(v == 0.0 || (v >= RS_METRIC_MIN_NONZERO && v <= maxc)))
    return false;
  s->v[c->metric] = v;
  s->present |= 1u << c->metric;
  return true;
}

static bool fast_metric(rs_sample *s, const rs_column *c, double maxc, const rs_csv_field *f) {
  return fast_value(s, c, maxc, f->text, f->len);
}

/* The same for a cell that carries the column's unit, as nvidia-smi writes
 * them (" 47 %", " 73411 MiB"): blanks, a short plain decimal, blanks, the
 * unit. parse_number reads such text to the same number: the unit is made
 * of unit characters only (checked), so it strips exactly the unit, and
 * what is left trims to the decimal. */
static bool fast_metric_unit(rs_sample *s, const rs_column *c, double maxc, const rs_csv_field *f) {
  size_t n = f->len, k = 0, u;
  const char *t = rs_ingest_trim(f->text, &n);
  while (k < n && ((unsigned)(unsigned char)t[k] - '0' <= 9 || t[k] == '.'))
    k++;
  for (u = k; u < n && (t[u] == ' ' || t[u] == '\t'); u++)
    ;
  const char *unit = c->unit;
  size_t i = 0;
  for (; u + i < n && unit[i] != '\0'; i++)
    if (t[u + i] != unit[i] || !is_unit_char(unit[i]))
      return false;
  if (u + i != n || unit[i] != '\0' || i == 0)
    return false;
  return fast_value(s, c, maxc, t, k);
}

/* The same for unix seconds in range and for RFC 3339 and nvidia-smi
 * stamps of the fixed layout (time_fast.h), as rs_time_parse reads them. */
static bool fast_time(rs_sample *s, rs_time_day *day, const rs_csv_field *f) {
  double t;
  if (f->len > 4 && (f->text[4] == '-' || f->text[4] == '/')) {
    if (!rs_time_parse_fast_field(f->text, f->len, day, &t))
      return false;
  } else if (!rs_num_parse_fast(f->text, f->len, &t) || !rs_time_in_range(t)) {
    return false;
  }
  s->t = t;
  return true;
}

/* The same for a gpu index of one or two digits below RS_MAX_DEVICES, as
 * set_gpu reads it. */
static bool fast_gpu(rs_sample *s, const rs_csv_field *f) {
  size_t n = f->len;
  const char *t = rs_ingest_trim(f->text, &n); /* nvidia-smi writes " 0" */
  if (n == 0 || n > 2)
    return false;
  unsigned d0 = (unsigned)(unsigned char)t[0] - '0', idx;
  if (d0 > 9)
    return false;
  idx = d0;
  if (n == 2) {
    unsigned d1 = (unsigned)(unsigned char)t[1] - '0';
    if (d1 > 9)
      return false;
    idx = d0 * 10 + d1;
  }
  if (idx >= RS_MAX_DEVICES)
    return false;
  s->gpu = (int)idx;
  return true;
}

/* One row into r->s. The sample is reused: the values the previous row set
 * are cleared (every other value is already 0), not the whole struct.
 * Empty cells set nothing, so they skip the setter; cells the fast paths
 * do not take go through rs_ingest_set_cell, in column order, so the first
 * bad cell is the one reported. */
static rs_status do_row(run *r, const rs_csv_field *f, size_t n, rs_error *err) {
  rs_sample *s = &r->s;
  if (is_header_again(r, f, n)) {
    r->res.repeated_headers++;
    return RS_OK;
  }
  rs_status st = check_width(r, f, n, err);
  if (st != RS_OK)
    return st;
  for (uint32_t bits = s->present; bits != 0; bits &= bits - 1)
    s->v[__builtin_ctz(bits)] = 0.0;
  s->present = 0;
  s->t = 0.0;
  s->gpu = -1;
  s->path = r->path;
  s->line = f[0].line;
  s->t_col = 0;
  for (size_t i = 0; i < n; i++) {
    const rs_column *c = &r->layout.cols[i];
    switch (c->kind) {
    case RS_COL_IGNORED: continue;
    case RS_COL_TIMESTAMP:
      s->t_col = f[i].col;
      if (fast_time(s, &r->day, &f[i]))
        continue;
      break;
    case RS_COL_METRIC:
      if (f[i].len == 0 || fast_metric(s, c, r->col_max[i], &f[i]) ||
          (c->unit != NULL && fast_metric_unit(s, c, r->col_max[i], &f[i])))
        continue;
      break;
    case RS_COL_GPU_INDEX:
      if (f[i].len == 0 || fast_gpu(s, &f[i]))
        continue;
      break;
    }
    st = rs_ingest_set_cell(s, c, r->layout.names[i], f[i].text, f[i].len, r->path, f[i].line,
                            f[i].col, err);
    if (st != RS_OK)
      return st;
  }
  if (r->layout.key_col >= 0 && (st = key_device(r, s, &f[r->layout.key_col], err)) != RS_OK)
    return st;
  st = r->sink(r->ctx, s, err);
  if (st == RS_OK)
    r->res.rows++;
  return st;
}

/* The fast path's per-column bounds and, for a native file, the handlers of
 * rs_ingest_native_lines, once the layout is known. */
static rs_status column_bounds(run *r, rs_arena *arena, rs_error *err) {
  size_t n = r->layout.ncols;
  r->col_max = rs_arena_alloc_array(arena, n, sizeof(*r->col_max));
  if (r->col_max == NULL)
    return rs_arena_error(arena, err, r->path, "while reading the header");
  for (size_t i = 0; i < n; i++)
    r->col_max[i] =
        r->layout.cols[i].kind == RS_COL_METRIC ? rs_metric_max(r->layout.cols[i].metric) : 0.0;
  if (r->res.format != RS_FORMAT_NATIVE || r->layout.headerless || r->layout.key_col >= 0)
    return RS_OK;
  r->fast_cols = rs_arena_alloc_array(arena, n, sizeof(*r->fast_cols));
  if (r->fast_cols == NULL)
    return rs_arena_error(arena, err, r->path, "while reading the header");
  for (size_t i = 0; i < n; i++)
    r->fast_cols[i] = (rs_native_col){.kind = r->layout.cols[i].kind,
                                      .metric = r->layout.cols[i].metric,
                                      .bit = 1u << r->layout.cols[i].metric,
                                      .scale = r->layout.cols[i].scale,
                                      .max = r->col_max[i]};
  return RS_OK;
}

/* The whole lines the reader holds, through the fast path, as far as it
 * takes them (rs_ingest_native_lines). */
static rs_status fast_rows(run *r, rs_error *err) {
  rs_native_rows nr = {.cols = r->fast_cols,
                       .ncols = r->layout.ncols,
                       .path = r->path,
                       .s = &r->s,
                       .day = &r->day,
                       .sink = r->sink,
                       .zero_sink = r->sink == rs_stats_sink ? rs_stats_sink_zeros : NULL,
                       .ctx = r->ctx};
  size_t len, line, lines;
  rs_status st = RS_OK;
  const char *p = rs_csv_lines(r->reader, &len, &line, &nr.max_line);
  if (p == NULL)
    return RS_OK;
  size_t used = rs_ingest_native_lines(&nr, p, len, line, &lines, &st, err);
  rs_csv_skip(r->reader, used, lines);
  r->res.rows += nr.rows;
  return st;
}

/* A header of one field holding ';' or a tab: the wrong delimiter. */
static rs_status check_delimiter(const run *r, const rs_csv_field *f, size_t n, rs_error *err) {
  if (n != 1)
    return RS_OK;
  for (size_t i = 0; i < f[0].len; i++) {
    char ch = f[0].text[i];
    if (ch != ';' && ch != '\t')
      continue;
    size_t col = f[0].col + i + (f[0].quoted ? 1 : 0);
    if (ch == ';')
      return rs_error_set(err, RS_INVALID, r->path, f[0].line, col,
                          "expected comma-separated values, found ';' (the file looks "
                          "semicolon-separated)");
    return rs_error_set(err, RS_INVALID, r->path, f[0].line, col,
                        "expected comma-separated values, found a tab (the file looks "
                        "tab-separated)");
  }
  return RS_OK;
}

static rs_sample_format detect(const rs_csv_field *f, size_t n) {
  size_t len = f[0].len;
  const char *first = rs_ingest_trim(f[0].text, &len);
  if (rs_ingest_nvsmi_is_header(f, n) || rs_ingest_nvsmi_is_timestamp(first, len))
    return RS_FORMAT_NVSMI;
  if (rs_ingest_requests_is_header(f, n))
    return RS_FORMAT_REQUESTS;
  return RS_FORMAT_NATIVE;
}

/* A control byte in the first record (a NUL, an ESC, ...): the file is not
 * text. Said as such and never quoted: /proc/self/environ or a key file
 * given as samples must not reach a CI log. */
static rs_status check_text(const run *r, const rs_csv_field *f, size_t n, rs_error *err) {
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < f[i].len; k++) {
      unsigned char ch = (unsigned char)f[i].text[k];
      if ((ch < 0x20 && ch != '\t' && ch != '\r' && ch != '\n') || ch == 0x7f)
        return rs_error_set(err, RS_INVALID, r->path, 0, 0,
                            "not a CSV: binary data (control bytes in the first line), expected "
                            "a samples CSV (see docs/samples-format.md)");
    }
  return RS_OK;
}

/* Reads the first record and builds the layout from it. */
static rs_status start(run *r, rs_arena *arena, rs_sample_format format, const rs_csv_field *f,
                       size_t n, rs_error *err) {
  rs_status st = check_text(r, f, n, err);
  if (st == RS_OK)
    st = check_delimiter(r, f, n, err);
  if (st != RS_OK)
    return st;
  r->res.format = format == RS_FORMAT_AUTO ? detect(f, n) : format;
  if (r->res.format == RS_FORMAT_REQUESTS)
    return RS_OK; /* read_all hands the file to ingest_requests.c */
  if (r->res.format == RS_FORMAT_NATIVE)
    return rs_ingest_native_header(&r->layout, arena, f, n, r->path, err);
  size_t len = f[0].len;
  const char *first = rs_ingest_trim(f[0].text, &len);
  if (rs_ingest_nvsmi_is_timestamp(first, len))
    return rs_ingest_nvsmi_default(&r->layout, arena, err);
  return rs_ingest_nvsmi_header(&r->layout, arena, f, n, r->path, err);
}

static rs_status read_all(run *r, rs_arena *arena, const rs_ingest_options *opts, rs_error *err) {
  const rs_csv_field *f;
  size_t n, next_line;
  rs_status st = rs_csv_next(r->reader, &f, &n, err);
  if (st != RS_OK)
    return st;
  if (n == 0)
    return rs_error_set(err, RS_INVALID, r->path, 1, 1, "empty file, expected a CSV header");
  st = start(r, arena, opts ? opts->format : RS_FORMAT_AUTO, f, n, err);
  if (st != RS_OK)
    return st;
  r->res.columns = n;
  if (r->res.format == RS_FORMAT_REQUESTS)
    return rs_ingest_requests_read(r->reader, r->path, f, n, opts, r->sink, r->ctx, &r->res.rows,
                                   err);
  r->res.columns = r->layout.ncols;
  next_line = f[n - 1].line + 1;
  if ((st = column_bounds(r, arena, err)) != RS_OK)
    return st;
  if (r->layout.headerless && (st = do_row(r, f, n, err)) != RS_OK)
    return st;
  for (;;) {
    /* Plain rows in place; the one they stop at (or the next block's
     * first) through the reader and do_row. */
    if (r->fast_cols != NULL && (st = fast_rows(r, err)) != RS_OK)
      return st;
    if ((st = rs_csv_next(r->reader, &f, &n, err)) != RS_OK || n == 0)
      break;
    if ((st = do_row(r, f, n, err)) != RS_OK)
      return st;
  }
  if (st != RS_OK)
    return st;
  if (r->res.rows == 0)
    return rs_error_set(err, RS_INVALID, r->path, next_line, 1,
                        "no samples: the file has a header but no rows");
  return RS_OK;
}

/* ---- the same loop on part of a file (ingest_parts.c) ---- */

rs_status rs_ingest_csv_header(rs_ingest_layout *out, rs_sample_format *format, size_t *line,
                               rs_csv_reader *reader, const char *path,
                               const rs_ingest_options *opts, rs_arena *arena, rs_error *err) {
  const rs_csv_field *f;
  size_t n;
  run r;
  memset(&r, 0, sizeof(r));
  r.reader = reader;
  r.path = path;
  rs_status st = rs_csv_next(reader, &f, &n, err);
  if (st != RS_OK || n == 0)
    return st == RS_OK ? RS_INVALID : st;
  st = start(&r, arena, opts ? opts->format : RS_FORMAT_AUTO, f, n, err);
  *out = r.layout;
  *format = r.res.format;
  *line = f[n - 1].line;
  for (size_t i = 0; i < n && st == RS_OK; i++)
    if (f[i].quoted || f[i].line != *line)
      st = RS_INVALID; /* a header a line cut could split: not for parts */
  return st;
}

rs_status rs_ingest_csv_rows(rs_csv_reader *reader, const char *path,
                             const rs_ingest_layout *layout, rs_sample_sink sink, void *ctx,
                             rs_ingest_result *res, rs_error *err) {
  const rs_csv_field *f;
  size_t n;
  run r;
  rs_arena arena;
  memset(&r, 0, sizeof(r));
  r.reader = reader;
  r.path = path;
  r.layout = *layout;
  r.sink = sink;
  r.ctx = ctx;
  r.res.format = RS_FORMAT_NATIVE;
  r.res.columns = layout->ncols;
  rs_arena_init(&arena, 0);
  r.arena = &arena;
  rs_status st = column_bounds(&r, &arena, err);
  while (st == RS_OK) {
    /* read_all's loop: plain rows in place, the others through do_row */
    if (r.fast_cols != NULL && (st = fast_rows(&r, err)) != RS_OK)
      break;
    if ((st = rs_csv_next(reader, &f, &n, err)) != RS_OK || n == 0)
      break;
    st = do_row(&r, f, n, err);
  }
  rs_arena_release(&arena);
  *res = r.res;
  return st;
}

static rs_status run_reader(rs_csv_reader *reader, const char *path, const rs_ingest_options *opts,
                            rs_sample_sink sink, void *ctx, rs_ingest_result *result,
                            rs_error *err) {
  run r;
  rs_arena arena;
  memset(&r, 0, sizeof(r));
  r.reader = reader;
  r.path = path;
  r.sink = sink;
  r.ctx = ctx;
  r.res.format = opts ? opts->format : RS_FORMAT_AUTO;
  rs_arena_init(&arena, 0);
  r.arena = &arena;
  rs_status st = read_all(&r, &arena, opts, err);
  rs_arena_release(&arena);
  if (result != NULL)
    *result = r.res;
  return st;
}

static void csv_options(rs_csv_options *out, const rs_ingest_options *opts) {
  memset(out, 0, sizeof(*out));
  out->delimiter = ',';
  out->max_record_bytes = opts ? opts->max_record_bytes : 0;
}

static bool is_export(rs_sample_format f) {
  return f == RS_FORMAT_PROM_JSON || f == RS_FORMAT_PROM_TEXT || f == RS_FORMAT_CLOUDWATCH ||
         f == RS_FORMAT_DMON;
}

rs_sample_format rs_ingest_detect_file(const char *path) {
  rs_instream *in = NULL;
  rs_error err;
  size_t len;
  if (rs_instream_open(&in, path, &err) != RS_OK)
    return RS_FORMAT_AUTO;
  const char *head = rs_instream_head(in, &len);
  rs_sample_format f = rs_export_sniff(head, len);
  rs_instream_free(in);
  return f;
}

/* An exported format: the whole (decoded) text, then its reader. */
static rs_status read_export(rs_instream *in, const char *path, rs_sample_format f,
                             const rs_ingest_options *opts, rs_sample_sink sink, void *ctx,
                             rs_ingest_result *result, rs_error *err) {
  rs_arena arena;
  char *data = NULL;
  size_t len = 0;
  struct stat sb;
  double instant_t = 0.0;
  bool handled = false;
  rs_status st = RS_OK;
  if (f == RS_FORMAT_PROM_JSON || f == RS_FORMAT_CLOUDWATCH) /* streamed: memory flat */
    st = rs_ingest_json_stream(in, path, f, instant_t, opts, sink, ctx, result, &handled, err);
  if (handled)
    return st;
  if (f == RS_FORMAT_PROM_TEXT) { /* streamed: memory bounded */
    if (strcmp(path, "-") != 0 && stat(path, &sb) == 0)
      instant_t = (double)sb.st_mtime;
    if (opts != NULL && opts->instant_t > 0)
      instant_t = opts->instant_t;
    return rs_ingest_prom_text_stream(in, path, instant_t, opts, sink, ctx, result, err);
  }
  rs_arena_init(&arena, 0);
  st = rs_instream_slurp(&data, &len, in, &arena, RS_INGEST_EXPORT_MAX, err);
  if (st == RS_OK && len == 0)
    st = rs_error_set(err, RS_INVALID, path, 1, 1, "empty file, expected %s data",
                      rs_format_name(f));
  /* A scrape without timestamps was taken, at the latest, when it was saved. */
  if (st == RS_OK && strcmp(path, "-") != 0 && stat(path, &sb) == 0)
    instant_t = (double)sb.st_mtime;
  if (opts != NULL && opts->instant_t > 0)
    instant_t = opts->instant_t;
  if (st == RS_OK)
    st = rs_ingest_export_at(path, data, len, f, instant_t, opts, sink, ctx, result, err);
  rs_arena_release(&arena);
  return st;
}

/* A CSV through the mapping's csv section: points, merged into rows. */
static rs_status read_mapped(rs_instream *in, const char *path, const rs_ingest_options *opts,
                             rs_sample_sink sink, void *ctx, rs_ingest_result *result,
                             rs_error *err) {
  rs_csv_options copts;
  rs_csv_reader *reader = NULL;
  rs_arena arena;
  rs_export x;
  uint64_t rows = 0;
  csv_options(&copts, opts);
  rs_arena_init(&arena, 0);
  rs_export_init(&x, &arena, path, opts->map);
  rs_status st = rs_csv_open_source(&reader, path, rs_instream_read, in, &copts, err);
  x.select = opts->select;
  if (st == RS_OK)
    st = rs_ingest_csvmap(&x, reader, path, opts, err);
  if (st == RS_OK)
    st = rs_export_emit(&x, sink, ctx, &rows, err);
  if (result != NULL) {
    memset(result, 0, sizeof(*result));
    result->format = RS_FORMAT_CSV;
    result->rows = rows;
    result->columns = 0;
  }
  rs_csv_free(reader);
  rs_export_release(&x);
  rs_arena_release(&arena);
  return st;
}

/* --select on a format with no labels: refused rather than ignored, which
 * would silently keep every row. */
static rs_status unselectable(const char *path, const char *what, rs_error *err) {
  return rs_error_set(err, RS_USAGE, path, 0, 0,
                      "--select picks rows by label, and %s has no label columns (expected a "
                      "mapped CSV or Prometheus series, see docs/samples-format.md)",
                      what);
}

/* Detects the format from the stream's first decoded bytes (unless given)
 * and reads it: exports whole, CSV streamed a record at a time. */
static rs_status read_stream(rs_instream *in, const char *path, const rs_ingest_options *opts,
                             rs_sample_sink sink, void *ctx, rs_ingest_result *result,
                             rs_error *err) {
  rs_csv_options copts;
  rs_csv_reader *reader = NULL;
  size_t hlen;
  const char *head = rs_instream_head(in, &hlen);
  rs_sample_format f = opts ? opts->format : RS_FORMAT_AUTO;
  if (f == RS_FORMAT_AUTO)
    f = rs_export_sniff(head, hlen);
  if (f == RS_FORMAT_CLOUDWATCH && opts != NULL && opts->select != NULL && opts->select->n > 0)
    return unselectable(path, "a CloudWatch export", err);
  if (is_export(f))
    return read_export(in, path, f, opts, sink, ctx, result, err);
  bool mapped = opts != NULL && opts->map != NULL && opts->map->csv.set;
  if (f == RS_FORMAT_CSV && !mapped)
    return rs_error_set(err, RS_USAGE, NULL, 0, 0,
                        "--input-format csv needs a mapping file with a csv section (--mapping, "
                        "see docs/samples-format.md)");
  if (mapped && (f == RS_FORMAT_AUTO || f == RS_FORMAT_CSV))
    return read_mapped(in, path, opts, sink, ctx, result, err);
  if (opts != NULL && opts->select != NULL && opts->select->n > 0)
    return unselectable(path,
                        f == RS_FORMAT_NVSMI    ? "an nvidia-smi log"
                        : f == RS_FORMAT_NATIVE ? "a native CSV"
                                                : "a CSV read without a mapping (--mapping)",
                        err);
  csv_options(&copts, opts);
  rs_status st = rs_csv_open_source(&reader, path, rs_instream_read, in, &copts, err);
  if (st != RS_OK)
    return st;
  st = run_reader(reader, path, opts, sink, ctx, result, err);
  rs_csv_free(reader);
  return st;
}

rs_status rs_ingest_file(const char *path, const rs_ingest_options *opts, rs_sample_sink sink,
                         void *ctx, rs_ingest_result *result, rs_error *err) {
  rs_instream *in = NULL;
  rs_status st = rs_instream_open(&in, path, err);
  if (st != RS_OK)
    return st;
  rs_instream_set_progress(in, opts ? opts->progress : NULL);
  st = read_stream(in, path, opts, sink, ctx, result, err);
  rs_instream_free(in);
  return st;
}

rs_status rs_ingest_memory(const char *name, const char *data, size_t len,
                           const rs_ingest_options *opts, rs_sample_sink sink, void *ctx,
                           rs_ingest_result *result, rs_error *err) {
  rs_instream *in = NULL;
  rs_status st = rs_instream_open_memory(&in, name, data, len, err);
  if (st != RS_OK)
    return st;
  st = read_stream(in, name, opts, sink, ctx, result, err);
  rs_instream_free(in);
  return st;
}
