/* rightsize diff: what a change does to the recommended deployments, per
 * endpoint and in total, with a CI gate (--fail-above). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rightsize/buf.h"
#include "rightsize/diff.h"
#include "rightsize/pipeline.h"
#include "rightsize/report_diff.h"

static const char *const format_names[] = {"text", "markdown", "json", NULL};

typedef struct diff_opts {
  rs_diff_format format; /* a CHOICE field: int-sized */
  double fail_above;     /* percent; NaN: no gate */
  bool wide;
  rs_cli_catalog_opts catalog;
} diff_opts;
_Static_assert(sizeof(rs_diff_format) == sizeof(int), "a CHOICE field is an int");

#define OPT(m) offsetof(diff_opts, m)
static const rs_cli_opt diff_options[] = {
    {RS_CLI_OPT("format", 'f', RS_CLI_CHOICE, OPT(format), "FORMAT",
                "text (default), markdown (a pull-request comment) or json"),
     .choices = format_names},
    {RS_CLI_OPT("fail-above", 0, RS_CLI_PERCENT, OPT(fail_above), "PCT",
                "exit 6 when the total $/month or an endpoint's cost per million rises by more "
                "than PCT percent"),
     .lo = 0, .hi = 1000000},
    {RS_CLI_OPT("wide", 'w', RS_CLI_FLAG, OPT(wide), NULL,
                "text: all ten columns (both shapes, both sides' $/month and cost per million, "
                "the bound); the default fits 100 columns")},
    RS_CLI_CATALOG_OPTIONS(diff_opts, catalog),
    {0}};

static void init_options(void *opts) {
  diff_opts *o = opts;
  o->fail_above = NAN;
}

static rs_status diff(rs_buf *out, rs_arena *arena, const diff_opts *o, const char *const *paths,
                      rs_diff_doc docs[2], rs_diff *d, rs_error *err) {
  rs_pipeline_options po;
  rs_pipeline p;
  rs_pipeline_options_init(&po);
  po.catalog = o->catalog.path;
  po.overlay = o->catalog.overlay;
  po.basis = o->catalog.basis;
  rs_status st = rs_pipeline_open(&p, arena, &po, err);
  for (int i = 0; i < 2 && st == RS_OK; i++)
    st = rs_diff_load(&docs[i], arena, &p, paths[i], err);
  if (st == RS_OK)
    st = rs_diff_compute(d, arena, &docs[0], &docs[1], err);
  if (st == RS_OK && (st = rs_report_diff(out, d, o->format, o->fail_above, o->wide)) != RS_OK)
    rs_error_set(err, st, NULL, 0, 0, "%s while writing the report", rs_status_message(st));
  return st;
}

static int run_diff(const rs_cli_args *args) {
  diff_opts *o = args->opts;
  rs_arena arena;
  rs_error err;
  rs_buf out;
  rs_diff d;
  rs_diff_doc docs[2];
  rs_error_clear(&err);
  rs_arena_init(&arena, 0);
  rs_buf_init(&out, 0);
  rs_status st = diff(&out, &arena, o, args->args, docs, &d, &err);
  bool gate = st == RS_OK && rs_diff_exceeds(&d, o->fail_above);
  if (gate)
    rs_error_set(&err, RS_REGRESSED, NULL, 0, 0, "%s rose %.1f%%, above --fail-above %g%%",
                 d.worst_what, d.worst_pct, o->fail_above);
  int rc = rs_cli_finish(args, false, st, &err, &out, gate ? &err : NULL);
  rs_buf_release(&out);
  rs_arena_release(&arena);
  return rc;
}

const rs_cli_command rs_cmd_diff = {
    .name = "diff",
    .summary = "compare two recommendations, audits or profiles: cost, latency, shape, verdict",
    .usage = "OLD NEW [options]",
    .description =
        "Compares what two runs recommend, per endpoint and in total: the shape and replicas\n"
        "each leads to (the verdict's target, or the current deployment when it stays), its\n"
        "$/month, $ per million requests, latency at the SLO quantile, binding constraint and\n"
        "verdict. OLD and NEW are recommendation JSON (recommend -f json), audit JSON (audit\n"
        "-f json; no latency or cost per million there), or profiles, which are fitted first\n"
        "with the catalog options. --fail-above PCT makes it a CI gate: exit 6 when the total\n"
        "$/month or any endpoint's cost per million rises by more than PCT percent; the report\n"
        "is still printed and one line on stderr says what rose.",
    .options = diff_options,
    .opts_size = sizeof(diff_opts),
    .init = init_options,
    .args = {2, 2, "pair OLD NEW"},
    .run = run_diff,
    .exit_codes = "0 ok, 2 usage error, 3 bad input, 5 internal error, 6 rose above --fail-above",
    .examples = "  rightsize recommend profiles/resnet50-p3.8xlarge.yaml -f json > old.json\n"
                "  rightsize diff old.json profiles/resnet50-p3.8xlarge.yaml -f markdown\n"
                "  rightsize diff old.json new.json --fail-above 10\n",
};
