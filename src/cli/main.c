/* rightsize: the command table and dispatch. Each command lives in its own
 * cmd_<verb>.c and exports one rs_cli_command. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rightsize/version.h"

const rs_cli_command *const rs_cli_commands[] = {&rs_cmd_profile, &rs_cmd_help, NULL};

static int run_command(const rs_cli_command *cmd, int argc, char **argv) {
  rs_cli_args args;
  rs_error err;
  rs_error_clear(&err);
  if (rs_cli_parse(&args, cmd, argc, argv, &err) != RS_OK)
    return rs_cli_usage_error(cmd->name, err.msg);
  if (args.help) {
    rs_cli_print_help(cmd);
    return 0;
  }
  return cmd->run(&args);
}

int main(int argc, char **argv) {
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
    printf("rightsize %s\n", rs_version());
    return 0;
  }
  cmd = rs_cli_find(argv[1]);
  if (cmd == NULL) {
    snprintf(msg, sizeof(msg), "unknown command '%s'", argv[1]);
    return rs_cli_usage_error(NULL, msg);
  }
  return run_command(cmd, argc - 2, argv + 2);
}
