/* Cross-accelerator projection calibrated on the catalog's published
 * measurements: the fit (projection.h; docs/model.md "Projection onto
 * another device"; projecting is in projection_project.c). A penalized
 * least squares in logs: log throughput = group scale + device efficiency +
 * log roofline(device, benchmark intensity) (+ the device's bandwidth
 * efficiency where bandwidth binds), efficiencies leaning on their
 * architecture's mean and round scales on their benchmark's, solved exactly
 * for given intensities, each benchmark's intensity by a grid and
 * golden-section search. Everything is deterministic: fixed iteration
 * counts, rows in catalog order. */
#include "projection_fit.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NONE RS_PROJ_NONE
#define ARCH_PRIOR 1.0   /* pull of an architecture's mean on a device, in published rows */
#define BW_PRIOR 1.0     /* pull toward 0 of a device's bandwidth efficiency, in rows */
#define ROUND_PRIOR 0.1  /* pull of a benchmark's mean on a round's scale, no anchor */
#define ROW_NOISE 0.10   /* log error of one published row about the model */
#define DRIFT_FLOOR 0.05 /* least software drift between rounds assumed, log */
#define GAUGE 1e-9       /* ties the free common level of scales and efficiencies */
#define LOG_I_LO RS_PROJ_LOG_I_LO /* intensity search range, log FLOP/byte */
#define LOG_I_HI 8.0
#define LOG_I_STEP 0.25
#define GOLDEN_STEPS 24

static const char *const path_names[] = {
#define RS_PROJ_PATH_NAME(name, text) text,
    RS_PROJ_PATH_MAP(RS_PROJ_PATH_NAME)
#undef RS_PROJ_PATH_NAME
};

const char *rs_proj_path_name(rs_proj_path p) {
  return (unsigned)p < RS_PROJ_PATH_COUNT ? path_names[p] : "unknown";
}

/* ---- device figures ---- */

static double best(double a, double b) {
  if (!(a > 0))
    return rs_proj_known(b);
  return b > a ? b : a;
}

double rs_proj_peak(const rs_accelerator *a, rs_precision p) {
  double fp32 = rs_proj_known(a->fp32_tflops), fp16 = best(a->fp16_tflops, fp32);
  switch (p) {
  case RS_PRECISION_FP32: return fp32;
  case RS_PRECISION_TF32: return best(a->tf32_tflops, fp32);
  case RS_PRECISION_FP16:
  case RS_PRECISION_BF16: return fp16;
  case RS_PRECISION_FP8: return best(a->fp8_tflops, fp16);
  case RS_PRECISION_INT8: return best(a->int8_tops, fp16);
  case RS_PRECISION_COUNT: break;
  }
  return fp16;
}

/* log of the roofline throughput (TFLOPS) of a at intensity exp(log_i). */
static double log_roof(const rs_accelerator *a, double log_i, rs_precision p) {
  double peak = rs_proj_peak(a, p), bw = rs_proj_known(a->memory_bw_gbps);
  if (isnan(peak) || isnan(bw))
    return isnan(peak) ? log(bw) + log_i - log(1000.0) : log(peak);
  return fmin(log(peak), log_i + log(bw / 1000.0));
}

/* Whether a's roofline at exp(log_i) is set by its bandwidth (its spec
 * figures decide, so the fit stays a linear least squares). */
static bool bw_side(const rs_accelerator *a, double log_i, rs_precision p) {
  double peak = rs_proj_peak(a, p), bw = rs_proj_known(a->memory_bw_gbps);
  if (isnan(peak) || isnan(bw))
    return isnan(peak);
  return log_i + log(bw / 1000.0) < log(peak);
}

double rs_proj_log_roof(const rs_accelerator *a, double log_i, rs_precision p, double bw_eff) {
  return log_roof(a, log_i, p) + (bw_side(a, log_i, p) ? bw_eff : 0.0);
}

/* ---- building the table ---- */

size_t rs_proj_find_device(const rs_proj_model *m, const rs_accelerator *a) {
  for (size_t i = 0; i < m->ndevices; i++)
    if (m->devices[i].accel == a)
      return i;
  return NONE;
}

static rs_status build(rs_proj_model *m, rs_arena *arena) {
  const rs_catalog *cat = m->cat;
  size_t n = cat->ncalibration;
  m->rows = rs_arena_alloc(arena, (n + 1) * sizeof(*m->rows));
  m->devices = rs_arena_alloc(arena, (n + 1) * sizeof(*m->devices));
  m->group_scale = rs_arena_alloc(arena, (n + 1) * sizeof(*m->group_scale));
  if (!m->rows || !m->devices || !m->group_scale)
    return RS_NOMEM;
  for (size_t i = 0; i < n; i++) {
    const rs_calibration *c = &cat->calibration[i];
    rs_proj_row *r = &m->rows[m->nrows++];
    r->cal = c;
    r->x = log(c->throughput);
    if ((r->dev = rs_proj_find_device(m, c->accelerator)) == NONE) {
      r->dev = m->ndevices++;
      m->devices[r->dev] = (rs_proj_device){c->accelerator, 0.0, 0.0};
    }
    r->group = m->ngroups;
    for (size_t j = 0; j < i; j++)
      if (strcmp(m->rows[j].cal->model, c->model) == 0 &&
          strcmp(m->rows[j].cal->round, c->round) == 0) {
        r->group = m->rows[j].group;
        break;
      }
    if (r->group == m->ngroups)
      m->ngroups++;
    m->precision[c->workload] = c->precision;
  }
  return RS_OK;
}

/* ---- fitting ----
 *
 * One solve is a penalized least squares in logs over every published row:
 *   sum (x - scale[group] - eff[device] - roof)^2
 *   + ARCH_PRIOR  * sum over devices (eff - mean of its architecture)^2
 *   + ROUND_PRIOR * sum over groups (scale - mean of its benchmark)^2
 * The data fix what they can (differences within a group, chains of devices
 * measured in several rounds); the priors tie what they cannot: a device
 * measured only in a round no other device shares (A100 40GB in v0.7) takes
 * its architecture's level, and a round's software factor leans toward the
 * benchmark's other rounds. Solved exactly (normal equations, Cholesky). */

/* Scratch of one solve: efficiencies and scales, rows to skip, the system. */
typedef struct solve {
  const rs_proj_model *m;
  double *eff, *scale;
  double *log_i;   /* per benchmark unknown (bench[group]): its intensity, log */
  double *roof;    /* per row: log roofline at the current intensities */
  bool *mem;       /* per row: on the bandwidth side of its device's roofline */
  double *tmp;     /* per device: scratch */
  double *bw_eff;  /* per device: bandwidth efficiency over compute efficiency, log */
  size_t bw0;      /* the unknown of device 0's bandwidth efficiency */
  double *h, *b;   /* normal equations, n x n and n */
  size_t n;        /* unknowns: groups, devices, architecture and benchmark means */
  size_t *arch;    /* per device: its architecture's unknown, NONE without one */
  size_t *bench;   /* per group: its benchmark's unknown */
  double *round_w; /* per benchmark unknown: the pull of its mean on its rounds */
  size_t *pairs;   /* per benchmark unknown: device pairs across its rounds */
  size_t *cnt;     /* rows used per device, then per group */
  size_t skip_row, skip_dev;
} solve;

static bool used(const solve *s, size_t i) {
  return i != s->skip_row && s->m->rows[i].dev != s->skip_dev;
}

static double row_roof(const solve *s, const rs_proj_row *r) {
  return log_roof(r->cal->accelerator, s->log_i[s->bench[r->group]], r->cal->precision);
}

/* Benchmark k's intensity within the ridge points of its rows' devices:
 * below the lowest every device is bandwidth-bound, above the highest
 * compute-bound, so an intensity beyond says no more than the edge does. */
static double clamped_intensity(const solve *s, size_t k) {
  double lo = INFINITY, hi = -INFINITY;
  for (size_t i = 0; i < s->m->nrows; i++) {
    const rs_proj_row *r = &s->m->rows[i];
    double ridge = log(rs_proj_peak(r->cal->accelerator, r->cal->precision)) -
                   log(rs_proj_known(r->cal->accelerator->memory_bw_gbps) / 1000.0);
    if (s->bench[r->group] == k && !isnan(ridge))
      lo = fmin(lo, ridge), hi = fmax(hi, ridge);
  }
  return lo <= hi ? fmin(fmax(s->log_i[k], lo), hi) : s->log_i[k];
}

/* The intensity of class w: the mean over its rows of their benchmarks'
 * clamped intensities. A profile names a class, not a benchmark, so this is
 * what it is projected at, and what leave-one-out measures. */
static double class_intensity(const solve *s, rs_workload w) {
  double sum = 0.0;
  size_t n = 0;
  for (size_t i = 0; i < s->m->nrows; i++)
    if (s->m->rows[i].cal->workload == w)
      sum += clamped_intensity(s, s->bench[s->m->rows[i].group]), n++;
  return n ? sum / (double)n : 3.0;
}

/* Row r's roofline at its class's intensity, with bandwidth efficiency bw. */
static double class_roof(const solve *s, const rs_proj_row *r, double bw) {
  return rs_proj_log_roof(r->cal->accelerator, class_intensity(s, r->cal->workload),
                          r->cal->precision, bw);
}

/* Adds w (u + sign v - y)^2 to the normal equations. */
static void add_term(solve *s, size_t u, size_t v, double sign, double y, double w) {
  size_t n = s->n;
  s->h[u * n + u] += w, s->h[v * n + v] += w;
  s->h[u * n + v] += sign * w, s->h[v * n + u] += sign * w;
  s->b[u] += w * y, s->b[v] += sign * w * y;
}

/* Adds w (sum of the unknowns u[0..k) - y)^2 to the normal equations. */
static void add_sum(solve *s, const size_t *u, size_t k, double y, double w) {
  for (size_t i = 0; i < k; i++) {
    for (size_t j = 0; j < k; j++)
      s->h[u[i] * s->n + u[j]] += w;
    s->b[u[i]] += w * y;
  }
}

/* Solves h x = b in place (x in b); h is symmetric positive definite. */
static void cholesky_solve(double *h, double *b, size_t n) {
  for (size_t j = 0; j < n; j++) {
    double d = h[j * n + j];
    for (size_t k = 0; k < j; k++)
      d -= h[j * n + k] * h[j * n + k];
    h[j * n + j] = d = sqrt(d);
    for (size_t i = j + 1; i < n; i++) {
      double v = h[i * n + j];
      for (size_t k = 0; k < j; k++)
        v -= h[i * n + k] * h[j * n + k];
      h[i * n + j] = v / d;
    }
  }
  for (size_t i = 0; i < n; i++) {
    for (size_t k = 0; k < i; k++)
      b[i] -= h[i * n + k] * b[k];
    b[i] /= h[i * n + i];
  }
  for (size_t i = n; i-- > 0;) {
    for (size_t k = i + 1; k < n; k++)
      b[i] -= h[k * n + i] * b[k];
    b[i] /= h[i * n + i];
  }
}

/* How hard each round's scale leans on its benchmark's mean: the software
 * drift between rounds, measured on the devices the rows show in two rounds
 * of the same benchmark (ResNet-50 on A100 80GB, v1.1 to v3.0: +6%; GPT-J
 * on H100, v3.1 to v4.0: 2.4x), as a weight ROW_NOISE^2 / drift^2 in rows;
 * ROUND_PRIOR where no device anchors the benchmark. */
static void round_weights(solve *s) {
  const rs_proj_model *m = s->m;
  size_t first = m->ngroups + m->ndevices; /* the architecture and benchmark slots */
  for (size_t k = first; k < s->n; k++)
    s->round_w[k] = 0.0, s->pairs[k] = 0;
  for (size_t i = 0; i < m->nrows; i++)
    for (size_t j = 0; j < i; j++) {
      const rs_proj_row *a = &m->rows[i], *b = &m->rows[j];
      size_t k = s->bench[a->group];
      if (used(s, i) && used(s, j) && a->dev == b->dev && a->group != b->group &&
          k == s->bench[b->group])
        s->round_w[k] += (a->x - b->x) * (a->x - b->x), s->pairs[k]++;
    }
  for (size_t k = first; k < s->n; k++)
    s->round_w[k] = s->pairs[k]
                        ? ROW_NOISE * ROW_NOISE /
                              fmax(s->round_w[k] / (double)s->pairs[k], DRIFT_FLOOR * DRIFT_FLOOR)
                        : ROUND_PRIOR;
}

/* Builds and solves the system; efficiencies of devices without rows and
 * scales of groups without rows are NaN. */
static void solve_system(solve *s) {
  const rs_proj_model *m = s->m;
  size_t n = s->n, ng = m->ngroups, nd = m->ndevices;
  memset(s->h, 0, n * n * sizeof(*s->h));
  memset(s->b, 0, n * sizeof(*s->b));
  memset(s->cnt, 0, (nd + ng) * sizeof(*s->cnt));
  round_weights(s);
  for (size_t i = 0; i < n; i++)
    s->h[i * n + i] = GAUGE; /* fixes the common level; the fit never sees it */
  for (size_t i = 0; i < m->nrows; i++) {
    const rs_proj_row *r = &m->rows[i];
    if (!used(s, i))
      continue;
    size_t u[3] = {r->group, ng + r->dev, s->bw0 + r->dev};
    add_sum(s, u, s->mem[i] ? 3 : 2, r->x - s->roof[i], 1.0);
    s->cnt[r->dev]++, s->cnt[nd + r->group]++;
  }
  for (size_t d = 0; d < nd; d++)
    s->h[(s->bw0 + d) * n + s->bw0 + d] += BW_PRIOR;
  for (size_t d = 0; d < nd; d++)
    if (s->arch[d] != NONE)
      add_term(s, ng + d, s->arch[d], -1.0, 0.0, ARCH_PRIOR);
  for (size_t g = 0; g < ng; g++)
    add_term(s, g, s->bench[g], -1.0, 0.0, s->round_w[s->bench[g]]);
  cholesky_solve(s->h, s->b, n);
  for (size_t d = 0; d < nd; d++) {
    s->eff[d] = s->cnt[d] ? s->b[ng + d] : NAN;
    s->bw_eff[d] = s->cnt[d] ? s->b[s->bw0 + d] : 0.0;
  }
  for (size_t g = 0; g < ng; g++)
    s->scale[g] = s->cnt[nd + g] ? s->b[g] : NAN;
}

/* Efficiencies and scales for the current intensities; returns the
 * penalized sum of squares the solve minimizes. */
static double solve_given_intensity(solve *s) {
  const rs_proj_model *m = s->m;
  size_t ng = m->ngroups;
  for (size_t i = 0; i < m->nrows; i++) {
    const rs_proj_row *r = &m->rows[i];
    s->roof[i] = row_roof(s, r);
    s->mem[i] = bw_side(r->cal->accelerator, s->log_i[s->bench[r->group]], r->cal->precision);
  }
  solve_system(s);
  double sse = 0.0;
  for (size_t i = 0; i < m->nrows; i++) {
    const rs_proj_row *r = &m->rows[i];
    if (used(s, i)) {
      double e = r->x - s->scale[r->group] - s->eff[r->dev] - s->roof[i] -
                 (s->mem[i] ? s->bw_eff[r->dev] : 0.0);
      sse += e * e;
    }
  }
  for (size_t d = 0; d < m->ndevices; d++)
    sse += BW_PRIOR * s->bw_eff[d] * s->bw_eff[d];
  for (size_t d = 0; d < m->ndevices; d++)
    if (s->arch[d] != NONE && !isnan(s->eff[d]))
      sse += ARCH_PRIOR * pow(s->eff[d] - s->b[s->arch[d]], 2);
  for (size_t g = 0; g < ng; g++)
    if (!isnan(s->scale[g]))
      sse += s->round_w[s->bench[g]] * pow(s->scale[g] - s->b[s->bench[g]], 2);
  return sse;
}

static double sse_at(solve *s, size_t k, double log_i) {
  s->log_i[k] = log_i;
  return solve_given_intensity(s);
}

/* The intensity of benchmark k that fits best: a grid, then golden section. */
static void search_intensity(solve *s, size_t k) {
  double best_i = LOG_I_LO, best_sse = INFINITY;
  for (double v = LOG_I_LO; v <= LOG_I_HI + 1e-9; v += LOG_I_STEP) {
    double e = sse_at(s, k, v);
    if (e < best_sse - 1e-12)
      best_sse = e, best_i = v;
  }
  const double g = 0.6180339887498949;
  double a = best_i - LOG_I_STEP, b = best_i + LOG_I_STEP;
  double c = b - g * (b - a), d = a + g * (b - a), fc = sse_at(s, k, c), fd = sse_at(s, k, d);
  for (int i = 0; i < GOLDEN_STEPS; i++) {
    if (fc < fd)
      b = d, d = c, fd = fc, c = b - g * (b - a), fc = sse_at(s, k, c);
    else
      a = c, c = d, fc = fd, d = a + g * (b - a), fd = sse_at(s, k, d);
  }
  double mid = (a + b) / 2.0;
  s->log_i[k] = sse_at(s, k, mid) <= best_sse ? mid : best_i;
  solve_given_intensity(s);
}

/* The unknown of each device's architecture (at the first device of it)
 * and of each group's benchmark (at the first group of its model). */
static void solve_layout(solve *s) {
  const rs_proj_model *m = s->m;
  s->n = m->ngroups + m->ndevices;
  for (size_t d = 0; d < m->ndevices; d++) {
    const char *arch = m->devices[d].accel->architecture;
    s->arch[d] = NONE;
    for (size_t e = 0; arch && e < d && s->arch[d] == NONE; e++) {
      const char *other = m->devices[e].accel->architecture;
      if (other && strcmp(other, arch) == 0)
        s->arch[d] = s->arch[e];
    }
    if (arch && s->arch[d] == NONE)
      s->arch[d] = s->n++;
  }
  s->bw0 = s->n;
  s->n += m->ndevices;
  for (size_t g = 0; g < m->ngroups; g++)
    s->bench[g] = NONE;
  for (size_t i = 0; i < m->nrows; i++) {
    const rs_proj_row *r = &m->rows[i];
    for (size_t j = 0; j < i && s->bench[r->group] == NONE; j++)
      if (strcmp(m->rows[j].cal->model, r->cal->model) == 0)
        s->bench[r->group] = s->bench[m->rows[j].group];
    if (s->bench[r->group] == NONE)
      s->bench[r->group] = s->n++;
  }
}

/* Every benchmark's intensity as the fit left it (3.0 before the fit). */
static void reset_intensity(solve *s) {
  const rs_proj_model *m = s->m;
  for (size_t i = 0; i < m->nrows; i++) {
    size_t k = s->bench[m->rows[i].group];
    s->log_i[k] = m->bench_log_i ? m->bench_log_i[k] : 3.0;
  }
}

static rs_status solve_init(solve *s, const rs_proj_model *m, rs_arena *arena) {
  size_t k = m->ndevices + m->ngroups + 1, most = 3 * k; /* unknowns at most */
  s->m = m;
  s->eff = rs_arena_alloc(arena, k * sizeof(double));
  s->scale = rs_arena_alloc(arena, k * sizeof(double));
  s->cnt = rs_arena_alloc(arena, k * sizeof(size_t));
  s->arch = rs_arena_alloc(arena, k * sizeof(size_t));
  s->bench = rs_arena_alloc(arena, k * sizeof(size_t));
  s->round_w = rs_arena_alloc(arena, most * sizeof(double));
  s->pairs = rs_arena_alloc(arena, most * sizeof(size_t));
  s->roof = rs_arena_alloc(arena, (m->nrows + 1) * sizeof(double));
  s->log_i = rs_arena_alloc(arena, most * sizeof(double));
  s->mem = rs_arena_alloc(arena, (m->nrows + 1) * sizeof(bool));
  s->tmp = rs_arena_alloc(arena, k * sizeof(double));
  s->bw_eff = rs_arena_alloc(arena, k * sizeof(double));
  s->skip_row = s->skip_dev = NONE;
  if (!s->eff || !s->scale || !s->cnt || !s->arch || !s->bench || !s->round_w || !s->pairs ||
      !s->roof || !s->log_i || !s->mem || !s->bw_eff || !s->tmp)
    return RS_NOMEM;
  solve_layout(s);
  reset_intensity(s);
  s->h = rs_arena_alloc(arena, (s->n * s->n + 1) * sizeof(double));
  s->b = rs_arena_alloc(arena, (s->n + 1) * sizeof(double));
  return s->h && s->b ? RS_OK : RS_NOMEM;
}

static int cmp_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

static double median_of(double *v, size_t n) {
  if (n == 0)
    return NAN;
  qsort(v, n, sizeof(*v), cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* The efficiency a device without rows is given: the mean of the fitted
 * devices of its architecture, else the median of all. eff: a solve's
 * efficiencies by device index, or NULL for the fitted model's. */
double rs_proj_prior_eff(const rs_proj_model *m, const double *eff, double median,
                         const rs_accelerator *a) {
  double sum = 0.0;
  size_t n = 0;
  for (size_t j = 0; a->architecture && j < m->ndevices; j++) {
    const char *arch = m->devices[j].accel->architecture;
    double e = eff ? eff[j] : m->devices[j].log_eff;
    if (!isnan(e) && m->devices[j].accel != a && arch && strcmp(arch, a->architecture) == 0)
      sum += e, n++;
  }
  return n ? sum / (double)n : median;
}

/* The median of a solve's efficiencies (its own level: a solve's common
 * level is not the stored model's). */
static double solve_median(const solve *s) {
  size_t n = 0;
  for (size_t d = 0; d < s->m->ndevices; d++)
    if (!isnan(s->eff[d]))
      s->tmp[n++] = s->eff[d];
  return n ? median_of(s->tmp, n) : 0.0;
}

/* ---- leave-one-out ---- */

typedef struct collect {
  double *v[RS_PROJ_PATH_COUNT][RS_WORKLOAD_COUNT + 1];
  size_t n[RS_PROJ_PATH_COUNT][RS_WORKLOAD_COUNT + 1];
  double *chain[RS_WORKLOAD_COUNT + 1];
  size_t nchain[RS_WORKLOAD_COUNT + 1];
} collect;

static void add(collect *c, rs_proj_path p, rs_workload w, double err) {
  c->v[p][w][c->n[p][w]++] = err;
  c->v[p][RS_WORKLOAD_COUNT][c->n[p][RS_WORKLOAD_COUNT]++] = err;
}

static void add_chain(collect *c, rs_workload w, double err) {
  c->chain[w][c->nchain[w]++] = err;
  c->chain[RS_WORKLOAD_COUNT][c->nchain[RS_WORKLOAD_COUNT]++] = err;
}

static rs_proj_error summarize(double *v, size_t n) {
  rs_proj_error e = {n, NAN, NAN};
  if (n) {
    e.median = median_of(v, n);
    e.worst = v[n - 1];
  }
  return e;
}

static rs_status collect_init(collect *c, const rs_proj_model *m, rs_arena *arena) {
  size_t cap = m->nrows * m->nrows + 1;
  memset(c, 0, sizeof(*c));
  for (int w = 0; w <= RS_WORKLOAD_COUNT; w++) {
    for (int p = 0; p < RS_PROJ_PATH_COUNT; p++)
      if ((c->v[p][w] = rs_arena_alloc(arena, cap * sizeof(double))) == NULL)
        return RS_NOMEM;
    if ((c->chain[w] = rs_arena_alloc(arena, cap * sizeof(double))) == NULL)
      return RS_NOMEM;
  }
  return RS_OK;
}

bool rs_proj_measured_log_ratio(const rs_proj_model *m, size_t a, size_t b, rs_workload w,
                                size_t skip, double *out) {
  double sum = 0.0;
  size_t n = 0;
  for (size_t i = 0; i < m->nrows; i++) {
    const rs_proj_row *ri = &m->rows[i];
    if (i == skip || ri->dev != a || ri->cal->workload != w)
      continue;
    for (size_t j = 0; j < m->nrows; j++) {
      const rs_proj_row *rj = &m->rows[j];
      if (j != skip && rj->dev == b && rj->group == ri->group)
        sum += ri->x - rj->x, n++;
    }
  }
  if (n)
    *out = sum / (double)n;
  return n > 0;
}

/* Published and projected ratios of row r's device over every other device
 * of its group, with the row left out of the fit in s. */
static void loo_row(rs_proj_model *m, const solve *s, size_t r, collect *c) {
  const rs_proj_row *a = &m->rows[r];
  rs_workload w = a->cal->workload;
  double ea = s->eff[a->dev];
  bool prior = isnan(ea); /* the row was its device's only one */
  if (prior)
    ea = rs_proj_prior_eff(m, s->eff, solve_median(s), a->cal->accelerator);
  for (size_t j = 0; j < m->nrows; j++) {
    const rs_proj_row *b = &m->rows[j];
    if (j == r || b->group != a->group)
      continue;
    double pub = a->x - b->x, meas;
    double roof = ea + class_roof(s, a, s->bw_eff[a->dev]) - s->eff[b->dev] -
                  class_roof(s, b, s->bw_eff[b->dev]);
    double e_roof = fabs(exp(roof - pub) - 1.0);
    if (!prior)
      add(c, RS_PROJ_ROOFLINE, w, e_roof);
    rs_proj_pair *p = &m->pairs[m->npairs++];
    *p = (rs_proj_pair){r, j, exp(pub), exp(roof), prior ? RS_PROJ_PRIOR : RS_PROJ_ROOFLINE};
    if (rs_proj_measured_log_ratio(m, a->dev, b->dev, w, r, &meas)) {
      double e = fabs(exp(meas - pub) - 1.0);
      add(c, RS_PROJ_MEASURED, w, e);
      add_chain(c, w, e);
      p->projected = exp(meas);
      p->path = RS_PROJ_MEASURED;
    } else {
      add_chain(c, w, e_roof);
    }
  }
}

/* Every device left out whole: its efficiency from its architecture. */
static void loo_device(rs_proj_model *m, solve *s, size_t d, collect *c) {
  s->skip_row = NONE;
  s->skip_dev = d;
  solve_given_intensity(s);
  double eff_d = rs_proj_prior_eff(m, s->eff, solve_median(s), m->devices[d].accel);
  for (size_t i = 0; i < m->nrows; i++) {
    const rs_proj_row *a = &m->rows[i];
    if (a->dev != d)
      continue;
    for (size_t j = 0; j < m->nrows; j++) {
      const rs_proj_row *b = &m->rows[j];
      if (b->group != a->group || b->dev == d)
        continue;
      double roof =
          eff_d + class_roof(s, a, 0.0) - s->eff[b->dev] - class_roof(s, b, s->bw_eff[b->dev]);
      add(c, RS_PROJ_PRIOR, a->cal->workload, fabs(exp(roof - (a->x - b->x)) - 1.0));
    }
  }
  s->skip_dev = NONE;
}

/* The bare spec ratio (every efficiency 1) against every published pair. */
static void spec_errors(const rs_proj_model *m, const solve *s, collect *c) {
  for (size_t i = 0; i < m->nrows; i++)
    for (size_t j = 0; j < m->nrows; j++) {
      const rs_proj_row *a = &m->rows[i], *b = &m->rows[j];
      if (i == j || a->group != b->group)
        continue;
      double roof = class_roof(s, a, 0.0) - class_roof(s, b, 0.0);
      add(c, RS_PROJ_SPEC, a->cal->workload, fabs(exp(roof - (a->x - b->x)) - 1.0));
    }
}

static rs_status leave_one_out(rs_proj_model *m, rs_arena *arena) {
  solve s;
  collect c;
  rs_status st = solve_init(&s, m, arena);
  if (st != RS_OK || (st = collect_init(&c, m, arena)) != RS_OK)
    return st;
  if ((m->pairs = rs_arena_alloc(arena, (m->nrows * m->nrows + 1) * sizeof(*m->pairs))) == NULL)
    return RS_NOMEM;
  for (size_t r = 0; r < m->nrows; r++) {
    reset_intensity(&s);
    s.skip_row = r;
    search_intensity(&s, s.bench[m->rows[r].group]);
    loo_row(m, &s, r, &c);
  }
  reset_intensity(&s);
  for (size_t d = 0; d < m->ndevices; d++)
    loo_device(m, &s, d, &c);
  spec_errors(m, &s, &c);
  for (int w = 0; w <= RS_WORKLOAD_COUNT; w++) {
    for (int p = 0; p < RS_PROJ_PATH_COUNT; p++)
      m->loo[p][w] = summarize(c.v[p][w], c.n[p][w]);
    m->chain[w] = summarize(c.chain[w], c.nchain[w]);
  }
  return RS_OK;
}

/* Stores a solve's efficiencies, shifted so that their mean log is 0 (the
 * common level is free: the shift moves into the group scales). */
static rs_status keep_fit(rs_proj_model *out, rs_arena *arena, const solve *s) {
  double *tmp = rs_arena_alloc(arena, (out->ndevices + 1) * sizeof(double)), mean = 0.0;
  if (tmp == NULL)
    return RS_NOMEM;
  size_t n = 0;
  for (size_t j = 0; j < out->ndevices; j++)
    if (!isnan(s->eff[j]))
      mean += s->eff[j], n++;
  mean = n ? mean / (double)n : 0.0;
  n = 0;
  for (size_t j = 0; j < out->ndevices; j++)
    if (!isnan(s->eff[j])) {
      out->devices[j].log_eff = tmp[n++] = s->eff[j] - mean;
      out->devices[j].log_bw_eff = s->bw_eff[j];
    }
  for (size_t g = 0; g < out->ngroups; g++)
    out->group_scale[g] = s->scale[g] + mean;
  out->prior_log_eff = n ? median_of(tmp, n) : 0.0;
  return RS_OK;
}

/* ---- the fit ---- */

/* Row i is the first of its benchmark (each benchmark searched once). */
static bool first_of_bench(const solve *s, size_t i) {
  for (size_t j = 0; j < i; j++)
    if (s->bench[s->m->rows[j].group] == s->bench[s->m->rows[i].group])
      return false;
  return true;
}

/* Keeps each benchmark's intensity, and each class's: the mean log over the
 * class's rows (what a profile of the class is projected at). */
static rs_status keep_intensity(rs_proj_model *out, rs_arena *arena, const solve *s) {
  if ((out->bench_log_i = rs_arena_alloc(arena, (s->n + 1) * sizeof(double))) == NULL)
    return RS_NOMEM;
  for (size_t i = 0; i < out->nrows; i++)
    out->bench_log_i[s->bench[out->rows[i].group]] = s->log_i[s->bench[out->rows[i].group]];
  for (int w = 0; w < RS_WORKLOAD_COUNT; w++)
    if (out->fitted[w])
      out->log_intensity[w] = class_intensity(s, (rs_workload)w);
  return RS_OK;
}

rs_status rs_proj_fit(rs_proj_model *out, rs_arena *arena, const rs_catalog *cat, bool loo) {
  memset(out, 0, sizeof(*out));
  out->cat = cat;
  for (int w = 0; w < RS_WORKLOAD_COUNT; w++) {
    out->log_intensity[w] = 3.0;
    out->precision[w] = RS_PRECISION_FP16;
  }
  rs_status st = build(out, arena);
  solve s;
  if (st != RS_OK || (st = solve_init(&s, out, arena)) != RS_OK)
    return st;
  for (size_t i = 0; i < out->nrows; i++)
    for (size_t j = 0; j < out->nrows; j++)
      if (out->rows[i].group == out->rows[j].group && out->rows[i].dev != out->rows[j].dev)
        out->fitted[out->rows[i].cal->workload] = true;
  for (int sweep = 0; sweep < 2; sweep++)
    for (size_t i = 0; i < out->nrows; i++)
      if (out->fitted[out->rows[i].cal->workload] && first_of_bench(&s, i))
        search_intensity(&s, s.bench[out->rows[i].group]);
  if (keep_intensity(out, arena, &s) != RS_OK)
    return RS_NOMEM;
  return keep_fit(out, arena, &s) != RS_OK ? RS_NOMEM : loo ? leave_one_out(out, arena) : RS_OK;
}
