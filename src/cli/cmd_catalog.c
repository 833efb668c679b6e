/* rightsize catalog: list, show, validate and diff instance catalogs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "rightsize/pipeline.h"
#include "rightsize/arena.h"
#include "rightsize/buf.h"
#include "rightsize/catalog.h"
#include "jsonw.h"
#include "rightsize/pricing.h"
#include "report_internal.h"
#include "rightsize/num.h"

enum {
  OPT_CATALOG = 1,
  OPT_PROVIDER,
  OPT_CATEGORY,
  OPT_ACCEL,
  OPT_MIN_MEM,
  OPT_MIN_VCPUS,
  OPT_MAX_PRICE,
  OPT_REGION,
  OPT_ARCH,
  OPT_SORT,
  OPT_FORMAT,
  OPT_PRICING,
  OPT_OVERLAY
};

static const rs_cli_option catalog_options[] = {
    {"catalog", 'c', "FILE|DIR", "use this catalog instead of the built-in one", OPT_CATALOG},
    {"provider", 0, "NAME", "list: only this provider (aws, gcp, azure)", OPT_PROVIDER},
    {"category", 0, "NAME", "list: only gpu, accelerator, tpu or cpu shapes", OPT_CATEGORY},
    {"accelerator", 0, "KEY", "list: an accelerator key, or a substring of keys and names",
     OPT_ACCEL},
    {"min-accel-mem", 0, "SIZE", "list: at least this accelerator memory per device (16GB)",
     OPT_MIN_MEM},
    {"min-vcpus", 0, "N", "list: at least N vCPUs", OPT_MIN_VCPUS},
    {"max-price", 0, "USD", "list: at most this on-demand $/h", OPT_MAX_PRICE},
    {"region", 0, "NAME", "list: only shapes priced in this region", OPT_REGION},
    {"arch", 0, "ARCH", "list: only x86_64 or arm64 hosts", OPT_ARCH},
    {"sort", 's', "KEY", "list: price, price-per-accel or accel-mem (default: catalog order)",
     OPT_SORT},
    {"format", 'f', "FORMAT", "list: table (default), json or csv", OPT_FORMAT},
    {"pricing", 0, "BASIS", "price basis: on-demand (default), spot or reserved", OPT_PRICING},
    {"price-overlay", 0, "FILE", "discounts and prices on top of the catalog (docs/pricing.md)",
     OPT_OVERLAY},
    {NULL, 0, NULL, NULL, 0}};

typedef enum { SORT_NONE, SORT_PRICE, SORT_PER_ACCEL, SORT_ACCEL_MEM } sort_key;
typedef enum { FMT_TABLE, FMT_JSON, FMT_CSV } out_format;

typedef struct list_opts {
  const char *catalog;
  const char *provider, *region, *accel;
  int category, arch;                   /* -1: any */
  double min_mem, min_vcpus, max_price; /* NaN: no limit */
  sort_key sort;
  out_format format;
  rs_price_basis basis;
  const char *overlay;
} list_opts;

static int bad_value(const char *opt, const char *v, const char *expected) {
  char msg[256];
  snprintf(msg, sizeof(msg), "bad --%s '%s', expected %s", opt, v, expected);
  return rs_cli_usage_error("catalog", msg);
}

static int pick(const char *v, const char *const *names) {
  for (int i = 0; names[i]; i++)
    if (strcmp(v, names[i]) == 0)
      return i;
  return -1;
}

static int read_number(double *out, const char *opt, const char *v, bool bytes) {
  rs_status st = bytes ? rs_units_parse(RS_UNIT_BYTES, v, strlen(v), "GB", out)
                       : rs_num_parse_double(v, strlen(v), out);
  if (st != RS_OK || *out < 0)
    return bad_value(opt, v, bytes ? "a size such as 24GB" : "a number of at least 0");
  return 0;
}

static int read_choice(int *out, const char *opt, const char *v, const char *const *names,
                       const char *expected) {
  *out = pick(v, names);
  return *out < 0 ? bad_value(opt, v, expected) : 0;
}

static int read_option(list_opts *o, const rs_cli_parsed *p) {
  static const char *const cats[] = {"gpu", "accelerator", "tpu", "cpu", NULL};
  static const char *const arches[] = {"unknown", "x86_64", "arm64", NULL};
  static const char *const sorts[] = {"none", "price", "price-per-accel", "accel-mem", NULL};
  static const char *const formats[] = {"table", "json", "csv", NULL};
  int k = 0, rc = 0;
  switch (p->id) {
  case OPT_CATALOG: o->catalog = p->value; break;
  case OPT_OVERLAY: o->overlay = p->value; break;
  case OPT_PRICING:
    if (rs_price_basis_from_name(&o->basis, p->value) != RS_OK)
      return bad_value("pricing", p->value, "on-demand, spot or reserved");
    break;
  case OPT_PROVIDER: o->provider = p->value; break;
  case OPT_REGION: o->region = p->value; break;
  case OPT_ACCEL: o->accel = p->value; break;
  case OPT_MIN_MEM: return read_number(&o->min_mem, "min-accel-mem", p->value, true);
  case OPT_MIN_VCPUS: return read_number(&o->min_vcpus, "min-vcpus", p->value, false);
  case OPT_MAX_PRICE: return read_number(&o->max_price, "max-price", p->value, false);
  case OPT_CATEGORY:
    rc = read_choice(&o->category, "category", p->value, cats, "gpu, accelerator, tpu or cpu");
    break;
  case OPT_ARCH: rc = read_choice(&o->arch, "arch", p->value, arches, "x86_64 or arm64"); break;
  case OPT_SORT:
    rc = read_choice(&k, "sort", p->value, sorts, "price, price-per-accel or accel-mem");
    o->sort = (sort_key)k;
    break;
  case OPT_FORMAT:
    rc = read_choice(&k, "format", p->value, formats, "table, json or csv");
    o->format = (out_format)k;
    break;
  default: break;
  }
  return rc;
}

static int read_options(list_opts *o, const rs_cli_args *args) {
  memset(o, 0, sizeof(*o));
  o->category = o->arch = -1;
  o->min_mem = o->min_vcpus = o->max_price = NAN;
  for (size_t i = 0; i < args->nopts; i++) {
    int rc = read_option(o, &args->opts[i]);
    if (rc != 0)
      return rc;
  }
  return 0;
}

/* A number in the shortest fixed form with at most 6 decimals; "-" when unknown. */
static const char *num(char *buf, size_t size, double v) {
  size_t n;
  if (!isfinite(v))
    return "-";
  snprintf(buf, size, "%.6f", v);
  n = strlen(buf);
  while (n > 0 && buf[n - 1] == '0')
    buf[--n] = '\0';
  if (n > 0 && buf[n - 1] == '.')
    buf[--n] = '\0';
  return buf;
}

/* CSV leaves unknown fields empty. */
static const char *cnum(char *buf, size_t size, double v) {
  const char *s = num(buf, size, v);
  return strcmp(s, "-") == 0 ? "" : s;
}

static double per_accel_price(const rs_instance *in) {
  return in->price_usd_per_hour / in->accelerator_count;
}

static double total_accel_mem(const rs_instance *in) { return rs_instance_accel_memory(in); }

/* --accelerator: an exact key (case-insensitive) selects that key only, so
 * T4 does not pick T4G; anything else is a substring of key or name. */
static bool accel_matches(const rs_catalog *cat, const rs_accelerator *a, const char *q) {
  for (size_t i = 0; i < cat->naccelerators; i++)
    if (strcasecmp(cat->accelerators[i].key, q) == 0)
      return a != NULL && strcasecmp(a->key, q) == 0;
  if (a == NULL)
    return false;
  size_t n = strlen(q);
  for (const char *s = a->key; *s; s++)
    if (strncasecmp(s, q, n) == 0)
      return true;
  for (const char *s = a->name; *s; s++)
    if (strncasecmp(s, q, n) == 0)
      return true;
  return false;
}

static bool keep(const list_opts *o, const rs_catalog *cat, const rs_instance *in) {
  if (o->provider && strcmp(o->provider, in->provider) != 0)
    return false;
  if (o->region && strcmp(o->region, in->region) != 0)
    return false;
  if (o->category >= 0 && (int)in->category != o->category)
    return false;
  if (o->arch >= 0 && (int)in->arch != o->arch)
    return false;
  if (o->accel && !accel_matches(cat, in->accelerator, o->accel))
    return false;
  if (!isnan(o->min_mem) && !(in->accelerator_memory_bytes >= o->min_mem))
    return false;
  if (!isnan(o->min_vcpus) && !(in->vcpus >= o->min_vcpus))
    return false;
  if (!isnan(o->max_price) && !(in->price_usd_per_hour <= o->max_price))
    return false;
  return true;
}

typedef struct sort_item {
  const rs_instance *in;
  double key;
  sort_key by;
} sort_item;

/* Unknown keys sort last; ties by provider, name, region. */
static int cmp_items(const void *pa, const void *pb) {
  const sort_item *a = pa, *b = pb;
  int r = 0;
  if (a->by != SORT_NONE) {
    bool na = isnan(a->key), nb = isnan(b->key);
    r = na != nb ? (na ? 1 : -1) : (a->key > b->key) - (a->key < b->key);
  }
  if (r == 0 && a->by != SORT_NONE)
    r = strcmp(a->in->provider, b->in->provider);
  if (r == 0 && a->by != SORT_NONE)
    r = strcmp(a->in->name, b->in->name);
  if (r == 0 && a->by != SORT_NONE)
    r = strcmp(a->in->region, b->in->region);
  if (r == 0)
    r = (a->in > b->in) - (a->in < b->in);
  return r;
}

static size_t select_rows(sort_item *items, const list_opts *o, const rs_catalog *cat) {
  size_t n = 0;
  for (size_t i = 0; i < cat->ninstances; i++) {
    const rs_instance *in = &cat->instances[i];
    if (!keep(o, cat, in))
      continue;
    items[n].in = in;
    items[n].by = o->sort;
    items[n].key = o->sort == SORT_PRICE       ? in->price_usd_per_hour
                   : o->sort == SORT_PER_ACCEL ? per_accel_price(in)
                                               : total_accel_mem(in);
    n++;
  }
  qsort(items, n, sizeof(*items), cmp_items);
  return n;
}

/* How the listed prices were made: the basis and the overlay, if any. */
typedef struct pricing {
  rs_price_basis basis;
  const rs_overlay *overlay;
} pricing;

static void put_header(rs_buf *out, const rs_catalog *cat, const pricing *pr) {
  rs_buf_printf(out, "catalog %s (%s%s) sha256 %s\n", cat->version, cat->path,
                cat->embedded ? ", built in" : "", cat->sha256);
  rs_buf_printf(out, "pricing %s, %s per hour", rs_price_basis_name(pr->basis), cat->currency);
  if (pr->overlay)
    rs_buf_printf(out, ", overlay %s (%s)\n", pr->overlay->name, pr->overlay->path);
  else
    rs_buf_puts(out, ", no overlay\n");
}

static void table_row(rs_buf *out, const rs_instance *in) {
  char a[32], b[32], c[32], d[32], e[32], f[32];
  rs_buf_printf(out, "%-6s %-26s %-12s %-11s %-7s %5s %8s %-16s %8s %9s %10s %10s %s\n",
                in->provider, in->name, in->region, rs_category_name(in->category),
                in->arch == RS_ARCH_UNKNOWN ? "-" : rs_arch_name(in->arch),
                num(a, sizeof(a), in->vcpus), num(b, sizeof(b), in->memory_bytes / 1073741824.0),
                in->accelerator ? in->accelerator->key : "-",
                num(c, sizeof(c), in->accelerator_count),
                num(d, sizeof(d), in->accelerator_memory_bytes / 1e9),
                num(e, sizeof(e), in->price_usd_per_hour), num(f, sizeof(f), in->spot_usd_per_hour),
                in->price_flag == RS_PRICE_OK ? "-" : rs_price_flag_name(in->price_flag));
}

static void write_table(rs_buf *out, const rs_catalog *cat, const pricing *pr,
                        const sort_item *items, size_t n) {
  put_header(out, cat, pr);
  rs_buf_printf(out, "%-6s %-26s %-12s %-11s %-7s %5s %8s %-16s %8s %9s %10s %10s %s\n", "CLOUD",
                "NAME", "REGION", "CATEGORY", "ARCH", "VCPUS", "MEM_GIB", "ACCELERATOR", "COUNT",
                "ACC_GB", "USD_H", "SPOT_H", "FLAG");
  for (size_t i = 0; i < n; i++)
    table_row(out, items[i].in);
  rs_buf_printf(out,
                "%zu of %zu shapes; USD_H is the %s price per hour in the region shown, "
                "SPOT_H the catalog's spot price\n",
                n, cat->ninstances, rs_price_basis_name(pr->basis));
}

static void write_csv(rs_buf *out, const sort_item *items, size_t n) {
  char a[32], b[32], c[32], d[32], e[32], f[32];
  rs_buf_puts(out, "provider,name,region,category,arch,vcpus,memory_gib,accelerator,"
                   "accelerator_count,accelerator_memory_gb,ondemand_usd_per_hour,"
                   "spot_usd_per_hour,price_flag,price_usd_per_hour\n");
  for (size_t i = 0; i < n; i++) {
    const rs_instance *in = items[i].in;
    char g[32];
    rs_buf_printf(
        out, "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", in->provider, in->name, in->region,
        rs_category_name(in->category), in->arch == RS_ARCH_UNKNOWN ? "" : rs_arch_name(in->arch),
        cnum(a, sizeof(a), in->vcpus), cnum(b, sizeof(b), in->memory_bytes / 1073741824.0),
        in->accelerator ? in->accelerator->key : "", cnum(c, sizeof(c), in->accelerator_count),
        cnum(d, sizeof(d), in->accelerator_memory_bytes / 1e9),
        cnum(e, sizeof(e), in->ondemand_usd_per_hour), cnum(f, sizeof(f), in->spot_usd_per_hour),
        rs_price_flag_name(in->price_flag), cnum(g, sizeof(g), in->price_usd_per_hour));
  }
}

static void json_instance(rs_jsonw *w, const rs_instance *in) {
  rs_jsonw_object(w, NULL);
  rs_jsonw_string(w, "provider", in->provider);
  rs_jsonw_string(w, "name", in->name);
  rs_jsonw_string(w, "region", in->region);
  rs_jsonw_string(w, "family", in->family);
  rs_jsonw_string(w, "category", rs_category_name(in->category));
  rs_jsonw_string(w, "arch", in->arch == RS_ARCH_UNKNOWN ? NULL : rs_arch_name(in->arch));
  rs_jsonw_number(w, "vcpus", in->vcpus);
  rs_jsonw_number(w, "memory_gib", in->memory_bytes / 1073741824.0);
  rs_jsonw_string(w, "accelerator", in->accelerator ? in->accelerator->key : NULL);
  rs_jsonw_number(w, "accelerator_count", in->accelerator_count);
  rs_jsonw_number(w, "accelerator_memory_gb", in->accelerator_memory_bytes / 1e9);
  rs_jsonw_number(w, "ondemand_usd_per_hour", in->ondemand_usd_per_hour);
  rs_jsonw_number(w, "spot_usd_per_hour", in->spot_usd_per_hour);
  rs_jsonw_number(w, "price_usd_per_hour", in->price_usd_per_hour);
  rs_jsonw_string(w, "price_flag",
                  in->price_flag == RS_PRICE_OK ? NULL : rs_price_flag_name(in->price_flag));
  rs_jsonw_end(w, '}');
}

static void write_json(rs_buf *out, const rs_catalog *cat, const pricing *pr,
                       const sort_item *items, size_t n) {
  rs_jsonw w;
  rs_jsonw_init(&w, out);
  rs_jsonw_object(&w, NULL);
  rs_report_json_pricing(&w, cat, pr->basis, pr->overlay);
  rs_jsonw_array(&w, "instances");
  for (size_t i = 0; i < n; i++)
    json_instance(&w, items[i].in);
  rs_jsonw_end(&w, ']');
  rs_jsonw_end(&w, '}');
  rs_jsonw_finish(&w);
}

/* Loads the catalog and prices it under the basis and overlay asked for. */
static rs_status open_catalog(rs_catalog **cat, pricing *pr, rs_arena *arena, const list_opts *o,
                              rs_error *err) {
  rs_pipeline_options po;
  rs_pipeline p;
  rs_pipeline_options_init(&po);
  po.catalog = o->catalog;
  po.overlay = o->overlay;
  po.basis = pr->basis = o->basis;
  rs_status st = rs_pipeline_open(&p, arena, &po, err);
  *cat = p.catalog;
  pr->overlay = p.overlay;
  return st;
}

static rs_status run_list(rs_buf *out, rs_arena *arena, const list_opts *o, rs_error *err) {
  rs_catalog *cat;
  pricing pr;
  sort_item *items;
  size_t n;
  rs_status st = open_catalog(&cat, &pr, arena, o, err);
  if (st != RS_OK)
    return st;
  items = rs_arena_alloc_array(arena, cat->ninstances + 1, sizeof(*items));
  if (items == NULL)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory");
  n = select_rows(items, o, cat);
  if (o->format == FMT_JSON)
    write_json(out, cat, &pr, items, n);
  else if (o->format == FMT_CSV)
    write_csv(out, items, n);
  else
    write_table(out, cat, &pr, items, n);
  return RS_OK;
}

static void show_accelerator(rs_buf *out, const rs_accelerator *a) {
  char b[32];
  rs_buf_printf(out, "accelerator %s: %s %s (%s)\n", a->key, a->vendor, a->name,
                rs_accel_family_name(a->family));
  if (a->form_factor)
    rs_buf_printf(out, "  form factor       %s\n", a->form_factor);
  rs_buf_printf(out, "  memory            %s GB%s%s\n", num(b, sizeof(b), a->memory_bytes / 1e9),
                a->memory_type ? " " : "", a->memory_type ? a->memory_type : "");
  rs_buf_printf(out, "  bandwidth         %s GB/s\n", num(b, sizeof(b), a->memory_bw_gbps));
  rs_buf_printf(out, "  fp16/bf16 dense   %s TFLOPS\n", num(b, sizeof(b), a->fp16_tflops));
  rs_buf_printf(out, "  int8 dense        %s TOPS\n", num(b, sizeof(b), a->int8_tops));
  rs_buf_printf(out, "  fp32              %s TFLOPS\n", num(b, sizeof(b), a->fp32_tflops));
  rs_buf_printf(out, "  tdp               %s W\n", num(b, sizeof(b), a->tdp_w));
  rs_buf_printf(out, "  source            %s\n", a->source);
  if (a->notes)
    rs_buf_printf(out, "  notes             %s\n", a->notes);
}

static void show_accel_line(rs_buf *out, const rs_instance *in) {
  char a[32], b[32], c[32];
  if (in->accelerator == NULL) {
    rs_buf_printf(out,
                  "  accelerators      none (cpu %s, %s effective GFLOPS per vCPU, "
                  "an assumption)\n",
                  in->cpu ? in->cpu : "-", num(a, sizeof(a), in->cpu_gflops_per_vcpu));
    return;
  }
  rs_buf_printf(out, "  accelerators      %sx %s %s GB (%s, %s GB total)\n",
                num(a, sizeof(a), in->accelerator_count), in->accelerator->name,
                num(b, sizeof(b), in->accelerator_memory_bytes / 1e9), in->accelerator->key,
                num(c, sizeof(c), total_accel_mem(in) / 1e9));
}

static void show_instance(rs_buf *out, const rs_instance *in) {
  char a[32], b[32];
  rs_buf_printf(out, "%s %s in %s\n", in->provider, in->name, in->region);
  rs_buf_printf(out, "  family            %s (%s, %s)\n", in->family,
                rs_category_name(in->category), rs_arch_name(in->arch));
  rs_buf_printf(out, "  vcpus             %s\n", num(a, sizeof(a), in->vcpus));
  rs_buf_printf(out, "  memory            %s GiB\n",
                num(a, sizeof(a), in->memory_bytes / 1073741824.0));
  show_accel_line(out, in);
  rs_buf_printf(out, "  network           %s Gbps%s", num(a, sizeof(a), in->network_gbps),
                in->network_up_to ? " (up to)" : "");
  if (!isnan(in->network_baseline_gbps))
    rs_buf_printf(out, ", baseline %s Gbps", num(a, sizeof(a), in->network_baseline_gbps));
  rs_buf_printf(out, "\n  on-demand         %s $/h", num(a, sizeof(a), in->ondemand_usd_per_hour));
  double per_accel = in->ondemand_usd_per_hour / in->accelerator_count;
  if (in->accelerator && isfinite(per_accel))
    rs_buf_printf(out, " (%s $/h per accelerator)", num(b, sizeof(b), per_accel));
  rs_buf_printf(out, "\n  spot              %s $/h\n", num(a, sizeof(a), in->spot_usd_per_hour));
  rs_buf_printf(out, "  priced at         %s $/h (the basis and overlay above)\n",
                num(a, sizeof(a), in->price_usd_per_hour));
  if (in->price_flag != RS_PRICE_OK)
    rs_buf_printf(out, "  price flag        %s\n", rs_price_flag_name(in->price_flag));
  rs_buf_printf(out, "  source            %s\n", in->source);
  if (in->notes)
    rs_buf_printf(out, "  notes             %s\n", in->notes);
}

static rs_status run_show(rs_buf *out, rs_arena *arena, const list_opts *o, const char *name,
                          rs_error *err) {
  rs_catalog *cat;
  pricing pr;
  const rs_instance *in;
  rs_status st = open_catalog(&cat, &pr, arena, o, err);
  if (st != RS_OK)
    return st;
  in = rs_catalog_find(cat, name);
  if (in == NULL)
    return rs_error_set(err, RS_INVALID, NULL, 0, 0,
                        "no shape named '%s' in catalog %s (try 'rightsize catalog list')", name,
                        cat->version);
  put_header(out, cat, &pr);
  show_instance(out, in);
  if (in->accelerator)
    show_accelerator(out, in->accelerator);
  return RS_OK;
}

static rs_status run_validate(rs_buf *out, rs_arena *arena, const char *path, rs_error *err) {
  rs_catalog *cat;
  rs_status st = rs_catalog_load(&cat, arena, path, err);
  if (st != RS_OK)
    return st;
  rs_buf_printf(out, "ok %s: catalog %s, schema %u, %zu accelerators, %zu instances, sha256 %s\n",
                cat->path, cat->version, cat->schema_version, cat->naccelerators, cat->ninstances,
                cat->sha256);
  return RS_OK;
}

static const rs_instance *find_same(const rs_catalog *cat, const rs_instance *in) {
  for (size_t i = 0; i < cat->ninstances; i++) {
    const rs_instance *x = &cat->instances[i];
    if (strcmp(x->provider, in->provider) == 0 && strcmp(x->name, in->name) == 0 &&
        strcmp(x->region, in->region) == 0)
      return x;
  }
  return NULL;
}

static bool price_line(rs_buf *out, const rs_instance *in, const char *what, double a, double b) {
  char x[32], y[32], p[32];
  if ((isnan(a) && isnan(b)) || a == b)
    return false;
  rs_buf_printf(out, "changed  %s %s %s %s %s -> %s $/h", in->provider, in->name, in->region, what,
                num(x, sizeof(x), a), num(y, sizeof(y), b));
  if (isfinite(a) && isfinite(b) && a > 0)
    rs_buf_printf(out, " (%s%s%%)", b >= a ? "+" : "",
                  num(p, sizeof(p), round((b - a) / a * 1000) / 10));
  rs_buf_putc(out, '\n');
  return true;
}

static void diff_catalogs(rs_buf *out, const rs_catalog *a, const rs_catalog *b) {
  char x[32];
  size_t added = 0, removed = 0, changed = 0;
  rs_buf_printf(out, "old: catalog %s (%s) sha256 %s\nnew: catalog %s (%s) sha256 %s\n", a->version,
                a->path, a->sha256, b->version, b->path, b->sha256);
  for (size_t i = 0; i < a->ninstances; i++) {
    const rs_instance *in = &a->instances[i], *other = find_same(b, in);
    if (other == NULL) {
      rs_buf_printf(out, "removed  %s %s %s %s $/h\n", in->provider, in->name, in->region,
                    num(x, sizeof(x), in->ondemand_usd_per_hour));
      removed++;
      continue;
    }
    bool c1 =
        price_line(out, in, "on-demand", in->ondemand_usd_per_hour, other->ondemand_usd_per_hour);
    bool c2 = price_line(out, in, "spot", in->spot_usd_per_hour, other->spot_usd_per_hour);
    changed += c1 || c2;
  }
  for (size_t i = 0; i < b->ninstances; i++)
    if (find_same(a, &b->instances[i]) == NULL) {
      const rs_instance *in = &b->instances[i];
      rs_buf_printf(out, "added    %s %s %s %s $/h\n", in->provider, in->name, in->region,
                    num(x, sizeof(x), in->ondemand_usd_per_hour));
      added++;
    }
  rs_buf_printf(out, "%zu added, %zu removed, %zu with price changes, %zu unchanged\n", added,
                removed, changed, a->ninstances - removed - changed);
}

static rs_status run_diff(rs_buf *out, rs_arena *arena, const char *old_path, const char *new_path,
                          rs_error *err) {
  rs_catalog *a, *b;
  rs_status st = rs_catalog_load(&a, arena, old_path, err);
  if (st == RS_OK)
    st = rs_catalog_load(&b, arena, new_path, err);
  if (st == RS_OK)
    diff_catalogs(out, a, b);
  return st;
}

/* The subcommand and its positional arguments; 0 when they fit. */
static int check_args(const rs_cli_args *args) {
  static const char *const subs[] = {"list", "show", "validate", "diff", NULL};
  static const size_t want[] = {1, 2, 2, 3};
  char msg[256];
  int k;
  if (args->nargs == 0)
    return rs_cli_usage_error("catalog",
                              "catalog needs a subcommand: list, show, validate or diff");
  k = pick(args->args[0], subs);
  if (k < 0) {
    snprintf(msg, sizeof(msg),
             "unknown catalog subcommand '%s', expected list, show, validate or diff",
             args->args[0]);
    return rs_cli_usage_error("catalog", msg);
  }
  if (args->nargs != want[k]) {
    static const char *const usage[] = {
        "catalog list takes no arguments", "catalog show needs one NAME",
        "catalog validate needs one FILE", "catalog diff needs OLD and NEW"};
    return rs_cli_usage_error("catalog", usage[k]);
  }
  return 0;
}

static rs_status dispatch(rs_buf *out, rs_arena *arena, const rs_cli_args *args, const list_opts *o,
                          rs_error *err) {
  const char *sub = args->args[0];
  if (strcmp(sub, "list") == 0)
    return run_list(out, arena, o, err);
  if (strcmp(sub, "show") == 0)
    return run_show(out, arena, o, args->args[1], err);
  if (strcmp(sub, "validate") == 0)
    return run_validate(out, arena, args->args[1], err);
  return run_diff(out, arena, args->args[1], args->args[2], err);
}

static int run_catalog(const rs_cli_args *args) {
  list_opts o;
  rs_arena arena;
  rs_error err;
  rs_buf out;
  rs_status st;
  int rc = read_options(&o, args);
  if (rc == 0)
    rc = check_args(args);
  if (rc != 0)
    return rc;
  rs_error_clear(&err);
  rs_arena_init(&arena, 0);
  rs_buf_init(&out, 0);
  st = dispatch(&out, &arena, args, &o, &err);
  if (st == RS_OK && out.failed)
    st = rs_error_set(&err, RS_NOMEM, NULL, 0, 0, "out of memory while writing the output");
  rc = st == RS_OK ? rs_cli_write_stdout(out.data, out.len) : rs_cli_fail(&err);
  rs_buf_release(&out);
  rs_arena_release(&arena);
  return rc;
}

const rs_cli_command rs_cmd_catalog = {
    .name = "catalog",
    .summary = "list, show, validate and diff instance catalogs",
    .usage = "list [filters] | show NAME | validate FILE | diff OLD NEW [options]",
    .description =
        "Works on the instance catalog (docs/catalog-format.md): the built-in one, or the\n"
        "file or directory given with --catalog (a directory means its newest *.yaml by\n"
        "version order). 'list' filters and sorts shapes, prices always shown (on-demand\n"
        "USD per hour in the region shown; '-' when the catalog has none; FLAG 'suspect'\n"
        "marks a price the sources doubt). 'show' prints a shape with its accelerator's\n"
        "specs. 'validate' checks a catalog file and prints 'ok' or the first problem at\n"
        "file:line:col (exit 3). 'diff' lists shapes added and removed and price changes.",
    .options = catalog_options,
    .run = run_catalog,
};
