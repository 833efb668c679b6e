/* The writers of `rightsize plan`: the autoscaling plan as text, as JSON
 * (schema rightsize.plan/1, docs/json.md) and as snippets to paste where it
 * is applied. Writers format an already computed plan; none computes
 * anything. Output is deterministic. */
#ifndef RIGHTSIZE_REPORT_PLAN_H
#define RIGHTSIZE_REPORT_PLAN_H

#include "rightsize/autoscale.h"
#include "rightsize/buf.h"
#include "rightsize/error.h"
#include "rightsize/fit.h"

#define RS_PLAN_JSON_SCHEMA "rightsize.plan/1"

/* The human text of `rightsize plan` for endpoint `name`: plan a in full,
 * then the candidates table of cands[0..ncands) (none: no table). */
rs_status rs_report_plan_text(rs_buf *out, const char *name, const rs_fit_result *res,
                              const rs_autoscale_plan *a, const rs_autoscale_plan *cands,
                              size_t ncands);

/* The JSON document of `rightsize plan --format json`: a, and cands as the
 * `candidates` array. */
rs_status rs_report_plan_json(rs_buf *out, const char *name, const rs_fit_result *res,
                              const rs_autoscale_plan *a, const rs_autoscale_plan *cands,
                              size_t ncands);

/* A Kubernetes HorizontalPodAutoscaler (autoscaling/v2) on a per-pod
 * request-rate metric, for a Deployment named `name`. */
rs_status rs_report_plan_hpa(rs_buf *out, const char *name, const rs_autoscale_plan *a);

/* A KEDA ScaledObject (keda.sh/v1alpha1) with a Prometheus trigger. */
rs_status rs_report_plan_keda(rs_buf *out, const char *name, const rs_autoscale_plan *a);

/* SageMaker endpoint Application Auto Scaling: the RegisterScalableTarget and
 * PutScalingPolicy request bodies (target tracking on
 * SageMakerVariantInvocationsPerInstance) as one JSON object. */
rs_status rs_report_plan_sagemaker(rs_buf *out, const char *name, const rs_autoscale_plan *a);

#endif
