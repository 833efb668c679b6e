#include "rightsize/stats.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rightsize/arena.h"
#include "rightsize/num.h"
#include "load.h"
#include "series.h"
#include "sketch.h"
#include "stats_internal.h"
#include "xsum.h"

const double rs_quantile_levels[RS_QUANTILE_COUNT] = {0.50, 0.90, 0.95, 0.99};

#define NSLOTS RS_MAX_DEVICES
_Static_assert(NSLOTS <= 64, "dev_linked holds a bit per device slot");

/* The sums are exact (xsum.h), so a metric's mean and standard deviation
 * are the same bits however its values were split and merged. The count,
 * min and max are the sketch's (every value goes to it). */
typedef struct acc {
  rs_xsum s1;  /* sum of the values */
  rs_xsum2 s2; /* sum of their squares */
  rs_sketch sk;
  double *vals; /* exact mode only */
  size_t nvals, avals;
} acc;

/* Exact sums of (x, y) pairs, their squares and products: the co-moments
 * at finish (rs_xsum_comoment). While a pair is linked (rs_stats'
 * dev_linked, host_linked), every value its x and y metrics' accumulators
 * took came in a row that also fed the pair, so its x and y sums are those
 * accumulators' s1 and s2, bit for bit: only n and sxy are added, and
 * pair_fill copies the rest the first time a row breaks the link (before
 * that row's values are added) or when the pair is read (pair_view). */
typedef struct pair {
  uint64_t n;
  rs_xsum sx, sy;
  rs_xsum2 sxx, sxy, syy;
} pair;

/* Host metrics paired with the request rate, in this order. */
static const rs_metric host_pairs[] = {RS_METRIC_CPU_UTIL, RS_METRIC_NET_RX, RS_METRIC_NET_TX,
                                       RS_METRIC_TPOT_P50};
#define NHOST_PAIRS (sizeof(host_pairs) / sizeof(host_pairs[0]))
static const uint32_t host_pair_set = (1u << RS_METRIC_CPU_UTIL) | (1u << RS_METRIC_NET_RX) |
                                      (1u << RS_METRIC_NET_TX) | (1u << RS_METRIC_TPOT_P50);
/* A host metric's place in host_pairs (read for the metrics of host_pair_set only). */
static const uint8_t host_pair_index[RS_METRIC_COUNT] = {[RS_METRIC_CPU_UTIL] = 0,
                                                         [RS_METRIC_NET_RX] = 1,
                                                         [RS_METRIC_NET_TX] = 2,
                                                         [RS_METRIC_TPOT_P50] = 3};

/* The per-device metrics as a bit set (rs_metric_per_device), the charted
 * ones (series_add) and those with window peaks (window_add). */
#define PER_DEVICE_BIT(name, key, unit, per_device, upper)                                         \
  | ((per_device) ? 1u << RS_METRIC_##name : 0u)
static const uint32_t per_device_set = 0u RS_METRIC_MAP(PER_DEVICE_BIT);
#undef PER_DEVICE_BIT
static const uint32_t charted_set =
    (1u << RS_METRIC_REQUEST_RATE) | (1u << RS_METRIC_GPU_UTIL) | (1u << RS_METRIC_GPU_MEM_USED);
static const uint32_t window_set = (1u << RS_METRIC_GPU_MEM_USED) | (1u << RS_METRIC_HOST_MEM_USED);

typedef struct window {
  bool open;
  double idx, max;
  double lo, hi; /* every t in [lo, hi) has floor(t / width) == idx; empty until known
                  * and while closed (zero at first, then NAN) */
  rs_sketch peaks;
  /* A part (rs_stats_begin_part) holds its first window back when it
   * closes: it may be the same window as the last one before the part. */
  bool hold_first, head_closed;
  double head_idx, head_max;
  char pad[8]; /* 128 bytes with 64-bit pointers: a device's window is found by a shift */
} window;
_Static_assert(sizeof(void *) < 8 || sizeof(window) == 128, "a window is 128 bytes");

struct rs_stats {
  rs_stats_options o;
  acc pooled[RS_METRIC_COUNT];
  acc *dev[NSLOTS]; /* RS_METRIC_COUNT each, allocated for the devices seen (dev_block) */
  /* Per slot, a set of present metrics (rs_sample.present) that slot's
   * rows took before: not a request event, and no link it would break is
   * left (pairs_check ran for it, and links only end). A row of that set
   * skips both tests (rows of one slot mostly repeat one set). 0 holds
   * from the start: an empty row is no event and breaks no link. */
  uint32_t shape[NSLOTS];
  /* Rows of zeros not yet counted (rs_stats_add_zeros): per slot, a set
   * of metrics and how many rows of zeros came with that set. A row of
   * zeros changes only its accumulators' counts and extremes, which do not
   * depend on the order, so they are added when the set changes and
   * before anything reads or merges them (zeros_flush). */
  uint32_t zero_shape[NSLOTS];
  uint64_t zero_rows[NSLOTS];
  window dev_mem[NSLOTS];
  window host_mem;
  pair dev_load[NSLOTS];       /* GPU_UTIL against REQUEST_RATE */
  pair host_load[NHOST_PAIRS]; /* host_pairs[] against REQUEST_RATE */
  uint64_t dev_linked;         /* bit d: dev_load[d] is linked (pair) */
  uint32_t host_linked;        /* bit m: the pair of host metric m is linked */
  /* coverage, per series = (current file, device slot) */
  bool has_last[NSLOTS];
  double last_t[NSLOTS]; /* NAN while !has_last, so no interval matches dt_again */
  uint64_t rows, series, duplicates, out_of_order;
  double first, last;
  double grid_first, grid_last; /* the same over rows on the sampling grid (not request events) */
  double grid_t;                /* a time all four hold (bounds_row), or NAN */
  uint32_t charted;             /* charted_set, or 0 with o.no_series */
  rs_sketch intervals;
  double dt_again;      /* the last interval added to intervals, > 0, or NAN */
  int32_t dt_again_idx; /* its bin's index (rs_sketch_add_again) */
  rs_load_acc load;     /* latency by load bucket */
  /* Over time, for charts: allocated at the first charted row (it is most
   * of the accumulator's size), never with o.no_series. */
  rs_series_acc *timeline;
  size_t exact_left; /* --exact: values the accumulators may still allocate */
  /* A part of a file (rs_stats_begin_part): the first row of each series
   * here, which rs_stats_append compares with the rows before the part. */
  bool part;
  bool opened[NSLOTS];
  double first_t[NSLOTS];
};

static void acc_init(acc *a) {
  memset(a, 0, sizeof(*a));
  rs_sketch_init(&a->sk);
}

static void acc_release(acc *a) {
  rs_sketch_release(&a->sk);
  free(a->vals);
}

rs_status rs_stats_new(rs_stats **out, const rs_stats_options *opts, rs_error *err) {
  rs_stats *st = calloc(1, sizeof(*st));
  *out = NULL;
  if (st == NULL)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory for statistics");
  if (opts)
    st->o = *opts;
  if (!(st->o.window_s > 0))
    st->o.window_s = 3600.0;
  if (!(st->o.gap_factor > 1))
    st->o.gap_factor = 3.0;
  if (st->o.exact_max_values == 0)
    st->o.exact_max_values = RS_STATS_EXACT_MAX_VALUES;
  st->exact_left = st->o.exact_max_values;
  /* calloc zeroed the accumulators and windows: of what acc_init does,
   * only their sketches' min and max are left to set. */
  for (int m = 0; m < RS_METRIC_COUNT; m++)
    rs_sketch_init(&st->pooled[m].sk);
  for (int d = 0; d < NSLOTS; d++)
    rs_sketch_init(&st->dev_mem[d].peaks);
  rs_sketch_init(&st->host_mem.peaks);
  rs_sketch_init(&st->intervals);
  rs_load_init(&st->load);
  st->first = INFINITY;
  st->last = -INFINITY;
  st->grid_first = INFINITY;
  st->grid_last = -INFINITY;
  st->grid_t = NAN;
  st->charted = st->o.no_series ? 0 : charted_set;
  st->dt_again = NAN;
  for (int d = 0; d < NSLOTS; d++)
    st->last_t[d] = NAN;
  st->dev_linked = ~UINT64_C(0);
  st->host_linked = host_pair_set;
  *out = st;
  return RS_OK;
}

void rs_stats_free(rs_stats *st) {
  if (st == NULL)
    return;
  for (int m = 0; m < RS_METRIC_COUNT; m++)
    acc_release(&st->pooled[m]);
  for (int d = 0; d < NSLOTS; d++) {
    for (int m = 0; m < RS_METRIC_COUNT && st->dev[d]; m++)
      acc_release(&st->dev[d][m]);
    free(st->dev[d]);
  }
  for (int d = 0; d < NSLOTS; d++)
    rs_sketch_release(&st->dev_mem[d].peaks);
  rs_sketch_release(&st->host_mem.peaks);
  rs_sketch_release(&st->intervals);
  rs_load_release(&st->load);
  free(st->timeline);
  free(st);
}

void rs_stats_begin_file(rs_stats *st, const char *path) {
  (void)path;
  memset(st->has_last, 0, sizeof(st->has_last));
  for (int d = 0; d < NSLOTS; d++)
    st->last_t[d] = NAN;
}

/* Device d's accumulators, allocated on first use (a profile of one GPU
 * does not pay for 64); NULL when out of memory. */
static acc *dev_block(rs_stats *st, int d) {
  if (st->dev[d] == NULL) {
    acc *b = rs_malloc_array(RS_METRIC_COUNT, sizeof(*b));
    if (b == NULL)
      return NULL;
    for (int m = 0; m < RS_METRIC_COUNT; m++)
      acc_init(&b[m]);
    st->dev[d] = b;
  }
  return st->dev[d];
}

/* A value into the sketch (its count, min and max too, not its sum: no
 * one reads it) and the moments (all acc_add does without --exact),
 * inline for the row loop. */
static inline rs_status acc_add_sketch(acc *a, double v) {
  int32_t idx;
  if (rs_sketch_add_index(&a->sk, v, &idx) != RS_OK)
    return RS_NOMEM;
  rs_xsum_add_moments(&a->s1, &a->s2, v);
  return RS_OK;
}

/* --exact keeps every value; *left is what all the accumulators together
 * may still allocate (the cap counts capacity, so growth slack is in it,
 * and so is the copy pooling per-device values needs at finish). */
static inline rs_status acc_add(acc *a, double v, size_t *left, size_t cap, const rs_sample *s,
                                rs_metric m, rs_error *err) {
  if (acc_add_sketch(a, v) != RS_OK)
    return rs_error_set(err, RS_NOMEM, s->path, s->line, 0, "out of memory for statistics");
  if (left == NULL)
    return RS_OK;
  if (a->nvals == a->avals) {
    /* doubling, but never more than half of what is left, so one metric
     * does not take the room another still needs */
    size_t grow = a->avals ? a->avals : 1024;
    double *p;
    if (grow > *left / 2)
      grow = *left > 1 ? *left / 2 : *left;
    if (grow == 0)
      return rs_error_set(err, RS_LIMIT, s->path, s->line, 0,
                          "more than %zu values kept for --exact (%zu MiB; the cap was reached "
                          "at a value of '%s'); drop --exact to use the sketch",
                          cap, cap * sizeof(double) >> 20, rs_metric_key(m));
    p = rs_realloc_array(a->vals, a->avals + grow, sizeof(*p));
    if (p == NULL)
      return rs_error_set(err, RS_NOMEM, s->path, s->line, 0, "out of memory for --exact");
    a->vals = p;
    a->avals += grow;
    *left -= grow;
  }
  a->vals[a->nvals++] = v + 0.0; /* -0 is 0: the rank a selection picks is one value */
  return RS_OK;
}

/* The least t with floor(t / width) >= k, found from k x width by steps of
 * one double (division is monotonic, so this is an edge); NAN when it takes
 * more than a few steps (k past 2^53, where k + 1 == k). */
static double window_edge(double k, double width) {
  double t = k * width;
  for (int i = 0; i < 8 && isfinite(t); i++) {
    if (floor(t / width) < k)
      t = nextafter(t, INFINITY);
    else if (floor(nextafter(t, -INFINITY) / width) >= k)
      t = nextafter(t, -INFINITY);
    else
      return t;
  }
  return NAN;
}

static rs_status window_close(window *w);

/* A window row the inline path below does not take: a division, and a
 * window opened where the row's is not the open one. */
static rs_status window_add_slow(window *w, double t, double v, double width) {
  double idx = floor(t / width);
  if (w->open && idx == w->idx) {
    if (v > w->max)
      w->max = v;
    return RS_OK;
  }
  /* The next window starts at the open one's end, window_edge of the same
   * argument (unknown, NAN, after a part's windows were joined) */
  bool next = w->open && idx == w->idx + 1.0 && !isnan(w->hi);
  double lo = next ? w->hi : window_edge(idx, width);
  if (w->open && window_close(w) != RS_OK)
    return RS_NOMEM;
  w->open = true;
  w->idx = idx;
  w->max = v;
  w->lo = lo;
  w->hi = window_edge(idx + 1.0, width); /* NAN: an empty range, the division every time */
  return RS_OK;
}

/* width by address: only the slow path reads it (one load fewer a row). */
static inline rs_status window_add(window *w, double t, double v, const double *width) {
  /* Rows of the open window skip the division: its edges are known (a
   * closed window's edges hold no t, so open need not be read). */
  if (t >= w->lo && t < w->hi) {
    if (v > w->max)
      w->max = v;
    return RS_OK;
  }
  return window_add_slow(w, t, v, *width);
}

/* A series' row that track_time's inline path does not take: its first,
 * one out of order or of the same time, or a new interval. */
static rs_status track_time_slow(rs_stats *st, const rs_sample *s, int slot, rs_error *err) {
  char a[32], b[32];
  if (!st->has_last[slot]) {
    st->has_last[slot] = true;
    st->last_t[slot] = s->t;
    st->series++;
    if (st->part) {
      st->opened[slot] = true;
      st->first_t[slot] = s->t;
    }
    return RS_OK;
  }
  double dt = s->t - st->last_t[slot];
  if (dt < 0) {
    if (!st->o.allow_unordered) {
      rs_time_format(s->t, a, sizeof(a));
      rs_time_format(st->last_t[slot], b, sizeof(b));
      return rs_error_set(err, RS_INVALID, s->path, s->line, s->t_col,
                          "timestamp goes backwards (%s after %s), expected rows in time order; "
                          "sort the file or pass --allow-unordered",
                          a, b);
    }
    st->out_of_order++;
    return RS_OK; /* keep the newest time as the series' reference */
  }
  if (dt == 0) {
    st->duplicates++;
    return RS_OK;
  }
  st->last_t[slot] = s->t;
  /* on a regular grid every row adds the same interval */
  rs_status rc = dt == st->dt_again ? rs_sketch_add_again(&st->intervals, dt, st->dt_again_idx)
                                    : rs_sketch_add_index(&st->intervals, dt, &st->dt_again_idx);
  if (rc != RS_OK)
    return rs_error_set(err, RS_NOMEM, s->path, s->line, 0, "out of memory for statistics");
  st->intervals.sum += dt; /* the gaps' time reads it (rs_sketch_sum_above) */
  if (st->dt_again_idx == INT32_MIN)
    st->dt_again = NAN; /* below the sketch's least value, or the slow path's */
  else
    st->dt_again = dt;
  return RS_OK;
}

/* On a regular grid every row adds the interval the last one did: equal
 * to dt_again, it is > 0 (a number, after the series' first row), and its
 * bin's index is still dt_again_idx. */
static inline rs_status track_time(rs_stats *st, const rs_sample *s, int slot, rs_error *err) {
  double dt = s->t - st->last_t[slot];
  if (dt != st->dt_again)
    return track_time_slow(st, s, slot, err);
  st->last_t[slot] = s->t;
  if (rs_sketch_add_again(&st->intervals, dt, st->dt_again_idx) != RS_OK)
    return rs_error_set(err, RS_NOMEM, s->path, s->line, 0, "out of memory for statistics");
  st->intervals.sum += dt; /* as track_time_slow adds it */
  return RS_OK;
}

static void pair_add(pair *p, double x, double y, bool linked) {
  p->n++;
  rs_xsum2_add(&p->sxy, x, y);
  if (linked)
    return;
  rs_xsum_add(&p->sx, x);
  rs_xsum_add(&p->sy, y);
  rs_xsum2_add(&p->sxx, x, x);
  rs_xsum2_add(&p->syy, y, y);
}

/* The x sums of p from x's accumulator and the y sums from y's (NULL:
 * none yet), the link's invariant (pair). */
static void pair_fill(pair *p, const acc *x, const acc *y) {
  p->sx = x->s1;
  p->sxx = x->s2;
  memset(&p->sy, 0, sizeof(p->sy));
  memset(&p->syy, 0, sizeof(p->syy));
  if (y != NULL) {
    p->sy = y->s1;
    p->syy = y->s2;
  }
}

static const acc *dev_util(const rs_stats *st, int d) {
  return st->dev[d] ? &st->dev[d][RS_METRIC_GPU_UTIL] : NULL;
}

/* dev_load[d] and host_load[i] with every sum, linked or not. */
static pair dev_pair_view(const rs_stats *st, int d) {
  pair p = st->dev_load[d];
  if ((st->dev_linked >> d) & 1u)
    pair_fill(&p, &st->pooled[RS_METRIC_REQUEST_RATE], dev_util(st, d));
  return p;
}

static pair host_pair_view(const rs_stats *st, size_t i) {
  pair p = st->host_load[i];
  if ((st->host_linked >> host_pairs[i]) & 1u)
    pair_fill(&p, &st->pooled[RS_METRIC_REQUEST_RATE], &st->pooled[host_pairs[i]]);
  return p;
}

/* Ends the links of the pairs in the masks (dev: device slots; host: the
 * host metrics' bits), their sums filled first. */
static void pairs_unlink(rs_stats *st, uint64_t dev, uint32_t host) {
  for (uint64_t b = dev; b != 0; b &= b - 1) {
    int d = __builtin_ctzll(b);
    st->dev_load[d] = dev_pair_view(st, d);
  }
  for (size_t i = 0; i < NHOST_PAIRS; i++)
    if ((host >> host_pairs[i]) & 1u)
      st->host_load[i] = host_pair_view(st, i);
  st->dev_linked &= ~dev;
  st->host_linked &= ~host;
}

/* Ends the links this row breaks: a value of x (the request rate) or of a
 * y without the other in the same pair (a few bit operations per row; the
 * unlinking itself comes once per pair at most). */
static void pairs_check(rs_stats *st, uint32_t present, int slot) {
  /* all ones with a rate, else zero; util's bit at slot's place */
  const uint64_t rate = 0 - (uint64_t)((present >> RS_METRIC_REQUEST_RATE) & 1u);
  const uint64_t util = (uint64_t)((present >> RS_METRIC_GPU_UTIL) & 1u) << slot;
  /* A rate feeds x of every device's pair but only slot's gets the pair:
   * with a rate, every pair but slot's with a util; without, slot's with
   * one. A host metric breaks its pair when it comes alone, and so does a
   * rate without it. */
  uint64_t dev = st->dev_linked & (rate ^ util);
  uint32_t host = st->host_linked & (present ^ (uint32_t)rate);
  if ((dev | host) != 0)
    pairs_unlink(st, dev, host);
}

/* A row carrying the request rate (after pairs_check) feeds the load
 * lines and, with a latency, the latency by load. */
static rs_status pairs_add(rs_stats *st, const rs_sample *s, int slot) {
  static const rs_metric lat[RS_LOAD_LATENCIES] = {RS_METRIC_LATENCY_P50, RS_METRIC_LATENCY_P95,
                                                   RS_METRIC_LATENCY_P99};
  double x = s->v[RS_METRIC_REQUEST_RATE], ms[RS_LOAD_LATENCIES];
  for (int q = 0; q < RS_LOAD_LATENCIES; q++)
    ms[q] = s->present & (1u << lat[q]) ? s->v[lat[q]] : NAN;
  if (s->present & (1u << RS_METRIC_GPU_UTIL))
    pair_add(&st->dev_load[slot], x, s->v[RS_METRIC_GPU_UTIL], (st->dev_linked >> slot) & 1u);
  for (uint32_t bits = s->present & host_pair_set; bits != 0; bits &= bits - 1) {
    int m = __builtin_ctz(bits);
    size_t i = host_pair_index[m];
    assert(host_pairs[i] == (rs_metric)m);
    pair_add(&st->host_load[i], x, s->v[m], (st->host_linked >> m) & 1u);
  }
  return rs_load_add(&st->load, x, ms);
}

/* A row of one request's token counts and nothing else (a request log's
 * row): an event, not a sample on the series' grid, so it does not count
 * toward the sampling interval and its gaps. */
static bool is_request_event(uint32_t present) {
  const uint32_t per_request = (1u << RS_METRIC_PROMPT_TOKENS) | (1u << RS_METRIC_OUTPUT_TOKENS);
  return present != 0 && (present & ~per_request) == 0;
}

/* st's time series, created empty on first use; NULL when out of memory. */
static rs_series_acc *timeline(rs_stats *st) {
  if (st->timeline == NULL && (st->timeline = calloc(1, sizeof(*st->timeline))) != NULL)
    rs_series_init(st->timeline); /* calloc'd: the cells are zero */
  return st->timeline;
}

/* The row's charted metrics into their time bucket, found once per row
 * (every channel of a row shares its time). */
static rs_status series_row(rs_stats *st, const rs_sample *s, int slot) {
  rs_series_acc *a = st->timeline;
  if (!isfinite(s->t))
    return RS_OK;
  if (a == NULL && (a = timeline(st)) == NULL)
    return RS_NOMEM;
  rs_series_locate(a, s->t);
  if (s->present & (1u << RS_METRIC_REQUEST_RATE))
    rs_series_memo_add(a, RS_SERIES_RATE, s->v[RS_METRIC_REQUEST_RATE]);
  if (slot >= RS_SERIES_DEVICES)
    return RS_OK;
  if (s->present & (1u << RS_METRIC_GPU_UTIL))
    rs_series_memo_add(a, slot, s->v[RS_METRIC_GPU_UTIL]);
  if (s->present & (1u << RS_METRIC_GPU_MEM_USED))
    rs_series_memo_add(a, RS_SERIES_DEVICES + slot, s->v[RS_METRIC_GPU_MEM_USED]);
  return RS_OK;
}

/* The row's memory metrics into their windows. */
static rs_status windows_row(rs_stats *st, const rs_sample *s, int slot) {
  if ((s->present & (1u << RS_METRIC_GPU_MEM_USED)) &&
      window_add(&st->dev_mem[slot], s->t, s->v[RS_METRIC_GPU_MEM_USED], &st->o.window_s) != RS_OK)
    return RS_NOMEM;
  if ((s->present & (1u << RS_METRIC_HOST_MEM_USED)) &&
      window_add(&st->host_mem, s->t, s->v[RS_METRIC_HOST_MEM_USED], &st->o.window_s) != RS_OK)
    return RS_NOMEM;
  return RS_OK;
}

/* values_row's --exact: every value kept (out of line; the limit's
 * message names the metric that reached it). */
__attribute__((noinline)) static rs_status values_exact(rs_stats *st, const rs_sample *s, acc *dev,
                                                        rs_error *err) {
  for (uint32_t bits = s->present; bits != 0; bits &= bits - 1) {
    int m = __builtin_ctz(bits);
    acc *a = (per_device_set >> m) & 1u ? &dev[m] : &st->pooled[m];
    rs_status rc =
        acc_add(a, s->v[m], &st->exact_left, st->o.exact_max_values, s, (rs_metric)m, err);
    if (rc != RS_OK)
      return rc;
  }
  return RS_OK;
}

/* n rows of zeros of the metrics in set into slot's accumulators (the
 * per-device metrics') and the pooled ones (the others): what n adds of
 * +0 leave there, a count each and 0 into the extremes (a zero is not
 * binned, and adds nothing to the exact sums). */
static void zeros_add(rs_stats *st, int slot, uint32_t set, uint64_t n) {
  if (n == 0)
    return;
  for (uint32_t bits = set; bits != 0; bits &= bits - 1) {
    int m = __builtin_ctz(bits);
    rs_sketch *k = (per_device_set >> m) & 1u ? &st->dev[slot][m].sk : &st->pooled[m].sk;
    k->count += n;
    if (0.0 < k->min)
      k->min = 0.0;
    if (0.0 > k->max)
      k->max = 0.0;
  }
}

/* Counts slot's rows of zeros not yet counted. */
static void zeros_flush_slot(rs_stats *st, int slot) {
  zeros_add(st, slot, st->zero_shape[slot], st->zero_rows[slot]);
  st->zero_rows[slot] = 0;
}

/* Counts every slot's rows of zeros not yet counted. */
static void zeros_flush(rs_stats *st) {
  for (int d = 0; d < NSLOTS; d++)
    zeros_flush_slot(st, d);
}

/* A row of zeros (rs_stats_add_zeros) of slot: counted with the slot's
 * rows of zeros before it while they are of the same set. */
static void zeros_row(rs_stats *st, uint32_t present, int slot) {
  if (present != st->zero_shape[slot]) {
    zeros_flush_slot(st, slot);
    st->zero_shape[slot] = present;
  }
  st->zero_rows[slot]++;
}

/* The row's values into their accumulators: a per-device value goes to its
 * device only (the pooled view of those metrics is the merge of the
 * devices, made at finish). */
static rs_status values_row(rs_stats *st, const rs_sample *s, int slot, rs_error *err) {
  acc *dev = st->dev[slot];
  if (dev == NULL && (s->present & per_device_set) && (dev = dev_block(st, slot)) == NULL)
    return rs_error_set(err, RS_NOMEM, s->path, s->line, 0, "out of memory for statistics");
  if (!st->o.exact) {
    /* Each accumulator takes its values in row order, whatever order the
     * metrics of a row go in: the pooled first, then the device's (this
     * order, gcc's code moves fewer registers: 5 instructions a row of the
     * bench file). --exact goes out of line for the same reason. */
    for (uint32_t bits = s->present & ~per_device_set; bits != 0; bits &= bits - 1) {
      int m = __builtin_ctz(bits);
      if (acc_add_sketch(&st->pooled[m], s->v[m]) != RS_OK)
        return rs_error_set(err, RS_NOMEM, s->path, s->line, 0, "out of memory for statistics");
    }
    for (uint32_t bits = s->present & per_device_set; bits != 0; bits &= bits - 1) {
      int m = __builtin_ctz(bits);
      if (acc_add_sketch(&dev[m], s->v[m]) != RS_OK)
        return rs_error_set(err, RS_NOMEM, s->path, s->line, 0, "out of memory for statistics");
    }
    return RS_OK;
  }
  return values_exact(st, s, dev, err);
}

/* The span's bounds take t; a row on the grid (not an event) also the
 * grid's, and its t is kept: a row of that time changes none of them. */
static void bounds_row(rs_stats *st, double t, bool event) {
  if (t < st->first)
    st->first = t;
  if (t > st->last)
    st->last = t;
  if (event)
    return;
  if (t < st->grid_first)
    st->grid_first = t;
  if (t > st->grid_last)
    st->grid_last = t;
  st->grid_t = t;
}

/* rs_stats_add, and rs_stats_add_zeros with zeros (every present value is
 * +0: values_row's adds are a count each, deferred by zeros_row). One body
 * that both call: two would each call the row's parts out of line. */
__attribute__((noinline)) static rs_status add_row(rs_stats *st, const rs_sample *s, bool zeros,
                                                   rs_error *err) {
  assert(s->gpu >= -1 && s->gpu < NSLOTS);
  int slot = s->gpu >= 0 ? s->gpu : 0; /* host-level rows count as device 0 */
  const uint32_t present = s->present;
  const bool known = present == st->shape[slot];
  const bool event = !known && is_request_event(present);
  rs_status rc;
  if (!event && (rc = track_time(st, s, slot, err)) != RS_OK)
    return rc;
  st->rows++;
  if (!known) {
    if ((st->dev_linked | st->host_linked) != 0)
      pairs_check(st, present, slot);
    if (!event)
      st->shape[slot] = present;
  }
  if ((present & (1u << RS_METRIC_REQUEST_RATE)) && pairs_add(st, s, slot) != RS_OK)
    return rs_error_set(err, RS_NOMEM, s->path, s->line, 0, "out of memory for statistics");
  if (s->t != st->grid_t)
    bounds_row(st, s->t, event);
  if ((present & st->charted) && series_row(st, s, slot) != RS_OK)
    return rs_error_set(err, RS_NOMEM, s->path, s->line, 0, "out of memory for statistics");
  if (zeros && !st->o.exact) {
    /* the accumulators the values go to exist, as values_row makes them */
    if (st->dev[slot] == NULL && (present & per_device_set) && dev_block(st, slot) == NULL)
      return rs_error_set(err, RS_NOMEM, s->path, s->line, 0, "out of memory for statistics");
    zeros_row(st, present, slot);
  } else if ((rc = values_row(st, s, slot, err)) != RS_OK) {
    return rc;
  }
  if ((present & window_set) && windows_row(st, s, slot) != RS_OK)
    return rs_error_set(err, RS_NOMEM, s->path, s->line, 0, "out of memory for statistics");
  return RS_OK;
}

rs_status rs_stats_add(rs_stats *st, const rs_sample *s, rs_error *err) {
  return add_row(st, s, false, err);
}

rs_status rs_stats_sink(void *ctx, const rs_sample *s, rs_error *err) {
  return add_row(ctx, s, false, err);
}

rs_status rs_stats_add_zeros(rs_stats *st, const rs_sample *s, rs_error *err) {
  for (uint32_t bits = s->present; bits != 0; bits &= bits - 1)
    assert(s->v[__builtin_ctz(bits)] == 0.0 && !signbit(s->v[__builtin_ctz(bits)]));
  return add_row(st, s, true, err);
}

rs_status rs_stats_sink_zeros(void *ctx, const rs_sample *s, rs_error *err) {
  return rs_stats_add_zeros(ctx, s, err);
}

/* Moves the k-th smallest of a[lo..hi] to a[k], the smaller ones before it
 * and the larger after (Hoare's FIND, a median-of-three pivot). */
static void select_rank(double *a, size_t lo, size_t hi, size_t k) {
  while (lo < hi) {
    double p = a[lo], q = a[k], r = a[hi];
    double x = p < q ? (q < r ? q : (p < r ? r : p)) : (p < r ? p : (q < r ? r : q));
    size_t i = lo, j = hi;
    while (i <= j) {
      while (a[i] < x)
        i++;
      while (x < a[j])
        j--;
      if (i <= j) {
        double t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        if (j == 0)
          break;
        j--;
      }
    }
    if (j < k && k < i)
      return;
    if (k <= j)
      hi = j;
    else
      lo = i;
  }
}

/* The exact quantiles of a[0..n): the four ranks selected from the largest
 * down, each search within the part the previous one left below it. */
static void exact_quantiles(double *a, size_t n, double q[RS_QUANTILE_COUNT]) {
  size_t hi = n - 1;
  for (int i = RS_QUANTILE_COUNT - 1; i >= 0; i--) {
    size_t k = (size_t)floor(rs_quantile_levels[i] * (double)(n - 1));
    select_rank(a, 0, hi, k);
    q[i] = a[k];
    hi = k;
  }
}

static void acc_finish_vals(const acc *a, bool exact, double *vals, size_t nvals,
                            rs_metric_stats *out) {
  uint64_t n = a->sk.count;
  memset(out, 0, sizeof(*out));
  out->count = n;
  if (n == 0) {
    out->min = out->max = out->mean = out->stddev = NAN;
    for (int q = 0; q < RS_QUANTILE_COUNT; q++)
      out->q[q] = NAN;
    return;
  }
  out->min = a->sk.min;
  out->max = a->sk.max;
  out->mean = rs_xsum_value(&a->s1) / (double)n;
  out->stddev = sqrt(rs_xsum_comoment(n, &a->s1, &a->s1, &a->s2) / (double)n);
  out->exact = exact && nvals == n;
  if (out->exact)
    exact_quantiles(vals, nvals, out->q);
  else
    for (int q = 0; q < RS_QUANTILE_COUNT; q++)
      out->q[q] = rs_sketch_quantile(&a->sk, rs_quantile_levels[q]);
}

static void acc_finish(acc *a, bool exact, rs_metric_stats *out) {
  acc_finish_vals(a, exact, a->vals, a->nvals, out);
}

/* Window peaks including the window still open, without closing it. */
static rs_status window_finish(const window *w, double width, rs_window_stats *out) {
  rs_sketch tmp;
  rs_status rc = RS_OK;
  rs_sketch_init(&tmp);
  rc = rs_sketch_merge(&tmp, &w->peaks);
  if (rc == RS_OK && w->head_closed)
    rc = rs_sketch_add(&tmp, w->head_max);
  if (rc == RS_OK && w->open)
    rc = rs_sketch_add(&tmp, w->max);
  out->window_s = width;
  out->windows = tmp.count;
  out->p50 = rs_sketch_quantile(&tmp, 0.50);
  out->p95 = rs_sketch_quantile(&tmp, 0.95);
  out->max = tmp.count ? tmp.max : NAN;
  rs_sketch_release(&tmp);
  return rc;
}

static void coverage_finish(const rs_stats *st, rs_coverage *c) {
  memset(c, 0, sizeof(*c));
  c->rows = st->rows;
  c->series = st->series;
  c->duplicates = st->duplicates;
  c->out_of_order = st->out_of_order;
  c->first = st->rows ? st->first : NAN;
  c->last = st->rows ? st->last : NAN;
  c->duration_s = st->rows ? st->last - st->first : 0.0;
  c->interval_s = rs_sketch_quantile(&st->intervals, 0.5);
  c->longest_gap_s = st->intervals.count ? st->intervals.max : NAN;
  if (st->intervals.count) {
    double limit = st->o.gap_factor * c->interval_s;
    c->gaps = rs_sketch_count_above(&st->intervals, limit);
    c->gap_s = rs_sketch_sum_above(&st->intervals, limit) - (double)c->gaps * c->interval_s;
    if (c->gap_s < 0)
      c->gap_s = 0;
  }
  c->expected_per_series = NAN;
  /* Over the rows on the sampling grid: a request log's per-request rows
   * (token counts) fall between its interval rows and would stretch the
   * span past the last interval, inventing missing samples. */
  double grid_s = st->grid_last - st->grid_first;
  if (isfinite(c->interval_s) && c->interval_s > 0 && isfinite(grid_s))
    c->expected_per_series = floor(grid_s / c->interval_s + 0.5) + 1.0;
}

/* count / (expected x series), at most 1 (duplicates can exceed it). */
static void set_present(rs_metric_stats *ms, double expected, double series) {
  ms->present = NAN;
  if (ms->count == 0 || !(expected > 0) || !(series > 0))
    return;
  ms->present = (double)ms->count / (expected * series);
  if (ms->present > 1.0)
    ms->present = 1.0;
}

/* Honest coverage: a series with 58% of its samples is 42% missing,
 * whatever the gap accounting says. */
static void presence_finish(rs_endpoint_stats *out) {
  double e = out->coverage.expected_per_series;
  for (int m = 0; m < RS_METRIC_COUNT; m++) {
    double carriers = 1.0;
    for (size_t d = 0; d < out->ndevices; d++)
      out->devices[d].m[m].present = NAN;
    if (rs_metric_per_device((rs_metric)m)) {
      carriers = 0.0;
      for (size_t d = 0; d < out->ndevices; d++) {
        set_present(&out->devices[d].m[m], e, 1.0);
        carriers += out->devices[d].m[m].count > 0 ? 1.0 : 0.0;
      }
    }
    set_present(&out->m[m], e, carriers);
  }
}

static void shape_finish(rs_endpoint_stats *out) {
  const rs_metric_stats *r = &out->m[RS_METRIC_REQUEST_RATE];
  out->rate_peak_to_mean = out->rate_p99_to_mean = out->rate_cv = NAN;
  if (r->count > 0 && r->mean > 0) {
    out->rate_peak_to_mean = r->max / r->mean;
    out->rate_p99_to_mean = r->q[3] / r->mean;
    out->rate_cv = r->stddev / r->mean;
  }
}

static void pair_finish(const pair *p, rs_linear_fit *out) {
  double n = (double)p->n;
  double mx = p->n ? rs_xsum_value(&p->sx) / n : NAN, my = p->n ? rs_xsum_value(&p->sy) / n : NAN;
  double cxx = rs_xsum_comoment(p->n, &p->sx, &p->sx, &p->sxx);
  double cxy = rs_xsum_comoment(p->n, &p->sx, &p->sy, &p->sxy);
  double cyy = rs_xsum_comoment(p->n, &p->sy, &p->sy, &p->syy);
  out->n = p->n;
  out->x_mean = mx;
  out->y_mean = my;
  out->x_stddev = p->n > 1 ? sqrt(cxx / (double)(p->n - 1)) : NAN;
  out->slope = out->intercept = out->r2 = NAN;
  if (p->n < 2 || !(cxx > 0))
    return;
  out->slope = cxy / cxx;
  out->intercept = my - out->slope * mx;
  if (cyy > 0)
    out->r2 = cxy * cxy / (cxx * cyy);
}

/* Exact sums add. */
static void pair_merge(pair *dst, const pair *src) {
  dst->n += src->n;
  rs_xsum_merge(&dst->sx, &src->sx);
  rs_xsum_merge(&dst->sy, &src->sy);
  rs_xsum2_merge(&dst->sxx, &src->sxx);
  rs_xsum2_merge(&dst->sxy, &src->sxy);
  rs_xsum2_merge(&dst->syy, &src->syy);
}

static rs_status acc_merge(acc *dst, const acc *src, size_t cap);
static rs_status acc_merge_moments(acc *dst, const acc *src);

/* The pooled view of metric m: its own accumulator, or for a per-device
 * metric the merge of every device's (in device order, so it is stable). */
/* The pooled view of metric m: its own accumulator, or for a per-device
 * metric the merge of every device's (in device order, so it is stable).
 * --exact selects in place when one device holds the values, else in a
 * copy that the cap on kept values must leave room for. */
static rs_status pooled_finish(rs_stats *st, rs_metric m, rs_metric_stats *out, rs_error *err) {
  acc all;
  double *vals = NULL, *copy = NULL;
  size_t nvals = 0, held = 0;
  rs_status rc = RS_OK;
  if (!rs_metric_per_device(m)) {
    acc_finish(&st->pooled[m], st->o.exact, out);
    return RS_OK;
  }
  acc_init(&all);
  for (int d = 0; d < NSLOTS && rc == RS_OK; d++) {
    if (st->dev[d] == NULL)
      continue;
    rc = acc_merge_moments(&all, &st->dev[d][m]);
    if (st->dev[d][m].nvals > 0) {
      vals = st->dev[d][m].vals;
      nvals += st->dev[d][m].nvals;
      held++;
    }
  }
  if (rc != RS_OK)
    rc = rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory for statistics");
  if (rc == RS_OK && held > 1 && nvals > st->exact_left)
    rc = rs_error_set(err, RS_LIMIT, NULL, 0, 0,
                      "more than %zu values kept for --exact (%zu MiB; pooling the devices' "
                      "'%s'); drop --exact to use the sketch",
                      st->o.exact_max_values, st->o.exact_max_values * sizeof(double) >> 20,
                      rs_metric_key(m));
  if (rc == RS_OK && held > 1) {
    size_t at = 0;
    if ((vals = copy = rs_malloc_array(nvals, sizeof(*copy))) == NULL)
      rc = rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory for --exact");
    for (int d = 0; d < NSLOTS && rc == RS_OK; d++) {
      if (st->dev[d] == NULL)
        continue;
      if (st->dev[d][m].nvals > 0)
        memcpy(copy + at, st->dev[d][m].vals, st->dev[d][m].nvals * sizeof(*copy));
      at += st->dev[d][m].nvals;
    }
  }
  if (rc == RS_OK)
    acc_finish_vals(&all, st->o.exact, vals, nvals, out);
  free(copy);
  acc_release(&all);
  return rc;
}

rs_status rs_stats_finish(rs_stats *st, rs_endpoint_stats *out, rs_error *err) {
  double best = -1.0;
  rs_status rc = RS_OK;
  /* Everything but the devices and the series, which are written as far
   * as they are used (rightsize/stats.h). */
  size_t after = offsetof(rs_endpoint_stats, devices) + sizeof(out->devices);
  memset(out, 0, offsetof(rs_endpoint_stats, devices));
  memset((char *)out + after, 0, offsetof(rs_endpoint_stats, series) - after);
  zeros_flush(st);
  coverage_finish(st, &out->coverage);
  for (int m = 0; m < RS_METRIC_COUNT && rc == RS_OK; m++)
    rc = pooled_finish(st, (rs_metric)m, &out->m[m], err);
  if (rc != RS_OK)
    return rc;
  out->busiest_device = -1;
  for (int d = 0; d < NSLOTS && rc == RS_OK; d++) {
    if (st->dev[d] == NULL) /* allocated at the device's first per-device value */
      continue;
    rs_device_stats *ds = &out->devices[out->ndevices++];
    memset(ds, 0, sizeof(*ds));
    ds->index = d;
    for (int m = 0; m < RS_METRIC_COUNT; m++) {
      if (rs_metric_per_device((rs_metric)m))
        acc_finish(&st->dev[d][m], st->o.exact, &ds->m[m]);
    }
    pair dp = dev_pair_view(st, d);
    pair_finish(&dp, &ds->util_vs_rate);
    rc = window_finish(&st->dev_mem[d], st->o.window_s, &ds->mem_windows);
    const rs_metric_stats *mem = &ds->m[RS_METRIC_GPU_MEM_USED];
    if (mem->count > 0 && mem->max > best) {
      best = mem->max;
      out->busiest_device = d;
      out->gpu_mem_windows = ds->mem_windows;
    }
  }
  if (rc == RS_OK)
    rc = window_finish(&st->host_mem, st->o.window_s, &out->host_mem_windows);
  if (rc != RS_OK)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory for statistics");
  if (out->busiest_device < 0)
    out->gpu_mem_windows.window_s = st->o.window_s;
  shape_finish(out);
  presence_finish(out);
  rs_linear_fit *host_fits[NHOST_PAIRS] = {&out->cpu_vs_rate, &out->net_rx_vs_rate,
                                           &out->net_tx_vs_rate, &out->tpot_vs_rate};
  for (size_t i = 0; i < NHOST_PAIRS; i++) {
    pair hp = host_pair_view(st, i);
    pair_finish(&hp, host_fits[i]);
  }
  rs_load_finish(&st->load, &out->load);
  rs_series_finish(st->timeline, &out->series);
  return RS_OK;
}

/* The sketch, count, moments and extremes of src into dst (not the values). */
static rs_status acc_merge_moments(acc *dst, const acc *src) {
  if (src->sk.count == 0)
    return RS_OK;
  if (rs_sketch_merge(&dst->sk, &src->sk) != RS_OK)
    return RS_NOMEM;
  rs_xsum_merge(&dst->s1, &src->s1);
  rs_xsum2_merge(&dst->s2, &src->s2);
  return RS_OK;
}

static rs_status acc_merge(acc *dst, const acc *src, size_t cap) {
  if (src->sk.count == 0)
    return RS_OK;
  if (src->nvals && dst->nvals + src->nvals > cap)
    return RS_LIMIT;
  if (src->nvals) {
    double *p = rs_realloc_array(dst->vals, dst->nvals + src->nvals, sizeof(*p));
    if (p == NULL)
      return RS_NOMEM;
    memcpy(p + dst->nvals, src->vals, src->nvals * sizeof(*p));
    dst->vals = p;
    dst->nvals += src->nvals;
    dst->avals = dst->nvals;
  }
  return acc_merge_moments(dst, src);
}

static rs_status window_merge(window *dst, const window *src) {
  rs_status rc = rs_sketch_merge(&dst->peaks, &src->peaks);
  if (rc == RS_OK && src->head_closed)
    rc = rs_sketch_add(&dst->peaks, src->head_max);
  if (rc == RS_OK && src->open)
    rc = rs_sketch_add(&dst->peaks, src->max);
  return rc;
}

static rs_status window_append(window *dst, const window *src);
static rs_status coverage_append(rs_stats *dst, const rs_stats *part);

/* src's rows after dst's: another file's (merge), or the next part of the
 * same file (append: windows and series continue across the cut). */
static rs_status fold(rs_stats *dst, const rs_stats *src, bool append, rs_error *err) {
  rs_status rc = RS_OK;
  size_t cap = dst->o.exact_max_values;
  /* dst's pairs take their sums before its accumulators take src's */
  pairs_unlink(dst, dst->dev_linked, dst->host_linked);
  zeros_flush(dst);
  for (int m = 0; m < RS_METRIC_COUNT && rc == RS_OK; m++) {
    rc = acc_merge(&dst->pooled[m], &src->pooled[m], cap);
    for (int d = 0; d < NSLOTS && rc == RS_OK; d++) {
      if (src->dev[d] == NULL)
        continue;
      rc = dev_block(dst, d) ? acc_merge(&dst->dev[d][m], &src->dev[d][m], cap) : RS_NOMEM;
    }
  }
  if (rc == RS_LIMIT)
    return rs_error_set(err, RS_LIMIT, NULL, 0, 0,
                        "more than %zu values kept for --exact; drop --exact to use the sketch",
                        cap);
  for (int d = 0; d < NSLOTS && rc == RS_OK; d++) /* src's rows of zeros not yet counted */
    zeros_add(dst, d, src->zero_shape[d], src->zero_rows[d]);
  for (int d = 0; d < NSLOTS && rc == RS_OK; d++) {
    pair sp = dev_pair_view(src, d);
    pair_merge(&dst->dev_load[d], &sp);
    rc = append ? window_append(&dst->dev_mem[d], &src->dev_mem[d])
                : window_merge(&dst->dev_mem[d], &src->dev_mem[d]);
  }
  for (size_t i = 0; i < NHOST_PAIRS; i++) {
    pair sp = host_pair_view(src, i);
    pair_merge(&dst->host_load[i], &sp);
  }
  if (rc == RS_OK)
    rc = append ? window_append(&dst->host_mem, &src->host_mem)
                : window_merge(&dst->host_mem, &src->host_mem);
  if (rc == RS_OK)
    rc = rs_sketch_merge(&dst->intervals, &src->intervals);
  if (rc == RS_OK)
    rc = rs_load_merge(&dst->load, &src->load);
  if (src->timeline != NULL && src->timeline->n > 0 && !dst->o.no_series && timeline(dst) != NULL)
    rs_series_merge(dst->timeline, src->timeline); /* out of memory: the chart loses it */
  if (rc != RS_OK)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory merging statistics");
  dst->rows += src->rows;
  dst->series += src->series;
  dst->duplicates += src->duplicates;
  dst->out_of_order += src->out_of_order;
  if (src->first < dst->first)
    dst->first = src->first;
  if (src->last > dst->last)
    dst->last = src->last;
  if (src->grid_first < dst->grid_first)
    dst->grid_first = src->grid_first;
  if (src->grid_last > dst->grid_last)
    dst->grid_last = src->grid_last;
  if (append && coverage_append(dst, src) != RS_OK)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory merging statistics");
  return RS_OK;
}

rs_status rs_stats_merge(rs_stats *dst, const rs_stats *src, rs_error *err) {
  return fold(dst, src, false, err);
}

static size_t acc_footprint(const acc *a) { return a->sk.nbins + a->avals; }

size_t rs_stats_footprint(const rs_stats *st) {
  size_t n = st->intervals.nbins + st->host_mem.peaks.nbins;
  for (int i = 0; i < RS_LOAD_BUCKETS; i++)
    for (int q = 0; q < RS_LOAD_LATENCIES; q++)
      n += st->load.slot[i].lat[q].nbins;
  for (int m = 0; m < RS_METRIC_COUNT; m++) {
    n += acc_footprint(&st->pooled[m]);
    for (int d = 0; d < NSLOTS; d++)
      n += st->dev[d] ? acc_footprint(&st->dev[d][m]) : 0;
  }
  for (int d = 0; d < NSLOTS; d++)
    n += st->dev_mem[d].peaks.nbins;
  return n;
}

void rs_stats_forget_rows(rs_stats *st) {
  for (int d = 0; d < NSLOTS; d++)
    st->shape[d] = UINT32_MAX; /* no row's: bits past RS_METRIC_COUNT */
  st->grid_t = NAN;
  st->dt_again = NAN;
}

/* ---- parts of one file (threads) ---- */

rs_status rs_stats_new_part(rs_stats **out, const rs_stats *like, rs_error *err) {
  rs_stats *st;
  rs_status rc = rs_stats_new(&st, &like->o, err);
  if (rc != RS_OK)
    return rc;
  assert(!st->o.exact);
  st->part = true;
  for (int d = 0; d < NSLOTS; d++)
    st->dev_mem[d].hold_first = true;
  st->host_mem.hold_first = true;
  *out = st;
  return RS_OK;
}

bool rs_stats_continues(const rs_stats *dst, const rs_stats *part) {
  for (int d = 0; d < NSLOTS; d++)
    if (part->opened[d] && dst->has_last[d] && part->first_t[d] < dst->last_t[d])
      return false;
  return true;
}

/* Ends w's open window: into the peaks, or held back as a part's first. */
static rs_status window_close(window *w) {
  w->open = false;
  w->lo = w->hi = NAN;
  if (w->hold_first && !w->head_closed) {
    w->head_closed = true;
    w->head_idx = w->idx;
    w->head_max = w->max;
    return RS_OK;
  }
  return rs_sketch_add(&w->peaks, w->max);
}

/* Continues dst's open window with a window (idx, max), or ends it. */
static rs_status window_continue(window *dst, double idx, double max) {
  if (dst->open && dst->idx == idx) {
    dst->max = dst->max > max ? dst->max : max;
    return RS_OK;
  }
  if (dst->open && window_close(dst) != RS_OK)
    return RS_NOMEM;
  dst->open = true;
  dst->idx = idx;
  dst->max = max;
  dst->lo = dst->hi = NAN; /* edges unknown: window_add divides */
  return RS_OK;
}

/* The windows of part after those of dst: part's first window is dst's
 * open one continued when both have the same index, as one pass has it. */
static rs_status window_append(window *dst, const window *src) {
  if (!src->open)
    return RS_OK; /* src saw no value */
  if (!src->head_closed)
    return window_continue(dst, src->idx, src->max);
  if (window_continue(dst, src->head_idx, src->head_max) != RS_OK || window_close(dst) != RS_OK ||
      rs_sketch_merge(&dst->peaks, &src->peaks) != RS_OK)
    return RS_NOMEM;
  dst->open = true;
  dst->idx = src->idx;
  dst->max = src->max;
  dst->lo = dst->hi = NAN; /* edges unknown: window_add divides */
  return RS_OK;
}

/* Each series part opened continues dst's series of that device, if any:
 * the step between them is what one pass would have measured. */
static rs_status coverage_append(rs_stats *dst, const rs_stats *part) {
  for (int d = 0; d < NSLOTS; d++) {
    if (part->opened[d] && dst->has_last[d]) {
      double dt = part->first_t[d] - dst->last_t[d];
      dst->series--;
      if (dt == 0)
        dst->duplicates++;
      else if (rs_sketch_add(&dst->intervals, dt) != RS_OK)
        return RS_NOMEM;
    }
    if (part->has_last[d]) {
      dst->has_last[d] = true;
      dst->last_t[d] = part->last_t[d];
    }
  }
  return RS_OK;
}

rs_status rs_stats_append(rs_stats *dst, const rs_stats *part, rs_error *err) {
  assert(part->part && rs_stats_continues(dst, part));
  return fold(dst, part, true, err);
}
