/* Policy files and their evaluation (policy.h, docs/ci.md). */
#include "rightsize/policy.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rightsize/doc.h"

static const char *const policy_keys[] = {
#define RS_POLICY_KEY(name, key, flag) key,
    RS_POLICY_MAP(RS_POLICY_KEY)
#undef RS_POLICY_KEY
        NULL};
static const char *const policy_flags[] = {
#define RS_POLICY_FLAG(name, key, flag) flag,
    RS_POLICY_MAP(RS_POLICY_FLAG)
#undef RS_POLICY_FLAG
};

const char *rs_policy_key(rs_policy_kind k) {
  return (unsigned)k < RS_POLICY_COUNT ? policy_keys[k] : "unknown";
}

const char *rs_policy_flag(rs_policy_kind k) {
  return (unsigned)k < RS_POLICY_COUNT ? policy_flags[k] : "unknown";
}

bool rs_policy_set_any(const rs_policy_set *set) {
  for (int k = 0; k < RS_POLICY_COUNT; k++)
    if (set->set[k])
      return true;
  return false;
}

rs_status rs_policy_verdicts_parse(unsigned *out, const char *list) {
  const char *p = list;
  *out = 0;
  while (*p) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    char name[32];
    rs_verdict_code v;
    if (n == 0 || n >= sizeof(name) || (end != NULL && end[1] == '\0'))
      return RS_USAGE;
    memcpy(name, p, n);
    name[n] = '\0';
    if (rs_verdict_from_name(&v, name) != RS_OK)
      return RS_USAGE;
    *out |= 1u << v;
    p += n + (end != NULL);
  }
  return *out ? RS_OK : RS_USAGE;
}

/* fail_verdicts: a list of verdict codes. */
static rs_status read_verdicts(rs_policy_set *set, const char *path, const rs_node *n,
                               rs_error *err) {
  const char *what = policy_keys[RS_POLICY_VERDICT];
  unsigned mask = 0;
  rs_status st = rs_node_expect(n, RS_NODE_SEQ, path, what, err);
  for (size_t i = 0; st == RS_OK && i < n->n; i++) {
    const char *s;
    rs_verdict_code v;
    st = rs_node_string(n->items[i], path, what, &s, err);
    if (st == RS_OK && rs_verdict_from_name(&v, s) != RS_OK)
      st = rs_error_set(err, RS_INVALID, path, n->items[i]->line, n->items[i]->col,
                        "%s: unknown verdict '%s', expected codes such as idle, no-traffic, "
                        "underused (docs/model.md)",
                        what, s);
    if (st == RS_OK)
      mask |= 1u << v;
  }
  if (st == RS_OK) {
    set->set[RS_POLICY_VERDICT] = mask != 0; /* an empty list asks for nothing */
    set->limit[RS_POLICY_VERDICT] = (double)mask;
  }
  return st;
}

static rs_status read_limit(rs_policy_set *set, const char *path, rs_policy_kind k,
                            const rs_node *n, rs_error *err) {
  const char *what = policy_keys[k];
  rs_status st;
  double v = NAN;
  if (k == RS_POLICY_VERDICT)
    return read_verdicts(set, path, n, err);
  if (k == RS_POLICY_SLO) {
    bool b;
    st = rs_node_bool(n, path, what, &b, err);
    if (st != RS_OK)
      return st;
    set->set[k] = b; /* require_slo: false asks for nothing */
    set->limit[k] = 1;
    return RS_OK;
  }
  if (k == RS_POLICY_CONFIDENCE) {
    const char *s;
    rs_confidence c = RS_CONF_LOW;
    st = rs_node_string(n, path, what, &s, err);
    if (st == RS_OK && rs_confidence_from_name(&c, s) != RS_OK)
      st = rs_error_set(err, RS_INVALID, path, n->line, n->col,
                        "%s: expected low, medium or high, got '%s'", what, s);
    if (st == RS_OK) {
      set->set[k] = true;
      set->limit[k] = (double)c;
    }
    return st;
  }
  st = rs_node_double(n, path, what, &v, err);
  if (st == RS_OK && !(v >= 0 && isfinite(v)))
    st = rs_error_set(err, RS_INVALID, path, n->line, n->col,
                      "%s: expected a number >= 0, got '%s'", what, n->text);
  if (st == RS_OK && k == RS_POLICY_HEADROOM && v >= 100)
    st = rs_error_set(err, RS_INVALID, path, n->line, n->col,
                      "%s: expected a percentage below 100, got '%s'", what, n->text);
  if (st == RS_OK) {
    set->set[k] = true;
    set->limit[k] = v;
  }
  return st;
}

rs_status rs_policy_load(rs_policy_set *set, rs_arena *arena, const char *path, rs_error *err) {
  static const char *const allowed[] = {"schema",
#define RS_POLICY_KEY2(name, key, flag) key,
                                        RS_POLICY_MAP(RS_POLICY_KEY2)
#undef RS_POLICY_KEY2
                                            NULL};
  rs_doc doc;
  uint64_t schema = 0;
  rs_status st = rs_doc_load(&doc, arena, path, 0, err);
  if (st != RS_OK)
    return st;
  if (doc.root == NULL)
    return rs_error_set(err, RS_INVALID, path, 1, 1,
                        "empty policy file, expected keys such as max_overprovision_pct");
  st = rs_node_expect(doc.root, RS_NODE_MAP, path, "policy file", err);
  if (st == RS_OK)
    st = rs_node_check_keys(doc.root, path, "policy file", allowed, err);
  const rs_node *n = rs_node_get(doc.root, "schema");
  if (st == RS_OK && n == NULL)
    st = rs_error_set(err, RS_INVALID, path, doc.root->line, doc.root->col,
                      "policy file: expected 'schema: 1'");
  if (st == RS_OK)
    st = rs_node_uint(n, path, "schema", 1000, &schema, err);
  if (st == RS_OK && schema != 1)
    st = rs_error_set(err, RS_INVALID, path, n->line, n->col,
                      "schema: expected 1, got '%s' (a newer rightsize may read it)", n->text);
  for (int k = 0; st == RS_OK && k < RS_POLICY_COUNT; k++)
    if ((n = rs_node_get(doc.root, policy_keys[k])) != NULL)
      st = read_limit(set, path, (rs_policy_kind)k, n, err);
  if (st == RS_OK)
    set->path = doc.path;
  return st;
}

static const char *say(rs_arena *arena, bool *nomem, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static const char *say(rs_arena *arena, bool *nomem, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const char *s = rs_arena_vprintf(arena, fmt, ap);
  va_end(ap);
  if (s == NULL)
    *nomem = true;
  return s;
}

static void check_one(rs_check_result *r, rs_arena *arena, bool *nomem, rs_policy_kind k,
                      double limit) {
  const rs_candidate *e = r->evaluated;
  const rs_fit_result *f = r->fit;
  rs_policy_check *c = &r->checks[r->nchecks++];
  const char *who = r->proposed ? "the proposed deployment" : "the current deployment";
  c->kind = k;
  c->limit = limit;
  switch (k) {
  case RS_POLICY_COST_PER_MILLION:
    c->value = e->usd_per_million;
    c->pass = c->value <= limit;
    c->text = isnan(c->value)
                  ? say(arena, nomem, "%s has no cost per prediction (no traffic or no price)", who)
                  : say(arena, nomem, "%s costs %.2f $ per 1M predictions, limit %.2f", who,
                        c->value, limit);
    break;
  case RS_POLICY_MONTHLY:
    c->value = e->usd_per_month;
    c->pass = c->value <= limit;
    c->text = isnan(c->value)
                  ? say(arena, nomem, "%s has no price under this basis", who)
                  : say(arena, nomem, "%s costs %.2f $/month, limit %.2f", who, c->value, limit);
    break;
  case RS_POLICY_OVERPROVISION:
    c->value = r->overprovision_pct;
    c->pass = c->value <= limit;
    c->text =
        f->nfitting == 0
            ? say(arena, nomem, "no shape fits, so over-provisioning cannot be measured")
        : isnan(c->value)
            ? say(arena, nomem,
                  "%s has no price under this basis: over-provisioning cannot be "
                  "measured",
                  who)
            : say(arena, nomem,
                  "%s costs %.2f $/month, %.0f%% over the best fit (%s %s x%u at %.2f $/month), "
                  "limit %.0f%%",
                  who, e->usd_per_month, c->value, f->fitting[0].inst->provider,
                  f->fitting[0].inst->name, f->fitting[0].replicas, f->fitting[0].usd_per_month,
                  limit);
    break;
  case RS_POLICY_SLO: {
    const rs_warning *miss = NULL;
    for (size_t i = 0; i < f->nwarnings && !r->proposed; i++)
      if (f->warnings[i].code == RS_WARNING_CURRENT_FAILS_SLO)
        miss = &f->warnings[i];
    c->value = e->latency_q_ms;
    c->limit = f->demand.slo_ms;
    c->pass = e->fits && miss == NULL;
    c->text =
        c->pass && !isfinite(e->latency_q_ms)
            ? say(arena, nomem,
                  "%s meets every constraint at %.1f capacity units (no request rate: no "
                  "latency claim)",
                  who, f->demand.design_peak)
        : c->pass && e->llm.on && e->binding_why
            ? say(arena, nomem,
                  "%s meets every constraint at %.1f req/s: p%.0f %.1f ms end to end <= %g ms, "
                  "TTFT %.1f ms, TPOT %.1f ms; bound by %s (%s)",
                  who, f->demand.design_peak, f->demand.slo_quantile * 100.0, e->latency_q_ms,
                  f->demand.slo_ms, e->llm.ttft_q_ms, e->llm.tpot_ms,
                  rs_constraint_name(e->binding), e->binding_why)
        : c->pass
            ? say(arena, nomem, "%s meets every constraint at %.1f req/s: p%.0f %.1f ms <= %g ms",
                  who, f->demand.design_peak, f->demand.slo_quantile * 100.0, e->latency_q_ms,
                  f->demand.slo_ms)
        : miss
            ? miss->text
            : say(arena, nomem, "%s fails %s: %s", who, rs_constraint_name(e->failed), e->reason);
    break;
  }
  case RS_POLICY_HEADROOM:
    c->value = e->mem_free * 100.0;
    c->pass = c->value >= limit;
    c->text = say(arena, nomem, "%s leaves %.1f%% of its device memory free, minimum %.0f%%", who,
                  c->value, limit);
    break;
  case RS_POLICY_CONFIDENCE:
    c->value = (double)e->confidence;
    c->pass = c->value >= limit;
    c->text = say(arena, nomem, "confidence of the evaluation is %s, minimum %s",
                  rs_confidence_name(e->confidence), rs_confidence_name((rs_confidence)limit));
    break;
  case RS_POLICY_VERDICT: {
    /* about the current deployment, even when a proposed one is evaluated */
    const rs_verdict *v = &f->verdict;
    c->value = (double)v->code;
    c->pass = !((unsigned)limit & (1u << v->code));
    c->text = say(arena, nomem, "the verdict is %s%s: %s", rs_verdict_name(v->code),
                  c->pass ? "" : ", which the policy fails", v->reason);
    break;
  }
  default: break;
  }
}

rs_status rs_policy_evaluate(rs_check_result *out, rs_arena *arena, const rs_policy_set *set,
                             const rs_fit_result *fit, rs_error *err) {
  bool nomem = false;
  memset(out, 0, sizeof(*out));
  out->fit = fit;
  out->proposed = fit->proposed != NULL;
  out->evaluated = fit->proposed ? fit->proposed : &fit->current;
  out->overprovision_pct =
      fit->nfitting ? (out->evaluated->usd_per_month / fit->fitting[0].usd_per_month - 1.0) * 100.0
                    : NAN;
  for (int k = 0; k < RS_POLICY_COUNT; k++) {
    if (!set->set[k])
      continue;
    check_one(out, arena, &nomem, (rs_policy_kind)k, set->limit[k]);
    out->nfailed += !out->checks[out->nchecks - 1].pass;
  }
  out->pass = out->nfailed == 0;
  return nomem ? rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory while checking policies")
               : RS_OK;
}

void rs_check_report_tally(rs_check_report *out, const rs_check_result *results, size_t n,
                           const rs_catalog *catalog, rs_price_basis basis,
                           const rs_overlay *overlay) {
  memset(out, 0, sizeof(*out));
  out->results = results;
  out->nresults = n;
  out->catalog = catalog;
  out->basis = basis;
  out->overlay = overlay;
  for (size_t i = 0; i < n; i++) {
    out->failed += !results[i].pass;
    out->nchecks += results[i].nchecks;
    out->failed_checks += results[i].nfailed;
  }
  out->pass = out->failed == 0;
}
