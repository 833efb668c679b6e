/* rightsize plan: an autoscaling plan for the recommended shape, replayed
 * against the profile's history (docs/model.md "Autoscaling plan"). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rightsize/autoscale.h"
#include "rightsize/buf.h"
#include "rightsize/fit.h"
#include "rightsize/pipeline.h"
#include "rightsize/profile.h"
#include "rightsize/report_plan.h"

typedef enum { FMT_TEXT, FMT_JSON } out_format;
static const char *const format_names[] = {"text", "json", NULL};
typedef enum { SNIP_NONE, SNIP_HPA, SNIP_KEDA, SNIP_SAGEMAKER } snippet_kind;
static const char *const snippet_names[] = {"none", "hpa", "keda", "sagemaker", NULL};

typedef struct plan_opts {
  out_format format;    /* a CHOICE field: int-sized */
  snippet_kind snippet; /* a CHOICE field: int-sized */
  double lead_s;        /* NaN: the family default */
  double spot_discount; /* percent; NaN: none */
  bool spot_full_slo;
  const char *shape; /* the shape planned in full; NULL: the recommended one */
  unsigned shapes;   /* the cheapest fitting shapes planned in the candidates table */
  rs_cli_fit_opts f;
} plan_opts;
_Static_assert(sizeof(out_format) == sizeof(int), "a CHOICE field is an int");
_Static_assert(sizeof(snippet_kind) == sizeof(int), "a CHOICE field is an int");

#define OPT(m) offsetof(plan_opts, m)
static const rs_cli_opt plan_options[] = {
    {RS_CLI_OPT("format", 'f', RS_CLI_CHOICE, OPT(format), "FORMAT",
                "output format: text (default) or json"),
     .choices = format_names},
    {RS_CLI_OPT("snippet", 0, RS_CLI_CHOICE, OPT(snippet), "KIND",
                "print a snippet instead: hpa, keda or sagemaker (none: the plan)"),
     .choices = snippet_names},
    {RS_CLI_OPT("lead-time", 0, RS_CLI_DURATION, OPT(lead_s), "DURATION",
                "scale-out lead time; default traffic.cold_start, else 300s GPU, 120s CPU")},
    {RS_CLI_OPT("spot-discount", 0, RS_CLI_PERCENT, OPT(spot_discount), "PCT",
                "spot price as on-demand less PCT where the catalog has no spot price"),
     .lo = 0, .hi = 100, .below_hi = true},
    {RS_CLI_OPT("spot-full-slo", 0, RS_CLI_FLAG, OPT(spot_full_slo), NULL,
                "the on-demand part alone must meet the full SLO (default: 2x the SLO)")},
    {RS_CLI_OPT(
        "shape", 0, RS_CLI_STRING, OPT(shape), "NAME",
        "plan this fitting shape in full (and in --snippet) instead of the recommended one")},
    {RS_CLI_OPT("shapes", 0, RS_CLI_COUNT, OPT(shapes), "N",
                "plan the N cheapest fitting shapes for the candidates table (default 5, 0: none)"),
     .lo = 0, .hi = 64},
    RS_CLI_FIT_OPTIONS(plan_opts, f),
    {0}};

static void init_options(void *opts) {
  plan_opts *o = opts;
  rs_cli_fit_init(&o->f);
  o->lead_s = NAN;
  o->spot_discount = NAN;
  o->shapes = 5;
}

/* The shape to plan in full: --shape among the fitting ones (or the
 * current deployment when it fits), else the verdict's target, else the
 * current deployment. */
static rs_status planned(const rs_candidate **out, const rs_fit_result *r, const char *shape,
                         rs_error *err) {
  *out = r->verdict.target ? r->verdict.target : &r->current;
  if (shape == NULL)
    return RS_OK;
  for (size_t i = 0; i < r->nfitting; i++)
    if (strcmp(r->fitting[i].inst->name, shape) == 0) {
      *out = &r->fitting[i];
      return RS_OK;
    }
  if (r->current.fits && strcmp(r->current.inst->name, shape) == 0) {
    *out = &r->current;
    return RS_OK;
  }
  return rs_error_set(err, RS_USAGE, NULL, 0, 0,
                      "--shape '%s': not one of the %zu fitting shapes of this profile "
                      "(`rightsize recommend --top 0` lists them)",
                      shape, r->nfitting);
}

typedef struct plans {
  rs_autoscale_plan *full;
  rs_autoscale_plan *cands; /* the cheapest fitting shapes that can be planned, ranked */
  size_t ncands;
} plans;

static rs_status write_plan(rs_buf *out, const plan_opts *o, const rs_fit_result *r,
                            const plans *ps) {
  const char *name = r->summary->name;
  const rs_autoscale_plan *a = ps->full;
  switch (o->snippet) {
  case SNIP_HPA: return rs_report_plan_hpa(out, name, a);
  case SNIP_KEDA: return rs_report_plan_keda(out, name, a);
  case SNIP_SAGEMAKER: return rs_report_plan_sagemaker(out, name, a);
  default: break;
  }
  return o->format == FMT_JSON ? rs_report_plan_json(out, name, r, a, ps->cands, ps->ncands)
                               : rs_report_plan_text(out, name, r, a, ps->cands, ps->ncands);
}

/* The candidates table: each of the cheapest fitting shapes planned the
 * same way; a shape that cannot be planned (no service time) is left out. */
static rs_status plan_candidates(plans *ps, rs_arena *arena, const rs_fit_result *res,
                                 const rs_rate_history *h, const rs_autoscale_options *ao,
                                 unsigned n, rs_error *err) {
  size_t want = n < res->nfitting ? n : res->nfitting;
  ps->ncands = 0;
  ps->cands = want ? rs_arena_alloc_array(arena, want, sizeof(*ps->cands)) : NULL;
  if (want && ps->cands == NULL)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory");
  for (size_t i = 0; i < want; i++) {
    rs_error skip;
    rs_error_clear(&skip);
    rs_status st =
        rs_autoscale_plan_for(&ps->cands[ps->ncands], arena, res, &res->fitting[i], h, ao, &skip);
    if (st == RS_OK)
      ps->ncands++;
    else if (st != RS_INVALID)
      return rs_error_set(err, st, NULL, 0, 0, "%s", skip.msg);
  }
  return RS_OK;
}

static rs_status plan(rs_buf *out, rs_arena *arena, const char *path, const plan_opts *o,
                      rs_error *err) {
  rs_pipeline_options po;
  rs_pipeline p;
  rs_fit_result *res = NULL;
  rs_rate_history h;
  rs_autoscale_options ao;
  const rs_candidate *c = NULL;
  plans ps = {.full = rs_arena_alloc(arena, sizeof(*ps.full))};
  if (ps.full == NULL)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory");
  rs_autoscale_options_init(&ao);
  ao.lead_s = o->lead_s;
  ao.spot_discount = o->spot_discount / 100.0;
  ao.spot_full_slo = o->spot_full_slo;
  rs_cli_fit_pipeline(&po, &o->f);
  rs_status st = rs_pipeline_open(&p, arena, &po, err);
  if (st == RS_OK)
    st = rs_pipeline_fit(&res, arena, &p, path, err);
  if (st == RS_OK && res->verdict.action == RS_ACTION_NOFIT)
    return rs_error_set(err, RS_NOFIT, path, 0, 0, "no shape meets every constraint: no plan");
  if (st == RS_OK)
    st = planned(&c, res, o->shape, err);
  if (st == RS_OK)
    st = rs_autoscale_history(&h, arena, res->summary, err);
  if (st == RS_OK)
    st = rs_autoscale_plan_for(ps.full, arena, res, c, &h, &ao, err);
  if (st == RS_OK && o->snippet == SNIP_NONE)
    st = plan_candidates(&ps, arena, res, &h, &ao, o->shapes, err);
  if (st == RS_OK && (st = write_plan(out, o, res, &ps)) != RS_OK)
    rs_error_set(err, st, NULL, 0, 0, "%s while writing the plan", rs_status_message(st));
  return st;
}

static int run_plan(const rs_cli_args *args) {
  plan_opts *o = args->opts;
  rs_arena arena;
  rs_error err;
  rs_buf out;
  rs_error_clear(&err);
  if (rs_cli_fit_finish(&o->f, &err) != RS_OK)
    return rs_cli_usage_error("plan", err.msg);
  if (!rs_profile_is_path(args->args[0]))
    return rs_cli_usage_error("plan", "plan needs a PROFILE (.yaml, .yml or .json)");
  rs_arena_init(&arena, 0);
  rs_buf_init(&out, 0);
  rs_status st = plan(&out, &arena, args->args[0], o, &err);
  int rc = rs_cli_finish(args, false, st, &err, &out, NULL);
  rs_buf_release(&out);
  rs_arena_release(&arena);
  return rc;
}

const rs_cli_command rs_cmd_plan = {
    .name = "plan",
    .summary = "an autoscaling plan for the recommended shape, replayed against the history",
    .usage = "PROFILE [options]",
    .description =
        "Fits the profile like recommend, then plans autoscaling for the recommended shape (the\n"
        "current one when it stays): demand per hour of the day or week from the request-rate\n"
        "history, a target utilization that rides out the steepest ramp within the scale-out\n"
        "lead time, minimum and maximum replicas, a pre-scaling floor per hour where the cycle\n"
        "is strong. The plan is replayed against the history interval by interval (replicas\n"
        "asked for at t are there at t + lead time): intervals that miss the SLO, replica\n"
        "hours and cost beside the static size. Also whether scale to zero fits, and a spot\n"
        "mix whose on-demand part alone meets a degraded target. docs/model.md\n"
        "\"Autoscaling plan\" has the rules. --snippet prints a Kubernetes HPA, a KEDA\n"
        "ScaledObject or SageMaker Application Auto Scaling requests instead. The N cheapest\n"
        "fitting shapes (--shapes N, default 5) are each planned and replayed the same way into a\n"
        "candidates table; --shape NAME plans another fitting shape in full.",
    .options = plan_options,
    .opts_size = sizeof(plan_opts),
    .init = init_options,
    .args = {1, 1, "PROFILE"},
    .run = run_plan,
    .exit_codes = "0 ok, 2 usage error, 3 bad input, 4 no shape fits, 5 internal error",
    .examples =
        "  rightsize plan profiles/resnet50-p3.8xlarge.yaml\n"
        "  rightsize plan profiles/resnet50-p3.8xlarge.yaml --lead-time 10m -f json\n"
        "  rightsize plan profiles/resnet50-p3.8xlarge.yaml --snippet hpa\n"
        "  rightsize plan profiles/search-rerank-daily.yaml --shape g5g.xlarge --shapes 10\n",
};
