/* The options every fitting command shares (recommend, check, audit): the
 * catalog and its pricing, the scope of shapes, the model's knobs. What
 * they drive is core's (rightsize/pipeline.h). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rightsize/ingest.h"

_Static_assert(sizeof(rs_price_basis) == sizeof(int), "--pricing is a CHOICE: an int field");

bool rs_cli_parse_peak(void *fit_options, const char *value) {
  rs_fit_options *fit = fit_options;
  if (rs_peak_parse(value, &fit->peak, &fit->peak_rps) != RS_OK)
    return false;
  fit->peak_set = true;
  return true;
}

bool rs_cli_parse_as_of(void *fit_options, const char *value) {
  rs_fit_options *fit = fit_options;
  if (!rs_fit_date_valid(value))
    return false;
  fit->as_of = value;
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
  return RS_OK;
}

void rs_cli_fit_pipeline(rs_pipeline_options *out, const rs_cli_fit_opts *o) {
  rs_pipeline_options_init(out);
  out->catalog = o->catalog.path;
  out->overlay = o->catalog.overlay;
  out->basis = o->catalog.basis;
  out->fit = o->fit;
}

bool rs_cli_parse_select(void *field, const char *value) {
  return rs_selection_add(field, value) == RS_OK;
}
