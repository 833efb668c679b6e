/* bench/projection: the projection's own error table (docs/model.md).
 *
 * Fits the projection to a catalog's calibration section (the built-in
 * catalog, or --catalog FILE) and prints, for every published pair of
 * devices in the same benchmark and round, the published speed ratio, what
 * the projection gives with the row left out, the path it took and the
 * error; then per class the leave-one-out median and worst of every path and
 * of the projection as the product runs it. Not a test: a measurement. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "projection.h"
#include "rightsize/arena.h"
#include "rightsize/catalog.h"

static void print_error(const char *what, const char *cls, rs_proj_error e) {
  if (e.n == 0)
    return;
  printf("%-22s %-20s %5zu  %6.1f%%  %6.1f%%\n", cls, what, e.n, e.median * 100.0, e.worst * 100.0);
}

static void print_pairs(const rs_proj_model *m) {
  printf("%-20s %-5s %-10s %-15s %-15s %9s %9s %6s  %s\n", "CLASS", "ROUND", "BENCHMARK",
         "LEFT_OUT", "OTHER", "PUBLISHED", "PROJECTED", "ERROR", "PATH");
  for (size_t i = 0; i < m->npairs; i++) {
    const rs_proj_pair *p = &m->pairs[i];
    const rs_calibration *a = m->rows[p->a].cal, *b = m->rows[p->b].cal;
    printf("%-20s %-5s %-10s %-15s %-15s %9.3f %9.3f %5.1f%%  %s\n", rs_workload_name(a->workload),
           a->round, a->benchmark, a->accelerator->key, b->accelerator->key, p->published,
           p->projected, fabs(p->projected / p->published - 1.0) * 100.0,
           rs_proj_path_name(p->path));
  }
}

static void print_fit(const rs_proj_model *m) {
  printf("calibration rows %zu, devices %zu, groups (benchmark x round) %zu\n\n", m->nrows,
         m->ndevices, m->ngroups);
  printf("%-22s %12s  %s\n", "CLASS", "FLOP/BYTE", "TABLE PRECISION");
  for (int w = 0; w < RS_WORKLOAD_COUNT; w++)
    if (m->fitted[w])
      printf("%-22s %12.1f  %s\n", rs_workload_name((rs_workload)w), exp(m->log_intensity[w]),
             rs_precision_name(m->precision[w]));
  printf("\n%-22s %10s %10s\n", "DEVICE", "EFFICIENCY", "BANDWIDTH");
  for (size_t d = 0; d < m->ndevices; d++)
    printf("%-22s %10.3f %10.3f\n", m->devices[d].accel->key, exp(m->devices[d].log_eff),
           exp(m->devices[d].log_eff + m->devices[d].log_bw_eff));
  printf("(relative achieved efficiency, compute side, and on the bandwidth side; geometric\n"
         " mean 1; a device without rows takes its architecture's mean, else the median %.3f,\n"
         " and no bandwidth efficiency of its own)\n\n",
         exp(m->prior_log_eff));
}

static const rs_accelerator *find_accel(const rs_proj_model *m, const char *key) {
  for (size_t i = 0; i < m->cat->naccelerators; i++)
    if (strcmp(m->cat->accelerators[i].key, key) == 0)
      return &m->cat->accelerators[i];
  return NULL;
}

/* Devices of the same compute whose projection should stay close (the A100
 * pair; the H200 over the H100): speed of the first over the second. */
static void print_same_spec(const rs_proj_model *m) {
  static const char *const pairs[][2] = {{"A100-SXM4-80GB", "A100-SXM4-40GB"},
                                         {"H200-SXM-141GB", "H100-SXM5-80GB"}};
  printf("\n%-32s %-20s %9s %9s\n", "SPEED OF / OVER", "CLASS", "TABLE", "FP16");
  for (size_t i = 0; i < 2; i++) {
    const rs_accelerator *a = find_accel(m, pairs[i][0]), *b = find_accel(m, pairs[i][1]);
    char name[64];
    if (!a || !b)
      continue;
    snprintf(name, sizeof(name), "%s / %s", pairs[i][0], pairs[i][1]);
    for (int w = 0; w <= RS_WORKLOAD_COUNT; w++) {
      rs_workload c = w == RS_WORKLOAD_COUNT ? RS_WORKLOAD_UNKNOWN : (rs_workload)w;
      rs_precision tp = w == RS_WORKLOAD_COUNT ? RS_PRECISION_FP16 : m->precision[w];
      if (w < RS_WORKLOAD_COUNT && !m->fitted[w])
        continue;
      printf("%-32s %-20s %9.3f %9.3f\n", name,
             w == RS_WORKLOAD_COUNT ? "(none)" : rs_workload_name(c),
             rs_proj_roofline_ratio(m, a, b, c, tp),
             rs_proj_roofline_ratio(m, a, b, c, RS_PRECISION_FP16));
    }
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The spec ratio rightsize used before the calibration (issue 12):
 * w x dense FP16 TFLOPS ratio + (1 - w) x bandwidth ratio, on the same pairs. */
static void print_previous(const rs_proj_model *m, double w) {
  double *err = malloc((m->nrows * m->nrows + 1) * sizeof(*err)), sum = 0;
  size_t n = 0;
  for (size_t i = 0; i < m->nrows; i++)
    for (size_t j = 0; j < m->nrows; j++) {
      const rs_proj_row *a = &m->rows[i], *b = &m->rows[j];
      if (i == j || a->group != b->group)
        continue;
      const rs_accelerator *x = a->cal->accelerator, *y = b->cal->accelerator;
      double old =
          w * x->fp16_tflops / y->fp16_tflops + (1 - w) * x->memory_bw_gbps / y->memory_bw_gbps;
      err[n] = fabs(old / exp(a->x - b->x) - 1.0);
      sum += err[n++];
    }
  qsort(err, n, sizeof(*err), cmp_double);
  if (n)
    printf("%-22s %-20s %5zu  %6.1f%%  %6.1f%%  (mean %.1f%%)\n", "all",
           w == 1.0 ? "previous, w = 1" : "previous, w = 0.5", n, err[n / 2] * 100.0,
           err[n - 1] * 100.0, sum / (double)n * 100.0);
  free(err);
}

static void print_summary(const rs_proj_model *m) {
  printf("\n%-22s %-20s %5s  %7s  %7s\n", "CLASS", "PATH (leave-one-out)", "PAIRS", "MEDIAN",
         "WORST");
  for (int w = 0; w <= RS_WORKLOAD_COUNT; w++) {
    const char *cls = w == RS_WORKLOAD_COUNT ? "all" : rs_workload_name((rs_workload)w);
    print_error("as projected", cls, m->chain[w]);
    for (int p = RS_PROJ_MEASURED; p <= RS_PROJ_SPEC; p++)
      print_error(rs_proj_path_name((rs_proj_path)p), cls, m->loo[p][w]);
  }
  print_previous(m, 1.0);
  print_previous(m, 0.5);
}

int main(int argc, char **argv) {
  rs_arena storage, *arena = &storage;
  rs_catalog *cat = NULL;
  rs_error err;
  rs_proj_model m;
  rs_status st;
  char buf[512];
  rs_arena_init(arena, 0);
  rs_error_clear(&err);
  if (argc == 3 && strcmp(argv[1], "--catalog") == 0)
    st = rs_catalog_load(&cat, arena, argv[2], &err);
  else if (argc == 1)
    st = rs_catalog_default(&cat, arena, &err);
  else {
    fprintf(stderr, "usage: bench_projection [--catalog FILE]\n");
    return 2;
  }
  if (st != RS_OK || (st = rs_proj_fit(&m, arena, cat, true)) != RS_OK) {
    fprintf(stderr, "bench_projection: %s\n",
            st == RS_NOMEM ? "out of memory" : rs_error_format(&err, buf, sizeof(buf)));
    rs_arena_release(arena);
    return 1;
  }
  printf("catalog %s (%s)\n", cat->version, cat->path);
  print_fit(&m);
  print_pairs(&m);
  print_summary(&m);
  print_same_spec(&m);
  rs_arena_release(arena);
  return 0;
}
