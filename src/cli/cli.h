/* The command table and the option parser shared by every subcommand. One
 * option table drives both parsing and --help. */
#ifndef RS_CLI_H
#define RS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rightsize/arena.h"
#include "rightsize/buf.h"
#include "rightsize/catalog.h"
#include "rightsize/error.h"
#include "rightsize/fit.h"
#include "rightsize/pipeline.h"
#include "rightsize/pricing.h"

typedef struct rs_cli_option {
  const char *name; /* long name without "--" */
  char short_name;  /* 0 when none */
  const char *arg;  /* argument placeholder ("FORMAT"), NULL for a flag */
  const char *help;
  int id;
} rs_cli_option;

typedef struct rs_cli_parsed {
  int id;
  const char *value; /* NULL for flags */
} rs_cli_parsed;

#define RS_CLI_MAX_PARSED 64
#define RS_CLI_MAX_ARGS 4096

typedef struct rs_cli_args {
  rs_cli_parsed opts[RS_CLI_MAX_PARSED];
  size_t nopts;
  const char *args[RS_CLI_MAX_ARGS]; /* positional arguments */
  size_t nargs;
  bool help;
} rs_cli_args;

typedef struct rs_cli_command {
  const char *name;
  const char *summary;          /* one line for the command list */
  const char *usage;            /* "PROFILE|SAMPLES... [options]" */
  const char *description;      /* a paragraph for --help */
  const rs_cli_option *options; /* terminated by an entry with name NULL */
  int (*run)(const rs_cli_args *args);
  const char *exit_codes; /* for --help; NULL: 0, 2, 3 and 5 */
} rs_cli_command;

extern const rs_cli_command rs_cmd_profile;
extern const rs_cli_command rs_cmd_recommend;
extern const rs_cli_command rs_cmd_check;
extern const rs_cli_command rs_cmd_audit;
extern const rs_cli_command rs_cmd_catalog;
extern const rs_cli_command rs_cmd_help;
extern const rs_cli_command rs_cmd_fetch;

/* The table of all commands (NULL-terminated), for help. */
extern const rs_cli_command *const rs_cli_commands[];

const rs_cli_command *rs_cli_find(const char *name);

/* Parses argv[0..argc) against cmd's options. --help/-h sets args->help.
 * Returns RS_OK or RS_USAGE with err->msg set. */
rs_status rs_cli_parse(rs_cli_args *args, const rs_cli_command *cmd, int argc, char **argv,
                       rs_error *err);

/* Prints the command's --help to stdout. */
void rs_cli_print_help(const rs_cli_command *cmd);
/* Prints the program's --help to stdout. */
void rs_cli_print_usage(FILE *to);

/* Reports err on stderr as "rightsize: ..." and returns its exit code. */
int rs_cli_fail(const rs_error *err);
/* A usage error: one line "rightsize: MSG (see 'rightsize CMD --help')", exit code 2. */
int rs_cli_usage_error(const char *cmd, const char *msg);

/* The end of every command: on failure (st != RS_OK) the one-line error
 * (a usage error with the command's help pointer, else err's exit code);
 * on success the report on stdout, then, when finding is not NULL, its one
 * line on stderr and its exit code (no fit, a failed policy, profiles that
 * could not be audited). */
int rs_cli_finish(const char *cmd, rs_status st, const rs_error *err, const rs_buf *out,
                  const rs_error *finding);

/* Writes data to stdout in one go; returns 0, or 5 when stdout failed. */
int rs_cli_write_stdout(const char *data, size_t len);

/* ---- options shared by the fitting commands (cli_fit.c) ---- */

enum {
  RS_CLI_OPT_PROVIDER = 100,
  RS_CLI_OPT_REGION,
  RS_CLI_OPT_ALLOW,
  RS_CLI_OPT_PRICING,
  RS_CLI_OPT_OVERLAY,
  RS_CLI_OPT_CATALOG,
  RS_CLI_OPT_HEADROOM,
  RS_CLI_OPT_MAX_UTIL,
  RS_CLI_OPT_SLO_P99,
  RS_CLI_OPT_SLO_P95,
  RS_CLI_OPT_PEAK,
  RS_CLI_OPT_MAX_REPLICAS,
  RS_CLI_OPT_AS_OF
};

/* The entries of an option table for them, to put in a command's table. */
#define RS_CLI_FIT_OPTIONS                                                                         \
  {"provider", 'p', "LIST", "aws, gcp, azure, a comma list, or all (default: the current one)",    \
   RS_CLI_OPT_PROVIDER},                                                                           \
      {"region", 'r', "REGION", "only shapes priced in this region (default: any)",                \
       RS_CLI_OPT_REGION},                                                                         \
      {"allow", 'a', "FAMILIES",                                                                   \
       "accelerator families to consider, overriding the profile: a comma list of nvidia-gpu, "    \
       "cpu, inferentia, trainium, tpu",                                                           \
       RS_CLI_OPT_ALLOW},                                                                          \
      {"pricing", 0, "BASIS", "on-demand (default), spot or reserved (docs/pricing.md)",           \
       RS_CLI_OPT_PRICING},                                                                        \
      {"price-overlay", 0, "FILE", "discounts and prices on top of the catalog",                   \
       RS_CLI_OPT_OVERLAY},                                                                        \
      {"catalog", 'c', "FILE|DIR", "catalog to use instead of the built-in one",                   \
       RS_CLI_OPT_CATALOG},                                                                        \
      {"headroom", 0, "PCT", "memory headroom over the need (default 20)", RS_CLI_OPT_HEADROOM},   \
      {"max-util", 0, "PCT", "utilization ceiling for devices, host CPU, network (default 80)",    \
       RS_CLI_OPT_MAX_UTIL},                                                                       \
      {"slo-p99", 0, "DURATION", "p99 latency target, overriding the profile's SLO (50ms)",        \
       RS_CLI_OPT_SLO_P99},                                                                        \
      {"slo-p95", 0, "DURATION", "p95 latency target, overriding the profile's SLO",               \
       RS_CLI_OPT_SLO_P95},                                                                        \
      {"peak", 0, "PEAK",                                                                          \
       "design peak: p95, p99 (default), max of the request rate, or a rate in req/s; "            \
       "overrides traffic.peak_rps",                                                               \
       RS_CLI_OPT_PEAK},                                                                           \
      {"as-of", 0, "DATE",                                                                         \
       "judge the price age on this YYYY-MM-DD (default: the release date; never the clock)",      \
       RS_CLI_OPT_AS_OF},                                                                          \
  {                                                                                                \
    "max-replicas", 0, "N", "largest replica count to consider per shape (default 64)",            \
        RS_CLI_OPT_MAX_REPLICAS                                                                    \
  }

#define RS_CLI_MAX_PROVIDERS 8

typedef struct rs_cli_fit_opts {
  const char *cmd; /* for usage errors */
  rs_fit_options fit;
  const char *providers[RS_CLI_MAX_PROVIDERS];
  char provider_buf[64];
  rs_price_basis basis;
  const char *overlay, *catalog;
} rs_cli_fit_opts;

void rs_cli_fit_init(rs_cli_fit_opts *o, const char *cmd);
/* Applies p when it is one of the shared options: 0, or a usage error's
 * exit code; -1 when p is another option. */
int rs_cli_fit_option(rs_cli_fit_opts *o, const rs_cli_parsed *p);
/* The pipeline's options (the catalog, its prices, the fit's knobs) as given. */
void rs_cli_fit_pipeline(rs_pipeline_options *out, const rs_cli_fit_opts *o);
/* "bad --OPT 'V', expected EXPECTED" as a usage error of the last command
 * given to rs_cli_fit_option; a whole number in [lo, hi]. */
int rs_cli_bad_value(const char *opt, const char *v, const char *expected);
int rs_cli_read_count(unsigned *out, const char *opt, const char *v, int64_t lo, int64_t hi);

#endif
