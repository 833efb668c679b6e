/* rightsize: the command table and dispatch. Each command lives in its own
 * cmd_<verb>.c and exports one rs_cli_command. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rightsize/catalog.h"
#include "rightsize/arena.h"
#include "rightsize/version.h"

const rs_cli_command *const rs_cli_commands[] = {&rs_cmd_profile,
                                                 &rs_cmd_recommend,
                                                 &rs_cmd_check,
                                                 &rs_cmd_audit,
                                                 &rs_cmd_catalog,
                                                 &rs_cmd_diff,
                                                 &rs_cmd_fetch,
                                                 &rs_cmd_record,
                                                 &rs_cmd_plan,
                                                 &rs_cmd_config,
                                                 &rs_cmd_help,
                                                 &rs_cmd_completion,
                                                 NULL};

/* argv with the config file's words for cmd before it, in the arena; argv
 * itself without a file, for a command that does not report, or with
 * --no-config. */
static rs_status with_config(char ***out, int *argc, const rs_cli_command *cmd, char **argv,
                             rs_arena *arena, rs_error *err) {
  rs_cli_config c;
  rs_cli_config_word *words;
  size_t n;
  *out = argv;
  if (!cmd->report || rs_cli_no_config(*argc, argv))
    return RS_OK;
  rs_status st = rs_cli_config_load(&c, arena, err);
  if (st == RS_OK)
    st = rs_cli_config_words(&words, &n, &c, cmd, arena, err);
  if (st != RS_OK || n == 0)
    return st;
  char **all = rs_arena_alloc_array(arena, n + (size_t)*argc + 1, sizeof(char *));
  if (all == NULL || n > RS_CLI_MAX_ARGS)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory");
  for (size_t i = 0; i < n; i++)
    all[i] = (char *)words[i].word;
  memcpy(all + n, argv, ((size_t)*argc + 1) * sizeof(char *));
  *out = all;
  *argc += (int)n;
  return RS_OK;
}

/* Parses the command's options into its options struct (its defaults
 * first, then .rightsize.yaml's, then the command line's), then runs it,
 * or prints its help. */
static int run_command(const rs_cli_command *cmd, int argc, char **argv) {
  rs_cli_args args;
  rs_error err;
  rs_arena arena;
  int rc;
  rs_error_clear(&err);
  memset(&args.common, 0, sizeof(args.common));
  args.cmd = cmd;
  args.opts = calloc(1, cmd->opts_size ? cmd->opts_size : 1);
  if (args.opts == NULL) {
    rs_error_set(&err, RS_NOMEM, NULL, 0, 0, "out of memory");
    return rs_cli_fail(&err);
  }
  rs_arena_init(&arena, 0);
  if (cmd->init)
    cmd->init(args.opts);
  if (with_config(&argv, &argc, cmd, argv, &arena, &err) != RS_OK)
    rc = err.status == RS_USAGE && err.path[0] == '\0' ? rs_cli_usage_error(cmd->name, err.msg)
                                                       : rs_cli_fail(&err);
  else if (rs_cli_parse(&args, cmd, argc, argv, &err) != RS_OK)
    rc = rs_cli_usage_error(cmd->name, err.msg);
  else if (args.help) {
    rs_cli_print_help(cmd);
    rc = 0;
  } else {
    rc = cmd->run(&args);
  }
  rs_arena_release(&arena);
  free(args.opts);
  return rc;
}

/* The version names the compiled-in catalog: its version and SHA-256. */
static int print_version(void) {
  rs_arena arena;
  rs_catalog *cat;
  rs_error err;
  int rc = 0;
  rs_error_clear(&err);
  rs_arena_init(&arena, 0);
  if (rs_catalog_default(&cat, &arena, &err) == RS_OK)
    printf("rightsize %s\ncatalog %s (prices as of %s) sha256 %s\n", rs_version(), cat->version,
           cat->prices_as_of, cat->sha256);
  else
    rc = rs_cli_fail(&err);
  rs_arena_release(&arena);
  return rc;
}

/* A standard stream started closed (`>&-`) is held by /dev/null opened the
 * wrong way round: a file opened later cannot land on it (a report written
 * into a profile, an error into a samples file), and writing the report
 * still fails, so it ends as "cannot write the report". */
static void hold_closed_streams(void) {
  for (int fd = 0; fd <= 2; fd++) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
      continue;
    int got = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
    if (got >= 0 && got != fd)
      close(got); /* a lower one was free after all: leave this one closed */
  }
}

/* Output that did not go through rs_cli_write_stdout (help, the version,
 * fetch's summary line) is checked once at the end. */
static int check_stdout(int rc) {
  errno = 0;
  if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout)))
    return rs_cli_output_failed(errno);
  return rc;
}

static int dispatch(int argc, char **argv) {
  const rs_cli_command *cmd;
  char msg[256];
  if (argc < 2) {
    rs_cli_print_usage(stderr);
    return rs_status_exit_code(RS_USAGE);
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    rs_cli_print_usage(stdout);
    return 0;
  }
  if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
    return print_version();
  }
  cmd = rs_cli_find(argv[1]);
  if (cmd == NULL) {
    snprintf(msg, sizeof(msg), "unknown command '%s'", argv[1]);
    return rs_cli_usage_error(NULL, msg);
  }
  return run_command(cmd, argc - 2, argv + 2);
}

int main(int argc, char **argv) {
  /* A closed pipe is an EPIPE write error, handled where the report is
   * written, rather than a silent death by SIGPIPE (exit 141). */
  signal(SIGPIPE, SIG_IGN);
  hold_closed_streams();
  return check_stdout(dispatch(argc, argv));
}
