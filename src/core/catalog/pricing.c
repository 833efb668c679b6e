#include "names.h"
#include "rightsize/pricing.h"

#include <math.h>
#include <string.h>

#include "rightsize/doc.h"

const char *const rs_price_basis_names[] = {
#define RS_PRICE_BASIS_NAME(name, key) key,
    RS_PRICE_BASIS_MAP(RS_PRICE_BASIS_NAME)
#undef RS_PRICE_BASIS_NAME
        NULL};

rs_status rs_price_basis_from_name(rs_price_basis *out, const char *name) {
  int i = rs_names_find(rs_price_basis_names, RS_BASIS_COUNT, name);
  if (i < 0)
    return RS_USAGE;
  *out = (rs_price_basis)i;
  return RS_OK;
}

const char *rs_price_basis_name(rs_price_basis b) {
  return (unsigned)b < RS_BASIS_COUNT ? rs_price_basis_names[b] : "unknown";
}

typedef struct ctx {
  rs_arena *arena;
  const char *path;
  rs_error *err;
} ctx;

static rs_status pct(const ctx *c, const rs_node *map, const char *key, const char *what,
                     double *out) {
  const rs_node *n = rs_node_get(map, key);
  rs_status st;
  if (n == NULL)
    return RS_OK;
  st = rs_node_units(n, c->path, what, RS_UNIT_PERCENT, NULL, out, c->err);
  if (st == RS_OK && !(*out >= 0 && *out < 100))
    st = rs_error_set(c->err, RS_INVALID, c->path, n->line, n->col,
                      "%s: expected a percentage from 0 to below 100, got '%s'", what, n->text);
  return st;
}

static rs_status price(const ctx *c, const rs_node *map, const char *key, const char *what,
                       double *out) {
  const rs_node *n = rs_node_get(map, key);
  rs_status st;
  if (n == NULL)
    return RS_OK;
  st = rs_node_double(n, c->path, what, out, c->err);
  if (st == RS_OK && !(*out > 0))
    st = rs_error_set(c->err, RS_INVALID, c->path, n->line, n->col,
                      "%s: expected a price > 0, got '%s'", what, n->text);
  return st;
}

static const char *const scope_keys[] = {"provider", "family", "instance"};
static const char *const rule_keys[] = {
    "provider", "family", "instance", "discount_pct", "usd_per_hour", "spot_usd_per_hour", NULL};

static rs_status read_rule(const ctx *c, const rs_node *m, rs_price_rule *r) {
  rs_status st = rs_node_expect(m, RS_NODE_MAP, c->path, "rules[]", c->err);
  int scopes = 0;
  r->line = m->line;
  r->col = m->col;
  r->discount_pct = r->usd_per_hour = r->spot_usd_per_hour = NAN;
  if (st == RS_OK)
    st = rs_node_check_keys(m, c->path, "rules[]", rule_keys, c->err);
  for (int k = 0; st == RS_OK && k < 3; k++) {
    const rs_node *n = rs_node_get(m, scope_keys[k]);
    if (n == NULL)
      continue;
    scopes++;
    r->scope = (rs_rule_scope)k;
    st = rs_node_string(n, c->path, scope_keys[k], &r->match, c->err);
  }
  if (st == RS_OK && scopes != 1)
    return rs_error_set(c->err, RS_INVALID, c->path, m->line, m->col,
                        "rules[]: expected exactly one of provider, family or instance, got %d",
                        scopes);
  if (st == RS_OK)
    st = pct(c, m, "discount_pct", "rules[].discount_pct", &r->discount_pct);
  if (st == RS_OK)
    st = price(c, m, "usd_per_hour", "rules[].usd_per_hour", &r->usd_per_hour);
  if (st == RS_OK)
    st = price(c, m, "spot_usd_per_hour", "rules[].spot_usd_per_hour", &r->spot_usd_per_hour);
  if (st == RS_OK && isnan(r->discount_pct) && isnan(r->usd_per_hour) &&
      isnan(r->spot_usd_per_hour))
    st = rs_error_set(c->err, RS_INVALID, c->path, m->line, m->col,
                      "rules[]: expected discount_pct, usd_per_hour or spot_usd_per_hour");
  if (st == RS_OK && !isnan(r->discount_pct) && !isnan(r->usd_per_hour))
    st = rs_error_set(c->err, RS_INVALID, c->path, m->line, m->col,
                      "rules[]: give discount_pct or usd_per_hour, not both");
  return st;
}

static const char *const top_keys[] = {"schema", "name", "discount_pct", "reserved_discount_pct",
                                       "rules",  NULL};

static rs_status read_overlay(const ctx *c, const rs_node *root, rs_overlay *o) {
  const rs_node *n;
  uint64_t schema = 0;
  rs_status st = rs_node_expect(root, RS_NODE_MAP, c->path, "the price overlay", c->err);
  if (st == RS_OK)
    st = rs_node_check_keys(root, c->path, "the price overlay", top_keys, c->err);
  if (st == RS_OK && (n = rs_node_get(root, "schema")) != NULL &&
      (st = rs_node_uint(n, c->path, "schema", 1000, &schema, c->err)) == RS_OK && schema != 1)
    st = rs_error_set(c->err, RS_INVALID, c->path, n->line, n->col,
                      "unsupported schema %llu, expected 1", (unsigned long long)schema);
  if (st == RS_OK && (n = rs_node_get(root, "name")) != NULL)
    st = rs_node_string(n, c->path, "name", &o->name, c->err);
  if (st == RS_OK)
    st = pct(c, root, "discount_pct", "discount_pct", &o->discount_pct);
  if (st == RS_OK)
    st = pct(c, root, "reserved_discount_pct", "reserved_discount_pct", &o->reserved_discount_pct);
  if (st != RS_OK || (n = rs_node_get(root, "rules")) == NULL)
    return st;
  if ((st = rs_node_expect(n, RS_NODE_SEQ, c->path, "rules", c->err)) != RS_OK)
    return st;
  o->rules = rs_arena_alloc_array(c->arena, n->n + 1, sizeof(*o->rules));
  if (o->rules == NULL)
    return rs_arena_error(c->arena, c->err, c->path, "reading the overlay");
  for (size_t i = 0; st == RS_OK && i < n->n; i++)
    st = read_rule(c, n->items[i], &o->rules[o->nrules++]);
  return st;
}

rs_status rs_overlay_load(rs_overlay **out, rs_arena *arena, const char *path, rs_error *err) {
  rs_doc doc;
  rs_overlay *o;
  ctx c = {arena, path, err};
  rs_status st;
  *out = NULL;
  st = rs_doc_load(&doc, arena, path, 0, err);
  if (st != RS_OK)
    return st;
  c.path = doc.path;
  o = rs_arena_alloc(arena, sizeof(*o));
  if (o == NULL)
    return rs_arena_error(arena, err, path, "reading the overlay");
  o->path = doc.path;
  o->name = doc.path;
  o->discount_pct = 0.0;
  o->reserved_discount_pct = NAN;
  st = read_overlay(&c, doc.root, o);
  if (st == RS_OK)
    *out = o;
  return st;
}

/* The most specific rule matching in (instance > family > provider). */
static const rs_price_rule *best_rule(const rs_overlay *o, const rs_instance *in) {
  const rs_price_rule *best = NULL;
  for (size_t i = 0; o && i < o->nrules; i++) {
    const rs_price_rule *r = &o->rules[i];
    const char *field = r->scope == RS_RULE_INSTANCE ? in->name
                        : r->scope == RS_RULE_FAMILY ? in->family
                                                     : in->provider;
    if (field && strcmp(field, r->match) == 0 && (best == NULL || r->scope > best->scope))
      best = r;
  }
  return best;
}

double rs_pricing_spot_rule(const rs_overlay *overlay, const rs_instance *in) {
  const rs_price_rule *r = best_rule(overlay, in);
  return r ? r->spot_usd_per_hour : NAN;
}

static double ondemand_price(const rs_overlay *o, const rs_instance *in) {
  const rs_price_rule *r = best_rule(o, in);
  double discount = o ? o->discount_pct : 0.0;
  if (r && !isnan(r->usd_per_hour))
    return r->usd_per_hour;
  if (r && !isnan(r->discount_pct))
    discount = r->discount_pct;
  return in->ondemand_usd_per_hour * (1.0 - discount / 100.0);
}

rs_status rs_pricing_apply(rs_catalog *cat, rs_price_basis basis, const rs_overlay *overlay,
                           rs_error *err) {
  if (basis == RS_BASIS_RESERVED && (overlay == NULL || isnan(overlay->reserved_discount_pct)))
    return rs_error_set(err, RS_USAGE, overlay ? overlay->path : NULL, 0, 0,
                        "--pricing reserved needs a price overlay with reserved_discount_pct: "
                        "the catalog has no reserved prices (docs/pricing.md)");
  for (size_t i = 0; i < cat->ninstances; i++) {
    rs_instance *in = &cat->instances[i];
    const rs_price_rule *r = best_rule(overlay, in);
    switch (basis) {
    case RS_BASIS_ONDEMAND: in->price_usd_per_hour = ondemand_price(overlay, in); break;
    case RS_BASIS_RESERVED:
      in->price_usd_per_hour =
          ondemand_price(overlay, in) * (1.0 - overlay->reserved_discount_pct / 100.0);
      break;
    case RS_BASIS_SPOT:
      in->price_usd_per_hour =
          r && !isnan(r->spot_usd_per_hour) ? r->spot_usd_per_hour : in->spot_usd_per_hour;
      break;
    }
  }
  return RS_OK;
}
