/* The command table and the option parser shared by every subcommand. One
 * option table drives both parsing and --help. */
#ifndef RS_CLI_H
#define RS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rightsize/arena.h"
#include "rightsize/catalog.h"
#include "rightsize/error.h"
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
} rs_cli_command;

extern const rs_cli_command rs_cmd_profile;
extern const rs_cli_command rs_cmd_recommend;
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

/* Writes data to stdout in one go; returns 0, or 5 when stdout failed. */
int rs_cli_write_stdout(const char *data, size_t len);

/* Loads --catalog (or the built-in catalog) and prices it under basis with
 * the overlay file, if any (cli_catalog.c). */
rs_status rs_cli_open_catalog(rs_catalog **cat, const rs_overlay **overlay, rs_arena *arena,
                              const char *catalog_path, rs_price_basis basis,
                              const char *overlay_path, rs_error *err);

#endif
