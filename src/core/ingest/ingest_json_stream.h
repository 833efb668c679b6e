/* The state the streaming JSON reader's files share (ingest_json_stream.c:
 * the passes and the merge; ingest_json_prom.c: query_range answers;
 * ingest_json_cloudwatch.c: CloudWatch output). */
#ifndef RS_INGEST_JSON_STREAM_H
#define RS_INGEST_JSON_STREAM_H

#include "ingest_json_cursor.h"

#define DP_STATS 3 /* ModelLatency's p50, p95, p99; one statistic otherwise */

/* ---- the series ---- */

typedef struct series {
  const char *key; /* arena */
  rs_series_rule rule;
  int gpu;
  long long off; /* the values' '[' (a CloudWatch result: its timestamps' first item) */
  size_t line;
  long long line_start, cont;
  bool cw;           /* a CloudWatch result: its points in blocks (cw_block) */
  bool dp;           /* get-metric-statistics Datapoints: one object per time */
  bool newest_first; /* CloudWatch's default order */
  uint64_t n;        /* a CloudWatch result's points */
  size_t mark0;      /* where its blocks' places start in reader.marks */
} series;

/* Where a token starts, to read from there again. */
typedef struct place {
  long long off, line_start, cont;
  size_t line;
} place;

typedef struct label {
  char *key, *value;
  size_t line, col; /* the value's */
} label;

typedef struct reader {
  rs_export *x;
  cursor *c;
  series *s;
  size_t n, cap;
  uint64_t points;
  label labels[MAX_LABELS];
  size_t nlabels;
  bool skim;    /* pass 1 only finds the points (skim_values, get-metric-data values); pass 2 checks
                   them */
  bool cw;      /* CloudWatch get-metric-data output rather than a query_range answer */
  place *marks; /* CloudWatch: per block of CW_BLOCK points, its first timestamp, value */
  size_t nmarks, marks_cap;
  struct dp_ctx *dp;      /* get-metric-statistics: the metric's label, keys and rules */
  struct day_cache *days; /* CloudWatch, pass 1 */
} reader;

typedef struct stream {
  cursor c; /* a CloudWatch result: over its timestamps */
  const series *s;
  double lim; /* a query_range series: a scaled value up to this is kept as it is (quick_value) */
  int gpu;    /* its points' GPU (-1: not a per-device metric) */
  rs_export_point head;
  bool more; /* the list has items left after head */
  /* a CloudWatch result: */
  cursor v;           /* over its values */
  const place *marks; /* its blocks' places, two a block */
  struct dp_ctx *dp;  /* a get-metric-statistics answer's */
  day_cache days;
  rs_export_point *block; /* the block read, CW_BLOCK points (DP_STATS a datapoint) */
  size_t nblock, at;      /* its points, the next to hand out */
  size_t next, nblocks;   /* blocks read, blocks in all */
} stream;

static inline place place_of(const cursor *c) {
  return (place){.off = c->base + (long long)c->pos,
                 .line_start = c->line_start,
                 .cont = c->cont,
                 .line = c->line};
}

static inline void go_to(cursor *c, const place *p) {
  c->base = c->next_off = p->off;
  c->pos = c->end = 0;
  c->eof = false;
  c->line = p->line;
  c->line_start = p->line_start;
  c->cont = p->cont;
}

/* ingest_json_prom.c */
void rs_jstream_labels_clear(reader *r);
rs_status rs_jstream_keep_series(reader *r, const series *s, uint64_t n);
rs_status rs_jstream_read_point(cursor *c, const rs_export *x, const series *s, rs_export_point *p,
                                bool *kept);
rs_status rs_jstream_read_result(reader *r);
rs_status rs_jstream_want_text(cursor *c, const char *key, const char *want);
rs_status rs_jstream_read_data(reader *r);

/* ingest_json_cloudwatch.c */
rs_status rs_jstream_cw_root(reader *r);
rs_status rs_jstream_cw_block(stream *m, const rs_export *x, size_t b);

#endif
