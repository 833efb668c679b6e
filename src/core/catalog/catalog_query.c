/* Catalog filtering, sorting and diff (catalog_query.h). */
#include "rightsize/catalog_query.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const rs_catalog_sort_names[] = {
#define RS_CATALOG_SORT_NAME(name, key) key,
    RS_CATALOG_SORT_MAP(RS_CATALOG_SORT_NAME)
#undef RS_CATALOG_SORT_NAME
        NULL};

void rs_catalog_filter_init(rs_catalog_filter *f) {
  memset(f, 0, sizeof(*f));
  f->category = f->arch = -1;
  f->min_accel_mem = f->min_vcpus = f->max_price = NAN;
  f->sort = RS_CATALOG_SORT_NONE;
}

unsigned rs_instance_family(const rs_instance *in) {
  if (in->category == RS_CATEGORY_CPU || in->accelerator == NULL)
    return RS_FAMILY_CPU;
  return rs_accel_family_bit(in->accelerator->family);
}

double rs_instance_per_accel(const rs_instance *in, double price) {
  return price / in->accelerator_count;
}

/* A case-insensitive substring. */
static bool contains(const char *s, const char *q) {
  size_t n = strlen(q);
  for (; *s; s++)
    if (strncasecmp(s, q, n) == 0)
      return true;
  return false;
}

static bool accel_matches(const rs_catalog *cat, const rs_accelerator *a, const char *q) {
  for (size_t i = 0; i < cat->naccelerators; i++)
    if (strcasecmp(cat->accelerators[i].key, q) == 0)
      return a != NULL && strcasecmp(a->key, q) == 0;
  return a != NULL && (contains(a->key, q) || contains(a->name, q));
}

static bool provider_matches(unsigned providers, const char *name) {
  const unsigned every = (1u << RS_PROVIDER_COUNT) - 1;
  int p = rs_provider_from_name(name);
  if (providers == 0 || (providers & every) == every)
    return true; /* any, or every known one ("all") */
  return p >= 0 && (providers & (1u << p)) != 0;
}

static bool keep(const rs_catalog_filter *f, const rs_catalog *cat, const rs_instance *in) {
  if (!provider_matches(f->providers, in->provider))
    return false;
  if (f->region && strcmp(f->region, in->region) != 0)
    return false;
  if (f->families && !(f->families & rs_instance_family(in)))
    return false;
  if (f->category >= 0 && (int)in->category != f->category)
    return false;
  if (f->arch >= 0 && (int)in->arch != f->arch)
    return false;
  if (f->accelerator && !accel_matches(cat, in->accelerator, f->accelerator))
    return false;
  if (!isnan(f->min_accel_mem) && !(in->accelerator_memory_bytes >= f->min_accel_mem))
    return false;
  if (!isnan(f->min_vcpus) && !(in->vcpus >= f->min_vcpus))
    return false;
  if (!isnan(f->max_price) && !(in->price_usd_per_hour <= f->max_price))
    return false;
  return true;
}

typedef struct sort_item {
  const rs_instance *in;
  double key;
  rs_catalog_sort by;
} sort_item;

/* Unknown keys sort last; ties by provider, name, region, then catalog order. */
static int cmp_items(const void *pa, const void *pb) {
  const sort_item *a = pa, *b = pb;
  int r = 0;
  if (a->by != RS_CATALOG_SORT_NONE) {
    bool na = isnan(a->key), nb = isnan(b->key);
    r = na != nb ? (na ? 1 : -1) : (a->key > b->key) - (a->key < b->key);
    if (r == 0)
      r = strcmp(a->in->provider, b->in->provider);
    if (r == 0)
      r = strcmp(a->in->name, b->in->name);
    if (r == 0)
      r = strcmp(a->in->region, b->in->region);
  }
  if (r == 0)
    r = (a->in > b->in) - (a->in < b->in);
  return r;
}

static double sort_key(const rs_instance *in, rs_catalog_sort by) {
  switch (by) {
  case RS_CATALOG_SORT_PRICE: return in->price_usd_per_hour;
  case RS_CATALOG_SORT_PER_ACCEL: return rs_instance_per_accel(in, in->price_usd_per_hour);
  case RS_CATALOG_SORT_ACCEL_MEM: return rs_instance_accel_memory(in);
  default: return NAN;
  }
}

rs_status rs_catalog_query(const rs_instance ***out, size_t *n, rs_arena *arena,
                           const rs_catalog *cat, const rs_catalog_filter *f, rs_error *err) {
  size_t cap = cat->ninstances + 1, k = 0;
  sort_item *items =
      cap < SIZE_MAX / sizeof(*items) ? rs_arena_alloc(arena, cap * sizeof(*items)) : NULL;
  const rs_instance **rows =
      items && cap < SIZE_MAX / sizeof(*rows) ? rs_arena_alloc(arena, cap * sizeof(*rows)) : NULL;
  *out = NULL;
  *n = 0;
  if (rows == NULL)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory");
  for (size_t i = 0; i < cat->ninstances; i++) {
    const rs_instance *in = &cat->instances[i];
    if (keep(f, cat, in))
      items[k++] = (sort_item){in, sort_key(in, f->sort), f->sort};
  }
  qsort(items, k, sizeof(*items), cmp_items);
  for (size_t i = 0; i < k; i++)
    rows[i] = items[i].in;
  *out = rows;
  *n = k;
  return RS_OK;
}

/* ---- diff ---- */

static const rs_instance *find_same(const rs_catalog *cat, const rs_instance *in) {
  for (size_t i = 0; i < cat->ninstances; i++) {
    const rs_instance *x = &cat->instances[i];
    if (strcmp(x->provider, in->provider) == 0 && strcmp(x->name, in->name) == 0 &&
        strcmp(x->region, in->region) == 0)
      return x;
  }
  return NULL;
}

static rs_price_change price_change(double a, double b) {
  rs_price_change c = {!((isnan(a) && isnan(b)) || a == b), a, b, NAN};
  if (c.changed && isfinite(a) && isfinite(b) && a > 0)
    c.pct = round((b - a) / a * 1000) / 10;
  return c;
}

rs_status rs_catalog_diff_compute(rs_catalog_diff *out, rs_arena *arena, const rs_catalog *old_cat,
                                  const rs_catalog *new_cat, rs_error *err) {
  size_t cap = old_cat->ninstances + new_cat->ninstances + 1;
  memset(out, 0, sizeof(*out));
  out->old_cat = old_cat;
  out->new_cat = new_cat;
  out->changes = cap < SIZE_MAX / sizeof(*out->changes)
                     ? rs_arena_alloc(arena, cap * sizeof(*out->changes))
                     : NULL;
  if (out->changes == NULL)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory");
  for (size_t i = 0; i < old_cat->ninstances; i++) {
    const rs_instance *in = &old_cat->instances[i], *other = find_same(new_cat, in);
    rs_catalog_change c = {RS_CHANGE_REMOVED, in, {0}, {0}};
    if (other != NULL) {
      c.kind = RS_CHANGE_PRICE;
      c.ondemand = price_change(in->ondemand_usd_per_hour, other->ondemand_usd_per_hour);
      c.spot = price_change(in->spot_usd_per_hour, other->spot_usd_per_hour);
      if (!c.ondemand.changed && !c.spot.changed)
        continue;
    }
    out->removed += c.kind == RS_CHANGE_REMOVED;
    out->changed += c.kind == RS_CHANGE_PRICE;
    out->changes[out->nchanges++] = c;
  }
  for (size_t i = 0; i < new_cat->ninstances; i++)
    if (find_same(old_cat, &new_cat->instances[i]) == NULL) {
      out->changes[out->nchanges++] =
          (rs_catalog_change){RS_CHANGE_ADDED, &new_cat->instances[i], {0}, {0}};
      out->added++;
    }
  out->unchanged = old_cat->ninstances - out->removed - out->changed;
  return RS_OK;
}
