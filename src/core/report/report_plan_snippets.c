/* `rightsize plan --snippet`: the plan where people apply it. Shapes follow
 * the documented APIs (docs/model.md "Autoscaling plan" cites them):
 * Kubernetes autoscaling/v2 HorizontalPodAutoscaler, KEDA keda.sh/v1alpha1
 * ScaledObject with a prometheus trigger, SageMaker Application Auto Scaling
 * RegisterScalableTarget + PutScalingPolicy (TargetTrackingScaling). */
#include <math.h>
#include <stdio.h>

#include "jsonw.h"
#include "rightsize/report_plan.h"

/* A Kubernetes quantity for a per-pod rate: whole milli-units ("12500m"). */
static long long milli(double rps) { return (long long)floor(rps * 1000.0); }

rs_status rs_report_plan_hpa(rs_buf *out, const char *name, const rs_autoscale_plan *a) {
  rs_buf_printf(out,
                "# rightsize plan: %s on %s, lead time %.0f s, target %.0f%% utilization\n"
                "apiVersion: autoscaling/v2\n"
                "kind: HorizontalPodAutoscaler\n"
                "metadata:\n"
                "  name: %s\n"
                "spec:\n"
                "  scaleTargetRef:\n"
                "    apiVersion: apps/v1\n"
                "    kind: Deployment\n"
                "    name: %s\n"
                "  minReplicas: %u\n"
                "  maxReplicas: %u\n"
                "  metrics:\n"
                "    - type: Pods\n"
                "      pods:\n"
                "        metric:\n"
                "          name: requests_per_second\n"
                "        target:\n"
                "          type: AverageValue\n"
                "          averageValue: \"%lldm\"\n"
                "  behavior:\n"
                "    scaleDown:\n"
                "      stabilizationWindowSeconds: %.0f\n",
                name, a->cand->inst->name, a->lead_s, a->target_util * 100.0, name, name,
                a->min_replicas, a->max_replicas, milli(a->target_rps), a->stabilize_s);
  return rs_buf_status(out);
}

rs_status rs_report_plan_keda(rs_buf *out, const char *name, const rs_autoscale_plan *a) {
  rs_buf_printf(out,
                "# rightsize plan: %s on %s; set serverAddress and the query to your Prometheus\n"
                "apiVersion: keda.sh/v1alpha1\n"
                "kind: ScaledObject\n"
                "metadata:\n"
                "  name: %s\n"
                "spec:\n"
                "  scaleTargetRef:\n"
                "    name: %s\n"
                "  minReplicaCount: %u\n"
                "  maxReplicaCount: %u\n"
                "  triggers:\n"
                "    - type: prometheus\n"
                "      metadata:\n"
                "        serverAddress: http://prometheus:9090\n"
                "        query: sum(rate(http_requests_total{deployment=\"%s\"}[2m]))\n"
                "        threshold: \"%.3f\"\n",
                name, a->cand->inst->name, name, name, a->min_replicas, a->max_replicas, name,
                milli(a->target_rps) / 1000.0);
  return rs_buf_status(out);
}

static void target(rs_jsonw *w, const char *name) {
  char id[512];
  snprintf(id, sizeof id, "endpoint/%s/variant/AllTraffic", name);
  rs_jsonw_string(w, "ServiceNamespace", "sagemaker");
  rs_jsonw_string(w, "ResourceId", id);
  rs_jsonw_string(w, "ScalableDimension", "sagemaker:variant:DesiredInstanceCount");
}

rs_status rs_report_plan_sagemaker(rs_buf *out, const char *name, const rs_autoscale_plan *a) {
  char policy[512];
  snprintf(policy, sizeof policy, "%s-rightsize-target-tracking", name);
  rs_jsonw w;
  rs_jsonw_init(&w, out);
  rs_jsonw_object(&w, NULL);
  rs_jsonw_object(&w, "RegisterScalableTarget");
  target(&w, name);
  rs_jsonw_uint(&w, "MinCapacity", a->min_replicas);
  rs_jsonw_uint(&w, "MaxCapacity", a->max_replicas);
  rs_jsonw_end(&w, '}');
  rs_jsonw_object(&w, "PutScalingPolicy");
  rs_jsonw_string(&w, "PolicyName", policy);
  target(&w, name);
  rs_jsonw_string(&w, "PolicyType", "TargetTrackingScaling");
  rs_jsonw_object(&w, "TargetTrackingScalingPolicyConfiguration");
  /* InvocationsPerInstance is a per-minute count per instance */
  rs_jsonw_number(&w, "TargetValue", floor(a->target_rps * 60.0));
  rs_jsonw_object(&w, "PredefinedMetricSpecification");
  rs_jsonw_string(&w, "PredefinedMetricType", "SageMakerVariantInvocationsPerInstance");
  rs_jsonw_end(&w, '}');
  rs_jsonw_uint(&w, "ScaleInCooldown", (uint64_t)ceil(a->stabilize_s));
  rs_jsonw_uint(&w, "ScaleOutCooldown", (uint64_t)ceil(a->lead_s));
  rs_jsonw_end(&w, '}');
  rs_jsonw_end(&w, '}');
  rs_jsonw_end(&w, '}');
  rs_jsonw_finish(&w);
  return rs_buf_status(out);
}
