/* Utilization, memory and request rate over time in bounded buckets. The
 * width starts at one second and doubles (buckets merged pairwise, aligned
 * to the epoch) whenever a row would fall outside RS_SERIES_BUCKETS, so a
 * year of one-second samples and a minute of them cost the same memory and
 * the result does not depend on the order files are read in. */
#include "series.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define NB RS_SERIES_BUCKETS

static int64_t floor_div2(int64_t k) { return k >= 0 ? k / 2 : -((-k + 1) / 2); }

static void cell_add(rs_series_cell *c, const rs_series_cell *s) {
  if (s->n == 0)
    return;
  if (c->n == 0 || s->min < c->min)
    c->min = s->min;
  if (c->n == 0 || s->max > c->max)
    c->max = s->max;
  c->n += s->n;
  rs_xsum_merge(&c->sum, &s->sum);
}

void rs_series_init(rs_series_acc *a) {
  a->k0 = 0;
  a->n = 0;
  a->memo_k = 0;
  a->width = 1.0;
  a->memo_t = a->memo_lo = a->memo_hi = NAN; /* equal to no time, contain none */
}

/* Doubles the width: bucket j goes to floor((k0 + j) / 2) - floor(k0 / 2),
 * never to the right of j, so one ascending pass merges in place. */
static void coarsen(rs_series_acc *a) {
  int64_t nk0 = floor_div2(a->k0);
  for (int ch = 0; ch < RS_SERIES_CHANNELS; ch++) {
    for (size_t j = 0; j < a->n; j++) {
      size_t to = (size_t)(floor_div2(a->k0 + (int64_t)j) - nk0);
      rs_series_cell c = a->cell[ch][j];
      memset(&a->cell[ch][j], 0, sizeof(c));
      cell_add(&a->cell[ch][to], &c);
    }
  }
  if (a->n > 0)
    a->n = (size_t)(floor_div2(a->k0 + (int64_t)a->n - 1) - nk0 + 1);
  a->k0 = nk0;
  a->width *= 2.0;
}

/* Moves the buckets right by s (the range grows to the left). */
static void shift_right(rs_series_acc *a, size_t s) {
  for (int ch = 0; ch < RS_SERIES_CHANNELS; ch++) {
    memmove(&a->cell[ch][s], &a->cell[ch][0], a->n * sizeof(rs_series_cell));
    memset(&a->cell[ch][0], 0, s * sizeof(rs_series_cell));
  }
  a->k0 -= (int64_t)s;
  a->n += s;
}

/* Makes room for the absolute buckets lo..hi at the current width (which
 * may double first), returning nothing: afterwards k0 <= lo' and hi' < k0 + NB
 * for the same times at the new width. */
static void reserve(rs_series_acc *a, double t_lo, double t_hi) {
  for (;;) {
    int64_t lo = (int64_t)floor(t_lo / a->width), hi = (int64_t)floor(t_hi / a->width);
    if (a->n == 0) {
      a->k0 = lo;
      a->n = (size_t)(hi - lo + 1);
      if (hi - lo < NB)
        return;
      a->n = 0;
      a->width *= 2.0;
      continue;
    }
    int64_t first = lo < a->k0 ? lo : a->k0;
    int64_t last = a->k0 + (int64_t)a->n - 1;
    last = hi > last ? hi : last;
    if (last - first >= NB) {
      coarsen(a);
      continue;
    }
    if (first < a->k0)
      shift_right(a, (size_t)(a->k0 - first));
    if ((size_t)(last - a->k0 + 1) > a->n)
      a->n = (size_t)(last - a->k0 + 1);
    return;
  }
}

/* The width is a power of two, so t / width is exact unless it is below
 * the normal range, and floor(t / width) == k exactly when k x width <= t <
 * (k + 1) x width (products exact too). A quotient that underflows is
 * smaller than 1 in magnitude: for k >= 0 (t >= 0) its floor is 0 either
 * way; a negative bucket keeps no edges (NAN: the division every time). */
void rs_series_locate_slow(rs_series_acc *a, double t) {
  reserve(a, t, t);
  double k = floor(t / a->width);
  a->memo_t = t;
  a->memo_width = a->width;
  a->memo_k = (int64_t)k;
  a->memo_lo = a->memo_hi = NAN;
  if (k >= 0) {
    a->memo_lo = k * a->width;
    a->memo_hi = (k + 1.0) * a->width;
  }
}

void rs_series_add(rs_series_acc *a, double t, int ch, double v) {
  /* The bucket of the last time, still in range at the same width: there
   * reserve() would change nothing. */
  rs_series_locate(a, t);
  rs_series_memo_add(a, ch, v);
}

void rs_series_merge(rs_series_acc *dst, const rs_series_acc *src) {
  if (src->n == 0)
    return;
  rs_series_acc *s = malloc(sizeof(*s));
  if (s == NULL)
    return; /* the chart loses the other half; the statistics do not */
  *s = *src;
  while (s->width < dst->width)
    coarsen(s);
  reserve(dst, (double)s->k0 * s->width, (double)(s->k0 + (int64_t)s->n) * s->width - 0.5);
  while (s->width < dst->width)
    coarsen(s);
  for (int ch = 0; ch < RS_SERIES_CHANNELS; ch++)
    for (size_t j = 0; j < s->n; j++)
      cell_add(&dst->cell[ch][(size_t)(s->k0 + (int64_t)j - dst->k0)], &s->cell[ch][j]);
  free(s);
}

static void point_finish(const rs_series_cell *c, rs_series_point *p) {
  if (c->n == 0) {
    p->min = p->mean = p->max = NAN;
    return;
  }
  p->min = c->min;
  p->max = c->max;
  p->mean = rs_xsum_value(&c->sum) / (double)c->n;
}

static bool channel_used(const rs_series_acc *a, int ch) {
  for (size_t j = 0; j < a->n; j++)
    if (a->cell[ch][j].n > 0)
      return true;
  return false;
}

void rs_series_finish(const rs_series_acc *a, rs_series *out) {
  /* The buckets past nbuckets and the devices past ndevices are left as
   * they were: no reader looks at them, and a short input's series is a
   * small part of the struct. */
  memset(out, 0, offsetof(rs_series, util));
  if (a == NULL || a->n == 0)
    return;
  out->t0 = (double)a->k0 * a->width;
  out->width_s = a->width;
  out->nbuckets = a->n;
  for (int d = 0; d < RS_SERIES_DEVICES; d++) {
    if (!channel_used(a, d) && !channel_used(a, RS_SERIES_DEVICES + d))
      continue;
    size_t i = out->ndevices++;
    out->device[i] = d;
    for (size_t j = 0; j < a->n; j++) {
      point_finish(&a->cell[d][j], &out->util[i][j]);
      point_finish(&a->cell[RS_SERIES_DEVICES + d][j], &out->mem[i][j]);
    }
  }
  for (size_t j = 0; j < a->n; j++)
    point_finish(&a->cell[RS_SERIES_RATE][j], &out->rate[j]);
}
