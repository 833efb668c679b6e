/* Prometheus text exposition (format 0.0.4), as DCGM exporter and
 * node_exporter serve it, saved scrape after scrape with a timestamp (in
 * milliseconds) on every sample line: docs/sources.md. */
#include <stdint.h>
#include <string.h>

#include "ingest_internal.h"
#include "rightsize/num.h"

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

static bool name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

static bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }

static void skip_blanks(line_ctx *l) {
  while (l->p < l->end && (*l->p == ' ' || *l->p == '\t'))
    l->p++;
}

/* The labels we use; the rest are skipped. */
typedef struct labels {
  const char *gpu, *rs_metric, *le;
  size_t gpu_len, rs_metric_len, le_len;
  size_t gpu_col;
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
  while (l->p < l->end && *l->p != '"')
    l->p += (*l->p == '\\' && l->p + 1 < l->end) ? 2 : 1;
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
  } else {
    lb->others = rs_llm_hash(lb->others, name, (size_t)(l->p + 1 - name));
  }
  l->p++;
  return RS_OK;
}

static rs_status read_labels(line_ctx *l, labels *lb, rs_error *err) {
  rs_status st = RS_OK;
  memset(lb, 0, sizeof(*lb));
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

/* Interns a key: a file repeats a few names thousands of times. */
static const char *intern(rs_export *x, const char *s, size_t len, const char **seen, size_t *nseen,
                          size_t max) {
  for (size_t i = 0; i < *nseen; i++)
    if (strlen(seen[i]) == len && memcmp(seen[i], s, len) == 0)
      return seen[i];
  const char *copy = rs_arena_strndup(x->arena, s, len);
  if (copy != NULL && *nseen < max)
    seen[(*nseen)++] = copy;
  return copy;
}

#define MAX_KEYS 512

typedef struct text_run {
  rs_export *x;
  const char *seen[MAX_KEYS]; /* interned keys */
  size_t nseen;
  const char *ruled[MAX_KEYS]; /* keys whose rule is known, parallel to rules */
  rs_series_rule rules[MAX_KEYS];
  bool found[MAX_KEYS];
  size_t nruled;
} text_run;

static rs_status rule_for(text_run *r, const char *key, const rs_series_rule **rule, size_t line,
                          size_t col, rs_error *err) {
  size_t i;
  for (i = 0; i < r->nruled; i++)
    if (r->ruled[i] == key)
      break;
  if (i == r->nruled) {
    if (i == MAX_KEYS)
      return rs_error_set(err, RS_LIMIT, r->x->path, line, col,
                          "more than %d metric names in one file", MAX_KEYS);
    rs_status st = rs_export_rule(r->x, key, &r->rules[i], &r->found[i], line, col, err);
    if (st != RS_OK)
      return st;
    r->ruled[r->nruled++] = key;
  }
  *rule = r->found[i] ? &r->rules[i] : NULL;
  return RS_OK;
}

static rs_status sample_line(text_run *r, line_ctx *l, rs_error *err) {
  const char *name = l->p, *val, *ts, *key;
  size_t nlen, vlen, tlen;
  labels lb;
  const rs_series_rule *rule = NULL;
  int gpu = -1;
  int64_t ms;
  while (l->p < l->end && name_char(*l->p))
    l->p++;
  nlen = (size_t)(l->p - name);
  rs_status st = read_labels(l, &lb, err);
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
  if (tlen > 0 &&
      (rs_num_parse_int64(ts, tlen, &ms) != RS_OK || !rs_time_in_range((double)ms / 1000.0)))
    return fail(l, ts,
                "expected a timestamp in milliseconds since the epoch, from 1970-01-01 to "
                "9999-12-31 UTC",
                err);
  if (tlen == 0)
    r->x->notes |= RS_INGEST_NOTE_INSTANT;
  if (r->x->select != NULL && lb.selected != (1u << r->x->select->n) - 1) {
    rs_export_deselect(r->x);
    return RS_OK;
  }
  key = lb.rs_metric ? intern(r->x, lb.rs_metric, lb.rs_metric_len, r->seen, &r->nseen, MAX_KEYS)
                     : intern(r->x, name, nlen, r->seen, &r->nseen, MAX_KEYS);
  if (key == NULL)
    return rs_arena_error(r->x->arena, err, r->x->path, "reading the file");
  if (rs_llm_is_series(r->x, key)) /* vLLM, TGI, SGLang counters and histograms */
    return rs_llm_text_point(r->x, key, lb.others, lb.le, lb.le_len, (double)ms / 1000.0, val, vlen,
                             l->line, col_of(l, val), err);
  st = rule_for(r, key, &rule, l->line, col_of(l, name), err);
  if (st != RS_OK || rule == NULL)
    return st;
  if (lb.gpu != NULL && rs_metric_per_device(rule->metric))
    st = rs_export_gpu(&gpu, r->x, lb.gpu, lb.gpu_len, l->line, lb.gpu_col, err);
  if (st == RS_OK)
    st = rs_export_add(r->x, rule, key, gpu, (double)ms / 1000.0, val, vlen, l->line,
                       col_of(l, val), err);
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

rs_status rs_ingest_prom_text(rs_export *x, const char *data, size_t len, rs_error *err) {
  text_run *r = rs_arena_alloc(x->arena, sizeof(*r));
  const char *p = data, *end = data + len;
  size_t line = 1;
  rs_status st = RS_OK;
  if (r == NULL)
    return rs_arena_error(x->arena, err, x->path, "reading the file");
  r->x = x;
  if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
    p += 3;
  while (st == RS_OK && p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    line_ctx l = {x, p, p, nl ? nl : end, line};
    st = one_line(r, &l, err);
    p = nl ? nl + 1 : end;
    line++;
  }
  return st;
}
