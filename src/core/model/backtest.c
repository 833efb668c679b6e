/* The back-test (docs/model.md "Back-test"): every profile with latency and
 * request-rate samples is its own ground truth. The service model of the
 * current deployment (its own latency: lognormal median and variability;
 * the hold time a request keeps a server, i.e. how many requests a server
 * overlaps) is fitted to the latency observed at each load bucket of the
 * history, not to one typical interval whose latency already contains
 * queueing. Then each bucket's SLO quantile is predicted at the bucket's
 * load and compared with what was observed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backtest_internal.h"
#include "fastexp.h"
#include "fit_internal.h"
#include "queue.h"

#define MAX_POINTS 6    /* fit points: buckets grouped by interval count (cost of the fit) */
#define MAX_EVALS 90    /* Nelder-Mead evaluations of the loss */
#define CS2_MIN 0.005   /* service variability searched within [CS2_MIN, CS2_MAX] */
#define CS2_MAX 4.0     /* the cap the projection has always used */
#define HOLD_MIN 0.01   /* hold time searched within [HOLD_MIN x default, default] */
#define PRIOR 0.02      /* weight pulling the hold time to its default (the conservative end) */
#define RATIO_CLAMP 5.0 /* |ln(predicted / observed)| counted at most this much */

typedef struct point {
  double rate;   /* per replica, req/s */
  double w;      /* intervals */
  double obs_q;  /* SLO quantile, ms */
  double obs_50; /* p50, ms; NaN none */
} point;

typedef struct model {
  unsigned servers;
  double s50_s, cs2, hold_s;
} model;

typedef struct problem {
  point pt[MAX_POINTS];
  size_t n;
  double p;                     /* the SLO quantile */
  double z_q, z_50;             /* rs_normal_quantile of p and of 0.5 */
  double last[2 * MAX_POINTS];  /* loss's terms as last computed */
  double guess[2 * MAX_POINTS]; /* predict_fast's root as last found (where to start
                                 * without a blend of the simplex's) */
  double hold0;                 /* default hold, seconds */
  unsigned servers;
} problem;

/* The response-time p-quantile (ms) of the current deployment at rate:
 * rs_queue_response_quantile, the model every candidate is held to, its
 * search begun at guess_ms (NaN for none), which moves the answer by about
 * 1e-14 at most (rs_queue_response_quantile_from). */
static double predict(const model *m, double rate, double p, double guess_ms) {
  if (!(rate > 0) || !(m->hold_s > 0)) {
    double sigma = sqrt(log1p(m->cs2));
    return m->s50_s * exp(sigma * rs_normal_quantile(p)) * 1e3;
  }
  rs_queue q = {m->servers, rate, m->hold_s, 1.0, m->cs2};
  return rs_queue_response_quantile_from(&q, m->s50_s, m->cs2, p, guess_ms / 1e3) * 1e3;
}

/* Where predict()'s search at rate begins (ms): the line in rate through
 * the last two predictions' logarithms u[] at rates r[] (the last alone
 * when there is one; NaN, no guess, when none). compare() and curve() ask
 * in ascending rate, and ln t is nearly linear there: on fleet-42 the
 * back-test's exact quantiles took 2.4 tail evaluations each from this
 * guess, 3.2 from the last prediction alone, 3.5 from S's quantile. */
static double extrapolate(const double r[2], const double u[2], double rate) {
  if (isfinite(u[0]) && isfinite(u[1]) && r[1] != r[0])
    return exp(u[1] + (u[1] - u[0]) * (rate - r[1]) / (r[1] - r[0]));
  return exp(u[1]);
}

/* Keeps the last two predictions for extrapolate(). */
static void remember(double r[2], double u[2], double rate, double ms) {
  r[0] = r[1], u[0] = u[1];
  r[1] = rate, u[1] = log(ms);
}

/* fmax and fmin as glibc's x86-64 ones compute them (maxsd and minsd, the
 * other operand where one is NaN), inline: the back-test's root search
 * takes millions of them, and a libm call each was a tenth of a look. */
static inline double max2(double x, double y) { return isnan(y) || x > y ? x : y; }
static inline double min2(double x, double y) { return isnan(y) || x < y ? x : y; }

/* 24-point Gauss-Legendre nodes on [-1, 1], the negative half then the
 * positive, and their weights: wait_mass and rs_fast_wait_sum both take
 * z = mid + half gz[i], the same numbers. */
static const double gz[24] = {
    -0.0640568928626056, -0.1911188674736163, -0.3150426796961634, -0.4337935076260451,
    -0.5454214713888396, -0.6480936519369755, -0.7401241915785544, -0.8200019859739029,
    -0.8864155270044011, -0.9382745520027328, -0.9747285559713095, -0.9951872199970213,
    0.0640568928626056,  0.1911188674736163,  0.3150426796961634,  0.4337935076260451,
    0.5454214713888396,  0.6480936519369755,  0.7401241915785544,  0.8200019859739029,
    0.8864155270044011,  0.9382745520027328,  0.9747285559713095,  0.9951872199970213};
static const double gw[24] = {
    0.1279381953467522, 0.1258374563468283, 0.1216704729278034, 0.1155056680537256,
    0.1074442701159656, 0.0976186521041139, 0.0861901615319533, 0.0733464814110803,
    0.0592985849154368, 0.0442774388174198, 0.0285313886289337, 0.0123412297999872,
    0.1279381953467522, 0.1258374563468283, 0.1216704729278034, 0.1155056680537256,
    0.1074442701159656, 0.0976186521041139, 0.0861901615319533, 0.0733464814110803,
    0.0592985849154368, 0.0442774388174198, 0.0285313886289337, 0.0123412297999872};

/* The chance mass of S <= t with W > t - S for predict_fast, over the normal
 * variate z of S from a to zt (> a), as a sum over the nodes; W's tail is
 * exponential with conditional mean cm. */
static double wait_mass(double s50, double sigma, double cm, double t, double zt, double a) {
  double half = 0.5 * (zt - a), mid = 0.5 * (zt + a), sum = 0;
  for (int i = 0; i < 24; i++) {
    double z = mid + half * gz[i], w = gw[i];
    double s = s50 * exp(sigma * z);
    sum += w * exp(-z * z / 2) * exp(-(t - s) / cm);
  }
  return sum * (half / sqrt(2 * 3.14159265358979323846));
}

/* One bisection step's tail at t: P(S > t) + p_wait x the mass of S <= t
 * with W > t - S, against tail = 1 - p. The constants are a call's. */
typedef struct tail_fn {
  double s50, sigma, cm, inv_cm, p_wait, tail;
} tail_fn;

/* Whether above + p_wait x wait_mass(...) > tail, decided from the same
 * sum through rs_fast_wait_sum (one fast exponential per node, not two,
 * and one per pair of nodes for S; no libm call, the nodes in vector
 * registers) where that is sure: +1 greater, -1 not, 0 too close to call.
 * *mass: the fast sum's mass (NaN where it is of no use).
 *
 * Each node's term differs from wait_mass's by its exponent's error, at
 * most (RS_FAST_EXP_REL + 9 ulp) x (4 + k s / cm + |t - s| / cm + z^2 / 2)
 * (s carries its error into (t - s) / cm: two rs_fast_exp's, e^(sigma mid)
 * and e^(sigma half g), and their arguments' rounding, 5 ulp of
 * |sigma mid| + |sigma half| at most, so k = 2 + 0.02 (|sigma mid| +
 * |sigma half|); 1 / cm and the product round twice; the rest is
 * rounding), plus the factors' own
 * relative errors; the terms are positive, so the sum's relative error, in
 * whatever order it is added, is at most the largest term's plus the
 * summation's (24 ulp), and 1e-13 covers every rounding after it. A
 * comparison outside that band comes out as wait_mass's would. */
static int wait_side(const tail_fn *f, double t, double zt, double a, double above, double *mass) {
  double half = 0.5 * (zt - a), mid = 0.5 * (zt + a);
  rs_fast_wait w = rs_fast_wait_sum(gz, gw, mid, half, f->sigma, f->s50, t, f->inv_cm);
  double delta = 2 * (RS_FAST_EXP_REL + 2e-15) * w.worst + 1e-13;
  *mass = NAN;
  if (!(delta < 1e-6) || !(w.top <= 700)) /* a huge exponent: no useful band */
    return 0;
  *mass = f->p_wait * w.sum * (half / sqrt(2 * 3.14159265358979323846));
  if ((above + *mass * (1 - delta)) * (1 - 1e-15) > f->tail)
    return 1;
  if ((above + *mass * (1 + delta)) * (1 + 1e-15) < f->tail)
    return -1;
  return 0;
}

/* A look at the tail at t: the side a bisection step takes there when the
 * fast sum is sure of it (+1 above the tail, -1 not), 0 when it is not;
 * *value, the tail itself (the fast sum's, or wait_mass's where that is of
 * no use) and *slope its derivative in t, for the root search. The exact
 * fallback is taken only when `exact`: then the side is never 0. */
static int look(const tail_fn *f, double t, bool exact, double *value, double *slope) {
  double zt = log(t / f->s50) / max2(f->sigma, 1e-9), a = -8.0;
  double above = 0.5 * erfc(zt / sqrt(2.0)), sum = 0, mass = 0;
  /* the nodes span S's normal variate up to z(t), or to 8 when z(t) is
   * further (a narrow S beside a long t): the mass above 8 is under 1e-15,
   * and nodes spread up to a far z(t) would leave few on S's spread */
  double top = min2(zt, -a);
  int side = 0;
  if (zt > a && (side = wait_side(f, t, top, a, above, &mass)) == 0 && (exact || isnan(mass))) {
    sum = wait_mass(f->s50, f->sigma, f->cm, t, top, a);
    mass = f->p_wait * sum;
    side = above + f->p_wait * sum > f->tail ? 1 : -1;
  }
  if (zt <= a)
    side = above + f->p_wait * sum > f->tail ? 1 : -1;
  if (value) {
    /* d/dt P(S > t) = -phi(z(t)) z'(t); d/dt of the mass: +phi(z(t)) z'(t)
     * p_wait (its upper end) - mass / cm (the exponential), where z(t) <= 8 */
    double dens = zt <= -a ? rs_fast_exp(-zt * zt / 2) /
                                 (sqrt(2 * 3.14159265358979323846) * max2(f->sigma, 1e-9) * t)
                           : 0;
    *value = above + mass;
    *slope = -dens * (1 - f->p_wait) - mass * f->inv_cm;
  }
  return side;
}

/* The bisection's first interval [lo, *hi] and its tail function; false
 * where there is no step to take, *out then the answer (ms). */
static bool begin(double s50, double sigma, double lo, const rs_queue_result *r, double p,
                  tail_fn *f, double *hi, double *out) {
  double tail = 1.0 - p;
  *out = lo * 1e3;
  if (!r)
    return false;
  if (!r->stable)
    *out = INFINITY;
  if (!r->stable || !(r->p_wait > 0) || !(r->mean_wait_s > 0))
    return false;
  double cm = r->mean_wait_s / r->p_wait;
  /* max2(log(x), 0) is 0 wherever x <= 1: no log there (most p50s) */
  *hi = lo + cm * (r->p_wait > tail ? max2(log(r->p_wait / tail), 0.0) : 0.0) + 1e-9;
  *f = (tail_fn){s50, sigma, cm, 1.0 / cm, r->p_wait, tail};
  *out = 0.5 * (lo + *hi) * 1e3;
  return *hi - lo > 1e-5 * *hi;
}

/* The bisection of predict_fast as it always ran: the reference the replay
 * is held to (tests/unit/test_backtest_replay.c compares them bit for bit). */
double rs_backtest_quantile_fast_ref(double s50, double sigma, double lo, const rs_queue_result *r,
                                     double p) {
  tail_fn f;
  double hi, out;
  if (!begin(s50, sigma, lo, r, p, &f, &hi, &out))
    return out;
  for (int it = 0; it < 40 && hi - lo > 1e-5 * hi; it++) {
    double t = 0.5 * (lo + hi);
    if (look(&f, t, true, NULL, NULL) > 0)
      lo = t;
    else
      hi = t;
  }
  return 0.5 * (lo + hi) * 1e3;
}

/* One step's side at t (+1: the tail is above 1 - p, so the quantile is
 * beyond t), for the unit test's check that it falls with t. */
int rs_backtest_tail_side(double s50, double sigma, const rs_queue_result *r, double p, double t) {
  double cm = r->mean_wait_s / r->p_wait;
  tail_fn f = {s50, sigma, cm, 1.0 / cm, r->p_wait, 1.0 - p};
  return look(&f, t, true, NULL, NULL);
}

/* The same side from wait_mass alone, libm's exponentials at every node:
 * what the fast sum's band must agree with (test_backtest_replay). */
int rs_backtest_tail_side_mass(double s50, double sigma, const rs_queue_result *r, double p,
                               double t) {
  double cm = r->mean_wait_s / r->p_wait;
  double zt = log(t / s50) / fmax(sigma, 1e-9), a = -8.0;
  double above = 0.5 * erfc(zt / sqrt(2.0)), sum = 0;
  if (zt > a)
    sum = wait_mass(s50, sigma, cm, t, fmin(zt, -a), a);
  return above + r->p_wait * sum > 1.0 - p ? 1 : -1;
}

/* What is known of the sides: every t <= yes is above the tail, every
 * t >= no is not (the tail falls with t, below). */
typedef struct known {
  double yes, no;
} known;

static void learn(known *k, double t, int side) {
  if (side > 0 && t > k->yes)
    k->yes = t;
  if (side < 0 && t < k->no)
    k->no = t;
}

/* The same quantile, coarser and about twenty times cheaper, for the
 * search only (the fit evaluates the loss some 500 times): P(W > 0) from
 * Erlang C, an exponential wait tail with the Allen-Cunneen mean, the
 * convolution with the lognormal S by 24-point Gauss-Legendre over its
 * normal variate, bisection to 1e-5. The back-test itself is computed with
 * predict(). sigma, lo (the quantile of S alone) and r (the queue at the
 * rate; NULL: no queue) are the caller's, shared by a model's points and
 * the two quantiles of a point.
 *
 * The bisection's answer is fixed by the sides of its steps, and the tail
 * falls with t, so a step's side is known without looking wherever a look
 * elsewhere already tells it: above the tail at t' means above at every
 * t < t', and below at t' below at every t > t'. The root is found first by
 * Newton's method on ln(tail(t)) (the tail is nearly exponential in t)
 * from guess (minimize's blend of the simplex's roots; one to three looks,
 * 3.1 looks in all per call on the 1,008-endpoint fleet, 14.7 steps
 * before), then the bisection is replayed: a midpoint outside
 * what the looks have settled looks (first just beside the root, which
 * settles every later midpoint on that side), one settled takes its side.
 * The same midpoints, the same sides: the same bits as the reference above.
 *
 * Why the side falls with t: the tail is P(S > t) + p_wait E[exp(-(t - S)
 * / cm); S <= t], whose derivative is -(1 - p_wait) phi(z(t)) z'(t) -
 * p_wait E[...] / cm < 0. The sum over the nodes is a smooth approximation
 * of that integral, not proven monotone itself, and a look's side is
 * taken from the fast sum only outside its error band (wait_side), else
 * from wait_mass. So it is checked: test_backtest_replay finds the side
 * falling on grids (400 points within 1e-7 of the root) for 2,000 random queues, and
 * the replay equal to the reference, bit for bit, on 400,000 random calls
 * from three starting guesses each. *root: where the root search ended (NaN
 * where the bisection took no step). */
static double predict_fast(double s50, double sigma, double lo, const rs_queue_result *r, double p,
                           double guess, double *root) {
  tail_fn f;
  double hi, out, tail = 1.0 - p;
  *root = NAN;
  if (!begin(s50, sigma, lo, r, p, &f, &hi, &out))
    return out;
  known k = {-INFINITY, INFINITY};
  /* Newton on g(t) = ln tail(t) - ln(1 - p), kept inside [a, b] */
  double a = lo, b = hi, t = guess > lo && guess < hi ? guess : hi, step = INFINITY;
  for (int it = 0; it < 8; it++) {
    double v, dv;
    int side = look(&f, t, false, &v, &dv);
    learn(&k, t, side);
    if (!(v > 0) || !(dv < 0) || !isfinite(v))
      break;
    if (v > tail)
      a = max2(a, t);
    else
      b = min2(b, t);
    /* ln(v / tail), by its series near the root (4 terms: within 1e-6 of
     * it for |x| < 0.03; the root search only has to get near) */
    double x = v / tail - 1;
    double g = fabs(x) < 0.03 ? x * (1 - x * (0.5 - x * (1.0 / 3 - x * 0.25))) : log(v / tail);
    double next = t - g * v / dv;
    /* beyond the bisection's top, untried: look there (the root may lie
     * beyond it, every midpoint then above the tail), else halve */
    if (!(next > a && next < b))
      next = next >= b && b == hi && t != hi ? hi : 0.5 * (a + b);
    step = fabs(next - t);
    t = next;
    if (step <= 1e-5 * t)
      break;
  }
  *root = t;
  /* a look just beside the root settles a side's midpoints for good */
  double eps = isfinite(step) ? max2(1e-9 * t, 10 * step * step / t) : INFINITY;
  for (int it = 0; it < 40 && hi - lo > 1e-5 * hi; it++) {
    double mid = 0.5 * (lo + hi);
    if (mid > k.yes && mid < k.no) { /* not settled: look (rarely) */
      double near = mid < t ? t - eps : t + eps;
      if (eps < 1e-6 * t && (mid < t) == (mid < near) && near > k.yes && near < k.no)
        learn(&k, near, look(&f, near, true, NULL, NULL));
      if (mid > k.yes && mid < k.no)
        learn(&k, mid, look(&f, mid, true, NULL, NULL));
    }
    /* settled: mid <= k.yes or mid >= k.no; selects, not branches, as the
     * sides of a bisection's steps are a coin's */
    bool up = mid <= k.yes;
    lo = up ? mid : lo;
    hi = up ? hi : mid;
  }
  return 0.5 * (lo + hi) * 1e3;
}

/* The replay, for the unit test. */
double rs_backtest_quantile_fast(double s50, double sigma, double lo, const rs_queue_result *r,
                                 double p, double *guess) {
  double root, out = predict_fast(s50, sigma, lo, r, p, *guess, &root);
  if (!isnan(root))
    *guess = root;
  return out;
}

static double clamp(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

/* x = (ln s50, ln cs2, ln hold/hold0) -> a model inside the bounds. */
static model decode(const problem *pb, const double x[3]) {
  model m = {pb->servers, exp(x[0]), clamp(exp(x[1]), CS2_MIN, CS2_MAX), 0};
  /* never longer than the request's own mean latency */
  m.hold_s = fmin(pb->hold0 * clamp(exp(x[2]), HOLD_MIN, 1.0), m.s50_s * sqrt(1.0 + m.cs2));
  return m;
}

static double log_err(double pred, double obs) {
  if (!(pred > 0) || !(obs > 0))
    return RATIO_CLAMP;
  return clamp(log(pred / obs), -RATIO_CLAMP, RATIO_CLAMP);
}

/* The sum of the terms computed so far (done[j]), in the order of j: while
 * some are missing a lower bound of the whole sum (rounding is monotone and
 * the terms are >= 0), and once all are there exactly the sum in order. */
static double ordered_sum(const double *term, const bool *done, size_t n) {
  double sum = 0;
  for (size_t j = 0; j < n; j++)
    if (done[j])
      sum += term[j];
  return sum;
}

/* Weighted squared log error of p50 and the SLO quantile over the points,
 * plus a weak prior on the hold time (it only moves when the data says so).
 * The search only compares a trial point's loss with `bound` when the loss
 * is at least that (the trial is dropped), so once the terms computed so far
 * reach it the rest are skipped and that partial loss, already >= bound, is
 * returned: every term is >= 0 and each rounding step is monotone, so the
 * full sum could only be larger and the comparison comes out the same.
 * The terms are computed largest first as of the last evaluation (pb->last,
 * the next trial is near it), so a dropped trial stops sooner; they are
 * added in the points' order whatever the order of computing them, so the
 * full sum is the same number. INFINITY: the exact loss. hint (NULL: none):
 * ln of where each term's root search starts (blend); u: ln of the roots
 * found (NaN for a term not computed or with no step). */
static double loss(problem *pb, const double x[3], double bound, const double *hint, double *u) {
  model m = decode(pb, x);
  double wsum = 0, term[2 * MAX_POINTS] = {0};
  bool done[2 * MAX_POINTS] = {false}, queued[MAX_POINTS] = {false};
  rs_queue_result r[MAX_POINTS];
  size_t order[2 * MAX_POINTS], nt = 0, n = 2 * pb->n;
  double run = 0;
  for (size_t i = 0; i < pb->n; i++)
    wsum += pb->pt[i].w;
  for (size_t j = 0; j < n; j++)
    u[j] = NAN;
  /* how far the roots found so far were from their hints, on average, for
   * each kind of term (the SLO quantile's, the p50's): the blend's error is
   * much the same at every point, so the next hint is moved by as much */
  double dsum[2] = {0, 0};
  int nd[2] = {0, 0};
  /* outside the bounds the model stops changing: a slope brings the simplex back */
  double h = clamp(x[2], log(HOLD_MIN), 0.0), v = clamp(x[1], log(CS2_MIN), log(CS2_MAX));
  double prior = PRIOR * h * h, slope = 1e-3 * ((x[2] - h) * (x[2] - h) + (x[1] - v) * (x[1] - v));
  /* what predict_fast would compute afresh at every call */
  double sigma = sqrt(log1p(m.cs2));
  double lo_q = m.s50_s * exp(sigma * pb->z_q), lo_50 = m.s50_s * exp(sigma * pb->z_50);
  /* term 2i: the SLO quantile at point i, 2i + 1 its p50 (none: left out) */
  for (size_t j = 0; j < n; j++) {
    if (j % 2 && isnan(pb->pt[j / 2].obs_50))
      continue;
    size_t k = nt++;
    for (; k > 0 && pb->last[order[k - 1]] < pb->last[j]; k--)
      order[k] = order[k - 1];
    order[k] = j;
  }
  for (size_t k = 0; k < nt; k++) {
    size_t j = order[k], i = j / 2;
    const point *t = &pb->pt[i];
    if (!queued[i] && t->rate > 0 && m.hold_s > 0) {
      rs_queue q = {m.servers, t->rate, m.hold_s, 1.0, m.cs2};
      r[i] = rs_queue_eval(&q);
    }
    queued[i] = true;
    const rs_queue_result *rp = t->rate > 0 && m.hold_s > 0 ? &r[i] : NULL;
    double g = hint && isfinite(hint[j]) ? exp(hint[j] + (nd[j % 2] ? dsum[j % 2] / nd[j % 2] : 0))
                                         : pb->guess[j],
           root;
    double e = j % 2 ? log_err(predict_fast(m.s50_s, sigma, lo_50, rp, 0.5, g, &root), t->obs_50)
                     : log_err(predict_fast(m.s50_s, sigma, lo_q, rp, pb->p, g, &root), t->obs_q);
    if (!isnan(root)) {
      pb->guess[j] = root;
      u[j] = log(root);
      if (hint && isfinite(hint[j])) {
        dsum[j % 2] += u[j] - hint[j];
        nd[j % 2]++;
      }
    }
    term[j] = t->w * e * e;
    done[j] = true;
    pb->last[j] = term[j];
    /* run, the same terms in the order computed, is within 3e-15 of the
     * ordered sum (12 terms >= 0; the rest is monotone), so the ordered sum
     * is added up only where run says it may reach bound */
    run += term[j];
    if (k + 1 < nt && (run / wsum + prior + slope) * (1 + 1e-12) >= bound &&
        ordered_sum(term, done, n) / wsum + prior + slope >= bound)
      return ordered_sum(term, done, n) / wsum + prior + slope;
  }
  return ordered_sum(term, done, n) / wsum + prior + slope;
}

/* A simplex vertex: its parameters, its loss and the logarithms of its
 * terms' roots (predict_fast's; NaN where it took no step). */
typedef struct vertex {
  double x[3], f, u[2 * MAX_POINTS];
} vertex;

/* Where a trial's root searches start: ln of each root as the same blend
 * of the vertices' as the trial's parameters are of theirs, a ua + b ub
 * (ln t is nearly linear in the parameters, so this is off by about the
 * square of the simplex's size, where the last trial's root was off by
 * its size). It changes where the searches start, never what they find. */
static void blend(double *out, size_t n, double a, const double *ua, double b, const double *ub) {
  for (size_t j = 0; j < n; j++)
    out[j] = a * ua[j] + b * ub[j];
}

/* Nelder-Mead over 3 parameters (standard coefficients), deterministic. */
static void minimize(problem *pb, double x[3]) {
  vertex s[4];
  const double step[3] = {0.3, 0.7, 0.7};
  size_t n = 2 * pb->n;
  int evals = 0;
  for (int i = 0; i < 4; i++) {
    memcpy(s[i].x, x, sizeof(s[i].x));
    if (i > 0)
      s[i].x[i - 1] += i == 3 ? -step[i - 1] : step[i - 1];
    s[i].f = loss(pb, s[i].x, INFINITY, NULL, s[i].u);
    evals++;
  }
  while (evals < MAX_EVALS) {
    /* order: s[0] best .. s[3] worst */
    for (int i = 1; i < 4; i++)
      for (int j = i; j > 0 && s[j].f < s[j - 1].f; j--) {
        vertex tv = s[j];
        s[j] = s[j - 1];
        s[j - 1] = tv;
      }
    if (s[3].f - s[0].f < 1e-7)
      break;
    double c[3], r[3], e[3], k[3], uc[2 * MAX_POINTS], hint[2 * MAX_POINTS];
    double ur[2 * MAX_POINTS], ue[2 * MAX_POINTS], uk[2 * MAX_POINTS];
    for (int d = 0; d < 3; d++) {
      c[d] = (s[0].x[d] + s[1].x[d] + s[2].x[d]) / 3.0;
      r[d] = c[d] + (c[d] - s[3].x[d]);
    }
    blend(uc, n, 1.0 / 3, s[0].u, 1.0 / 3, s[1].u);
    blend(uc, n, 1.0, uc, 1.0 / 3, s[2].u);
    blend(hint, n, 2.0, uc, -1.0, s[3].u);
    double fr = loss(pb, r, s[2].f, hint, ur); /* at f[2] or above, r is dropped */
    evals++;
    if (fr < s[0].f) {
      for (int d = 0; d < 3; d++)
        e[d] = c[d] + 2.0 * (c[d] - s[3].x[d]);
      blend(hint, n, 2.0, ur, -1.0, uc); /* e = 2 r - c */
      double fe = loss(pb, e, fr, hint, ue);
      evals++;
      memcpy(s[3].x, fe < fr ? e : r, sizeof(e));
      memcpy(s[3].u, fe < fr ? ue : ur, sizeof(ue));
      s[3].f = fe < fr ? fe : fr;
      continue;
    }
    if (fr < s[2].f) {
      memcpy(s[3].x, r, sizeof(r));
      memcpy(s[3].u, ur, sizeof(ur));
      s[3].f = fr;
      continue;
    }
    for (int d = 0; d < 3; d++)
      k[d] = c[d] + 0.5 * (s[3].x[d] - c[d]);
    blend(hint, n, 0.5, uc, 0.5, s[3].u);
    double fk = loss(pb, k, s[3].f, hint, uk);
    evals++;
    if (fk < s[3].f) {
      memcpy(s[3].x, k, sizeof(k));
      memcpy(s[3].u, uk, sizeof(uk));
      s[3].f = fk;
      continue;
    }
    for (int i = 1; i < 4; i++) {
      for (int d = 0; d < 3; d++)
        s[i].x[d] = s[0].x[d] + 0.5 * (s[i].x[d] - s[0].x[d]);
      blend(hint, n, 0.5, s[0].u, 0.5, s[i].u);
      s[i].f = loss(pb, s[i].x, INFINITY, hint, s[i].u);
      evals++;
    }
  }
  int best = 0;
  for (int i = 1; i < 4; i++)
    if (s[i].f < s[best].f)
      best = i;
  memcpy(x, s[best].x, sizeof(s[best].x));
}

/* Groups the buckets that carry the SLO quantile into at most MAX_POINTS
 * points of about equal interval count: rate the weighted mean, latencies
 * the weighted geometric mean of the buckets' medians. */
static void group_points(problem *pb, const rs_load_stats *ld, int qi, double scale) {
  uint64_t total = 0, acc = 0;
  double w = 0, rate = 0, lq = 0, l50 = 0, w50 = 0;
  for (size_t i = 0; i < ld->nbuckets; i++)
    total += ld->b[i].lat_n[qi] ? ld->b[i].n : 0;
  pb->n = 0;
  for (size_t i = 0; i < ld->nbuckets; i++) {
    const rs_load_bucket *b = &ld->b[i];
    if (b->lat_n[qi] == 0 || !(b->lat_ms[qi] > 0))
      continue;
    double n = (double)b->n;
    w += n;
    rate += n * b->rate_mean / scale;
    lq += n * log(b->lat_ms[qi]);
    if (b->lat_ms[0] > 0) {
      l50 += n * log(b->lat_ms[0]);
      w50 += n;
    }
    acc += b->n;
    if ((double)acc >= (double)total * (double)(pb->n + 1) / MAX_POINTS || acc == total) {
      point *t = &pb->pt[pb->n++];
      t->w = w;
      t->rate = rate / w;
      t->obs_q = exp(lq / w);
      t->obs_50 = w50 > 0 ? exp(l50 / w50) : NAN;
      w = rate = lq = l50 = w50 = 0;
    }
  }
}

typedef struct wratio {
  double r, w;
} wratio;

static int cmp_wratio(const void *a, const void *b) {
  double x = ((const wratio *)a)->r, y = ((const wratio *)b)->r;
  return (x > y) - (x < y);
}

static double wquantile(const wratio *v, size_t n, double total, double q) {
  double acc = 0;
  for (size_t i = 0; i < n; i++) {
    acc += v[i].w;
    if (acc >= q * total)
      return v[i].r;
  }
  return n ? v[n - 1].r : NAN;
}

/* Predicted / observed at every bucket, weighted by its intervals. */
static void compare(rs_backtest *bt, const model *m, const rs_load_stats *ld, int qi, double p,
                    double scale) {
  wratio v[RS_LOAD_BUCKETS];
  size_t n = 0;
  double total = 0, gr[2] = {NAN, NAN}, gu[2] = {NAN, NAN}; /* buckets ascend in rate */
  for (size_t i = 0; i < ld->nbuckets; i++) {
    const rs_load_bucket *b = &ld->b[i];
    if (b->lat_n[qi] == 0 || !(b->lat_ms[qi] > 0))
      continue;
    double rate = b->rate_mean / scale;
    double pred = predict(m, rate, p, extrapolate(gr, gu, rate));
    remember(gr, gu, rate, pred);
    v[n].r = isfinite(pred) ? pred / b->lat_ms[qi] : exp(RATIO_CLAMP);
    v[n].w = (double)b->lat_n[qi];
    total += v[n].w;
    n++;
  }
  qsort(v, n, sizeof(v[0]), cmp_wratio);
  bt->buckets = n;
  bt->intervals = (uint64_t)total;
  bt->ratio_median = wquantile(v, n, total, 0.5);
  bt->ratio_p10 = wquantile(v, n, total, 0.1);
  bt->ratio_p90 = wquantile(v, n, total, 0.9);
  bt->error = fmax(fabs(bt->ratio_p10 - 1.0), fabs(bt->ratio_p90 - 1.0));
}

/* The initial point: the lightest fit point's p50 and quantile as if no
 * request had waited there. */
static void start(const problem *pb, double x[3]) {
  const point *t = &pb->pt[0];
  double cs2 = rs_lognormal_cv2(t->obs_50, t->obs_q, pb->p);
  double s50 = isnan(t->obs_50) ? t->obs_q / 3.0 : t->obs_50;
  x[0] = log(s50 / 1e3);
  x[1] = log(clamp(isnan(cs2) ? 1.0 : cs2, CS2_MIN, CS2_MAX));
  x[2] = 0.0;
}

/* The contradictions the history shows, with the fitted model. */
static void contradictions(rs_fit_ctx *ctx, const rs_demand *d, rs_backtest *bt, double rate) {
  const rs_endpoint_stats *st = &ctx->sum->stats;
  const rs_metric_stats *l50 = &st->m[RS_METRIC_LATENCY_P50];
  const rs_metric_stats *lq =
      &st->m[d->slo_quantile >= 0.99 ? RS_METRIC_LATENCY_P99 : RS_METRIC_LATENCY_P95];
  bt->busy_above_p50 = l50->count && d->busy_s * 1e3 > l50->q[0];
  bt->off_band =
      !(bt->ratio_median >= RS_BACKTEST_BAND_LO && bt->ratio_median <= RS_BACKTEST_BAND_HI);
  bt->spread_ms = l50->count ? lq->q[0] - l50->q[0] : NAN;
  bt->wait_mean_ms = 0;
  if (rate > 0) {
    rs_queue q = {bt->servers, rate, bt->hold_ms / 1e3, 1.0, bt->cs2};
    double w = rs_queue_wait_quantile(&q, d->slo_quantile);
    bt->wait_mean_ms = isfinite(w) ? w * 1e3 : NAN;
  }
  /* Quantiles do not add (the p50 holds some wait too), so only a wait
   * beyond the band's top is a contradiction. */
  bt->wait_above_spread = !isnan(bt->spread_ms) &&
                          !(bt->wait_mean_ms <= RS_BACKTEST_BAND_HI * fmax(bt->spread_ms, 0.0));
  bt->contradictory = bt->busy_above_p50 || bt->off_band || bt->wait_above_spread;
}

/* The fitted model's curve over the observed range of load, for charts. */
static void curve(rs_backtest *bt, const model *m, const rs_load_stats *ld, double p,
                  double scale) {
  double lo = INFINITY, hi = 0;
  for (size_t i = 0; i < ld->nbuckets; i++) {
    if (ld->b[i].n > 0 && ld->b[i].rate_mean > 0) {
      lo = fmin(lo, ld->b[i].rate_mean);
      hi = fmax(hi, ld->b[i].rate_mean);
    }
  }
  if (!(hi > 0))
    return;
  hi *= 1.5;
  double gr[2] = {NAN, NAN}, gu[2] = {NAN, NAN};
  for (size_t i = 0; i < RS_BACKTEST_CURVE; i++) {
    double r = lo + (hi - lo) * (double)i / (RS_BACKTEST_CURVE - 1);
    double ms = predict(m, r / scale, p, extrapolate(gr, gu, r / scale));
    remember(gr, gu, r / scale, ms);
    bt->curve_rate[i] = r;
    bt->curve_ms[i] = isfinite(ms) ? ms : NAN;
  }
  bt->ncurve = RS_BACKTEST_CURVE;
}

bool rs_fit_backtest(rs_fit_ctx *ctx, rs_demand *d) {
  const rs_profile *prof = ctx->profile;
  const rs_endpoint_stats *st = &ctx->sum->stats;
  rs_backtest *bt = &d->backtest;
  int qi = d->slo_quantile >= 0.99 ? 2 : 1;
  double scale = prof->traffic.rate_per_endpoint ? (double)prof->current.replicas : 1.0;
  problem pb;
  memset(bt, 0, sizeof(*bt));
  memset(&pb, 0, sizeof(pb));
  pb.p = d->slo_quantile;
  pb.z_q = rs_normal_quantile(pb.p);
  pb.z_50 = rs_normal_quantile(0.5);
  pb.servers = d->source_active ? d->source_active : 1;
  group_points(&pb, &st->load, qi, scale);
  if (pb.n == 0)
    return false;
  double x[3];
  start(&pb, x);
  model m0 = decode(&pb, x);
  double mean_s = m0.s50_s * sqrt(1.0 + m0.cs2);
  /* The default hold: a request cannot hold a server longer than it takes. */
  pb.hold0 = isnan(d->busy_s) || d->busy_s <= 0 ? mean_s : fmin(d->busy_s, mean_s);
  minimize(&pb, x);
  model m = decode(&pb, x);
  bt->run = true;
  bt->points = pb.n;
  bt->s50_ms = m.s50_s * 1e3;
  bt->cs2 = m.cs2;
  bt->hold_ms = m.hold_s * 1e3;
  bt->servers = m.servers;
  bt->default_hold_ms = pb.hold0 * 1e3;
  bt->concurrency = m.s50_s * sqrt(1.0 + m.cs2) / m.hold_s;
  compare(bt, &m, &st->load, qi, pb.p, scale);
  if (ctx->o->backtest_curve)
    curve(bt, &m, &st->load, pb.p, scale);
  double rate =
      st->m[RS_METRIC_REQUEST_RATE].count ? st->m[RS_METRIC_REQUEST_RATE].mean / scale : 0;
  contradictions(ctx, d, bt, rate);
  return true;
}

/* Where the data contradicts itself, or the model its history. */
void rs_fit_backtest_warn(rs_fit_ctx *ctx, rs_fit_result *res) {
  const rs_demand *d = &res->demand;
  const rs_backtest *bt = &d->backtest;
  const rs_metric_stats *l50 = &ctx->sum->stats.m[RS_METRIC_LATENCY_P50];
  double q = d->slo_quantile * 100.0;
  if (d->capacity_only)
    rs_fit_warn(ctx, res, RS_WARNING_NO_REQUEST_RATE,
                rs_fit_printf(ctx,
                              "no request-rate samples: sized on capacity (%s), at low "
                              "confidence and with no queueing claim; add request_rate (and "
                              "latency) samples for a latency-checked fit",
                              d->busy_basis));
  if (d->mem_unknown)
    rs_fit_warn(ctx, res, RS_WARNING_MEMORY_UNKNOWN,
                "no gpu_mem_used samples and no model.weights: only devices with at least the "
                "current device's memory are considered; add either to consider smaller ones");
  if (!bt->run)
    return;
  if (bt->busy_above_p50)
    rs_fit_warn(ctx, res, RS_WARNING_BUSY_ABOVE_LATENCY,
                rs_fit_printf(ctx,
                              "busy time per request %.2f ms is above the typical p50 latency "
                              "%.2f ms: the utilization counts work off the request path, or the "
                              "samples disagree; the latency model follows the latency samples",
                              d->busy_s * 1e3, l50->q[0]));
  if (bt->off_band)
    rs_fit_warn(ctx, res, RS_WARNING_MODEL_OFF_HISTORY,
                rs_fit_printf(ctx,
                              "the model's p%.0f is %.2fx the observed at the median over %llu "
                              "intervals (band %.1f-%.1f): its latency figures do not hold for "
                              "this endpoint",
                              q, bt->ratio_median, (unsigned long long)bt->intervals,
                              RS_BACKTEST_BAND_LO, RS_BACKTEST_BAND_HI));
  if (bt->wait_above_spread)
    rs_fit_warn(ctx, res, RS_WARNING_WAIT_ABOVE_SPREAD,
                rs_fit_printf(ctx,
                              "the model's own p%.0f wait at the mean load (%.2f ms) exceeds the "
                              "observed p%.0f - p50 (%.2f ms): the latency does not show the queue "
                              "the model puts there",
                              q, bt->wait_mean_ms, q, bt->spread_ms));
}
