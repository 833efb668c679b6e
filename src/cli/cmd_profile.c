/* rightsize profile: summarize an endpoint's samples. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rightsize/arena.h"
#include "rightsize/buf.h"
#include "rightsize/ingest.h"
#include "rightsize/pipeline.h"
#include "rightsize/profile.h"
#include "rightsize/report_summary.h"
#include "rightsize/summary.h"

static const char *const format_names[] = {"table", "json", NULL};

typedef struct profile_opts {
  int json; /* a CHOICE: 0 table, 1 json */
  rs_summary_options summary;
} profile_opts;
_Static_assert(sizeof(rs_sample_format) == sizeof(int), "a CHOICE field is an int");

#define OPT(m) offsetof(profile_opts, m)
static const rs_cli_opt profile_options[] = {
    {RS_CLI_OPT("format", 'f', RS_CLI_CHOICE, OPT(json), "FORMAT",
                "output format: table (default) or json"),
     .choices = format_names},
    {RS_CLI_OPT("exact", 0, RS_CLI_FLAG, OPT(summary.stats.exact), NULL,
                "exact quantiles (keeps every value, at most 1 GiB; the test oracle)")},
    {RS_CLI_OPT(
         "input-format", 'i', RS_CLI_CHOICE, OPT(summary.format), "FORMAT",
         "format of sample files given directly: auto (default), native, nvidia-smi, "
         "prometheus-json, prometheus-text, cloudwatch-json, requests, csv (with --mapping), "
         "nvidia-smi-dmon"),
     .choices = rs_sample_format_names},
    {RS_CLI_OPT("mapping", 0, RS_CLI_PATH, OPT(summary.mapping), "FILE",
                "mapping for sample files given directly: exported series (docs/sources.md), "
                "any CSV's columns (docs/samples-format.md)")},
    {RS_CLI_OPT("select", 0, RS_CLI_CUSTOM, OPT(summary.select), "KEY=VALUE",
                "keep only the CSV rows (mapped label columns) or exported series (labels) "
                "where KEY is VALUE; repeat to require several"),
     .expect = "KEY=VALUE (at most 16, keys under 64 bytes)", .parse = rs_cli_parse_select},
    {RS_CLI_OPT("allow-unordered", 0, RS_CLI_FLAG, OPT(summary.stats.allow_unordered), NULL,
                "count rows whose time goes backwards instead of failing")},
    {RS_CLI_OPT("request-interval", 0, RS_CLI_DURATION, OPT(summary.request_interval_s), "DURATION",
                "interval over which a request log becomes rates and percentiles (default 1m)"),
     .lo = 1, .expect = "a duration of at least 1s such as 10s or 5m"},
    {RS_CLI_OPT("threads", 'j', RS_CLI_COUNT, OPT(summary.threads), "N",
                "threads reading one native CSV (default: the number of CPUs, at most 16; the "
                "output is the same for any number)"),
     .lo = 1, .hi = 256},
    {RS_CLI_OPT("window", 0, RS_CLI_DURATION, OPT(summary.stats.window_s), "DURATION",
                "width of the per-window memory peaks (default 1h)"),
     .lo = 1, .expect = "a duration of at least 1s such as 15m or 1h"},
    {0}};

static int run_profile(const rs_cli_args *args) {
  const profile_opts *po = args->opts;
  rs_arena arena;
  rs_summary *sum = NULL;
  rs_error err;
  rs_buf out;
  rs_status st;
  rs_progress progress;
  rs_summary_options so = po->summary;
  int rc;
  rs_error_clear(&err);
  rs_cli_progress_init(&progress, &args->common);
  so.progress = &progress;
  so.threads = rs_pipeline_threads(so.threads);
  so.stats.no_series = true; /* neither format draws the time series */
  rs_arena_init(&arena, 0);
  rs_buf_init(&out, 0);
  st = rs_pipeline_summarize(&sum, &arena, args->args, args->nargs, &so, &err);
  if (st == RS_OK)
    st = po->json ? rs_report_summary_json(&out, sum) : rs_report_summary_table(&out, sum);
  if (st != RS_OK) /* a no-op unless the report writer failed */
    rs_error_set(&err, st, NULL, 0, 0, "%s while writing the report", rs_status_message(st));
  rc = rs_cli_finish(args, false, st, &err, &out, NULL);
  rs_buf_release(&out);
  rs_arena_release(&arena);
  return rc;
}

const rs_cli_command rs_cmd_profile = {
    .name = "profile",
    .summary = "summarize an endpoint's samples: coverage, statistics, data-quality warnings",
    .usage = "PROFILE | SAMPLES... [options]",
    .description =
        "Reads a profile (YAML or JSON, see docs/profile-format.md) and its sample files, or\n"
        "sample files directly (native CSV or nvidia-smi logs, see docs/samples-format.md;\n"
        "Prometheus or CloudWatch exports, see docs/sources.md), in one streaming pass, and\n"
        "prints coverage, per-metric statistics (count, min, mean, p50/p90/p95/p99, max) for\n"
        "the endpoint and per GPU, request-rate shape, per-window memory peaks and\n"
        "data-quality warnings.",
    .options = profile_options,
    .opts_size = sizeof(profile_opts),
    .args = {1, RS_CLI_MAX_ARGS, "PROFILE or SAMPLES file"},
    .run = run_profile,
    .report = true,
    .examples = "  rightsize profile profiles/resnet50-p3.8xlarge.yaml\n"
                "  rightsize profile -i nvidia-smi gpu.log --window 15m -f json\n"
                "  rightsize profile --mapping trace.yaml --select pod=bert-0 gpu.csv.gz\n",
};
