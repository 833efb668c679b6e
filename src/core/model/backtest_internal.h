/* The back-test's coarse quantile (backtest.c), for its unit test: the
 * replayed bisection the search uses and the plain bisection it must equal
 * bit for bit. */
#ifndef RIGHTSIZE_BACKTEST_INTERNAL_H
#define RIGHTSIZE_BACKTEST_INTERNAL_H

#include "queue.h"

/* The response-time p-quantile (ms) of a lognormal S (median s50 seconds,
 * sigma its log's standard deviation, lo its own p-quantile in seconds)
 * beside the wait of r (NULL: no queue), as the search computes it.
 * *guess: where the root search starts (if inside the bisection's first
 * interval; it changes the cost, never the answer), then where it ended. */
double rs_backtest_quantile_fast(double s50, double sigma, double lo, const rs_queue_result *r,
                                 double p, double *guess);
double rs_backtest_quantile_fast_ref(double s50, double sigma, double lo, const rs_queue_result *r,
                                     double p);
/* A bisection step's side at t: +1 where the tail of r's response time at
 * t is above 1 - p (r stable, with a wait), -1 where not. */
int rs_backtest_tail_side(double s50, double sigma, const rs_queue_result *r, double p, double t);
/* The same side from the plain quadrature alone (libm's exponentials, no
 * fast sum and no band): what rs_backtest_tail_side must always equal. */
int rs_backtest_tail_side_mass(double s50, double sigma, const rs_queue_result *r, double p,
                               double t);

#endif
