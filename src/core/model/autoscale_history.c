/* The request-rate history and its cycle (docs/model.md "Autoscaling
 * plan"). The summary keeps no time series (its statistics stream), so the
 * plan reads the profile's samples a second time, keeping only time and rate. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rightsize/autoscale.h"
#include "rightsize/ingest.h"

typedef struct collector {
  rs_rate_point *p;
  size_t n, cap;
  double scale; /* replicas for per-replica samples, times growth */
} collector;

static rs_status collect(void *ctx, const rs_sample *s, rs_error *err) {
  collector *c = ctx;
  if (!(s->present & (1u << RS_METRIC_REQUEST_RATE)))
    return RS_OK;
  if (c->n == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 4096;
    rs_rate_point *p = rs_realloc_array(c->p, cap, sizeof(*p));
    if (p == NULL)
      return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory reading the rate history");
    c->p = p;
    c->cap = cap;
  }
  c->p[c->n++] = (rs_rate_point){s->t, s->v[RS_METRIC_REQUEST_RATE] * c->scale};
  return RS_OK;
}

static int cmp_point(const void *pa, const void *pb) {
  const rs_rate_point *a = pa, *b = pb;
  if (a->t != b->t)
    return a->t < b->t ? -1 : 1;
  return a->rps < b->rps ? 1 : a->rps > b->rps ? -1 : 0; /* the largest first */
}

static int cmp_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return a < b ? -1 : a > b;
}

/* Sorted, one point per timestamp (per-device rows repeat the rate: the
 * largest is kept), the median step, into arena memory. */
static rs_status settle(rs_rate_history *out, rs_arena *arena, collector *c, rs_error *err) {
  if (c->n > 1) /* qsort(NULL, 0, ...) is undefined */
    qsort(c->p, c->n, sizeof(*c->p), cmp_point);
  size_t n = 0;
  for (size_t i = 0; i < c->n; i++)
    if (n == 0 || c->p[i].t != c->p[n - 1].t)
      c->p[n++] = c->p[i];
  if (n < 2)
    return rs_error_set(err, RS_INVALID, NULL, 0, 0,
                        "an autoscaling plan needs a request-rate history (request_rate samples "
                        "at two times or more)");
  out->p = rs_arena_alloc_array(arena, n, sizeof(*out->p));
  double *steps = rs_malloc_array(n - 1, sizeof(*steps));
  if (out->p == NULL || steps == NULL) {
    free(steps);
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory reading the rate history");
  }
  memcpy(out->p, c->p, n * sizeof(*out->p));
  for (size_t i = 1; i < n; i++)
    steps[i - 1] = c->p[i].t - c->p[i - 1].t;
  qsort(steps, n - 1, sizeof(*steps), cmp_double);
  out->n = n;
  out->interval_s = steps[(n - 1) / 2];
  out->duration_s = (double)n * out->interval_s;
  free(steps);
  return RS_OK;
}

static rs_status read_files(collector *c, rs_arena *arena, const rs_profile *p, rs_error *err) {
  for (size_t i = 0; i < p->nfiles; i++) {
    rs_ingest_options io = {.format = p->files[i].format, .max_record_bytes = 0, .map = NULL};
    rs_series_map map;
    if (p->files[i].mapping != NULL) {
      rs_status st = rs_series_map_load(&map, arena, p->files[i].mapping, err);
      if (st != RS_OK)
        return st;
      io.map = &map;
    }
    rs_status st = rs_ingest_file(p->files[i].path, &io, collect, c, NULL, err);
    if (st != RS_OK)
      return st;
  }
  for (size_t i = 0; i < p->nrows; i++) {
    rs_status st = collect(c, &p->rows[i], err);
    if (st != RS_OK)
      return st;
  }
  return RS_OK;
}

rs_status rs_autoscale_history(rs_rate_history *out, rs_arena *arena, const rs_summary *sum,
                               rs_error *err) {
  const rs_profile *p = sum->profile;
  memset(out, 0, sizeof(*out));
  if (p == NULL)
    return rs_error_set(err, RS_INVALID, NULL, 0, 0, "an autoscaling plan needs a profile");
  collector c = {NULL, 0, 0, 0};
  c.scale = (p->traffic.rate_per_endpoint ? 1.0 : (double)p->current.replicas) * p->traffic.growth;
  rs_status st = read_files(&c, arena, p, err);
  if (st == RS_OK)
    st = settle(out, arena, &c, err);
  free(c.p);
  return st;
}

const char *rs_cycle_name(rs_cycle_kind k) {
  switch (k) {
  case RS_CYCLE_DAILY: return "daily";
  case RS_CYCLE_WEEKLY: return "weekly";
  default: return "none";
  }
}

/* Hour of the week, Monday 00:00 UTC = 0 (the epoch was a Thursday). */
static size_t bucket_of(double t, size_t nbuckets) {
  double h = floor(t / 3600.0) + 72.0;
  double b = fmod(h, (double)nbuckets);
  return (size_t)(b < 0 ? b + (double)nbuckets : b);
}

/* Mean, peak and spread per bucket; strength = 1 - within / total variance. */
static void fill_buckets(rs_cycle *out, const rs_rate_history *h) {
  double sum2[RS_AS_BUCKETS] = {0}, mean = 0, total = 0, within = 0;
  for (size_t i = 0; i < h->n; i++) {
    rs_demand_bucket *b = &out->b[bucket_of(h->p[i].t, out->nbuckets)];
    b->n++;
    b->mean += h->p[i].rps;
    b->peak = fmax(b->peak, h->p[i].rps);
    mean += h->p[i].rps;
  }
  mean /= (double)h->n;
  for (size_t k = 0; k < out->nbuckets; k++)
    out->b[k].mean = out->b[k].n ? out->b[k].mean / (double)out->b[k].n : NAN;
  for (size_t i = 0; i < h->n; i++) {
    size_t k = bucket_of(h->p[i].t, out->nbuckets);
    double d = h->p[i].rps - out->b[k].mean;
    sum2[k] += d * d;
    within += d * d;
    total += (h->p[i].rps - mean) * (h->p[i].rps - mean);
  }
  for (size_t k = 0; k < out->nbuckets; k++) {
    const rs_demand_bucket *b = &out->b[k];
    out->b[k].spread = b->n && b->mean > 0 ? sqrt(sum2[k] / (double)b->n) / b->mean : NAN;
  }
  out->strength = total > 0 ? 1.0 - within / total : 0.0;
}

void rs_autoscale_cycle(rs_cycle *out, const rs_rate_history *h) {
  memset(out, 0, sizeof(*out));
  double days = h->duration_s / 86400.0;
  if (h->duration_s >= RS_AS_WEEKLY_MIN_S) {
    out->kind = RS_CYCLE_WEEKLY;
    out->nbuckets = 168;
    out->why = "hour of the week (two weeks of history or more)";
  } else if (h->duration_s >= RS_AS_DAILY_MIN_S) {
    out->kind = RS_CYCLE_DAILY;
    out->nbuckets = 24;
    out->why = days >= 7.0 ? "hour of the day: a weekly cycle needs two weeks of history"
                           : "hour of the day: under a week of history, a weekly cycle needs two";
  } else {
    out->kind = RS_CYCLE_NONE;
    out->why = "none: under two days of history, too short for a daily cycle";
    return;
  }
  fill_buckets(out, h);
}
