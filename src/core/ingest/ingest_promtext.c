/* Prometheus text exposition (format 0.0.4), as DCGM exporter and
 * node_exporter serve it, saved scrape after scrape with a timestamp (in
 * milliseconds) on every sample line: docs/sources.md.
 *
 * Read as a stream: lines through a fixed buffer from rs_instream (plain,
 * gzip, zstd, standard input), each sample checked and kept as a point;
 * once FLUSH_AT points are held, those older than every sample of the
 * newest quarter are sorted and handed on as rows (rs_export_emit_batch),
 * so memory does not grow with the file. Scrapes come in time order in a
 * dump; a sample older than rows already handed on is an error naming it.
 * A file of fewer points than that is read exactly as before streaming
 * (held whole, sorted, emitted). Errors met while handing rows on (two
 * series for one metric, the sink's) wait for the end of the file, so a
 * malformed line anywhere is still the one reported, as when the whole
 * file was read first. vLLM/TGI/SGLang counters and histograms
 * (llm_metrics.c) are kept the same way and become rates and quantiles
 * when the rows of their time are handed on, each series' increase taken
 * from its last point before: memory bounded by the series, not the file.
 * An error in those (a quantile out of range) waits for the end too, and
 * comes before a clash, as when rs_llm_finish ran on the whole file. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ingest_internal.h"
#include "ingest_stream.h"
#include "rightsize/num.h"

/* Points held before the older ones are handed on. */
#define FLUSH_AT ((size_t)1 << 14)
/* The most points held at once: more at one time, or a scrape more out of
 * order than this, is an error. */
#define HOLD_MAX ((size_t)1 << 18)
/* Bytes read at a time, and the longest line. */
#define BLOCK ((size_t)1 << 20)
#define LINE_MAX_BYTES ((size_t)16 << 20)

/* One line being read. */
typedef struct line_ctx {
  rs_export *x;
  const char *start; /* first byte of the line */
  const char *p, *end;
  size_t line;
} line_ctx;

static size_t col_of(const line_ctx *l, const char *at) { return (size_t)(at - l->start) + 1; }

static rs_status fail(const line_ctx *l, const char *at, const char *what, rs_error *err) {
  return rs_error_set(err, RS_INVALID, l->x->path, l->line, col_of(l, at), "%s", what);
}

/* Bytes of names: 1 may start one, 2 may follow. */
#define LETTERS(x) x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x
static const unsigned char name_bytes[256] = {
    ['0'] = 2, ['1'] = 2, ['2'] = 2, ['3'] = 2, ['4'] = 2, ['5'] = 2,          ['6'] = 2,
    ['7'] = 2, ['8'] = 2, ['9'] = 2, [':'] = 3, ['_'] = 3, ['A'] = LETTERS(3), ['a'] = LETTERS(3),
};

static bool name_start(char c) { return name_bytes[(unsigned char)c] & 1; }

static bool name_char(char c) { return name_bytes[(unsigned char)c] != 0; }

static void skip_blanks(line_ctx *l) {
  while (l->p < l->end && (*l->p == ' ' || *l->p == '\t'))
    l->p++;
}

/* The labels we use; the rest are skipped. */
typedef struct labels {
  const char *gpu, *rs_metric, *le;
  size_t gpu_len, rs_metric_len, le_len;
  size_t gpu_col;
  bool hash;         /* fold the other labels into others (LLM series only) */
  uint64_t others;   /* a hash of the other labels: which series of a name */
  unsigned selected; /* bit k: selection match k holds */
} labels;

/* label="value" (escapes \\ \" \n allowed, left in place: only gpu and
 * rs_metric values are used and they hold none). */
static rs_status read_label(line_ctx *l, labels *lb, rs_error *err) {
  const char *name = l->p, *value;
  size_t nlen;
  while (l->p < l->end && name_char(*l->p))
    l->p++;
  nlen = (size_t)(l->p - name);
  if (nlen == 0 || l->p >= l->end || *l->p != '=')
    return fail(l, l->p, "expected a label name=\"value\" in the braces", err);
  l->p++;
  if (l->p >= l->end || *l->p != '"')
    return fail(l, l->p, "expected a quoted label value", err);
  value = ++l->p;
  for (;;) { /* to the closing quote, stepping over escapes */
    const char *q = memchr(l->p, '"', (size_t)(l->end - l->p));
    const char *bs = q ? memchr(l->p, '\\', (size_t)(q - l->p)) : NULL;
    if (q == NULL) {
      l->p = l->end;
      break;
    }
    if (bs == NULL) {
      l->p = q;
      break;
    }
    l->p = bs + 2; /* the escape and the byte after it (bs < q, so both are there) */
  }
  if (l->p >= l->end)
    return fail(l, value - 1, "unterminated label value, expected a closing '\"'", err);
  for (size_t k = 0; l->x->select != NULL && k < l->x->select->n; k++) {
    const rs_label_match *m = &l->x->select->m[k];
    size_t vlen = (size_t)(l->p - value);
    if (strlen(m->key) == nlen && memcmp(m->key, name, nlen) == 0 && strlen(m->value) == vlen &&
        memcmp(m->value, value, vlen) == 0)
      lb->selected |= 1u << k;
  }
  if (nlen == 3 && memcmp(name, "gpu", 3) == 0) {
    lb->gpu = value;
    lb->gpu_len = (size_t)(l->p - value);
    lb->gpu_col = col_of(l, value);
  } else if (nlen == 9 && memcmp(name, "rs_metric", 9) == 0) {
    lb->rs_metric = value;
    lb->rs_metric_len = (size_t)(l->p - value);
  } else if (nlen == 2 && memcmp(name, "le", 2) == 0) {
    lb->le = value;
    lb->le_len = (size_t)(l->p - value);
  } else if (lb->hash) {
    lb->others = rs_llm_hash(lb->others, name, (size_t)(l->p + 1 - name));
  }
  l->p++;
  return RS_OK;
}

static rs_status read_labels(line_ctx *l, labels *lb, bool hash, rs_error *err) {
  rs_status st = RS_OK;
  memset(lb, 0, sizeof(*lb));
  lb->hash = hash;
  if (l->p >= l->end || *l->p != '{')
    return RS_OK;
  l->p++;
  skip_blanks(l);
  while (st == RS_OK && l->p < l->end && *l->p != '}') {
    st = read_label(l, lb, err);
    skip_blanks(l);
    if (st == RS_OK && l->p < l->end && *l->p == ',') {
      l->p++;
      skip_blanks(l);
    } else if (st == RS_OK && (l->p >= l->end || *l->p != '}')) {
      st = fail(l, l->p, "expected ',' or '}' after a label", err);
    }
  }
  if (st == RS_OK && l->p >= l->end)
    return fail(l, l->p, "expected '}' to close the labels", err);
  l->p++;
  return st;
}

static const char *token(line_ctx *l, size_t *len) {
  const char *t = l->p;
  while (l->p < l->end && *l->p != ' ' && *l->p != '\t')
    l->p++;
  *len = (size_t)(l->p - t);
  return t;
}

#define MAX_KEYS 512
#define KEY_SLOTS 2048 /* open addressing, load under a half */

/* An interned series key (a metric name, or an rs_metric label's value)
 * and what is known of it. */
typedef struct key_info {
  const char *key; /* arena, NUL-terminated */
  size_t len;
  bool llm;   /* an LLM counter or histogram series (rs_llm_is_series) */
  bool kept;  /* and its points are kept (not a histogram's _sum or _count) */
  int family; /* its family (rs_llm_series) */
  int ruled;  /* index in rules, -1 until the rule is looked up */
} key_info;

typedef struct text_run {
  rs_export *x;
  key_info keys[KEY_SLOTS]; /* by hash of the key's bytes */
  size_t nkeys;
  key_info *last; /* the previous line's key: most lines repeat it */
  rs_series_rule rules[MAX_KEYS];
  bool found[MAX_KEYS];
  size_t nruled;
  /* handing rows on */
  rs_sample_sink sink;
  void *ctx;
  uint64_t rows;
  size_t flush_at; /* hand on when this many points are held */
  bool emitted;    /* rows were handed on; samples at or before emitted_t are too late */
  double emitted_t;
  bool llm_done; /* counter and histogram points up to llm_done_t were handed on */
  double llm_done_t;
  bool failed; /* handing rows on failed: deferred holds why, points are only checked */
  rs_error deferred;
  rs_status deferred_st;
  /* a counter's rate or a histogram's quantile failed: reported before
   * deferred, the first in the order of the whole file (rs_llm_at) */
  bool llm_failed;
  rs_llm_at llm_at;
  rs_error llm_deferred;
  rs_status llm_deferred_st;
} text_run;

static uint64_t key_hash(const char *s, size_t len) {
  uint64_t h = 1469598103934665603u;
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)s[i]) * 1099511628211u;
  return h;
}

/* The interned key of s[0..len): a file repeats a few names millions of times. */
static key_info *intern(text_run *r, const char *s, size_t len) {
  key_info *k = r->last;
  if (k != NULL && k->len == len && memcmp(k->key, s, len) == 0)
    return k;
  size_t h = (size_t)key_hash(s, len) & (KEY_SLOTS - 1);
  for (; r->keys[h].key != NULL; h = (h + 1) & (KEY_SLOTS - 1))
    if (r->keys[h].len == len && memcmp(r->keys[h].key, s, len) == 0)
      return r->last = &r->keys[h];
  if (r->nkeys >= KEY_SLOTS / 2)
    return NULL;
  k = &r->keys[h];
  if ((k->key = rs_arena_strndup(r->x->arena, s, len)) == NULL)
    return NULL;
  k->len = len;
  k->llm = rs_llm_is_series(r->x, k->key);
  if (k->llm) {
    bool bucket;
    k->family = rs_llm_series(k->key, &bucket);
    k->kept = rs_llm_kept(k->family, bucket);
  }
  k->ruled = -1;
  r->nkeys++;
  return r->last = k;
}

static rs_status rule_for(text_run *r, key_info *k, const rs_series_rule **rule, size_t line,
                          size_t col, rs_error *err) {
  if (k->ruled < 0) {
    size_t i = r->nruled;
    if (i == MAX_KEYS)
      return rs_error_set(err, RS_LIMIT, r->x->path, line, col,
                          "more than %d metric names in one file", MAX_KEYS);
    rs_status st = rs_export_rule(r->x, k->key, &r->rules[i], &r->found[i], line, col, err);
    if (st != RS_OK)
      return st;
    k->ruled = (int)r->nruled++;
  }
  *rule = r->found[k->ruled] ? &r->rules[k->ruled] : NULL;
  return RS_OK;
}

/* Digits only, up to 18 of them: the value; else the full parser's answer. */
static rs_status parse_ms(const char *s, size_t n, int64_t *out) {
  int64_t v = 0;
  size_t i = 0;
  for (; i < n && n <= 18; i++) {
    unsigned d = (unsigned)(unsigned char)s[i] - '0';
    if (d > 9)
      break;
    v = v * 10 + (int64_t)d;
  }
  if (n > 0 && i == n) {
    *out = v;
    return RS_OK;
  }
  return rs_num_parse_int64(s, n, out);
}

static rs_status too_late(text_run *r, const line_ctx *l, const char *at, double t, double done,
                          rs_error *err) {
  char when[32], last[32];
  rs_time_format(t, when, sizeof(when));
  rs_time_format(done, last, sizeof(last));
  return rs_error_set(err, RS_INVALID, r->x->path, l->line, col_of(l, at),
                      "a sample at %s after samples up to %s were read, expected scrapes in "
                      "time order (a sample may come at most %zu samples late, see "
                      "docs/sources.md, \"Size limits\")",
                      when, last, FLUSH_AT / 4);
}

static rs_status flush(text_run *r, bool all, size_t line, size_t col, rs_error *err);

/* A sample of a counter or a histogram bucket: kept until the rows of its
 * time are handed on (flush), with its series told apart by its other
 * labels. at: where a late sample is named. */
static rs_status llm_line(text_run *r, line_ctx *l, const key_info *key, const char *labels_at,
                          double t, const char *at, const char *val, size_t vlen, rs_error *err) {
  labels lb;
  rs_status st;
  if (!key->kept)
    return RS_OK; /* a histogram's _sum or _count: not needed */
  if ((r->emitted && t <= r->emitted_t) || (r->llm_done && t <= r->llm_done_t))
    return too_late(r, l, at, t,
                    r->llm_done && !(r->emitted && r->emitted_t > r->llm_done_t) ? r->llm_done_t
                                                                                 : r->emitted_t,
                    err);
  l->p = labels_at; /* again, for the hash of the other labels */
  if ((st = read_labels(l, &lb, true, err)) != RS_OK)
    return st;
  st = rs_llm_text_point(r->x, key->family, key->key, lb.others, lb.le, lb.le_len, t, val, vlen,
                         l->line, col_of(l, val), err);
  if (st == RS_OK && r->x->n + rs_llm_pending(r->x) >= r->flush_at)
    st = flush(r, false, l->line, col_of(l, val), err);
  return st;
}

static rs_status sample_line(text_run *r, line_ctx *l, rs_error *err) {
  const char *name = l->p, *val, *ts, *labels_at;
  size_t nlen, vlen, tlen;
  labels lb;
  const rs_series_rule *rule = NULL;
  key_info *key;
  int gpu = -1;
  int64_t ms;
  double t;
  while (l->p < l->end && name_char(*l->p))
    l->p++;
  nlen = (size_t)(l->p - name);
  labels_at = l->p;
  rs_status st = read_labels(l, &lb, false, err);
  if (st != RS_OK)
    return st;
  skip_blanks(l);
  val = token(l, &vlen);
  skip_blanks(l);
  ts = token(l, &tlen);
  skip_blanks(l);
  if (vlen == 0)
    return fail(l, val, "expected a value after the metric name", err);
  if (l->p < l->end)
    return fail(l, l->p, "expected the end of the line after the timestamp", err);
  /* A bare scrape (curl :9400/metrics) has no timestamps: it is one
   * instant. Mixing the two would invent an interval. */
  if (r->x->stamped == 0)
    r->x->stamped = tlen ? 1 : 2;
  if (tlen == 0 && r->x->stamped == 1)
    return fail(l, ts,
                "expected a timestamp in milliseconds after the value, as on the lines before "
                "(save scrapes with timestamps, see docs/sources.md)",
                err);
  if (tlen > 0 && r->x->stamped == 2)
    return fail(l, ts,
                "found a timestamp in a scrape whose first samples had none, expected one "
                "scrape without timestamps or scrapes with them (see docs/sources.md)",
                err);
  if (tlen == 0 && !(r->x->instant_t > 0))
    return fail(l, ts,
                "expected a timestamp in milliseconds after the value: a scrape without "
                "timestamps read from standard input has no time of its own (save it to a file, "
                "or record it with 'rightsize record dcgm')",
                err);
  ms = (int64_t)(r->x->instant_t * 1000.0);
  if (tlen > 0 && (parse_ms(ts, tlen, &ms) != RS_OK || !rs_time_in_range((double)ms / 1000.0)))
    return fail(l, ts,
                "expected a timestamp in milliseconds since the epoch, from 1970-01-01 to "
                "9999-12-31 UTC",
                err);
  t = (double)ms / 1000.0;
  if (tlen == 0)
    r->x->notes |= RS_INGEST_NOTE_INSTANT;
  if (r->x->select != NULL && lb.selected != (1u << r->x->select->n) - 1) {
    rs_export_deselect(r->x);
    return RS_OK;
  }
  key = lb.rs_metric ? intern(r, lb.rs_metric, lb.rs_metric_len) : intern(r, name, nlen);
  if (key == NULL)
    return r->nkeys >= KEY_SLOTS / 2
               ? rs_error_set(err, RS_LIMIT, r->x->path, l->line, col_of(l, name),
                              "more than %d series names in one file", KEY_SLOTS / 2)
               : rs_arena_error(r->x->arena, err, r->x->path, "reading the file");
  if (key->llm) /* vLLM, TGI, SGLang counters and histograms */
    return llm_line(r, l, key, labels_at, t, tlen ? ts : val, val, vlen, err);
  st = rule_for(r, key, &rule, l->line, col_of(l, name), err);
  if (st != RS_OK || rule == NULL)
    return st;
  if (lb.gpu != NULL && rs_metric_per_device(rule->metric)) {
    if (lb.gpu_len == 1 && lb.gpu[0] >= '0' && lb.gpu[0] <= '9')
      gpu = lb.gpu[0] - '0';
    else
      st = rs_export_gpu(&gpu, r->x, lb.gpu, lb.gpu_len, l->line, lb.gpu_col, err);
  }
  if (st != RS_OK)
    return st;
  if (r->failed) { /* only checked: the error to report waits */
    rs_export_point p;
    bool kept;
    return rs_export_point_make(r->x, rule, key->key, gpu, t, val, vlen, l->line, col_of(l, val),
                                &p, &kept, err);
  }
  rs_export_point p;
  bool kept;
  st = rs_export_point_make(r->x, rule, key->key, gpu, t, val, vlen, l->line, col_of(l, val), &p,
                            &kept, err);
  if (st != RS_OK || !kept)
    return st;
  if (r->emitted && t <= r->emitted_t)
    return too_late(r, l, tlen ? ts : val, t, r->emitted_t, err);
  st = rs_export_push(r->x, &p, err);
  if (st == RS_OK && r->x->n + rs_llm_pending(r->x) >= r->flush_at)
    st = flush(r, false, l->line, col_of(l, val), err);
  return st;
}

static rs_status one_line(text_run *r, line_ctx *l, rs_error *err) {
  skip_blanks(l);
  if (l->p < l->end && l->end[-1] == '\r')
    l->end--;
  if (l->p == l->end || *l->p == '#')
    return RS_OK; /* blank, # HELP, # TYPE, # EOF or a comment */
  if (!name_start(*l->p))
    return fail(l, l->p, "expected a metric name, a comment or a blank line", err);
  return sample_line(r, l, err);
}

/* ---- handing rows on ---- */

/* Sorts the held points [0, n) as rs_export_emit does: when they came in
 * time order (the usual case), only each time's points among themselves. */
static void sort_held(rs_export *x, size_t n) {
  rs_export_point *p = x->pts;
  size_t i = 1;
  while (i < n && p[i].t >= p[i - 1].t)
    i++;
  if (i < n) {
    rs_export_sort_points(p, n);
    return;
  }
  for (i = 0; i < n;) {
    size_t j = i + 1;
    bool sorted = true;
    for (; j < n && p[j].t == p[i].t; j++)
      sorted = sorted && rs_export_cmp_points(&p[j - 1], &p[j]) < 0;
    if (!sorted)
      rs_export_sort_points(p + i, j - i);
    i = j;
  }
}

/* The oldest time among the newest quarter of the held points and of the
 * kept counter and histogram points. */
static double recent(const rs_export *x) {
  size_t n = x->n;
  double oldest = n > 0 ? x->pts[n - 1].t : 0.0;
  for (size_t i = n - n / 4; i < n; i++)
    if (x->pts[i].t < oldest)
      oldest = x->pts[i].t;
  if (rs_llm_pending(x) > 0) {
    double o = rs_llm_recent(x);
    if (n == 0 || o < oldest)
      oldest = o;
  }
  return oldest;
}

static bool llm_before(const rs_llm_at *a, const rs_llm_at *b) {
  return a->family != b->family ? a->family < b->family : a->t < b->t;
}

/* Turns the counter and histogram points older than before (all: every
 * one) into points held (only checked once handing on failed). An error in
 * those is kept for the end, the first in the order of the whole file. */
static rs_status llm_flush(text_run *r, double before, bool all) {
  rs_export *x = r->x;
  rs_llm_at at;
  rs_error e;
  if (rs_llm_pending(x) == 0)
    return RS_OK;
  rs_error_clear(&e);
  rs_status st = rs_llm_flush(x, before, all, !r->failed && !r->llm_failed, &at, &e);
  if (st != RS_OK && !at.failed)
    return st; /* out of memory */
  if (at.taken > 0 && (!r->llm_done || at.latest > r->llm_done_t)) {
    r->llm_done = true; /* samples at or before it are too late now */
    r->llm_done_t = at.latest;
  }
  if (st != RS_OK && (!r->llm_failed || llm_before(&at, &r->llm_at))) {
    r->llm_failed = true;
    r->llm_at = at;
    r->llm_deferred = e;
    r->llm_deferred_st = st;
  }
  return RS_OK;
}

/* Hands on the rows of the held points older than every point of the
 * newest quarter (all: every held point), keeping the rest; counter and
 * histogram points older than that become held points first. line and
 * col: where the reader is, for the limit's message. */
static rs_status flush(text_run *r, bool all, size_t line, size_t col, rs_error *err) {
  rs_export *x = r->x;
  size_t n, cut;
  double oldest = all ? 0.0 : recent(x);
  rs_status st = llm_flush(r, oldest, all);
  if (st != RS_OK)
    return rs_error_set(err, st, x->path, line, col, "out of memory for series");
  n = cut = x->n;
  sort_held(x, n);
  if (!all)
    for (cut = 0; cut < n && x->pts[cut].t < oldest;)
      cut++;
  if (cut > 0) {
    st = rs_export_emit_batch(x, x->pts, cut, r->sink, r->ctx, &r->rows, err);
    if (st != RS_OK) { /* reported at the end, unless a line is malformed */
      r->failed = true;
      r->deferred = *err;
      r->deferred_st = st;
      rs_error_clear(err); /* the first error set is kept: clear it for the lines to come */
      x->n = 0;
      return RS_OK;
    }
    r->emitted = true;
    r->emitted_t = x->pts[cut - 1].t;
    memmove(x->pts, x->pts + cut, (n - cut) * sizeof(*x->pts));
    x->n = n - cut;
  }
  size_t held = x->n + rs_llm_pending(x);
  if (!all && held >= HOLD_MAX)
    return rs_error_set(err, RS_LIMIT, x->path, line, col,
                        "more than %zu samples at one time or out of time order, expected "
                        "scrapes in time order (see docs/sources.md, \"Size limits\")",
                        HOLD_MAX);
  if (!all && rs_llm_buckets(x) > HOLD_MAX)
    return rs_error_set(err, RS_LIMIT, x->path, line, col,
                        "more than %zu counter and histogram buckets (series and le) in one "
                        "file, expected at most %zu (see docs/sources.md, \"Size limits\")",
                        HOLD_MAX, HOLD_MAX);
  r->flush_at = held + FLUSH_AT / 2 > FLUSH_AT ? held + FLUSH_AT / 2 : FLUSH_AT;
  return RS_OK;
}

/* ---- reading ---- */

typedef struct text_in {
  rs_instream *in;
  char *buf;
  size_t cap, beg, end; /* unread bytes: buf[beg, end) */
  bool eof;
  uint64_t bytes; /* decoded bytes read */
} text_in;

/* Reads more after the unread bytes (moved to the front; the buffer grows
 * for a long line). */
static rs_status fill(text_in *t, const char *path, size_t line, rs_error *err) {
  size_t got = 0;
  if (t->beg > 0) {
    memmove(t->buf, t->buf + t->beg, t->end - t->beg);
    t->end -= t->beg;
    t->beg = 0;
  }
  if (t->end == t->cap) {
    size_t cap = t->cap * 2;
    char *grown;
    if (cap > LINE_MAX_BYTES)
      return rs_error_set(err, RS_LIMIT, path, line, 1, "a line longer than %zu bytes",
                          LINE_MAX_BYTES);
    if ((grown = realloc(t->buf, cap)) == NULL)
      return rs_error_set(err, RS_NOMEM, path, line, 1, "out of memory reading a line");
    t->buf = grown;
    t->cap = cap;
  }
  rs_status st = rs_instream_read(t->in, t->buf + t->end, t->cap - t->end, &got, err);
  if (st != RS_OK)
    return st;
  t->eof = got == 0;
  t->end += got;
  t->bytes += got;
  return RS_OK;
}

static rs_status read_lines(text_run *r, text_in *t, rs_error *err) {
  rs_export *x = r->x;
  size_t line = 1;
  rs_status st = RS_OK;
  while (st == RS_OK && t->end - t->beg < 3 && !t->eof)
    st = fill(t, x->path, line, err);
  if (st == RS_OK && t->end - t->beg >= 3 && memcmp(t->buf + t->beg, "\xEF\xBB\xBF", 3) == 0)
    t->beg += 3;
  while (st == RS_OK) {
    const char *p = t->buf + t->beg, *end = t->buf + t->end;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (nl == NULL && !t->eof) {
      st = fill(t, x->path, line, err);
      continue;
    }
    if (p == end)
      break; /* the end of the input */
    line_ctx l = {x, p, p, nl ? nl : end, line};
    st = one_line(r, &l, err);
    t->beg = nl ? (size_t)(nl + 1 - t->buf) : t->end;
    line++;
  }
  return st;
}

rs_status rs_ingest_prom_text_stream(rs_instream *in, const char *path, double instant_t,
                                     const rs_ingest_options *opts, rs_sample_sink sink, void *ctx,
                                     rs_ingest_result *result, rs_error *err) {
  rs_arena arena;
  rs_export x;
  rs_series_map defaults;
  /* An input already in memory needs no more than its own size (and one
   * byte): a small one allocates little. The buffer grows for a long line. */
  size_t mem_len = 0, cap = BLOCK;
  if (rs_instream_memory(in, &mem_len) != NULL && mem_len < BLOCK - 64)
    cap = mem_len + 64;
  text_in t = {in, malloc(cap), cap, 0, 0, false, 0};
  text_run *r = calloc(1, sizeof(*r));
  rs_status st = RS_OK;
  rs_series_map_init(&defaults);
  rs_arena_init(&arena, 0);
  rs_export_init(&x, &arena, path, opts && opts->map ? opts->map : &defaults);
  x.select = opts && opts->select && opts->select->n > 0 ? opts->select : NULL;
  x.instant_t = instant_t;
  if (r == NULL || t.buf == NULL)
    st = rs_error_set(err, RS_NOMEM, path, 0, 0, "out of memory reading the file");
  if (st == RS_OK) {
    r->x = &x;
    r->sink = sink;
    r->ctx = ctx;
    r->flush_at = FLUSH_AT;
    st = read_lines(r, &t, err);
  }
  if (st == RS_OK && t.bytes == 0)
    st = rs_error_set(err, RS_INVALID, path, 1, 1, "empty file, expected %s data",
                      rs_format_name(RS_FORMAT_PROM_TEXT));
  if (st == RS_OK && (st = llm_flush(r, 0.0, true)) != RS_OK)
    st = rs_error_set(err, st, path, 0, 0, "out of memory for series");
  if (st == RS_OK && r->llm_failed) {
    *err = r->llm_deferred;
    st = r->llm_deferred_st;
  }
  if (st == RS_OK && r->failed) {
    *err = r->deferred;
    st = r->deferred_st;
  }
  if (st == RS_OK && x.n == 0 && !r->emitted)
    st = rs_export_no_samples(&x, err);
  if (st == RS_OK)
    st = flush(r, true, 0, 0, err);
  if (st == RS_OK && r->failed) {
    *err = r->deferred;
    st = r->deferred_st;
  }
  if (result != NULL) {
    memset(result, 0, sizeof(*result));
    result->format = RS_FORMAT_PROM_TEXT;
    result->rows = r != NULL ? r->rows : 0;
    result->notes = x.notes;
  }
  rs_export_release(&x);
  rs_arena_release(&arena);
  free(t.buf);
  free(r);
  return st;
}
