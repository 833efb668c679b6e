/* rightsize recommend: fit a profile against the catalog, rank the shapes. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rightsize/buf.h"
#include "rightsize/fit.h"
#include "rightsize/pipeline.h"
#include "rightsize/profile.h"
#include "rightsize/report_fit.h"
#include "rightsize/report_html.h"

typedef enum { FMT_TABLE, FMT_JSON, FMT_MARKDOWN, FMT_CSV, FMT_HTML } out_format;
static const char *const format_names[] = {"table", "json", "markdown", "csv", "html", NULL};

typedef struct recommend_opts {
  out_format format; /* a CHOICE field: int-sized */
  bool explain;
  bool wide;
  unsigned top;
  unsigned threads;
  rs_report_fit_options report;
  rs_cli_fit_opts f;
} recommend_opts;
_Static_assert(sizeof(out_format) == sizeof(int), "a CHOICE field is an int");

#define OPT(m) offsetof(recommend_opts, m)
static const rs_cli_opt recommend_options[] = {
    {RS_CLI_OPT("format", 'f', RS_CLI_CHOICE, OPT(format), "FORMAT",
                "output format: table (default), json, markdown, csv or html"),
     .choices = format_names},
    {RS_CLI_OPT("explain", 'e', RS_CLI_FLAG, OPT(explain), NULL,
                "the winner's margins and every rejected shape with its reason")},
    {RS_CLI_OPT("wide", 'w', RS_CLI_FLAG, OPT(wide), NULL,
                "table: every column (MEM_FREE, USD_H, USD_PER_1M, ...) and long lines unwrapped")},
    {RS_CLI_OPT("top", 'n', RS_CLI_COUNT, OPT(top), "N",
                "ranked shapes to show (default 10; 0 shows all)"),
     .lo = 0, .hi = 100000},
    {RS_CLI_OPT("threads", 'j', RS_CLI_COUNT, OPT(threads), "N",
                "threads reading one native CSV (default: the number of CPUs, at most 16; the "
                "output is the same for any number)"),
     .lo = 1, .hi = 256},
    RS_CLI_FIT_OPTIONS(recommend_opts, f),
    {0}};

static void init_options(void *opts) {
  recommend_opts *o = opts;
  rs_cli_fit_init(&o->f);
  o->top = 10;
}

static rs_status write_report(rs_buf *out, const recommend_opts *o, const rs_fit_result *r) {
  switch (o->format) {
  case FMT_JSON: return rs_report_fit_json(out, r, &o->report);
  case FMT_MARKDOWN: return rs_report_fit_markdown(out, r, &o->report);
  case FMT_CSV: return rs_report_fit_csv(out, r, &o->report);
  case FMT_HTML: return rs_report_fit_html(out, r);
  default: return rs_report_fit_table(out, r, &o->report);
  }
}

static rs_status recommend(rs_buf *out, rs_arena *arena, const rs_cli_args *args,
                           rs_fit_result **res, rs_error *err) {
  const recommend_opts *o = args->opts;
  const char *path = args->args[0];
  rs_pipeline_options po;
  rs_pipeline p;
  rs_progress progress;
  rs_cli_fit_pipeline(&po, &o->f);
  rs_cli_progress_init(&progress, &args->common);
  rs_status st = rs_pipeline_open(&p, arena, &po, err);
  p.progress = progress.fp ? &progress : NULL; /* off: the path without progress */
  p.threads = rs_pipeline_threads(o->threads);
  p.charts = o->format == FMT_HTML; /* only the HTML report draws the series */
  if (st == RS_OK)
    st = rs_pipeline_fit(res, arena, &p, path, err);
  if (st == RS_OK && (st = write_report(out, o, *res)) != RS_OK)
    rs_error_set(err, st, NULL, 0, 0, "%s while writing the report", rs_status_message(st));
  return st;
}

static int run_recommend(const rs_cli_args *args) {
  recommend_opts *o = args->opts;
  rs_arena arena;
  rs_fit_result *res = NULL;
  rs_error err;
  rs_buf out;
  int rc;
  rs_error_clear(&err);
  o->f.fit.backtest_curve = o->format == FMT_HTML; /* the charts' back-test curve */
  if (rs_cli_fit_finish(&o->f, &err) != RS_OK)
    return rs_cli_usage_error("recommend", err.msg);
  o->report.explain = o->explain;
  o->report.wide = o->wide;
  o->report.top = o->top;
  if (!rs_profile_is_path(args->args[0]))
    return rs_cli_usage_error("recommend", "recommend needs a PROFILE (.yaml, .yml or .json): "
                                           "model facts, current deployment and SLO, not bare "
                                           "sample files");
  rs_arena_init(&arena, 0);
  rs_buf_init(&out, 0);
  rs_status st = recommend(&out, &arena, args, &res, &err);
  bool nofit = st == RS_OK && res->verdict.action == RS_ACTION_NOFIT;
  if (nofit)
    rs_error_set(&err, RS_NOFIT, args->args[0], 0, 0,
                 "no shape meets every constraint (the report lists the closest and why)");
  rc = rs_cli_finish(args, o->format == FMT_TABLE, st, &err, &out, nofit ? &err : NULL);
  rs_buf_release(&out);
  rs_arena_release(&arena);
  return rc;
}

const rs_cli_command rs_cmd_recommend = {
    .name = "recommend",
    .summary = "fit a profile against the catalog: ranked shapes, replicas, latency, cost, savings",
    .usage = "PROFILE [options]",
    .description =
        "Reads a profile and its samples, derives what the endpoint needs (memory per device,\n"
        "busy time per request, service latency, host CPU and network per request, the design\n"
        "peak), and fits it onto every catalog shape the model may run on: memory with\n"
        "headroom, the busy time projected onto the target device, and the smallest replica\n"
        "count that keeps utilization under the ceiling and the SLO's latency quantile under\n"
        "the SLO (service time plus Erlang C queueing). Prints the fitting shapes ranked by\n"
        "monthly cost, the current deployment beside them, the binding constraint and the\n"
        "confidence of each. The model is in docs/model.md. Exit 0 with a recommendation,\n"
        "4 when no shape fits (the report still lists the closest), 2 for usage errors,\n"
        "3 for bad input.",
    .options = recommend_options,
    .opts_size = sizeof(recommend_opts),
    .init = init_options,
    .args = {1, 1, "PROFILE"},
    .run = run_recommend,
    .exit_codes = "0 ok, 2 usage error, 3 bad input, 4 no shape fits, 5 internal error",
    .report = true,
    .examples = "  rightsize recommend profiles/resnet50-p3.8xlarge.yaml\n"
                "  rightsize recommend profiles/resnet50-p3.8xlarge.yaml -p all --explain\n"
                "  rightsize recommend profiles/resnet50-p3.8xlarge.yaml --slo-p95 30ms -f json\n"
                "  rightsize recommend profiles/resnet50-p3.8xlarge.yaml -f html > report.html\n",
};
