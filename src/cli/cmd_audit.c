/* rightsize audit: a fleet of profiles ranked by wasted money, and what
 * sharing instances would save. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rightsize/audit.h"
#include "rightsize/buf.h"
#include "rightsize/pipeline.h"
#include "rightsize/report_audit.h"

enum { OPT_FORMAT = 1, OPT_CONSOLIDATE, OPT_THREADS, OPT_MAX_PER_INSTANCE };

static const rs_cli_option audit_options[] = {
    {"format", 'f', "FORMAT", "table (default), json, markdown or csv", OPT_FORMAT},
    {"consolidate", 0, NULL, "pack endpoints whose models may share hardware onto shared instances",
     OPT_CONSOLIDATE},
    {"max-per-instance", 0, "N",
     "--consolidate: at most N endpoints on one shared instance, to bound what one failure "
     "takes down (default: no limit)",
     OPT_MAX_PER_INSTANCE},
    {"threads", 'j', "N", "profiles fitted at once (default: the number of CPUs, at most 16)",
     OPT_THREADS},
    RS_CLI_FIT_OPTIONS,
    {NULL, 0, NULL, NULL, 0}};

typedef struct audit_opts {
  rs_audit_format format;
  bool consolidate;
  unsigned threads, max_per_instance;
  rs_cli_fit_opts f;
} audit_opts;

static int read_options(audit_opts *o, const rs_cli_args *args) {
  static const char *const formats[] = {"table", "json", "markdown", "csv"};
  memset(o, 0, sizeof(*o));
  rs_cli_fit_init(&o->f, "audit");
  for (size_t i = 0; i < args->nopts; i++) {
    const rs_cli_parsed *p = &args->opts[i];
    int rc = rs_cli_fit_option(&o->f, p);
    if (rc > 0)
      return rc;
    if (rc == 0)
      continue;
    switch (p->id) {
    case OPT_FORMAT:
      rc = -1;
      for (size_t k = 0; k < 4; k++)
        if (strcmp(p->value, formats[k]) == 0) {
          o->format = (rs_audit_format)k;
          rc = 0;
        }
      if (rc)
        return rs_cli_bad_value("format", p->value, "table, json, markdown or csv");
      break;
    case OPT_CONSOLIDATE: o->consolidate = true; break;
    case OPT_MAX_PER_INSTANCE:
      if ((rc = rs_cli_read_count(&o->max_per_instance, "max-per-instance", p->value, 2, 100000)) !=
          0)
        return rc;
      break;
    case OPT_THREADS:
      if ((rc = rs_cli_read_count(&o->threads, "threads", p->value, 1, 256)) != 0)
        return rc;
      break;
    default: break;
    }
  }
  return 0;
}

static rs_status run(rs_buf *out, rs_arena *arena, const rs_cli_args *args, const audit_opts *o,
                     rs_audit **audit, rs_error *err) {
  const char **files;
  size_t nfiles;
  rs_pipeline_options po;
  rs_pipeline p;
  rs_cli_fit_pipeline(&po, &o->f);
  rs_status st = rs_pipeline_open(&p, arena, &po, err);
  if (st == RS_OK)
    st = rs_audit_discover(&files, &nfiles, arena, args->args, args->nargs, err);
  if (st != RS_OK)
    return st;
  rs_audit_options ao = {&p, o->threads, o->max_per_instance};
  st = rs_audit_run(audit, files, nfiles, &ao, err);
  if (st == RS_OK && o->consolidate)
    st = rs_audit_consolidate(*audit, arena, &ao, err);
  if (st == RS_OK)
    st = rs_report_audit(out, *audit, o->format);
  return st;
}

static int run_audit(const rs_cli_args *args) {
  audit_opts o;
  rs_arena arena;
  rs_error err;
  rs_buf out;
  rs_audit *audit = NULL;
  int rc = read_options(&o, args);
  if (rc != 0)
    return rc;
  if (args->nargs == 0)
    return rs_cli_usage_error("audit", "audit needs a DIR or PROFILE");
  rs_error_clear(&err);
  rs_arena_init(&arena, 0);
  rs_buf_init(&out, 0);
  rs_status st = run(&out, &arena, args, &o, &audit, &err);
  bool some_failed = st == RS_OK && audit->nfailed > 0;
  if (st != RS_OK && out.failed)
    rs_error_set(&err, st, NULL, 0, 0, "%s while writing the report", rs_status_message(st));
  if (some_failed)
    rs_error_set(&err, RS_INVALID, NULL, 0, 0,
                 "%zu of %zu profiles could not be audited (listed in the report)", audit->nfailed,
                 audit->nrows);
  rc = rs_cli_finish("audit", st, &err, &out, some_failed ? &err : NULL);
  rs_audit_free(audit);
  rs_buf_release(&out);
  rs_arena_release(&arena);
  return rc;
}

const rs_cli_command rs_cmd_audit = {
    .name = "audit",
    .summary = "rank a fleet of endpoints by monthly savings; --consolidate packs them",
    .usage = "DIR | PROFILE... [--consolidate] [options]",
    .description =
        "Finds every profile (*.yaml, *.yml, *.json) under the directories given, recursively,\n"
        "in byte order of their paths, fits each like recommend (on several threads; the\n"
        "output is the same for any number), and prints the fleet sorted by monthly savings:\n"
        "current shape, cost now, recommended shape, cost after, savings, confidence and\n"
        "warnings, with totals. --consolidate packs the endpoints whose models may share\n"
        "hardware onto shared instances, as behind one model gateway, never breaking an\n"
        "endpoint's SLO or memory headroom, and reports what it saves over sizing each alone\n"
        "(docs/model.md). A profile that fails to load is listed with its error and the rest\n"
        "are still audited; the exit code is then 3.",
    .options = audit_options,
    .run = run_audit,
    .exit_codes =
        "0 ok, 2 usage error, 3 bad input (some profiles could not be audited), 5 internal error",
};
