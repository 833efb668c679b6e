/* Shared between the projection's fit (projection.c) and its use
 * (projection_project.c). Core-private, model-private. */
#ifndef RS_PROJECTION_FIT_H
#define RS_PROJECTION_FIT_H

#include <math.h>
#include <stdint.h>

#include "projection.h"

#define RS_PROJ_NONE SIZE_MAX
#define RS_PROJ_LOG_I_LO (-4.0) /* the lowest intensity searched, log FLOP/byte */

/* v when positive (a known figure), else NaN. */
static inline double rs_proj_known(double v) { return v > 0 ? v : NAN; }

/* log of device a's roofline throughput (TFLOPS) at intensity exp(log_i)
 * and precision p, plus bw_eff (log) where its bandwidth binds (its spec
 * figures decide which side binds). */
double rs_proj_log_roof(const rs_accelerator *a, double log_i, rs_precision p, double bw_eff);

/* The index of a among m's calibrated devices, RS_PROJ_NONE when absent. */
size_t rs_proj_find_device(const rs_proj_model *m, const rs_accelerator *a);

/* The efficiency (log) a device without rows is given: the mean of the
 * devices of its architecture (eff: a solve's, by device index, or NULL for
 * m's), else median. */
double rs_proj_prior_eff(const rs_proj_model *m, const double *eff, double median,
                         const rs_accelerator *a);

/* The mean log throughput ratio of devices a over b over the groups of
 * class w where both have a row, skipping row skip; false when none. */
bool rs_proj_measured_log_ratio(const rs_proj_model *m, size_t a, size_t b, rs_workload w,
                                size_t skip, double *out);

#endif
