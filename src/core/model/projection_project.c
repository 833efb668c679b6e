/* Projecting one shape onto another through the fitted model
 * (projection.h; docs/model.md "Projection onto another device"): the
 * measured ratio, the fitted roofline, the spec ratio or the CPU roofline,
 * each with the band its leave-one-out error gives. The fit is in
 * projection.c. */
#include "projection_fit.h"

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#define COMPUTE_BOUND_LOG_I 20.0 /* an intensity no device reaches: compute only */
#define FALLBACK_BAND 0.40       /* no error measured for a path (no calibration rows) */
#define CROSS_FAMILY_BAND 0.60   /* no published pair across families was read */
#define HIGH_BAND 0.15           /* bands at most this allow high confidence */

static bool llm_stack(const char *framework) {
  static const char *const names[] = {"vllm",         "tgi",      "text-generation-inference",
                                      "tensorrt-llm", "trt-llm",  "llama.cpp",
                                      "sglang",       "lmdeploy", NULL};
  for (int i = 0; framework && names[i]; i++)
    if (strncasecmp(framework, names[i], strlen(names[i])) == 0)
      return true;
  return false;
}

rs_workload rs_proj_infer_workload(rs_bound bound, const char *framework) {
  if (bound == RS_BOUND_MEMORY || llm_stack(framework))
    return RS_WORKLOAD_LLM_DECODE;
  return RS_WORKLOAD_UNKNOWN;
}

/* The intensity (log FLOP/byte) at the profile's precision: the class's,
 * scaled by bytes per value; without a class, by the bound. A stated memory
 * bound wins over the class: the table's rows are offline runs at the
 * largest batch that fits (GPT-J included, which fits as compute-bound),
 * while a deployment that says memory-bound decodes at small batches. */
static double query_intensity(const rs_proj_model *m, rs_workload w, const rs_proj_query *q) {
  if (q->bound == RS_BOUND_MEMORY)
    return RS_PROJ_LOG_I_LO;
  if (w != RS_WORKLOAD_UNKNOWN && m->fitted[w])
    return m->log_intensity[w] + log(rs_precision_bytes(m->precision[w])) -
           log(rs_precision_bytes(q->precision));
  if (q->bound == RS_BOUND_COMPUTE)
    return COMPUTE_BOUND_LOG_I;
  double sum = 0.0;
  int n = 0;
  for (int c = 0; c < RS_WORKLOAD_COUNT; c++)
    if (m->fitted[c])
      sum += m->log_intensity[c], n++;
  return n ? sum / n : 3.0; /* mixed or unknown: between the classes */
}

static rs_proj_error error_of(const rs_proj_model *m, rs_proj_path p, rs_workload w) {
  rs_proj_error e = m->loo[p][w == RS_WORKLOAD_UNKNOWN ? RS_WORKLOAD_COUNT : w];
  if (e.n == 0 && w != RS_WORKLOAD_UNKNOWN)
    e = m->loo[p][RS_WORKLOAD_COUNT];
  return e;
}

static double band_of(const rs_proj_model *m, rs_proj_path p, rs_workload w) {
  rs_proj_error e = error_of(m, p, w);
  return e.n ? e.worst : FALLBACK_BAND;
}

static double cpu_tflops(const rs_instance *in, rs_precision p) {
  if (in->category != RS_CATEGORY_CPU)
    return in->accelerator ? rs_proj_peak(in->accelerator, p) * RS_FIT_CPU_EFFICIENCY : NAN;
  /* VNNI (AVX-512) and SVE int8 dot products: 4 int8 MACs per FP32 lane */
  double mult = p == RS_PRECISION_INT8 ? 4.0 : 1.0;
  return rs_proj_known(in->vcpus * in->cpu_gflops_per_vcpu) * mult / 1000.0;
}

static double cpu_bandwidth(const rs_instance *in) {
  if (in->category != RS_CATEGORY_CPU)
    return in->accelerator ? rs_proj_known(in->accelerator->memory_bw_gbps) : NAN;
  return rs_proj_known(in->vcpus * in->cpu_memory_gbps_per_vcpu);
}

/* Throughput (log) of one side under the CPU roofline; NaN without compute. */
static double cpu_side(const rs_instance *in, double log_i, rs_precision p) {
  double c = cpu_tflops(in, p), bw = cpu_bandwidth(in);
  if (isnan(c))
    return NAN;
  return isnan(bw) ? log(c) : fmin(log(c), log_i + log(bw / 1000.0));
}

static void project_cpu(const rs_proj_model *m, const rs_proj_query *q, rs_projection *out) {
  double log_i = query_intensity(m, out->workload, q);
  double s = cpu_side(q->source, log_i, q->precision), t = cpu_side(q->target, log_i, q->precision);
  out->path = RS_PROJ_CPU;
  out->band = CROSS_FAMILY_BAND;
  out->cap = RS_CONF_LOW;
  out->ratio = exp(s - t);
  if (isnan(s) || isnan(t)) {
    out->lacking = isnan(s) ? q->source : q->target;
    out->figure = "compute";
  }
}

static double device_eff(const rs_proj_model *m, const rs_accelerator *a, bool *fitted) {
  size_t d = rs_proj_find_device(m, a);
  *fitted = d != RS_PROJ_NONE;
  return d != RS_PROJ_NONE ? m->devices[d].log_eff
                           : rs_proj_prior_eff(m, NULL, m->prior_log_eff, a);
}

/* A device's bandwidth efficiency over its compute efficiency (log); 0
 * without rows, the prior's value. */
static double device_bw(const rs_proj_model *m, const rs_accelerator *a) {
  size_t d = rs_proj_find_device(m, a);
  return d != RS_PROJ_NONE ? m->devices[d].log_bw_eff : 0.0;
}

/* Device a's log throughput under the fitted roofline, efficiencies in. */
static double fitted_roof(const rs_proj_model *m, const rs_accelerator *a, double log_i,
                          rs_precision p, bool *fitted) {
  return device_eff(m, a, fitted) + rs_proj_log_roof(a, log_i, p, device_bw(m, a));
}

/* The figure a device lacks for a roofline, or NULL. */
static const char *lacks(const rs_accelerator *a, rs_precision p) {
  if (isnan(rs_proj_peak(a, p)))
    return "compute";
  return isnan(rs_proj_known(a->memory_bw_gbps)) ? "bandwidth" : NULL;
}

double rs_proj_roofline_ratio(const rs_proj_model *m, const rs_accelerator *a,
                              const rs_accelerator *b, rs_workload w, rs_precision p) {
  rs_proj_query q = {NULL, NULL, w, p, RS_BOUND_UNKNOWN, NULL};
  double log_i = query_intensity(m, w, &q);
  bool fa, fb;
  return exp(fitted_roof(m, a, log_i, p, &fa) - fitted_roof(m, b, log_i, p, &fb));
}

/* The spec path: whatever figures exist, every efficiency 1. */
static void project_spec(const rs_proj_model *m, const rs_proj_query *q, double log_i,
                         rs_projection *out) {
  const rs_accelerator *s = q->source->accelerator, *t = q->target->accelerator;
  const char *ls = lacks(s, q->precision), *lt = lacks(t, q->precision);
  out->path = RS_PROJ_SPEC;
  out->cap = RS_CONF_LOW;
  out->band = band_of(m, RS_PROJ_SPEC, out->workload);
  if (s->family != t->family || s->family != RS_ACCEL_NVIDIA_GPU)
    out->band = fmax(out->band, CROSS_FAMILY_BAND);
  if (ls || lt) {
    out->lacking = lt ? q->target : q->source;
    out->figure = lt ? lt : ls;
  }
  bool both_c = !isnan(rs_proj_peak(s, q->precision)) && !isnan(rs_proj_peak(t, q->precision));
  bool both_b =
      !isnan(rs_proj_known(s->memory_bw_gbps)) && !isnan(rs_proj_known(t->memory_bw_gbps));
  if (both_c && both_b)
    out->ratio = exp(rs_proj_log_roof(s, log_i, q->precision, 0.0) -
                     rs_proj_log_roof(t, log_i, q->precision, 0.0));
  else if (both_c)
    out->ratio = rs_proj_peak(s, q->precision) / rs_proj_peak(t, q->precision);
  else if (both_b)
    out->ratio = s->memory_bw_gbps / t->memory_bw_gbps;
}

/* Both devices measured in the class: their ratio, corrected from the
 * table's precision to the profile's by the roofline. */
static bool project_measured(const rs_proj_model *m, const rs_proj_query *q, double log_i,
                             rs_projection *out) {
  const rs_accelerator *s = q->source->accelerator, *t = q->target->accelerator;
  rs_workload w = out->workload;
  size_t ds = rs_proj_find_device(m, s), dt = rs_proj_find_device(m, t);
  double meas;
  if (w == RS_WORKLOAD_UNKNOWN || ds == RS_PROJ_NONE || dt == RS_PROJ_NONE ||
      !rs_proj_measured_log_ratio(m, ds, dt, w, RS_PROJ_NONE, &meas))
    return false;
  rs_precision tp = m->precision[w];
  double table_i = m->log_intensity[w];
  bool f;
  double corr =
      (fitted_roof(m, s, log_i, q->precision, &f) - fitted_roof(m, t, log_i, q->precision, &f)) -
      (fitted_roof(m, s, table_i, tp, &f) - fitted_roof(m, t, table_i, tp, &f));
  out->ratio = exp(meas + corr);
  out->path = RS_PROJ_MEASURED;
  out->band = error_of(m, RS_PROJ_MEASURED, w).n ? band_of(m, RS_PROJ_MEASURED, w)
                                                 : band_of(m, RS_PROJ_ROOFLINE, w);
  out->cap = out->band <= HIGH_BAND ? RS_CONF_HIGH : RS_CONF_MEDIUM;
  return true;
}

static rs_confidence lower_one(rs_confidence c) { return c > RS_CONF_LOW ? c - 1 : RS_CONF_LOW; }

void rs_proj_project(const rs_proj_model *m, const rs_proj_query *query, rs_projection *out) {
  rs_proj_query copy = *query, *q = &copy;
  bool cpu = q->source->category == RS_CATEGORY_CPU || q->target->category == RS_CATEGORY_CPU ||
             !q->source->accelerator || !q->target->accelerator;
  /* unstated: fp16 between accelerators; FP32 on both sides of the CPU
   * path, so both assume the same fraction of the same kind of peak */
  if ((unsigned)q->precision >= RS_PRECISION_COUNT)
    q->precision = cpu ? RS_PRECISION_FP32 : RS_PRECISION_FP16;
  memset(out, 0, sizeof(*out));
  out->ratio = NAN;
  out->precision = q->precision;
  out->workload = q->workload;
  if (out->workload == RS_WORKLOAD_UNKNOWN) {
    out->workload = rs_proj_infer_workload(q->bound, q->framework);
    out->inferred = out->workload != RS_WORKLOAD_UNKNOWN;
  }
  if (cpu) {
    project_cpu(m, q, out);
    return;
  }
  const rs_accelerator *s = q->source->accelerator, *t = q->target->accelerator;
  if (s == t) {
    out->ratio = 1.0;
    out->path = RS_PROJ_SAME;
    out->band = 0.10;
    out->cap = RS_CONF_HIGH;
    return;
  }
  double log_i = query_intensity(m, out->workload, q);
  bool gpus = s->family == RS_ACCEL_NVIDIA_GPU && t->family == RS_ACCEL_NVIDIA_GPU;
  if (!gpus || m->ndevices == 0 || lacks(s, q->precision) || lacks(t, q->precision)) {
    project_spec(m, q, log_i, out);
  } else if (!project_measured(m, q, log_i, out)) {
    bool fs, ft;
    out->ratio = exp(fitted_roof(m, s, log_i, q->precision, &fs) -
                     fitted_roof(m, t, log_i, q->precision, &ft));
    out->path = fs && ft ? RS_PROJ_ROOFLINE : RS_PROJ_PRIOR;
    out->band = band_of(m, out->path, out->workload);
    out->cap = out->band <= 0.35 ? RS_CONF_MEDIUM : RS_CONF_LOW;
  }
  if (out->workload == RS_WORKLOAD_UNKNOWN) {
    rs_proj_error all = error_of(m, out->path, RS_WORKLOAD_UNKNOWN);
    out->band = fmax(out->band, all.n ? all.worst : FALLBACK_BAND);
    out->cap = q->bound == RS_BOUND_UNKNOWN ? RS_CONF_LOW : lower_one(out->cap);
  } else if (out->inferred) {
    out->cap = lower_one(out->cap);
  }
}
