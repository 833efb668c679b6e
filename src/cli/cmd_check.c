/* rightsize check: policies over one or more profiles, as exit codes for CI. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rightsize/buf.h"
#include "rightsize/catalog.h"
#include "rightsize/pipeline.h"
#include "rightsize/policy.h"
#include "rightsize/report_check.h"
#include "rightsize/report_html.h"

static const char *const format_names[] = {"text",  "json", "markdown", "github",
                                           "junit", "html", NULL};

typedef struct check_opts {
  rs_check_format format; /* a CHOICE field: int-sized */
  rs_cli_fit_opts f;
  double limit[RS_POLICY_COUNT]; /* from flags, NaN when not given: override the file */
  bool require_slo, wide;
  rs_policy_set flags; /* the limits given, after parsing */
  const char *policy_file;
  const char *instance;
  unsigned replicas;
  unsigned threads;
} check_opts;
_Static_assert(sizeof(rs_check_format) == sizeof(int), "a CHOICE field is an int");

static bool parse_confidence(void *field, const char *value) {
  rs_confidence c;
  if (rs_confidence_from_name(&c, value) != RS_OK)
    return false;
  *(double *)field = (double)c;
  return true;
}

static bool parse_verdicts(void *field, const char *value) {
  unsigned mask;
  if (rs_policy_verdicts_parse(&mask, value) != RS_OK)
    return false;
  *(double *)field = (double)mask;
  return true;
}

#define OPT(m) offsetof(check_opts, m)
#define LIMIT(k) offsetof(check_opts, limit[k])
static const rs_cli_opt check_options[] = {
    {RS_CLI_OPT("format", 'f', RS_CLI_CHOICE, OPT(format), "FORMAT",
                "text (default), json, markdown, github, junit or html"),
     .choices = format_names},
    {RS_CLI_OPT("wide", 'w', RS_CLI_FLAG, OPT(wide), NULL,
                "text: long lines unwrapped (default: wrapped at 100 columns)")},
    {RS_CLI_OPT("threads", 'j', RS_CLI_COUNT, OPT(threads), "N",
                "threads reading one native CSV (default: the number of CPUs, at most 16; the "
                "output is the same for any number)"),
     .lo = 1, .hi = 256},
    {RS_CLI_OPT("policy", 0, RS_CLI_PATH, OPT(policy_file), "FILE",
                "policies from a YAML or JSON file (docs/ci.md); flags override it")},
    {RS_CLI_OPT("max-cost-per-million", 0, RS_CLI_NUMBER, LIMIT(RS_POLICY_COST_PER_MILLION), "USD",
                "fail above this cost per million predictions"),
     .lo = 0, .hi = INFINITY, .expect = "an amount in USD >= 0 such as 25"},
    {RS_CLI_OPT("max-monthly", 0, RS_CLI_NUMBER, LIMIT(RS_POLICY_MONTHLY), "USD",
                "fail above this cost per month"),
     .lo = 0, .hi = INFINITY, .expect = "an amount in USD >= 0 such as 25"},
    {RS_CLI_OPT("max-overprovision", 0, RS_CLI_PERCENT, LIMIT(RS_POLICY_OVERPROVISION), "PCT",
                "fail when the deployment costs more than PCT% over the best fitting shape"),
     .lo = 0, .hi = INFINITY},
    {RS_CLI_OPT(
        "require-slo", 0, RS_CLI_FLAG, OPT(require_slo), NULL,
        "fail unless the deployment meets the SLO and every constraint at the design peak")},
    {RS_CLI_OPT("min-headroom", 0, RS_CLI_PERCENT, LIMIT(RS_POLICY_HEADROOM), "PCT",
                "fail when less than PCT% of device memory is left free"),
     .lo = 0, .hi = 100, .below_hi = true},
    {RS_CLI_OPT("min-confidence", 0, RS_CLI_CUSTOM, LIMIT(RS_POLICY_CONFIDENCE), "LEVEL",
                "fail below this confidence: low, medium or high"),
     .expect = "low, medium or high", .parse = parse_confidence},
    {RS_CLI_OPT("fail-verdict", 0, RS_CLI_CUSTOM, LIMIT(RS_POLICY_VERDICT), "CODES",
                "fail when the verdict is one of these codes (idle,no-traffic,underused,...)"),
     .expect = "a comma list of verdict codes such as idle,no-traffic,underused",
     .parse = parse_verdicts},
    {RS_CLI_OPT("instance", 0, RS_CLI_STRING, OPT(instance), "NAME",
                "evaluate this shape instead of the current deployment")},
    {RS_CLI_OPT("replicas", 0, RS_CLI_COUNT, OPT(replicas), "N",
                "replicas of --instance (default 1)"),
     .lo = 1, .hi = 100000},
    RS_CLI_FIT_OPTIONS(check_opts, f),
    {0}};

static void init_options(void *opts) {
  check_opts *o = opts;
  rs_cli_fit_init(&o->f);
  for (int k = 0; k < RS_POLICY_COUNT; k++)
    o->limit[k] = NAN;
}

/* After parsing: the limits given as a policy set, the fit options. */
static rs_status finish_options(check_opts *o, rs_error *err) {
  if (o->replicas && o->instance == NULL)
    return rs_error_set(err, RS_USAGE, NULL, 0, 0, "--replicas needs --instance");
  if (o->require_slo)
    o->limit[RS_POLICY_SLO] = 1;
  for (int k = 0; k < RS_POLICY_COUNT; k++) {
    o->flags.set[k] = !isnan(o->limit[k]);
    o->flags.limit[k] = o->limit[k];
  }
  o->f.fit.backtest_curve = o->format == RS_CHECK_HTML; /* the charts' back-test curve */
  return rs_cli_fit_finish(&o->f, err);
}

/* The file's policies, then the flags over them. */
static rs_status policies(rs_policy_set *set, rs_arena *arena, const check_opts *o, rs_error *err) {
  memset(set, 0, sizeof(*set));
  if (o->policy_file) {
    rs_status st = rs_policy_load(set, arena, o->policy_file, err);
    if (st != RS_OK)
      return st;
  }
  for (int k = 0; k < RS_POLICY_COUNT; k++) {
    if (o->flags.set[k]) {
      set->set[k] = true;
      set->limit[k] = o->flags.limit[k];
    }
  }
  return RS_OK;
}

static rs_status run(rs_buf *out, rs_arena *arena, const rs_cli_args *args, const check_opts *o,
                     rs_check_report **rep, rs_error *err) {
  rs_policy_set set;
  rs_pipeline_options po;
  rs_pipeline p;
  rs_progress progress;
  rs_status st = policies(&set, arena, o, err);
  rs_cli_fit_pipeline(&po, &o->f);
  rs_cli_progress_init(&progress, &args->common);
  if (st == RS_OK)
    st = rs_pipeline_open(&p, arena, &po, err);
  p.progress = progress.fp ? &progress : NULL; /* off: the path without progress */
  p.threads = rs_pipeline_threads(o->threads);
  p.charts = o->format == RS_CHECK_HTML; /* only the HTML report draws the series */
  rs_check_request req = {&set, o->instance, o->replicas, args->args, args->nargs};
  if (st == RS_OK)
    st = rs_pipeline_check(rep, arena, &p, &req, err);
  if (st == RS_OK &&
      (st = o->format == RS_CHECK_HTML ? rs_report_check_html(out, *rep)
                                       : rs_report_check(out, *rep, o->format, o->wide)) != RS_OK)
    rs_error_set(err, st, NULL, 0, 0, "%s while writing the report", rs_status_message(st));
  return st;
}

static int run_check(const rs_cli_args *args) {
  check_opts *o = args->opts;
  rs_arena arena;
  rs_error err;
  rs_buf out;
  rs_check_report *rep = NULL;
  int rc;
  rs_error_clear(&err);
  if (finish_options(o, &err) != RS_OK)
    return rs_cli_usage_error("check", err.msg);
  rs_arena_init(&arena, 0);
  rs_buf_init(&out, 0);
  rs_status st = run(&out, &arena, args, o, &rep, &err);
  bool failed = st == RS_OK && !rep->pass;
  if (failed)
    rs_error_set(&err, RS_POLICY, NULL, 0, 0, "%zu of %zu profile%s failed a policy", rep->failed,
                 rep->nresults, rep->nresults == 1 ? "" : "s");
  rc = rs_cli_finish(args, o->format == RS_CHECK_TEXT, st, &err, &out, failed ? &err : NULL);
  rs_buf_release(&out);
  rs_arena_release(&arena);
  return rc;
}

const rs_cli_command rs_cmd_check = {
    .name = "check",
    .summary = "gate a deployment on cost and over-provisioning policies (exit 1 when one fails)",
    .usage = "PROFILE... [policies] [--policy FILE] [--instance NAME [--replicas N]] [options]",
    .description =
        "Fits each profile like recommend, then evaluates policies on the current deployment\n"
        "(or the one given by --instance and --replicas): cost per million predictions, cost\n"
        "per month, over-provisioning against the best fitting shape, the SLO and every\n"
        "constraint at the design peak, memory headroom, confidence. Policies come from flags\n"
        "or a policy file (docs/ci.md); flags override the file. Exit 0 when every policy\n"
        "passes, 1 when one fails (the report says which), 2 for usage errors, 3 for bad input,\n"
        "so a broken run is never mistaken for a failed policy. --format github prints one\n"
        "workflow annotation per failed policy; junit prints a JUnit XML report.",
    .options = check_options,
    .opts_size = sizeof(check_opts),
    .init = init_options,
    .args = {1, RS_CLI_MAX_ARGS, "PROFILE"},
    .run = run_check,
    .exit_codes =
        "0 every policy passed, 1 a policy failed, 2 usage error, 3 bad input, 5 internal error",
    .report = true,
    .examples =
        "  rightsize check profiles/*.yaml --max-overprovision 50 --require-slo\n"
        "  rightsize check profiles/resnet50-p3.8xlarge.yaml --policy policy.yaml -f github\n",
};
