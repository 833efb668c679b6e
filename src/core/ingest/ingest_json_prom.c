/* Prometheus query_range answers read as a stream (ingest_json_stream.c):
 * pass 1 over the document (labels, series, their points skimmed or checked
 * in full, in file order), and a point read through the tokenizer for the
 * merge of pass 2. */
#define _POSIX_C_SOURCE 200809L
#include "ingest_json_stream.h"

void rs_jstream_labels_clear(reader *r) {
  for (size_t i = 0; i < r->nlabels; i++) {
    free(r->labels[i].key);
    free(r->labels[i].value);
  }
  r->nlabels = 0;
}

static const label *label_get(const reader *r, const char *key) {
  for (size_t i = 0; i < r->nlabels; i++)
    if (strcmp(r->labels[i].key, key) == 0)
      return &r->labels[i];
  return NULL;
}

static char *copy_text(const token *t) {
  char *s = malloc(t->len + 1);
  if (s != NULL) {
    memcpy(s, t->text, t->len);
    s[t->len] = '\0';
  }
  return s;
}

static rs_status read_labels(reader *r) {
  cursor *c = r->c;
  bool more;
  token k, v;
  rs_status st = open_bracket(c, '{', '}', &more);
  rs_jstream_labels_clear(r);
  while (st == RS_OK && more) {
    char *key;
    if ((st = key_token(c, &k)) != RS_OK)
      return st;
    if ((key = copy_text(&k)) == NULL)
      return rs_error_set(c->err, RS_NOMEM, c->path, 0, 0, "out of memory reading labels");
    st = expect(c, ':');
    if (st == RS_OK)
      st = scalar(c, &v, LOOK);
    if (st == RS_OK && !v.quoted)
      st = unusual(c, "a label value that is not a string");
    if (st == RS_OK && label_get(r, key) != NULL)
      st = unusual(c, "a duplicate label");
    if (st == RS_OK && r->nlabels == MAX_LABELS)
      st = unusual(c, "more than 256 labels on a series");
    if (st != RS_OK) {
      free(key);
      return st;
    }
    label *l = &r->labels[r->nlabels++];
    l->key = key;
    l->line = v.line;
    l->col = v.col;
    if ((l->value = copy_text(&v)) == NULL)
      return rs_error_set(c->err, RS_NOMEM, c->path, 0, 0, "out of memory reading labels");
    st = next_item(c, '}', &more);
  }
  return st;
}

static bool selected(const reader *r) {
  const rs_selection *sel = r->x->select;
  for (size_t k = 0; sel != NULL && k < sel->n; k++) {
    const label *l = label_get(r, sel->m[k].key);
    if (l == NULL || strcmp(l->value, sel->m[k].value) != 0)
      return false;
  }
  return true;
}

/* Pass 1's point through the tokenizer: its time, and whether its value is
 * "NaN" (no value). Any mistake is an error; pass 1 then runs again in
 * full (read_values) for the message. */
static rs_status skim_point(cursor *c, double *t, bool *nan) {
  token tt, v;
  rs_status st = expect(c, '[');
  if (st == RS_OK)
    st = scalar(c, &tt, POINT_TOKEN);
  if (st == RS_OK && rs_export_number(tt.text, tt.len, t) != RS_OK)
    st = fail(c, RS_INVALID, "a point without a timestamp");
  if (st == RS_OK)
    st = expect(c, ',');
  if (st == RS_OK)
    st = scalar(c, &v, POINT_TOKEN);
  if (st == RS_OK)
    *nan = is(&v, "NaN");
  return st == RS_OK ? expect(c, ']') : st;
}

/* One point [t, "v"]: its time and value checked as the tree reader does. */
rs_status rs_jstream_read_point(cursor *c, const rs_export *x, const series *s, rs_export_point *p,
                                bool *kept) {
  token t, v;
  double when;
  rs_status st = expect(c, '[');
  if (st == RS_OK)
    st = scalar(c, &t, POINT_TOKEN);
  if (st != RS_OK)
    return st;
  if (rs_export_number(t.text, t.len, &when) != RS_OK || !rs_time_in_range(when))
    return rs_error_set(c->err, RS_INVALID, c->path, t.line, t.col,
                        "expected a timestamp in unix seconds from 1970-01-01 to 9999-12-31 UTC "
                        "in series '%s', got '%.*s'",
                        s->key, (int)t.len, t.text);
  st = expect(c, ',');
  if (st == RS_OK)
    st = scalar(c, &v, POINT_TOKEN);
  if (st == RS_OK)
    st = rs_export_point_make(x, &s->rule, s->key, s->gpu, when, v.text, v.len, v.line, v.col, p,
                              kept, c->err);
  return st == RS_OK ? expect(c, ']') : st;
}

/* A series with n points to merge, noted for pass 2. */
rs_status rs_jstream_keep_series(reader *r, const series *s, uint64_t n) {
  cursor *c = r->c;
  rs_status st = RS_OK;
  if (n > 0) {
    if (r->n == MAX_SERIES)
      return rs_error_set(c->err, RS_LIMIT, c->path, s->line, 1,
                          "more than %d series with points in one file", MAX_SERIES);
    if (r->n == r->cap) {
      size_t cap = r->cap ? r->cap * 2 : 64;
      series *grown = rs_realloc_array(r->s, cap, sizeof(*grown));
      if (grown == NULL)
        return rs_error_set(c->err, RS_NOMEM, c->path, 0, 0, "out of memory reading series");
      r->s = grown;
      r->cap = cap;
    }
    r->s[r->n++] = *s;
    r->points += n;
  }
  return st;
}

/* Where a series' values start (noted for pass 2), then past their '['. */
static rs_status values_start(cursor *c, series *s, bool *more) {
  rs_status st = skip_ws(c);
  if (st != RS_OK)
    return st;
  s->off = c->base + (long long)c->pos;
  s->line = c->line;
  s->line_start = c->line_start;
  s->cont = c->cont;
  return open_bracket(c, '[', ']', more);
}

/* The values of a mapped series: every point checked, in file order. */
static rs_status read_values(reader *r, series *s) {
  cursor *c = r->c;
  bool more;
  double last = -1.0;
  uint64_t kept_n = 0;
  rs_status st = values_start(c, s, &more);
  while (st == RS_OK && more) {
    rs_export_point p;
    bool kept;
    int ch;
    if ((st = peek(c, &ch)) == RS_OK && ch != '[')
      st = ch == '{' || ch == '"' || ch == '-' || is_digit((char)ch)
               ? unusual(c, "a point that is not a list [unix_seconds, \"value\"]")
               : syntax(c, ch);
    if (st == RS_OK)
      st = rs_jstream_read_point(c, r->x, s, &p, &kept);
    if (st == RS_OK && kept) {
      if (p.t < last)
        return rs_error_set(c->err, RS_INVALID, c->path, p.line, p.col,
                            "a point of series '%s' earlier than the one before it, expected "
                            "the points of a series in time order (as Prometheus answers)",
                            s->key);
      last = p.t;
      kept_n++;
    }
    if (st == RS_OK)
      st = next_item(c, ']', &more);
  }
  return st == RS_OK ? rs_jstream_keep_series(r, s, kept_n) : st;
}

/* Pass 1 in skim mode: the values' place and their times in order, no value
 * read (pass 2 checks each as read_point does). The strict checks are those
 * of the tokenizer. */
static rs_status skim_values(reader *r, series *s) {
  cursor *c = r->c;
  bool more;
  double last = -1.0;
  uint64_t n = 0;
  rs_status st = values_start(c, s, &more);
  while (st == RS_OK && more) {
    double t;
    size_t end;
    bool nan = false;
    if ((st = ensure(c)) != RS_OK)
      return st;
    if (quick_skim(c, &t, &nan, &end)) {
      c->pos = end;
    } else if ((st = skim_point(c, &t, &nan)) != RS_OK) {
      return st;
    }
    if (!nan) {
      if (t < last)
        return fail(c, RS_INVALID, "a point earlier than the one before it");
      last = t;
      n++;
    }
    st = next_point(c, &more);
  }
  return st == RS_OK ? rs_jstream_keep_series(r, s, n) : st;
}

/* What prom_series does once a series has its labels and its values. */
static rs_status series_values(reader *r) {
  cursor *c = r->c;
  rs_export *x = r->x;
  series s = {.gpu = -1};
  bool found = false;
  const label *key, *gpu;
  rs_status st;
  if (!selected(r)) {
    rs_export_deselect(x);
    return skip_value(c, 4);
  }
  key = label_get(r, "rs_metric");
  if (key == NULL)
    key = label_get(r, "__name__");
  if (key == NULL) {
    x->series++;
    if (x->unmapped == NULL)
      x->unmapped = "(a series without __name__ or rs_metric label)";
    return skip_value(c, 4);
  }
  if (rs_llm_is_series(x, key->value))
    return unusual(c, "a vLLM, TGI or SGLang counter or histogram");
  if ((s.key = rs_arena_strdup(x->arena, key->value)) == NULL)
    return rs_arena_error(x->arena, c->err, c->path, "reading the file");
  st = rs_export_rule(x, s.key, &s.rule, &found, key->line, key->col, c->err);
  if (st != RS_OK)
    return st;
  if (!found)
    return skip_value(c, 4);
  gpu = label_get(r, "gpu");
  if (gpu != NULL && rs_metric_per_device(s.rule.metric))
    st = rs_export_gpu(&s.gpu, x, gpu->value, strlen(gpu->value), gpu->line, gpu->col, c->err);
  if (st != RS_OK)
    return st;
  return r->skim ? skim_values(r, &s) : read_values(r, &s);
}

static rs_status read_series(reader *r) {
  cursor *c = r->c;
  static const char *const keys[] = {"metric", "values", "value", NULL};
  bool more, metric = false, values = false;
  int ch, which;
  rs_status st = peek(c, &ch);
  if (st == RS_OK && ch != '{')
    return ch == '[' || ch == '"' ? unusual(c, "a series that is not an object") : syntax(c, ch);
  st = open_bracket(c, '{', '}', &more);
  while (st == RS_OK && more) {
    if ((st = key_is(c, keys, &which)) != RS_OK)
      return st;
    if (which == 0) {
      if (metric || values)
        return unusual(c, metric ? "a duplicate key 'metric'" : "'metric' after 'values'");
      metric = true;
      if ((st = peek(c, &ch)) == RS_OK && ch != '{')
        return unusual(c, "labels that are not an object");
      st = read_labels(r);
    } else if (which == 1) {
      if (!metric || values)
        return unusual(c, values ? "a duplicate key 'values'" : "'values' before 'metric'");
      values = true;
      if ((st = peek(c, &ch)) == RS_OK && ch != '[')
        return unusual(c, "values that are not a list");
      st = series_values(r);
    } else if (which == 2) {
      return unusual(c, "an instant vector ('value')");
    } else {
      st = skip_value(c, 4);
    }
    if (st == RS_OK)
      st = next_item(c, '}', &more);
  }
  if (st == RS_OK && !values)
    return unusual(c, "a series without 'metric' and 'values'");
  return st;
}

rs_status rs_jstream_read_result(reader *r) {
  cursor *c = r->c;
  bool more;
  int ch;
  rs_status st = peek(c, &ch);
  if (st == RS_OK && ch != '[')
    return unusual(c, "a result that is not a list");
  if (st == RS_OK)
    st = open_bracket(c, '[', ']', &more);
  if (st == RS_OK && !more)
    return unusual(c, "no samples: the query returned no series");
  while (st == RS_OK && more) {
    st = read_series(r);
    if (st == RS_OK)
      st = next_item(c, ']', &more);
  }
  return st;
}

/* A key whose value must be the string want. */
rs_status rs_jstream_want_text(cursor *c, const char *key, const char *want) {
  token t;
  rs_status st = scalar(c, &t, LOOK);
  if (st == RS_OK && (!t.quoted || !is(&t, want)))
    return rs_error_set(c->err, RS_INVALID, c->path, t.line, t.col,
                        "%s is not '%s', which the streaming JSON reader does not take", key, want);
  return st;
}

rs_status rs_jstream_read_data(reader *r) {
  cursor *c = r->c;
  static const char *const keys[] = {"resultType", "result", NULL};
  bool more, type = false, result = false;
  int ch, which;
  rs_status st = peek(c, &ch);
  if (st == RS_OK && ch != '{')
    return unusual(c, "data that is not an object");
  if (st == RS_OK)
    st = open_bracket(c, '{', '}', &more);
  while (st == RS_OK && more) {
    if ((st = key_is(c, keys, &which)) != RS_OK)
      return st;
    if (which == 0) {
      if (type)
        return unusual(c, "a duplicate key 'resultType'");
      type = true;
      st = rs_jstream_want_text(c, "resultType", "matrix");
    } else if (which == 1) {
      if (!type || result)
        return unusual(c, result ? "a duplicate key 'result'" : "'result' before 'resultType'");
      result = true;
      st = rs_jstream_read_result(r);
    } else {
      st = skip_value(c, 2);
    }
    if (st == RS_OK)
      st = next_item(c, '}', &more);
  }
  if (st == RS_OK && !result)
    return unusual(c, "data without 'result'");
  return st;
}
