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
#include "rightsize/doc.h"
#include "rightsize/error.h"
#include "rightsize/fit.h"
#include "rightsize/pipeline.h"
#include "rightsize/pricing.h"
#include "rightsize/progress.h"

/* What an option's value is. The kind decides how the value is parsed and
 * checked, what a bad value's error says, and what type the field it is
 * stored in has. */
typedef enum {
  RS_CLI_FLAG,     /* bool: true when given; takes no value */
  RS_CLI_CHOICE,   /* int: lo + the index of the value in choices */
  RS_CLI_COUNT,    /* unsigned: a whole number in [lo, hi] */
  RS_CLI_PERCENT,  /* double: the percentage as written ("20" or "20%") in [lo, hi] */
  RS_CLI_NUMBER,   /* double: a number in [lo, hi] */
  RS_CLI_DURATION, /* double: seconds, > 0 and >= lo ("50ms", "5m") */
  RS_CLI_SIZE,     /* double: bytes in [lo, hi] ("16GiB"; a bare number in unit) */
  RS_CLI_PATH,     /* const char *: a file or directory */
  RS_CLI_STRING,   /* const char * */
  RS_CLI_LIST,     /* unsigned: bit i set for choices[i] in a comma list; all: every bit */
  RS_CLI_CUSTOM    /* parse(field, value) */
} rs_cli_kind;

/* One option of a command, declared once: parsing, validation, the error
 * for a bad value, --help and the man page check all come from it. */
typedef struct rs_cli_opt {
  const char *name;           /* long name without "--" */
  char short_name;            /* 0 when none */
  rs_cli_kind kind;           /* what the value is */
  size_t offset;              /* of the field in the command's options struct */
  const char *arg;            /* value placeholder for --help ("FORMAT"); NULL for a flag */
  const char *help;           /* one line for --help */
  const char *const *choices; /* CHOICE and LIST: the words, NULL-terminated */
  double lo, hi;              /* bounds; CHOICE: lo is the value of choices[0] */
  bool below_hi;              /* PERCENT: the value must be below hi */
  bool all;                   /* LIST: "all" sets every bit */
  const char *unit;           /* SIZE: the unit of a bare number; NULL: a unit is required */
  const char *expect;         /* the "expected ..." of a bad value; NULL: from the kind */
  bool (*parse)(void *field, const char *value); /* CUSTOM: false for a bad value */
} rs_cli_opt;

/* The first fields of an entry, designated (so tables may add .lo, .hi,
 * .choices, ... after it without -Wmissing-field-initializers). */
#define RS_CLI_OPT(NAME, SHORT, KIND, OFFSET, ARG, HELP)                                           \
  .name = NAME, .short_name = SHORT, .kind = KIND, .offset = OFFSET, .arg = ARG, .help = HELP

/* The field of option o in the options struct at opts. */
#define RS_CLI_FIELD(type, opts, o) ((type *)(void *)((char *)(opts) + (o)->offset))

/* How many positional arguments a command takes, and what they are called
 * in "recommend needs a PROFILE" / "recommend takes one PROFILE". */
typedef struct rs_cli_arity {
  size_t min, max;
  const char *what;
} rs_cli_arity;

#define RS_CLI_MAX_ARGS 4096

/* --color: when verdict and status words are coloured. */
typedef enum { RS_CLI_COLOR_AUTO, RS_CLI_COLOR_ALWAYS, RS_CLI_COLOR_NEVER } rs_cli_color;

/* The options every report command shares (cli_output.c): where the
 * report goes and how it looks there. */
typedef struct rs_cli_common {
  const char *output; /* -o FILE; NULL: stdout */
  bool quiet;         /* no report on stdout */
  bool no_config;     /* --no-config: read by main before parsing (rs_cli_no_config) */
  int color;          /* rs_cli_color, a CHOICE field */
} rs_cli_common;

/* Their entries, parsed into rs_cli_args.common for a command with
 * .report set, after its own. */
extern const rs_cli_opt rs_cli_common_options[];

struct rs_cli_command;

typedef struct rs_cli_args {
  const struct rs_cli_command *cmd;  /* the command being run */
  rs_cli_common common;              /* -o, --quiet, --color (report commands) */
  void *opts;                        /* the command's options struct, filled in */
  const char *args[RS_CLI_MAX_ARGS]; /* positional arguments */
  size_t nargs;
  bool help;
} rs_cli_args;

typedef struct rs_cli_command {
  const char *name;
  const char *summary;       /* one line for the command list */
  const char *usage;         /* "PROFILE|SAMPLES... [options]" */
  const char *description;   /* a paragraph for --help */
  const rs_cli_opt *options; /* terminated by an entry with name NULL */
  size_t opts_size;          /* sizeof the options struct the offsets are in */
  void (*init)(void *opts);  /* the defaults; NULL: all zero */
  rs_cli_arity args;         /* positional arguments */
  /* Runs with args->opts parsed and args->nargs within bounds; returns the
   * exit code. */
  int (*run)(const rs_cli_args *args);
  const char *exit_codes; /* for --help; NULL: 0, 2, 3 and 5 */
  const char *examples;   /* for --help, one command a line; NULL: none */
  bool report;            /* takes rs_cli_common_options (-o, --quiet, --color) */
  bool hidden;            /* left out of the command list (completion) */
} rs_cli_command;

extern const rs_cli_command rs_cmd_profile;
extern const rs_cli_command rs_cmd_recommend;
extern const rs_cli_command rs_cmd_check;
extern const rs_cli_command rs_cmd_audit;
extern const rs_cli_command rs_cmd_catalog;
extern const rs_cli_command rs_cmd_help;
extern const rs_cli_command rs_cmd_fetch;
extern const rs_cli_command rs_cmd_record;
extern const rs_cli_command rs_cmd_diff;
extern const rs_cli_command rs_cmd_plan;
extern const rs_cli_command rs_cmd_completion;
extern const rs_cli_command rs_cmd_config;

/* The table of all commands (NULL-terminated), for help. */
extern const rs_cli_command *const rs_cli_commands[];

const rs_cli_command *rs_cli_find(const char *name);

/* Parses argv[0..argc) against cmd's options into args->opts (which the
 * caller has set to an options struct of cmd->opts_size bytes, with its
 * defaults), then checks the positional arguments against cmd->args unless
 * --help/-h was given (args->help). RS_OK, or RS_USAGE with err->msg set:
 * an unknown option, a missing value, a bad value ("bad --top 'x',
 * expected a whole number from 0 to 100000"), too few or too many
 * arguments. */
rs_status rs_cli_parse(rs_cli_args *args, const rs_cli_command *cmd, int argc, char **argv,
                       rs_error *err);

/* What a bad value of o is expected to be, as in its error message: o->expect,
 * or made from the kind, bounds and choices ("a whole number from 0 to 100",
 * "table, json or csv"). */
const char *rs_cli_expected(const rs_cli_opt *o, char *buf, size_t size);

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
 * on success the report to --output's file (atomically), else on stdout
 * unless --quiet (coloured when text and rs_cli_color_wanted), then, when finding is not NULL, its
 * one line on stderr and its exit code (no fit, a failed policy, profiles that could not be
 * audited). */
int rs_cli_finish(const rs_cli_args *args, bool text, rs_status st, const rs_error *err,
                  const rs_buf *out, const rs_error *finding);

/* Whether to colour output to fd: --color always, never, or auto (fd is a
 * terminal and NO_COLOR is unset or empty; https://no-color.org). */
bool rs_cli_color_wanted(const rs_cli_common *c, int fd);

/* The progress line on stderr (rightsize/progress.h) into p: on only when
 * stderr is a terminal, not --quiet, TERM is not "dumb" and no CI variable
 * (CI, GITHUB_ACTIONS, GITLAB_CI, BUILDKITE, JENKINS_URL, TF_BUILD,
 * TEAMCITY_VERSION) is set; otherwise off (docs/cli.md). It starts after
 * 1 s, or RIGHTSIZE_PROGRESS_DELAY seconds (for tests). */
void rs_cli_progress_init(rs_progress *p, const rs_cli_common *c);

/* text into out with ANSI colour on verdict codes and PASS/FAIL words. */
void rs_cli_colorize(rs_buf *out, const rs_buf *text);

/* Writes data to stdout in one go; returns 0, or 5 (with the one line from
 * rs_cli_output_failed) when stdout failed. */
int rs_cli_write_stdout(const char *data, size_t len);

/* Standard output failed with errnum: a closed pipe (EPIPE, the reader has
 * stopped) returns 0 quietly; anything else prints "rightsize: cannot write
 * the report: REASON" and returns 5 (docs/exit-codes.md). */
int rs_cli_output_failed(int errnum);

/* ---- options shared by several commands (cli_fit.c) ---- */

/* The catalog and how it is priced: --catalog, --pricing, --price-overlay. */
typedef struct rs_cli_catalog_opts {
  const char *path;     /* NULL: the built-in catalog */
  rs_price_basis basis; /* a CHOICE field: int-sized */
  const char *overlay;  /* NULL: none */
} rs_cli_catalog_opts;

/* The entries for them, for a command whose options struct T holds an
 * rs_cli_catalog_opts at member M. */
/* clang-format off */
#define RS_CLI_CATALOG_OPTIONS(T, M)                                                               \
  {RS_CLI_OPT("pricing", 0, RS_CLI_CHOICE, offsetof(T, M.basis), "BASIS",                          \
              "on-demand (default), spot or reserved (docs/pricing.md)"),                          \
   .choices = rs_price_basis_names},                                                               \
  {RS_CLI_OPT("price-overlay", 0, RS_CLI_PATH, offsetof(T, M.overlay), "FILE",                     \
              "discounts and prices on top of the catalog")},                                      \
  {RS_CLI_OPT("catalog", 'c', RS_CLI_PATH, offsetof(T, M.path), "FILE|DIR",                        \
              "catalog to use instead of the built-in one")}
/* clang-format on */

/* Which shapes: --provider (a set of RS_PROVIDER_* bits, 0 when not given,
 * every bit for "all") and --region. */
typedef struct rs_cli_scope_opts {
  unsigned providers;
  const char *region;
} rs_cli_scope_opts;

/* clang-format off */
#define RS_CLI_SCOPE_OPTIONS(T, M)                                                                 \
  {RS_CLI_OPT("provider", 'p', RS_CLI_LIST, offsetof(T, M.providers), "LIST",                      \
              "aws, gcp, azure, a comma list, or all (default: the profile's current one; "        \
              "catalog: all)"),                                                                    \
   .choices = rs_provider_names, .all = true},                                                     \
  {RS_CLI_OPT("region", 'r', RS_CLI_STRING, offsetof(T, M.region), "REGION",                       \
              "only shapes priced in this region (default: any)")}
/* clang-format on */

#define RS_CLI_MAX_PROVIDERS RS_PROVIDER_COUNT

/* The options of the fitting commands (recommend, check, audit). */
typedef struct rs_cli_fit_opts {
  rs_cli_scope_opts scope;
  rs_cli_catalog_opts catalog;
  unsigned families;           /* --allow: RS_FAMILY_* bits; 0: the profile's */
  double headroom_pct;         /* NaN: the default */
  double max_util_pct;         /* NaN: the default */
  double slo_p99_s, slo_p95_s; /* NaN: the profile's */
  rs_fit_options fit;          /* filled by rs_cli_fit_finish (--peak goes here directly) */
  const char *providers[RS_CLI_MAX_PROVIDERS];
} rs_cli_fit_opts;

/* The --peak parser (fills fit.peak, fit.peak_rps, fit.peak_set). */
/* --select KEY=VALUE into an rs_selection (RS_CLI_CUSTOM). */
bool rs_cli_parse_select(void *field, const char *value);

bool rs_cli_parse_peak(void *fit_options, const char *value);
/* The --as-of parser (a YYYY-MM-DD date into fit.as_of). */
bool rs_cli_parse_as_of(void *fit_options, const char *value);

/* clang-format off */
#define RS_CLI_FIT_OPTIONS(T, M)                                                                   \
  RS_CLI_SCOPE_OPTIONS(T, M.scope),                                                                \
  {RS_CLI_OPT("allow", 'a', RS_CLI_LIST, offsetof(T, M.families), "FAMILIES",                      \
              "accelerator families to consider, overriding the profile: a comma list of "         \
              "nvidia-gpu, cpu, inferentia, trainium, tpu"),                                       \
   .choices = rs_family_names},                                                                    \
  RS_CLI_CATALOG_OPTIONS(T, M.catalog),                                                            \
  {RS_CLI_OPT("headroom", 0, RS_CLI_PERCENT, offsetof(T, M.headroom_pct), "PCT",                   \
              "memory headroom over the need (default 20)"),                                       \
   .lo = 0, .hi = 400},                                                                            \
  {RS_CLI_OPT("max-util", 0, RS_CLI_PERCENT, offsetof(T, M.max_util_pct), "PCT",                   \
              "utilization ceiling for devices, host CPU, network (default 80)"),                  \
   .lo = 1, .hi = 100},                                                                            \
  {RS_CLI_OPT("slo-p99", 0, RS_CLI_DURATION, offsetof(T, M.slo_p99_s), "DURATION",                 \
              "p99 latency target, overriding the profile's SLO (50ms)"),                          \
   .expect = "a positive duration such as 50ms"},                                                  \
  {RS_CLI_OPT("slo-p95", 0, RS_CLI_DURATION, offsetof(T, M.slo_p95_s), "DURATION",                 \
              "p95 latency target, overriding the profile's SLO"),                                 \
   .expect = "a positive duration such as 50ms"},                                                  \
  {RS_CLI_OPT("peak", 0, RS_CLI_CUSTOM, offsetof(T, M.fit), "PEAK",                                \
              "design peak: p95, p99 (default), max of the request rate, or a rate in req/s; "     \
              "overrides traffic.peak_rps"),                                                       \
   .expect = "p95, p99, max or a rate in req/s such as 25", .parse = rs_cli_parse_peak},           \
  {RS_CLI_OPT("as-of", 0, RS_CLI_CUSTOM, offsetof(T, M.fit), "DATE",                               \
              "judge the price age on this YYYY-MM-DD (default: the release date; never the "      \
              "clock)"),                                                                           \
   .expect = "a date such as 2026-12-02", .parse = rs_cli_parse_as_of},                            \
  {RS_CLI_OPT("max-replicas", 0, RS_CLI_COUNT, offsetof(T, M.fit.max_replicas), "N",               \
              "largest replica count to consider per shape (default 64)"),                         \
   .lo = 1, .hi = 100000}
/* clang-format on */

/* The defaults, before parsing. */
void rs_cli_fit_init(rs_cli_fit_opts *o);
/* After parsing: the options into o->fit; RS_OK or RS_USAGE in err (both
 * --slo-p99 and --slo-p95). */
rs_status rs_cli_fit_finish(rs_cli_fit_opts *o, rs_error *err);
/* The pipeline's options (the catalog, its prices, the fit's knobs) as given. */
void rs_cli_fit_pipeline(rs_pipeline_options *out, const rs_cli_fit_opts *o);

/* Loads --catalog (or the built-in catalog) and prices it under basis with
 * the overlay file, if any (cli_catalog.c). */
rs_status rs_cli_open_catalog(rs_catalog **cat, const rs_overlay **overlay, rs_arena *arena,
                              const char *catalog_path, rs_price_basis basis,
                              const char *overlay_path, rs_error *err);

/* ---- .rightsize.yaml (cli_config.c) ---- */

typedef struct rs_cli_config {
  bool found;      /* a file was found and read */
  const char *dir; /* its directory: relative paths in it are relative to this */
  rs_doc doc;      /* the file */
} rs_cli_config;

/* One option word a config file contributes, and where from. */
typedef struct rs_cli_config_word {
  const char *word;    /* "--top=5", "--explain", "--catalog=/repo/catalogs/c.yaml" */
  const char *section; /* "defaults" or the command's name */
  size_t line;
} rs_cli_config_word;

/* Finds the nearest .rightsize.yaml from the working directory upward and
 * reads it into out (out->found false when there is none: RS_OK). Errors:
 * its syntax (RS_SYNTAX), or a root that is not a map (RS_USAGE). */
rs_status rs_cli_config_load(rs_cli_config *out, rs_arena *arena, rs_error *err);

/* The words c gives cmd: its "defaults" section (options cmd lacks are
 * skipped) then its own section (an unknown option is RS_USAGE at its
 * line), to go before the command line's words so that flags win. */
rs_status rs_cli_config_words(rs_cli_config_word **out, size_t *n, const rs_cli_config *c,
                              const rs_cli_command *cmd, rs_arena *arena, rs_error *err);

/* Whether --no-config is among the options (before any "--"). */
bool rs_cli_no_config(int argc, char **argv);

#endif
