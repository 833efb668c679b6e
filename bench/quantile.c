/* bench/quantile: the response-time quantile's root search alone
 * (rs_queue_response_quantile, Newton on the 40-panel tail) beside the
 * regula falsi it replaced (rs_queue_response_quantile_ref), on the same
 * inputs, interleaved: per round each runs over every input once, timed by
 * CLOCK_PROCESS_CPUTIME_ID. Prints the median CPU time per quantile of each,
 * their ratio, and how far apart the answers are (largest relative
 * difference, count of bit-identical answers).
 *
 *   quantile_bench [FILE [REPS]]   (default: the 14,400-point grid of
 *                                   test_queue_ref's test_quantile_vs_ref, 5 reps)
 *
 * FILE has one quantile per line: servers, arrival rate, service time, ca2,
 * cs2, the service median s50, its cs2 and p, as C's %u and %a (hex floats)
 * write them; "-" for the grid. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "queue.h"

typedef struct input {
  rs_queue q;
  double s50, scs2, p;
} input;

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static input *grid(size_t *n) {
  static const unsigned cs[] = {1, 2, 3, 5, 8, 16, 32, 64, 128};
  static const double rhos[] = {0.001, 0.05, 0.2, 0.5, 0.8, 0.9, 0.97, 0.995};
  static const double cs2s[] = {0, 0.005, 0.1, 1, 4};
  static const double s50s[] = {0.01, 0.3, 1, 5, 100};
  static const double ps[] = {0.5, 0.95, 0.99, 0.9999};
  input *v = malloc(9 * 8 * 5 * 5 * 4 * 2 * sizeof(*v));
  size_t k = 0;
  if (v == NULL)
    return NULL;
  for (size_t i = 0; i < 9; i++)
    for (size_t j = 0; j < 8; j++)
      for (size_t c = 0; c < 5; c++)
        for (size_t l = 0; l < 5; l++)
          for (size_t m = 0; m < 4; m++)
            for (int o = 0; o < 2; o++) {
              double hold = 0.004;
              v[k].q = (rs_queue){cs[i], rhos[j] * cs[i] / hold, hold, 1.0, cs2s[c]};
              v[k].s50 = hold * s50s[l];
              v[k].scs2 = o == 0 ? cs2s[c] : 0.3 * (1 + (double)(l + m) / 4);
              v[k].p = ps[m];
              k++;
            }
  *n = k;
  return v;
}

static input *read_inputs(const char *path, size_t *n) {
  FILE *f = fopen(path, "r");
  input *v = NULL;
  size_t k = 0, cap = 0;
  if (f == NULL)
    return NULL;
  for (;;) {
    input in;
    if (fscanf(f, "%u %la %la %la %la %la %la %la", &in.q.servers, &in.q.arrival_rps,
               &in.q.service_s, &in.q.ca2, &in.q.cs2, &in.s50, &in.scs2, &in.p) != 8)
      break;
    if (k == cap) {
      cap = cap ? 2 * cap : 4096;
      input *nv = realloc(v, cap * sizeof(*v));
      if (nv == NULL) {
        free(v);
        fclose(f);
        return NULL;
      }
      v = nv;
    }
    v[k++] = in;
  }
  fclose(f);
  *n = k;
  return v;
}

int main(int argc, char **argv) {
  size_t n = 0;
  int reps = argc > 2 ? atoi(argv[2]) : 5;
  input *v = argc > 1 && strcmp(argv[1], "-") != 0 ? read_inputs(argv[1], &n) : grid(&n);
  if (v == NULL || n == 0 || reps < 1 || reps > 1000) {
    fprintf(stderr, "usage: quantile_bench [FILE|- [REPS]]\n");
    free(v);
    return 2;
  }
  double *tn = malloc((size_t)reps * sizeof(double)), *tr = malloc((size_t)reps * sizeof(double));
  double worst = 0, sink = 0;
  size_t same = 0;
  if (tn == NULL || tr == NULL)
    return 2;
  for (int r = 0; r < reps; r++) {
    double t0 = cpu_now();
    for (size_t i = 0; i < n; i++)
      sink += rs_queue_response_quantile_ref(&v[i].q, v[i].s50, v[i].scs2, v[i].p);
    double t1 = cpu_now();
    for (size_t i = 0; i < n; i++)
      sink += rs_queue_response_quantile(&v[i].q, v[i].s50, v[i].scs2, v[i].p);
    tr[r] = t1 - t0;
    tn[r] = cpu_now() - t1;
  }
  for (size_t i = 0; i < n; i++) {
    double a = rs_queue_response_quantile(&v[i].q, v[i].s50, v[i].scs2, v[i].p);
    double b = rs_queue_response_quantile_ref(&v[i].q, v[i].s50, v[i].scs2, v[i].p);
    if (a == b || (isnan(a) && isnan(b)))
      same++;
    else if (isfinite(a) && isfinite(b))
      worst = fmax(worst, fabs(a / b - 1));
  }
  qsort(tn, (size_t)reps, sizeof(double), cmp_double);
  qsort(tr, (size_t)reps, sizeof(double), cmp_double);
  double mn = tn[reps / 2] / (double)n * 1e9, mr = tr[reps / 2] / (double)n * 1e9;
  printf("quantiles %zu, reps %d (medians of interleaved rounds, CPU time)\n", n, reps);
  printf("reference (regula falsi) %.0f ns per quantile\n", mr);
  printf("newton                   %.0f ns per quantile\n", mn);
  printf("reference / newton       %.2f\n", mr / mn);
  printf("bit-identical answers %zu of %zu; largest relative difference %.3g\n", same, n, worst);
  printf("(checksum %.6g)\n", sink);
  free(tn);
  free(tr);
  free(v);
  return 0;
}
