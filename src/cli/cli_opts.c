#include <stdio.h>
#include <string.h>

#include "cli.h"

const rs_cli_command *rs_cli_find(const char *name) {
  for (size_t i = 0; rs_cli_commands[i]; i++)
    if (strcmp(rs_cli_commands[i]->name, name) == 0)
      return rs_cli_commands[i];
  return NULL;
}

static const rs_cli_option *find_long(const rs_cli_option *opts, const char *name, size_t n) {
  for (; opts && opts->name; opts++)
    if (strlen(opts->name) == n && strncmp(opts->name, name, n) == 0)
      return opts;
  return NULL;
}

static const rs_cli_option *find_short(const rs_cli_option *opts, char c) {
  for (; opts && opts->name; opts++)
    if (opts->short_name == c)
      return opts;
  return NULL;
}

static rs_status push(rs_cli_args *args, const rs_cli_option *o, const char *value, rs_error *err) {
  if (args->nopts >= RS_CLI_MAX_PARSED)
    return rs_error_set(err, RS_USAGE, NULL, 0, 0, "too many options");
  args->opts[args->nopts].id = o->id;
  args->opts[args->nopts].value = value;
  args->nopts++;
  return RS_OK;
}

/* One option at argv[*i]; may consume the next word as its value. */
static rs_status parse_one(rs_cli_args *args, const rs_cli_command *cmd, int argc, char **argv,
                           int *i, rs_error *err) {
  const char *a = argv[*i];
  const rs_cli_option *o;
  const char *value = NULL;
  if (a[1] == '-') {
    const char *eq = strchr(a + 2, '=');
    size_t n = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
    o = find_long(cmd->options, a + 2, n);
    if (o == NULL)
      return rs_error_set(err, RS_USAGE, NULL, 0, 0, "unknown option '--%.*s' for '%s'", (int)n,
                          a + 2, cmd->name);
    if (eq && !o->arg)
      return rs_error_set(err, RS_USAGE, NULL, 0, 0, "option '--%s' takes no value", o->name);
    value = eq ? eq + 1 : NULL;
  } else {
    o = find_short(cmd->options, a[1]);
    if (o == NULL || a[2] != '\0')
      return rs_error_set(err, RS_USAGE, NULL, 0, 0, "unknown option '%s' for '%s'", a, cmd->name);
  }
  if (o->arg && value == NULL) {
    if (*i + 1 >= argc)
      return rs_error_set(err, RS_USAGE, NULL, 0, 0, "option '--%s' needs a value (%s)", o->name,
                          o->arg);
    value = argv[++*i];
  }
  return push(args, o, value, err);
}

rs_status rs_cli_parse(rs_cli_args *args, const rs_cli_command *cmd, int argc, char **argv,
                       rs_error *err) {
  bool only_args = false;
  memset(args, 0, sizeof(*args));
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!only_args && strcmp(a, "--") == 0) {
      only_args = true;
    } else if (!only_args && (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)) {
      args->help = true;
    } else if (!only_args && a[0] == '-' && a[1] != '\0') {
      rs_status st = parse_one(args, cmd, argc, argv, &i, err);
      if (st != RS_OK)
        return st;
    } else {
      if (args->nargs >= RS_CLI_MAX_ARGS)
        return rs_error_set(err, RS_USAGE, NULL, 0, 0, "too many arguments (at most %d)",
                            RS_CLI_MAX_ARGS);
      args->args[args->nargs++] = a;
    }
  }
  return RS_OK;
}

void rs_cli_print_help(const rs_cli_command *cmd) {
  printf("usage: rightsize %s %s\n\n%s\n", cmd->name, cmd->usage, cmd->description);
  printf("\noptions:\n");
  for (const rs_cli_option *o = cmd->options; o && o->name; o++) {
    char left[64];
    if (o->short_name)
      snprintf(left, sizeof(left), "-%c, --%s%s%s", o->short_name, o->name, o->arg ? " " : "",
               o->arg ? o->arg : "");
    else
      snprintf(left, sizeof(left), "    --%s%s%s", o->name, o->arg ? " " : "",
               o->arg ? o->arg : "");
    printf("  %-28s %s\n", left, o->help);
  }
  printf("  %-28s %s\n", "-h, --help", "show this help");
  printf("\nexit codes: %s (see docs/exit-codes.md)\n",
         cmd->exit_codes ? cmd->exit_codes : "0 ok, 2 usage error, 3 bad input, 5 internal error");
}

void rs_cli_print_usage(FILE *to) {
  fprintf(
      to,
      "usage: rightsize COMMAND [options] [args]\n"
      "       rightsize --version | --help\n\n"
      "Right-sizing advisor for ML inference: reads recorded samples of an endpoint\n"
      "and says what it should run on, how many replicas, at what cost, and why.\n\ncommands:\n");
  for (size_t i = 0; rs_cli_commands[i]; i++)
    fprintf(to, "  %-10s %s\n", rs_cli_commands[i]->name, rs_cli_commands[i]->summary);
  fprintf(to, "\n'rightsize help COMMAND' or 'rightsize COMMAND --help' explains a command.\n"
              "Docs: docs/cli.md, docs/model.md, docs/profile-format.md, docs/ci.md; man -l "
              "docs/rightsize.1.\n");
}

int rs_cli_fail(const rs_error *err) {
  char line[RS_ERROR_PATH_MAX + RS_ERROR_MSG_MAX + 64];
  fflush(stdout);
  fprintf(stderr, "rightsize: %s\n", rs_error_format(err, line, sizeof(line)));
  return rs_status_exit_code(err->status);
}

int rs_cli_usage_error(const char *cmd, const char *msg) {
  if (cmd)
    fprintf(stderr, "rightsize: %s (see 'rightsize %s --help')\n", msg, cmd);
  else
    fprintf(stderr, "rightsize: %s (see 'rightsize --help')\n", msg);
  return rs_status_exit_code(RS_USAGE);
}

int rs_cli_write_stdout(const char *data, size_t len) {
  if (len && fwrite(data, 1, len, stdout) != len)
    return rs_status_exit_code(RS_INTERNAL);
  if (fflush(stdout) != 0)
    return rs_status_exit_code(RS_INTERNAL);
  return 0;
}

int rs_cli_finish(const char *cmd, rs_status st, const rs_error *err, const rs_buf *out,
                  const rs_error *finding) {
  int rc;
  if (st != RS_OK)
    return err->status == RS_USAGE ? rs_cli_usage_error(cmd, err->msg) : rs_cli_fail(err);
  rc = rs_cli_write_stdout(out->data, out->len);
  if (rc == 0 && finding != NULL)
    rc = rs_cli_fail(finding);
  return rc;
}
