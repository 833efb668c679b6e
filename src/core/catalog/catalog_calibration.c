/* The catalog's calibration section (schema 2): published per-accelerator
 * throughput that the projection is fitted to (docs/catalog-format.md,
 * docs/model.md). Each row names its class, accelerator, precision, round
 * and source; a row whose accelerator is not in the catalog is an error. */
#include <stdio.h>
#include <string.h>

#include "catalog_internal.h"

static const char *const calibration_keys[] = {"class",
                                               "model",
                                               "benchmark",
                                               "accelerator",
                                               "throughput",
                                               "unit",
                                               "system_throughput",
                                               "accelerators",
                                               "precision",
                                               "software",
                                               "round",
                                               "scenario",
                                               "submitter",
                                               "system",
                                               "source",
                                               "notes",
                                               NULL};

typedef struct cal_ctx {
  const char *path;
  const rs_node *row;
  size_t i;
  rs_error *err;
} cal_ctx;

static rs_status text(const cal_ctx *c, const char *key, bool required, const char **out) {
  char what[96];
  const rs_node *n = rs_node_get(c->row, key);
  *out = NULL;
  snprintf(what, sizeof(what), "calibration[%zu].%s", c->i, key);
  if (n == NULL)
    return required ? rs_error_set(c->err, RS_INVALID, c->path, c->row->line, c->row->col,
                                   "calibration[%zu]: missing required key '%s'", c->i, key)
                    : RS_OK;
  return rs_node_string(n, c->path, what, out, c->err);
}

static rs_status number(const cal_ctx *c, const char *key, double *out) {
  char what[96];
  const rs_node *n = rs_node_get(c->row, key);
  snprintf(what, sizeof(what), "calibration[%zu].%s", c->i, key);
  if (n == NULL)
    return rs_error_set(c->err, RS_INVALID, c->path, c->row->line, c->row->col,
                        "calibration[%zu]: missing required key '%s'", c->i, key);
  rs_status st = rs_node_double(n, c->path, what, out, c->err);
  if (st == RS_OK && !(*out > 0))
    return rs_error_set(c->err, RS_INVALID, c->path, n->line, n->col,
                        "%s: must be greater than 0, got '%s'", what, n->text);
  return st;
}

/* A named value that must be one of a vocabulary; *ok false names it wrong. */
static rs_status vocab_error(const cal_ctx *c, const char *key, const char *expected,
                             const char *got) {
  const rs_node *n = rs_node_get(c->row, key);
  return rs_error_set(c->err, RS_INVALID, c->path, n->line, n->col,
                      "calibration[%zu].%s: expected %s, got '%s'", c->i, key, expected, got);
}

static rs_status parse_strings(const cal_ctx *c, rs_calibration *r) {
  rs_status st;
  if ((st = text(c, "model", true, &r->model)) != RS_OK ||
      (st = text(c, "benchmark", true, &r->benchmark)) != RS_OK ||
      (st = text(c, "unit", true, &r->unit)) != RS_OK ||
      (st = text(c, "software", true, &r->software)) != RS_OK ||
      (st = text(c, "round", true, &r->round)) != RS_OK ||
      (st = text(c, "scenario", true, &r->scenario)) != RS_OK ||
      (st = text(c, "submitter", true, &r->submitter)) != RS_OK ||
      (st = text(c, "system", true, &r->system)) != RS_OK ||
      (st = text(c, "source", true, &r->source)) != RS_OK ||
      (st = text(c, "notes", false, &r->notes)) != RS_OK)
    return st;
  return RS_OK;
}

static rs_status parse_row(const cal_ctx *c, const rs_catalog *cat, rs_calibration *r) {
  char what[64];
  const char *s;
  rs_status st;
  snprintf(what, sizeof(what), "calibration[%zu]", c->i);
  if ((st = rs_node_expect(c->row, RS_NODE_MAP, c->path, what, c->err)) != RS_OK ||
      (st = rs_node_check_keys(c->row, c->path, what, calibration_keys, c->err)) != RS_OK)
    return st;
  r->line = c->row->line, r->col = c->row->col;
  if ((st = text(c, "class", true, &s)) != RS_OK)
    return st;
  if ((r->workload = rs_workload_from_name(s)) == RS_WORKLOAD_UNKNOWN)
    return vocab_error(c, "class", "vision-cnn, transformer-encoder, detection or llm-decode", s);
  if ((st = text(c, "precision", true, &s)) != RS_OK)
    return st;
  if ((r->precision = rs_precision_from_name(s)) == RS_PRECISION_COUNT)
    return vocab_error(c, "precision", "fp32, tf32, fp16, bf16, fp8 or int8", s);
  if ((st = text(c, "accelerator", true, &s)) != RS_OK)
    return st;
  if ((r->accelerator = rs_catalog_find_accelerator(cat, s)) == NULL)
    return vocab_error(c, "accelerator", "an accelerator key of this catalog", s);
  if ((st = number(c, "throughput", &r->throughput)) != RS_OK ||
      (st = number(c, "system_throughput", &r->system_throughput)) != RS_OK ||
      (st = number(c, "accelerators", &r->accelerators)) != RS_OK)
    return st;
  return parse_strings(c, r);
}

rs_status rs_catalog_parse_calibration(rs_catalog *cat, rs_arena *arena, const char *path,
                                       const rs_node *seq, rs_error *err) {
  rs_status st = rs_node_expect(seq, RS_NODE_SEQ, path, "calibration", err);
  if (st != RS_OK)
    return st;
  cat->calibration = rs_arena_alloc(arena, (seq->n + 1) * sizeof(*cat->calibration));
  if (cat->calibration == NULL)
    return rs_error_set(err, RS_NOMEM, path, 0, 0, "out of memory reading the catalog");
  memset(cat->calibration, 0, (seq->n + 1) * sizeof(*cat->calibration));
  for (size_t i = 0; i < seq->n; i++) {
    cal_ctx c = {path, seq->items[i], i, err};
    if ((st = parse_row(&c, cat, &cat->calibration[i])) != RS_OK)
      return st;
    cat->ncalibration = i + 1;
  }
  return RS_OK;
}
