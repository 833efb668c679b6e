/* catalog_gen: the built-in catalog, compiled at build time.
 *
 *   catalog_gen IN.yaml NAME OUT.c
 *
 * Reads IN.yaml with the program's own parser and validator
 * (rs_catalog_parse, the same code `--catalog FILE` runs), and writes OUT.c:
 * the catalog as static const tables and its SHA-256 as a constant, exported
 * as `rs_catalog_compiled` (src/core/catalog/catalog_builtin.c copies it into
 * a run's arena). An invalid catalog fails the build with the error a run
 * would print. NAME is the file name reports show ("rightsize-2026.12.0.yaml").
 * It also fits the catalog's projection model (rs_proj_fit with the
 * leave-one-out errors, the same code a run would call) and writes it as
 * `rs_proj_compiled` (src/core/model/projection_builtin.c).
 *
 * Every field of rs_accelerator, rs_instance, rs_calibration and rs_catalog
 * is written; tests/unit/test_catalog.c compares the result with a run-time
 * parse of the same file, padding and all, so a field added to a struct and
 * not here fails that test; tests/unit/test_projection_builtin.c does the
 * same for the model. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "projection.h"
#include "rightsize/catalog.h"

/* A C string literal: printable ASCII as is, the rest as three-digit octal
 * escapes (so a following digit cannot join them), '?' escaped against
 * trigraphs. NULL is written as NULL. */
static void put_str(FILE *f, const char *s) {
  if (s == NULL) {
    fputs("NULL", f);
    return;
  }
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\' || *p == '?')
      fprintf(f, "\\%c", *p);
    else if (*p >= 0x20 && *p < 0x7f)
      fputc(*p, f);
    else
      fprintf(f, "\\%03o", *p);
  }
  fputc('"', f);
}

/* A double that reads back to the same bits: hexadecimal, or NAN/INFINITY. */
static void put_num(FILE *f, double v) {
  if (isnan(v))
    fputs("NAN", f);
  else if (isinf(v))
    fputs(v < 0 ? "-INFINITY" : "INFINITY", f);
  else
    fprintf(f, "%a", v);
}

static void field_str(FILE *f, const char *name, const char *s) {
  fprintf(f, " .%s = ", name);
  put_str(f, s);
  fputc(',', f);
}

static void field_num(FILE *f, const char *name, double v) {
  fprintf(f, " .%s = ", name);
  put_num(f, v);
  fputc(',', f);
}

static void field_int(FILE *f, const char *name, long long v) {
  fprintf(f, " .%s = %lld,", name, v);
}

/* &accelerators[i] for a, or NULL. */
static void field_accel(FILE *f, const rs_catalog *cat, const rs_accelerator *a) {
  if (a == NULL)
    fputs(" .accelerator = NULL,", f);
  else
    fprintf(f, " .accelerator = &accelerators[%zu],", (size_t)(a - cat->accelerators));
}

static void put_accelerator(FILE *f, const rs_accelerator *a) {
  fputs("  {", f);
  field_str(f, "key", a->key);
  field_str(f, "vendor", a->vendor);
  field_str(f, "name", a->name);
  field_str(f, "form_factor", a->form_factor);
  field_str(f, "memory_type", a->memory_type);
  field_str(f, "source", a->source);
  field_str(f, "notes", a->notes);
  field_str(f, "architecture", a->architecture);
  field_int(f, "family", a->family);
  field_num(f, "memory_bytes", a->memory_bytes);
  field_num(f, "memory_bw_gbps", a->memory_bw_gbps);
  field_num(f, "fp16_tflops", a->fp16_tflops);
  field_num(f, "fp16_sparse_tflops", a->fp16_sparse_tflops);
  field_num(f, "int8_tops", a->int8_tops);
  field_num(f, "fp32_tflops", a->fp32_tflops);
  field_num(f, "fp8_tflops", a->fp8_tflops);
  field_num(f, "tf32_tflops", a->tf32_tflops);
  field_num(f, "tdp_w", a->tdp_w);
  fprintf(f, " .line = %zu, .col = %zu},\n", a->line, a->col);
}

static void put_instance(FILE *f, const rs_catalog *cat, const rs_instance *in) {
  fputs("  {", f);
  field_str(f, "provider", in->provider);
  field_str(f, "name", in->name);
  field_str(f, "family", in->family);
  field_str(f, "region", in->region);
  field_str(f, "cpu", in->cpu);
  field_str(f, "accelerator_basis", in->accelerator_basis);
  field_str(f, "as_of", in->as_of);
  field_str(f, "source", in->source);
  field_str(f, "notes", in->notes);
  field_int(f, "category", in->category);
  field_int(f, "arch", in->arch);
  field_num(f, "vcpus", in->vcpus);
  field_num(f, "memory_bytes", in->memory_bytes);
  field_accel(f, cat, in->accelerator);
  field_num(f, "accelerator_count", in->accelerator_count);
  field_num(f, "accelerator_memory_bytes", in->accelerator_memory_bytes);
  field_num(f, "cpu_gflops_per_vcpu", in->cpu_gflops_per_vcpu);
  field_num(f, "cpu_memory_gbps_per_vcpu", in->cpu_memory_gbps_per_vcpu);
  field_num(f, "network_gbps", in->network_gbps);
  field_num(f, "network_baseline_gbps", in->network_baseline_gbps);
  fprintf(f, " .network_up_to = %s,", in->network_up_to ? "true" : "false");
  field_num(f, "ondemand_usd_per_hour", in->ondemand_usd_per_hour);
  field_num(f, "spot_usd_per_hour", in->spot_usd_per_hour);
  field_int(f, "price_flag", in->price_flag);
  field_num(f, "price_usd_per_hour", in->price_usd_per_hour);
  fprintf(f, " .line = %zu, .col = %zu},\n", in->line, in->col);
}

static void put_calibration(FILE *f, const rs_catalog *cat, const rs_calibration *c) {
  fputs("  {", f);
  field_int(f, "workload", c->workload);
  field_str(f, "model", c->model);
  field_str(f, "benchmark", c->benchmark);
  field_accel(f, cat, c->accelerator);
  field_num(f, "throughput", c->throughput);
  field_str(f, "unit", c->unit);
  field_num(f, "system_throughput", c->system_throughput);
  field_num(f, "accelerators", c->accelerators);
  field_int(f, "precision", c->precision);
  field_str(f, "software", c->software);
  field_str(f, "round", c->round);
  field_str(f, "scenario", c->scenario);
  field_str(f, "submitter", c->submitter);
  field_str(f, "system", c->system);
  field_str(f, "source", c->source);
  field_str(f, "notes", c->notes);
  fprintf(f, " .line = %zu, .col = %zu},\n", c->line, c->col);
}

/* An array of n rows (at least one element, so an empty table compiles). */
#define PUT_TABLE(f, type, name, n, put)                                                           \
  do {                                                                                             \
    fprintf(f, "static const %s %s[%zu] = {\n", type, name, (n) ? (n) : (size_t)1);                \
    for (size_t i_ = 0; i_ < (n); i_++)                                                            \
      put;                                                                                         \
    fputs((n) ? "};\n\n" : "  {0}};\n\n", f);                                                      \
  } while (0)

static void put_error(FILE *f, const rs_proj_error *e) {
  fprintf(f, "{%zu, ", e->n);
  put_num(f, e->median);
  fputs(", ", f);
  put_num(f, e->worst);
  fputs("}", f);
}

/* n doubles, braced. */
static void put_nums(FILE *f, const double *v, size_t n) {
  fputs("{", f);
  for (size_t i = 0; i < n; i++) {
    put_num(f, v[i]);
    fputs(i + 1 < n ? ", " : "}", f);
  }
}

static void put_model_arrays(FILE *f, const rs_catalog *cat, const rs_proj_model *m) {
  fprintf(f, "static const rs_proj_device proj_devices[%zu] = {\n", m->ndevices ? m->ndevices : 1);
  for (size_t d = 0; d < m->ndevices; d++) {
    fprintf(f, "  {&accelerators[%zu], ", (size_t)(m->devices[d].accel - cat->accelerators));
    put_num(f, m->devices[d].log_eff);
    fputs(", ", f);
    put_num(f, m->devices[d].log_bw_eff);
    fputs("},\n", f);
  }
  fputs(m->ndevices ? "};\n\n" : "  {0}};\n\n", f);
  fprintf(f, "static const rs_proj_row proj_rows[%zu] = {\n", m->nrows ? m->nrows : 1);
  for (size_t i = 0; i < m->nrows; i++) {
    fprintf(f, "  {&calibration[%zu], %zu, %zu, ", (size_t)(m->rows[i].cal - cat->calibration),
            m->rows[i].dev, m->rows[i].group);
    put_num(f, m->rows[i].x);
    fputs("},\n", f);
  }
  fputs(m->nrows ? "};\n\n" : "  {0}};\n\n", f);
  fprintf(f, "static const double proj_group_scale[%zu] = ", m->ngroups ? m->ngroups : 1);
  if (m->ngroups)
    put_nums(f, m->group_scale, m->ngroups);
  else
    fputs("{0}", f);
  fprintf(f, ";\n\nstatic const rs_proj_pair proj_pairs[%zu] = {\n", m->npairs ? m->npairs : 1);
  for (size_t i = 0; i < m->npairs; i++) {
    const rs_proj_pair *p = &m->pairs[i];
    fprintf(f, "  {%zu, %zu, ", p->a, p->b);
    put_num(f, p->published);
    fputs(", ", f);
    put_num(f, p->projected);
    fprintf(f, ", %d},\n", (int)p->path);
  }
  fputs(m->npairs ? "};\n\n" : "  {0}};\n\n", f);
}

/* The fitted projection model, pointing into the tables above. */
static void put_model(FILE *f, const rs_catalog *cat, const rs_proj_model *m) {
  put_model_arrays(f, cat, m);
  fputs("extern const rs_proj_model rs_proj_compiled;\n"
        "const rs_proj_model rs_proj_compiled = {\n .cat = &rs_catalog_compiled,\n"
        " .rows = (rs_proj_row *)proj_rows,",
        f);
  fprintf(f, " .nrows = %zu,\n .devices = (rs_proj_device *)proj_devices, .ndevices = %zu,\n",
          m->nrows, m->ndevices);
  fprintf(f, " .ngroups = %zu, .group_scale = (double *)proj_group_scale,\n .log_intensity = ",
          m->ngroups);
  put_nums(f, m->log_intensity, RS_WORKLOAD_COUNT);
  fputs(",\n .bench_log_i = NULL,\n .precision = {", f);
  for (int w = 0; w < RS_WORKLOAD_COUNT; w++)
    fprintf(f, "%d%s", (int)m->precision[w], w + 1 < RS_WORKLOAD_COUNT ? ", " : "},\n");
  fputs(" .fitted = {", f);
  for (int w = 0; w < RS_WORKLOAD_COUNT; w++)
    fprintf(f, "%s%s", m->fitted[w] ? "true" : "false", w + 1 < RS_WORKLOAD_COUNT ? ", " : "},\n");
  fputs(" .prior_log_eff = ", f);
  put_num(f, m->prior_log_eff);
  fputs(",\n .loo = {", f);
  for (int p = 0; p < RS_PROJ_PATH_COUNT; p++) {
    fputs(p ? ",\n         {" : "{", f);
    for (int w = 0; w <= RS_WORKLOAD_COUNT; w++) {
      put_error(f, &m->loo[p][w]);
      fputs(w < RS_WORKLOAD_COUNT ? ", " : "}", f);
    }
  }
  fputs("},\n .chain = {", f);
  for (int w = 0; w <= RS_WORKLOAD_COUNT; w++) {
    put_error(f, &m->chain[w]);
    fputs(w < RS_WORKLOAD_COUNT ? ", " : "},\n", f);
  }
  fprintf(f, " .pairs = (rs_proj_pair *)proj_pairs, .npairs = %zu};\n", m->npairs);
}

static void put_catalog(FILE *f, const rs_catalog *cat, const rs_proj_model *m, const char *in) {
  fprintf(f, "/* Generated by catalog_gen from ");
  put_str(f, in);
  fputs("; do not edit. */\n#include <math.h>\n#include <stddef.h>\n\n"
        "#include \"projection.h\"\n#include \"rightsize/catalog.h\"\n\n",
        f);
  fprintf(f, "static const char *const sources[%zu] = {\n", cat->nsources ? cat->nsources : 1);
  for (size_t i = 0; i < cat->nsources; i++) {
    fputs("  ", f);
    put_str(f, cat->sources[i]);
    fputs(",\n", f);
  }
  fputs(cat->nsources ? "};\n\n" : "  NULL};\n\n", f);
  PUT_TABLE(f, "rs_accelerator", "accelerators", cat->naccelerators,
            put_accelerator(f, &cat->accelerators[i_]));
  PUT_TABLE(f, "rs_instance", "instances", cat->ninstances,
            put_instance(f, cat, &cat->instances[i_]));
  PUT_TABLE(f, "rs_calibration", "calibration", cat->ncalibration,
            put_calibration(f, cat, &cat->calibration[i_]));
  fputs("/* The tables are const; rs_catalog_default copies them into the run's\n"
        " * arena before anything may write to them. */\n"
        "extern const rs_catalog rs_catalog_compiled;\n"
        "const rs_catalog rs_catalog_compiled = {\n",
        f);
  field_str(f, "path", cat->path);
  fprintf(f, "\n .schema_version = %u,", cat->schema_version);
  field_str(f, "version", cat->version);
  field_str(f, "prices_as_of", cat->prices_as_of);
  field_str(f, "currency", cat->currency);
  fprintf(f, "\n .sources = (const char **)sources, .nsources = %zu,", cat->nsources);
  fprintf(f, "\n .accelerators = (rs_accelerator *)accelerators, .naccelerators = %zu,",
          cat->naccelerators);
  fprintf(f, "\n .instances = (rs_instance *)instances, .ninstances = %zu,", cat->ninstances);
  fprintf(f, "\n .calibration = (rs_calibration *)calibration, .ncalibration = %zu,",
          cat->ncalibration);
  fprintf(f, "\n .sha256 = \"%s\",\n .embedded = true};\n\n", cat->sha256);
  put_model(f, cat, m);
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t cap = 0, n = 0;
  if (f == NULL)
    return NULL;
  for (;;) {
    if (n == cap) {
      char *bigger = cap > RS_CATALOG_MAX_BYTES ? NULL : realloc(buf, cap = cap ? cap * 2 : 65536);
      if (bigger == NULL) {
        free(buf);
        fclose(f);
        errno = ENOMEM;
        return NULL;
      }
      buf = bigger;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0)
      break;
  }
  if (ferror(f)) {
    free(buf);
    fclose(f);
    errno = EIO;
    return NULL;
  }
  fclose(f);
  *len = n;
  return buf;
}

int main(int argc, char **argv) {
  rs_arena arena;
  rs_catalog *cat;
  rs_proj_model model;
  rs_error err;
  char msg[1024], tmp[4096];
  size_t len = 0;
  char *data;
  FILE *out;
  if (argc != 4) {
    fprintf(stderr, "usage: catalog_gen IN.yaml NAME OUT.c\n");
    return 2;
  }
  if ((data = slurp(argv[1], &len)) == NULL) {
    fprintf(stderr, "catalog_gen: %s: %s\n", argv[1], strerror(errno));
    return 1;
  }
  rs_error_clear(&err);
  rs_arena_init(&arena, 0);
  if (rs_catalog_parse(&cat, &arena, argv[2], data, len, &err) != RS_OK) {
    fprintf(stderr, "catalog_gen: %s (from %s)\n", rs_error_format(&err, msg, sizeof(msg)),
            argv[1]);
    return 1;
  }
  if (rs_proj_fit(&model, &arena, cat, true) != RS_OK) {
    fprintf(stderr, "catalog_gen: out of memory fitting the projection model\n");
    return 1;
  }
  snprintf(tmp, sizeof(tmp), "%s.tmp", argv[3]);
  if ((out = fopen(tmp, "w")) == NULL) {
    fprintf(stderr, "catalog_gen: %s: %s\n", tmp, strerror(errno));
    return 1;
  }
  put_catalog(out, cat, &model, argv[2]);
  if (ferror(out) | fclose(out) || rename(tmp, argv[3]) != 0) {
    fprintf(stderr, "catalog_gen: cannot write %s\n", argv[3]);
    remove(tmp);
    return 1;
  }
  rs_arena_release(&arena);
  free(data);
  return 0;
}
