/* The catalog writers (report_catalog.h). */
#include "rightsize/report_catalog.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "report_internal.h"
#include "rightsize/num.h"
#include "table.h"

const char *const rs_catalog_format_names[] = {"table", "json", "csv", NULL};

#define NUM_SIZE 32

/* A number in the shortest fixed form with at most 6 decimals; "-" when unknown. */
/* v with at most dec decimals, trailing zeros trimmed; "-" when unknown. */
static const char *num_dec(char *buf, double v, int dec) {
  size_t n;
  if (!isfinite(v))
    return "-";
  snprintf(buf, NUM_SIZE, "%.*f", dec, v);
  n = strlen(buf);
  while (n > 0 && buf[n - 1] == '0')
    buf[--n] = '\0';
  if (n > 0 && buf[n - 1] == '.')
    buf[--n] = '\0';
  return buf;
}

static const char *num(char *buf, double v) { return num_dec(buf, v, 6); }

/* CSV leaves unknown fields empty. */
static const char *cnum(char *buf, double v) {
  const char *s = num(buf, v);
  return strcmp(s, "-") == 0 ? "" : s;
}

static void put_header(rs_buf *out, const rs_catalog_listing *l) {
  const rs_catalog *cat = l->cat;
  /* the table's header names the hash by its first 12 digits, as recommend
   * and audit do; JSON, --wide and `catalog validate` print all 64 */
  rs_buf_printf(out, "catalog %s (%s%s) sha256 %.*s\n", cat->version, cat->path,
                cat->embedded ? ", built in" : "", l->wide ? 64 : 12, cat->sha256);
  rs_buf_printf(out, "pricing %s, %s per hour", rs_price_basis_name(l->basis), cat->currency);
  if (l->overlay)
    rs_buf_printf(out, ", overlay %s (%s)\n", l->overlay->name, l->overlay->path);
  else
    rs_buf_puts(out, ", no overlay\n");
}

/* ---- list: table ---- */

enum { NCOLS = 13, NNUM = 6, NNARROW = 9 };

/* One row's cells; its numbers are formatted into nums. */
static void table_cells(const char **cells, char (*nums)[NUM_SIZE], const rs_instance *in) {
  const char *row[NCOLS] = {
      in->provider, in->name, in->region, rs_category_name(in->category),
      in->arch == RS_ARCH_UNKNOWN ? "-" : rs_arch_name(in->arch), num(nums[0], in->vcpus),
      num(nums[1], in->memory_bytes / RS_GIB), in->accelerator ? in->accelerator->key : "-",
      /* the table rounds (JSON and CSV keep every digit) */
      num_dec(nums[2], in->accelerator_count, 4),
      num_dec(nums[3], in->accelerator_memory_bytes / 1e9, 2),
      num_dec(nums[4], in->price_usd_per_hour, 4), num_dec(nums[5], in->spot_usd_per_hour, 4),
      in->price_flag == RS_PRICE_OK ? "-" : rs_price_flag_name(in->price_flag)};
  memcpy(cells, row, sizeof(row));
}

static rs_status write_table(rs_buf *out, const rs_catalog_listing *l) {
  static const char *const heads[NCOLS] = {"CLOUD", "NAME",    "REGION",      "CATEGORY", "ARCH",
                                           "VCPUS", "MEM_GIB", "ACCELERATOR", "COUNT",    "ACC_GB",
                                           "USD_H", "SPOT_H",  "FLAG"};
  static const bool numeric[NCOLS] = {false, false, false, false, false, true, true,
                                      false, true,  true,  true,  true,  false};
  size_t n = l->nrows + 1;
  const char **cells =
      n < SIZE_MAX / (NCOLS * sizeof(*cells)) ? malloc(n * NCOLS * sizeof(*cells)) : NULL;
  char(*nums)[NUM_SIZE] = n < SIZE_MAX / (NNUM * NUM_SIZE) ? malloc(n * NNUM * NUM_SIZE) : NULL;
  if (cells == NULL || nums == NULL) {
    free(cells);
    free(nums);
    out->failed = true;
    return RS_NOMEM;
  }
  for (size_t i = 0; i < l->nrows; i++)
    table_cells(cells + i * NCOLS, nums + i * NNUM, l->rows[i]);
  put_header(out, l);
  if (l->wide) {
    rs_table_write(out, RS_TABLE_TEXT, NCOLS, heads, numeric, cells, l->nrows);
  } else {
    /* Within 100 columns: the region, category, arch and flag columns left
     * out (--wide prints them); the cells are the same strings. */
    static const size_t keep[NNARROW] = {0, 1, 7, 8, 9, 5, 6, 10, 11};
    const char *nheads[NNARROW];
    bool nnumeric[NNARROW];
    for (size_t k = 0; k < NNARROW; k++) {
      nheads[k] = heads[keep[k]];
      nnumeric[k] = numeric[keep[k]];
    }
    const char **sel = malloc(n * NNARROW * sizeof(*sel)); /* n * NCOLS did not overflow */
    if (sel == NULL) {
      free(cells);
      free(nums);
      out->failed = true;
      return RS_NOMEM;
    }
    for (size_t i = 0; i < l->nrows; i++)
      for (size_t k = 0; k < NNARROW; k++)
        sel[i * NNARROW + k] = cells[i * NCOLS + keep[k]];
    rs_table_write(out, RS_TABLE_TEXT, NNARROW, nheads, nnumeric, sel, l->nrows);
    free(sel);
  }
  rs_buf_printf(out,
                "%zu of %zu shapes; USD_H: the %s price per hour in the shape's region\n"
                "SPOT_H: the catalog's spot price%s\n",
                l->nrows, l->cat->ninstances, rs_price_basis_name(l->basis),
                l->wide ? "" : "; --wide adds REGION, CATEGORY, ARCH and FLAG");
  free(cells);
  free(nums);
  return out->failed ? RS_NOMEM : RS_OK;
}

/* ---- list: CSV and JSON ---- */

static void write_csv(rs_buf *out, const rs_catalog_listing *l) {
  char a[NUM_SIZE], b[NUM_SIZE], c[NUM_SIZE], d[NUM_SIZE], e[NUM_SIZE], f[NUM_SIZE], g[NUM_SIZE];
  rs_buf_puts(out, "provider,name,region,category,arch,vcpus,memory_gib,accelerator,"
                   "accelerator_count,accelerator_memory_gb,ondemand_usd_per_hour,"
                   "spot_usd_per_hour,price_flag,price_usd_per_hour\n");
  for (size_t i = 0; i < l->nrows; i++) {
    const rs_instance *in = l->rows[i];
    rs_buf_printf(out, "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", in->provider, in->name,
                  in->region, rs_category_name(in->category),
                  in->arch == RS_ARCH_UNKNOWN ? "" : rs_arch_name(in->arch), cnum(a, in->vcpus),
                  cnum(b, in->memory_bytes / RS_GIB), in->accelerator ? in->accelerator->key : "",
                  cnum(c, in->accelerator_count), cnum(d, in->accelerator_memory_bytes / 1e9),
                  cnum(e, in->ondemand_usd_per_hour), cnum(f, in->spot_usd_per_hour),
                  rs_price_flag_name(in->price_flag), cnum(g, in->price_usd_per_hour));
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
  rs_jsonw_number(w, "memory_gib", in->memory_bytes / RS_GIB);
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

static void write_json(rs_buf *out, const rs_catalog_listing *l) {
  rs_jsonw w;
  rs_jsonw_init(&w, out);
  rs_jsonw_object(&w, NULL);
  rs_report_json_pricing(&w, l->cat, l->basis, l->overlay);
  rs_jsonw_array(&w, "instances");
  for (size_t i = 0; i < l->nrows; i++)
    json_instance(&w, l->rows[i]);
  rs_jsonw_end(&w, ']');
  rs_jsonw_end(&w, '}');
  rs_jsonw_finish(&w);
}

rs_status rs_report_catalog_list(rs_buf *out, const rs_catalog_listing *l, rs_catalog_format fmt) {
  if (fmt == RS_CATALOG_TABLE)
    return write_table(out, l);
  if (fmt == RS_CATALOG_JSON)
    write_json(out, l);
  else
    write_csv(out, l);
  return out->failed ? RS_NOMEM : RS_OK;
}

/* ---- show ---- */

static void show_accelerator(rs_buf *out, const rs_accelerator *a) {
  char b[NUM_SIZE];
  rs_buf_printf(out, "accelerator %s: %s %s (%s)\n", a->key, a->vendor, a->name,
                rs_accel_family_name(a->family));
  if (a->form_factor)
    rs_buf_printf(out, "  form factor       %s\n", a->form_factor);
  rs_buf_printf(out, "  memory            %s GB%s%s\n", num(b, a->memory_bytes / 1e9),
                a->memory_type ? " " : "", a->memory_type ? a->memory_type : "");
  rs_buf_printf(out, "  bandwidth         %s GB/s\n", num(b, a->memory_bw_gbps));
  rs_buf_printf(out, "  fp16/bf16 dense   %s TFLOPS\n", num(b, a->fp16_tflops));
  rs_buf_printf(out, "  int8 dense        %s TOPS\n", num(b, a->int8_tops));
  rs_buf_printf(out, "  fp32              %s TFLOPS\n", num(b, a->fp32_tflops));
  rs_buf_printf(out, "  tdp               %s W\n", num(b, a->tdp_w));
  rs_buf_printf(out, "  source            %s\n", a->source);
  if (a->notes)
    rs_buf_printf(out, "  notes             %s\n", a->notes);
}

static void show_accel_line(rs_buf *out, const rs_instance *in) {
  char a[NUM_SIZE], b[NUM_SIZE], c[NUM_SIZE];
  if (in->accelerator == NULL) {
    rs_buf_printf(out,
                  "  accelerators      none (cpu %s, %s effective GFLOPS per vCPU, "
                  "an assumption)\n",
                  in->cpu ? in->cpu : "-", num(a, in->cpu_gflops_per_vcpu));
    return;
  }
  rs_buf_printf(out, "  accelerators      %sx %s %s GB (%s, %s GB total)\n",
                num(a, in->accelerator_count), in->accelerator->name,
                num(b, in->accelerator_memory_bytes / 1e9), in->accelerator->key,
                num(c, rs_instance_accel_memory(in) / 1e9));
}

static void show_prices(rs_buf *out, const rs_instance *in) {
  char a[NUM_SIZE], b[NUM_SIZE];
  double per_accel = rs_instance_per_accel(in, in->ondemand_usd_per_hour);
  rs_buf_printf(out, "\n  on-demand         %s $/h", num(a, in->ondemand_usd_per_hour));
  if (in->accelerator && isfinite(per_accel))
    rs_buf_printf(out, " (%s $/h per accelerator)", num(b, per_accel));
  rs_buf_printf(out, "\n  spot              %s $/h\n", num(a, in->spot_usd_per_hour));
  rs_buf_printf(out, "  priced at         %s $/h (the basis and overlay above)\n",
                num(a, in->price_usd_per_hour));
  if (in->price_flag != RS_PRICE_OK)
    rs_buf_printf(out, "  price flag        %s\n", rs_price_flag_name(in->price_flag));
}

static void show_instance(rs_buf *out, const rs_instance *in) {
  char a[NUM_SIZE];
  rs_buf_printf(out, "%s %s in %s\n", in->provider, in->name, in->region);
  rs_buf_printf(out, "  family            %s (%s, %s)\n", in->family,
                rs_category_name(in->category), rs_arch_name(in->arch));
  rs_buf_printf(out, "  vcpus             %s\n", num(a, in->vcpus));
  rs_buf_printf(out, "  memory            %s GiB\n", num(a, in->memory_bytes / RS_GIB));
  show_accel_line(out, in);
  rs_buf_printf(out, "  network           %s Gbps%s", num(a, in->network_gbps),
                in->network_up_to ? " (up to)" : "");
  if (!isnan(in->network_baseline_gbps))
    rs_buf_printf(out, ", baseline %s Gbps", num(a, in->network_baseline_gbps));
  show_prices(out, in);
  rs_buf_printf(out, "  source            %s\n", in->source);
  if (in->notes)
    rs_buf_printf(out, "  notes             %s\n", in->notes);
}

rs_status rs_report_catalog_show(rs_buf *out, const rs_catalog_listing *l) {
  const rs_instance *in = l->rows[0];
  put_header(out, l);
  show_instance(out, in);
  if (in->accelerator)
    show_accelerator(out, in->accelerator);
  return out->failed ? RS_NOMEM : RS_OK;
}

/* ---- validate and diff ---- */

rs_status rs_report_catalog_validate(rs_buf *out, const rs_catalog *cat) {
  rs_buf_printf(out, "ok %s: catalog %s, schema %u, %zu accelerators, %zu instances, sha256 %s\n",
                cat->path, cat->version, cat->schema_version, cat->naccelerators, cat->ninstances,
                cat->sha256);
  return out->failed ? RS_NOMEM : RS_OK;
}

static void price_line(rs_buf *out, const rs_instance *in, const char *what,
                       const rs_price_change *c) {
  char x[NUM_SIZE], y[NUM_SIZE], p[NUM_SIZE];
  if (!c->changed)
    return;
  rs_buf_printf(out, "changed  %s %s %s %s %s -> %s $/h", in->provider, in->name, in->region, what,
                num(x, c->old_usd), num(y, c->new_usd));
  if (!isnan(c->pct))
    rs_buf_printf(out, " (%s%s%%)", c->new_usd >= c->old_usd ? "+" : "", num(p, c->pct));
  rs_buf_putc(out, '\n');
}

rs_status rs_report_catalog_diff(rs_buf *out, const rs_catalog_diff *d) {
  const rs_catalog *a = d->old_cat, *b = d->new_cat;
  char x[NUM_SIZE];
  rs_buf_printf(out, "old: catalog %s (%s) sha256 %s\nnew: catalog %s (%s) sha256 %s\n", a->version,
                a->path, a->sha256, b->version, b->path, b->sha256);
  for (size_t i = 0; i < d->nchanges; i++) {
    const rs_catalog_change *c = &d->changes[i];
    const rs_instance *in = c->in;
    if (c->kind == RS_CHANGE_PRICE) {
      price_line(out, in, "on-demand", &c->ondemand);
      price_line(out, in, "spot", &c->spot);
    } else {
      rs_buf_printf(out, "%s  %s %s %s %s $/h\n",
                    c->kind == RS_CHANGE_ADDED ? "added  " : "removed", in->provider, in->name,
                    in->region, num(x, in->ondemand_usd_per_hour));
    }
  }
  rs_buf_printf(out, "%zu added, %zu removed, %zu with price changes, %zu unchanged\n", d->added,
                d->removed, d->changed, d->unchanged);
  return out->failed ? RS_NOMEM : RS_OK;
}
