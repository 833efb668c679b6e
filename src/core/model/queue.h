/* Queueing math for the fit engine (docs/model.md, "Latency").
 *
 * An endpoint is modelled as c identical servers fed by one queue (M/M/c),
 * with the Allen-Cunneen correction for service times that are not
 * exponential (G/G/c). Erlang C comes from the Erlang B recursion, which
 * stays finite and accurate for any number of servers:
 *   B(0) = 1,  B(k) = A B(k-1) / (k + A B(k-1)),  C = c B / (c - A (1 - B)).
 * A request's latency is its own (lognormal) service time plus its wait, and
 * its quantile is that of the sum: the wait is 0 with probability C and gamma
 * beyond, with the Allen-Cunneen mean and a variability that carries heavy-
 * tailed service (queue.c; checked by bench/queue_sim). Times are in seconds. */
#ifndef RIGHTSIZE_QUEUE_H
#define RIGHTSIZE_QUEUE_H

#include <stdbool.h>

/* Erlang B: the blocking probability of c servers offered a erlangs. */
double rs_erlang_b(unsigned c, double a);

/* Erlang C: the probability that an arrival has to wait, M/M/c with offered
 * load a = lambda / mu erlangs. 1 when a >= c (the queue grows without
 * bound), 0 when a <= 0. */
double rs_erlang_c(unsigned c, double a);

typedef struct rs_queue {
  unsigned servers;   /* c >= 1 */
  double arrival_rps; /* lambda >= 0 */
  double service_s;   /* mean busy time per request on one server, 1 / mu */
  double ca2;         /* squared coefficient of variation of inter-arrival times (1: Poisson) */
  double cs2;         /* the same for service times (1: exponential, 0: constant) */
} rs_queue;

typedef struct rs_queue_result {
  bool stable;        /* utilization < 1 */
  double utilization; /* rho = lambda / (c mu) */
  double p_wait;      /* C(c, A): the chance a request queues at all */
  double mean_wait_s; /* Allen-Cunneen: C / (c mu - lambda) x (ca2 + cs2) / 2; INFINITY unstable */
} rs_queue_result;

/* Evaluates q. */
rs_queue_result rs_queue_eval(const rs_queue *q);

/* The waiting time not exceeded with probability p (0.99 for p99). M/M/c
 * waits are 0 with probability 1 - C and exponential with rate c mu - lambda
 * beyond, so P(W > t) = C exp(-(c mu - lambda) t); the Allen-Cunneen factor
 * (ca2 + cs2) / 2 stretches that tail the way it scales the mean. 0 when
 * C <= 1 - p; INFINITY when unstable. Its tail is too light for heavy-tailed
 * service, and adding it to a service quantile is not a latency quantile:
 * rs_queue_response_quantile is. */
double rs_queue_wait_quantile(const rs_queue *q, double p);

/* The p-quantile (seconds) of a request's response time R = S + W: S, the request's own latency,
 * lognormal with median s50_s and squared coefficient of variation s_cs2; W, its wait in queue q
 * (c servers each held q->service_s per request with variability q->cs2, arrivals q->ca2).
 * The quantile of the sum, not the sum of quantiles. INFINITY when q is unstable; NaN for bad
 * input. */
double rs_queue_response_quantile(const rs_queue *q, double s50_s, double s_cs2, double p);

/* rs_queue_response_quantile with its Newton steps begun at guess_s (seconds), say the answer
 * at a nearby rate: the same root of the same tail, within about 1e-14 whatever the guess (the
 * tests hold it to 1e-13 relative of the plain one); a guess that is not finite or not above S's
 * own quantile is ignored. Fewer tail evaluations when the guess is close. */
double rs_queue_response_quantile_from(const rs_queue *q, double s50_s, double s_cs2, double p,
                                       double guess_s);

/* rs_queue_response_quantile as it was found before (regula falsi with the
 * Anderson-Bjorck weight on the same tail, several more evaluations): the
 * reference the tests hold the Newton search to (within 1e-13 relative). */
double rs_queue_response_quantile_ref(const rs_queue *q, double s50_s, double s_cs2, double p);

/* P(R > t) for the same R = S + W: the chance a request takes longer than t
 * seconds. One evaluation where the quantile needs a root search, so "does the
 * p-quantile meet t?" is rs_queue_response_tail(...) <= 1 - p. 1 when q is
 * unstable; NaN for bad input. */
double rs_queue_response_tail(const rs_queue *q, double s50_s, double s_cs2, double t);

/* A lower bound on P(R > t) at a few percent of the cost of
 * rs_queue_response_tail (four wait tails, no integral): S and W are
 * independent, so P(S + W > t) >= P(S > s) P(W > t - s) for every s, taken at
 * s = 0, S's median and S at z = 1 and 2, and >= P(S > t). It bounds the exact
 * probability up to the quadrature's error (about 1e-4 relative), so use it
 * to decide whether the tail is worth asking, not in its place. Same edge
 * values as rs_queue_response_tail. */
double rs_queue_response_tail_floor(const rs_queue *q, double s50_s, double s_cs2, double t);

/* rs_queue_response_tail's integral with `panels` (even) Simpson panels over
 * the whole range of S up to t, for tests and benchmarks: at a few thousand
 * panels it is the converged value the 40-panel tail is checked against.
 * NaN for bad input or an odd or too small panel count. */
double rs_queue_response_tail_ref(const rs_queue *q, double s50_s, double s_cs2, double t,
                                  int panels);

/* Squared coefficient of variation of a lognormal distribution with the
 * given median and p-quantile (p in (0.5, 1)): sigma = ln(qp / q50) / z_p,
 * cs2 = exp(sigma^2) - 1. NaN when the inputs do not describe one
 * (qp < q50, or either not positive). */
double rs_lognormal_cv2(double q50, double qp, double p);

/* The mean of a lognormal distribution whose p-quantile is qp and whose
 * squared coefficient of variation is cv2: median = qp / exp(z_p sigma),
 * mean = median x sqrt(1 + cv2). */
double rs_lognormal_mean(double qp, double p, double cv2);

/* The regularized upper incomplete gamma function Q(a, x) = Gamma(a, x) / Gamma(a)
 * for a > 0, given lga = lgamma(a) (the caller computes it once per shape):
 * 1 for x <= 0. The wait's tail (queue.c). */
double rs_gamma_q(double a, double lga, double x);

/* e^ln_k Q(a, x), and e^ln_k times Q's density x^(a-1) e^-x / Gamma(a) into
 * *dens (NULL: not wanted; 0 where Q is 1 or underflows): how the response
 * tail weighs the wait's tail and its density by the normal density. */
double rs_gamma_q_scaled(double a, double lga, double x, double ln_k, double *dens);

/* rs_gamma_q_scaled of x[i] and ln_k[i] into q[i] and dens[i] for
 * i < n <= RS_GAMMA_BLOCK, the same values bit for bit, several
 * arguments' loops run side by side (the response tail's nodes). */
#define RS_GAMMA_BLOCK 40
void rs_gamma_q_scaled_n(double a, double lga, const double *x, const double *ln_k, double *q,
                         double *dens, int n);

/* The standard normal quantile z_p (Acklam's rational approximation refined
 * by one Halley step, accurate to about 1e-15 in double). */
double rs_normal_quantile(double p);

#endif
