/* `rightsize diff` (diff.h): two documents or profiles read into the
 * deployment each leads to per endpoint, then compared. The JSON members
 * read are those docs/json.md documents for rightsize.recommendation/1 and
 * rightsize.audit/1. */
#include "rightsize/diff.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rightsize/doc.h"
#include "rightsize/fit.h"

/* A number member: NaN when absent or null; RS_INVALID when not a number. */
static rs_status num(double *out, const rs_node *map, const char *key, const char *path,
                     rs_error *err) {
  const rs_node *n = rs_node_get(map, key);
  *out = NAN;
  if (n == NULL || (n->kind == RS_NODE_SCALAR && !n->quoted && strcmp(n->text, "null") == 0))
    return RS_OK;
  return rs_node_double(n, path, key, out, err);
}

/* A string member: NULL when absent or null. */
static rs_status str(const char **out, const rs_node *map, const char *key, const char *path,
                     rs_error *err) {
  const rs_node *n = rs_node_get(map, key);
  *out = NULL;
  if (n == NULL || (n->kind == RS_NODE_SCALAR && !n->quoted && strcmp(n->text, "null") == 0))
    return RS_OK;
  return rs_node_string(n, path, key, out, err);
}

static rs_status uint_member(unsigned *out, const rs_node *map, const char *key, const char *path,
                             rs_error *err) {
  uint64_t v = 0;
  const rs_node *n = rs_node_get(map, key);
  *out = 0;
  if (n == NULL)
    return RS_OK;
  rs_status st = rs_node_uint(n, path, key, 100000, &v, err);
  *out = (unsigned)v;
  return st;
}

/* The figures of one candidate object of a recommendation. */
static rs_status candidate(rs_diff_side *s, const rs_node *c, const char *path, rs_error *err) {
  rs_status st = str(&s->provider, c, "provider", path, err);
  if (st == RS_OK)
    st = str(&s->shape, c, "instance", path, err);
  if (st == RS_OK)
    st = uint_member(&s->replicas, c, "replicas", path, err);
  if (st == RS_OK)
    st = num(&s->usd_month, c, "usd_per_month", path, err);
  if (st == RS_OK)
    st = num(&s->usd_per_million, c, "usd_per_million", path, err);
  if (st == RS_OK)
    st = num(&s->latency_ms, c, "latency_ms", path, err);
  if (st == RS_OK)
    st = str(&s->binding, c, "binding", path, err);
  return st;
}

static bool same_candidate(const rs_diff_side *t, const rs_node *c) {
  const rs_node *pr = rs_node_get(c, "provider"), *in = rs_node_get(c, "instance");
  const rs_node *re = rs_node_get(c, "replicas");
  char reps[24];
  snprintf(reps, sizeof(reps), "%u", t->replicas);
  return pr && in && re && t->provider && t->shape && strcmp(pr->text, t->provider) == 0 &&
         strcmp(in->text, t->shape) == 0 && strcmp(re->text, reps) == 0;
}

/* rightsize.recommendation/1: the verdict's target found among the
 * candidates (its figures), or the current deployment. */
static rs_status load_recommendation(rs_diff_doc *out, rs_arena *arena, const rs_node *root,
                                     const char *path, rs_error *err) {
  rs_diff_endpoint *e = rs_arena_alloc(arena, sizeof(*e));
  const rs_node *verdict = rs_node_get(root, "verdict");
  const rs_node *target = verdict ? rs_node_get(verdict, "target") : NULL;
  if (e == NULL)
    return rs_error_set(err, RS_NOMEM, path, 0, 0, "out of memory");
  memset(e, 0, sizeof(*e));
  e->s.present = true;
  out->endpoints = e;
  out->n = 1;
  rs_status st = str(&e->endpoint, root, "endpoint", path, err);
  if (st == RS_OK && verdict)
    st = str(&e->s.verdict, verdict, "code", path, err);
  if (st != RS_OK || target == NULL || target->kind != RS_NODE_MAP) {
    const rs_node *cur = rs_node_get(root, "current");
    return st == RS_OK && cur ? candidate(&e->s, cur, path, err) : st;
  }
  st = candidate(&e->s, target, path, err);
  const rs_node *cands = rs_node_get(root, "candidates");
  for (size_t i = 0; st == RS_OK && cands && cands->kind == RS_NODE_SEQ && i < cands->n; i++)
    if (same_candidate(&e->s, cands->items[i]))
      return candidate(&e->s, cands->items[i], path, err);
  return st;
}

/* rightsize.audit/1: per endpoint the recommended shape (or the current
 * one) and its $/month; an audit carries no latency or cost per million. */
static rs_status audit_row(rs_diff_endpoint *e, const rs_node *r, const char *path, rs_error *err) {
  const char *rec = NULL;
  memset(e, 0, sizeof(*e));
  e->s.present = true;
  e->s.usd_per_million = e->s.latency_ms = NAN;
  rs_status st = str(&e->endpoint, r, "endpoint", path, err);
  if (st == RS_OK)
    st = str(&e->s.verdict, r, "verdict", path, err);
  if (st == RS_OK)
    st = str(&rec, r, "recommended_instance", path, err);
  if (st == RS_OK && rec) {
    e->s.shape = rec;
    st = str(&e->s.provider, r, "recommended_provider", path, err);
    if (st == RS_OK)
      st = uint_member(&e->s.replicas, r, "recommended_replicas", path, err);
  } else if (st == RS_OK) {
    st = str(&e->s.shape, r, "current_instance", path, err);
    if (st == RS_OK)
      st = uint_member(&e->s.replicas, r, "current_replicas", path, err);
  }
  if (st == RS_OK)
    st = num(&e->s.usd_month, r, "usd_per_month_after", path, err);
  return st;
}

static rs_status load_audit(rs_diff_doc *out, rs_arena *arena, const rs_node *root,
                            const char *path, rs_error *err) {
  const rs_node *rows = rs_node_get(root, "endpoints");
  rs_status st = rs_node_expect(rows, RS_NODE_SEQ, path, "endpoints", err);
  if (st != RS_OK)
    return st;
  out->endpoints = rs_arena_alloc_array(arena, rows->n + 1, sizeof(*out->endpoints));
  if (out->endpoints == NULL)
    return rs_error_set(err, RS_NOMEM, path, 0, 0, "out of memory");
  for (size_t i = 0; i < rows->n && st == RS_OK; i++)
    st = audit_row(&out->endpoints[out->n++], rows->items[i], path, err);
  return st;
}

/* A profile: fitted, then the deployment its verdict leads to. */
static rs_status load_profile(rs_diff_doc *out, rs_arena *arena, const rs_pipeline *p,
                              const char *path, rs_error *err) {
  rs_fit_result *r = NULL;
  if (p == NULL)
    return rs_error_set(err, RS_USAGE, path, 0, 0, "a profile needs a catalog to be fitted");
  rs_status st = rs_pipeline_fit(&r, arena, p, path, err);
  if (st != RS_OK)
    return st;
  rs_diff_endpoint *e = rs_arena_alloc(arena, sizeof(*e));
  if (e == NULL)
    return rs_error_set(err, RS_NOMEM, path, 0, 0, "out of memory");
  const rs_candidate *c = r->verdict.target ? r->verdict.target : &r->current;
  out->kind = "profile";
  out->endpoints = e;
  out->n = 1;
  e->endpoint = r->summary->profile->endpoint;
  e->s = (rs_diff_side){true,
                        c->inst->provider,
                        c->inst->name,
                        c->replicas,
                        c->usd_per_month,
                        c->usd_per_million,
                        c->latency_q_ms,
                        c->fits ? rs_constraint_name(c->binding) : NULL,
                        rs_verdict_name(r->verdict.code)};
  return RS_OK;
}

rs_status rs_diff_load(rs_diff_doc *out, rs_arena *arena, const rs_pipeline *p, const char *path,
                       rs_error *err) {
  rs_doc doc;
  const char *schema = NULL;
  memset(out, 0, sizeof(*out));
  out->path = path;
  rs_status st = rs_doc_load(&doc, arena, path, 0, err);
  if (st != RS_OK)
    return st;
  const rs_node *root = doc.root;
  const rs_node *sn = root && root->kind == RS_NODE_MAP ? rs_node_get(root, "schema") : NULL;
  /* a profile says "schema: 1"; the tool's own documents are "rightsize.*" */
  if (sn == NULL || sn->kind != RS_NODE_SCALAR || strncmp(sn->text, "rightsize.", 10) != 0)
    return load_profile(out, arena, p, path, err);
  if ((st = rs_node_string(sn, path, "schema", &schema, err)) != RS_OK)
    return st;
  if (strcmp(schema, "rightsize.recommendation/1") == 0) {
    out->kind = "recommendation";
    return load_recommendation(out, arena, root, path, err);
  }
  if (strcmp(schema, "rightsize.audit/1") == 0) {
    out->kind = "audit";
    return load_audit(out, arena, root, path, err);
  }
  return rs_error_set(err, RS_INVALID, path, sn->line, sn->col,
                      "schema: expected rightsize.recommendation/1 or rightsize.audit/1, got '%s'",
                      schema);
}

static int cmp_row(const void *a, const void *b) {
  return strcmp(((const rs_diff_row *)a)->endpoint, ((const rs_diff_row *)b)->endpoint);
}

static bool differ(const char *a, const char *b) {
  return (a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0);
}

static double pct_of(double delta, double base) {
  return base > 0 && isfinite(delta) ? delta / base * 100.0 : NAN;
}

/* The deltas of one row and whether anything changed. */
static void row_finish(rs_diff_row *r) {
  const rs_diff_side *o = &r->old, *n = &r->new_;
  r->month_delta = r->per_million_delta = r->latency_delta_ms = NAN;
  r->month_pct = r->per_million_pct = NAN;
  if (!o->present || !n->present) {
    r->changed = true;
    return;
  }
  r->month_delta = n->usd_month - o->usd_month;
  r->month_pct = pct_of(r->month_delta, o->usd_month);
  r->per_million_delta = n->usd_per_million - o->usd_per_million;
  r->per_million_pct = pct_of(r->per_million_delta, o->usd_per_million);
  r->latency_delta_ms = n->latency_ms - o->latency_ms;
  /* cents and tenths of a millisecond: what the reports print */
  r->changed = differ(o->provider, n->provider) || differ(o->shape, n->shape) ||
               o->replicas != n->replicas || differ(o->binding, n->binding) ||
               differ(o->verdict, n->verdict) || fabs(r->month_delta) >= 0.005 ||
               fabs(r->per_million_delta) >= 0.005 || fabs(r->latency_delta_ms) >= 0.05;
}

/* The largest rise: the total's, then each endpoint's cost per million. */
static void worst(rs_diff *d, rs_arena *arena) {
  d->worst_pct = d->month_pct;
  d->worst_what = isfinite(d->month_pct) ? "total $/month" : NULL;
  for (size_t i = 0; i < d->nrows; i++) {
    double p = d->rows[i].per_million_pct;
    if (isfinite(p) && !(p <= d->worst_pct)) {
      d->worst_pct = p;
      d->worst_what = rs_arena_printf(arena, "%s $ per 1M requests", d->rows[i].endpoint);
    }
  }
}

rs_status rs_diff_compute(rs_diff *out, rs_arena *arena, const rs_diff_doc *old,
                          const rs_diff_doc *new_, rs_error *err) {
  memset(out, 0, sizeof(*out));
  out->old = old;
  out->new_ = new_;
  out->rows = rs_arena_alloc_array(arena, old->n + new_->n + 1, sizeof(*out->rows));
  if (out->rows == NULL)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory comparing documents");
  for (size_t i = 0; i < old->n; i++) {
    rs_diff_row *r = &out->rows[out->nrows++];
    memset(r, 0, sizeof(*r));
    r->endpoint = old->endpoints[i].endpoint ? old->endpoints[i].endpoint : old->path;
    r->old = old->endpoints[i].s;
  }
  qsort(out->rows, out->nrows, sizeof(*out->rows), cmp_row);
  size_t nold = out->nrows;
  for (size_t i = 0; i < new_->n; i++) {
    rs_diff_row key = {.endpoint =
                           new_->endpoints[i].endpoint ? new_->endpoints[i].endpoint : new_->path};
    rs_diff_row *r = bsearch(&key, out->rows, nold, sizeof(key), cmp_row);
    if (r == NULL) {
      r = &out->rows[out->nrows++];
      *r = key;
    }
    r->new_ = new_->endpoints[i].s;
  }
  qsort(out->rows, out->nrows, sizeof(*out->rows), cmp_row);
  for (size_t i = 0; i < out->nrows; i++) {
    rs_diff_row *r = &out->rows[i];
    row_finish(r);
    out->changed += r->changed;
    if (r->old.present && isfinite(r->old.usd_month))
      out->old_month += r->old.usd_month;
    if (r->new_.present && isfinite(r->new_.usd_month))
      out->new_month += r->new_.usd_month;
  }
  out->month_delta = out->new_month - out->old_month;
  out->month_pct = pct_of(out->month_delta, out->old_month);
  worst(out, arena);
  return RS_OK;
}

bool rs_diff_exceeds(const rs_diff *d, double pct) {
  return isfinite(d->worst_pct) && d->worst_pct > pct;
}
