/* Shared by the tests that fit a shipped profile: load it, summarize it and
 * fit it against the built-in on-demand catalog. Include after <cmocka.h>. */
#ifndef RS_TEST_FIT_SUPPORT_H
#define RS_TEST_FIT_SUPPORT_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rightsize/catalog.h"
#include "rightsize/fit.h"
#include "rightsize/pricing.h"
#include "rightsize/profile.h"
#include "rightsize/summary.h"

/* A one-GPU endpoint on p3.2xlarge (aws) with a p99 SLO of slo_p99_ms, for
 * tests that build a summary by hand; *cat is the built-in catalog priced
 * on demand. */
static inline void unit_profile_init(rs_profile *p, rs_catalog **cat, rs_arena *arena,
                                     double slo_p99_ms) {
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_catalog_default(cat, arena, &err), RS_OK);
  assert_int_equal(rs_pricing_apply(*cat, RS_BASIS_ONDEMAND, NULL, &err), RS_OK);
  memset(p, 0, sizeof(*p));
  p->path = "test.yaml";
  p->endpoint = "unit";
  p->model.families = RS_FAMILY_NVIDIA_GPU;
  p->model.weights_bytes = NAN;
  p->model.max_batch = 1;
  p->model.activation_bytes_per_sample = NAN;
  p->model.bound = RS_BOUND_COMPUTE;
  p->current.provider = "aws";
  p->current.instance = "p3.2xlarge";
  p->current.replicas = 1;
  p->slo.latency_p99_ms = slo_p99_ms;
  p->slo.latency_p95_ms = NAN;
  p->traffic.peak_rps = NAN;
  p->traffic.growth = 1;
}

/* Whether the fit raised the warning with this code. */
static inline bool has_warning(const rs_fit_result *r, rs_warning_code code) {
  for (size_t i = 0; i < r->nwarnings; i++)
    if (r->warnings[i].code == code)
      return true;
  return false;
}

/* profile is relative to the source tree ("profiles/resnet50-p3.8xlarge.yaml"). */
static inline rs_fit_result *fit_shipped(rs_arena *arena, const char *profile,
                                         const rs_fit_options *o) {
  char path[1024];
  rs_profile *p;
  rs_summary *s;
  rs_catalog *cat;
  rs_fit_result *r;
  rs_error err;
  rs_error_clear(&err);
  snprintf(path, sizeof(path), "%s/%s", RS_SOURCE_DIR, profile);
  assert_int_equal(rs_profile_load(&p, arena, path, &err), RS_OK);
  assert_int_equal(rs_summary_from_profile(&s, arena, p, NULL, &err), RS_OK);
  assert_int_equal(rs_catalog_default(&cat, arena, &err), RS_OK);
  assert_int_equal(rs_pricing_apply(cat, RS_BASIS_ONDEMAND, NULL, &err), RS_OK);
  assert_int_equal(rs_fit(&r, arena, s, cat, RS_BASIS_ONDEMAND, NULL, o, &err), RS_OK);
  return r;
}

#endif
