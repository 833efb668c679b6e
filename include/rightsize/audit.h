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

/* One shape an endpoint could share: it fits the shape alone, on one
 * device, under the utilization ceiling, in memory with headroom, within
 * its SLO and the host's CPU and memory (consolidate.c). What packing
 * needs of the endpoint's own fit there, kept when --consolidate asks. */
typedef struct rs_audit_share {
  const rs_instance *inst;
  double busy_s;       /* busy time per request on one device */
  double hold_s;       /* what a request holds the device in the queue */
  double cs2;          /* squared CV of its service times */
  double service_q_ms; /* its service latency at the SLO quantile */
  double s50_s;        /* median of that (lognormal) service latency */
  double host_mem;     /* host memory in use, bytes */
  double size;         /* the larger share of one device it takes (memory or busy) */
} rs_audit_share;

/* One audited profile, reduced as soon as it is fitted to what the reports
 * print: the profile, its samples and its fit are freed then, so memory
 * does not grow with anything but the number of endpoints. */
typedef struct rs_audit_row {
  const char *path;
  bool ok;                      /* false: err holds why the profile could not be audited */
  const rs_error *err;          /* for a failed profile; NULL otherwise */
  const char *endpoint;         /* the profile's; NULL when it did not load */
  const char *current_instance; /* as the profile names it */
  uint64_t current_replicas;
  const rs_instance *current; /* the fit's current shape (with current_fit_replicas) */
  unsigned current_fit_replicas;
  rs_verdict_code verdict;
  double wasted_month;      /* the verdict's; NaN when none */
  rs_action action;         /* the fit's */
  const rs_instance *after; /* the recommended shape; NULL to keep or with no fit */
  unsigned after_replicas;  /* of after */
  double now_month;         /* the fit's current $/month (NaN: the current shape is unpriced) */
  double after_month;       /* the recommended shape's, or now_month to keep or with no fit */
  double savings_month;     /* now_month - after_month */
  double savings_pct;       /* of now_month; NaN when now_month is not positive */
  rs_confidence confidence;
  const rs_warning_code *warnings; /* the fit's, in order */
  size_t nwarnings;
  size_t nfitting; /* shapes that fit it */
  /* what consolidation needs (rs_audit_options.consolidate) */
  double design_peak; /* endpoint requests/s */
  double slo_ms, slo_quantile;
  double mem;                   /* device memory need with headroom, bytes */
  double host_cpu;              /* vCPUs at the design peak; 0 unknown */
  const rs_audit_share *shares; /* by catalog order of shape */
  size_t nshares;
  /* private: files the profile reads (as it names them), to drop them as
   * inputs instead of reporting them as failed profiles */
  const char **refs;
  size_t nrefs;
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
  size_t lower_bound;    /* instances no packing of the same endpoints on shape goes under */
} rs_packing;

typedef struct rs_consolidation {
  rs_packing *packings; /* in the order they were chosen (largest saving first) */
  size_t npackings;
  size_t packed;         /* endpoints packed */
  double month;          /* the shared instances */
  double baseline_month; /* the same endpoints sized one by one */
  double savings_month;  /* baseline_month - month */
  double fleet_month;    /* the fleet's after_month with the packed endpoints shared */
  size_t instances;      /* shared instances, all shapes */
  size_t lower_bound;    /* the packings' lower bounds, summed */
  double above_bound;    /* instances / lower_bound - 1: how far the packing is from the bound */
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
  rs_arena *arenas; /* one per worker: the rows and what they point to */
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
  bool consolidate;      /* keep what rs_audit_consolidate needs in each row (shares) */
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

/* Fills row->shares from the endpoint's fit: every shape of fit->fitting
 * that one device of carries the whole endpoint within every constraint
 * consolidation checks (consolidate.c), in arena. rs_audit_run calls it
 * when asked to consolidate, so the fit can be freed. RS_NOMEM only. */
rs_status rs_audit_row_shares(rs_audit_row *row, rs_arena *arena, const rs_fit_result *fit,
                              double max_util);

/* Packs the audited rows whose models may share hardware (consolidate.c;
 * the rows must come from rs_audit_run with opts->consolidate): first-fit
 * decreasing and a bounded minimum-bin-slack search over devices of each
 * candidate shape, the one saving more kept, every endpoint's memory
 * with headroom, utilization ceiling, SLO and the host's CPU and memory
 * checked on its shared device; instances that would cost more than their
 * endpoints sized one by one are dissolved, so the result is never more
 * expensive. Each round keeps every such instance of the shape saving the
 * most, while a shape saves money; the endpoints left then fill the kept
 * instances' free room. Up to 256 shareable endpoints the earlier greedy
 * (one instance per round) runs too and the better plan is kept. Each
 * packing carries a lower bound on its instances (docs/model.md). */
rs_status rs_audit_consolidate(rs_audit *a, rs_arena *arena, const rs_audit_options *opts,
                               rs_error *err);

#endif
