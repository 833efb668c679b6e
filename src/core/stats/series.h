/* The accumulator behind rs_series (stats.h): bounded time buckets whose
 * width doubles as the history grows. Private to the statistics. */
#ifndef RIGHTSIZE_SERIES_H
#define RIGHTSIZE_SERIES_H

#include <stdbool.h>
#include <stdint.h>

#include "rightsize/stats.h"
#include "xsum.h"

/* Channels: GPU_UTIL of device d is d, GPU_MEM_USED of device d is
 * RS_SERIES_DEVICES + d, the request rate is RS_SERIES_RATE. */
#define RS_SERIES_RATE (2 * RS_SERIES_DEVICES)
#define RS_SERIES_CHANNELS (RS_SERIES_RATE + 1)

typedef struct rs_series_cell {
  uint64_t n;
  double min, max;
  rs_xsum sum; /* exact: the mean does not depend on the order rows were added in */
} rs_series_cell;

typedef struct rs_series_acc {
  double width; /* seconds, a power of two */
  int64_t k0;   /* bucket 0 is [k0 x width, (k0 + 1) x width) */
  size_t n;     /* buckets in use from k0; 0: empty */
  /* The last time added, the width then and its absolute bucket, whose
   * times [memo_lo, memo_hi) at that width skip the division too: the rows
   * of one timestamp (one per GPU, several channels) and of the next ones
   * in the same bucket. */
  double memo_t, memo_width, memo_lo, memo_hi;
  int64_t memo_k;
  rs_series_cell cell[RS_SERIES_CHANNELS][RS_SERIES_BUCKETS];
} rs_series_acc;

/* Starts an empty series in a, whose cells must be zero already (calloc'd
 * memory): the cells are most of its size and a short input touches few. */
void rs_series_init(rs_series_acc *a);

/* Adds value v of channel ch at epoch time t (finite). */
void rs_series_add(rs_series_acc *a, double t, int ch, double v);

/* Whether t falls in the bucket of the last time added (its memo). */
static inline bool rs_series_memo_hit(const rs_series_acc *a, double t) {
  return (t == a->memo_t || (t >= a->memo_lo && t < a->memo_hi)) && a->width == a->memo_width &&
         a->n > 0 && a->memo_k >= a->k0 && a->memo_k < a->k0 + (int64_t)a->n;
}

/* v into the memo's bucket of channel ch. */
static inline void rs_series_memo_add(rs_series_acc *a, int ch, double v) {
  rs_series_cell *c = &a->cell[ch][a->memo_k - a->k0];
  if (c->n == 0 || v < c->min)
    c->min = v;
  if (c->n == 0 || v > c->max)
    c->max = v;
  c->n++;
  rs_xsum_add(&c->sum, v);
}

/* Makes t's bucket the memo's (the bucket rs_series_memo_add adds to). */
void rs_series_locate_slow(rs_series_acc *a, double t);

static inline void rs_series_locate(rs_series_acc *a, double t) {
  if (!rs_series_memo_hit(a, t))
    rs_series_locate_slow(a, t);
}

/* rs_series_add, inline where the bucket is the last one's (the rows of one
 * timestamp, one per GPU). */
static inline void rs_series_add_fast(rs_series_acc *a, double t, int ch, double v) {
  if (rs_series_memo_hit(a, t))
    rs_series_memo_add(a, ch, v);
  else
    rs_series_add(a, t, ch, v);
}

/* Adds src's buckets into dst (coarsening either to a common width). */
void rs_series_merge(rs_series_acc *dst, const rs_series_acc *src);

/* The buckets into *out; a NULL a is an empty series. */
void rs_series_finish(const rs_series_acc *a, rs_series *out);

#endif
