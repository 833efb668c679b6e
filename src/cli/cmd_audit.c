/* rightsize audit: a fleet of profiles ranked by wasted money, and what
 * sharing instances would save. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rightsize/audit.h"
#include "rightsize/buf.h"
#include "rightsize/ingest.h"
#include "rightsize/pipeline.h"
#include "rightsize/report_audit.h"
#include "rightsize/report_html.h"

static const char *const format_names[] = {"table", "json", "markdown", "csv", "html", NULL};

typedef struct audit_opts {
  rs_audit_format format; /* a CHOICE field: int-sized */
  bool consolidate, wide;
  unsigned threads, max_per_instance;
  const char *mapping;
  rs_selection select;
  rs_cli_fit_opts f;
} audit_opts;
_Static_assert(sizeof(rs_audit_format) == sizeof(int), "a CHOICE field is an int");

#define OPT(m) offsetof(audit_opts, m)
static const rs_cli_opt audit_options[] = {
    {RS_CLI_OPT("format", 'f', RS_CLI_CHOICE, OPT(format), "FORMAT",
                "table (default), json, markdown, csv or html"),
     .choices = format_names},
    {RS_CLI_OPT("wide", 'w', RS_CLI_FLAG, OPT(wide), NULL,
                "table: every column (CONFIDENCE, WARNINGS) and long lines unwrapped")},
    {RS_CLI_OPT("consolidate", 0, RS_CLI_FLAG, OPT(consolidate), NULL,
                "pack endpoints whose models may share hardware onto shared instances")},
    {RS_CLI_OPT(
         "max-per-instance", 0, RS_CLI_COUNT, OPT(max_per_instance), "N",
         "--consolidate: at most N endpoints on one shared instance, to bound what one failure "
         "takes down (default: no limit)"),
     .lo = 2, .hi = 100000},
    {RS_CLI_OPT("threads", 'j', RS_CLI_COUNT, OPT(threads), "N",
                "profiles fitted at once (default: the number of CPUs, at most 16)"),
     .lo = 1, .hi = 256},
    {RS_CLI_OPT("mapping", 0, RS_CLI_PATH, OPT(mapping), "FILE",
                "the arguments are sample files holding many endpoints: the mapping's csv section "
                "names the endpoint column, its profile section every endpoint's facts "
                "(docs/sources.md)")},
    {RS_CLI_OPT(
         "select", 0, RS_CLI_CUSTOM, OPT(select), "KEY=VALUE",
         "--mapping: keep only the rows where column KEY is VALUE; repeat to require several"),
     .expect = "KEY=VALUE (at most 16, keys under 64 bytes)", .parse = rs_cli_parse_select},
    RS_CLI_FIT_OPTIONS(audit_opts, f),
    {0}};

static void init_options(void *opts) {
  audit_opts *o = opts;
  rs_cli_fit_init(&o->f);
}

static rs_status run(rs_buf *out, rs_arena *arena, const rs_cli_args *args, const audit_opts *o,
                     rs_audit **audit, rs_error *err) {
  const char **files;
  size_t nfiles;
  rs_pipeline_options po;
  rs_pipeline p;
  rs_cli_fit_pipeline(&po, &o->f);
  rs_status st = rs_pipeline_open(&p, arena, &po, err);
  const rs_profile **profiles = NULL;
  if (st == RS_OK && o->mapping != NULL)
    st = rs_audit_split(&profiles, &files, &nfiles, arena, o->mapping, &o->select, args->args,
                        args->nargs, err);
  else if (st == RS_OK && o->select.n > 0)
    st = rs_error_set(err, RS_USAGE, NULL, 0, 0, "--select needs --mapping (it picks sample rows)");
  else if (st == RS_OK)
    st = rs_audit_discover(&files, &nfiles, arena, args->args, args->nargs, err);
  if (st != RS_OK)
    return st;
  rs_progress progress;
  rs_cli_progress_init(&progress, &args->common);
  rs_audit_options ao = {.pipeline = &p,
                         .threads = o->threads,
                         .max_per_instance = o->max_per_instance,
                         .profiles = profiles,
                         .progress = progress.fp ? &progress : NULL,
                         .consolidate = o->consolidate};
  rs_progress_begin(&progress, "audit", "endpoints", nfiles);
  st = rs_audit_run(audit, files, nfiles, &ao, err);
  rs_progress_end(&progress);
  if (st == RS_OK && o->consolidate)
    st = rs_audit_consolidate(*audit, arena, &ao, err);
  if (st == RS_OK)
    st = o->format == RS_AUDIT_HTML ? rs_report_audit_html(out, *audit)
                                    : rs_report_audit(out, *audit, o->format, o->wide);
  return st;
}

static int run_audit(const rs_cli_args *args) {
  audit_opts *o = args->opts;
  rs_arena arena;
  rs_error err;
  rs_buf out;
  rs_audit *audit = NULL;
  int rc;
  rs_error_clear(&err);
  if (rs_cli_fit_finish(&o->f, &err) != RS_OK)
    return rs_cli_usage_error("audit", err.msg);
  rs_arena_init(&arena, 0);
  rs_buf_init(&out, 0);
  rs_status st = run(&out, &arena, args, o, &audit, &err);
  bool some_failed = st == RS_OK && audit->nfailed > 0;
  if (st != RS_OK && out.failed)
    rs_error_set(&err, st, NULL, 0, 0, "%s while writing the report", rs_status_message(st));
  if (some_failed)
    rs_error_set(&err, RS_INVALID, NULL, 0, 0,
                 "%zu of %zu profiles could not be audited (listed in the report)", audit->nfailed,
                 audit->nrows);
  rc = rs_cli_finish(args, false, st, &err, &out, some_failed ? &err : NULL);
  rs_audit_free(audit);
  rs_buf_release(&out);
  rs_arena_release(&arena);
  return rc;
}

const rs_cli_command rs_cmd_audit = {
    .name = "audit",
    .summary = "rank a fleet of endpoints by monthly savings; --consolidate packs them",
    .usage = "DIR | PROFILE... | --mapping FILE SAMPLES... [--consolidate] [options]",
    .description =
        "Finds every profile (*.yaml, *.yml, *.json) under the directories given, recursively,\n"
        "in byte order of their paths, fits each like recommend (on several threads; the\n"
        "output is the same for any number), and prints the fleet sorted by monthly savings:\n"
        "current shape, cost now, recommended shape, cost after, savings, confidence and\n"
        "warnings, with totals. --consolidate packs the endpoints whose models may share\n"
        "hardware onto shared instances, as behind one model gateway, never breaking an\n"
        "endpoint's SLO or memory headroom, and reports what it saves over sizing each alone\n"
        "(docs/model.md). A profile that fails to load is listed with its error and the rest\n"
        "are still audited; the exit code is then 3. With --mapping the arguments are sample\n"
        "files (or directories of them) that hold many endpoints, such as a trace with one\n"
        "row per pod and time: the rows are split by the mapping's endpoint column and each\n"
        "endpoint is audited with the facts of the mapping's profile section.",
    .options = audit_options,
    .opts_size = sizeof(audit_opts),
    .init = init_options,
    .args = {1, RS_CLI_MAX_ARGS, "DIR or PROFILE"},
    .run = run_audit,
    .exit_codes =
        "0 ok, 2 usage error, 3 bad input (some profiles could not be audited), 5 internal error",
    .report = true,
    .examples = "  rightsize audit profiles/fleet\n"
                "  rightsize audit profiles/fleet --consolidate --max-per-instance 4 -f markdown\n"
                "  rightsize audit --mapping trace.yaml traces/ -f csv\n",
};
