/* The work of one recommendation, composed once (docs/design.md "Pipeline").
 *
 *   rs_pipeline_open       catalog (built-in or a path), priced under a basis
 *                          with an overlay on top
 *   rs_pipeline_summarize  one profile, or bare sample files, into a summary
 *   rs_pipeline_fit        one profile: load, summarize, fit
 *   rs_pipeline_check      profiles fitted, then policies evaluated; the
 *                          verdict and its counts in one rs_check_report
 *   rs_audit_run           a fleet (audit.h), whose workers call
 *                          rs_pipeline_fit_profile
 *
 * recommend, check, audit and profile call these and nothing else of the
 * model; a command parses options, calls them, picks a writer and ends.
 * Everything returned lives in the arena passed in. */
#ifndef RIGHTSIZE_PIPELINE_H
#define RIGHTSIZE_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "rightsize/arena.h"
#include "rightsize/catalog.h"
#include "rightsize/error.h"
#include "rightsize/fit.h"
#include "rightsize/policy.h"
#include "rightsize/pricing.h"
#include "rightsize/profile.h"
#include "rightsize/summary.h"

/* Where the catalog and its prices come from, and the model's knobs. */
typedef struct rs_pipeline_options {
  const char *catalog; /* a catalog file or directory; NULL: the built-in one */
  const char *overlay; /* a price overlay file; NULL: none */
  rs_price_basis basis;
  rs_fit_options fit;
} rs_pipeline_options;

/* Sets the defaults: built-in catalog, on-demand, no overlay, the fit
 * defaults (rs_fit_options_init). */
void rs_pipeline_options_init(rs_pipeline_options *o);

/* An open, priced catalog and the fit options: what every fit needs. */
typedef struct rs_pipeline {
  rs_catalog *catalog; /* priced under basis */
  const rs_overlay *overlay;
  rs_price_basis basis;
  rs_fit_options fit;
  rs_progress *progress; /* bytes read of each sample file; NULL (the default): none */
  unsigned threads;      /* threads reading one native sample file (docs/scale.md); 0 or 1 (the
                            default): one. The output is the same bits for any number */
  bool charts;           /* the run draws charts (HTML): keep the samples' time series
                            (rs_endpoint_stats.series); false (the default): not made */
} rs_pipeline;

/* The threads for --threads N on one sample file: N, or for 0
 * RS_INGEST_THREADS_AUTO (the number of online CPUs, at most 16, counted
 * only for a file large enough to cut). */
unsigned rs_pipeline_threads(unsigned asked);

/* Loads o->catalog (or the built-in catalog), reads o->overlay and prices
 * every shape under o->basis into *out. Errors of rs_catalog_load,
 * rs_overlay_load and rs_pricing_apply (RS_USAGE: reserved without a
 * reserved discount). */
rs_status rs_pipeline_open(rs_pipeline *out, rs_arena *arena, const rs_pipeline_options *o,
                           rs_error *err);

/* Summarizes paths: one profile (.yaml, .yml or .json) with its samples, or
 * sample files only. RS_USAGE when a profile is mixed with other files;
 * otherwise the errors of rs_profile_load and rs_summary_*. opts may be NULL. */
rs_status rs_pipeline_summarize(rs_summary **out, rs_arena *arena, const char *const *paths,
                                size_t npaths, const rs_summary_options *opts, rs_error *err);

/* Summarizes a loaded profile and fits it against p. *out in arena. */
rs_status rs_pipeline_fit_profile(rs_fit_result **out, rs_arena *arena, const rs_pipeline *p,
                                  const rs_profile *profile, rs_error *err);

/* Loads the profile at path, summarizes and fits it (rs_fit: a result with
 * nfitting == 0 is not an error). */
rs_status rs_pipeline_fit(rs_fit_result **out, rs_arena *arena, const rs_pipeline *p,
                          const char *path, rs_error *err);

/* What `rightsize check` evaluates. */
typedef struct rs_check_request {
  const rs_policy_set *policies; /* at least one set */
  const char *instance;          /* evaluate this catalog shape instead of the current; or NULL */
  unsigned replicas;             /* of instance; 0: 1 */
  const char *const *profiles;
  size_t nprofiles;
} rs_check_request;

/* Fits every profile of req against p and evaluates the policies on each;
 * *out holds the results, the counts and the verdict. RS_USAGE when no
 * policy is set, when instance is not in the catalog or when a path is not
 * a profile; the first profile's error otherwise. */
rs_status rs_pipeline_check(rs_check_report **out, rs_arena *arena, const rs_pipeline *p,
                            const rs_check_request *req, rs_error *err);

#endif
