/* The options every fitting command shares (recommend, check, audit): the
 * catalog and its pricing, the scope of shapes, the model's knobs; and
 * loading, summarizing and fitting one profile with them. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rightsize/profile.h"
#include "rightsize/summary.h"

_Static_assert(sizeof(rs_price_basis) == sizeof(int), "--pricing is a CHOICE: an int field");

bool rs_cli_parse_peak(void *fit_options, const char *value) {
  rs_fit_options *fit = fit_options;
  if (rs_peak_parse(value, &fit->peak, &fit->peak_rps) != RS_OK)
    return false;
  fit->peak_set = true;
  return true;
}

void rs_cli_fit_init(rs_cli_fit_opts *o) {
  memset(o, 0, sizeof(*o));
  rs_fit_options_init(&o->fit);
  o->headroom_pct = o->max_util_pct = NAN;
  o->slo_p99_s = o->slo_p95_s = NAN;
}

/* The --provider bits as the fit's list: NULL (not given: the current
 * provider), empty (all), or the names. */
static void providers(rs_cli_fit_opts *o) {
  size_t n = 0;
  if (o->scope.providers == 0)
    return;
  o->fit.providers = o->providers;
  if (o->scope.providers == UINT_MAX)
    return; /* nproviders 0: every provider */
  for (unsigned i = 0; i < RS_PROVIDER_COUNT; i++)
    if (o->scope.providers & (1u << i))
      o->providers[n++] = rs_provider_names[i];
  o->fit.nproviders = n;
}

rs_status rs_cli_fit_finish(rs_cli_fit_opts *o, rs_error *err) {
  if (!isnan(o->slo_p99_s) && !isnan(o->slo_p95_s))
    return rs_error_set(err, RS_USAGE, NULL, 0, 0,
                        "give one latency target: --slo-p99 or --slo-p95, not both");
  providers(o);
  o->fit.region = o->scope.region;
  o->fit.families = o->families;
  if (!isnan(o->headroom_pct))
    o->fit.headroom = o->headroom_pct / 100.0;
  if (!isnan(o->max_util_pct))
    o->fit.max_util = o->max_util_pct / 100.0;
  if (!isnan(o->slo_p99_s) || !isnan(o->slo_p95_s)) {
    o->fit.slo_p95 = !isnan(o->slo_p95_s);
    o->fit.slo_ms = (o->fit.slo_p95 ? o->slo_p95_s : o->slo_p99_s) * 1e3;
  }
  o->basis = o->catalog.basis;
  return RS_OK;
}

rs_status rs_cli_fit_catalog(rs_cli_fit_opts *o, rs_arena *arena, rs_error *err) {
  return rs_cli_open_catalog(&o->cat, &o->ov, arena, o->catalog.path, o->basis, o->catalog.overlay,
                             err);
}
rs_status rs_cli_fit_profile(rs_fit_result **res, rs_arena *arena, const char *path,
                             const rs_cli_fit_opts *o, rs_error *err) {
  rs_profile *profile;
  rs_summary *sum;
  rs_status st = rs_profile_load(&profile, arena, path, err);
  if (st == RS_OK)
    st = rs_summary_from_profile(&sum, arena, profile, NULL, err);
  if (st == RS_OK)
    st = rs_fit(res, arena, sum, o->cat, o->basis, o->ov, &o->fit, err);
  return st;
}
