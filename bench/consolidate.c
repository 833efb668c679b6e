/* Consolidation alone, at fleet sizes the per-endpoint fits make slow to
 * reach through `rightsize audit` (bench/README.md, docs/scale.md "Audit").
 *
 * Fits the shipped fleet (profiles/fleet, 24 endpoints) once through
 * rs_audit_run with --consolidate's rows, then, for each size N, builds a
 * fleet of N rows by repeating those rows in order (the fleets of
 * bench/audit.py, whose copies fit to the same rows) and times
 * rs_audit_consolidate on it: the median of --repeat runs of CPU time
 * (CLOCK_PROCESS_CPUTIME_ID: the machine is shared, wall time is noisy) and
 * of wall time, the instances used, the lower bound and the gap, and the
 * growth exponent between successive sizes (log t2/t1 over log n2/n1).
 *
 * With --shapes, each size's packings precede its line (shape, instances,
 * lower bound, endpoints).
 *
 * With --digest, each size's line ends with a 64-bit FNV-1a hash of the
 * whole packing (per shape, per instance, each endpoint's row, device and
 * latency, bit for bit, and the saving): two builds that pack alike print the
 * same digest.
 *
 * With --no-ceiling, every latency check evaluates the response tail
 * (consolidate_pack.c skips it where a cheaper upper bound answers): the
 * same packing, the same digest, at the cost before the bound, in the same
 * binary.
 *
 * With --distinct, no two rows are alike: copy c of a row has its peak
 * request rate times 1 + 1e-4 c and its SLO times 1 + 1e-6 c (so its
 * latency checks differ too), as a fleet of many different endpoints would
 * be, where repeated rows let one latency check answer for many copies.
 *
 *   consolidate [--sizes 1008,2016,5040,10008] [--repeat 3] [--max-per N] [--shapes]
 *               [--distinct] [--digest]
 *               [--no-ceiling]
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "consolidate_pack.h"
#include "rightsize/audit.h"
#include "rightsize/pipeline.h"

#define MAX_SIZES 16

static double now(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, size_t n) {
  qsort(v, n, sizeof(*v), cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * 0x100000001b3u;
  return h;
}

/* The digest of --digest: every figure of the packing that the report shows. */
static uint64_t digest_of(const rs_consolidation *c) {
  uint64_t h = 0xcbf29ce484222325u;
  for (size_t q = 0; q < c->npackings; q++) {
    const rs_packing *pk = &c->packings[q];
    h = fnv(h, pk->shape->name, strlen(pk->shape->name));
    h = fnv(h, &pk->ninstances, sizeof(pk->ninstances));
    for (size_t i = 0; i < pk->ninstances; i++) {
      const rs_packed_instance *pi = &pk->instances[i];
      h = fnv(h, &pi->nendpoints, sizeof(pi->nendpoints));
      for (size_t j = 0; j < pi->nendpoints; j++) {
        const rs_packed_endpoint *pe = &pi->endpoints[j];
        h = fnv(h, &pe->row, sizeof(pe->row));
        h = fnv(h, &pe->device, sizeof(pe->device));
        h = fnv(h, &pe->latency_ms, sizeof(pe->latency_ms));
      }
    }
  }
  return fnv(h, &c->savings_month, sizeof(c->savings_month));
}

static void die(const char *what, const rs_error *err) {
  fprintf(stderr, "consolidate: %s: %s\n", what, err->msg);
  exit(1);
}

int main(int argc, char **argv) {
  size_t sizes[MAX_SIZES] = {1008, 2016, 5040, 10008}, nsizes = 4;
  unsigned repeat = 3, max_per = 0;
  bool shapes = false, distinct = false, digest = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
      nsizes = 0;
      for (char *s = strtok(argv[++i], ","); s && nsizes < MAX_SIZES; s = strtok(NULL, ","))
        sizes[nsizes++] = strtoul(s, NULL, 10);
    } else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
      repeat = (unsigned)strtoul(argv[++i], NULL, 10);
    } else if (strcmp(argv[i], "--shapes") == 0) {
      shapes = true;
    } else if (strcmp(argv[i], "--distinct") == 0) {
      distinct = true;
    } else if (strcmp(argv[i], "--digest") == 0) {
      digest = true;
    } else if (strcmp(argv[i], "--no-ceiling") == 0) {
      rs_pack_no_ceiling = true;
    } else if (strcmp(argv[i], "--max-per") == 0 && i + 1 < argc) {
      max_per = (unsigned)strtoul(argv[++i], NULL, 10);
    } else {
      fprintf(stderr, "usage: consolidate [--sizes N,N,...] [--repeat K] [--max-per N] [--shapes] "
                      "[--distinct] [--digest] [--no-ceiling]\n");
      return 2;
    }
  }
  if (repeat == 0)
    repeat = 1;
  rs_arena arena_s, *arena = &arena_s;
  rs_error err;
  rs_error_clear(&err);
  rs_pipeline_options po;
  rs_pipeline p;
  rs_pipeline_options_init(&po);
  rs_arena_init(arena, 0);
  if (rs_pipeline_open(&p, arena, &po, &err) != RS_OK)
    die("catalog", &err);
  rs_audit_options o = {
      .pipeline = &p, .threads = 0, .consolidate = true, .max_per_instance = max_per};
  const char *dir = RS_SOURCE_DIR "/profiles/fleet", **files;
  size_t nfiles;
  rs_audit *fleet;
  if (rs_audit_discover(&files, &nfiles, arena, &dir, 1, &err) != RS_OK)
    die(dir, &err);
  if (rs_audit_run(&fleet, files, nfiles, &o, &err) != RS_OK)
    die("audit", &err);
  printf("%8s %10s %10s %9s %7s %7s %8s %12s %6s%s\n", "N", "cpu_s", "wall_s", "instances", "bound",
         "gap", "packed", "saves_$/mo", "exp", digest ? " digest" : "");
  double prev_t = NAN, prev_n = NAN;
  for (size_t z = 0; z < nsizes; z++) {
    size_t n = sizes[z];
    rs_audit_row *rows = calloc(n ? n : 1, sizeof(*rows));
    if (rows == NULL)
      return 1;
    size_t nshares = 0;
    for (size_t i = 0; i < n; i++)
      nshares += fleet->rows[i % fleet->nrows].nshares;
    rs_audit_share *shares = calloc(nshares ? nshares : 1, sizeof(*shares)), *sh = shares;
    if (shares == NULL)
      return 1;
    rs_audit a = *fleet;
    a.rows = rows;
    a.nrows = n;
    a.after_month = 0;
    for (size_t i = 0; i < n; i++) {
      rows[i] = fleet->rows[i % fleet->nrows];
      if (distinct) { /* copy c: its own rate and SLO, its own shares */
        double c = (double)(i / fleet->nrows);
        rows[i].design_peak *= 1 + 1e-4 * c;
        rows[i].slo_ms *= 1 + 1e-6 * c;
        memcpy(sh, rows[i].shares, rows[i].nshares * sizeof(*sh));
        rows[i].shares = sh;
        sh += rows[i].nshares;
      }
      if (rows[i].ok && isfinite(rows[i].after_month))
        a.after_month += rows[i].after_month;
    }
    double cpu[64], wall[64];
    unsigned k = repeat < 64 ? repeat : 64;
    size_t instances = 0, bound = 0, packed = 0;
    double saved = 0;
    uint64_t dg = 0;
    for (unsigned r = 0; r < k; r++) {
      rs_arena run_s, *run = &run_s;
      rs_arena_init(run, 0);
      double c0 = now(CLOCK_PROCESS_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
      if (rs_audit_consolidate(&a, run, &o, &err) != RS_OK)
        die("consolidate", &err);
      cpu[r] = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
      wall[r] = now(CLOCK_MONOTONIC) - w0;
      instances = a.consolidation->instances;
      bound = a.consolidation->lower_bound;
      packed = a.consolidation->packed;
      saved = a.consolidation->savings_month;
      dg = digest_of(a.consolidation);
      rs_arena_release(run);
    }
    if (shapes)
      for (size_t q = 0; q < a.consolidation->npackings; q++) {
        const rs_packing *pk = &a.consolidation->packings[q];
        size_t ne = 0;
        for (size_t i = 0; i < pk->ninstances; i++)
          ne += pk->instances[i].nendpoints;
        printf("         %s x%zu, lower bound %zu, %zu endpoints\n", pk->shape->name,
               pk->ninstances, pk->lower_bound, ne);
      }
    double t = median(cpu, k), w = median(wall, k);
    double ex = isnan(prev_t) ? NAN : log(t / prev_t) / log((double)n / prev_n);
    printf("%8zu %10.3f %10.3f %9zu %7zu %6.1f%% %8zu %12.2f %6.2f", n, t, w, instances, bound,
           bound ? 100.0 * ((double)instances / (double)bound - 1) : 0.0, packed, saved, ex);
    if (digest)
      printf(" %016llx", (unsigned long long)dg);
    printf("\n");
    fflush(stdout);
    prev_t = t;
    prev_n = (double)n;
    free(rows);
    free(shares);
  }
  rs_audit_free(fleet);
  rs_arena_release(arena);
  return 0;
}
