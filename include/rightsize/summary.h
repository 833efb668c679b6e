/* The endpoint summary behind `rightsize profile`: a profile's (or bare
 * sample files') rows run through the statistics core, plus data-quality
 * warnings. Later commands (recommend, check, audit) start from it. */
#ifndef RIGHTSIZE_SUMMARY_H
#define RIGHTSIZE_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rightsize/arena.h"
#include "rightsize/error.h"
#include "rightsize/ingest.h"
#include "rightsize/profile.h"
#include "rightsize/stats.h"

/* Thresholds behind the warnings (docs/statistics.md says why). */
#define RS_WARN_HISTORY_S (7.0 * 86400.0) /* less than a weekly cycle */
#define RS_WARN_MIN_ROWS 500              /* fewer rows than this: few samples */
#define RS_WARN_PEAK_TO_MEAN 3.0          /* request-rate max/mean above: spiky */
#define RS_WARN_GAP_FRACTION 0.01         /* gaps above 1% of the range */
#define RS_IDLE_UTIL_PCT 1.0              /* a device whose max util stays below is idle */

typedef struct rs_summary_input {
  const char *path;
  rs_sample_format format;
  uint64_t rows;
} rs_summary_input;

typedef struct rs_warning {
  const char *code; /* stable identifier: "short-history", "gaps", ... */
  const char *text; /* one sentence for people */
} rs_warning;

typedef struct rs_summary {
  const rs_profile *profile; /* NULL when built from sample files alone */
  const char *name;          /* endpoint name, or the first file's path */
  rs_data_source source;
  rs_summary_input *inputs;
  size_t ninputs;
  uint64_t inline_rows;
  rs_endpoint_stats stats;
  bool exact;
  rs_warning *warnings;
  size_t nwarnings;
} rs_summary;

typedef struct rs_summary_options {
  rs_stats_options stats;
  rs_sample_format format; /* for bare sample files; profiles say per file */
  const char *mapping;     /* series mapping file for bare exported files, or NULL */
} rs_summary_options;

/* Reads every sample file and inline row of profile, in order. Everything
 * lives in arena; *out is NULL on failure with err from the first bad cell. */
rs_status rs_summary_from_profile(rs_summary **out, rs_arena *arena, const rs_profile *profile,
                                  const rs_summary_options *opts, rs_error *err);

/* The same for sample files named directly (no profile: no SLO, no model). */
rs_status rs_summary_from_files(rs_summary **out, rs_arena *arena, const char *const *paths,
                                size_t npaths, const rs_summary_options *opts, rs_error *err);

#endif
