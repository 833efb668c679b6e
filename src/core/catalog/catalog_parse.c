/* Catalog validation: the YAML tree (through doc.h) into rs_catalog, with
 * every problem reported at the node that has it. docs/catalog-format.md is
 * the schema this file enforces. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_internal.h"

typedef struct parse_ctx {
  rs_arena *arena;
  const char *path;
  rs_error *err;
} parse_ctx;

/* "instances[3].region" into buf. */
static const char *key_path(char *buf, size_t size, const char *list, size_t i, const char *key) {
  snprintf(buf, size, "%s[%zu].%s", list, i, key);
  return buf;
}

static rs_status need(const parse_ctx *c, const rs_node *map, const char *what, const char *key,
                      const rs_node **out) {
  *out = rs_node_get(map, key);
  if (*out != NULL)
    return RS_OK;
  return rs_error_set(c->err, RS_INVALID, c->path, map->line, map->col,
                      "%s: missing required key '%s'", what, key);
}

static rs_status get_string(const parse_ctx *c, const rs_node *map, const char *list, size_t i,
                            const char *key, bool required, const char **out) {
  char what[128];
  const rs_node *n = rs_node_get(map, key);
  *out = NULL;
  key_path(what, sizeof(what), list, i, key);
  if (n == NULL) {
    if (!required)
      return RS_OK;
    snprintf(what, sizeof(what), "%s[%zu]", list, i);
    return need(c, map, what, key, &n);
  }
  return rs_node_string(n, c->path, what, out, c->err);
}

/* An optional number that must be > 0 when present (unknown is omitted, never 0). */
static rs_status positive(const parse_ctx *c, const rs_node *n, const char *what, bool units,
                          double *out) {
  rs_status st = units ? rs_node_units(n, c->path, what, RS_UNIT_BYTES, NULL, out, c->err)
                       : rs_node_double(n, c->path, what, out, c->err);
  if (st != RS_OK)
    return st;
  if (!(*out > 0))
    return rs_error_set(c->err, RS_INVALID, c->path, n->line, n->col,
                        "%s: must be greater than 0, got '%s' (omit a value that is unknown)", what,
                        n->text);
  return RS_OK;
}

static rs_status get_number(const parse_ctx *c, const rs_node *map, const char *list, size_t i,
                            const char *key, bool units, double *out) {
  char what[128];
  const rs_node *n = rs_node_get(map, key);
  *out = NAN;
  if (n == NULL)
    return RS_OK;
  return positive(c, n, key_path(what, sizeof(what), list, i, key), units, out);
}

/* One of names[] (NULL-terminated); *out is its index. */
static rs_status get_enum(const parse_ctx *c, const rs_node *map, const char *list, size_t i,
                          const char *key, const char *const *names, const char *expected,
                          int *out) {
  char what[128];
  const char *s;
  rs_status st = get_string(c, map, list, i, key, true, &s);
  if (st != RS_OK)
    return st;
  for (int k = 0; names[k]; k++)
    if (strcmp(names[k], s) == 0) {
      *out = k;
      return RS_OK;
    }
  const rs_node *n = rs_node_get(map, key);
  return rs_error_set(c->err, RS_INVALID, c->path, n->line, n->col, "%s: expected %s, got '%s'",
                      key_path(what, sizeof(what), list, i, key), expected, s);
}

static const char *const accel_keys[] = {"key",         "vendor",
                                         "family",      "name",
                                         "form_factor", "memory",
                                         "memory_type", "memory_bandwidth_gbps",
                                         "fp16_tflops", "fp16_sparse_tflops",
                                         "int8_tops",   "fp32_tflops",
                                         "tdp_w",       "source",
                                         "notes",       "architecture",
                                         "fp8_tflops",  "tf32_tflops",
                                         NULL};

static rs_status accel_numbers(const parse_ctx *c, const rs_node *m, size_t i, rs_accelerator *a) {
  const char *L = "accelerators";
  rs_status st = get_number(c, m, L, i, "memory", true, &a->memory_bytes);
  if (st == RS_OK)
    st = get_number(c, m, L, i, "memory_bandwidth_gbps", false, &a->memory_bw_gbps);
  if (st == RS_OK)
    st = get_number(c, m, L, i, "fp16_tflops", false, &a->fp16_tflops);
  if (st == RS_OK)
    st = get_number(c, m, L, i, "fp16_sparse_tflops", false, &a->fp16_sparse_tflops);
  if (st == RS_OK)
    st = get_number(c, m, L, i, "int8_tops", false, &a->int8_tops);
  if (st == RS_OK)
    st = get_number(c, m, L, i, "fp32_tflops", false, &a->fp32_tflops);
  if (st == RS_OK)
    st = get_number(c, m, L, i, "fp8_tflops", false, &a->fp8_tflops);
  if (st == RS_OK)
    st = get_number(c, m, L, i, "tf32_tflops", false, &a->tf32_tflops);
  if (st == RS_OK)
    st = get_number(c, m, L, i, "tdp_w", false, &a->tdp_w);
  return st;
}

static rs_status parse_accel(const parse_ctx *c, const rs_node *m, size_t i, rs_accelerator *a) {
  const char *L = "accelerators";
  char what[64];
  int fam = 0;
  rs_status st;
  snprintf(what, sizeof(what), "%s[%zu]", L, i);
  if ((st = rs_node_expect(m, RS_NODE_MAP, c->path, what, c->err)) != RS_OK ||
      (st = rs_node_check_keys(m, c->path, what, accel_keys, c->err)) != RS_OK)
    return st;
  a->line = m->line, a->col = m->col;
  if ((st = get_string(c, m, L, i, "key", true, &a->key)) != RS_OK ||
      (st = get_string(c, m, L, i, "vendor", true, &a->vendor)) != RS_OK ||
      (st = get_enum(c, m, L, i, "family", rs_accel_family_names,
                     "nvidia-gpu, inferentia, trainium or tpu", &fam)) != RS_OK ||
      (st = get_string(c, m, L, i, "name", true, &a->name)) != RS_OK ||
      (st = get_string(c, m, L, i, "form_factor", false, &a->form_factor)) != RS_OK ||
      (st = get_string(c, m, L, i, "memory_type", false, &a->memory_type)) != RS_OK ||
      (st = get_string(c, m, L, i, "source", true, &a->source)) != RS_OK ||
      (st = get_string(c, m, L, i, "notes", false, &a->notes)) != RS_OK ||
      (st = get_string(c, m, L, i, "architecture", false, &a->architecture)) != RS_OK)
    return st;
  a->family = (rs_accel_family)fam;
  return accel_numbers(c, m, i, a);
}

static rs_status parse_accels(const parse_ctx *c, const rs_node *seq, rs_catalog *cat) {
  rs_status st = rs_node_expect(seq, RS_NODE_SEQ, c->path, "accelerators", c->err);
  if (st != RS_OK)
    return st;
  cat->accelerators = rs_arena_alloc_array(c->arena, seq->n + 1, sizeof(*cat->accelerators));
  if (cat->accelerators == NULL)
    return rs_arena_error(c->arena, c->err, c->path, "reading the catalog");
  for (size_t i = 0; i < seq->n; i++) {
    rs_accelerator *a = &cat->accelerators[i];
    if ((st = parse_accel(c, seq->items[i], i, a)) != RS_OK)
      return st;
    for (size_t j = 0; j < i; j++)
      if (strcmp(cat->accelerators[j].key, a->key) == 0) {
        const rs_node *k = rs_node_get(seq->items[i], "key");
        return rs_error_set(c->err, RS_INVALID, c->path, k->line, k->col,
                            "duplicate accelerator key '%s', first at line %zu", a->key,
                            cat->accelerators[j].line);
      }
    cat->naccelerators = i + 1;
  }
  return RS_OK;
}

static const char *const instance_keys[] = {"provider",
                                            "name",
                                            "family",
                                            "category",
                                            "arch",
                                            "region",
                                            "vcpus",
                                            "memory",
                                            "accelerator",
                                            "accelerator_count",
                                            "accelerator_memory",
                                            "accelerator_basis",
                                            "cpu",
                                            "cpu_gflops_per_vcpu",
                                            "cpu_memory_gbps_per_vcpu",
                                            "network",
                                            "ondemand_usd_per_hour",
                                            "spot_usd_per_hour",
                                            "price_flag",
                                            "as_of",
                                            "source",
                                            "notes",
                                            NULL};
static const char *const price_flags[] = {"", "suspect", "unpriced", NULL};
static const char *const network_keys[] = {"gbps", "up_to", "baseline_gbps", NULL};

static rs_status parse_network(const parse_ctx *c, const rs_node *m, size_t i, rs_instance *in) {
  char what[128];
  const rs_node *net = rs_node_get(m, "network"), *n;
  rs_status st;
  in->network_gbps = in->network_baseline_gbps = NAN;
  if (net == NULL)
    return RS_OK;
  key_path(what, sizeof(what), "instances", i, "network");
  if ((st = rs_node_expect(net, RS_NODE_MAP, c->path, what, c->err)) != RS_OK ||
      (st = rs_node_check_keys(net, c->path, what, network_keys, c->err)) != RS_OK ||
      (st = need(c, net, what, "gbps", &n)) != RS_OK)
    return st;
  snprintf(what, sizeof(what), "instances[%zu].network.gbps", i);
  if ((st = positive(c, n, what, false, &in->network_gbps)) != RS_OK)
    return st;
  if ((n = rs_node_get(net, "baseline_gbps")) != NULL) {
    snprintf(what, sizeof(what), "instances[%zu].network.baseline_gbps", i);
    if ((st = positive(c, n, what, false, &in->network_baseline_gbps)) != RS_OK)
      return st;
  }
  if ((n = rs_node_get(net, "up_to")) != NULL) {
    snprintf(what, sizeof(what), "instances[%zu].network.up_to", i);
    return rs_node_bool(n, c->path, what, &in->network_up_to, c->err);
  }
  return RS_OK;
}

static rs_status parse_instance_strings(const parse_ctx *c, const rs_node *m, size_t i,
                                        rs_instance *in) {
  const char *L = "instances";
  int cat = 0;
  rs_status st;
  if ((st = get_string(c, m, L, i, "provider", true, &in->provider)) != RS_OK ||
      (st = get_string(c, m, L, i, "name", true, &in->name)) != RS_OK ||
      (st = get_string(c, m, L, i, "family", true, &in->family)) != RS_OK ||
      (st = get_enum(c, m, L, i, "category", rs_category_names, "gpu, accelerator, tpu or cpu",
                     &cat)) != RS_OK ||
      (st = get_string(c, m, L, i, "region", true, &in->region)) != RS_OK ||
      (st = get_string(c, m, L, i, "cpu", false, &in->cpu)) != RS_OK ||
      (st = get_string(c, m, L, i, "accelerator_basis", false, &in->accelerator_basis)) != RS_OK ||
      (st = get_string(c, m, L, i, "as_of", false, &in->as_of)) != RS_OK ||
      (st = get_string(c, m, L, i, "source", true, &in->source)) != RS_OK ||
      (st = get_string(c, m, L, i, "notes", false, &in->notes)) != RS_OK)
    return st;
  in->category = (rs_category)cat;
  if (rs_node_get(m, "arch") != NULL &&
      (st = get_enum(c, m, L, i, "arch", rs_arch_names + 1, "x86_64 or arm64", &cat)) != RS_OK)
    return st;
  in->arch = rs_node_get(m, "arch") ? (rs_arch)(cat + 1) : RS_ARCH_UNKNOWN;
  if (rs_node_get(m, "price_flag") != NULL &&
      (st = get_enum(c, m, L, i, "price_flag", price_flags + 1, "suspect or unpriced", &cat)) !=
          RS_OK)
    return st;
  in->price_flag = rs_node_get(m, "price_flag") ? (rs_price_flag)(cat + 1) : RS_PRICE_OK;
  return RS_OK;
}

static rs_status parse_instance_numbers(const parse_ctx *c, const rs_node *m, size_t i,
                                        rs_instance *in) {
  const char *L = "instances";
  rs_status st;
  if ((st = get_number(c, m, L, i, "vcpus", false, &in->vcpus)) != RS_OK ||
      (st = get_number(c, m, L, i, "memory", true, &in->memory_bytes)) != RS_OK ||
      (st = get_number(c, m, L, i, "accelerator_count", false, &in->accelerator_count)) != RS_OK ||
      (st = get_number(c, m, L, i, "accelerator_memory", true, &in->accelerator_memory_bytes)) !=
          RS_OK ||
      (st = get_number(c, m, L, i, "cpu_gflops_per_vcpu", false, &in->cpu_gflops_per_vcpu)) !=
          RS_OK ||
      (st = get_number(c, m, L, i, "cpu_memory_gbps_per_vcpu", false,
                       &in->cpu_memory_gbps_per_vcpu)) != RS_OK ||
      (st = get_number(c, m, L, i, "ondemand_usd_per_hour", false, &in->ondemand_usd_per_hour)) !=
          RS_OK ||
      (st = get_number(c, m, L, i, "spot_usd_per_hour", false, &in->spot_usd_per_hour)) != RS_OK)
    return st;
  in->price_usd_per_hour = in->ondemand_usd_per_hour;
  return parse_network(c, m, i, in);
}

/* The rules that tie fields together: a price unless unpriced, an
 * accelerator on accelerator shapes and none on CPU shapes. */
static rs_status check_instance(const parse_ctx *c, const rs_node *m, size_t i, rs_instance *in,
                                const rs_catalog *cat) {
  char what[64];
  const rs_node *n;
  const char *key = NULL;
  rs_status st;
  snprintf(what, sizeof(what), "instances[%zu]", i);
  if (in->price_flag == RS_PRICE_UNPRICED) {
    if ((n = rs_node_get(m, "ondemand_usd_per_hour")) != NULL)
      return rs_error_set(c->err, RS_INVALID, c->path, n->line, n->col,
                          "%s: price_flag 'unpriced' and ondemand_usd_per_hour both given", what);
  } else if ((st = need(c, m, what, "ondemand_usd_per_hour", &n)) != RS_OK)
    return st;
  if (in->category == RS_CATEGORY_CPU) {
    if ((n = rs_node_get(m, "accelerator")) != NULL)
      return rs_error_set(c->err, RS_INVALID, c->path, n->line, n->col,
                          "%s: a cpu shape has no accelerator, got '%s'", what, n->text);
    return need(c, m, what, "cpu_gflops_per_vcpu", &n);
  }
  if ((st = need(c, m, what, "accelerator", &n)) != RS_OK ||
      (st = get_string(c, m, "instances", i, "accelerator", true, &key)) != RS_OK)
    return st;
  in->accelerator = rs_catalog_find_accelerator(cat, key);
  if (in->accelerator == NULL)
    return rs_error_set(c->err, RS_INVALID, c->path, n->line, n->col,
                        "instances[%zu].accelerator: unknown accelerator key '%s'", i, key);
  return RS_OK;
}

static rs_status parse_instance(const parse_ctx *c, const rs_node *m, size_t i, rs_instance *in,
                                const rs_catalog *cat) {
  char what[64];
  rs_status st;
  snprintf(what, sizeof(what), "instances[%zu]", i);
  if ((st = rs_node_expect(m, RS_NODE_MAP, c->path, what, c->err)) != RS_OK ||
      (st = rs_node_check_keys(m, c->path, what, instance_keys, c->err)) != RS_OK)
    return st;
  in->line = m->line, in->col = m->col;
  if ((st = parse_instance_strings(c, m, i, in)) != RS_OK ||
      (st = parse_instance_numbers(c, m, i, in)) != RS_OK)
    return st;
  return check_instance(c, m, i, in, cat);
}

static int cmp_identity(const void *pa, const void *pb) {
  const rs_instance *a = *(const rs_instance *const *)pa, *b = *(const rs_instance *const *)pb;
  int r = strcmp(a->provider, b->provider);
  if (r == 0)
    r = strcmp(a->name, b->name);
  if (r == 0)
    r = strcmp(a->region, b->region);
  if (r == 0)
    r = (a->line > b->line) - (a->line < b->line);
  return r;
}

/* Duplicates by provider + name + region, found by sorting so a hostile
 * catalog with many rows stays O(n log n); reported at the later entry. */
static rs_status check_duplicates(const parse_ctx *c, const rs_catalog *cat) {
  const rs_instance **v = rs_arena_alloc_array(c->arena, cat->ninstances + 1, sizeof(*v));
  if (v == NULL)
    return rs_arena_error(c->arena, c->err, c->path, "reading the catalog");
  for (size_t i = 0; i < cat->ninstances; i++)
    v[i] = &cat->instances[i];
  qsort(v, cat->ninstances, sizeof(*v), cmp_identity);
  for (size_t i = 1; i < cat->ninstances; i++) {
    const rs_instance *a = v[i - 1], *b = v[i];
    if (strcmp(a->provider, b->provider) == 0 && strcmp(a->name, b->name) == 0 &&
        strcmp(a->region, b->region) == 0)
      return rs_error_set(c->err, RS_INVALID, c->path, b->line, b->col,
                          "duplicate instance '%s' '%s' in region '%s', first at line %zu",
                          b->provider, b->name, b->region, a->line);
  }
  return RS_OK;
}

static rs_status parse_instances(const parse_ctx *c, const rs_node *seq, rs_catalog *cat) {
  rs_status st = rs_node_expect(seq, RS_NODE_SEQ, c->path, "instances", c->err);
  if (st != RS_OK)
    return st;
  cat->instances = rs_arena_alloc_array(c->arena, seq->n + 1, sizeof(*cat->instances));
  if (cat->instances == NULL)
    return rs_arena_error(c->arena, c->err, c->path, "reading the catalog");
  for (size_t i = 0; i < seq->n; i++) {
    if ((st = parse_instance(c, seq->items[i], i, &cat->instances[i], cat)) != RS_OK)
      return st;
    cat->ninstances = i + 1;
  }
  return check_duplicates(c, cat);
}

static rs_status parse_sources(const parse_ctx *c, const rs_node *seq, rs_catalog *cat) {
  char what[64];
  rs_status st = rs_node_expect(seq, RS_NODE_SEQ, c->path, "sources", c->err);
  if (st != RS_OK)
    return st;
  cat->sources = rs_arena_alloc_array(c->arena, seq->n + 1, sizeof(*cat->sources));
  if (cat->sources == NULL)
    return rs_arena_error(c->arena, c->err, c->path, "reading the catalog");
  for (size_t i = 0; i < seq->n; i++) {
    snprintf(what, sizeof(what), "sources[%zu]", i);
    if ((st = rs_node_string(seq->items[i], c->path, what, &cat->sources[i], c->err)) != RS_OK)
      return st;
  }
  cat->nsources = seq->n;
  return RS_OK;
}

static const char *const top_keys[] = {"schema_version", "catalog_version", "prices_as_of",
                                       "currency",       "sources",         "accelerators",
                                       "instances",      "calibration",     NULL};

static rs_status parse_header(const parse_ctx *c, const rs_node *root, rs_catalog *cat) {
  const rs_node *n;
  uint64_t schema = 0;
  rs_status st;
  if ((st = need(c, root, "catalog", "schema_version", &n)) != RS_OK ||
      (st = rs_node_uint(n, c->path, "schema_version", 1000000, &schema, c->err)) != RS_OK)
    return st;
  if (schema < RS_CATALOG_SCHEMA_MIN || schema > RS_CATALOG_SCHEMA_MAJOR)
    return rs_error_set(c->err, RS_INVALID, c->path, n->line, n->col,
                        "unsupported schema_version %llu, this rightsize reads schema %d to %d",
                        (unsigned long long)schema, RS_CATALOG_SCHEMA_MIN, RS_CATALOG_SCHEMA_MAJOR);
  cat->schema_version = (unsigned)schema;
  if ((st = rs_node_check_keys(root, c->path, "the catalog", top_keys, c->err)) != RS_OK ||
      (st = need(c, root, "catalog", "catalog_version", &n)) != RS_OK ||
      (st = rs_node_string(n, c->path, "catalog_version", &cat->version, c->err)) != RS_OK ||
      (st = need(c, root, "catalog", "prices_as_of", &n)) != RS_OK ||
      (st = rs_node_string(n, c->path, "prices_as_of", &cat->prices_as_of, c->err)) != RS_OK ||
      (st = need(c, root, "catalog", "currency", &n)) != RS_OK ||
      (st = rs_node_string(n, c->path, "currency", &cat->currency, c->err)) != RS_OK)
    return st;
  if (strcmp(cat->currency, "USD") != 0)
    return rs_error_set(c->err, RS_INVALID, c->path, n->line, n->col,
                        "currency: only USD is supported, got '%s'", cat->currency);
  if ((st = need(c, root, "catalog", "sources", &n)) != RS_OK)
    return st;
  return parse_sources(c, n, cat);
}

rs_status rs_catalog_from_doc(rs_catalog *cat, rs_arena *arena, const rs_doc *doc, rs_error *err) {
  parse_ctx c = {arena, doc->path, err};
  const rs_node *root = doc->root, *n;
  rs_status st;
  if (root == NULL)
    return rs_error_set(err, RS_INVALID, doc->path, 1, 1, "empty catalog, expected a mapping");
  if ((st = rs_node_expect(root, RS_NODE_MAP, doc->path, "the catalog", err)) != RS_OK ||
      (st = parse_header(&c, root, cat)) != RS_OK ||
      (st = need(&c, root, "catalog", "accelerators", &n)) != RS_OK ||
      (st = parse_accels(&c, n, cat)) != RS_OK ||
      (st = need(&c, root, "catalog", "instances", &n)) != RS_OK ||
      (st = parse_instances(&c, n, cat)) != RS_OK)
    return st;
  if ((n = rs_node_get(root, "calibration")) == NULL)
    return RS_OK;
  if (cat->schema_version < 2)
    return rs_error_set(err, RS_INVALID, doc->path, n->line, n->col,
                        "calibration: needs schema_version 2, the file says %u",
                        cat->schema_version);
  return rs_catalog_parse_calibration(cat, arena, doc->path, n, err);
}
