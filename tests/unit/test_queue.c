/* Queueing math against independently computed values and a simulation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fastexp.h"
#include "queue.h"
#include "test_support.h"

/* Erlang C for mu = 1 (service 1 s), offered load A = rho c: P(wait),
 * mean wait and p99 wait. Computed outside this code base, with exact
 * rational arithmetic over the textbook sum
 *   C = (A^c / c! . c / (c - A)) / (sum_{k<c} A^k / k! + A^c / c! . c / (c - A)),
 * mean wait C / (c - A), p99 wait ln(C / 0.01) / (c - A) (0 when C <= 0.01). */
static const struct {
  unsigned c;
  double rho, p_wait, mean_wait, p99_wait;
} erlang_table[] = {
    {1, 0.6, 0.59999999999999998, 1.5, 10.23586140555525},
    {1, 0.7, 0.69999999999999996, 2.3333333333333335, 14.161650806831199},
    {1, 0.8, 0.80000000000000004, 4, 21.910133173369406},
    {1, 0.9, 0.90000000000000002, 9, 44.99809670330265},
    {2, 0.6, 0.45000000000000001, 0.5625, 4.7583281122128991},
    {2, 0.7, 0.57647058823529407, 0.96078431372549022, 6.7572320460140025},
    {2, 0.8, 0.71111111111111114, 1.7777777777777777, 10.660608997543745},
    {2, 0.9, 0.85263157894736841, 4.2631578947368425, 22.228712245299945},
    {3, 0.6, 0.35474452554744523, 0.29562043795620441, 2.9740106592220124},
    {3, 0.7, 0.49234449760765553, 0.5470494417862839, 4.3295484187369828},
    {3, 0.8, 0.64719101123595502, 1.0786516853932584, 6.9500939732629954},
    {3, 0.9, 0.81706102117061019, 2.7235367372353672, 14.677095627973873},
    {4, 0.6, 0.28704318936877077, 0.17940199335548174, 2.0981547481557659},
    {4, 0.7, 0.42865431823253736, 0.35721193186044781, 3.1317214300908267},
    {4, 0.8, 0.59643247178740444, 0.74554058973425552, 5.1104761684225073},
    {4, 0.9, 0.78775326429536241, 1.969383160738406, 10.916499578640554},
    {5, 0.6, 0.23615160349854228, 0.11807580174927114, 1.5809444467472951},
    {5, 0.7, 0.37783822669843981, 0.25189215113229318, 2.4212540262148456},
    {5, 0.8, 0.55411255411255411, 0.55411255411255411, 4.0147827393859146},
    {5, 0.9, 0.76249322073293557, 1.5249864414658711, 8.6680170492118904},
    {6, 0.6, 0.19656627358294287, 0.081902613992892864, 1.2410060631644515},
    {6, 0.7, 0.33597769966148627, 0.18665427758971459, 1.9524776081730379},
    {6, 0.8, 0.51777199919628736, 0.43147666599690609, 3.2891249136471927},
    {6, 0.9, 0.7401257002823094, 1.233542833803849, 7.1737249067084443},
    {7, 0.6, 0.16505354220546159, 0.05894769364480771, 1.0013160094583196},
    {7, 0.7, 0.30073871126849377, 0.14320891012785417, 1.6207889170902015},
    {7, 0.8, 0.48593761032513261, 0.34709829308938039, 2.773925106320875},
    {7, 0.9, 0.71995729316454848, 1.0285104188064977, 6.1094382888680148},
    {8, 0.6, 0.13954212873364855, 0.043606915229265172, 0.82368170648931271},
    {8, 0.7, 0.27060293223000226, 0.11275122176250094, 1.3741947744645764},
    {8, 0.8, 0.45764492544201613, 0.2860280784012601, 2.3896928240504711},
    {8, 0.9, 0.70153299014625692, 0.87691623768282123, 5.3133535418109457},
    {9, 0.6, 0.11862395177268575, 0.032951097714634933, 0.68704814650501789},
    {9, 0.7, 0.24452032422289868, 0.090563083045518022, 1.1839679030082082},
    {9, 0.8, 0.43222229587505739, 0.24012349770836522, 2.0924194092706827},
    {9, 0.9, 0.68453512439531072, 0.76059458266145641, 4.6957276270698678},
    {10, 0.6, 0.1012992426874175, 0.025324810671854374, 0.57887346057350608},
    {10, 0.7, 0.22173121588381545, 0.073910405294605144, 1.0329602720264066},
    {10, 0.8, 0.40918015079644354, 0.20459007539822177, 1.8557852162834185},
    {10, 0.9, 0.66873152410769698, 0.66873152410769698, 4.2027975773320145},
    {11, 0.6, 0.086834263830586539, 0.01973505996149694, 0.49123095349389095},
    {11, 0.7, 0.20166664417799587, 0.061111104296362385, 0.91031241359230608},
    {11, 0.8, 0.38814887418970989, 0.17643130644986812, 1.663092667909924},
    {11, 0.9, 0.65394641005493326, 0.5944967364135757, 3.8004002848124641},
    {12, 0.6, 0.074676362352803699, 0.015557575490167437, 0.41887052389626184},
    {12, 0.7, 0.18388863039349967, 0.051080175109305466, 0.80881811437911189},
    {12, 0.8, 0.36884151089807166, 0.15368396287419653, 1.5032424787580918},
    {12, 0.9, 0.64004291310265338, 0.53336909425221113, 3.4657917773622513},
    {13, 0.6, 0.064400514746058929, 0.012384714374242102, 0.35818010250683546},
    {13, 0.7, 0.16805244015061901, 0.043090369269389493, 0.72351050806568507},
    {13, 0.8, 0.35103015667526749, 0.13501159872125673, 1.3685719397057563},
    {13, 0.9, 0.62691199817847643, 0.48223999859882799, 3.1832469876969434},
    {14, 0.6, 0.055674232804587158, 0.0099418272865334223, 0.30659506074353138},
    {14, 0.7, 0.15388169337336777, 0.036638498422230423, 0.65085690222271397},
    {14, 0.8, 0.33453035670657805, 0.11947512739520645, 1.2536223339080403},
    {14, 0.9, 0.61446513927777913, 0.43890367091269933, 2.9415479315567996},
    {15, 0.6, 0.048233707677974344, 0.0080389512796623912, 0.2622455021773652},
    {15, 0.7, 0.14115135970996506, 0.031366968824436681, 0.58827726549870607},
    {15, 0.8, 0.31919042511255974, 0.10639680837085325, 1.1544009252057221},
    {15, 0.9, 0.60262930057960573, 0.40175286705307051, 2.7324781040781034},
    {16, 0.6, 0.041867114197967147, 0.006541736593432366, 0.22373680652448463},
    {16, 0.7, 0.12967579207251126, 0.027015790015106515, 0.53384423653345303},
    {16, 0.8, 0.30488391293001682, 0.095276222790630263, 1.0679206243179735},
    {16, 0.9, 0.59134339387238966, 0.36958962117024358, 2.5498823714847449},
};

static void assert_rel(double got, double want, double rel) {
  if (!(fabs(got - want) <= rel * fabs(want) + 1e-12))
    fail_msg("got %.17g, want %.17g (rel %g)", got, want, rel);
}

static void test_erlang_c_table(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof(erlang_table) / sizeof(erlang_table[0]); i++) {
    unsigned c = erlang_table[i].c;
    double rho = erlang_table[i].rho;
    rs_queue q = {c, rho * c, 1.0, 1.0, 1.0};
    rs_queue_result r = rs_queue_eval(&q);
    assert_true(r.stable);
    assert_rel(r.utilization, rho, 1e-12);
    assert_rel(rs_erlang_c(c, rho * c), erlang_table[i].p_wait, 1e-12);
    assert_rel(r.p_wait, erlang_table[i].p_wait, 1e-12);
    assert_rel(r.mean_wait_s, erlang_table[i].mean_wait, 1e-12);
    assert_rel(rs_queue_wait_quantile(&q, 0.99), erlang_table[i].p99_wait, 1e-11);
  }
}

static void test_erlang_edges(void **state) {
  (void)state;
  assert_true(rs_erlang_c(4, 0.0) == 0.0);
  assert_true(rs_erlang_c(4, 4.0) == 1.0); /* saturated */
  assert_true(rs_erlang_c(4, 9.0) == 1.0); /* overloaded */
  assert_true(rs_erlang_b(0, 2.0) == 1.0);
  /* M/M/1: C = rho */
  assert_rel(rs_erlang_c(1, 0.3), 0.3, 1e-15);
  /* Large c stays finite (a factorial sum would overflow at c > 170). */
  double big = rs_erlang_c(1000, 950.0);
  assert_true(big > 0 && big < 1);
  /* Zero traffic: no wait at all. */
  rs_queue idle = {2, 0.0, 0.01, 1.0, 1.0};
  rs_queue_result r = rs_queue_eval(&idle);
  assert_true(r.stable && r.utilization == 0.0 && r.mean_wait_s == 0.0);
  assert_true(rs_queue_wait_quantile(&idle, 0.99) == 0.0);
  /* Unstable: infinite waits. */
  rs_queue over = {1, 120.0, 0.01, 1.0, 1.0};
  r = rs_queue_eval(&over);
  assert_false(r.stable);
  assert_true(isinf(r.mean_wait_s) && isinf(rs_queue_wait_quantile(&over, 0.99)));
  /* Allen-Cunneen scales the mean by (ca2 + cs2) / 2: constant service halves it. */
  rs_queue mm = {3, 2.4, 1.0, 1.0, 1.0}, md = {3, 2.4, 1.0, 1.0, 0.0};
  assert_rel(rs_queue_eval(&md).mean_wait_s, rs_queue_eval(&mm).mean_wait_s / 2, 1e-15);
  assert_rel(rs_queue_wait_quantile(&md, 0.99), rs_queue_wait_quantile(&mm, 0.99) / 2, 1e-15);
}

static void test_normal_quantile(void **state) {
  (void)state;
  assert_rel(rs_normal_quantile(0.99), 2.3263478740408408, 1e-13);
  assert_rel(rs_normal_quantile(0.95), 1.6448536269514722, 1e-13);
  assert_rel(rs_normal_quantile(0.999), 3.0902323061678132, 1e-13);
  assert_rel(rs_normal_quantile(0.01), -2.3263478740408408, 1e-13);
  assert_true(fabs(rs_normal_quantile(0.5)) < 1e-15);
  assert_true(isnan(rs_normal_quantile(1.5)));
}

static void test_lognormal_cv2(void **state) {
  (void)state;
  /* sigma = 1: p99/p50 = e^2.326..., cs2 = e - 1 */
  assert_rel(rs_lognormal_cv2(10.0, 10.0 * exp(2.3263478740408408), 0.99), exp(1.0) - 1.0, 1e-12);
  /* equal quantiles: no variability */
  assert_true(rs_lognormal_cv2(8.0, 8.0, 0.99) == 0.0);
  assert_true(isnan(rs_lognormal_cv2(8.0, 7.0, 0.99)));
  assert_true(isnan(rs_lognormal_cv2(0.0, 7.0, 0.99)));
  assert_true(isnan(rs_lognormal_cv2(1.0, 7.0, 0.4)));
}

/* rs_queue_response_quantile at its exact limits. */
static void test_response_limits(void **state) {
  (void)state;
  /* No traffic: R = S, the lognormal quantile s50 exp(z_p sigma). */
  rs_queue idle = {4, 0.0, 0.02, 1.0, 2.0};
  double sigma = sqrt(log(3.0));
  assert_rel(rs_queue_response_quantile(&idle, 0.015, 2.0, 0.99),
             0.015 * exp(2.3263478740408408 * sigma), 1e-9);
  /* Constant S = d beside an M/G/1 wait with lognormal holds of cs2 = 1/2: there
   * Takacs' moments give the conditional wait a squared coefficient of variation
   * of exactly 1, so P(W > x) = rho exp(-x / m), m = E[S] (1 + cs2) / (2 (1 - rho)),
   * and the p-quantile of d + W is d + m ln(rho / (1 - p)). */
  rs_queue mg1 = {1, 60.0, 0.01, 1.0, 0.5};
  double m = 0.01 * 1.5 / (2 * 0.4);
  assert_rel(rs_queue_response_quantile(&mg1, 0.004, 0.0, 0.99), 0.004 + m * log(0.6 / 0.01), 1e-9);
  assert_rel(rs_queue_response_quantile(&mg1, 0.004, 0.0, 0.95), 0.004 + m * log(0.6 / 0.05), 1e-9);
  rs_queue mm1 = {1, 60.0, 0.01, 1.0, 1.0};
  /* The quantile of the sum lies between the larger part and the sum of quantiles. */
  double s99 = 0.008 * exp(2.3263478740408408 * sqrt(log(2.0)));
  double r99 = rs_queue_response_quantile(&mm1, 0.008, 1.0, 0.99);
  double w99 = rs_queue_wait_quantile(&mm1, 0.99);
  assert_true(r99 > fmax(s99, w99) && r99 < s99 + w99);
  /* Unstable: infinite; bad input: NaN. */
  rs_queue over = {2, 300.0, 0.01, 1.0, 1.0};
  assert_true(isinf(rs_queue_response_quantile(&over, 0.01, 1.0, 0.99)));
  assert_true(isnan(rs_queue_response_quantile(NULL, 0.01, 1.0, 0.99)));
  assert_true(isnan(rs_queue_response_quantile(&mm1, 0.0, 1.0, 0.99)));
  assert_true(isnan(rs_queue_response_quantile(&mm1, 0.01, -1.0, 0.99)));
  assert_true(isnan(rs_queue_response_quantile(&mm1, 0.01, 1.0, 1.0)));
  assert_true(isnan(rs_queue_response_quantile(&mm1, NAN, 1.0, 0.99)));
}

/* A subset of bench/queue_sim's table (bench/README.md): Poisson arrivals, c
 * servers, lognormal service with mean 1 s and squared CV cs2, FCFS; the mean
 * over b batches of the batches' p95 and p99 response times, each batch 500000
 * requests after 50000 warm-up, seeded 1000003 c + 1009 (1000 rho) +
 * (1000 cs2) + 7919 k for batch k (queue_sim with its defaults). */
static const struct {
  unsigned c, batches;
  double rho, cs2, p95, p99;
} sim_table[] = {
    {1, 6, 0.30, 4.0, 8.1363, 20.2874},     {1, 12, 0.70, 1.0, 10.3817, 16.7027},
    {1, 128, 0.90, 4.0, 81.4370, 136.5256}, {2, 2, 0.50, 1.0, 3.7066, 6.0428},
    {2, 126, 0.90, 4.0, 39.7783, 67.3261},  {4, 2, 0.70, 0.1, 2.1525, 2.8573},
    {4, 63, 0.90, 4.0, 19.6220, 33.2334},   {8, 5, 0.80, 2.0, 4.1316, 7.3983},
    {8, 10, 0.90, 0.5, 3.9491, 5.6759},     {16, 16, 0.90, 4.0, 5.6569, 10.4113},
};

static int cmp_abs(const void *a, const void *b) {
  double x = fabs(*(const double *)a), y = fabs(*(const double *)b);
  return (x > y) - (x < y);
}

/* The formula beside the simulation: never more than 3% under it, at most 25%
 * over it, and a median absolute error within 10% (the bench's bounds). */
static void test_response_vs_simulation(void **state) {
  (void)state;
  enum { N = sizeof(sim_table) / sizeof(sim_table[0]) };
  double err[2 * N];
  for (size_t i = 0; i < N; i++) {
    double cs2 = sim_table[i].cs2, sim[2] = {sim_table[i].p95, sim_table[i].p99};
    rs_queue q = {sim_table[i].c, sim_table[i].rho * sim_table[i].c, 1.0, 1.0, cs2};
    for (int k = 0; k < 2; k++) {
      double p = k ? 0.99 : 0.95;
      double m = rs_queue_response_quantile(&q, 1.0 / sqrt(1.0 + cs2), cs2, p);
      double e = m / sim[k] - 1;
      if (!(e >= -0.03 && e <= 0.25))
        fail_msg("c=%u rho=%.2f cs2=%.1f p%.0f: model %.4f sim %.4f (%+.1f%%)", sim_table[i].c,
                 sim_table[i].rho, cs2, p * 100, m, sim[k], e * 100);
      err[2 * i + k] = e;
    }
  }
  qsort(err, 2 * N, sizeof(double), cmp_abs);
  assert_true(fabs(err[N - 1]) + fabs(err[N]) <= 2 * 0.10);
}

/* The tail and the quantile agree, and latency only grows with traffic. */
static void test_response_tail(void **state) {
  (void)state;
  rs_queue q = {4, 300.0, 0.01, 1.0, 2.0};
  double r99 = rs_queue_response_quantile(&q, 0.006, 2.0, 0.99);
  assert_rel(rs_queue_response_tail(&q, 0.006, 2.0, r99), 0.01, 1e-6);
  assert_true(rs_queue_response_tail(&q, 0.006, 2.0, 0.0) == 1.0);
  assert_true(rs_queue_response_tail(&q, 0.006, 2.0, INFINITY) == 0.0);
  assert_true(isnan(rs_queue_response_tail(&q, 0.006, 2.0, NAN)));
  rs_queue over = {4, 500.0, 0.01, 1.0, 2.0};
  assert_true(rs_queue_response_tail(&over, 0.006, 2.0, 10.0) == 1.0);
  double last = 0;
  for (int i = 0; i <= 38; i++) {
    rs_queue qi = {4, 10.0 * i, 0.01, 1.0, 2.0};
    double r = rs_queue_response_quantile(&qi, 0.006, 2.0, 0.99);
    assert_true(r >= last);
    last = r;
  }
}

/* Far corners stay finite, ordered and at least the service quantile. */
static void test_response_extremes(void **state) {
  (void)state;
  static const struct {
    unsigned c;
    double rho, cs2, s_cs2;
  } cases[] = {{1, 0.999, 4.0, 4.0}, {1, 0.9, 0.0, 0.0},     {1, 0.5, 1e-9, 1e-9},
               {2, 1e-6, 0.1, 0.1},  {1000, 0.95, 2.0, 2.0}, {64, 0.99, 0.0, 0.5},
               {3, 0.01, 0.1, 0.1},  {8, 0.9, 16.0, 16.0}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    rs_queue q = {cases[i].c, cases[i].rho * cases[i].c * 100.0, 0.01, 1.0, cases[i].cs2};
    double s_cs2 = cases[i].s_cs2, s50 = 0.01 / sqrt(1 + s_cs2), prev = 0;
    for (int k = 0; k < 3; k++) {
      double p = k == 0 ? 0.5 : k == 1 ? 0.95 : 0.99;
      double r = rs_queue_response_quantile(&q, s50, s_cs2, p);
      double s = s50 * exp(sqrt(log1p(s_cs2)) * rs_normal_quantile(p));
      if (!(isfinite(r) && r >= s * (1 - 1e-9) && r >= prev))
        fail_msg("case %zu p%.0f: %g (service quantile %g, previous %g)", i, p * 100, r, s, prev);
      prev = r;
    }
  }
}

/* ---- a discrete-event simulation of a FCFS multi-server queue ---- */

typedef struct sim_result {
  double p_wait, mean_wait, p99_wait;
} sim_result;

/* Poisson arrivals at rate lambda, c servers, service times exponential
 * (deterministic = false) or constant 1/mu. Each arrival takes the server
 * that frees first; its wait is how long that takes. */
static sim_result simulate(unsigned c, double lambda, double mu, bool deterministic, size_t n,
                           uint64_t seed) {
  rng r = {seed};
  double *free_at = calloc(c, sizeof(double));
  double *waits = malloc(n * sizeof(double));
  size_t warm = n / 20, waited = 0;
  double t = 0, sum = 0;
  sim_result out;
  assert_non_null(free_at);
  assert_non_null(waits);
  for (size_t i = 0; i < n + warm; i++) {
    t += -log(rng_uniform(&r)) / lambda;
    unsigned best = 0;
    for (unsigned k = 1; k < c; k++)
      if (free_at[k] < free_at[best])
        best = k;
    double start = free_at[best] > t ? free_at[best] : t;
    double service = deterministic ? 1.0 / mu : -log(rng_uniform(&r)) / mu;
    free_at[best] = start + service;
    if (i >= warm) {
      double w = start - t;
      waits[i - warm] = w;
      sum += w;
      waited += w > 0;
    }
  }
  qsort(waits, n, sizeof(double), cmp_double);
  out.p_wait = (double)waited / (double)n;
  out.mean_wait = sum / (double)n;
  out.p99_wait = waits[(size_t)(0.99 * (double)n)];
  free(free_at);
  free(waits);
  return out;
}

static void test_simulation_mmc(void **state) {
  (void)state;
  static const unsigned cs[] = {1, 2, 4, 8, 16};
  static const double rhos[] = {0.6, 0.75, 0.9};
  for (size_t i = 0; i < 5; i++) {
    for (size_t j = 0; j < 3; j++) {
      unsigned c = cs[i];
      double mu = 50.0, lambda = rhos[j] * c * mu; /* 20 ms service */
      rs_queue q = {c, lambda, 1.0 / mu, 1.0, 1.0};
      rs_queue_result m = rs_queue_eval(&q);
      sim_result s = simulate(c, lambda, mu, false, 400000, 7 + i * 3 + j);
      if (fabs(s.p_wait - m.p_wait) > 0.02)
        fail_msg("c=%u rho=%.2f: P(wait) sim %.4f model %.4f", c, rhos[j], s.p_wait, m.p_wait);
      /* Tolerances cover the simulation's own noise at 400k customers. */
      double tol = rhos[j] > 0.85 ? 0.12 : 0.06;
      if (fabs(s.mean_wait - m.mean_wait_s) > tol * m.mean_wait_s)
        fail_msg("c=%u rho=%.2f: mean wait sim %.5f model %.5f", c, rhos[j], s.mean_wait,
                 m.mean_wait_s);
      double p99 = rs_queue_wait_quantile(&q, 0.99);
      if (fabs(s.p99_wait - p99) > tol * p99 + 1e-4)
        fail_msg("c=%u rho=%.2f: p99 wait sim %.5f model %.5f", c, rhos[j], s.p99_wait, p99);
    }
  }
}

/* Constant service: M/D/1 is exact under Allen-Cunneen (Pollaczek-Khinchine);
 * for M/D/c it is an approximation the simulation bounds. */
static void test_simulation_mdc(void **state) {
  (void)state;
  double mu = 100.0;
  rs_queue q1 = {1, 70.0, 1.0 / mu, 1.0, 0.0};
  sim_result s = simulate(1, 70.0, mu, true, 400000, 99);
  assert_rel(s.mean_wait, rs_queue_eval(&q1).mean_wait_s, 0.05);
  assert_rel(s.mean_wait, 0.7 / (2.0 * mu * 0.3), 0.05);
  rs_queue q4 = {4, 320.0, 1.0 / mu, 1.0, 0.0};
  s = simulate(4, 320.0, mu, true, 400000, 100);
  assert_rel(s.mean_wait, rs_queue_eval(&q4).mean_wait_s, 0.15);
  /* and the p99 approximation errs on the safe (long) side */
  assert_true(rs_queue_wait_quantile(&q4, 0.99) >= 0.9 * s.p99_wait);
}

/* rs_fast_exp within its stated bound of libm's exp over its whole range:
 * a dense grid from -708 to 709, random points of the reduced range, the
 * ends and the clamping beyond them. */
static void test_fast_exp(void **state) {
  (void)state;
  double worst = 0;
  for (long i = 0; i <= 1417000; i++) {
    double x = -708.0 + (double)i * 1e-3;
    worst = fmax(worst, fabs(rs_fast_exp(x) / exp(x) - 1.0));
  }
  rng r = {42};
  for (int i = 0; i < 1000000; i++) {
    double x = (rng_uniform(&r) - 0.5) * 2.0;
    worst = fmax(worst, fabs(rs_fast_exp(x) / exp(x) - 1.0));
  }
  assert_true(worst <= RS_FAST_EXP_REL);
  assert_true(rs_fast_exp(0.0) == 1.0);
  assert_true(fabs(rs_fast_exp(-708.0) / exp(-708.0) - 1.0) <= RS_FAST_EXP_REL);
  assert_true(fabs(rs_fast_exp(709.0) / exp(709.0) - 1.0) <= RS_FAST_EXP_REL);
  assert_true(rs_fast_exp(-1000.0) == rs_fast_exp(-708.0) && rs_fast_exp(-1000.0) < 3.4e-308);
  assert_true(rs_fast_exp(-INFINITY) == rs_fast_exp(-708.0));
  assert_true(rs_fast_exp(1000.0) == rs_fast_exp(709.0));
  assert_true(isnan(rs_fast_exp(NAN)));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_erlang_c_table),  cmocka_unit_test(test_erlang_edges),
      cmocka_unit_test(test_normal_quantile), cmocka_unit_test(test_lognormal_cv2),
      cmocka_unit_test(test_simulation_mmc),  cmocka_unit_test(test_simulation_mdc),
      cmocka_unit_test(test_response_limits), cmocka_unit_test(test_response_vs_simulation),
      cmocka_unit_test(test_response_tail),   cmocka_unit_test(test_response_extremes),
      cmocka_unit_test(test_fast_exp),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
