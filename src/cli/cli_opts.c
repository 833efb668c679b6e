/* The option parser: every command's options are typed declarations
 * (rs_cli_opt), so one parser reads, checks and stores them, one function
 * words a bad value's error, and --help prints them. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rightsize/num.h"

const rs_cli_command *rs_cli_find(const char *name) {
  for (size_t i = 0; rs_cli_commands[i]; i++)
    if (strcmp(rs_cli_commands[i]->name, name) == 0)
      return rs_cli_commands[i];
  return NULL;
}

static const rs_cli_opt *find_long(const rs_cli_opt *opts, const char *name, size_t n) {
  for (; opts && opts->name; opts++)
    if (strlen(opts->name) == n && strncmp(opts->name, name, n) == 0)
      return opts;
  return NULL;
}

static const rs_cli_opt *find_short(const rs_cli_opt *opts, char c) {
  for (; opts && opts->name; opts++)
    if (opts->short_name == c)
      return opts;
  return NULL;
}

/* "a, b or c" into buf; with a list's "all": "a, b, c, a comma list of
 * them, or all"; a list without: "a comma list of a, b, c". */
static void words(char *buf, size_t size, const rs_cli_opt *o) {
  size_t used = 0, n = 0;
  while (o->choices[n])
    n++;
  buf[0] = '\0';
  if (o->kind == RS_CLI_LIST && !o->all)
    used += (size_t)snprintf(buf, size, "a comma list of ");
  for (size_t i = 0; i < n && used < size; i++) {
    const char *sep = i == 0 ? "" : o->kind == RS_CLI_LIST || i + 1 < n ? ", " : " or ";
    used += (size_t)snprintf(buf + used, size - used, "%s%s", sep, o->choices[i]);
  }
  if (o->kind == RS_CLI_LIST && o->all && used < size)
    snprintf(buf + used, size - used, ", a comma list of them, or all");
}

const char *rs_cli_expected(const rs_cli_opt *o, char *buf, size_t size) {
  if (o->expect)
    return o->expect;
  switch (o->kind) {
  case RS_CLI_CHOICE:
  case RS_CLI_LIST: words(buf, size, o); break;
  case RS_CLI_COUNT: snprintf(buf, size, "a whole number from %.0f to %.0f", o->lo, o->hi); break;
  case RS_CLI_PERCENT:
    if (isinf(o->hi))
      snprintf(buf, size, "a percentage >= %g such as 50", o->lo);
    else
      snprintf(buf, size, "a percentage from %g to %s%g such as 20", o->lo,
               o->below_hi ? "below " : "", o->hi);
    break;
  case RS_CLI_NUMBER: snprintf(buf, size, "a number of at least %g", o->lo); break;
  case RS_CLI_DURATION: snprintf(buf, size, "a duration such as 60s, 5m or 7d"); break;
  case RS_CLI_SIZE: snprintf(buf, size, "a size such as 24GB"); break;
  default: snprintf(buf, size, "a value"); break;
  }
  return buf;
}

/* Each word of a comma list is one of the choices: their bits. */
static bool parse_list(unsigned *out, const rs_cli_opt *o, const char *v) {
  unsigned bits = 0;
  if (o->all && strcmp(v, "all") == 0) {
    *out = UINT_MAX;
    return true;
  }
  for (const char *p = v;;) {
    size_t n = strcspn(p, ",");
    bool known = false;
    for (unsigned i = 0; o->choices[i] && !known; i++)
      if (strlen(o->choices[i]) == n && strncmp(o->choices[i], p, n) == 0) {
        bits |= 1u << i;
        known = true;
      }
    if (!known)
      return false;
    if (p[n] == '\0')
      break;
    p += n + 1;
  }
  *out = bits;
  return true;
}

static bool parse_choice(int *out, const rs_cli_opt *o, const char *v) {
  for (int i = 0; o->choices[i]; i++)
    if (strcmp(o->choices[i], v) == 0) {
      *out = (int)o->lo + i;
      return true;
    }
  return false;
}

/* A number in [lo, hi], "%" allowed after a percentage. */
static bool parse_number(double *out, const rs_cli_opt *o, const char *v) {
  size_t n = strlen(v);
  double x;
  if (o->kind == RS_CLI_PERCENT && n > 0 && v[n - 1] == '%')
    n--;
  if (n == 0 || rs_num_parse_double(v, n, &x) != RS_OK || !isfinite(x))
    return false;
  if (!(x >= o->lo) || (o->below_hi ? !(x < o->hi) : !(x <= o->hi)))
    return false;
  *out = x;
  return true;
}

/* Parses v as o's kind into its field of opts; false for a bad value. */
static bool store(void *opts, const rs_cli_opt *o, const char *v) {
  double x;
  int64_t k;
  switch (o->kind) {
  case RS_CLI_FLAG: *RS_CLI_FIELD(bool, opts, o) = true; return true;
  case RS_CLI_CHOICE: return parse_choice(RS_CLI_FIELD(int, opts, o), o, v);
  case RS_CLI_LIST: return parse_list(RS_CLI_FIELD(unsigned, opts, o), o, v);
  case RS_CLI_PATH:
  case RS_CLI_STRING: *RS_CLI_FIELD(const char *, opts, o) = v; return true;
  case RS_CLI_PERCENT:
  case RS_CLI_NUMBER: return parse_number(RS_CLI_FIELD(double, opts, o), o, v);
  case RS_CLI_CUSTOM: return o->parse(RS_CLI_FIELD(void, opts, o), v);
  case RS_CLI_COUNT:
    if (rs_num_parse_int64(v, strlen(v), &k) != RS_OK || k < o->lo || k > o->hi)
      return false;
    *RS_CLI_FIELD(unsigned, opts, o) = (unsigned)k;
    return true;
  case RS_CLI_DURATION:
    /* Without a bound of its own a duration stays within the physical range
     * documents have (1e8 s): --timeout 1e300s would overflow a long in ms. */
    if (rs_units_parse(RS_UNIT_SECONDS, v, strlen(v), NULL, &x) != RS_OK || !(x > 0) || x < o->lo ||
        x > (o->hi > 0 ? o->hi : 1e8))
      return false;
    *RS_CLI_FIELD(double, opts, o) = x;
    return true;
  case RS_CLI_SIZE:
    if (rs_units_parse(RS_UNIT_BYTES, v, strlen(v), o->unit, &x) != RS_OK || x < o->lo || x > o->hi)
      return false;
    *RS_CLI_FIELD(double, opts, o) = x;
    return true;
  }
  return false;
}

/* One option at argv[*i]; may consume the next word as its value. */
static rs_status parse_one(rs_cli_args *args, const rs_cli_command *cmd, int argc, char **argv,
                           int *i, rs_error *err) {
  const char *a = argv[*i];
  const rs_cli_opt *o;
  const rs_cli_opt *common = cmd->report ? rs_cli_common_options : NULL;
  const char *value = NULL;
  char expected[256];
  void *target = args->opts;
  if (a[1] == '-') {
    const char *eq = strchr(a + 2, '=');
    size_t n = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
    o = find_long(cmd->options, a + 2, n);
    if (o == NULL && (o = find_long(common, a + 2, n)) != NULL)
      target = &args->common;
    if (o == NULL)
      return rs_error_set(err, RS_USAGE, NULL, 0, 0, "unknown option '--%.*s' for '%s'", (int)n,
                          a + 2, cmd->name);
    if (eq && o->kind == RS_CLI_FLAG)
      return rs_error_set(err, RS_USAGE, NULL, 0, 0, "option '--%s' takes no value", o->name);
    value = eq ? eq + 1 : NULL;
  } else {
    o = find_short(cmd->options, a[1]);
    if (o == NULL && (o = find_short(common, a[1])) != NULL)
      target = &args->common;
    if (o == NULL || a[2] != '\0')
      return rs_error_set(err, RS_USAGE, NULL, 0, 0, "unknown option '%s' for '%s'", a, cmd->name);
  }
  if (o->kind != RS_CLI_FLAG && value == NULL) {
    if (*i + 1 >= argc)
      return rs_error_set(err, RS_USAGE, NULL, 0, 0, "option '--%s' needs a value (%s)", o->name,
                          o->arg);
    value = argv[++*i];
  }
  if (!store(target, o, value))
    return rs_error_set(err, RS_USAGE, NULL, 0, 0, "bad --%s '%s', expected %s", o->name, value,
                        rs_cli_expected(o, expected, sizeof(expected)));
  return RS_OK;
}

static rs_status check_arity(const rs_cli_args *args, const rs_cli_command *cmd, rs_error *err) {
  const rs_cli_arity *a = &cmd->args;
  if (args->nargs < a->min)
    return rs_error_set(err, RS_USAGE, NULL, 0, 0, "%s needs a %s", cmd->name, a->what);
  if (args->nargs > a->max && a->max == 0)
    return rs_error_set(err, RS_USAGE, NULL, 0, 0, "%s takes no arguments", cmd->name);
  if (args->nargs > a->max && a->max == 1)
    return rs_error_set(err, RS_USAGE, NULL, 0, 0, "%s takes one %s", cmd->name, a->what);
  if (args->nargs > a->max)
    return rs_error_set(err, RS_USAGE, NULL, 0, 0, "%s takes at most %zu arguments", cmd->name,
                        a->max);
  return RS_OK;
}

rs_status rs_cli_parse(rs_cli_args *args, const rs_cli_command *cmd, int argc, char **argv,
                       rs_error *err) {
  bool only_args = false;
  args->nargs = 0;
  args->help = false;
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
  return args->help ? RS_OK : check_arity(args, cmd, err);
}

/* One line of --help per option in the table. */
static void print_options(const rs_cli_opt *o) {
  for (; o && o->name; o++) {
    char left[64];
    const char *arg = o->kind == RS_CLI_FLAG ? NULL : o->arg;
    if (o->short_name)
      snprintf(left, sizeof(left), "-%c, --%s%s%s", o->short_name, o->name, arg ? " " : "",
               arg ? arg : "");
    else
      snprintf(left, sizeof(left), "    --%s%s%s", o->name, arg ? " " : "", arg ? arg : "");
    printf("  %-28s %s\n", left, o->help);
  }
}

void rs_cli_print_help(const rs_cli_command *cmd) {
  printf("usage: rightsize %s %s\n\n%s\n", cmd->name, cmd->usage, cmd->description);
  printf("\noptions:\n");
  print_options(cmd->options);
  if (cmd->report)
    print_options(rs_cli_common_options);
  printf("  %-28s %s\n", "-h, --help", "show this help");
  if (cmd->examples)
    printf("\nexamples:\n%s", cmd->examples);
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
    if (!rs_cli_commands[i]->hidden)
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
  rs_error e; /* msg may quote an argument: the error layer escapes it */
  rs_error_clear(&e);
  rs_error_set(&e, RS_USAGE, NULL, 0, 0, "%s", msg);
  if (cmd)
    fprintf(stderr, "rightsize: %s (see 'rightsize %s --help')\n", e.msg, cmd);
  else
    fprintf(stderr, "rightsize: %s (see 'rightsize --help')\n", e.msg);
  return rs_status_exit_code(RS_USAGE);
}

int rs_cli_output_failed(int errnum) {
  clearerr(stdout);
  if (errnum == EPIPE)
    return 0; /* the reader stopped reading (`| head -1`): it has what it wanted */
  fprintf(stderr, "rightsize: cannot write the report: %s\n",
          errnum ? strerror(errnum) : "write error");
  return rs_status_exit_code(RS_INTERNAL);
}

int rs_cli_write_stdout(const char *data, size_t len) {
  errno = 0;
  if ((len && fwrite(data, 1, len, stdout) != len) || fflush(stdout) != 0)
    return rs_cli_output_failed(errno);
  return 0;
}
