/* rightsize config: the settings .rightsize.yaml gives each command, and
 * where each came from. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct config_opts {
  int unused;
} config_opts;

static void print_command(const rs_cli_command *cmd, const rs_cli_config_word *w, size_t n,
                          const char *file) {
  for (size_t i = 0; i < n; i++)
    printf("%-10s %-40s %s:%zu (%s)\n", cmd->name, w[i].word, file, w[i].line, w[i].section);
}

static int run_config(const rs_cli_args *args) {
  rs_arena arena;
  rs_cli_config c;
  rs_error err;
  int rc = 0;
  rs_error_clear(&err);
  rs_arena_init(&arena, 0);
  const rs_cli_command *only = args->nargs ? rs_cli_find(args->args[0]) : NULL;
  if (args->nargs && (only == NULL || !only->report)) {
    rs_arena_release(&arena);
    return rs_cli_usage_error("config", "config takes a command that reports: profile, "
                                        "recommend, check, audit or catalog");
  }
  if (rs_cli_config_load(&c, &arena, &err) != RS_OK) {
    rs_arena_release(&arena);
    return rs_cli_fail(&err);
  }
  if (!c.found)
    printf("file       none (no .rightsize.yaml from the working directory upward): built-in "
           "defaults\n");
  else
    printf("file       %s\n", c.doc.path);
  for (size_t i = 0; c.found && rc == 0 && rs_cli_commands[i]; i++) {
    const rs_cli_command *cmd = rs_cli_commands[i];
    rs_cli_config_word *w;
    size_t n;
    if (!cmd->report || (only && only != cmd))
      continue;
    if (rs_cli_config_words(&w, &n, &c, cmd, &arena, &err) != RS_OK)
      rc = rs_cli_fail(&err);
    else
      print_command(cmd, w, n, c.doc.path);
  }
  if (rc == 0)
    printf("every other option: its built-in default; a flag on the command line wins over the "
           "file, --no-config ignores it\n");
  rs_arena_release(&arena);
  return rc ? rc : (fflush(stdout) == 0 ? 0 : 5);
}

static const rs_cli_opt config_options[] = {{0}};

const rs_cli_command rs_cmd_config = {
    .name = "config",
    .summary = "show the settings .rightsize.yaml gives each command, and where from",
    .usage = "[COMMAND]",
    .description =
        "Finds .rightsize.yaml from the working directory upward and prints, for each command\n"
        "that reports (or the one named), the option words the file gives it, with the line\n"
        "and section ('defaults' or the command's own) each came from. The file's format is\n"
        "in docs/cli.md \"Config file\".",
    .options = config_options,
    .opts_size = sizeof(config_opts),
    .args = {0, 1, "COMMAND"},
    .run = run_config,
    .examples = "  rightsize config\n"
                "  rightsize config recommend\n",
};
