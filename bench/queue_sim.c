/* A discrete-event simulation of the FCFS c-server queue beside
 * rs_queue_response_quantile (docs/model.md, "Latency"; bench/README.md).
 *
 * Poisson arrivals, lognormal service with mean 1 and squared coefficient of
 * variation cs2, c identical servers fed by one queue in arrival order. Each
 * request's response time is its wait plus its own service time; the p95 and
 * p99 of n of them (after a warm-up) are set beside the formula, whose S is
 * the same lognormal (median 1 / sqrt(1 + cs2)). Seeds are fixed per cell, so
 * the table is the same on every run of the same binary.
 *
 *   queue_sim [--requests N] [--scale X] [--seed K] [--jobs J] [--cell C RHO CS2]
 *             [--load TABLE]
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "queue.h"

#include "bench_rng.h"

static const unsigned servers[] = {1, 2, 4, 8, 16};
static const double rhos[] = {0.3, 0.5, 0.7, 0.8, 0.9};
static const double cs2s[] = {0.1, 0.5, 1.0, 2.0, 4.0};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define CELLS (COUNT(servers) * COUNT(rhos) * COUNT(cs2s))

static double rng_normal(rng *r) {
  if (r->has_spare) {
    r->has_spare = 0;
    return r->spare;
  }
  double u = rng_uniform(r), v = rng_uniform(r), m = sqrt(-2.0 * log(u));
  r->spare = m * sin(2 * 3.14159265358979323846 * v);
  r->has_spare = 1;
  return m * cos(2 * 3.14159265358979323846 * v);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef struct sim_out {
  double p95, p99;
} sim_out;

/* Simulates one batch: mean service 1, arrival rate rho c, n response times
 * (into buf) after n / 10 warm-up requests; their p95 and p99. */
static sim_out simulate(unsigned c, double rho, double cs2, size_t n, uint64_t seed, double *buf) {
  rng r = {seed, 0, 0};
  double free_at[16] = {0}, t = 0, lambda = rho * c;
  double sigma = sqrt(log1p(cs2)), mu = -sigma * sigma / 2;
  size_t warm = n / 10;
  for (size_t i = 0; i < n + warm; i++) {
    t += -log(rng_uniform(&r)) / lambda;
    unsigned best = 0;
    for (unsigned k = 1; k < c; k++)
      if (free_at[k] < free_at[best])
        best = k;
    double start = free_at[best] > t ? free_at[best] : t;
    double service = exp(mu + sigma * rng_normal(&r));
    free_at[best] = start + service;
    if (i >= warm)
      buf[i - warm] = start + service - t;
  }
  qsort(buf, n, sizeof(double), cmp_double);
  sim_out o = {buf[(size_t)(0.95 * (double)n)], buf[(size_t)(0.99 * (double)n)]};
  return o;
}

/* Batches per cell: a tail quantile's noise grows with the queue's memory,
 * about (1 + cs2) / (1 - rho)^2 / c, so heavy cells get more independent
 * batches (2 to 128) and every cell's standard error stays near 1 %. */
static unsigned batches(unsigned c, double rho, double cs2, double scale) {
  double b = scale * 2.0 * (1 + cs2) * 0.25 / ((1 - rho) * (1 - rho)) / c;
  return b < 2 ? 2 : b > 128 ? 128 : (unsigned)ceil(b);
}

typedef struct cell_out {
  double mean[2], se[2]; /* p95 and p99: mean of the batches and its standard error */
  unsigned batches;
} cell_out;

static cell_out simulate_cell(unsigned c, double rho, double cs2, size_t n, unsigned nb,
                              uint64_t seed, double *buf) {
  cell_out o = {{0, 0}, {0, 0}, nb};
  double sum[2] = {0, 0}, sq[2] = {0, 0};
  for (unsigned b = 0; b < nb; b++) {
    sim_out s = simulate(c, rho, cs2, n, seed + 7919u * b, buf);
    double v[2] = {s.p95, s.p99};
    for (int k = 0; k < 2; k++) {
      sum[k] += v[k];
      sq[k] += v[k] * v[k];
    }
  }
  for (int k = 0; k < 2; k++) {
    o.mean[k] = sum[k] / nb;
    double var = (sq[k] - sum[k] * sum[k] / nb) / (nb - 1);
    o.se[k] = sqrt(fmax(var, 0.0) / nb);
  }
  return o;
}

/* The formula under test and the one it replaces (sum of quantiles). */
static double model(unsigned c, double rho, double cs2, double p) {
  rs_queue q = {c, rho * c, 1.0, 1.0, cs2};
  return rs_queue_response_quantile(&q, 1.0 / sqrt(1.0 + cs2), cs2, p);
}

static double model_sum(unsigned c, double rho, double cs2, double p) {
  rs_queue q = {c, rho * c, 1.0, 1.0, cs2};
  double s = exp(sqrt(log1p(cs2)) * rs_normal_quantile(p)) / sqrt(1.0 + cs2);
  return s + rs_queue_wait_quantile(&q, p);
}

static uint64_t cell_seed(unsigned c, double rho, double cs2) {
  return 1000003u * c + (uint64_t)(rho * 1000) * 1009u + (uint64_t)(cs2 * 1000);
}

static double median(double *v, size_t n) {
  qsort(v, n, sizeof(double), cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

typedef struct summary {
  double err[2 * CELLS], old[2 * CELLS];
  size_t n;
  double worst, worst_old;
} summary;

static void report_cell(unsigned c, double rho, double cs2, const cell_out *s, summary *sm) {
  double ps[2] = {0.95, 0.99};
  printf("%3u %4.2f %4.1f %4u", c, rho, cs2, s->batches);
  for (int k = 0; k < 2; k++) {
    double m = model(c, rho, cs2, ps[k]), o = model_sum(c, rho, cs2, ps[k]);
    double e = m / s->mean[k] - 1, eo = o / s->mean[k] - 1;
    printf(" | %9.4f %5.2f%% %9.4f %+6.1f%% %+6.1f%%", s->mean[k], 100 * s->se[k] / s->mean[k], m,
           100 * e, 100 * eo);
    sm->err[sm->n] = fabs(e);
    sm->old[sm->n++] = fabs(eo);
    sm->worst = fmin(sm->worst, e);
    sm->worst_old = fmin(sm->worst_old, eo);
  }
  printf("\n");
  fflush(stdout);
}

static void run_cell(unsigned c, double rho, double cs2, const double *opt, double *buf,
                     summary *sm) {
  size_t n = (size_t)opt[0];
  unsigned nb = batches(c, rho, cs2, opt[2]);
  cell_out s = simulate_cell(c, rho, cs2, n, nb, cell_seed(c, rho, cs2) + (uint64_t)opt[1], buf);
  report_cell(c, rho, cs2, &s, sm);
}

/* Reads the simulated columns back from a table this program printed
 * (--load), so the formula can be re-checked without simulating again:
 * c rho cs2 b | p95 se% model err old | p99 se% model err old. */
static int load_table(const char *path, summary *sm) {
  FILE *f = fopen(path, "r");
  char line[512];
  if (f == NULL)
    return -1;
  while (fgets(line, sizeof line, f)) {
    double v[16];
    int nv = 0;
    char *p = line, *end;
    if (line[0] == '#' || line[0] == '\n' || strstr(line, "rho") != NULL)
      continue;
    while (*p && nv < 16) {
      double x = strtod(p, &end);
      if (end == p) {
        p++;
        continue;
      }
      v[nv++] = x;
      p = end;
    }
    if (nv < 14)
      continue;
    cell_out s = {{v[4], v[9]}, {v[5] / 100 * v[4], v[10] / 100 * v[9]}, (unsigned)v[3]};
    report_cell((unsigned)v[0], v[1], v[2], &s, sm);
  }
  fclose(f);
  return 0;
}

/* The whole grid, cells shared out to worker threads (each cell seeds its
 * own generator, so the table does not depend on the number of jobs). */
typedef struct grid {
  const double *opt;
  cell_out out[CELLS];
  unsigned c[CELLS];
  double rho[CELLS], cs2[CELLS];
  size_t order[CELLS], next;
  pthread_mutex_t lock;
  int failed;
} grid;

static void *grid_worker(void *arg) {
  grid *g = arg;
  size_t n = (size_t)g->opt[0];
  double *buf = malloc(n * sizeof(double));
  for (;;) {
    pthread_mutex_lock(&g->lock);
    size_t k = g->next < CELLS ? g->order[g->next++] : CELLS;
    g->failed |= buf == NULL;
    pthread_mutex_unlock(&g->lock);
    if (k == CELLS || buf == NULL)
      break;
    unsigned nb = batches(g->c[k], g->rho[k], g->cs2[k], g->opt[2]);
    uint64_t seed = cell_seed(g->c[k], g->rho[k], g->cs2[k]) + (uint64_t)g->opt[1];
    g->out[k] = simulate_cell(g->c[k], g->rho[k], g->cs2[k], n, nb, seed, buf);
  }
  free(buf);
  return NULL;
}

/* Runs every cell on `jobs` threads, heaviest first, then reports in order. */
static int run_grid(const double *opt, unsigned jobs, summary *sm) {
  static grid g;
  pthread_t th[64];
  size_t k = 0;
  g.opt = opt;
  g.next = 0;
  pthread_mutex_init(&g.lock, NULL);
  for (size_t i = 0; i < COUNT(servers); i++)
    for (size_t j = 0; j < COUNT(rhos); j++)
      for (size_t l = 0; l < COUNT(cs2s); l++, k++) {
        g.c[k] = servers[i], g.rho[k] = rhos[j], g.cs2[k] = cs2s[l];
        g.order[k] = k;
      }
  for (size_t i = 1; i < CELLS; i++) /* insertion sort: most batches first */
    for (size_t j = i; j > 0; j--) {
      size_t a = g.order[j - 1], b = g.order[j];
      if (batches(g.c[a], g.rho[a], g.cs2[a], opt[2]) >=
          batches(g.c[b], g.rho[b], g.cs2[b], opt[2]))
        break;
      g.order[j - 1] = b, g.order[j] = a;
    }
  unsigned started = 0;
  for (; started < jobs && started < 64; started++)
    if (pthread_create(&th[started], NULL, grid_worker, &g) != 0)
      break;
  if (started == 0)
    grid_worker(&g);
  for (unsigned i = 0; i < started; i++)
    pthread_join(th[i], NULL);
  pthread_mutex_destroy(&g.lock);
  if (g.failed)
    return -1;
  for (k = 0; k < CELLS; k++)
    report_cell(g.c[k], g.rho[k], g.cs2[k], &g.out[k], sm);
  return 0;
}

static int usage(void) {
  fprintf(stderr, "usage: queue_sim [--requests N] [--scale X] [--seed K] [--jobs J] [--cell C RHO "
                  "CS2] [--load TABLE]\n");
  return 2;
}

int main(int argc, char **argv) {
  double opt[3] = {500000, 0, 1}; /* requests per batch, seed offset, batch scale */
  int cell = 0;
  const char *load = NULL;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned jobs = cpus > 0 ? (unsigned)cpus : 1, one_c = 1;
  double one_rho = 0.5, one_cs2 = 1.0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--requests") == 0 && i + 1 < argc)
      opt[0] = strtod(argv[++i], NULL);
    else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
      opt[1] = strtod(argv[++i], NULL);
    else if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc)
      opt[2] = strtod(argv[++i], NULL);
    else if (strcmp(argv[i], "--jobs") == 0 && i + 1 < argc)
      jobs = (unsigned)strtoul(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--load") == 0 && i + 1 < argc)
      load = argv[++i];
    else if (strcmp(argv[i], "--cell") == 0 && i + 3 < argc) {
      cell = 1;
      one_c = (unsigned)strtoul(argv[++i], NULL, 10);
      one_rho = strtod(argv[++i], NULL);
      one_cs2 = strtod(argv[++i], NULL);
    } else
      return usage();
  }
  if (!(opt[0] >= 1000 && opt[0] <= 1e8) || !(opt[1] >= 0) || !(opt[2] > 0) || jobs < 1 ||
      (cell && (one_c < 1 || one_c > 16 || !(one_rho > 0 && one_rho < 1) || !(one_cs2 >= 0))))
    return usage();
  double *buf = malloc((size_t)opt[0] * sizeof(double));
  static summary sm;
  if (buf == NULL)
    return 1;
  sm.worst = sm.worst_old = INFINITY;
  printf("# queue_sim: batches of %.0f requests (after %.0f warm-up), mean service 1, Poisson "
         "arrivals, lognormal service; sim = mean of the batches' quantiles, se its standard "
         "error\n# err = model / sim - 1; old = service_q + wait_q (the sum of quantiles)\n",
         opt[0], floor(opt[0] / 10));
  printf(
      "  c  rho  cs2    b |   sim p95     se model p95    err    old |   sim p99     se model p99 "
      "   err    old\n");
  if (load != NULL && load_table(load, &sm) != 0) {
    fprintf(stderr, "queue_sim: cannot read '%s'\n", load);
    return 2;
  } else if (load != NULL)
    ;
  else if (cell)
    run_cell(one_c, one_rho, one_cs2, opt, buf, &sm);
  else if (run_grid(opt, jobs, &sm) != 0) {
    fprintf(stderr, "queue_sim: out of memory\n");
    return 1;
  }
  double worst = sm.worst < 0 ? -100 * sm.worst : 0.0, med = 100 * median(sm.err, sm.n);
  printf("# %zu quantiles: median |err| %.1f%%, worst under-statement %.1f%% "
         "(old: median |err| %.1f%%, worst under %.1f%%)\n",
         sm.n, med, worst, 100 * median(sm.old, sm.n),
         sm.worst_old < 0 ? -100 * sm.worst_old : 0.0);
  printf("# bounds (median |err| <= 10%%, under-statement <= 3%%): %s\n",
         med <= 10 && worst <= 3 ? "met" : "NOT met");
  free(buf);
  return med <= 10 && worst <= 3 ? 0 : 1;
}
