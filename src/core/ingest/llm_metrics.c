/* The LLM serving stacks' own metrics (vLLM, TGI, SGLang) in exported
 * series: the default mapping of docs/sources.md ("LLM serving metrics").
 *
 * Gauges map as any default rule does. Counters (token and request totals)
 * and histograms (TTFT, TPOT, end-to-end latency) are collected per series
 * and turned into rates (the increase between two points over their time
 * apart; a decrease is a restart, counted from 0) and into p50/p95/p99 per
 * point from the buckets' increases, interpolated within a bucket as
 * Prometheus' histogram_quantile does. Series of one metric with different
 * labels are summed (by le for histograms). A document reader turns them
 * at the end of the file (rs_llm_finish); the exposition stream in batches
 * of older times (rs_llm_flush), each series and bucket remembering only its
 * last point, with the same sorts and sums, so the same values. */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest_internal.h"
#include "rightsize/doc.h"
#include "rightsize/num.h"

typedef enum { GAUGE, COUNTER, HISTOGRAM } llm_kind;

/* name, kind, metric (a histogram's p50; p95 and p99 follow it in the
 * metric list), scale to the canonical unit. */
static const struct {
  const char *name;
  llm_kind kind;
  rs_metric metric;
  double scale;
} llm_table[] = {
    /* vLLM */
    {"vllm:num_requests_running", GAUGE, RS_METRIC_REQUESTS_RUNNING, 1.0},
    {"vllm:num_requests_waiting", GAUGE, RS_METRIC_REQUESTS_WAITING, 1.0},
    {"vllm:gpu_cache_usage_perc", GAUGE, RS_METRIC_KV_CACHE_USAGE, 100.0}, /* a 0..1 fraction */
    {"vllm:kv_cache_usage_perc", GAUGE, RS_METRIC_KV_CACHE_USAGE, 100.0},
    {"vllm:prompt_tokens_total", COUNTER, RS_METRIC_PROMPT_TOKEN_RATE, 1.0},
    {"vllm:generation_tokens_total", COUNTER, RS_METRIC_OUTPUT_TOKEN_RATE, 1.0},
    {"vllm:request_success_total", COUNTER, RS_METRIC_REQUEST_RATE, 1.0},
    {"vllm:time_to_first_token_seconds", HISTOGRAM, RS_METRIC_TTFT_P50, 1e3},
    {"vllm:time_per_output_token_seconds", HISTOGRAM, RS_METRIC_TPOT_P50, 1e3},
    {"vllm:inter_token_latency_seconds", HISTOGRAM, RS_METRIC_TPOT_P50, 1e3},
    {"vllm:e2e_request_latency_seconds", HISTOGRAM, RS_METRIC_LATENCY_P50, 1e3},
    /* Hugging Face Text Generation Inference */
    {"tgi_batch_current_size", GAUGE, RS_METRIC_REQUESTS_RUNNING, 1.0},
    {"tgi_queue_size", GAUGE, RS_METRIC_REQUESTS_WAITING, 1.0},
    {"tgi_request_count", COUNTER, RS_METRIC_REQUEST_RATE, 1.0},
    {"tgi_request_duration", HISTOGRAM, RS_METRIC_LATENCY_P50, 1e3},
    {"tgi_request_mean_time_per_token_duration", HISTOGRAM, RS_METRIC_TPOT_P50, 1e3},
    /* SGLang */
    {"sglang:num_running_reqs", GAUGE, RS_METRIC_REQUESTS_RUNNING, 1.0},
    {"sglang:num_queue_reqs", GAUGE, RS_METRIC_REQUESTS_WAITING, 1.0},
    {"sglang:token_usage", GAUGE, RS_METRIC_KV_CACHE_USAGE, 100.0},
    {"sglang:prompt_tokens_total", COUNTER, RS_METRIC_PROMPT_TOKEN_RATE, 1.0},
    {"sglang:generation_tokens_total", COUNTER, RS_METRIC_OUTPUT_TOKEN_RATE, 1.0},
    {"sglang:num_requests_total", COUNTER, RS_METRIC_REQUEST_RATE, 1.0},
    {"sglang:time_to_first_token_seconds", HISTOGRAM, RS_METRIC_TTFT_P50, 1e3},
    {"sglang:time_per_output_token_seconds", HISTOGRAM, RS_METRIC_TPOT_P50, 1e3},
    {"sglang:inter_token_latency_seconds", HISTOGRAM, RS_METRIC_TPOT_P50, 1e3},
    {"sglang:e2e_request_latency_seconds", HISTOGRAM, RS_METRIC_LATENCY_P50, 1e3},
};
#define NTABLE (sizeof(llm_table) / sizeof(llm_table[0]))

/* The most raw points kept for counters and histograms in one file. */
#define MAX_RAW ((size_t)1 << 26)

typedef struct raw {
  size_t family; /* index in llm_table */
  size_t series; /* one per exported series, in file order */
  double le;     /* bucket bound (INFINITY: +Inf); 0 for counters */
  double t, v;
  size_t line, col; /* the series' name, for messages */
} raw;

/* The most series of counters and histograms one text exposition file may hold. */
#define MAX_TEXT_SERIES 4096
#define TEXT_SLOTS (2 * MAX_TEXT_SERIES) /* open addressing, load at most a half */

/* A text exposition series: its interned key and other labels. */
typedef struct text_series {
  const char *key;
  uint64_t others;
  size_t id;
} text_series;

/* The last point of one series and bucket handed on: the next batch's
 * increases start from it. */
typedef struct last_point {
  size_t series; /* + 1; 0: a free slot */
  double le, t, v;
} last_point;

/* Bucket bounds read before, by hash of their text: a dump repeats a few
 * dozen, some too long for the number parser's fast path (TGI's
 * 0.000015000000000000002). */
#define BOUND_SLOTS 256
#define BOUND_TEXT 32
typedef struct bound {
  char text[BOUND_TEXT];
  size_t len; /* 0: a free slot */
  double v;
} bound;

struct rs_llm_acc {
  bound bounds[BOUND_SLOTS];
  raw *r; /* points not handed on yet, in file order */
  size_t n, cap;
  raw *work; /* a batch and its increases */
  size_t work_cap;
  last_point *last; /* by hash of (series, le) */
  size_t nlast, last_cap;
  text_series text[MAX_TEXT_SERIES];
  unsigned text_slot[TEXT_SLOTS]; /* index in text + 1; 0 free */
  size_t ntext, text_hit;         /* text_hit: the previous line's series */
};

bool rs_llm_gauge(const char *key, rs_metric *metric, double *scale) {
  for (size_t i = 0; i < NTABLE; i++) {
    if (llm_table[i].kind == GAUGE && strcmp(llm_table[i].name, key) == 0) {
      *metric = llm_table[i].metric;
      *scale = llm_table[i].scale;
      return true;
    }
  }
  return false;
}

static bool ends_with(const char *s, size_t n, const char *suffix, size_t *base) {
  size_t k = strlen(suffix);
  if (n < k || strcmp(s + n - k, suffix) != 0)
    return false;
  *base = n - k;
  return true;
}

int rs_llm_series(const char *key, bool *bucket) {
  size_t n = strlen(key), base = n;
  *bucket = ends_with(key, n, "_bucket", &base);
  if (!*bucket && !ends_with(key, n, "_sum", &base) && !ends_with(key, n, "_count", &base))
    base = n;
  for (size_t i = 0; i < NTABLE; i++) {
    const char *name = llm_table[i].name;
    if (llm_table[i].kind == COUNTER && strcmp(name, key) == 0)
      return (int)i;
    if (llm_table[i].kind == HISTOGRAM && base < n && strlen(name) == base &&
        memcmp(name, key, base) == 0)
      return (int)i;
  }
  return -1;
}

static struct rs_llm_acc *acc(rs_export *x) {
  if (x->llm == NULL)
    x->llm = calloc(1, sizeof(*x->llm));
  return x->llm;
}

/* The value of an le label's text, from the bounds read before or parsed. */
static rs_status bound_of(struct rs_llm_acc *a, const char *le, size_t len, double *out) {
  bound *b = a != NULL ? &a->bounds[rs_llm_hash(0, le, len) & (BOUND_SLOTS - 1)] : NULL;
  if (b == NULL)
    return rs_export_number(le, len, out);
  if (b->len == len && memcmp(b->text, le, len) == 0) {
    *out = b->v;
    return RS_OK;
  }
  if (rs_export_number(le, len, out) != RS_OK)
    return RS_INVALID;
  if (len > 0 && len <= BOUND_TEXT) {
    memcpy(b->text, le, len);
    b->len = len;
    b->v = *out;
  }
  return RS_OK;
}

static rs_status push(rs_export *x, const raw *p, rs_error *err) {
  struct rs_llm_acc *a = acc(x);
  if (a == NULL)
    return rs_error_set(err, RS_NOMEM, x->path, p->line, p->col, "out of memory for series");
  if (a->n == a->cap) {
    size_t cap = a->cap ? a->cap * 2 : 1024;
    raw *grown;
    if (a->n >= MAX_RAW)
      return rs_error_set(err, RS_LIMIT, x->path, p->line, p->col,
                          "more than %zu counter and histogram points in one file", MAX_RAW);
    grown = rs_realloc_array(a->r, cap, sizeof(*grown));
    if (grown == NULL)
      return rs_error_set(err, RS_NOMEM, x->path, p->line, p->col, "out of memory for series");
    a->r = grown;
    a->cap = cap;
  }
  a->r[a->n++] = *p;
  return RS_OK;
}

size_t rs_llm_begin_series(rs_export *x) {
  x->series++;
  x->mapped++;
  return x->llm_series++;
}

rs_status rs_llm_add(rs_export *x, int family, size_t series, const char *le, size_t le_len,
                     double t, const char *text, size_t len, size_t line, size_t col,
                     rs_error *err) {
  raw p = {(size_t)family, series, 0.0, t, 0.0, line, col};
  const char *name = llm_table[family].name;
  if (len == 3 && memcmp(text, "NaN", 3) == 0)
    return RS_OK;
  if (rs_export_number(text, len, &p.v) != RS_OK || p.v < 0)
    return rs_error_set(err, RS_INVALID, x->path, line, col,
                        "expected a count >= 0 in series '%s', got '%.*s'", name,
                        (int)(len > RS_INGEST_QUOTE_MAX ? RS_INGEST_QUOTE_MAX : len), text);
  if (llm_table[family].kind == HISTOGRAM) {
    if (le == NULL)
      return rs_error_set(err, RS_INVALID, x->path, line, col,
                          "expected an 'le' label on the buckets of '%s'", name);
    if (le_len == 4 && memcmp(le, "+Inf", 4) == 0)
      p.le = INFINITY;
    else if (bound_of(acc(x), le, le_len, &p.le) != RS_OK)
      return rs_error_set(err, RS_INVALID, x->path, line, col,
                          "expected a number or +Inf in the 'le' label of '%s', got '%.*s'", name,
                          (int)(le_len > RS_INGEST_QUOTE_MAX ? RS_INGEST_QUOTE_MAX : le_len), le);
  }
  return push(x, &p, err);
}

/* Whether a mapping file has a rule for key (it then wins over the LLM table). */
static bool user_rule(const rs_export *x, const char *key) {
  for (size_t i = 0; i < x->map->nrules; i++)
    if (strcmp(x->map->rules[i].key, key) == 0)
      return true;
  return false;
}

/* A vLLM, TGI or SGLang counter or histogram series (llm_metrics.c): every
 * point is kept for rs_llm_finish; _sum and _count series are not needed. */
rs_status rs_llm_prom_series(rs_export *x, const rs_node *labels, const rs_node *values,
                             const rs_node *key, rs_error *err) {
  bool bucket = false;
  int family = rs_llm_series(key->text, &bucket);
  const char *name = strrchr(key->text, '_');
  const rs_node *le = rs_node_get(labels, "le");
  size_t id = rs_llm_begin_series(x);
  rs_status st = RS_OK;
  if (!bucket && name != NULL && (strcmp(name, "_sum") == 0 || strcmp(name, "_count") == 0))
    return RS_OK;
  for (size_t i = 0; st == RS_OK && i < values->n; i++) {
    const rs_node *pt = values->items[i];
    double t;
    if (pt->kind != RS_NODE_SEQ || pt->n != 2 || pt->items[0]->kind != RS_NODE_SCALAR ||
        pt->items[1]->kind != RS_NODE_SCALAR ||
        rs_num_parse_double(pt->items[0]->text, pt->items[0]->len, &t) != RS_OK || t < 0)
      return rs_error_set(err, RS_INVALID, x->path, pt->line, pt->col,
                          "expected a point [unix_seconds, \"value\"] in series '%s'", key->text);
    st = rs_llm_add(x, family, id, le && le->kind == RS_NODE_SCALAR ? le->text : NULL,
                    le ? le->len : 0, t, pt->items[1]->text, pt->items[1]->len, pt->items[1]->line,
                    pt->items[1]->col, err);
  }
  return st;
}

bool rs_llm_is_series(const rs_export *x, const char *key) {
  bool bucket;
  return !user_rule(x, key) && rs_llm_series(key, &bucket) >= 0;
}

uint64_t rs_llm_hash(uint64_t h, const char *s, size_t len) {
  size_t i = 0;
  if (h == 0)
    h = 14695981039346656037ull;
  for (; i + 8 <= len; i += 8) { /* a word at a time, then FNV-1a for the tail */
    uint64_t w;
    memcpy(&w, s + i, sizeof(w));
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31;
  }
  for (; i < len; i++)
    h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
}

bool rs_llm_kept(int family, bool bucket) {
  return family >= 0 && (llm_table[family].kind != HISTOGRAM || bucket);
}

rs_status rs_llm_text_point(rs_export *x, int family, const char *key, uint64_t others,
                            const char *le, size_t le_len, double t, const char *text, size_t len,
                            size_t line, size_t col, rs_error *err) {
  struct rs_llm_acc *a = acc(x);
  size_t i, h;
  if (a == NULL)
    return rs_error_set(err, RS_NOMEM, x->path, line, col, "out of memory for series");
  assert(rs_llm_kept(family, true));
  i = a->text_hit; /* the buckets of one series come line after line */
  if (i < a->ntext && a->text[i].others == others && a->text[i].key == key)
    return rs_llm_add(x, family, a->text[i].id, le, le_len, t, text, len, line, col, err);
  h = (size_t)rs_llm_hash(others, (const char *)&key, sizeof(key)) & (TEXT_SLOTS - 1);
  for (; a->text_slot[h] != 0; h = (h + 1) & (TEXT_SLOTS - 1)) {
    i = a->text_slot[h] - 1;
    if (a->text[i].others == others && a->text[i].key == key)
      break;
  }
  if (a->text_slot[h] == 0) {
    i = a->ntext;
    if (i == MAX_TEXT_SERIES)
      return rs_error_set(err, RS_LIMIT, x->path, line, col,
                          "more than %d counter and histogram series in one file, expected at most "
                          "%d (see docs/sources.md, \"Size limits\")",
                          MAX_TEXT_SERIES, MAX_TEXT_SERIES);
    a->text[i] = (text_series){key, others, rs_llm_begin_series(x)};
    a->text_slot[h] = (unsigned)i + 1;
    a->ntext++;
  }
  a->text_hit = i;
  return rs_llm_add(x, family, a->text[i].id, le, le_len, t, text, len, line, col, err);
}

void rs_llm_free(struct rs_llm_acc *a) {
  if (a == NULL)
    return;
  free(a->r);
  free(a->work);
  free(a->last);
  free(a);
}

size_t rs_llm_pending(const rs_export *x) { return x->llm != NULL ? x->llm->n : 0; }

double rs_llm_recent(const rs_export *x) {
  const struct rs_llm_acc *a = x->llm;
  double oldest;
  assert(a != NULL && a->n > 0);
  oldest = a->r[a->n - 1].t;
  for (size_t i = a->n - a->n / 4; i < a->n; i++)
    if (a->r[i].t < oldest)
      oldest = a->r[i].t;
  return oldest;
}

size_t rs_llm_buckets(const rs_export *x) { return x->llm != NULL ? x->llm->nlast : 0; }

/* ---- handing on: increases, rates and quantiles ---- */

/* File order (line, then column) breaks the ties of both sorts: the order
 * a stable sort of the points as read gives. */
static int by_place(const raw *a, const raw *b) {
  if (a->line != b->line)
    return a->line < b->line ? -1 : 1;
  return (a->col > b->col) - (a->col < b->col);
}

static int by_series(const void *pa, const void *pb) {
  const raw *a = pa, *b = pb;
  if (a->family != b->family)
    return a->family < b->family ? -1 : 1;
  if (a->series != b->series)
    return a->series < b->series ? -1 : 1;
  if (a->le != b->le)
    return a->le < b->le ? -1 : 1;
  if (a->t != b->t)
    return a->t < b->t ? -1 : 1;
  return by_place(a, b);
}

static size_t last_hash(size_t series, double le) {
  uint64_t bits, h;
  le += 0.0; /* -0 and 0 are one bound */
  memcpy(&bits, &le, sizeof(bits));
  h = ((uint64_t)series + 1) * 0x9E3779B97F4A7C15u ^ bits * 0xC2B2AE3D27D4EB4Fu;
  return (size_t)(h ^ h >> 29);
}

/* The slot of (series, le) in the last points, NULL when out of memory. */
static last_point *last_of(struct rs_llm_acc *a, size_t series, double le) {
  size_t h;
  if (2 * (a->nlast + 1) > a->last_cap) { /* grow: load at most a half */
    size_t cap = a->last_cap ? 2 * a->last_cap : 256;
    last_point *t = calloc(cap, sizeof(*t));
    if (t == NULL)
      return NULL;
    for (size_t i = 0; i < a->last_cap; i++) {
      if (a->last[i].series == 0)
        continue;
      h = last_hash(a->last[i].series - 1, a->last[i].le) & (cap - 1);
      while (t[h].series != 0)
        h = (h + 1) & (cap - 1);
      t[h] = a->last[i];
    }
    free(a->last);
    a->last = t;
    a->last_cap = cap;
  }
  h = last_hash(series, le) & (a->last_cap - 1);
  for (; a->last[h].series != 0; h = (h + 1) & (a->last_cap - 1))
    if (a->last[h].series == series + 1 && a->last[h].le == le)
      return &a->last[h];
  a->last[h] = (last_point){series + 1, le, NAN, 0.0};
  a->nlast++;
  return &a->last[h];
}

/* The increases between consecutive points of each series (r sorted by
 * series, le and time; a series' first point here follows its last one
 * handed on before) into out: a decrease is a restart, counted from 0. A
 * counter's le then holds the seconds since the previous point. */
static rs_status increases(struct rs_llm_acc *a, const raw *r, size_t n, raw *out, size_t *nout) {
  size_t m = 0;
  for (size_t i = 0, j; i < n; i = j) {
    last_point *s = last_of(a, r[i].series, r[i].le);
    double pt, pv;
    if (s == NULL)
      return RS_NOMEM;
    pt = s->t; /* NaN: no point yet, no increase */
    pv = s->v;
    for (j = i; j < n && r[j].series == r[i].series && r[j].le == r[i].le; j++) {
      if (r[j].t > pt) {
        out[m] = r[j];
        out[m].v = r[j].v >= pv ? r[j].v - pv : r[j].v;
        if (llm_table[r[j].family].kind == COUNTER)
          out[m].le = r[j].t - pt;
        m++;
      }
      pt = r[j].t;
      pv = r[j].v;
    }
    s->t = pt;
    s->v = pv;
  }
  *nout = m;
  return RS_OK;
}

/* The increases of r[0..n) when it is in time order as read: each series'
 * points are then in time order too (ties in file order), as the sort by
 * series would put them, so no sort is needed. */
static rs_status increases_in_order(struct rs_llm_acc *a, const raw *r, size_t n, raw *out,
                                    size_t *nout) {
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    last_point *s = last_of(a, r[i].series, r[i].le);
    if (s == NULL)
      return RS_NOMEM;
    if (r[i].t > s->t) { /* NaN: no point yet */
      out[m] = r[i];
      out[m].v = r[i].v >= s->v ? r[i].v - s->v : r[i].v;
      if (llm_table[r[i].family].kind == COUNTER)
        out[m].le = r[i].t - s->t;
      m++;
    }
    s->t = r[i].t;
    s->v = r[i].v;
  }
  *nout = m;
  return RS_OK;
}

static bool time_ordered(const raw *r, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (r[i].t < r[i - 1].t)
      return false;
  return true;
}

static int by_time(const void *pa, const void *pb) {
  const raw *a = pa, *b = pb;
  if (a->family != b->family)
    return a->family < b->family ? -1 : 1;
  if (a->t != b->t)
    return a->t < b->t ? -1 : 1;
  if (a->le != b->le)
    return a->le < b->le ? -1 : 1;
  if (a->series != b->series)
    return a->series < b->series ? -1 : 1;
  return by_place(a, b);
}

/* Sorts in[0..n) by_time into out: by family (counting), then each
 * family's points by time and each time's by le, series and place, sorting
 * only what is not in that order already (a scrape writes its buckets in le
 * order, one series after another). */
static void sort_by_time(const raw *in, size_t n, raw *out) {
  size_t start[NTABLE + 1] = {0};
  for (size_t i = 0; i < n; i++)
    start[in[i].family + 1]++;
  for (size_t f = 0; f < NTABLE; f++)
    start[f + 1] += start[f];
  for (size_t i = 0; i < n; i++)
    out[start[in[i].family]++] = in[i];
  for (size_t f = 0, i = 0; f < NTABLE; i = start[f++]) {
    raw *r = out + i;
    size_t m = start[f] - i;
    if (!time_ordered(r, m)) {
      qsort(r, m, sizeof(*r), by_time);
      continue;
    }
    for (size_t k = 0, j; k < m; k = j) {
      bool ordered = true;
      for (j = k + 1; j < m && r[j].t == r[k].t; j++)
        ordered = ordered && by_time(&r[j - 1], &r[j]) < 0;
      if (!ordered)
        qsort(r + k, j - k, sizeof(*r), by_time);
    }
  }
}

/* A rate or quantile as a point of metric m. A finite value is checked as
 * is (printed with %.17g and read back it is the same double); the text is
 * printed only for a message, or for a value that is not finite. */
static rs_status emit_value(rs_export *x, bool add, rs_metric m, const raw *at, double v,
                            rs_error *err) {
  char text[40];
  rs_series_rule rule = {llm_table[at->family].name, false, m, 1.0, 0.0};
  rs_export_point p;
  bool kept;
  if (isfinite(v)) {
    rs_error quiet;
    rs_error_clear(&quiet);
    if (rs_export_point_value(x, &rule, rule.key, -1, at->t, v, "", 0, at->line, at->col, &p,
                              &quiet) == RS_OK)
      return add ? rs_export_push(x, &p, err) : RS_OK;
  }
  snprintf(text, sizeof(text), "%.17g", v);
  if (add)
    return rs_export_add(x, &rule, llm_table[at->family].name, -1, at->t, text, strlen(text),
                         at->line, at->col, err);
  return rs_export_point_make(x, &rule, llm_table[at->family].name, -1, at->t, text, strlen(text),
                              at->line, at->col, &p, &kept, err);
}

/* histogram_quantile over the cumulative buckets [i, j) of one time. */
static double bucket_quantile(const raw *b, size_t n, double q) {
  double total = b[n - 1].v, rank = q * total, lower = 0.0, below = 0.0;
  if (!isinf(b[n - 1].le) || !(total > 0))
    return NAN;
  for (size_t k = 0; k < n; k++) {
    if (b[k].v >= rank) {
      if (isinf(b[k].le))
        return k > 0 ? b[k - 1].le : NAN;
      if (b[k].v - below <= 0)
        return b[k].le;
      return lower + (b[k].le - lower) * (rank - below) / (b[k].v - below);
    }
    lower = b[k].le;
    below = b[k].v;
  }
  return NAN;
}

/* Sums the runs of equal (time, le) into one cumulative bucket list, made
 * monotonic (scrapes can catch buckets mid-update), then the three quantiles. */
static rs_status histogram_points(rs_export *x, bool add, raw *r, size_t i, size_t j,
                                  rs_error *err) {
  static const double levels[3] = {0.50, 0.95, 0.99};
  size_t m = i;
  for (size_t k = i; k < j; k++) {
    if (k > i && r[k].le == r[m - 1].le)
      r[m - 1].v += r[k].v;
    else
      r[m++] = r[k];
  }
  for (size_t k = i + 1; k < m; k++)
    if (r[k].v < r[k - 1].v)
      r[k].v = r[k - 1].v;
  for (int q = 0; q < 3; q++) {
    double v = bucket_quantile(r + i, m - i, levels[q]);
    rs_status st = isfinite(v) ? emit_value(x, add, (rs_metric)(llm_table[r[i].family].metric + q),
                                            &r[i], v * llm_table[r[i].family].scale, err)
                               : RS_OK;
    if (st != RS_OK)
      return st;
  }
  return RS_OK;
}

static rs_status counter_point(rs_export *x, bool add, const raw *r, size_t i, size_t j,
                               rs_error *err) {
  double rate = 0.0;
  for (size_t k = i; k < j; k++)
    rate += r[k].v / r[k].le;
  return emit_value(x, add, llm_table[r[i].family].metric, &r[i],
                    rate * llm_table[r[i].family].scale, err);
}

/* The batch to hand on: the kept points older than before (all: every
 * one), taken out of a->r (the others stay, in file order), and room after
 * it in a->work for their increases. */
static rs_status take_batch(struct rs_llm_acc *a, double before, bool all, raw **batch,
                            size_t *out) {
  size_t m = 0, keep = 0, need = all ? a->n : 2 * a->n;
  if (a->work_cap < need) {
    raw *w = rs_realloc_array(a->work, need, sizeof(*w));
    if (w == NULL)
      return RS_NOMEM;
    a->work = w;
    a->work_cap = need;
  }
  if (all) { /* sorted where it is: a->work holds the increases */
    *batch = a->r;
    *out = a->n;
    a->n = 0;
    return RS_OK;
  }
  for (size_t i = 0; i < a->n; i++) {
    if (a->r[i].t < before)
      a->work[m++] = a->r[i];
    else
      a->r[keep++] = a->r[i];
  }
  a->n = keep;
  *batch = a->work;
  *out = m;
  return RS_OK;
}

rs_status rs_llm_flush(rs_export *x, double before, bool all, bool add, rs_llm_at *at,
                       rs_error *err) {
  struct rs_llm_acc *a = x->llm;
  raw *batch, *inc;
  size_t m, n, i = 0;
  rs_status st = RS_OK;
  *at = (rs_llm_at){.failed = false};
  if (a == NULL || a->n == 0)
    return RS_OK;
  if (take_batch(a, before, all, &batch, &m) != RS_OK)
    return rs_error_set(err, RS_NOMEM, x->path, 0, 0, "out of memory for series");
  inc = batch == a->work ? a->work + m : a->work;
  at->taken = m;
  for (size_t k = 0; k < m; k++)
    if (k == 0 || batch[k].t > at->latest)
      at->latest = batch[k].t;
  if (time_ordered(batch, m))
    st = increases_in_order(a, batch, m, inc, &n);
  else {
    if (m > 1) /* qsort(NULL, 0, ...) is undefined */
      qsort(batch, m, sizeof(*batch), by_series);
    st = increases(a, batch, m, inc, &n);
  }
  if (st != RS_OK)
    return rs_error_set(err, RS_NOMEM, x->path, 0, 0, "out of memory for series");
  sort_by_time(inc, n, batch); /* the batch is no longer needed */
  inc = batch;
  while (st == RS_OK && i < n) {
    size_t j = i;
    while (j < n && inc[j].family == inc[i].family && inc[j].t == inc[i].t)
      j++;
    if (llm_table[inc[i].family].kind == COUNTER)
      st = counter_point(x, add, inc, i, j, err);
    else
      st = histogram_points(x, add, inc, i, j, err);
    if (st != RS_OK) {
      at->failed = true;
      at->family = inc[i].family;
      at->t = inc[i].t;
    }
    i = j;
  }
  return st;
}

rs_status rs_llm_finish(rs_export *x, rs_error *err) {
  rs_llm_at at;
  return rs_llm_flush(x, 0.0, true, true, &at, err);
}
