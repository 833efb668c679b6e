/* rightsize check: policies over one or more profiles, as exit codes for CI. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rightsize/buf.h"
#include "rightsize/catalog.h"
#include "rightsize/num.h"
#include "rightsize/pipeline.h"
#include "rightsize/policy.h"
#include "rightsize/report_check.h"

enum {
  OPT_FORMAT = 1,
  OPT_POLICY,
  OPT_INSTANCE,
  OPT_REPLICAS,
  OPT_COST_PER_MILLION,
  OPT_MONTHLY,
  OPT_OVERPROVISION,
  OPT_SLO,
  OPT_HEADROOM_MIN,
  OPT_CONFIDENCE,
  OPT_VERDICT,
};

static const rs_cli_option check_options[] = {
    {"format", 'f', "FORMAT", "text (default), json, markdown, github or junit", OPT_FORMAT},
    {"policy", 0, "FILE", "policies from a YAML or JSON file (docs/ci.md); flags override it",
     OPT_POLICY},
    {"max-cost-per-million", 0, "USD", "fail above this cost per million predictions",
     OPT_COST_PER_MILLION},
    {"max-monthly", 0, "USD", "fail above this cost per month", OPT_MONTHLY},
    {"max-overprovision", 0, "PCT",
     "fail when the deployment costs more than PCT% over the best fitting shape",
     OPT_OVERPROVISION},
    {"require-slo", 0, NULL,
     "fail unless the deployment meets the SLO and every constraint at the design peak", OPT_SLO},
    {"min-headroom", 0, "PCT", "fail when less than PCT% of device memory is left free",
     OPT_HEADROOM_MIN},
    {"min-confidence", 0, "LEVEL", "fail below this confidence: low, medium or high",
     OPT_CONFIDENCE},
    {"fail-verdict", 0, "CODES",
     "fail when the verdict is one of these codes (idle,no-traffic,underused,...)", OPT_VERDICT},
    {"instance", 0, "NAME", "evaluate this shape instead of the current deployment", OPT_INSTANCE},
    {"replicas", 0, "N", "replicas of --instance (default 1)", OPT_REPLICAS},
    RS_CLI_FIT_OPTIONS,
    {NULL, 0, NULL, NULL, 0}};

typedef struct check_opts {
  rs_check_format format;
  rs_cli_fit_opts f;
  rs_policy_set flags; /* from flags: override the file */
  const char *policy_file;
  const char *instance;
  unsigned replicas;
} check_opts;

static int read_limit(check_opts *o, rs_policy_kind k, const char *v, bool pct) {
  size_t n = strlen(v);
  double x;
  if (pct && n > 0 && v[n - 1] == '%')
    n--;
  if (n == 0 || rs_num_parse_double(v, n, &x) != RS_OK || !(x >= 0) || !isfinite(x))
    return rs_cli_bad_value(rs_policy_flag(k), v,
                            pct ? "a percentage >= 0 such as 50"
                                : "an amount in USD >= 0 such as 25");
  o->flags.set[k] = true;
  o->flags.limit[k] = x;
  return 0;
}

static int read_option(check_opts *o, const rs_cli_parsed *p) {
  static const char *const formats[] = {"text", "json", "markdown", "github", "junit"};
  const char *v = p->value;
  rs_confidence c;
  int rc = rs_cli_fit_option(&o->f, p);
  if (rc >= 0)
    return rc;
  switch (p->id) {
  case OPT_FORMAT:
    for (size_t i = 0; i < 5; i++)
      if (strcmp(v, formats[i]) == 0) {
        o->format = (rs_check_format)i;
        return 0;
      }
    return rs_cli_bad_value("format", v, "text, json, markdown, github or junit");
  case OPT_POLICY: o->policy_file = v; return 0;
  case OPT_INSTANCE: o->instance = v; return 0;
  case OPT_REPLICAS: return rs_cli_read_count(&o->replicas, "replicas", v, 1, 100000);
  case OPT_COST_PER_MILLION: return read_limit(o, RS_POLICY_COST_PER_MILLION, v, false);
  case OPT_MONTHLY: return read_limit(o, RS_POLICY_MONTHLY, v, false);
  case OPT_OVERPROVISION: return read_limit(o, RS_POLICY_OVERPROVISION, v, true);
  case OPT_HEADROOM_MIN:
    rc = read_limit(o, RS_POLICY_HEADROOM, v, true);
    if (rc == 0 && o->flags.limit[RS_POLICY_HEADROOM] >= 100)
      return rs_cli_bad_value("min-headroom", v, "a percentage below 100");
    return rc;
  case OPT_SLO:
    o->flags.set[RS_POLICY_SLO] = true;
    o->flags.limit[RS_POLICY_SLO] = 1;
    return 0;
  case OPT_CONFIDENCE:
    if (rs_confidence_from_name(&c, v) != RS_OK)
      return rs_cli_bad_value("min-confidence", v, "low, medium or high");
    o->flags.set[RS_POLICY_CONFIDENCE] = true;
    o->flags.limit[RS_POLICY_CONFIDENCE] = (double)c;
    return 0;
  case OPT_VERDICT: {
    unsigned mask;
    if (rs_policy_verdicts_parse(&mask, v) != RS_OK)
      return rs_cli_bad_value("fail-verdict", v,
                              "a comma list of verdict codes such as idle,no-traffic,underused");
    o->flags.set[RS_POLICY_VERDICT] = true;
    o->flags.limit[RS_POLICY_VERDICT] = (double)mask;
    return 0;
  }
  default: return 0;
  }
}

static int read_options(check_opts *o, const rs_cli_args *args) {
  memset(o, 0, sizeof(*o));
  rs_cli_fit_init(&o->f, "check");
  for (size_t i = 0; i < args->nopts; i++) {
    int rc = read_option(o, &args->opts[i]);
    if (rc != 0)
      return rc;
  }
  if (o->replicas && o->instance == NULL)
    return rs_cli_usage_error("check", "--replicas needs --instance");
  return 0;
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
  rs_status st = policies(&set, arena, o, err);
  rs_cli_fit_pipeline(&po, &o->f);
  if (st == RS_OK)
    st = rs_pipeline_open(&p, arena, &po, err);
  rs_check_request req = {&set, o->instance, o->replicas, args->args, args->nargs};
  if (st == RS_OK)
    st = rs_pipeline_check(rep, arena, &p, &req, err);
  if (st == RS_OK && (st = rs_report_check(out, *rep, o->format)) != RS_OK)
    rs_error_set(err, st, NULL, 0, 0, "%s while writing the report", rs_status_message(st));
  return st;
}

static int run_check(const rs_cli_args *args) {
  check_opts o;
  rs_arena arena;
  rs_error err;
  rs_buf out;
  rs_check_report *rep = NULL;
  int rc = read_options(&o, args);
  if (rc != 0)
    return rc;
  if (args->nargs == 0)
    return rs_cli_usage_error("check", "check needs a PROFILE");
  rs_error_clear(&err);
  rs_arena_init(&arena, 0);
  rs_buf_init(&out, 0);
  rs_status st = run(&out, &arena, args, &o, &rep, &err);
  bool failed = st == RS_OK && !rep->pass;
  if (failed)
    rs_error_set(&err, RS_POLICY, NULL, 0, 0, "%zu of %zu profile%s failed a policy", rep->failed,
                 rep->nresults, rep->nresults == 1 ? "" : "s");
  rc = rs_cli_finish("check", st, &err, &out, failed ? &err : NULL);
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
    .run = run_check,
    .exit_codes =
        "0 every policy passed, 1 a policy failed, 2 usage error, 3 bad input, 5 internal error",
};
