/* queue.c's fast paths against the slower forms they replaced, kept here as
 * references: the incomplete gamma function by Lentz's continued fraction,
 * the response-time quantile by plain bisection on the tail, and the tail's
 * cheap lower bound against the tail itself. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "queue.h"
#include "test_support.h"

/* Q(a, x) as queue.c computed it before: the series of P below a + 1, the
 * continued fraction of Q by the modified Lentz method above. */
static double gamma_q_lentz(double a, double lga, double x) {
  if (!(x > 0))
    return 1.0;
  double front = exp(a * log(x) - x - lga);
  if (x < a + 1) {
    double term = 1.0 / a, sum = term;
    for (int n = 1; n < 200 && term > sum * 1e-15; n++) {
      term *= x / (a + n);
      sum += term;
    }
    return fmax(0.0, 1.0 - front * sum);
  }
  const double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, f = d;
  for (int n = 1; n < 200; n++) {
    double an = -n * (n - a), delta;
    b += 2;
    d = an * d + b;
    d = fabs(d) < tiny ? tiny : d;
    c = b + an / c;
    c = fabs(c) < tiny ? tiny : c;
    d = 1 / d;
    delta = d * c;
    f *= delta;
    if (fabs(delta - 1) < 1e-15)
      break;
  }
  return front * f;
}

/* rs_gamma_q_scaled_n (the loops of several arguments side by side, in
 * vector lanes where the processor has them) against rs_gamma_q_scaled one
 * at a time, bit for bit, value and density: random shapes (integers
 * among them, where a term of the fraction is 0), blocks of 1 to 40
 * arguments laid out as a tail's nodes lie (neighbours, series and fraction
 * both) or scattered (1e-6 to 800, 0, negative, at a + 1, past the
 * front's underflow), weights from e^0 to e^-800. */
static void test_gamma_q_lanes(void **state) {
  (void)state;
  rng r = {29};
  long n = 0, kinds[3] = {0};
  for (int block = 0; block < 100000; block++) {
    double a = rng_next(&r) % 8 == 0 ? (double)(1 + rng_next(&r) % 20)
                                     : 0.05 * exp(log(1000.0) * rng_uniform(&r));
    double lga = lgamma(a), x[RS_GAMMA_BLOCK], ln_k[RS_GAMMA_BLOCK];
    double q[RS_GAMMA_BLOCK], dens[RS_GAMMA_BLOCK];
    int m = 1 + (int)(rng_next(&r) % RS_GAMMA_BLOCK);
    bool nodes = rng_next(&r) % 2 == 0;
    double top = (a + 1) * 8 * rng_uniform(&r);
    for (int i = 0; i < m; i++) {
      double z = 13 * rng_uniform(&r) - 6.5, v = (i + 1.0) / m;
      uint64_t k = rng_next(&r) % 16;
      x[i] = nodes    ? top * (1 - v * v * v)
             : k == 0 ? 0.0
             : k == 1 ? -1.0
             : k == 2 ? a + 1
             : k == 3 ? 700 + 300 * rng_uniform(&r)
                      : 1e-6 * exp(log(8e8) * rng_uniform(&r));
      ln_k[i] = k == 4 ? 0.0 : k == 5 ? -800.0 : -z * z / 2;
    }
    rs_gamma_q_scaled_n(a, lga, x, ln_k, q, dens, m);
    for (int i = 0; i < m; i++, n++) {
      double d, want = rs_gamma_q_scaled(a, lga, x[i], ln_k[i], &d);
      if (memcmp(&want, &q[i], sizeof(want)) != 0 || memcmp(&d, &dens[i], sizeof(d)) != 0)
        fail_msg("a %.17g x %.17g ln_k %.17g: %.17g (density %.17g), one at a time %.17g (%.17g)",
                 a, x[i], ln_k[i], q[i], dens[i], want, d);
      kinds[!(x[i] > 0) ? 0 : x[i] < a + 1 ? 1 : 2]++;
    }
  }
  assert_true(kinds[0] > 10000 && kinds[1] > 100000 && kinds[2] > 100000);
  print_message(
      "gamma lanes: %ld arguments the same (%ld not positive, %ld series, %ld fraction)\n", n,
      kinds[0], kinds[1], kinds[2]);
}

/* A dense grid of shapes (0.05 to 50: the wait's shape is 1 / cd2, between
 * 0.07 for the heaviest service and 20) and arguments (1e-6 to 800, past
 * where Q underflows): the two agree to 5e-14 relative (2.1e-14 the worst
 * seen), and both underflow together. */
static void test_gamma_q_vs_lentz(void **state) {
  (void)state;
  double worst = 0;
  long n = 0;
  for (double la = log(0.05); la <= log(50.0); la += 0.03) {
    double a = exp(la), lga = lgamma(a);
    for (double lx = log(1e-6); lx <= log(800.0); lx += 0.004) {
      double x = exp(lx), want = gamma_q_lentz(a, lga, x), got = rs_gamma_q(a, lga, x);
      n++;
      if (want < 1e-300) {
        assert_true(got < 1e-290);
        continue;
      }
      worst = fmax(worst, fabs(got / want - 1));
    }
  }
  assert_true(n > 500000);
  if (!(worst <= 5e-14))
    fail_msg("worst relative difference %g", worst);
}

/* Closed forms: Q(1, x) = e^-x, Q(2, x) = (1 + x) e^-x, Q(1/2, x) = erfc(sqrt x). */
static void test_gamma_q_closed_forms(void **state) {
  (void)state;
  for (double x = 1e-3; x < 600; x *= 1.07) {
    double e1 = exp(-x), e2 = (1 + x) * exp(-x), eh = erfc(sqrt(x));
    assert_true(fabs(rs_gamma_q(1, 0, x) / e1 - 1) < 1e-13);
    assert_true(fabs(rs_gamma_q(2, 0, x) / e2 - 1) < 1e-13);
    if (eh > 1e-300)
      assert_true(fabs(rs_gamma_q(0.5, lgamma(0.5), x) / eh - 1) < 1e-12);
  }
  assert_true(rs_gamma_q(1, 0, 0) == 1.0 && rs_gamma_q(1, 0, -1) == 1.0);
  assert_true(rs_gamma_q(1, 0, 1e6) == 0.0);
}

/* The p-quantile by bisection on ln t of the public tail, to 1e-15. */
static double quantile_bisect(const rs_queue *q, double s50, double cs2, double p) {
  double lo = log(s50) + sqrt(log1p(cs2)) * rs_normal_quantile(p), hi = lo;
  while (rs_queue_response_tail(q, s50, cs2, exp(hi)) > 1 - p)
    hi += 1;
  if (hi == lo)
    return exp(lo);
  while (hi - lo > 1e-15 * fmax(1, fabs(lo))) {
    double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi)
      break;
    if (rs_queue_response_tail(q, s50, cs2, exp(mid)) > 1 - p)
      lo = mid;
    else
      hi = mid;
  }
  return exp(0.5 * (lo + hi));
}

/* The regula falsi from its guessed bracket finds the root bisection finds,
 * to 1e-12 relative, over servers, loads, wait and service variability
 * and three SLO levels; and the tail's floor is never above the tail (by
 * more than the quadrature's error). */
static void test_quantile_vs_bisection(void **state) {
  (void)state;
  static const unsigned cs[] = {1, 2, 4, 8, 16, 64};
  static const double rhos[] = {0.02, 0.1, 0.3, 0.5, 0.7, 0.85, 0.95, 0.99};
  static const double cs2s[] = {0, 0.1, 0.5, 1, 2, 4, 10};
  static const double ps[] = {0.95, 0.99, 0.999};
  double worst = 0;
  for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++)
    for (size_t j = 0; j < sizeof(rhos) / sizeof(rhos[0]); j++)
      for (size_t k = 0; k < sizeof(cs2s) / sizeof(cs2s[0]); k++)
        for (size_t l = 0; l < sizeof(ps) / sizeof(ps[0]); l++) {
          double hold = 0.01, cs2 = cs2s[k], s50 = 0.012 / sqrt(1 + cs2);
          rs_queue q = {cs[i], rhos[j] * cs[i] / hold, hold, 1.0, cs2};
          double got = rs_queue_response_quantile(&q, s50, cs2, ps[l]);
          double want = quantile_bisect(&q, s50, cs2, ps[l]);
          worst = fmax(worst, fabs(got / want - 1));
          for (double f = 0.5; f < 4; f *= 1.3) {
            double tail = rs_queue_response_tail(&q, s50, cs2, want * f);
            double floor_ = rs_queue_response_tail_floor(&q, s50, cs2, want * f);
            if (!(floor_ <= tail * (1 + 1e-4)))
              fail_msg("floor %g above tail %g: c %u rho %g cs2 %g p %g f %g", floor_, tail, cs[i],
                       rhos[j], cs2, ps[l], f);
          }
        }
  if (!(worst <= 1e-12))
    fail_msg("worst relative difference %g", worst);
}

/* The floor's edges are the tail's; where the wait dominates it is close to
 * the tail, which is what makes it worth asking, and below it where S is
 * narrow beside t (the 40-panel tail once fell about 5% under it here). */
static void test_tail_floor(void **state) {
  (void)state;
  rs_queue q = {4, 300.0, 0.01, 1.0, 2.0}, over = {4, 500.0, 0.01, 1.0, 2.0};
  assert_true(rs_queue_response_tail_floor(&q, 0.006, 2.0, 0.0) == 1.0);
  assert_true(rs_queue_response_tail_floor(&q, 0.006, 2.0, INFINITY) == 0.0);
  assert_true(isnan(rs_queue_response_tail_floor(&q, 0.006, 2.0, NAN)));
  assert_true(isnan(rs_queue_response_tail_floor(&q, -1, 2.0, 0.1)));
  assert_true(rs_queue_response_tail_floor(&over, 0.006, 2.0, 10.0) == 1.0);
  rs_queue busy = {2, 190.0, 0.01, 1.0, 1.0};
  double t = 0.2, tail = rs_queue_response_tail(&busy, 0.001, 0.1, t);
  double lb = rs_queue_response_tail_floor(&busy, 0.001, 0.1, t);
  assert_true(lb > tail / 2 && lb <= tail * (1 + 1e-4));
  /* no traffic: the floor is S's own tail, which is the whole tail */
  rs_queue idle = {2, 0.0, 0.01, 1.0, 1.0};
  assert_true(fabs(rs_queue_response_tail_floor(&idle, 0.01, 1.0, 0.03) -
                   rs_queue_response_tail(&idle, 0.01, 1.0, 0.03)) < 1e-15);
}

/* The 40-panel tail against its integral converged (20,000 panels over the
 * whole range of S, rs_queue_response_tail_ref), over servers, loads, wait
 * against service time and service variability down to a narrow S beside a
 * long t, where the integral once ran its nodes up to z(t) and left a few on
 * S's spread: tails 25% off, and quantiles from 0.28 to 3.2 times the right one. */
static void test_tail_vs_converged(void **state) {
  (void)state;
  static const unsigned cs[] = {1, 2, 8, 64};
  static const double rhos[] = {0.1, 0.5, 0.8, 0.95};
  static const double cs2s[] = {0.005, 0.02, 0.2, 1, 4};
  static const double holds[] = {0.01, 0.2, 1, 5, 30, 100}; /* x the median service */
  double worst = 0;
  for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++)
    for (size_t j = 0; j < sizeof(rhos) / sizeof(rhos[0]); j++)
      for (size_t k = 0; k < sizeof(cs2s) / sizeof(cs2s[0]); k++)
        for (size_t l = 0; l < sizeof(holds) / sizeof(holds[0]); l++) {
          double s50 = 0.02, hold = s50 * holds[l];
          rs_queue q = {cs[i], rhos[j] * cs[i] / hold, hold, 1.0, cs2s[k]};
          double q99 = rs_queue_response_quantile(&q, s50, cs2s[k], 0.99);
          for (double f = 0.6; f < 3; f *= 1.5) {
            double ref = rs_queue_response_tail_ref(&q, s50, cs2s[k], q99 * f, 20000);
            double got = rs_queue_response_tail(&q, s50, cs2s[k], q99 * f);
            if (!(ref > 1e-6))
              continue;
            double e = fabs(got / ref - 1);
            if (!(e <= 2e-4))
              fail_msg("tail %g, converged %g: c %u rho %g cs2 %g hold %g t %g", got, ref, cs[i],
                       rhos[j], cs2s[k], hold, q99 * f);
            worst = fmax(worst, e);
          }
        }
  assert_true(worst > 0); /* the two quadratures are not the same sum */
  rs_queue q = {2, 100.0, 0.01, 1.0, 1.0};
  assert_true(isnan(rs_queue_response_tail_ref(&q, 0.005, 1.0, 0.1, 7)));
  assert_true(isnan(rs_queue_response_tail_ref(&q, -1, 1.0, 0.1, 20)));
  assert_true(rs_queue_response_tail_ref(&q, 0.005, 1.0, INFINITY, 20) == 0.0);
}

/* The quantile tests' grid, 14,400 points: servers 1-128, loads from nearly
 * idle (the wait under 1e-14 of the tail, where the reference bisected 45
 * times) to 0.995, wait variability from constant to heavy, service narrow
 * to heavy (and constant) on either side of the hold time, the median to the
 * p99.99. */
typedef struct grid_pt {
  rs_queue q;
  double rho, s50, scs2, p;
} grid_pt;
enum { GRID_N = 9 * 8 * 5 * 5 * 4 * 2 };

static size_t quantile_grid(grid_pt *g) {
  static const unsigned cs[] = {1, 2, 3, 5, 8, 16, 32, 64, 128};
  static const double rhos[] = {0.001, 0.05, 0.2, 0.5, 0.8, 0.9, 0.97, 0.995};
  static const double cs2s[] = {0, 0.005, 0.1, 1, 4};
  static const double s50s[] = {0.01, 0.3, 1, 5, 100}; /* x the hold time */
  static const double ps[] = {0.5, 0.95, 0.99, 0.9999};
  static const double scs2s[] = {-1, 0}; /* -1: the queue's own cs2 */
  size_t n = 0;
  for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++)
    for (size_t j = 0; j < sizeof(rhos) / sizeof(rhos[0]); j++)
      for (size_t k = 0; k < sizeof(cs2s) / sizeof(cs2s[0]); k++)
        for (size_t l = 0; l < sizeof(s50s) / sizeof(s50s[0]); l++)
          for (size_t m = 0; m < sizeof(ps) / sizeof(ps[0]); m++)
            for (size_t o = 0; o < sizeof(scs2s) / sizeof(scs2s[0]); o++) {
              double hold = 0.004;
              g[n] = (grid_pt){
                  .q = {cs[i], rhos[j] * cs[i] / hold, hold, 1.0, cs2s[k]},
                  .rho = rhos[j],
                  .s50 = hold * s50s[l],
                  .scs2 = scs2s[o] < 0 ? cs2s[k] : 0.3 * (1 + (double)(l + m) / 4),
                  .p = ps[m],
              };
              n++;
            }
  return n;
}

static grid_pt grid[GRID_N];

/* Whether got, off the other search's answer by more than 1e-13, is at the
 * one place the root is not defined that finely: a constant S and P(W > 0)
 * equal to 1 - p (c = 1, rho = 1 - p), where P(R > t) = P(W > 0) Q(t - S)
 * stays within 1e-14 of 1 - p for 1e-8 of t past S. Any t there meets the
 * searches' stop; got must. */
static bool flat_root(const grid_pt *g, double got) {
  double c_wait = rs_erlang_c(g->q.servers, g->rho * g->q.servers), tail = 1 - g->p;
  double tg = rs_queue_response_tail(&g->q, g->s50, g->scs2, got);
  return g->scs2 == 0 && fabs(c_wait / tail - 1) < 1e-12 && fabs(log(tg / tail)) <= 1e-14;
}

/* The Newton search against the regula falsi it replaced
 * (rs_queue_response_quantile_ref) over the grid. Both stop within about
 * 1e-14 of the same root of the same 40-panel tail, so they agree to 1e-13
 * relative: 10 significant digits print the same. The edges (unstable, bad
 * input) are the same. */
static void test_quantile_vs_ref(void **state) {
  (void)state;
  double worst = 0;
  long n = (long)quantile_grid(grid), flat = 0;
  for (long i = 0; i < n; i++) {
    const grid_pt *g = &grid[i];
    double got = rs_queue_response_quantile(&g->q, g->s50, g->scs2, g->p);
    double want = rs_queue_response_quantile_ref(&g->q, g->s50, g->scs2, g->p);
    double e = fabs(got / want - 1);
    if (!(e <= 1e-13)) {
      if (!flat_root(g, got) || !flat_root(g, want))
        fail_msg("quantile %.17g, reference %.17g: c %u rho %g cs2 %g s50 %g scs2 %g p %g", got,
                 want, g->q.servers, g->rho, g->q.cs2, g->s50, g->scs2, g->p);
      flat++;
      continue;
    }
    worst = fmax(worst, e);
  }
  assert_true(n >= 10000);
  rs_queue over = {2, 300.0, 0.01, 1.0, 1.0}, q = {2, 100.0, 0.01, 1.0, 1.0};
  assert_true(isinf(rs_queue_response_quantile(&over, 0.01, 1.0, 0.99)) &&
              isinf(rs_queue_response_quantile_ref(&over, 0.01, 1.0, 0.99)));
  assert_true(isnan(rs_queue_response_quantile(&q, 0.01, 1.0, 1.0)) &&
              isnan(rs_queue_response_quantile_ref(&q, 0.01, 1.0, 1.0)));
  assert_true(isnan(rs_queue_response_quantile(&q, -1, 1.0, 0.99)) &&
              isnan(rs_queue_response_quantile_ref(&q, -1, 1.0, 0.99)));
  /* no traffic: both give S's own quantile */
  rs_queue idle = {2, 0.0, 0.01, 1.0, 1.0};
  assert_true(rs_queue_response_quantile(&idle, 0.01, 1.0, 0.99) ==
              rs_queue_response_quantile_ref(&idle, 0.01, 1.0, 0.99));
  assert_true(flat < n / 1000);
  print_message("quantile vs reference: %ld points, worst relative difference %g (%ld flat)\n", n,
                worst, flat);
}

/* rs_queue_response_quantile_from against the plain search over the grid,
 * each point with two of these guesses in turn: far low, below S's
 * quantile, near the answer either side, far high (where the tail
 * underflows and bisection has to find the way back), not numbers, and the
 * answer at a lower load (how the back-test calls it). Both stop within
 * about 1e-14 of the same root, so they agree to 1e-13 relative, but at the
 * flat root (flat_root). A guess that is not above S's quantile is no
 * guess: the same bits. */
static void test_quantile_from(void **state) {
  (void)state;
  /* multiples of the answer; 0 and below: the special guesses */
  static const double guesses[] = {1e-9, 0.5, 0.97, 0.9999, 1.0001, 1.03, 2, 1e6, -1, -2, -3, -4};
  enum { NG = sizeof(guesses) / sizeof(guesses[0]) };
  long n = 0, flat = 0, same = 0, kinds[NG] = {0};
  double worst = 0;
  size_t npt = quantile_grid(grid);
  for (size_t i = 0; i < npt; i++) {
    const grid_pt *g = &grid[i];
    rs_queue lighter = g->q;
    lighter.arrival_rps *= 0.8;
    double want = rs_queue_response_quantile(&g->q, g->s50, g->scs2, g->p);
    double s_q = g->s50 * exp(sqrt(log1p(g->scs2)) * rs_normal_quantile(g->p));
    for (int k = 0; k < 2; k++, n++) {
      size_t gi = (size_t)(n % NG);
      double x = guesses[gi];
      double guess = x > 0     ? want * x
                     : x == -1 ? NAN
                     : x == -2 ? 0.0
                     : x == -3 ? INFINITY
                               : rs_queue_response_quantile(&lighter, g->s50, g->scs2, g->p);
      double got = rs_queue_response_quantile_from(&g->q, g->s50, g->scs2, g->p, guess);
      kinds[gi]++;
      if (!(guess > s_q) || isinf(guess)) {
        if (memcmp(&got, &want, sizeof(got)) != 0)
          fail_msg("no guess (%g) but %.17g, not %.17g", guess, got, want);
        same++;
        continue;
      }
      double e = fabs(got / want - 1);
      if (!(e <= 1e-13)) {
        if (!flat_root(g, got))
          fail_msg("from %.17g: %.17g, plain %.17g: c %u rho %g cs2 %g s50 %g scs2 %g p %g", guess,
                   got, want, g->q.servers, g->rho, g->q.cs2, g->s50, g->scs2, g->p);
        flat++;
        continue;
      }
      worst = fmax(worst, e);
    }
  }
  for (size_t k = 0; k < NG; k++)
    assert_true(kinds[k] >= 1000);
  assert_true(flat < n / 1000 && same < n / 2);
  rs_queue over = {2, 300.0, 0.01, 1.0, 1.0}, q = {2, 100.0, 0.01, 1.0, 1.0};
  assert_true(isinf(rs_queue_response_quantile_from(&over, 0.01, 1.0, 0.99, 0.05)));
  assert_true(isnan(rs_queue_response_quantile_from(&q, 0.01, 1.0, 1.0, 0.05)));
  assert_true(isnan(rs_queue_response_quantile_from(&q, -1, 1.0, 0.99, 0.05)));
  print_message("quantile from a guess: %ld points, worst relative difference %g (%ld flat, %ld "
                "no guess)\n",
                n, worst, flat, same);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gamma_q_vs_lentz),      cmocka_unit_test(test_gamma_q_closed_forms),
      cmocka_unit_test(test_quantile_vs_bisection), cmocka_unit_test(test_tail_floor),
      cmocka_unit_test(test_tail_vs_converged),     cmocka_unit_test(test_quantile_vs_ref),
      cmocka_unit_test(test_quantile_from),         cmocka_unit_test(test_gamma_q_lanes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
