/* Erlang B/C, Allen-Cunneen waits, the lognormal helpers, and the quantile of
 * a request's service time plus its wait (queue.h, docs/model.md "Latency"). */
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

/* The regularized upper incomplete gamma function Q(a, x) = Gamma(a, x) / Gamma(a),
 * lga = lgamma(a): the power series of P = 1 - Q below x = a + 1, the
 * continued fraction of Q above it; each converges there in well under 200
 * terms and stops at the first term that changes the sum or the convergent by
 * less than 1e-15 of it. The fraction
 *   Q = front / (b0 + a1 / (b1 + a2 / (b2 + ...))),  b_n = x + 1 - a + 2n,  a_n = -n (n - a)
 * is evaluated forward by the Wallis recurrence A_n = b_n A_n-1 + a_n A_n-2 (the
 * same for B, convergent A_n / B_n) rather than by Lentz's method: no division
 * on the recurrence's own chain (Lentz's two per term were most of the cost of
 * the latency quantile), the terms rescaled by a power of two (exact) before
 * they overflow. The two agree to a few units in the last place
 * (tests/unit/test_queue_ref.c keeps the Lentz form as the reference).
 * gamma_q_scaled returns e^ln_k Q(a, x): above a + 1 the factor joins the
 * front's exponent, one exp instead of two where the response tail weighs Q
 * by the normal density. With dens not NULL it also stores e^ln_k times
 * Q's density, -dQ/dx = x^(a-1) e^-x / Gamma(a) (0 where Q is 1 or its front
 * underflows): the front already computed, over x.
 *
 * It is taken in three parts, so that the response tail can run the loops
 * of many arguments side by side (gamma_lanes): gamma_begin (the front and
 * which loop, if any), the loop (gamma_series, the sum of P's series;
 * gamma_fraction, the convergent) and gamma_end. */
enum { GAMMA_DONE, GAMMA_SERIES, GAMMA_FRACTION };

/* fmax as glibc's x86-64 one computes it (maxsd: x > y ? x : y, the other
 * operand where one is NaN), inline: the tail takes two a node. */
static inline double max2(double x, double y) { return isnan(y) || x > y ? x : y; }

/* The front of e^ln_k Q(a, x): GAMMA_DONE with *q the value (no loop to
 * run), else the loop to run, with *k and *front for gamma_end. *dens as
 * gamma_q_scaled's. */
static inline int gamma_begin(double a, double lga, double x, double ln_k, double *q, double *dens,
                              double *k, double *front) {
  *dens = 0.0;
  if (!(x > 0)) {
    *q = exp(ln_k);
    return GAMMA_DONE;
  }
  double ln_front = a * log(x) - x - lga;
  if (x < a + 1) {
    *k = exp(ln_k), *front = exp(ln_front);
    if (*front == 0) {
      *q = *k;
      return GAMMA_DONE;
    }
    *dens = *k * *front / x;
    return GAMMA_SERIES;
  }
  *front = exp(ln_k + ln_front);
  if (*front == 0) {
    *q = 0.0;
    return GAMMA_DONE;
  }
  *dens = *front / x;
  return GAMMA_FRACTION;
}

/* The sum of P's series, x / a^1 ... (x < a + 1). */
static inline double gamma_series(double a, double x) {
  double term = 1.0 / a, sum = term;
  for (int n = 1; n < 200 && term > sum * 1e-15; n++) {
    term *= x / (a + n);
    sum += term;
  }
  return sum;
}

/* The continued fraction's convergent (x >= a + 1). */
static inline double gamma_fraction(double a, double x) {
  /* A_-1 = 1, A_0 = 0, B_-1 = 0, B_0 = 1; the first step gives 1 / b0. */
  double b = x + 1 - a, a0 = 0, a1 = 1, b0 = 1, b1 = b, f = 1 / b;
  for (int n = 1; n < 200; n++) {
    double an = -n * (n - a), a2, b2, g;
    b += 2;
    a2 = b * a1 + an * a0;
    b2 = b * b1 + an * b0;
    a0 = a1, a1 = a2, b0 = b1, b1 = b2;
    if (fabs(b1) > 0x1p500)
      a0 *= 0x1p-500, a1 *= 0x1p-500, b0 *= 0x1p-500, b1 *= 0x1p-500;
    if (b1 == 0)
      continue;
    g = a1 / b1;
    if (fabs(g - f) < 1e-15 * fabs(f)) {
      f = g;
      break;
    }
    f = g;
  }
  return f;
}

/* e^ln_k Q(a, x) from gamma_begin's kind, k and front and the loop's value. */
static inline double gamma_end(int kind, double k, double front, double loop) {
  return kind == GAMMA_SERIES ? k * max2(0.0, 1.0 - front * loop) : front * loop;
}

static double gamma_q_scaled(double a, double lga, double x, double ln_k, double *dens) {
  double q, k, front, dens_;
  int kind = gamma_begin(a, lga, x, ln_k, &q, &dens_, &k, &front);
  if (dens != NULL)
    *dens = dens_;
  if (kind == GAMMA_DONE)
    return q;
  return gamma_end(kind, k, front,
                   kind == GAMMA_SERIES ? gamma_series(a, x) : gamma_fraction(a, x));
}

double rs_gamma_q(double a, double lga, double x) { return gamma_q_scaled(a, lga, x, 0.0, NULL); }

/* gamma_series (fraction false) or gamma_fraction (true) of a at x[0..n)
 * into out[0..n). On x86-64 with AVX2 (GCC or Clang; chosen at run time)
 * four arguments at a time, one in each lane of a vector, in step: each
 * lane does its own loop's operations in its order (no FMA; a lane whose
 * loop has stopped keeps its value while the others run on), so every
 * value is the loop's, bit for bit (test_queue_ref checks it). A tail's
 * arguments are neighbours whose loops stop within a term or two of each
 * other. */
#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define GAMMA_LANES_AVX 1

/* gamma_series of x[0..4) into out[0..4): a stopped lane adds zeros. */
__attribute__((target("avx2"))) static void series4(double a, const double *x, double *out) {
  const __m256d eps = _mm256_set1_pd(1e-15), xs = _mm256_loadu_pd(x);
  __m256d term = _mm256_set1_pd(1.0 / a), sum = term;
  __m256d live = _mm256_cmp_pd(term, _mm256_mul_pd(sum, eps), _CMP_GT_OQ);
  for (double n = 1; n < 200 && _mm256_movemask_pd(live); n++) {
    term = _mm256_mul_pd(term, _mm256_div_pd(xs, _mm256_set1_pd(a + n)));
    sum = _mm256_add_pd(sum, term = _mm256_and_pd(term, live));
    live = _mm256_cmp_pd(term, _mm256_mul_pd(sum, eps), _CMP_GT_OQ);
  }
  _mm256_storeu_pd(out, sum);
}

/* One step of gamma_fraction's recurrence in four lanes, term an: the
 * older convergent's numerator and denominator (*p0, *q0) become the new
 * ones, *p1 and *q1 the older; false once no lane is live. */
__attribute__((target("avx2"), always_inline)) static inline bool
fraction_step(double an_, __m256d b, __m256d *p0, __m256d *p1, __m256d *q0, __m256d *q1, __m256d *f,
              __m256d *live) {
  const __m256d one = _mm256_set1_pd(1.0), zero = _mm256_setzero_pd();
  const __m256d mag = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
  __m256d an = _mm256_set1_pd(an_);
  *p0 = _mm256_add_pd(_mm256_mul_pd(b, *p1), _mm256_mul_pd(an, *p0));
  *q0 = _mm256_add_pd(_mm256_mul_pd(b, *q1), _mm256_mul_pd(an, *q0));
  __m256d over = _mm256_cmp_pd(_mm256_and_pd(*q0, mag), _mm256_set1_pd(0x1p500), _CMP_GT_OQ);
  if (_mm256_movemask_pd(over)) {
    __m256d scale = _mm256_blendv_pd(one, _mm256_set1_pd(0x1p-500), over);
    *p0 = _mm256_mul_pd(*p0, scale), *p1 = _mm256_mul_pd(*p1, scale);
    *q0 = _mm256_mul_pd(*q0, scale), *q1 = _mm256_mul_pd(*q1, scale);
  }
  __m256d nz = _mm256_cmp_pd(*q0, zero, _CMP_NEQ_UQ), g = _mm256_div_pd(*p0, *q0);
  __m256d close =
      _mm256_cmp_pd(_mm256_and_pd(_mm256_sub_pd(g, *f), mag),
                    _mm256_mul_pd(_mm256_set1_pd(1e-15), _mm256_and_pd(*f, mag)), _CMP_LT_OQ);
  *f = _mm256_blendv_pd(*f, g, _mm256_and_pd(*live, nz));
  *live = _mm256_andnot_pd(_mm256_and_pd(nz, close), *live);
  return _mm256_movemask_pd(*live) != 0;
}

/* gamma_fraction of x[0..4) into out[0..4), two steps a turn (the roles of
 * the convergents swap instead of their registers); an = -n (n - a) as
 * there. */
__attribute__((target("avx2"))) static void fraction4(double a, const double *x, double *out) {
  const __m256d one = _mm256_set1_pd(1.0), two = _mm256_set1_pd(2.0);
  __m256d b = _mm256_sub_pd(_mm256_add_pd(_mm256_loadu_pd(x), one), _mm256_set1_pd(a));
  __m256d a0 = _mm256_setzero_pd(), a1 = one, b0 = one, b1 = b, f = _mm256_div_pd(one, b);
  __m256d live = _mm256_cmp_pd(a0, a0, _CMP_EQ_OQ);
  for (double n = 1; n < 200; n += 2) {
    b = _mm256_add_pd(b, two);
    if (!fraction_step(-n * (n - a), b, &a0, &a1, &b0, &b1, &f, &live) || n + 1 >= 200)
      break;
    b = _mm256_add_pd(b, two);
    if (!fraction_step(-(n + 1) * (n + 1 - a), b, &a1, &a0, &b1, &b0, &f, &live))
      break;
  }
  _mm256_storeu_pd(out, f);
}

__attribute__((target("avx2"))) static void gamma_lanes_avx(double a, bool fraction,
                                                            const double *x, double *out, int n) {
  for (int i = 0; i < n; i += 4) {
    double v[4];
    for (int j = 0; j < 4; j++)
      v[j] = x[i + j < n ? i + j : n - 1];
    if (fraction)
      fraction4(a, v, v);
    else
      series4(a, v, v);
    for (int j = 0; j < 4 && i + j < n; j++)
      out[i + j] = v[j];
  }
}
#endif

static void gamma_lanes(double a, bool fraction, const double *x, double *out, int n) {
#ifdef GAMMA_LANES_AVX
  if (__builtin_cpu_supports("avx2")) {
    gamma_lanes_avx(a, fraction, x, out, n);
    return;
  }
#endif
  for (int i = 0; i < n; i++)
    out[i] = fraction ? gamma_fraction(a, x[i]) : gamma_series(a, x[i]);
}

/* e^ln_k[i] Q(a, x[i]) into q[i] and the density gamma_q_scaled stores
 * into dens[i], for i < n <= RS_GAMMA_BLOCK: the fronts one at a time, the
 * loops side by side (gamma_lanes), the same values as gamma_q_scaled. */
void rs_gamma_q_scaled_n(double a, double lga, const double *x, const double *ln_k, double *q,
                         double *dens, int n) {
  double k[RS_GAMMA_BLOCK], front[RS_GAMMA_BLOCK], xl[2][RS_GAMMA_BLOCK], loop[2][RS_GAMMA_BLOCK];
  int kind[RS_GAMMA_BLOCK], at[2][RS_GAMMA_BLOCK], nl[2] = {0, 0};
  for (int i = 0; i < n; i++) {
    kind[i] = gamma_begin(a, lga, x[i], ln_k[i], &q[i], &dens[i], &k[i], &front[i]);
    if (kind[i] != GAMMA_DONE) {
      int l = kind[i] == GAMMA_FRACTION;
      at[l][nl[l]] = i, xl[l][nl[l]++] = x[i];
    }
  }
  for (int l = 0; l < 2; l++) {
    gamma_lanes(a, l == 1, xl[l], loop[l], nl[l]);
    for (int j = 0; j < nl[l]; j++) {
      int i = at[l][j];
      q[i] = gamma_end(kind[i], k[i], front[i], loop[l][j]);
    }
  }
}

double rs_gamma_q_scaled(double a, double lga, double x, double ln_k, double *dens) {
  return gamma_q_scaled(a, lga, x, ln_k, dens);
}

/* The wait W: 0 with probability 1 - p_wait, else gamma with this mean and
 * shape (1 / its squared coefficient of variation); lga = lgamma(shape). */
typedef struct wait_dist {
  double p_wait, mean_s, shape, lga;
} wait_dist;

/* P(W > x) for x >= 0. */
static double wait_tail(const wait_dist *w, double x) {
  return w->p_wait * rs_gamma_q(w->shape, w->lga, x * w->shape / w->mean_s);
}

/* P(S + W > t) for S = s50 e^(sigma Z), Z standard normal: P(S > t) plus
 * the chance that S <= t and W > t - S, the latter integrated over Z by
 * Simpson's rule on a fixed grid from z = -6.5 (below it the normal density
 * is under 1e-9) to top = min(z(t), zmax): deterministic, `panels` panels.
 * Above z = 6.5 the normal mass is under 5e-11, so stopping there loses
 * nothing that shows; running on to a far z(t) (a narrow S beside a long
 * t) would leave a handful of nodes on S's spread and the sum up to 25%
 * off (docs/model.md, "The quantile of the sum"). zmax = INFINITY is the
 * full range, the reference of the tests.
 * With dtail not NULL it also stores the derivative in t of that same sum
 * (not of the exact tail): the nodes move with z(t) when it is the top, so
 * each term's change carries their motion, dz/dt = (1 - v^3) / (sigma t),
 * beside W's density at the node (gamma_q_scaled's dens). The quantile's
 * Newton steps use it; the value is computed as without it. */
static double response_tail_n(double t, double s50, double sigma, const wait_dist *w, int panels,
                              double zmax, double *dtail) {
  const double rt2pi = sqrt(2 * 3.14159265358979323846);
  double zt = sigma > 0 ? log(t / s50) / sigma : (t >= s50 ? INFINITY : -INFINITY);
  double above = sigma > 0 ? 0.5 * erfc(zt / sqrt(2.0)) : (t < s50 ? 1.0 : 0.0);
  double dzt = sigma > 0 ? 1 / (sigma * t) : 0, k = w->shape / w->mean_s;
  if (dtail != NULL)
    *dtail = isfinite(zt) ? -exp(-zt * zt / 2) / rt2pi * dzt : 0.0;
  if (!(w->p_wait > 0) || zt == -INFINITY)
    return above;
  if (sigma == 0) {
    double dens, tw = w->p_wait * gamma_q_scaled(w->shape, w->lga, (t - s50) * w->shape / w->mean_s,
                                                 0.0, &dens);
    if (dtail != NULL)
      *dtail = -w->p_wait * dens * k;
    return above + tw;
  }
  /* z = top - span v^3 crowds the nodes near top: at z(t), when it is the
   * top, W's density may be unbounded (gamma shape below 1) and the
   * integrand is least smooth. */
  double top = fmin(zt, zmax);
  double span = fmax(top + 6.5, 0.0), h = 1.0 / panels, sum = 0, dsum = 0;
  double dtop = zt < zmax ? dzt : 0, dspan = top + 6.5 > 0 ? dtop : 0;
  for (int i0 = 1; i0 <= panels; i0 += RS_GAMMA_BLOCK) {
    int m = panels - i0 + 1 < RS_GAMMA_BLOCK ? panels - i0 + 1 : RS_GAMMA_BLOCK;
    double z[RS_GAMMA_BLOCK], s[RS_GAMMA_BLOCK], x[RS_GAMMA_BLOCK], ln_k[RS_GAMMA_BLOCK];
    double g[RS_GAMMA_BLOCK], dens[RS_GAMMA_BLOCK];
    for (int j = 0; j < m; j++) {
      double v = h * (i0 + j);
      z[j] = top - span * v * v * v, s[j] = s50 * exp(sigma * z[j]);
      x[j] = max2(t - s[j], 0.0) * w->shape / w->mean_s;
      ln_k[j] = -z[j] * z[j] / 2;
    }
    rs_gamma_q_scaled_n(w->shape, w->lga, x, ln_k, g, dens, m);
    for (int j = 0; j < m; j++) {
      int i = i0 + j;
      double v = h * i, wt = i == panels ? 1 : (i % 2 ? 4 : 2);
      sum += wt * 3 * span * v * v * w->p_wait * g[j];
      if (dtail == NULL)
        continue;
      double dz = (1 - v * v * v) * dtop, dx = x[j] > 0 ? (1 - s[j] * sigma * dz) * k : 0;
      dsum +=
          wt * 3 * v * v * w->p_wait * (dspan * g[j] - span * (dens[j] * dx + z[j] * dz * g[j]));
    }
  }
  if (dtail != NULL)
    *dtail += dsum * h / 3 / rt2pi;
  return above + sum * h / 3 / sqrt(2 * 3.14159265358979323846);
}

static double response_tail(double t, double s50, double sigma, const wait_dist *w) {
  return response_tail_n(t, s50, sigma, w, 40, 6.5, NULL);
}

/* The wait of q as a wait_dist (docs/model.md, "Latency"):
 * - P(W > 0) = C(c, A), Erlang C;
 * - the conditional mean, Allen-Cunneen's C / (c mu - lambda) x (ca2 + cs2) / 2 / C,
 *   times Cosmetatos' M/D/c correction 1 + (1 - rho)(c - 1)(sqrt(4 + 5c) - 2) / (16 rho c)
 *   weighted by (1 - cs2) when cs2 < 1 (Allen-Cunneen alone under-states M/D/c waits),
 *   at rho >= 0.3;
 * - the conditional squared coefficient of variation: M/G/1's exact one (Takacs'
 *   second moment, lognormal holds: E[S^3] / E[S]^3 = (1 + cs2)^3)
 *     cd2_1 = 2 rho - 1 + 4 (1 - rho)(1 + cs2) / 3,
 *   damped towards the exponential's 1 by k = max(1, c (1 - rho) + 1/2): with c
 *   servers a long wait needs about c (1 - rho) long services at once (Foss and
 *   Korshunov 2006), so the heavy tail fades as idle capacity grows. The
 *   damping is calibrated on bench/queue_sim. */
static wait_dist wait_of(const rs_queue *q, const rs_queue_result *r) {
  wait_dist w = {0, 0, 1, 0};
  if (!(r->p_wait > 0) || !(r->mean_wait_s > 0))
    return w;
  double rho = r->utilization, c = q->servers;
  double cd2 = 2 * rho - 1 + 4 * (1 - rho) * (1 + q->cs2) / 3;
  cd2 = 1 + (cd2 - 1) / fmax(1.0, c * (1 - rho) + 0.5);
  /* Cosmetatos over-states light traffic (Kimura, JORS 1991) and grows
   * without bound as rho -> 0: below 0.3, the bench's lightest load, it
   * keeps its value there. */
  double md = 1.0, rc = fmax(rho, 0.3);
  if (q->cs2 < 1)
    md += (1 - q->cs2) * (1 - rc) * (c - 1) * (sqrt(4 + 5 * c) - 2) / (16 * rc * c);
  w.p_wait = r->p_wait;
  w.mean_s = md * r->mean_wait_s / r->p_wait;
  w.shape = 1 / fmax(cd2, 0.05);
  w.lga = lgamma(w.shape);
  return w;
}

/* ln P(S + W > e^u) - ln(1 - p): decreasing in u, zero at the answer; a
 * tail that underflows counts as 1e-300, so the value stays finite. */
static double gap(double u, double s50, double sigma, const wait_dist *w, double tail) {
  return log(fmax(response_tail(exp(u), s50, sigma, w), 1e-300)) - log(tail);
}

/* Whether q and the lognormal S (median s50_s, s_cs2) describe a response time. */
static bool valid(const rs_queue *q, double s50_s, double s_cs2) {
  return q != NULL && s50_s > 0 && isfinite(s50_s) && s_cs2 >= 0 && isfinite(s_cs2) &&
         q->service_s > 0 && isfinite(q->service_s) && q->arrival_rps >= 0 && q->ca2 >= 0 &&
         q->cs2 >= 0 && isfinite(q->cs2) && q->servers > 0;
}

/* The edges shared by the tail functions: false with *edge set (NaN for bad
 * input, 1 for an unstable queue or t <= 0, 0 for an infinite t), else true
 * with *w the wait of q. */
static bool tail_setup(const rs_queue *q, double s50_s, double s_cs2, double t, wait_dist *w,
                       double *edge) {
  if (!valid(q, s50_s, s_cs2) || isnan(t)) {
    *edge = NAN;
    return false;
  }
  rs_queue_result r = rs_queue_eval(q);
  if (!r.stable || !(t > 0) || isinf(t)) {
    *edge = !r.stable || !(t > 0) ? 1.0 : 0.0;
    return false;
  }
  *w = wait_of(q, &r);
  return true;
}

double rs_queue_response_tail(const rs_queue *q, double s50_s, double s_cs2, double t) {
  wait_dist w;
  double edge;
  if (!tail_setup(q, s50_s, s_cs2, t, &w, &edge))
    return edge;
  return response_tail(t, s50_s, sqrt(log1p(s_cs2)), &w);
}

double rs_queue_response_tail_ref(const rs_queue *q, double s50_s, double s_cs2, double t,
                                  int panels) {
  wait_dist w;
  double edge;
  if (panels < 2 || panels % 2)
    return NAN;
  if (!tail_setup(q, s50_s, s_cs2, t, &w, &edge))
    return edge;
  return response_tail_n(t, s50_s, sqrt(log1p(s_cs2)), &w, panels, INFINITY, NULL);
}

double rs_queue_response_tail_floor(const rs_queue *q, double s50_s, double s_cs2, double t) {
  wait_dist w;
  double edge;
  if (!tail_setup(q, s50_s, s_cs2, t, &w, &edge))
    return edge;
  double sigma = sqrt(log1p(s_cs2));
  double lb = sigma > 0 ? 0.5 * erfc(log(t / s50_s) / sigma / sqrt(2.0)) : t < s50_s;
  if (!(w.p_wait > 0))
    return lb;
  /* P(S > s) at s = 0, s50 and s50 e^(sigma z) for z = 1, 2: 1, 1/2, Phi(-1), Phi(-2) */
  static const double z[] = {0, 1, 2}, above[] = {0.5, 0.15865525393145705, 0.022750131948179207};
  lb = fmax(lb, wait_tail(&w, t));
  for (size_t i = 0; i < sizeof(z) / sizeof(z[0]); i++) {
    double s = s50_s * exp(sigma * z[i]);
    if (s < t)
      lb = fmax(lb, above[i] * wait_tail(&w, t - s));
  }
  return lb;
}

/* Regula falsi on gap() in [lo, hi] (flo > 0 >= fhi) with the Anderson-Bjorck
 * weight (when one end is kept twice the other end's value is scaled by
 * 1 - f(new) / f(replaced), or halved when that is not positive, so the kept
 * end does not stall). It stops when gap() is within 1e-14 of 0 or the bracket
 * is 1e-14 wide in ln t, a few units in the last place: the answer is the
 * model's to nearly the double's precision, the same whatever the path
 * (a looser stop let the tenth digit depend on where the search began). */
static double regula_falsi(double lo, double flo, double hi, double fhi, double s50, double sigma,
                           const wait_dist *w, double tail) {
  int side = 0;
  for (int i = 0; i < 100 && hi - lo > 1e-14; i++) {
    double u = hi - fhi * (hi - lo) / (fhi - flo);
    if (!(u > lo && u < hi)) /* a secant off the bracket: bisect instead */
      u = 0.5 * (lo + hi);
    if (!(u > lo && u < hi)) /* lo and hi adjacent doubles */
      break;
    double fu = gap(u, s50, sigma, w, tail);
    if (fabs(fu) <= 1e-14)
      return exp(u);
    if (fu > 0) {
      if (side == 1) {
        double m = 1 - fu / flo;
        fhi *= m > 0 ? m : 0.5;
      }
      lo = u, flo = fu, side = 1;
    } else {
      if (side == -1) {
        double m = 1 - fu / fhi;
        flo *= m > 0 ? m : 0.5;
      }
      hi = u, fhi = fu, side = -1;
    }
  }
  return exp(0.5 * (lo + hi));
}

/* The edges shared by the quantile searches: false with *edge set (NaN for
 * bad input, INFINITY for an unstable queue), else true with *w the wait of q. */
static bool quantile_setup(const rs_queue *q, double s50_s, double s_cs2, double p, wait_dist *w,
                           double *edge) {
  if (!valid(q, s50_s, s_cs2) || !(p > 0 && p < 1)) {
    *edge = NAN;
    return false;
  }
  rs_queue_result r = rs_queue_eval(q);
  if (!r.stable) {
    *edge = INFINITY;
    return false;
  }
  *w = wait_of(q, &r);
  return true;
}

/* The search's first step up from S's quantile e^lo: to S's quantile plus
 * W's with an exponential tail of W's conditional mean, at least 5%. */
static double first_step(const wait_dist *w, double tail, double lo) {
  double wq = w->p_wait > tail ? w->mean_s * log(w->p_wait / tail) : 0.0;
  return fmax(log1p(wq / exp(lo)), 0.05);
}

double rs_queue_response_quantile_ref(const rs_queue *q, double s50_s, double s_cs2, double p) {
  wait_dist w;
  double edge;
  if (!quantile_setup(q, s50_s, s_cs2, p, &w, &edge))
    return edge;
  double sigma = sqrt(log1p(s_cs2)), tail = 1.0 - p;
  /* S >= 0 and W >= 0, so S's quantile bounds the sum's from below. The
   * first upper end is S's quantile plus W's with an exponential tail of W's
   * conditional mean (Allen-Cunneen: P(W > w) = C e^(-w / mean)), at least 5%
   * above; the sum of quantiles is within about 20% of the answer either way
   * (docs/model.md), so it usually brackets at once, and otherwise the step
   * doubles (to at most e^2 a step) until it does. */
  double lo = log(s50_s) + sigma * rs_normal_quantile(p);
  double flo = gap(lo, s50_s, sigma, &w, tail);
  if (!(flo > 0))
    return exp(lo);
  double step = first_step(&w, tail, lo), hi = lo + step;
  double fhi = gap(hi, s50_s, sigma, &w, tail);
  for (int i = 0; i < 200 && fhi > 0; i++) {
    lo = hi, flo = fhi;
    hi += step;
    step = fmin(2 * step, 2.0);
    fhi = gap(hi, s50_s, sigma, &w, tail);
  }
  return regula_falsi(lo, flo, hi, fhi, s50_s, sigma, &w, tail);
}

/* gap() and its derivative in u, t P'(t) / P(t) (0 where the tail
 * underflows: no slope to follow there). */
static double gap_d(double u, double s50, double sigma, const wait_dist *w, double tail,
                    double *slope) {
  double t = exp(u), dt, r = response_tail_n(t, s50, sigma, w, 40, 6.5, &dt);
  *slope = r > 1e-300 ? t * dt / r : 0.0;
  return log(fmax(r, 1e-300)) - log(tail);
}

/* The root of gap() from u (gap f, slope d) inside [lo, hi] (gap(lo) > 0;
 * hi INFINITY while no point above the root is known): Newton steps on the
 * same gap() the reference's regula falsi solves, with the derivative of the
 * same 40-panel sum, so both converge on the same root. A step that leaves
 * the bracket (or a slope that is not negative) gives way to the
 * reference's doubling step while hi is unknown and to bisection after.
 * The stops are the reference's (gap() within 1e-14 of 0, or the bracket
 * 1e-14 wide in ln t) plus one more: a Newton step so small that
 * the next one, by the last two steps' quadratic rate, would move u by
 * under 1e-15 is taken without evaluating where it lands (only once the
 * step before was under 0.01: a long first step that happens to land close
 * says nothing of the rate, and taken as its measure it stopped a search 5e-13
 * off in a trial of Newton steps in t). */
static double newton(double u, double f, double d, double lo, double hi, double bstep, double s50,
                     double sigma, const wait_dist *w, double tail) {
  double prev = NAN;
  for (int i = 0; i < 100 && hi - lo > 1e-14; i++) {
    double step = -f / d, un = u + step;
    bool newton_ok = d < 0 && un > lo && un < hi;
    if (newton_ok) {
      double a = fabs(step);
      if (a <= 1e-14 || (prev <= 1e-2 && a * a * a <= 1e-15 * prev * prev))
        return exp(un);
      prev = a;
    } else {
      prev = NAN;
      if (isinf(hi)) {
        un = lo + bstep;
        bstep = fmin(2 * bstep, 2.0);
      } else {
        un = 0.5 * (lo + hi);
      }
      if (!(un > lo && un < hi)) /* lo and hi adjacent doubles */
        break;
    }
    f = gap_d(un, s50, sigma, w, tail, &d);
    if (fabs(f) <= 1e-14)
      return exp(un);
    if (f > 0)
      lo = un;
    else
      hi = un;
    u = un;
  }
  return exp(0.5 * (lo + hi));
}

/* The search from S's quantile e^lo: S's quantile bounds the sum's from
 * below (W >= 0); Newton runs up from there. The doubling step is the
 * reference's first upper end, used only where a Newton step fails. */
static double search_up(double lo, double s50, double sigma, const wait_dist *w, double tail) {
  double d, flo = gap_d(lo, s50, sigma, w, tail, &d);
  if (!(flo > 1e-14))
    return exp(lo);
  return newton(lo, flo, d, lo, INFINITY, first_step(w, tail, lo), s50, sigma, w, tail);
}

double rs_queue_response_quantile(const rs_queue *q, double s50_s, double s_cs2, double p) {
  wait_dist w;
  double edge;
  if (!quantile_setup(q, s50_s, s_cs2, p, &w, &edge))
    return edge;
  double sigma = sqrt(log1p(s_cs2));
  return search_up(log(s50_s) + sigma * rs_normal_quantile(p), s50_s, sigma, &w, 1.0 - p);
}

/* The same root as rs_queue_response_quantile, the first Newton step taken
 * from the guess instead of from S's quantile e^lo when the guess lies above
 * it (and W can be positive): gap() there says on which side of the root it
 * is, so it becomes the bracket's low end (the doubling step then runs up
 * from it) or its high end (e^lo the low one: gap(lo) >= 0, since
 * P(S + W > t) >= P(S > t)). A guess at or below e^lo, or not finite, is
 * no guess: the plain search, bit for bit. */
double rs_queue_response_quantile_from(const rs_queue *q, double s50_s, double s_cs2, double p,
                                       double guess_s) {
  wait_dist w;
  double edge, d;
  if (!quantile_setup(q, s50_s, s_cs2, p, &w, &edge))
    return edge;
  double sigma = sqrt(log1p(s_cs2)), tail = 1.0 - p;
  double lo = log(s50_s) + sigma * rs_normal_quantile(p), u = log(guess_s);
  if (!(w.p_wait > 0) || !(u > lo) || !isfinite(u))
    return search_up(lo, s50_s, sigma, &w, tail);
  double f = gap_d(u, s50_s, sigma, &w, tail, &d);
  if (fabs(f) <= 1e-14)
    return exp(u);
  if (f > 0)
    return newton(u, f, d, u, INFINITY, first_step(&w, tail, u), s50_s, sigma, &w, tail);
  return newton(u, f, d, lo, u, first_step(&w, tail, lo), s50_s, sigma, &w, tail);
}
