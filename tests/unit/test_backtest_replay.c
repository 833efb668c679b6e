/* The back-test search's coarse quantile (backtest.c): the replayed
 * bisection (a root search first, then the bisection's steps taking their
 * sides from what the looks settled) against the plain bisection it
 * replaces, bit for bit, on random models, queues and quantiles and on the
 * edges: a narrow or wide service time, P(wait) tiny or 1, a wait tail
 * far longer or far shorter than the service, no queue, an unstable one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "backtest_internal.h"
#include "queue.h"
#include "test_support.h"

#define CASES 400000

static double log_uniform(rng *r, double lo, double hi) {
  return lo * exp(log(hi / lo) * rng_uniform(r));
}

typedef struct counts {
  int searched; /* calls whose bisection takes steps */
  int cases;
  double off; /* the third guess's place: lo + off (answer - lo) */
} counts;

/* Both functions on one call; fails on any bit of difference. */
static void check(counts *c, double s50, double cs2, const rs_queue_result *q, double p) {
  double sigma = sqrt(log1p(cs2)), lo = s50 * exp(sigma * rs_normal_quantile(p));
  double b = rs_backtest_quantile_fast_ref(s50, sigma, lo, q, p);
  /* from the bisection's top, from near the answer, from a point off it */
  double guesses[3] = {NAN, b / 1e3 * (1 + 1e-6), lo + (b / 1e3 - lo) * c->off};
  for (int g = 0; g < 3; g++) {
    double a = rs_backtest_quantile_fast(s50, sigma, lo, q, p, &guesses[g]);
    if (memcmp(&a, &b, sizeof(a)) != 0)
      fail_msg("s50 %.17g cs2 %.17g p %.17g p_wait %.17g mean_wait %.17g guess %d: %.17g, "
               "reference %.17g",
               s50, cs2, p, q ? q->p_wait : 0.0, q ? q->mean_wait_s : 0.0, g, a, b);
  }
  c->cases++;
  if (q && q->stable && q->p_wait > 0 && q->mean_wait_s > 0 && fabs(b / (lo * 1e3) - 1) > 1e-5)
    c->searched++;
}

static double random_p(rng *r) {
  static const double ps[] = {0.5, 0.9, 0.95, 0.99, 0.999};
  uint64_t k = rng_next(r) % 6;
  return k < 5 ? ps[k] : 0.5 + 0.4999 * rng_uniform(r);
}

/* Queues as the search makes them: Erlang C and Allen-Cunneen at a rate. */
static void test_queues(void **state) {
  (void)state;
  rng r = {17};
  counts c = {0, 0, 0.5};
  for (int i = 0; i < CASES / 2; i++) {
    double s50 = log_uniform(&r, 1e-4, 5.0), cs2 = log_uniform(&r, 0.005, 4.0);
    unsigned servers = 1 + (unsigned)(rng_next(&r) % 64);
    double hold = s50 * sqrt(1 + cs2) * log_uniform(&r, 0.01, 1.0);
    double rho = rng_uniform(&r) < 0.1 ? log_uniform(&r, 1e-6, 0.1) : 0.2 + rng_uniform(&r) * 0.82;
    rs_queue q = {servers, rho * servers / hold, hold, 1.0, cs2};
    rs_queue_result res = rs_queue_eval(&q);
    c.off = 3 * rng_uniform(&r);
    check(&c, s50, cs2, &res, random_p(&r));
  }
  print_message("searched %d of %d\n", c.searched, c.cases);
  assert_int_equal(c.cases, CASES / 2);
  assert_true(c.searched > CASES / 10);
}

/* Any P(wait) and mean wait, far beyond what a queue gives, and the edges. */
static void test_edges(void **state) {
  (void)state;
  rng r = {23};
  counts c = {0, 0, 0.5};
  for (int i = 0; i < CASES / 2; i++) {
    double s50 = log_uniform(&r, 1e-6, 100.0);
    uint64_t kind = rng_next(&r) % 8;
    double cs2 = kind == 0 ? log_uniform(&r, 1e-14, 1e-6) : log_uniform(&r, 0.005, 4.0);
    double p_wait = kind == 1   ? log_uniform(&r, 1e-15, 1e-6)
                    : kind == 2 ? 1.0
                                : log_uniform(&r, 1e-6, 1.0);
    double mean = kind == 3   ? s50 * log_uniform(&r, 1e-9, 1e-4)
                  : kind == 4 ? s50 * log_uniform(&r, 1e3, 1e8)
                              : s50 * log_uniform(&r, 1e-4, 1e3);
    rs_queue_result q = {true, 0.5, p_wait, mean * p_wait};
    c.off = 3 * rng_uniform(&r);
    check(&c, s50, cs2, &q, random_p(&r));
  }
  print_message("searched %d of %d\n", c.searched, c.cases);
  assert_true(c.searched > CASES / 10);
  /* no queue, an unstable one, no wait */
  rs_queue_result unstable = {false, 1.2, 1.0, INFINITY}, none = {true, 0.1, 0.0, 0.0};
  check(&c, 0.01, 0.3, NULL, 0.99);
  check(&c, 0.01, 0.3, &unstable, 0.99);
  check(&c, 0.01, 0.3, &none, 0.99);
  assert_int_equal(c.cases, CASES / 2 + 3);
}

/* The replay's premise: a step's side falls with t (once -1, -1 beyond),
 * on 400 points from the quantile of S alone to the bisection's top and on
 * 400 within 1e-7 of the answer either side, for random queues. */
static void test_monotone(void **state) {
  (void)state;
  rng r = {29};
  int grids = 0;
  for (int i = 0; i < 2000; i++) {
    double s50 = log_uniform(&r, 1e-5, 10.0), cs2 = log_uniform(&r, 1e-6, 4.0);
    double p_wait = log_uniform(&r, 1e-4, 1.0), mean = s50 * log_uniform(&r, 1e-5, 1e4) * p_wait;
    double p = random_p(&r), sigma = sqrt(log1p(cs2));
    double lo = s50 * exp(sigma * rs_normal_quantile(p)), cm = mean / p_wait;
    double hi = lo + cm * fmax(log(p_wait / (1 - p)), 0.0) + 1e-9;
    rs_queue_result q = {true, 0.5, p_wait, mean};
    double root = rs_backtest_quantile_fast_ref(s50, sigma, lo, &q, p) / 1e3;
    if (!(hi - lo > 1e-5 * hi))
      continue;
    int last = 1;
    for (int k = 0; k <= 800; k++) {
      double t = k <= 400 ? lo + (hi - lo) * k / 400.0 : root * (1 + 1e-7 * (k - 600) / 200.0);
      if (k == 401)
        last = 1;
      int side = rs_backtest_tail_side(s50, sigma, &q, p, t);
      if (side > last)
        fail_msg("s50 %.17g cs2 %.17g p %.17g p_wait %.17g mean_wait %.17g: -1 below t = %.17g",
                 s50, cs2, p, p_wait, mean, t);
      last = side;
    }
    grids++;
  }
  print_message("%d grids\n", grids);
  assert_true(grids > 500);
}

/* The fast sum's band (wait_side): wherever it decides a side, the side
 * is the plain quadrature's. 100 points per queue: most within 1e-6 of
 * where the plain side changes (found by bisection to the last bit), down
 * to a few units in the last place from it, where the two sums are closest
 * to the tail, the rest across the bisection's interval; random queues,
 * P(wait) and waits. */
static void test_band(void **state) {
  (void)state;
  rng r = {31};
  int points = 0;
  for (int i = 0; i < 4000; i++) {
    double s50 = log_uniform(&r, 1e-6, 100.0);
    uint64_t kind = rng_next(&r) % 4;
    double cs2 = kind == 0 ? log_uniform(&r, 1e-14, 1e-6) : log_uniform(&r, 0.005, 4.0);
    double p_wait = kind == 1 ? 1.0 : log_uniform(&r, 1e-6, 1.0);
    double mean = s50 * log_uniform(&r, kind == 2 ? 1e-9 : 1e-4, kind == 3 ? 1e8 : 1e3) * p_wait;
    double p = random_p(&r), sigma = sqrt(log1p(cs2));
    double lo = s50 * exp(sigma * rs_normal_quantile(p)), cm = mean / p_wait;
    double hi = lo + cm * fmax(log(p_wait / (1 - p)), 0.0) + 1e-9;
    rs_queue_result q = {true, 0.5, p_wait, mean};
    if (!(hi - lo > 1e-5 * hi))
      continue;
    double a = lo, b = hi;
    for (int k = 0; k < 80 && 0.5 * (a + b) > a && 0.5 * (a + b) < b; k++) {
      double t = 0.5 * (a + b);
      *(rs_backtest_tail_side_mass(s50, sigma, &q, p, t) > 0 ? &a : &b) = t;
    }
    for (int k = 0; k < 100; k++) {
      double u = rng_uniform(&r);
      double t = k < 80 ? a * (1 + (u - 0.5) * 2 * pow(10.0, -6.0 - 10.0 * rng_uniform(&r)))
                        : lo + (hi - lo) * u;
      int fast = rs_backtest_tail_side(s50, sigma, &q, p, t);
      int plain = rs_backtest_tail_side_mass(s50, sigma, &q, p, t);
      if (fast != plain)
        fail_msg("s50 %.17g cs2 %.17g p %.17g p_wait %.17g mean_wait %.17g t %.17g: side %d, "
                 "plain %d",
                 s50, cs2, p, p_wait, mean, t, fast, plain);
      points++;
    }
  }
  print_message("%d points\n", points);
  assert_true(points > 100000);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_queues),
      cmocka_unit_test(test_edges),
      cmocka_unit_test(test_monotone),
      cmocka_unit_test(test_band),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
