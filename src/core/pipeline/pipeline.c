/* The pipeline steps every command calls (pipeline.h): one place composes
 * catalog, profile, summary, fit and policies. */
#include "rightsize/pipeline.h"

#include <string.h>

#include "rightsize/ingest.h"

void rs_pipeline_options_init(rs_pipeline_options *o) {
  memset(o, 0, sizeof(*o));
  o->basis = RS_BASIS_ONDEMAND;
  rs_fit_options_init(&o->fit);
}

rs_status rs_pipeline_open(rs_pipeline *out, rs_arena *arena, const rs_pipeline_options *o,
                           rs_error *err) {
  rs_overlay *ov = NULL;
  memset(out, 0, sizeof(*out));
  rs_status st = o->catalog ? rs_catalog_load(&out->catalog, arena, o->catalog, err)
                            : rs_catalog_default(&out->catalog, arena, err);
  if (st == RS_OK && o->overlay)
    st = rs_overlay_load(&ov, arena, o->overlay, err);
  if (st == RS_OK)
    st = rs_pricing_apply(out->catalog, o->basis, ov, err);
  out->overlay = ov;
  out->basis = o->basis;
  out->fit = o->fit;
  return st;
}

rs_status rs_pipeline_summarize(rs_summary **out, rs_arena *arena, const char *const *paths,
                                size_t npaths, const rs_summary_options *opts, rs_error *err) {
  *out = NULL;
  /* An explicit --input-format says the files are samples, whatever their name. */
  bool samples = opts != NULL && opts->format != RS_FORMAT_AUTO;
  if (!samples && npaths == 1 && rs_profile_is_path(paths[0])) {
    rs_profile *profile;
    rs_status st = rs_profile_load(&profile, arena, paths[0], err);
    if (st != RS_OK)
      return st;
    return rs_summary_from_profile(out, arena, profile, opts, err);
  }
  for (size_t i = 0; i < npaths && !samples; i++)
    if (rs_profile_is_path(paths[i]))
      return rs_error_set(err, RS_USAGE, NULL, 0, 0,
                          "'%s' looks like a profile: give one profile, or sample files only",
                          paths[i]);
  return rs_summary_from_files(out, arena, paths, npaths, opts, err);
}

rs_status rs_pipeline_fit_profile(rs_fit_result **out, rs_arena *arena, const rs_pipeline *p,
                                  const rs_profile *profile, rs_error *err) {
  rs_summary *sum;
  rs_summary_options so = {.progress = p->progress,
                           .threads = p->threads,
                           .stats = {.no_series = !p->charts}}; /* else defaults */
  *out = NULL;
  rs_status st = rs_summary_from_profile(&sum, arena, profile, &so, err);
  if (st == RS_OK)
    st = rs_fit(out, arena, sum, p->catalog, p->basis, p->overlay, &p->fit, err);
  return st;
}

rs_status rs_pipeline_fit(rs_fit_result **out, rs_arena *arena, const rs_pipeline *p,
                          const char *path, rs_error *err) {
  rs_profile *profile;
  *out = NULL;
  rs_status st = rs_profile_load(&profile, arena, path, err);
  if (st == RS_OK)
    st = rs_pipeline_fit_profile(out, arena, p, profile, err);
  return st;
}

/* p with req's proposed deployment, if any, in its fit options. */
static rs_status propose(rs_pipeline *p, const rs_check_request *req, rs_error *err) {
  if (req->instance == NULL)
    return RS_OK;
  p->fit.proposed = rs_catalog_find(p->catalog, req->instance);
  if (p->fit.proposed == NULL)
    return rs_error_set(err, RS_USAGE, NULL, 0, 0,
                        "--instance '%s' is not in catalog %s (see 'rightsize catalog list')",
                        req->instance, p->catalog->version);
  p->fit.proposed_replicas = req->replicas ? req->replicas : 1;
  return RS_OK;
}

rs_status rs_pipeline_check(rs_check_report **out, rs_arena *arena, const rs_pipeline *p,
                            const rs_check_request *req, rs_error *err) {
  rs_pipeline with = *p;
  *out = NULL;
  if (!rs_policy_set_any(req->policies))
    return rs_error_set(err, RS_USAGE, NULL, 0, 0,
                        "check needs at least one policy (--max-overprovision 50, "
                        "--require-slo, ... or --policy FILE)");
  rs_status st = propose(&with, req, err);
  if (st != RS_OK)
    return st;
  rs_check_report *rep = rs_arena_alloc(arena, sizeof(*rep));
  rs_check_result *results =
      rs_arena_alloc_array(arena, req->nprofiles ? req->nprofiles : 1, sizeof(*results));
  if (rep == NULL || results == NULL)
    return rs_arena_error(arena, err, NULL, "while checking the profiles");
  for (size_t i = 0; i < req->nprofiles; i++) {
    rs_fit_result *fit;
    if (!rs_profile_is_path(req->profiles[i]))
      return rs_error_set(
          err, RS_USAGE, NULL, 0, 0,
          "'%s' is not a profile (.yaml, .yml or .json), it looks like a sample file",
          req->profiles[i]);
    st = rs_pipeline_fit(&fit, arena, &with, req->profiles[i], err);
    if (st == RS_OK)
      st = rs_policy_evaluate(&results[i], arena, req->policies, fit, err);
    if (st != RS_OK)
      return st;
  }
  rs_check_report_tally(rep, results, req->nprofiles, with.catalog, with.basis, with.overlay);
  *out = rep;
  return RS_OK;
}

unsigned rs_pipeline_threads(unsigned asked) {
  /* The CPUs are counted where a file is big enough to cut: most are not. */
  return asked > 0 ? asked : RS_INGEST_THREADS_AUTO;
}
