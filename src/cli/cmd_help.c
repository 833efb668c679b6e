#include <stdio.h>

#include "cli.h"

static int run_help(const rs_cli_args *args) {
  const rs_cli_command *cmd;
  char msg[256];
  if (args->nargs == 0) {
    rs_cli_print_usage(stdout);
    return 0;
  }
  cmd = rs_cli_find(args->args[0]);
  if (cmd == NULL) {
    snprintf(msg, sizeof(msg), "unknown command '%s'", args->args[0]);
    return rs_cli_usage_error(NULL, msg);
  }
  rs_cli_print_help(cmd);
  return 0;
}

static const rs_cli_opt help_options[] = {{0}};

const rs_cli_command rs_cmd_help = {
    .name = "help",
    .summary = "explain a command",
    .usage = "[COMMAND]",
    .description = "Prints the list of commands, or the options of one command.",
    .options = help_options,
    .args = {0, 1, "COMMAND"},
    .run = run_help,
    .examples = "  rightsize help\n"
                "  rightsize help recommend\n",
};
