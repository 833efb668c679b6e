/* Price basis and the user's price overlay (docs/pricing.md).
 *
 * The catalog carries on-demand and (where known) spot prices. An overlay
 * file sits on top of it without editing it: a global discount, discounts or
 * absolute prices per provider, family or instance, and what "reserved"
 * means for this user (a discount off on-demand: the catalog has no reserved
 * prices). rs_pricing_apply() writes the effective price of every shape
 * under one basis into rs_instance.price_usd_per_hour. */
#ifndef RIGHTSIZE_PRICING_H
#define RIGHTSIZE_PRICING_H

#include <stddef.h>

#include "rightsize/arena.h"
#include "rightsize/catalog.h"
#include "rightsize/error.h"

#define RS_PRICE_BASIS_MAP(X)                                                                      \
  X(ONDEMAND, "on-demand")                                                                         \
  X(SPOT, "spot")                                                                                  \
  X(RESERVED, "reserved")

typedef enum {
#define RS_PRICE_BASIS_ENUM(name, key) RS_BASIS_##name,
  RS_PRICE_BASIS_MAP(RS_PRICE_BASIS_ENUM)
#undef RS_PRICE_BASIS_ENUM
} rs_price_basis;
enum {
#define RS_PRICE_BASIS_ONE(name, key) +1
  RS_BASIS_COUNT = 0 RS_PRICE_BASIS_MAP(RS_PRICE_BASIS_ONE)
#undef RS_PRICE_BASIS_ONE
};

/* The names in enum order, NULL-terminated. */
extern const char *const rs_price_basis_names[];

/* "on-demand", "spot", "reserved" <-> enum; RS_USAGE for another name. */
rs_status rs_price_basis_from_name(rs_price_basis *out, const char *name);
const char *rs_price_basis_name(rs_price_basis b);

typedef enum { RS_RULE_PROVIDER, RS_RULE_FAMILY, RS_RULE_INSTANCE } rs_rule_scope;

typedef struct rs_price_rule {
  rs_rule_scope scope;
  const char *match;        /* provider, family or instance name */
  double discount_pct;      /* NaN when the rule gives a price instead */
  double usd_per_hour;      /* absolute on-demand price; NaN when not given */
  double spot_usd_per_hour; /* absolute spot price; NaN when not given */
  size_t line, col;
} rs_price_rule;

typedef struct rs_overlay {
  const char *path;
  const char *name;             /* shown in reports */
  double discount_pct;          /* global, 0 when not given */
  double reserved_discount_pct; /* NaN when not given: --pricing reserved then fails */
  rs_price_rule *rules;
  size_t nrules;
} rs_overlay;

/* Loads and validates an overlay file (YAML or JSON). Errors carry
 * file:line:col: unknown keys, a discount outside [0, 100), a price <= 0,
 * a rule with no or two match keys, a rule with neither discount nor price. */
rs_status rs_overlay_load(rs_overlay **out, rs_arena *arena, const char *path, rs_error *err);

/* Prices every shape of cat under basis with overlay (NULL: none) into
 * price_usd_per_hour (NaN when the shape has no price under that basis).
 * The most specific matching rule wins (instance > family > provider >
 * global); discounts do not compound. RS_USAGE for reserved without
 * reserved_discount_pct. */
/* The spot price per hour the overlay's most specific rule matching in
 * gives (NULL overlay: none); NaN when no rule gives one. */
double rs_pricing_spot_rule(const rs_overlay *overlay, const rs_instance *in);

rs_status rs_pricing_apply(rs_catalog *cat, rs_price_basis basis, const rs_overlay *overlay,
                           rs_error *err);

#endif
