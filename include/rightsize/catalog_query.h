/* Querying catalogs: which shapes match a filter, in what order (`catalog
 * list`), and what changed between two catalogs (`catalog diff`). Results
 * borrow the catalogs' instances; arrays live in the arena passed in. */
#ifndef RIGHTSIZE_CATALOG_QUERY_H
#define RIGHTSIZE_CATALOG_QUERY_H

#include <stdbool.h>
#include <stddef.h>

#include "rightsize/arena.h"
#include "rightsize/catalog.h"
#include "rightsize/error.h"

#define RS_CATALOG_SORT_MAP(X)                                                                     \
  X(NONE, "none")                 /* catalog order */                                              \
  X(PRICE, "price")               /* $/h under the basis in use */                                 \
  X(PER_ACCEL, "price-per-accel") /* $/h per accelerator */                                        \
  X(ACCEL_MEM, "accel-mem")       /* accelerator memory of the whole shape */

typedef enum {
#define RS_CATALOG_SORT_ENUM(name, key) RS_CATALOG_SORT_##name,
  RS_CATALOG_SORT_MAP(RS_CATALOG_SORT_ENUM)
#undef RS_CATALOG_SORT_ENUM
} rs_catalog_sort;
enum {
#define RS_CATALOG_SORT_ONE(name, key) +1
  RS_CATALOG_SORT_COUNT = 0 RS_CATALOG_SORT_MAP(RS_CATALOG_SORT_ONE)
#undef RS_CATALOG_SORT_ONE
};

extern const char *const rs_catalog_sort_names[]; /* enum order, NULL-terminated */

typedef struct rs_catalog_filter {
  unsigned providers;      /* RS_PROVIDER_* bits (1u << provider); 0: any */
  const char *region;      /* NULL: any */
  unsigned families;       /* RS_FAMILY_* bits of the shape (cpu for CPU-only); 0: any */
  const char *accelerator; /* an exact key (case-insensitive) selects that key only, so T4 does
                              not pick T4G; otherwise a substring of key or name; NULL: any */
  int category;            /* rs_category; -1: any */
  int arch;                /* rs_arch; -1: any */
  double min_accel_mem;    /* bytes per device; NaN: no limit */
  double min_vcpus;        /* NaN: no limit */
  double max_price;        /* $/h under the basis in use; NaN: no limit */
  rs_catalog_sort sort;    /* unknown keys sort last; ties by provider, name, region */
} rs_catalog_filter;

/* Everything passes, catalog order. */
void rs_catalog_filter_init(rs_catalog_filter *f);

/* The RS_FAMILY_* bit of a shape: its accelerator's family, cpu when it has none. */
unsigned rs_instance_family(const rs_instance *in);

/* price / accelerator_count: $/h per accelerator (not finite for a CPU-only
 * shape or an unknown count). */
double rs_instance_per_accel(const rs_instance *in, double price);

/* The shapes of cat that pass f, in f's order: *out is an array of *n
 * borrowed pointers (in arena). RS_NOMEM. */
rs_status rs_catalog_query(const rs_instance ***out, size_t *n, rs_arena *arena,
                           const rs_catalog *cat, const rs_catalog_filter *f, rs_error *err);

typedef enum { RS_CHANGE_REMOVED, RS_CHANGE_PRICE, RS_CHANGE_ADDED } rs_change_kind;

/* A price that moved: old and new $/h, and the change in percent rounded
 * to 0.1 (NaN when either side is unknown or old is 0). */
typedef struct rs_price_change {
  bool changed;
  double old_usd, new_usd, pct;
} rs_price_change;

typedef struct rs_catalog_change {
  rs_change_kind kind;
  const rs_instance *in;    /* the old shape (the new one when added) */
  rs_price_change ondemand; /* RS_CHANGE_PRICE */
  rs_price_change spot;     /* RS_CHANGE_PRICE */
} rs_catalog_change;

/* Shapes are the same when provider, name and region are. Changes come in
 * the old catalog's order (removed and repriced), then the added ones in
 * the new catalog's order. */
typedef struct rs_catalog_diff {
  const rs_catalog *old_cat, *new_cat;
  rs_catalog_change *changes;
  size_t nchanges;
  size_t added, removed, changed, unchanged;
} rs_catalog_diff;

/* Compares two catalogs' shapes and on-demand and spot prices. RS_NOMEM. */
rs_status rs_catalog_diff_compute(rs_catalog_diff *out, rs_arena *arena, const rs_catalog *old_cat,
                                  const rs_catalog *new_cat, rs_error *err);

#endif
