/* `rightsize diff OLD NEW`: what a change does to the deployments the tool
 * recommends, per endpoint and in total (docs/cli.md "diff").
 *
 * Each side is a recommendation document (rightsize.recommendation/1), an
 * audit document (rightsize.audit/1), or a profile, which is fitted first.
 * Per endpoint the side records the deployment the document leads to: the
 * verdict's target when it moves, the current deployment otherwise, with
 * its cost, cost per million requests, replicas, latency at the SLO
 * quantile, binding constraint and verdict. Everything lives in the arena
 * passed in. */
#ifndef RIGHTSIZE_DIFF_H
#define RIGHTSIZE_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "rightsize/arena.h"
#include "rightsize/error.h"
#include "rightsize/pipeline.h"

#define RS_DIFF_JSON_SCHEMA "rightsize.diff/1"

/* One endpoint's deployment on one side. Numbers are NaN where the document
 * does not carry them (an audit has no latency or cost per million). */
typedef struct rs_diff_side {
  bool present;         /* false: the endpoint is not on this side */
  const char *provider; /* "aws" */
  const char *shape;    /* "inf1.2xlarge" */
  unsigned replicas;
  double usd_month;
  double usd_per_million;
  double latency_ms;   /* at the SLO quantile */
  const char *binding; /* "latency"; NULL unknown */
  const char *verdict; /* "move", "keep-right-sized", ... */
} rs_diff_side;

typedef struct rs_diff_endpoint {
  const char *endpoint;
  rs_diff_side s;
} rs_diff_endpoint;

/* One document's endpoints, as read. */
typedef struct rs_diff_doc {
  const char *path;
  const char *kind; /* "recommendation", "audit" or "profile" */
  rs_diff_endpoint *endpoints;
  size_t n;
} rs_diff_doc;

typedef struct rs_diff_row {
  const char *endpoint;
  rs_diff_side old, new_;
  double month_delta, month_pct;             /* NEW - OLD; pct of OLD, NaN when OLD is not > 0 */
  double per_million_delta, per_million_pct; /* the same for cost per million */
  double latency_delta_ms;
  bool changed; /* added, removed, or any figure or word differs */
} rs_diff_row;

typedef struct rs_diff {
  const rs_diff_doc *old, *new_;
  rs_diff_row *rows; /* every endpoint of either side, by name */
  size_t nrows, changed;
  /* totals over the endpoints present on each side */
  double old_month, new_month, month_delta, month_pct;
  /* the largest rise, percent: of the total $/month, or of any endpoint's
   * cost per million (NaN when nothing can be compared); what it was */
  double worst_pct;
  const char *worst_what;
} rs_diff;

/* Reads path into *out: a recommendation or audit JSON document (by its
 * "schema"), otherwise a profile fitted with p (which may be NULL only
 * when no profile is given: RS_USAGE then). RS_INVALID for a document of
 * another schema or a member of the wrong type, with its position. */
rs_status rs_diff_load(rs_diff_doc *out, rs_arena *arena, const rs_pipeline *p, const char *path,
                       rs_error *err);

/* Compares two documents into *out (rows sorted by endpoint name, byte by
 * byte). RS_NOMEM only. */
rs_status rs_diff_compute(rs_diff *out, rs_arena *arena, const rs_diff_doc *old,
                          const rs_diff_doc *new_, rs_error *err);

/* Whether the diff rises above pct percent (--fail-above): the total
 * $/month, or any endpoint's cost per million. */
bool rs_diff_exceeds(const rs_diff *d, double pct);

#endif
