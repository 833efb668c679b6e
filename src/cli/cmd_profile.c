/* rightsize profile: summarize an endpoint's samples. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rightsize/arena.h"
#include "rightsize/buf.h"
#include "rightsize/ingest.h"
#include "rightsize/num.h"
#include "rightsize/pipeline.h"
#include "rightsize/profile.h"
#include "rightsize/report_summary.h"
#include "rightsize/summary.h"

enum { OPT_FORMAT = 1, OPT_EXACT, OPT_UNORDERED, OPT_INPUT_FORMAT, OPT_WINDOW, OPT_MAPPING };

static const rs_cli_option profile_options[] = {
    {"format", 'f', "FORMAT", "output format: table (default) or json", OPT_FORMAT},
    {"exact", 0, NULL, "exact quantiles (keeps and sorts every value; the test oracle)", OPT_EXACT},
    {"input-format", 'i', "FORMAT",
     "format of sample files given directly: auto (default), native, nvidia-smi, "
     "prometheus-json, prometheus-text, cloudwatch-json",
     OPT_INPUT_FORMAT},
    {"mapping", 0, "FILE",
     "series mapping for exported sample files given directly (docs/sources.md)", OPT_MAPPING},
    {"allow-unordered", 0, NULL, "count rows whose time goes backwards instead of failing",
     OPT_UNORDERED},
    {"window", 0, "DURATION", "width of the per-window memory peaks (default 1h)", OPT_WINDOW},
    {NULL, 0, NULL, NULL, 0}};

typedef struct profile_opts {
  bool json;
  rs_summary_options summary;
} profile_opts;

static int read_options(profile_opts *po, const rs_cli_args *args) {
  char msg[256];
  memset(po, 0, sizeof(*po));
  for (size_t i = 0; i < args->nopts; i++) {
    const char *v = args->opts[i].value;
    switch (args->opts[i].id) {
    case OPT_FORMAT:
      if (strcmp(v, "table") != 0 && strcmp(v, "json") != 0) {
        snprintf(msg, sizeof(msg), "unknown format '%s', expected table or json", v);
        return rs_cli_usage_error("profile", msg);
      }
      po->json = strcmp(v, "json") == 0;
      break;
    case OPT_EXACT: po->summary.stats.exact = true; break;
    case OPT_UNORDERED: po->summary.stats.allow_unordered = true; break;
    case OPT_MAPPING: po->summary.mapping = v; break;
    case OPT_INPUT_FORMAT:
      if (rs_format_from_name(&po->summary.format, v) != RS_OK) {
        snprintf(msg, sizeof(msg), "unknown input format '%s', expected " RS_FORMAT_NAMES, v);
        return rs_cli_usage_error("profile", msg);
      }
      break;
    case OPT_WINDOW:
      if (rs_units_parse(RS_UNIT_SECONDS, v, strlen(v), NULL, &po->summary.stats.window_s) !=
              RS_OK ||
          po->summary.stats.window_s < 1.0) {
        snprintf(msg, sizeof(msg),
                 "bad --window '%s', expected a duration of at least 1s "
                 "such as 15m or 1h",
                 v);
        return rs_cli_usage_error("profile", msg);
      }
      break;
    default: break;
    }
  }
  return 0;
}

static int run_profile(const rs_cli_args *args) {
  profile_opts po;
  rs_arena arena;
  rs_summary *sum = NULL;
  rs_error err;
  rs_buf out;
  rs_status st;
  int rc = read_options(&po, args);
  if (rc != 0)
    return rc;
  if (args->nargs == 0)
    return rs_cli_usage_error("profile", "profile needs a PROFILE or SAMPLES file");

  rs_error_clear(&err);
  rs_arena_init(&arena, 0);
  rs_buf_init(&out, 0);
  st = rs_pipeline_summarize(&sum, &arena, args->args, args->nargs, &po.summary, &err);
  if (st == RS_OK)
    st = po.json ? rs_report_summary_json(&out, sum) : rs_report_summary_table(&out, sum);
  if (st != RS_OK) /* a no-op unless the report writer failed */
    rs_error_set(&err, st, NULL, 0, 0, "%s while writing the report", rs_status_message(st));
  rc = rs_cli_finish("profile", st, &err, &out, NULL);
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
    .run = run_profile,
};
