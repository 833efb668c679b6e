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
  uint64_t repeated_headers; /* header lines skipped inside the file */
  uint32_t notes;            /* rs_ingest_note bits: what the reader assumed */
} rs_summary_input;

/* Warning codes, the summary's then the fit's (docs/statistics.md,
 * docs/model.md): X(NAME, stable identifier printed in reports). Policies
 * and tests match the enum, never a message text. */
#define RS_WARNING_MAP(X)                                                                          \
  X(FEW_SAMPLES, "few-samples")                                                                    \
  X(SHORT_HISTORY, "short-history")                                                                \
  X(GAPS, "gaps")                                                                                  \
  X(OUT_OF_ORDER, "out-of-order")                                                                  \
  X(LOADTEST_DATA, "loadtest-data")                                                                \
  X(CHAOS_DATA, "chaos-data")                                                                      \
  X(SYNTHETIC_DATA, "synthetic-data")                                                              \
  X(PREALLOCATED, "preallocated")                                                                  \
  X(IDLE_DEVICES, "idle-devices")                                                                  \
  X(NO_TRAFFIC, "no-traffic")                                                                      \
  X(SPIKY_TRAFFIC, "spiky-traffic")                                                                \
  X(INSTANT_SCRAPE, "instant-scrape")                                                              \
  X(GPU_MEMORY_AVERAGED, "gpu-memory-averaged")                                                    \
  X(CURRENT_FAILS_MEMORY, "current-fails-memory")                                                  \
  X(CURRENT_FAILS_SLO, "current-fails-slo")                                                        \
  X(CURRENT_ABOVE_CEILING, "current-above-ceiling")                                                \
  X(NO_REQUEST_RATE, "no-request-rate")                                                            \
  X(MEMORY_UNKNOWN, "memory-unknown")                                                              \
  X(BUSY_ABOVE_LATENCY, "busy-above-latency")                                                      \
  X(MODEL_OFF_HISTORY, "model-off-history")                                                        \
  X(WAIT_ABOVE_SPREAD, "wait-above-spread")                                                        \
  X(ALREADY_RIGHT_SIZED, "already-right-sized")                                                    \
  X(NEAR_MEMORY_LIMIT, "near-memory-limit")                                                        \
  X(NO_FIT, "no-fit")

typedef enum {
#define RS_WARNING_ENUM(name, key) RS_WARNING_##name,
  RS_WARNING_MAP(RS_WARNING_ENUM)
#undef RS_WARNING_ENUM
      RS_WARNING_COUNT
} rs_warning_code;

/* Code -> its identifier ("short-history"); "unknown" out of range. */
const char *rs_warning_code_name(rs_warning_code c);
/* Identifier -> code; RS_USAGE for a name not in RS_WARNING_MAP. */
rs_status rs_warning_code_from_name(rs_warning_code *out, const char *name);

typedef struct rs_warning {
  rs_warning_code code;
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
  rs_sample_format format;   /* for bare sample files; profiles say per file */
  const char *mapping;       /* series mapping file for bare exported files, or NULL */
  double request_interval_s; /* request logs: seconds per rate row; 0: 60 (the default) */
  rs_selection select;       /* --select KEY=VALUE: rows and series kept from every file */
  rs_progress *progress;     /* bytes read of each file; NULL: none */
  unsigned threads;          /* threads reading one native CSV (rs_ingest_file_parts; the
                                result is the same bits for any number); 0 or 1: one */
} rs_summary_options;

/* Reads every sample file and inline row of profile, in order. Everything
 * lives in arena; *out is NULL on failure with err from the first bad cell. */
rs_status rs_summary_from_profile(rs_summary **out, rs_arena *arena, const rs_profile *profile,
                                  const rs_summary_options *opts, rs_error *err);

/* The same for sample files named directly (no profile: no SLO, no model). */
rs_status rs_summary_from_files(rs_summary **out, rs_arena *arena, const char *const *paths,
                                size_t npaths, const rs_summary_options *opts, rs_error *err);

#endif
