/* CloudWatch output read as a stream (ingest_json_stream.c):
 * get-metric-data results and get-metric-statistics datapoints checked in
 * file order in pass 1, and read again a block at a time, oldest first, for
 * the merge of pass 2. */
#define _POSIX_C_SOURCE 200809L
#include "ingest_json_stream.h"

/* ---- CloudWatch get-metric-data, pass 1 ----
 *
 * Each result's Timestamps and Values are checked in file order as the tree
 * reader checks them (rs_time_parse, rs_export_point_make), and the place
 * of every CW_BLOCK-th item noted: pass 2 reads a block of points again from
 * there, oldest first, whichever order the result is in (CloudWatch answers
 * newest first unless asked otherwise). */

typedef struct cw_result {
  const char *label, *id, *code, *key; /* arena */
  size_t lline, lcol, iline, icol, cline, ccol, rline, rcol, vline, vcol;
  bool times, values, found;
  rs_series_rule rule;
  uint64_t nts, nv;
  double last;
  int dir; /* 1 oldest first, -1 newest first, 0 not known yet */
  size_t mark0;
} cw_result;

/* The place of item i (of the timestamps, or the values) of a result. */
static rs_status cw_mark(reader *r, const cw_result *w, uint64_t i, bool values) {
  size_t at = w->mark0 + 2 * (size_t)(i / CW_BLOCK) + values;
  if (at >= r->marks_cap) {
    size_t cap = r->marks_cap ? r->marks_cap * 2 : 256;
    place *grown;
    while (cap <= at)
      cap *= 2;
    if ((grown = rs_realloc_array(r->marks, cap, sizeof(*grown))) == NULL)
      return rs_error_set(r->c->err, RS_NOMEM, r->c->path, 0, 0, "out of memory reading results");
    /* zeroed: a datapoints series leaves the values' places unset */
    memset(grown + r->marks_cap, 0, (cap - r->marks_cap) * sizeof(*grown));
    r->marks = grown;
    r->marks_cap = cap;
  }
  r->marks[at] = place_of(r->c);
  if (at >= r->nmarks)
    r->nmarks = at + 1;
  return RS_OK;
}

static rs_status cw_text(cursor *c, rs_export *x, const char **out, size_t *line, size_t *col) {
  token t;
  rs_status st = scalar(c, &t, LOOK);
  if (st == RS_OK && !t.quoted)
    return unusual(c, "a label, id or status that is not a string");
  if (st == RS_OK && *out != NULL)
    return unusual(c, "a duplicate key in a result");
  if (st == RS_OK && (*out = rs_arena_strndup(x->arena, t.text, t.len)) == NULL)
    return rs_arena_error(x->arena, c->err, c->path, "reading the file");
  *line = t.line;
  *col = t.col;
  return st;
}

/* The result's series (at its Timestamps, once Label or Id is known). */
static rs_status cw_series(reader *r, cw_result *w) {
  cursor *c = r->c;
  const char *name = w->label ? w->label : w->id;
  size_t line = w->label ? w->lline : w->iline, col = w->label ? w->lcol : w->icol;
  rs_status st;
  if (name == NULL)
    return unusual(c, "'Timestamps' before 'Label' and 'Id'");
  st = rs_cw_key(&w->key, r->x, name, w->id, line, col, c->err);
  if (st == RS_OK)
    st = rs_export_rule(r->x, w->key, &w->rule, &w->found, line, col, c->err);
  w->mark0 = r->nmarks;
  return st;
}

/* A result's Timestamps (values false) or Values: checked when the result
 * maps to a metric, counted always. */
static rs_status cw_items(reader *r, cw_result *w, bool values) {
  cursor *c = r->c;
  bool more;
  token t;
  uint64_t *n = values ? &w->nv : &w->nts;
  rs_status st = open_bracket(c, '[', ']', &more);
  while (st == RS_OK && more) {
    if ((st = skip_ws(c)) != RS_OK)
      return st;
    if (w->found && *n % CW_BLOCK == 0 && (!values || *n < w->nts) &&
        (st = cw_mark(r, w, *n, values)) != RS_OK)
      return st;
    if (!w->found) {
      st = skip_value(c, 5);
    } else if (!values) {
      double when;
      if ((st = scalar(c, &t, POINT_TOKEN)) != RS_OK)
        return st;
      if (time_parse(r->days, t.text, t.len, &when) != RS_OK)
        return rs_error_set(c->err, RS_INVALID, c->path, t.line, t.col,
                            "expected an RFC 3339 timestamp from 1970-01-01 to 9999-12-31 UTC in "
                            "'%s'",
                            w->label ? w->label : w->id);
      if (*n > 0 && when != w->last) {
        int dir = when > w->last ? 1 : -1;
        if (w->dir != 0 && dir != w->dir)
          return rs_error_set(c->err, RS_INVALID, c->path, t.line, t.col,
                              "the timestamps of '%s' go back and forth, expected them newest "
                              "or oldest first (as CloudWatch answers), which the streaming JSON "
                              "reader needs",
                              w->label ? w->label : w->id);
        w->dir = dir;
      }
      w->last = when;
    } else {
      rs_export_point p;
      bool kept;
      if ((st = scalar(c, &t, POINT_TOKEN)) != RS_OK)
        return st;
      if (t.quoted)
        return rs_error_set(c->err, RS_INVALID, c->path, t.line, t.col,
                            "expected a number in the values of '%s'", w->label ? w->label : w->id);
      if (!r->skim) /* skimmed, the value is read once, by pass 2 */
        st = rs_export_point_make(r->x, &w->rule, w->key, -1, w->last, t.text, t.len, t.line, t.col,
                                  &p, &kept, c->err);
    }
    (*n)++;
    if (st == RS_OK)
      st = next_item(c, ']', &more);
  }
  return st;
}

/* After a result's last key: what the tree reader checks of it. */
static rs_status cw_check(reader *r, cw_result *w) {
  cursor *c = r->c;
  rs_status st;
  if (w->label == NULL && w->id == NULL)
    return rs_error_set(c->err, RS_INVALID, c->path, w->rline, w->rcol,
                        "missing key 'Label' (or 'Id') in a metric data result");
  st = rs_cw_status(r->x, w->code, w->label ? w->label : w->id, w->cline, w->ccol, c->err);
  if (st == RS_OK && !w->times)
    return rs_error_set(c->err, RS_INVALID, c->path, w->rline, w->rcol,
                        "missing key 'Timestamps' in a metric data result");
  if (st == RS_OK && !w->values)
    return rs_error_set(c->err, RS_INVALID, c->path, w->rline, w->rcol,
                        "missing key 'Values' in a metric data result");
  if (st == RS_OK && w->nts != w->nv)
    return rs_error_set(c->err, RS_INVALID, c->path, w->vline, w->vcol,
                        "'%s' has %llu values for %llu timestamps, expected one value per "
                        "timestamp",
                        w->label ? w->label : w->id, (unsigned long long)w->nv,
                        (unsigned long long)w->nts);
  if (st != RS_OK || !w->found || w->nts == 0)
    return st;
  if (r->n >= CW_MAX_RESULTS)
    return rs_error_set(c->err, RS_LIMIT, c->path, w->rline, w->rcol,
                        "more than %d results with points in one file", CW_MAX_RESULTS);
  series s = {.key = w->key,
              .rule = w->rule,
              .gpu = -1,
              .off = r->marks[w->mark0].off,
              .line = r->marks[w->mark0].line,
              .line_start = r->marks[w->mark0].line_start,
              .cont = r->marks[w->mark0].cont,
              .cw = true,
              .newest_first = w->dir < 0,
              .n = w->nts,
              .mark0 = w->mark0};
  return rs_jstream_keep_series(r, &s, w->nts);
}

static rs_status cw_result_read(reader *r) {
  cursor *c = r->c;
  static const char *const keys[] = {"Id", "Label", "Timestamps", "Values", "StatusCode", NULL};
  cw_result w = {.dir = 0};
  bool more;
  int ch, which;
  rs_status st = peek(c, &ch);
  if (st == RS_OK && ch != '{')
    return ch == '[' || ch == '"' ? unusual(c, "a result that is not an object") : syntax(c, ch);
  here(c, &w.rline, &w.rcol);
  st = open_bracket(c, '{', '}', &more);
  while (st == RS_OK && more) {
    if ((st = key_is(c, keys, &which)) != RS_OK)
      return st;
    if (which == 0) {
      st = cw_text(c, r->x, &w.id, &w.iline, &w.icol);
    } else if (which == 1) {
      st = cw_text(c, r->x, &w.label, &w.lline, &w.lcol);
    } else if (which == 2 || which == 3) {
      bool values = which == 3;
      if ((values ? w.values : w.times) || (values && !w.times))
        return unusual(c, values ? "'Values' before 'Timestamps', or twice"
                                 : "a duplicate key "
                                   "'Timestamps'");
      if ((st = peek(c, &ch)) == RS_OK && ch != '[')
        return unusual(c, "timestamps or values that are not a list");
      if (!values)
        st = cw_series(r, &w);
      if (values)
        here(c, &w.vline, &w.vcol);
      if (st == RS_OK)
        st = cw_items(r, &w, values);
      w.times = true;
      w.values = values;
    } else if (which == 4) {
      st = cw_text(c, r->x, &w.code, &w.cline, &w.ccol);
    } else {
      st = skip_value(c, 4);
    }
    if (st == RS_OK)
      st = next_item(c, '}', &more);
  }
  return st == RS_OK ? cw_check(r, &w) : st;
}

/* ---- CloudWatch get-metric-statistics ("Datapoints") ----
 *
 * One metric, a datapoint object per time with the statistics asked for;
 * the one used is the tree reader's (ingest_json.c, datapoint()). Streamed
 * as one series in blocks, like a get-metric-data result, when the
 * datapoints are in time order (either way); the API answers at most 1,440
 * of them a call, in no promised order, so an unordered file is the tree
 * reader's up to its cap and an error beyond. */

typedef struct dp_ctx {
  const char *label; /* arena */
  bool latency, invocations;
  const char *keys[DP_STATS]; /* the series keys */
  rs_series_rule rules[DP_STATS];
  signed char known[DP_STATS]; /* pass 1: the rule found (1), not found (-1), not asked (0) */
  day_cache days;
} dp_ctx;

/* A scalar of a datapoint, copied: the object's keys may come in any order. */
typedef struct dp_text {
  char text[POINT_TOKEN + 1];
  size_t len, line, col;
  bool set, scalar;
} dp_text;

static rs_status dp_take(cursor *c, dp_text *t) {
  token k;
  int ch;
  rs_status st = peek(c, &ch);
  if (st != RS_OK)
    return st;
  if (t->set)
    return unusual(c, "a duplicate key in a datapoint");
  t->set = true;
  if (ch == '[' || ch == '{') /* not a statistic the tree reader reads: skipped */
    return skip_value(c, 6);
  if ((st = scalar(c, &k, POINT_TOKEN)) != RS_OK)
    return st;
  memcpy(t->text, k.text, k.len);
  t->text[k.len] = '\0';
  t->len = k.len;
  t->line = k.line;
  t->col = k.col;
  t->scalar = true;
  return RS_OK;
}

/* What a datapoint holds: its Timestamp, Average, Maximum, Sum, and p50,
 * p95, p99 of its ExtendedStatistics. */
typedef struct dp_read {
  dp_text ts, stat[DP_STATS], avg, max, sum;
  bool ext, ext_map;
  size_t line, col;
} dp_read;

static rs_status dp_extended(cursor *c, dp_read *d) {
  static const char *const keys[] = {"p50", "p95", "p99", NULL};
  bool more;
  int which;
  rs_status st = open_bracket(c, '{', '}', &more);
  d->ext_map = true;
  while (st == RS_OK && more) {
    if ((st = key_is(c, keys, &which)) != RS_OK)
      return st;
    st = which >= 0 ? dp_take(c, &d->stat[which]) : skip_value(c, 6);
    if (st == RS_OK)
      st = next_item(c, '}', &more);
  }
  return st;
}

/* A datapoint as the AWS CLI prints it, on one line, e.g.
 * {"Timestamp": "2025-11-30T00:00:00+00:00", "Average": 26.5, "Unit": "Percent"}:
 * keys of letters, values plain ASCII texts or plain decimals, each key
 * followed by ": " or ":" and each value by ", " or "," or the closing
 * brace, no statistic twice and no ExtendedStatistics. Read straight from
 * the window into d, as dp_object would; false, with nothing consumed, for
 * anything else, which dp_object then reads. c->pos is at the '{'. */
static bool dp_quick(cursor *c, dp_read *d) {
  static const char *const keys[] = {"Timestamp", "Average", "Maximum", "Sum"};
  dp_text *slot[] = {&d->ts, &d->avg, &d->max, &d->sum};
  const char *b = c->buf, *p = b + c->pos + 1, *e = b + c->end;
  long long col0 = c->base - c->line_start - c->cont + 1; /* a byte's column: col0 + offset */
  if (e - p < QUICK_DP)
    return false;
  e = p + QUICK_DP - 8; /* the datapoint is shorter; a few bytes past e may be read */
  for (;;) {
    const char *k = p + 1, *v, *at;
    dp_text *t = NULL;
    size_t klen, vlen;
    if (*p != '"')
      return false;
    for (p = k; p < e && (unsigned)((*p | 0x20) - 'a') < 26; p++)
      ;
    klen = (size_t)(p - k);
    if (*p != '"' || *++p != ':')
      return false;
    p += p[1] == ' ' ? 2 : 1;
    for (int i = 0; i < 4; i++)
      if (klen == strlen(keys[i]) && memcmp(k, keys[i], klen) == 0)
        t = slot[i];
    if (t == NULL && klen == 18 && memcmp(k, "ExtendedStatistics", 18) == 0)
      return false;
    if (t != NULL && t->set)
      return false;
    v = at = p;
    if (*p == '"') {
      for (v = ++p; *p != '"'; p++)
        if (p >= e || (unsigned char)*p < 0x20 || (unsigned char)*p >= 0x80 || *p == '\\')
          return false;
      vlen = (size_t)(p++ - v);
    } else {
      p += *p == '-';
      if (*p == '0')
        p++;
      else if ((unsigned)(*p - '1') < 9)
        while (p < e && (unsigned)(*p - '0') < 10)
          p++;
      else
        return false;
      if (*p == '.') {
        if ((unsigned)(*++p - '0') >= 10)
          return false;
        while (p < e && (unsigned)(*p - '0') < 10)
          p++;
      }
      vlen = (size_t)(p - v);
    }
    if (p >= e || vlen > POINT_TOKEN)
      return false;
    if (t != NULL) {
      memcpy(t->text, v, vlen);
      t->text[vlen] = '\0';
      t->len = vlen;
      t->line = c->line;
      t->col = (size_t)(col0 + (at - b));
      t->set = t->scalar = true;
    }
    if (*p == '}') {
      c->pos = (size_t)(p + 1 - b);
      return true;
    }
    if (*p != ',')
      return false;
    p += p[1] == ' ' ? 2 : 1;
  }
}

/* Nothing read into d yet (the flags only: a text is written before it is
 * read). */
static void dp_clear(dp_read *d) {
  d->ts.set = d->avg.set = d->max.set = d->sum.set = false;
  d->ts.scalar = d->avg.scalar = d->max.scalar = d->sum.scalar = false;
  for (int i = 0; i < DP_STATS; i++)
    d->stat[i].set = d->stat[i].scalar = false;
  d->ext = d->ext_map = false;
}

static rs_status dp_object(cursor *c, dp_read *d) {
  static const char *const keys[] = {"Timestamp",          "Average", "Maximum", "Sum",
                                     "ExtendedStatistics", NULL};
  dp_text *slot[] = {&d->ts, &d->avg, &d->max, &d->sum};
  bool more;
  int ch, which;
  rs_status st = peek(c, &ch);
  dp_clear(d);
  if (st == RS_OK && ch != '{')
    return ch == '[' || ch == '"' ? unusual(c, "a datapoint that is not an object") : syntax(c, ch);
  here(c, &d->line, &d->col);
  if (dp_quick(c, d))
    return RS_OK;
  dp_clear(d); /* what the quick read took before it gave up */
  st = open_bracket(c, '{', '}', &more);
  while (st == RS_OK && more) {
    if ((st = key_is(c, keys, &which)) != RS_OK)
      return st;
    if (which == 4) {
      if (d->ext)
        return unusual(c, "a duplicate key in a datapoint");
      d->ext = true;
      if ((st = peek(c, &ch)) == RS_OK)
        st = ch == '{' ? dp_extended(c, d) : skip_value(c, 6);
    } else {
      st = which >= 0 ? dp_take(c, slot[which]) : skip_value(c, 6);
    }
    if (st == RS_OK)
      st = next_item(c, '}', &more);
  }
  return st;
}

/* One statistic as the tree reader's stat_point takes it. Pass 1 (x set)
 * resolves the rule each time, as that reader does (it counts series);
 * pass 2 uses the rule pass 1 found. */
static rs_status dp_point(rs_export *x, const rs_export *xc, dp_ctx *p, int i, const dp_text *v,
                          double when, rs_export_point *out, size_t *n, rs_error *err) {
  bool found = true, kept;
  rs_status st;
  if (!v->set || !v->scalar)
    return RS_OK;
  if (x != NULL && p->known[i] != 0) {
    /* what rs_export_rule does for a key it has resolved before: the same
     * rule, the series counted */
    x->series++;
    if (p->known[i] < 0)
      return RS_OK;
    x->mapped++;
  } else if (x != NULL) {
    st = rs_export_rule(x, p->keys[i], &p->rules[i], &found, v->line, v->col, err);
    if (st == RS_OK)
      p->known[i] = found ? 1 : -1;
    if (st != RS_OK || !found) {
      p->rules[i].ignore = true;
      return st;
    }
  } else if (p->rules[i].ignore) {
    return RS_OK;
  }
  st = rs_export_point_make(xc, &p->rules[i], p->keys[i], -1, when, v->text, v->len, v->line,
                            v->col, &out[*n], &kept, err);
  if (st == RS_OK && kept)
    (*n)++;
  return st;
}

/* A datapoint's points (at most DP_STATS) and its time, checked as the tree
 * reader's datapoint() checks them. */
static rs_status dp_points(cursor *c, rs_export *x, const rs_export *xc, dp_ctx *p,
                           rs_export_point *out, size_t *n, double *when) {
  dp_read d;
  rs_status st = dp_object(c, &d);
  *n = 0;
  if (st != RS_OK)
    return st;
  if (!d.ts.set)
    return rs_error_set(c->err, RS_INVALID, c->path, d.line, d.col,
                        "missing key 'Timestamp' in a datapoint");
  if (!d.ts.scalar)
    return unusual(c, "a Timestamp that is not a text");
  if (time_parse(&p->days, d.ts.text, d.ts.len, when) != RS_OK)
    return rs_error_set(c->err, RS_INVALID, c->path, d.ts.line, d.ts.col,
                        "expected an RFC 3339 timestamp in '%s'", p->label);
  if (p->latency) {
    if (!d.ext_map)
      return rs_error_set(c->err, RS_INVALID, c->path, d.line, d.col,
                          "'ModelLatency' datapoint without ExtendedStatistics, expected "
                          "percentiles (--extended-statistics p50 p95 p99)");
    for (int i = 0; st == RS_OK && i < DP_STATS; i++)
      st = dp_point(x, xc, p, i, &d.stat[i], *when, out, n, c->err);
    return st;
  }
  return dp_point(x, xc, p, 0,
                  p->invocations ? &d.sum
                  : d.avg.set    ? &d.avg
                                 : &d.max,
                  *when, out, n, c->err);
}

static rs_status dp_context(reader *r, const char *name) {
  static const char *const pct[] = {"ModelLatency p50", "ModelLatency p95", "ModelLatency p99"};
  dp_ctx *p = rs_arena_alloc(r->x->arena, sizeof(*p));
  if (p == NULL)
    return rs_arena_error(r->x->arena, r->c->err, r->c->path, "reading the file");
  memset(p, 0, sizeof(*p));
  p->label = name;
  p->latency = strcmp(name, "ModelLatency") == 0;
  p->invocations = strcmp(name, "Invocations") == 0;
  for (int i = 0; i < DP_STATS; i++)
    p->keys[i] = p->latency ? pct[i] : name;
  r->dp = p;
  return RS_OK;
}

/* Pass 1 over Datapoints: every datapoint checked, in order, blocks noted. */
static rs_status dp_list(reader *r) {
  cursor *c = r->c;
  cw_result w = {.dir = 0, .found = true};
  rs_export_point pts[DP_STATS];
  bool more;
  size_t line, col, n;
  uint64_t kept = 0;
  rs_status st;
  here(c, &line, &col);
  w.mark0 = r->nmarks;
  st = open_bracket(c, '[', ']', &more);
  if (st == RS_OK && !more)
    return rs_error_set(c->err, RS_INVALID, c->path, line, col, "no samples: Datapoints is empty");
  while (st == RS_OK && more) {
    double when;
    size_t at_line, at_col;
    if ((st = skip_ws(c)) != RS_OK)
      return st;
    if (w.nts % CW_BLOCK == 0 && (st = cw_mark(r, &w, w.nts, false)) != RS_OK)
      return st;
    here(c, &at_line, &at_col);
    if ((st = dp_points(c, r->x, r->x, r->dp, pts, &n, &when)) != RS_OK)
      return st;
    if (w.nts > 0 && when != w.last) {
      int dir = when > w.last ? 1 : -1;
      if (w.dir != 0 && dir != w.dir)
        return rs_error_set(c->err, RS_INVALID, c->path, at_line, at_col,
                            "a datapoint out of time order, which the streaming JSON reader "
                            "does not take: expected the datapoints oldest or newest first "
                            "(get-metric-statistics answers at most 1,440 a call, in no set "
                            "order; a file this size is a join of answers: sort it by "
                            "Timestamp, e.g. jq '.Datapoints |= sort_by(.Timestamp)')");
      w.dir = dir;
    }
    w.last = when;
    w.nts++;
    kept += n;
    st = next_item(c, ']', &more);
  }
  if (st != RS_OK)
    return st;
  if (r->x->series == 0) /* no datapoint held the statistic we read */
    r->x->series = 1, r->x->unmapped = r->dp->label;
  if (kept == 0)
    return RS_OK;
  series s = {.key = r->dp->label,
              .gpu = -1,
              .off = r->marks[w.mark0].off,
              .cw = true,
              .dp = true,
              .newest_first = w.dir < 0,
              .n = w.nts,
              .mark0 = w.mark0};
  return rs_jstream_keep_series(r, &s, kept);
}

rs_status rs_jstream_cw_root(reader *r) {
  cursor *c = r->c;
  static const char *const keys[] = {"MetricDataResults", "NextToken", "Datapoints", "Label", NULL};
  const char *name = NULL;
  size_t lline = 0, lcol = 0;
  bool more, results = false, points = false;
  int ch, which;
  size_t line = c->line, col;
  token t;
  rs_status st;
  here(c, &line, &col);
  st = open_bracket(c, '{', '}', &more);
  while (st == RS_OK && more) {
    if ((st = key_is(c, keys, &which)) != RS_OK)
      return st;
    if (which == 0) {
      bool items;
      size_t rl, rc;
      if (results || (st = peek(c, &ch)) != RS_OK || ch != '[')
        return st != RS_OK ? st : unusual(c, "results that are not a list, or twice");
      here(c, &rl, &rc);
      results = true;
      st = open_bracket(c, '[', ']', &items);
      if (st == RS_OK && !items)
        return rs_error_set(c->err, RS_INVALID, c->path, rl, rc,
                            "no samples: MetricDataResults is empty");
      while (st == RS_OK && items) {
        st = cw_result_read(r);
        if (st == RS_OK)
          st = next_item(c, ']', &items);
      }
    } else if (which == 1) {
      if ((st = scalar(c, &t, LOOK)) == RS_OK && t.len > 0 && !(is(&t, "null") && !t.quoted))
        return rs_error_set(c->err, RS_INVALID, c->path, t.line, t.col,
                            "the output ends with a NextToken: more points wait on another "
                            "page, expected the whole answer; let the AWS CLI paginate (no "
                            "--no-paginate or --max-items) and save its whole output");
    } else if (which == 2) {
      if ((st = peek(c, &ch)) != RS_OK)
        return st;
      if (name == NULL || points || results || ch != '[')
        return unusual(c, "'Datapoints' that is not a list after 'Label'");
      points = true;
      st = dp_context(r, name);
      if (st == RS_OK)
        st = dp_list(r);
    } else if (which == 3) {
      if (points)
        return unusual(c, "'Label' after 'Datapoints'");
      st = cw_text(c, r->x, &name, &lline, &lcol);
    } else {
      st = skip_value(c, 1);
    }
    if (st == RS_OK)
      st = next_item(c, '}', &more);
  }
  if (st == RS_OK && results && points)
    return unusual(c, "both 'MetricDataResults' and 'Datapoints'");
  if (st == RS_OK && !results && !points)
    return rs_error_set(c->err, RS_INVALID, c->path, line, col,
                        "missing key 'MetricDataResults' in the response");
  return st;
}

/* A block read newest first, turned oldest first; points of one time keep
 * their file order (rs_export_emit's tie-break). */
static void oldest_first(rs_export_point *p, size_t n) {
  for (size_t i = 0, j = n; i + 1 < j; i++, j--) {
    rs_export_point t = p[i];
    p[i] = p[j - 1];
    p[j - 1] = t;
  }
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && p[j].t == p[i].t)
      j++;
    for (size_t a = i, z = j; a + 1 < z; a++, z--) {
      rs_export_point t = p[a];
      p[a] = p[z - 1];
      p[z - 1] = t;
    }
    i = j;
  }
}

/* n datapoints of a get-metric-statistics answer from the cursor. */
static rs_status dp_block(stream *m, const rs_export *x, size_t n) {
  rs_status st = RS_OK;
  m->nblock = 0;
  for (size_t i = 0; st == RS_OK && i < n; i++) {
    size_t got;
    double when;
    bool more;
    st = dp_points(&m->c, NULL, x, m->dp, m->block + m->nblock, &got, &when);
    m->nblock += got;
    if (st == RS_OK)
      st = next_item(&m->c, ']', &more);
  }
  return st;
}

/* Block b of a CloudWatch result, read again (pass 1 checked it). */
rs_status rs_jstream_cw_block(stream *m, const rs_export *x, size_t b) {
  const series *s = m->s;
  size_t n =
      s->n - (uint64_t)b * CW_BLOCK < CW_BLOCK ? (size_t)(s->n - (uint64_t)b * CW_BLOCK) : CW_BLOCK;
  rs_status st = RS_OK;
  go_to(&m->c, &m->marks[2 * b]);
  go_to(&m->v, &m->marks[2 * b + 1]);
  /* a block ends where the next starts: read no further */
  m->c.limit = b + 1 < m->nblocks ? m->marks[2 * b + 2].off : 0;
  m->v.limit = b + 1 < m->nblocks ? m->marks[2 * b + 3].off : 0;
  m->at = 0;
  if (s->dp) {
    st = dp_block(m, x, n);
    if (st == RS_OK && s->newest_first)
      oldest_first(m->block, m->nblock);
    return st;
  }
  for (size_t i = 0; st == RS_OK && i < n; i++) {
    token t, v;
    double when;
    bool more, kept;
    if ((st = scalar(&m->c, &t, POINT_TOKEN)) != RS_OK)
      return st;
    if (time_parse(&m->days, t.text, t.len, &when) != RS_OK)
      return rs_error_set(m->c.err, RS_INVALID, m->c.path, t.line, t.col,
                          "expected an RFC 3339 timestamp from 1970-01-01 to 9999-12-31 UTC in "
                          "'%s'",
                          s->key);
    st = next_item(&m->c, ']', &more);
    if (st == RS_OK)
      st = scalar(&m->v, &v, POINT_TOKEN);
    if (st == RS_OK)
      st = rs_export_point_make(x, &s->rule, s->key, -1, when, v.text, v.len, v.line, v.col,
                                &m->block[i], &kept, m->c.err);
    if (st == RS_OK)
      st = next_item(&m->v, ']', &more);
  }
  m->nblock = n;
  if (st == RS_OK && s->newest_first)
    oldest_first(m->block, m->nblock);
  return st;
}
