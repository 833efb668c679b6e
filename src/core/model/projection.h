/* Cross-accelerator projection calibrated on published measurements
 * (docs/model.md "Projection onto another device"). Core-private.
 *
 * The catalog's calibration table (per-accelerator throughput by workload
 * class, model and round) is fitted once per run: a roofline time
 * t = max(work / compute, bytes / bandwidth) / efficiency, with one achieved
 * efficiency per device (leaning on its architecture's mean where the data
 * are thin) and one on the bandwidth side (leaning on the compute one),
 * one scale per benchmark and round (leaning on the benchmark's other rounds
 * by the measured software drift) and one arithmetic intensity per
 * benchmark; a class is projected at the mean of its benchmarks'. A
 * projection then takes, in order: the measured ratio (both devices measured in the
 * class), the fitted roofline, a bare spec ratio (nothing fitted for the
 * family, or a figure missing), or the CPU roofline. Each path's error comes
 * from leave-one-out over the table. */
#ifndef RS_PROJECTION_H
#define RS_PROJECTION_H

#include <stdbool.h>
#include <stddef.h>

#include "rightsize/arena.h"
#include "rightsize/catalog.h"
#include "rightsize/fit.h"
#include "rightsize/profile.h"
#include "rightsize/workload.h"

/* X(NAME, description) */
#define RS_PROJ_PATH_MAP(X)                                                                        \
  X(SAME, "same device")                                                                           \
  X(MEASURED, "measured ratio")                                                                    \
  X(ROOFLINE, "fitted roofline")                                                                   \
  X(PRIOR, "fitted roofline, device efficiency from its architecture")                             \
  X(SPEC, "spec ratio")                                                                            \
  X(CPU, "CPU roofline")

typedef enum {
#define RS_PROJ_PATH_ENUM(name, text) RS_PROJ_##name,
  RS_PROJ_PATH_MAP(RS_PROJ_PATH_ENUM)
#undef RS_PROJ_PATH_ENUM
      RS_PROJ_PATH_COUNT
} rs_proj_path;

const char *rs_proj_path_name(rs_proj_path p);

/* Relative error |projected / published - 1| of one path over a set of pairs. */
typedef struct rs_proj_error {
  size_t n;
  double median, worst; /* NaN when n == 0 */
} rs_proj_error;

/* One device's fitted figures (devices with calibration rows). */
typedef struct rs_proj_device {
  const rs_accelerator *accel;
  double log_eff;    /* achieved efficiency, log; the mean over devices is 0 */
  double log_bw_eff; /* on the bandwidth side: achieved bandwidth over log_eff, log */
} rs_proj_device;

typedef struct rs_proj_row {
  const rs_calibration *cal;
  size_t dev, group; /* indexes into devices and groups */
  double x;          /* log throughput */
} rs_proj_row;

/* One published pair under leave-one-out: row a's device over row b's
 * (same group), with row a left out of the fit. */
typedef struct rs_proj_pair {
  size_t a, b;       /* rows */
  double published;  /* busy time on b / busy time on a = throughput a / throughput b */
  double projected;  /* what the projection gives without row a */
  rs_proj_path path; /* the path it took: measured, roofline or prior */
} rs_proj_pair;

typedef struct rs_proj_model {
  const rs_catalog *cat;
  rs_proj_row *rows;
  size_t nrows;
  rs_proj_device *devices;
  size_t ndevices;
  size_t ngroups;
  double *group_scale;                     /* log scale per group */
  double log_intensity[RS_WORKLOAD_COUNT]; /* FLOP/byte at the class's table precision */
  double *bench_log_i; /* per benchmark (the fit's own index): its intensity, log */
  rs_precision precision[RS_WORKLOAD_COUNT]; /* the precision of the class's rows */
  bool fitted[RS_WORKLOAD_COUNT];            /* the class has rows in two devices */
  double prior_log_eff;                      /* median efficiency: a device with no rows */
  /* leave-one-out errors per path and class; [..][RS_WORKLOAD_COUNT] is all classes */
  rs_proj_error loo[RS_PROJ_PATH_COUNT][RS_WORKLOAD_COUNT + 1];
  rs_proj_error chain[RS_WORKLOAD_COUNT + 1]; /* the path the product takes, per row */
  rs_proj_pair *pairs;                        /* every leave-one-out pair (with loo) */
  size_t npairs;
} rs_proj_model;

/* Fits the model to cat's calibration rows; with loo, also the leave-one-out
 * errors. Rows, devices and groups live in arena. RS_NOMEM only; a catalog
 * without calibration rows gives a model with nothing fitted (every GPU
 * projection then takes the spec path). */
rs_status rs_proj_fit(rs_proj_model *out, rs_arena *arena, const rs_catalog *cat, bool loo);

/* rs_proj_fit with loo, except for the built-in catalog (rs_catalog_default),
 * whose model was fitted by the same code when rightsize was built
 * (projection_builtin.c): copied into arena, pointing into cat, without the
 * fit's scratch (bench_log_i is NULL). RS_NOMEM only. */
rs_status rs_proj_fit_catalog(rs_proj_model *out, rs_arena *arena, const rs_catalog *cat);

/* What to project: the two shapes and what the profile says. */
typedef struct rs_proj_query {
  const rs_instance *source, *target;
  rs_workload workload;   /* RS_WORKLOAD_UNKNOWN: inferred from bound and framework */
  rs_precision precision; /* RS_PRECISION_COUNT: not stated (fp16; fp32 on the CPU path) */
  rs_bound bound;
  const char *framework; /* NULL when not said */
} rs_proj_query;

typedef struct rs_projection {
  double ratio; /* busy time on target / on source, one device each; NaN: none */
  rs_proj_path path;
  rs_workload workload;       /* the class used (RS_WORKLOAD_UNKNOWN: none) */
  rs_precision precision;     /* the precision whose figures were used */
  bool inferred;              /* the class was inferred, not named */
  double band;                /* relative error band from leave-one-out */
  rs_confidence cap;          /* the most confidence this path allows */
  const rs_instance *lacking; /* a shape whose device lacks a figure; NULL when none */
  const char *figure;         /* which figure it lacks ("compute", "bandwidth") */
} rs_projection;

/* The class a profile implies when it names none: llm-decode for a
 * memory-bound model or an LLM serving stack, else RS_WORKLOAD_UNKNOWN. */
rs_workload rs_proj_infer_workload(rs_bound bound, const char *framework);

/* Projects q through m into *out (never fails: out->ratio is NaN and
 * out->lacking names the shape when no figure allows a ratio). */
void rs_proj_project(const rs_proj_model *m, const rs_proj_query *q, rs_projection *out);

/* The compute figure (TFLOPS) a device offers at a precision: the best of
 * the figures the precision can run on (int8 and fp8 fall back to fp16,
 * tf32 and fp16 to fp32). NaN when none is known. */
double rs_proj_peak(const rs_accelerator *a, rs_precision p);

/* The ratio the model gives for device a over device b (busy time on b /
 * busy time on a) in class w at precision p, skipping the measured path;
 * for bench/projection and the tests. NaN when a figure is missing. */
double rs_proj_roofline_ratio(const rs_proj_model *m, const rs_accelerator *a,
                              const rs_accelerator *b, rs_workload w, rs_precision p);

#endif
