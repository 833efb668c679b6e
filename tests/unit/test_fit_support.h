/* Shared by the tests that fit a shipped profile: load it, summarize it and
 * fit it against the built-in on-demand catalog. Include after <cmocka.h>. */
#ifndef RS_TEST_FIT_SUPPORT_H
#define RS_TEST_FIT_SUPPORT_H

#include "rightsize/catalog.h"
#include "rightsize/fit.h"
#include "rightsize/pricing.h"
#include "rightsize/profile.h"
#include "rightsize/summary.h"

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
