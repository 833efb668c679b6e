/* Fleet audit behind `rightsize audit` (docs/cli.md, docs/model.md
 * "Consolidation").
 *
 * Every profile found is fitted on its own (on several threads; the output
 * does not depend on how many), the fleet is ranked by monthly savings with
 * totals, and, on request, the endpoints whose models may share hardware are
 * packed onto shared instances, as behind one model gateway. A profile that
 * fails to load is kept with its positioned error and counted; the rest are
 * still audited. */
#ifndef RIGHTSIZE_AUDIT_H
#define RIGHTSIZE_AUDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "rightsize/arena.h"
#include "rightsize/catalog.h"
#include "rightsize/error.h"
#include "rightsize/fit.h"
#include "rightsize/pipeline.h"
#include "rightsize/pricing.h"
#include "rightsize/profile.h"

#define RS_AUDIT_MAX_FILES 100000

/* Finds the profiles under paths: a file is taken as given; a directory is
 * walked recursively for *.yaml, *.yml and *.json files (dot files and dot
 * directories skipped). The list is sorted by path, byte by byte, and has
 * no duplicates. RS_IO for a path that does not exist; RS_INVALID when
 * nothing is found. A file found this way that another audited profile
 * reads as its samples or series mapping is an input, not a profile:
 * rs_audit_run drops it instead of reporting it as failed. */
rs_status rs_audit_discover(const char ***files, size_t *nfiles, rs_arena *arena,
                            const char *const *paths, size_t npaths, rs_error *err);

typedef struct rs_audit_row {
  const char *path;
  bool ok;                   /* false: err holds why the profile could not be audited */
  rs_error err;              /* for a failed profile */
  const rs_profile *profile; /* when it loaded, even if its samples then failed */
  const rs_fit_result *fit;
  rs_action action;          /* the fit's */
  const rs_candidate *after; /* the recommended shape; NULL to keep or with no fit */
  double now_month;          /* the fit's current $/month (NaN: the current shape is unpriced) */
  double after_month;        /* the recommended shape's, or now_month to keep or with no fit */
  double savings_month;      /* now_month - after_month */
  double savings_pct;        /* of now_month; NaN when now_month is not positive */
  rs_confidence confidence;
} rs_audit_row;

/* One shared instance of a packing and the endpoints on its devices. */
typedef struct rs_packed_endpoint {
  size_t row;      /* index into rs_audit.rows */
  unsigned device; /* device of the instance it runs on */
  double latency_ms;
  double slo_ms;
  double slo_quantile;
} rs_packed_endpoint;

typedef struct rs_packed_instance {
  unsigned devices_used;
  double mem_used[RS_MAX_DEVICES]; /* bytes incl. headroom, per device */
  double util[RS_MAX_DEVICES];     /* busy fraction per device at the design peaks */
  double host_cpu, host_mem;       /* vCPUs and bytes in use */
  rs_packed_endpoint *endpoints;
  size_t nendpoints;
} rs_packed_instance;

/* One group of endpoints sharing one shape. */
typedef struct rs_packing {
  const rs_instance *shape;
  double instance_month; /* one instance of shape: price x 730 */
  rs_packed_instance *instances;
  size_t ninstances;
  double month;          /* instances x instance_month */
  double baseline_month; /* what the same endpoints cost sized one by one */
} rs_packing;

typedef struct rs_consolidation {
  rs_packing *packings; /* in the order they were chosen (largest saving first) */
  size_t npackings;
  size_t packed;         /* endpoints packed */
  double month;          /* the shared instances */
  double baseline_month; /* the same endpoints sized one by one */
  double savings_month;  /* baseline_month - month */
  double fleet_month;    /* the fleet's after_month with the packed endpoints shared */
} rs_consolidation;

typedef struct rs_audit {
  rs_audit_row *rows; /* ranked: savings first; failed profiles last */
  size_t nrows, nfailed;
  /* totals over the audited rows with a price now and after */
  double now_month, after_month, savings_month;
  double savings_pct;              /* of now_month; NaN when now_month is not positive */
  rs_consolidation *consolidation; /* NULL unless asked for */
  double max_util;
  const rs_catalog *catalog; /* what priced it, for the report's header */
  rs_price_basis basis;
  const rs_overlay *overlay;
  /* private */
  rs_arena *arenas; /* one per profile */
  size_t narenas;
} rs_audit;

typedef struct rs_audit_options {
  const rs_pipeline *pipeline; /* open and priced (rs_pipeline_open) */
  unsigned threads;            /* 0: the number of online CPUs, at most 16 */
  unsigned max_per_instance;   /* endpoints one shared instance may carry; 0: no limit */
  /* Profiles already built (rs_audit_split), parallel to the files given to
   * rs_audit_run, which are then only their names; NULL: load the files. */
  const rs_profile *const *profiles;
  rs_progress *progress; /* profiles started of all; NULL: none (the pipeline's must be NULL) */
} rs_audit_options;

/* Endpoints from sample files that hold many (docs/sources.md, "Many
 * endpoints in one file"): the mapping file's csv.endpoint column splits the
 * rows of paths (files, or directories whose regular files are taken in
 * byte order of their names; dot files skipped), one endpoint per distinct
 * value, and its profile section gives every endpoint's facts (current
 * instance, SLO, model). *profiles and *names (the endpoint names, sorted)
 * live in arena, for rs_audit_run with opts->profiles. Errors: the
 * mapping's (RS_IO, RS_SYNTAX, RS_INVALID with position), the files'
 * (as rs_ingest_file), RS_INVALID when the mapping has no profile section. */
rs_status rs_audit_split(const rs_profile ***profiles, const char ***names, size_t *n,
                         rs_arena *arena, const char *mapping, const rs_selection *select,
                         const char *const *paths, size_t npaths, rs_error *err);

/* Audits files (from rs_audit_discover): each worker loads a profile and
 * calls rs_pipeline_fit_profile; rows, totals and the ranking are computed
 * here, so writers only format. *out must be freed with rs_audit_free. Per-profile errors are kept
 * in their rows, except running out of memory, which says nothing about a
 * profile: it fails the run. The status is RS_NOMEM or RS_INTERNAL (a thread
 * could not start) only. */
rs_status rs_audit_run(rs_audit **out, const char *const *files, size_t nfiles,
                       const rs_audit_options *opts, rs_error *err);
void rs_audit_free(rs_audit *a);

/* Packs the audited rows whose models may share hardware (consolidate.c):
 * first-fit decreasing over devices of each candidate shape, every
 * endpoint's memory with headroom, utilization ceiling, SLO and the host's
 * CPU and memory checked on its shared device; instances that would cost
 * more than their endpoints sized one by one are dissolved, so the result
 * is never more expensive. Rounds repeat with the endpoints left while a
 * shape saves money. */
rs_status rs_audit_consolidate(rs_audit *a, rs_arena *arena, const rs_audit_options *opts,
                               rs_error *err);

#endif
