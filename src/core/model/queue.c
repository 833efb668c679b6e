/* Erlang B/C, Allen-Cunneen waits, and the lognormal helper (queue.h). */
#include "queue.h"

#include <math.h>
#include <stddef.h>

double rs_erlang_b(unsigned c, double a) {
  double b = 1.0;
  if (!(a > 0))
    return c == 0 ? 1.0 : 0.0;
  for (unsigned k = 1; k <= c; k++)
    b = a * b / ((double)k + a * b);
  return b;
}

double rs_erlang_c(unsigned c, double a) {
  if (!(a > 0))
    return 0.0;
  if (c == 0 || a >= (double)c)
    return 1.0;
  double b = rs_erlang_b(c, a);
  double C = (double)c * b / ((double)c - a * (1.0 - b));
  return C > 1.0 ? 1.0 : C;
}

rs_queue_result rs_queue_eval(const rs_queue *q) {
  rs_queue_result r;
  double mu = 1.0 / q->service_s, cap = (double)q->servers * mu;
  double a = q->arrival_rps * q->service_s;
  r.utilization = q->servers ? q->arrival_rps / cap : INFINITY;
  r.stable = q->servers > 0 && r.utilization < 1.0;
  r.p_wait = rs_erlang_c(q->servers, a);
  if (!r.stable)
    r.mean_wait_s = INFINITY;
  else if (r.p_wait == 0.0)
    r.mean_wait_s = 0.0;
  else
    r.mean_wait_s = r.p_wait / (cap - q->arrival_rps) * (q->ca2 + q->cs2) / 2.0;
  return r;
}

double rs_queue_wait_quantile(const rs_queue *q, double p) {
  rs_queue_result r = rs_queue_eval(q);
  double tail = 1.0 - p;
  if (!r.stable)
    return INFINITY;
  if (r.p_wait <= tail)
    return 0.0;
  double cap = (double)q->servers / q->service_s;
  return log(r.p_wait / tail) / (cap - q->arrival_rps) * (q->ca2 + q->cs2) / 2.0;
}

double rs_normal_quantile(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double lo = 0.02425;
  double x, qv, r;
  if (!(p > 0 && p < 1))
    return p == 0 ? -INFINITY : p == 1 ? INFINITY : NAN;
  if (p < lo) {
    qv = sqrt(-2 * log(p));
    x = (((((c[0] * qv + c[1]) * qv + c[2]) * qv + c[3]) * qv + c[4]) * qv + c[5]) /
        ((((d[0] * qv + d[1]) * qv + d[2]) * qv + d[3]) * qv + 1);
  } else if (p <= 1 - lo) {
    qv = p - 0.5;
    r = qv * qv;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * qv /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    qv = sqrt(-2 * log(1 - p));
    x = -(((((c[0] * qv + c[1]) * qv + c[2]) * qv + c[3]) * qv + c[4]) * qv + c[5]) /
        ((((d[0] * qv + d[1]) * qv + d[2]) * qv + d[3]) * qv + 1);
  }
  /* One Halley step on erfc. */
  double e = 0.5 * erfc(-x / sqrt(2.0)) - p;
  double u = e * sqrt(2 * 3.14159265358979323846) * exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

double rs_lognormal_cv2(double q50, double qp, double p) {
  if (!(q50 > 0) || !(qp >= q50) || !(p > 0.5 && p < 1))
    return NAN;
  double sigma = log(qp / q50) / rs_normal_quantile(p);
  return expm1(sigma * sigma);
}

double rs_lognormal_mean(double qp, double p, double cv2) {
  double sigma = sqrt(log1p(cv2));
  return qp / exp(rs_normal_quantile(p) * sigma) * sqrt(1.0 + cv2);
}

/* P(W > x) for x >= 0: the chance of waiting times the conditional tail. */
static double wait_tail(double p_wait, double cond_mean_s, double x) {
  return p_wait * exp(-x / cond_mean_s);
}

/* P(S + W > t): P(S > t) plus the chance that S <= t and W > t - S, the
 * latter integrated over the normal variate z of ln S by Simpson's rule on a
 * fixed grid (deterministic, 256 panels from z = -9 to z(t)). */
static double response_tail(double t, double s50, double sigma, double p_wait, double cond_mean) {
  enum { PANELS = 256 };
  double zt = sigma > 0 ? log(t / s50) / sigma : (t >= s50 ? INFINITY : -INFINITY);
  double above = sigma > 0 ? 0.5 * erfc(zt / sqrt(2.0)) : (t < s50 ? 1.0 : 0.0);
  if (!(p_wait > 0) || zt == -INFINITY)
    return above;
  if (sigma == 0)
    return above + wait_tail(p_wait, cond_mean, t - s50);
  double lo = -9.0, hi = fmax(zt, lo), h = (hi - lo) / PANELS, sum = 0;
  for (int i = 0; i <= PANELS; i++) {
    double z = lo + h * i, w = (i == 0 || i == PANELS) ? 1 : (i % 2 ? 4 : 2);
    double s = s50 * exp(sigma * z);
    sum += w * exp(-z * z / 2) * wait_tail(p_wait, cond_mean, fmax(t - s, 0.0));
  }
  return above + sum * h / 3 / sqrt(2 * 3.14159265358979323846);
}

double rs_queue_response_quantile(const rs_queue *q, double s50_s, double s_cs2, double p) {
  if (q == NULL || !(s50_s > 0) || !isfinite(s50_s) || !(s_cs2 >= 0) || !isfinite(s_cs2) ||
      !(p > 0 && p < 1) || !(q->service_s > 0) || !(q->arrival_rps >= 0) || !(q->ca2 >= 0) ||
      !(q->cs2 >= 0) || q->servers == 0)
    return NAN;
  rs_queue_result r = rs_queue_eval(q);
  if (!r.stable)
    return INFINITY;
  double sigma = sqrt(log1p(s_cs2)), tail = 1.0 - p;
  double cond_mean = r.p_wait > 0 ? r.mean_wait_s / r.p_wait : 0.0;
  double pw = cond_mean > 0 ? r.p_wait : 0.0;
  /* S and W are >= 0, so each one's quantile bounds the sum's from below. */
  double lo = s50_s * exp(sigma * rs_normal_quantile(p));
  double wq = pw > tail ? cond_mean * log(pw / tail) : 0.0;
  lo = fmax(lo, wq);
  double hi = 2.0 * lo;
  for (int i = 0; i < 200 && response_tail(hi, s50_s, sigma, pw, cond_mean) > tail; i++)
    hi *= 2.0;
  for (int i = 0; i < 100 && hi - lo > 1e-12 * hi; i++) {
    double mid = 0.5 * (lo + hi);
    if (response_tail(mid, s50_s, sigma, pw, cond_mean) > tail)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}
