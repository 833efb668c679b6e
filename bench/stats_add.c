/* bench/stats_add: the statistics' add path alone (rs_stats_add), without
 * the reader. Reads up to N rows of a sample file into memory once, then
 * per repetition folds them into a fresh rs_stats and finishes it, and
 * prints the median CPU time per repetition, the rows per CPU second and a
 * hash of the finished statistics (the same bits in any build that keeps
 * the output bytes). With --parts K the rows are also folded as K parts
 * appended in order, as --threads does, and that hash is printed too.
 *
 *   stats_add FILE [ROWS [REPS [PARTS]]]   (defaults 1000000 rows, 9 reps, 1) */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rightsize/ingest.h"
#include "rightsize/stats.h"

/* The rows packed (time, device, present set, the present values in
 * metric order), so that replaying them streams little memory: each is
 * unpacked into one rs_sample, as a reader fills one per row. */
typedef struct rows {
  double *d; /* per row: t, gpu, present, then the values */
  size_t n, cap, len, dcap;
} rows;

static rs_status keep(void *ctx, const rs_sample *s, rs_error *err) {
  rows *r = ctx;
  (void)err;
  if (r->n == r->cap)
    return RS_LIMIT; /* enough: stops the reader */
  if (r->len + 3 + RS_METRIC_COUNT > r->dcap) {
    size_t cap = r->dcap ? 2 * r->dcap : 1 << 20;
    double *d = realloc(r->d, cap * sizeof(*d));
    if (d == NULL)
      return RS_NOMEM;
    r->d = d;
    r->dcap = cap;
  }
  r->d[r->len++] = s->t;
  r->d[r->len++] = s->gpu;
  r->d[r->len++] = s->present;
  for (uint32_t b = s->present; b != 0; b &= b - 1)
    r->d[r->len++] = s->v[__builtin_ctz(b)];
  r->n++;
  return RS_OK;
}

/* Unpacks the row at *at into s; returns the next row's offset. */
static size_t unpack(const rows *r, size_t at, rs_sample *s) {
  s->t = r->d[at];
  s->gpu = (int)r->d[at + 1];
  s->present = (uint32_t)r->d[at + 2];
  at += 3;
  for (uint32_t b = s->present; b != 0; b &= b - 1)
    s->v[__builtin_ctz(b)] = r->d[at++];
  return at;
}

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t hash_bytes(const void *p, size_t n) {
  const unsigned char *b = p;
  uint64_t h = UINT64_C(1469598103934665603);
  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * UINT64_C(1099511628211);
  return h;
}

/* Folds rows [lo, hi) into a fresh statistics block (a part when like is
 * not NULL; NULL statistics when none: the unpacking alone). */
static rs_stats *fold(const rows *r, size_t lo, size_t hi, const rs_stats *like, bool none) {
  rs_stats *st = NULL;
  rs_error err;
  rs_sample s = {.path = "bench", .line = 1};
  size_t at = 0;
  if (!none && (like ? rs_stats_new_part(&st, like, &err) : rs_stats_new(&st, NULL, &err)) != RS_OK)
    exit(1);
  if (st)
    rs_stats_begin_file(st, "bench");
  for (size_t i = 0; i < hi; i++) {
    at = unpack(r, at, &s);
    if (i < lo)
      continue;
    if (none)
      __asm__ volatile("" : : "r"(&s) : "memory");
    else if (rs_stats_add(st, &s, &err) != RS_OK) {
      fprintf(stderr, "stats_add: %s\n", err.msg);
      exit(1);
    }
  }
  return st;
}

static uint64_t finish_hash(rs_stats *st, rs_endpoint_stats *out) {
  rs_error err;
  if (rs_stats_finish(st, out, &err) != RS_OK)
    exit(1);
  return hash_bytes(out, sizeof(*out));
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: stats_add FILE [ROWS [REPS [PARTS]]]\n");
    return 2;
  }
  rows r = {.cap = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000000};
  int reps = argc > 3 ? atoi(argv[3]) : 9, parts = argc > 4 ? atoi(argv[4]) : 1;
  rs_error err;
  rs_endpoint_stats *out = malloc(sizeof(*out));
  double *t = malloc((size_t)(reps > 0 ? reps : 1) * sizeof(*t));
  if (out == NULL || t == NULL || reps < 1 || parts < 1)
    return 1;
  rs_status rc = rs_ingest_file(argv[1], NULL, keep, &r, NULL, &err);
  if (rc != RS_OK && rc != RS_LIMIT) {
    fprintf(stderr, "stats_add: %s\n", err.msg);
    return 1;
  }
  uint64_t h = 0;
  double *t0 = malloc((size_t)reps * sizeof(*t0));
  if (t0 == NULL)
    return 1;
  for (int k = 0; k < reps; k++) { /* interleaved: unpacking alone, then the statistics */
    double c = cpu_now();
    fold(&r, 0, r.n, NULL, true);
    t0[k] = cpu_now() - c;
    c = cpu_now();
    rs_stats *st = fold(&r, 0, r.n, NULL, false);
    h = finish_hash(st, out);
    rs_stats_free(st);
    t[k] = cpu_now() - c;
  }
  qsort(t, (size_t)reps, sizeof(*t), cmp_double);
  qsort(t0, (size_t)reps, sizeof(*t0), cmp_double);
  double add = t[reps / 2] - t0[reps / 2];
  printf("min %.1f ms (unpacking alone %.1f ms)\n", t[0] * 1e3, t0[0] * 1e3);
  printf("rows %zu  median %.1f ms (unpacking alone %.1f ms): add+finish %.1f ns per row, "
         "%.1f M rows per CPU second  hash %016llx\n",
         r.n, t[reps / 2] * 1e3, t0[reps / 2] * 1e3, add / (double)r.n * 1e9,
         (double)r.n / add * 1e-6, (unsigned long long)h);
  free(t0);
  if (parts > 1) {
    rs_stats *all = fold(&r, 0, 0, NULL, false);
    for (int p = 0; p < parts; p++) {
      rs_stats *part = fold(&r, r.n * (size_t)p / (size_t)parts,
                            r.n * (size_t)(p + 1) / (size_t)parts, all, false);
      if (!rs_stats_continues(all, part) || rs_stats_append(all, part, &err) != RS_OK)
        return 1;
      rs_stats_free(part);
    }
    printf("parts %d  hash %016llx\n", parts, (unsigned long long)finish_hash(all, out));
    rs_stats_free(all);
  }
  free(r.d);
  free(out);
  free(t);
  return 0;
}
