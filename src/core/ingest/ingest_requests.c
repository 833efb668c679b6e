/* Per-request logs (docs/samples-format.md, "Request logs"): one CSV row per
 * request (its time, prompt and output tokens, optional latencies and
 * status), as serving gateways and the Azure LLM inference trace write them.
 *
 * Each request becomes one row carrying its token counts (the token
 * distribution), and each interval of the log (60 s unless asked) one row
 * carrying the request rate, the token rates and the latency, TTFT and TPOT
 * percentiles of the requests in it. The log is streamed: memory holds one
 * interval's latencies, never the file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest_internal.h"
#include "rightsize/num.h"

/* Latencies kept for one interval's percentiles, per kind. */
#define MAX_PER_INTERVAL ((size_t)1 << 20)
/* Intervals one log may span (a gap of years between two rows is a bad timestamp). */
#define MAX_INTERVALS ((uint64_t)10000000)

typedef enum {
  RQ_TIME,
  RQ_PROMPT,
  RQ_OUTPUT,
  RQ_LATENCY,
  RQ_TTFT,
  RQ_TPOT,
  RQ_STATUS,
  RQ_NONE
} rq_role;

/* Column names a request log may use, compared after lower-casing and
 * turning spaces and '-' into '_'. */
static const struct {
  const char *name;
  rq_role role;
} aliases[] = {
    {"timestamp", RQ_TIME},
    {"time", RQ_TIME},
    {"arrival_time", RQ_TIME},
    {"prompt_tokens", RQ_PROMPT},
    {"input_tokens", RQ_PROMPT},
    {"context_tokens", RQ_PROMPT},
    {"contexttokens", RQ_PROMPT}, /* Azure LLM inference trace */
    {"request_tokens", RQ_PROMPT},
    {"output_tokens", RQ_OUTPUT},
    {"generated_tokens", RQ_OUTPUT},
    {"generatedtokens", RQ_OUTPUT}, /* Azure LLM inference trace */
    {"completion_tokens", RQ_OUTPUT},
    {"response_tokens", RQ_OUTPUT},
    {"latency", RQ_LATENCY},
    {"e2e", RQ_LATENCY},
    {"e2e_latency", RQ_LATENCY},
    {"ttft", RQ_TTFT},
    {"time_to_first_token", RQ_TTFT},
    {"tpot", RQ_TPOT},
    {"itl", RQ_TPOT},
    {"inter_token_latency", RQ_TPOT},
    {"time_per_output_token", RQ_TPOT},
    {"status", RQ_STATUS},
    {"status_code", RQ_STATUS},
    {"http_status", RQ_STATUS},
};

/* Unit suffixes of duration columns ("latency_ms"); a bare name is seconds. */
static const struct {
  const char *suffix, *unit;
} duration_suffixes[] = {{"_ms", "ms"}, {"_us", "us"}, {"_s", "s"}, {"_seconds", "s"}};

static const char *const role_names[] = {"timestamp", "prompt tokens", "output tokens", "latency",
                                         "ttft",      "tpot",          "status"};

typedef struct rq_col {
  rq_role role;
  const char *name; /* as written, for messages */
  const char *unit; /* durations: the unit of a bare number */
} rq_col;

/* The percentiles kept per interval: p50, p95, p99. */
static const double levels[3] = {0.50, 0.95, 0.99};
static const rs_metric pct_metrics[3][3] = {
    {RS_METRIC_LATENCY_P50, RS_METRIC_LATENCY_P95, RS_METRIC_LATENCY_P99},
    {RS_METRIC_TTFT_P50, RS_METRIC_TTFT_P95, RS_METRIC_TTFT_P99},
    {RS_METRIC_TPOT_P50, RS_METRIC_TPOT_P95, RS_METRIC_TPOT_P99},
};

typedef struct vec {
  double *v;
  size_t n, cap;
} vec;

/* One request, as parsed. */
typedef struct request {
  double t;
  bool ok; /* a status column says it failed: counted as an arrival only */
  bool has[RQ_NONE];
  double val[RQ_NONE]; /* tokens; durations in ms */
} request;

typedef struct rq_run {
  const char *path;
  rs_sample_sink sink;
  void *ctx;
  rq_col *cols;
  size_t ncols;
  bool has_role[RQ_NONE];
  double width;  /* interval length, s */
  double origin; /* the first request's time: intervals are [origin + k w, origin + (k+1) w) */
  uint64_t k;    /* the open interval */
  bool started;
  double last_t;
  size_t last_line;
  uint64_t arrivals;
  double tokens[2]; /* prompt, output sums of the open interval */
  vec dur[3];       /* latency, ttft, tpot of the open interval, ms */
  uint64_t rows;
} rq_run;

/* ---- the header ---- */

static size_t normalize(char *buf, size_t size, const char *s, size_t len) {
  size_t n = 0;
  len = len < size - 1 ? len : size - 1;
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z')
      c = (char)(c - 'A' + 'a');
    else if (c == ' ' || c == '-')
      c = '_';
    buf[n++] = c;
  }
  buf[n] = '\0';
  return n;
}

static rq_role alias_role(const char *name) {
  for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
    if (strcmp(aliases[i].name, name) == 0)
      return aliases[i].role;
  return RQ_NONE;
}

static bool is_duration(rq_role r) { return r == RQ_LATENCY || r == RQ_TTFT || r == RQ_TPOT; }

/* The role of a header cell; durations also get their unit from a suffix. */
static rq_role column_role(const char *text, size_t len, const char **unit) {
  char buf[64];
  size_t n = normalize(buf, sizeof(buf), text, len);
  rq_role r = alias_role(buf);
  *unit = "s";
  if (r != RQ_NONE || len >= sizeof(buf))
    return r;
  for (size_t i = 0; i < sizeof(duration_suffixes) / sizeof(duration_suffixes[0]); i++) {
    size_t sl = strlen(duration_suffixes[i].suffix);
    if (n <= sl || strcmp(buf + n - sl, duration_suffixes[i].suffix) != 0)
      continue;
    buf[n - sl] = '\0';
    r = alias_role(buf);
    buf[n - sl] = duration_suffixes[i].suffix[0];
    if (is_duration(r)) {
      *unit = duration_suffixes[i].unit;
      return r;
    }
  }
  return RQ_NONE;
}

static bool has_request_role(const bool *has) {
  return has[RQ_PROMPT] || has[RQ_OUTPUT] || has[RQ_LATENCY] || has[RQ_TTFT] || has[RQ_TPOT];
}

/* Whether a header names a native column (or an x_ column), which native
 * files keep: a header of native names only is read as native. */
static bool is_native_name(const rs_csv_field *f) {
  rs_column c;
  size_t len = f->len;
  const char *s = rs_ingest_trim(f->text, &len);
  return (len >= 2 && s[0] == 'x' && s[1] == '_') || rs_column_from_name(&c, s, len) == RS_OK;
}

bool rs_ingest_requests_is_header(const rs_csv_field *fields, size_t n) {
  bool has[RQ_NONE + 1] = {false};
  bool all_native = true;
  for (size_t i = 0; i < n; i++) {
    const char *unit;
    size_t len = fields[i].len;
    const char *s = rs_ingest_trim(fields[i].text, &len);
    has[column_role(s, len, &unit)] = true;
    all_native = all_native && is_native_name(&fields[i]);
  }
  return !all_native && has[RQ_TIME] && has_request_role(has);
}

static rs_status header_fail(const rq_run *r, const rs_csv_field *f, rs_error *err) {
  if (!r->has_role[RQ_TIME])
    return rs_error_set(err, RS_INVALID, r->path, f->line, f->col,
                        "missing required column 'timestamp' (or time, arrival_time) in a "
                        "request log, see docs/samples-format.md");
  return rs_error_set(err, RS_INVALID, r->path, f->line, f->col,
                      "missing a request column: expected prompt_tokens, output_tokens, "
                      "latency, ttft or tpot (or an alias, see docs/samples-format.md)");
}

static rs_status read_header(rq_run *r, rs_arena *arena, const rs_csv_field *f, size_t n,
                             rs_error *err) {
  size_t first[RQ_NONE];
  r->cols = rs_arena_alloc_array(arena, n, sizeof(*r->cols));
  if (r->cols == NULL)
    return rs_arena_error(arena, err, r->path, "while reading the header");
  r->ncols = n;
  for (size_t i = 0; i < n; i++) {
    size_t len = f[i].len;
    const char *s = rs_ingest_trim(f[i].text, &len);
    rq_col *c = &r->cols[i];
    c->role = column_role(s, len, &c->unit);
    c->name = rs_arena_strndup(arena, s, len);
    if (c->name == NULL)
      return rs_arena_error(arena, err, r->path, "while reading the header");
    if (c->role == RQ_NONE)
      continue;
    if (r->has_role[c->role])
      return rs_error_set(err, RS_INVALID, r->path, f[i].line, f[i].col,
                          "column '%s' repeats column %zu '%s' (both hold the %s)", c->name,
                          first[c->role] + 1, r->cols[first[c->role]].name, role_names[c->role]);
    r->has_role[c->role] = true;
    first[c->role] = i;
  }
  if (!r->has_role[RQ_TIME] || !has_request_role(r->has_role))
    return header_fail(r, &f[0], err);
  return RS_OK;
}

/* ---- cells ---- */

static rs_status cell_fail(const rq_run *r, const rq_col *c, const rs_csv_field *f,
                           const char *text, size_t len, const char *what, rs_error *err) {
  int shown = (int)(len > RS_INGEST_QUOTE_MAX ? RS_INGEST_QUOTE_MAX : len);
  return rs_error_set(err, RS_INVALID, r->path, f->line, f->col,
                      "expected %s in column '%s', got '%.*s%s'", what, c->name, shown, text,
                      len > RS_INGEST_QUOTE_MAX ? "..." : "");
}

/* A status that means success: an HTTP 2xx code or a word such as "ok". */
static bool status_ok(const char *s, size_t len) {
  static const char *const words[] = {"ok", "success", "succeeded", "completed", "finished"};
  char buf[16];
  int64_t code;
  if (rs_num_parse_int64(s, len, &code) == RS_OK)
    return code >= 200 && code <= 299;
  if (len >= sizeof(buf))
    return false;
  normalize(buf, sizeof(buf), s, len);
  for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
    if (strcmp(buf, words[i]) == 0)
      return true;
  return false;
}

static rs_status parse_number(const rq_run *r, const rq_col *c, const rs_csv_field *f,
                              const char *s, size_t len, double *out, rs_error *err) {
  double v;
  rs_status st;
  if (!is_duration(c->role)) {
    st = rs_num_parse_double(s, len, &v);
    if (st != RS_OK || !isfinite(v))
      return cell_fail(r, c, f, s, len, "a token count", err);
    if (v < 0)
      return cell_fail(r, c, f, s, len, "a token count >= 0", err);
    *out = v + 0.0;
    return RS_OK;
  }
  st = rs_units_parse(RS_UNIT_SECONDS, s, len, c->unit, &v);
  if (st != RS_OK) {
    char what[64];
    snprintf(what, sizeof(what), "a duration >= 0 (in %s, or with a unit such as 350ms)", c->unit);
    return cell_fail(r, c, f, s, len, what, err);
  }
  *out = v * 1e3 + 0.0; /* seconds -> ms */
  return RS_OK;
}

static rs_status parse_cell(const rq_run *r, const rq_col *c, const rs_csv_field *f, request *q,
                            rs_error *err) {
  size_t len = f->len;
  const char *s = rs_ingest_trim(f->text, &len);
  if (c->role == RQ_TIME) {
    if (len == 0)
      return rs_error_set(err, RS_INVALID, r->path, f->line, f->col,
                          "expected a timestamp in column '%s', got an empty cell", c->name);
    if (rs_time_parse(s, len, &q->t) != RS_OK)
      return cell_fail(r, c, f, s, len, "a timestamp (unix seconds or YYYY-MM-DD HH:MM:SS[.f])",
                       err);
    return RS_OK;
  }
  if (c->role == RQ_NONE || len == 0)
    return RS_OK;
  if (c->role == RQ_STATUS) {
    q->ok = status_ok(s, len);
    return RS_OK;
  }
  q->has[c->role] = true;
  return parse_number(r, c, f, s, len, &q->val[c->role], err);
}

static rs_status parse_row(const rq_run *r, const rs_csv_field *f, size_t n, request *q,
                           rs_error *err) {
  memset(q, 0, sizeof(*q));
  q->ok = true;
  if (n != r->ncols) {
    size_t line = n > r->ncols ? f[r->ncols].line : f[n - 1].line;
    size_t col = n > r->ncols ? f[r->ncols].col : f[n - 1].col + f[n - 1].len;
    return rs_error_set(err, RS_INVALID, r->path, line, col,
                        "row has %zu fields, expected %zu (as in the header)", n, r->ncols);
  }
  for (size_t i = 0; i < n; i++) {
    rs_status st = parse_cell(r, &r->cols[i], &f[i], q, err);
    if (st != RS_OK)
      return st;
  }
  return RS_OK;
}

/* ---- intervals ---- */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The q-quantile of sorted v[0..n), interpolated between order statistics
 * (numpy.percentile's default, "linear"). */
static double quantile(const double *v, size_t n, double q) {
  double pos = q * (double)(n - 1);
  size_t i = (size_t)floor(pos);
  if (i + 1 >= n)
    return v[n - 1];
  return v[i] + (pos - (double)i) * (v[i + 1] - v[i]);
}

static rs_status vec_push(vec *x, double v) {
  if (x->n == x->cap) {
    size_t cap = x->cap ? x->cap * 2 : 256;
    double *p;
    if (x->n >= MAX_PER_INTERVAL)
      return RS_LIMIT;
    p = rs_realloc_array(x->v, cap, sizeof(*p));
    if (p == NULL)
      return RS_NOMEM;
    x->v = p;
    x->cap = cap;
  }
  x->v[x->n++] = v;
  return RS_OK;
}

static rs_status emit(rq_run *r, const rs_sample *s, rs_error *err) {
  rs_status st = r->sink(r->ctx, s, err);
  if (st == RS_OK)
    r->rows++;
  return st;
}

/* Hands the open interval's row to the sink and opens the next. A full
 * interval carries rates; the log's last one, cut short, only percentiles. */
static rs_status close_interval(rq_run *r, bool full, rs_error *err) {
  rs_sample s;
  memset(&s, 0, sizeof(s));
  s.gpu = -1;
  s.path = r->path;
  s.line = r->last_line;
  s.t = full ? r->origin + (double)(r->k + 1) * r->width : r->last_t;
  if (full) {
    s.v[RS_METRIC_REQUEST_RATE] = (double)r->arrivals / r->width;
    s.v[RS_METRIC_PROMPT_TOKEN_RATE] = r->tokens[0] / r->width;
    s.v[RS_METRIC_OUTPUT_TOKEN_RATE] = r->tokens[1] / r->width;
    s.present |= 1u << RS_METRIC_REQUEST_RATE;
    s.present |= r->has_role[RQ_PROMPT] ? 1u << RS_METRIC_PROMPT_TOKEN_RATE : 0;
    s.present |= r->has_role[RQ_OUTPUT] ? 1u << RS_METRIC_OUTPUT_TOKEN_RATE : 0;
  }
  for (int d = 0; d < 3; d++) {
    vec *x = &r->dur[d];
    if (x->n == 0)
      continue;
    if (x->n > 1) /* qsort(NULL, 0, ...) is undefined */
      qsort(x->v, x->n, sizeof(*x->v), cmp_double);
    for (int q = 0; q < 3; q++) {
      s.v[pct_metrics[d][q]] = quantile(x->v, x->n, levels[q]);
      s.present |= 1u << pct_metrics[d][q];
    }
    x->n = 0;
  }
  r->arrivals = 0;
  r->tokens[0] = r->tokens[1] = 0.0;
  r->k++;
  if (s.present == 0)
    return RS_OK; /* a cut-short interval without latencies says nothing */
  return emit(r, &s, err);
}

/* Closes every interval that ends at or before t (empty ones carry zero rates). */
static rs_status advance(rq_run *r, double t, size_t line, rs_error *err) {
  double k = floor((t - r->origin) / r->width);
  if (k > (double)MAX_INTERVALS)
    return rs_error_set(err, RS_LIMIT, r->path, line, 1,
                        "the log spans more than %llu intervals of %g s; check the timestamps "
                        "or pass a longer --request-interval",
                        (unsigned long long)MAX_INTERVALS, r->width);
  while ((double)r->k < k) {
    rs_status st = close_interval(r, true, err);
    if (st != RS_OK)
      return st;
  }
  return RS_OK;
}

static rs_status take_durations(rq_run *r, const request *q, size_t line, rs_error *err) {
  static const rq_role roles[3] = {RQ_LATENCY, RQ_TTFT, RQ_TPOT};
  for (int d = 0; d < 3; d++) {
    rs_status st;
    if (!q->has[roles[d]])
      continue;
    st = vec_push(&r->dur[d], q->val[roles[d]]);
    if (st == RS_LIMIT)
      return rs_error_set(err, RS_LIMIT, r->path, line, 1,
                          "more than %zu requests in one interval; pass a shorter "
                          "--request-interval",
                          MAX_PER_INTERVAL);
    if (st != RS_OK)
      return rs_error_set(err, RS_NOMEM, r->path, line, 1, "out of memory for latencies");
  }
  return RS_OK;
}

/* One request: close the intervals before it, count it, emit its token row. */
static rs_status take(rq_run *r, const request *q, const rs_csv_field *tf, rs_error *err) {
  rs_sample s;
  rs_status st;
  if (!r->started) {
    r->started = true;
    r->origin = q->t;
  } else if (q->t < r->last_t) {
    char a[32], b[32];
    rs_time_format(q->t, a, sizeof(a));
    rs_time_format(r->last_t, b, sizeof(b));
    return rs_error_set(err, RS_INVALID, r->path, tf->line, tf->col,
                        "timestamp goes backwards (%s after %s), expected requests in time "
                        "order; sort the log by its time column",
                        a, b);
  }
  st = advance(r, q->t, tf->line, err);
  r->last_t = q->t;
  r->last_line = tf->line;
  r->arrivals++;
  if (st != RS_OK || !q->ok)
    return st; /* a failed request is load, not served work: no tokens, no latencies */
  r->tokens[0] += q->has[RQ_PROMPT] ? q->val[RQ_PROMPT] : 0.0;
  r->tokens[1] += q->has[RQ_OUTPUT] ? q->val[RQ_OUTPUT] : 0.0;
  if ((st = take_durations(r, q, tf->line, err)) != RS_OK)
    return st;
  if (!q->has[RQ_PROMPT] && !q->has[RQ_OUTPUT])
    return RS_OK;
  memset(&s, 0, sizeof(s));
  s.t = q->t;
  s.gpu = -1;
  s.path = r->path;
  s.line = tf->line;
  s.t_col = tf->col;
  s.v[RS_METRIC_PROMPT_TOKENS] = q->val[RQ_PROMPT];
  s.v[RS_METRIC_OUTPUT_TOKENS] = q->val[RQ_OUTPUT];
  s.present = (q->has[RQ_PROMPT] ? 1u << RS_METRIC_PROMPT_TOKENS : 0) |
              (q->has[RQ_OUTPUT] ? 1u << RS_METRIC_OUTPUT_TOKENS : 0);
  return emit(r, &s, err);
}

static size_t time_column(const rq_run *r) {
  for (size_t i = 0; i < r->ncols; i++)
    if (r->cols[i].role == RQ_TIME)
      return i;
  return 0;
}

static rs_status read_rows(rq_run *r, rs_csv_reader *reader, size_t next_line, rs_error *err) {
  const rs_csv_field *f;
  size_t n, tcol = time_column(r);
  request q;
  rs_status st;
  while ((st = rs_csv_next(reader, &f, &n, err)) == RS_OK && n > 0) {
    st = parse_row(r, f, n, &q, err);
    if (st == RS_OK)
      st = take(r, &q, &f[tcol], err);
    if (st != RS_OK)
      return st;
  }
  if (st != RS_OK)
    return st;
  if (!r->started)
    return rs_error_set(err, RS_INVALID, r->path, next_line, 1,
                        "no samples: the request log has a header but no rows");
  return close_interval(r, false, err);
}

rs_status rs_ingest_requests_read(rs_csv_reader *reader, const char *path,
                                  const rs_csv_field *header, size_t n,
                                  const rs_ingest_options *opts, rs_sample_sink sink, void *ctx,
                                  uint64_t *rows, rs_error *err) {
  rq_run r;
  rs_arena arena;
  rs_status st;
  memset(&r, 0, sizeof(r));
  r.path = path;
  r.sink = sink;
  r.ctx = ctx;
  r.width = opts && opts->interval_s > 0 ? opts->interval_s : RS_INGEST_INTERVAL_DEFAULT;
  rs_arena_init(&arena, 0);
  st = read_header(&r, &arena, header, n, err);
  if (st == RS_OK)
    st = read_rows(&r, reader, header[n - 1].line + 1, err);
  for (int d = 0; d < 3; d++)
    free(r.dur[d].v);
  rs_arena_release(&arena);
  *rows = r.rows;
  return st;
}
