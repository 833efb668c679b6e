/* Erlang B/C, Allen-Cunneen waits, and the lognormal helper (queue.h). */
#include "queue.h"

#include <math.h>

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
