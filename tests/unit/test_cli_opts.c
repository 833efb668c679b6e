/* The typed option parser of src/cli (cli_opts.c), against a command
 * declared here: each kind stores its value where the declaration says,
 * rejects bad values with the declared or derived wording, and positional
 * bounds are checked. */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli.h"

typedef struct opts {
  bool flag;
  int choice;
  unsigned count, list, providers;
  double pct, dur, size, num;
  const char *path;
  double custom;
} opts;

static bool parse_custom(void *field, const char *value) {
  if (strcmp(value, "ok") != 0)
    return false;
  *(double *)field = 42;
  return true;
}

static const char *const words[] = {"red", "green", "blue", NULL};

#define OPT(m) offsetof(opts, m)
static const rs_cli_opt options[] = {
    {RS_CLI_OPT("flag", 'F', RS_CLI_FLAG, OPT(flag), NULL, "a flag")},
    {RS_CLI_OPT("choice", 'c', RS_CLI_CHOICE, OPT(choice), "C", "a choice"), .choices = words,
     .lo = 10},
    {RS_CLI_OPT("count", 0, RS_CLI_COUNT, OPT(count), "N", "a count"), .lo = 1, .hi = 5},
    {RS_CLI_OPT("list", 0, RS_CLI_LIST, OPT(list), "L", "a list"), .choices = words},
    {RS_CLI_OPT("providers", 0, RS_CLI_LIST, OPT(providers), "P", "providers"),
     .choices = rs_provider_names, .all = true},
    {RS_CLI_OPT("pct", 0, RS_CLI_PERCENT, OPT(pct), "PCT", "a percentage"), .lo = 0, .hi = 100,
     .below_hi = true},
    {RS_CLI_OPT("dur", 0, RS_CLI_DURATION, OPT(dur), "D", "a duration"), .lo = 1},
    {RS_CLI_OPT("size", 0, RS_CLI_SIZE, OPT(size), "S", "a size"), .hi = 1e12, .unit = "GB"},
    {RS_CLI_OPT("num", 0, RS_CLI_NUMBER, OPT(num), "X", "a number"), .lo = 0, .hi = INFINITY},
    {RS_CLI_OPT("path", 'o', RS_CLI_PATH, OPT(path), "FILE", "a path")},
    {RS_CLI_OPT("custom", 0, RS_CLI_CUSTOM, OPT(custom), "OK", "custom"), .expect = "just ok",
     .parse = parse_custom},
    {0}};

static int run_nothing(const rs_cli_args *args) { return args->nargs == 0; }

static const rs_cli_command test_cmd = {.name = "test",
                                        .summary = "s",
                                        .usage = "u",
                                        .description = "d",
                                        .options = options,
                                        .opts_size = sizeof(opts),
                                        .args = {1, 2, "THING"},
                                        .run = run_nothing};

const rs_cli_command *const rs_cli_commands[] = {&test_cmd, NULL};

/* Parses the words (NULL-terminated) into *o; the status, the message in err. */
static rs_status parse(opts *o, rs_error *err, const char *const *words_in) {
  rs_cli_args *args = malloc(sizeof(*args)); /* 32 KiB of argument pointers */
  char *argv[32];
  int argc = 0;
  rs_status st;
  assert_non_null(args);
  memset(o, 0, sizeof(*o));
  rs_error_clear(err);
  for (; words_in[argc]; argc++)
    argv[argc] = (char *)words_in[argc];
  args->opts = o;
  st = rs_cli_parse(args, &test_cmd, argc, argv, err);
  free(args);
  return st;
}

static void test_every_kind_stores_its_value(void **state) {
  opts o;
  rs_error err;
  const char *const argv[] = {"thing",  "-F",       "-c",          "blue",      "--count=5",
                              "--list", "blue,red", "--providers", "gcp,azure", "--pct",
                              "99.5%",  "--dur",    "2m",          "--size",    "3",
                              "--num",  "0",        "-o",          "out.yaml",  "--custom",
                              "ok",     NULL};
  (void)state;
  assert_int_equal(parse(&o, &err, argv), RS_OK);
  assert_true(o.flag);
  assert_int_equal(o.choice, 12); /* lo + index */
  assert_int_equal(o.count, 5);
  assert_int_equal(o.list, 5u); /* bits 0 and 2 */
  assert_int_equal(o.providers, (1u << RS_PROVIDER_GCP) | (1u << RS_PROVIDER_AZURE));
  assert_true(o.pct == 99.5);
  assert_true(o.dur == 120);
  assert_true(o.size == 3e9); /* a bare number in the declared unit */
  assert_true(o.num == 0);
  assert_string_equal(o.path, "out.yaml");
  assert_true(o.custom == 42);
}

static void test_all_sets_every_bit(void **state) {
  opts o;
  rs_error err;
  const char *const argv[] = {"x", "--providers", "all", NULL};
  (void)state;
  assert_int_equal(parse(&o, &err, argv), RS_OK);
  assert_int_equal(o.providers, UINT_MAX);
}

/* The error of one bad option value. */
static void assert_bad(const char *opt, const char *value, const char *msg) {
  opts o;
  rs_error err;
  const char *const argv[] = {"x", opt, value, NULL};
  assert_int_equal(parse(&o, &err, argv), RS_USAGE);
  assert_string_equal(err.msg, msg);
}

static void test_bad_values_say_what_was_expected(void **state) {
  (void)state;
  assert_bad("-c", "pink", "bad --choice 'pink', expected red, green or blue");
  assert_bad("--count", "6", "bad --count '6', expected a whole number from 1 to 5");
  assert_bad("--count", "1.5", "bad --count '1.5', expected a whole number from 1 to 5");
  assert_bad("--list", "red,", "bad --list 'red,', expected a comma list of red, green, blue");
  assert_bad("--list", "all", "bad --list 'all', expected a comma list of red, green, blue");
  assert_bad("--providers", "aws,ibm",
             "bad --providers 'aws,ibm', expected aws, gcp, azure, a comma list of them, or all");
  assert_bad("--pct", "100",
             "bad --pct '100', expected a percentage from 0 to below 100 such as 20");
  assert_bad("--pct", "nan",
             "bad --pct 'nan', expected a percentage from 0 to below 100 such as 20");
  assert_bad("--dur", "0.5s", "bad --dur '0.5s', expected a duration such as 60s, 5m or 7d");
  assert_bad("--size", "2TB", "bad --size '2TB', expected a size such as 24GB");
  assert_bad("--num", "-1", "bad --num '-1', expected a number of at least 0");
  assert_bad("--custom", "no", "bad --custom 'no', expected just ok");
}

static void test_usage_errors(void **state) {
  opts o;
  rs_error err;
  const char *const none[] = {"-F", NULL};
  const char *const three[] = {"a", "b", "c", NULL};
  const char *const help[] = {"--help", NULL};
  const char *const flag_value[] = {"x", "--flag=1", NULL};
  const char *const missing[] = {"x", "--count", NULL};
  const char *const unknown[] = {"x", "--colour", "red", NULL};
  const char *const dashdash[] = {"--", "-F", NULL};
  (void)state;
  assert_int_equal(parse(&o, &err, none), RS_USAGE);
  assert_string_equal(err.msg, "test needs a THING");
  assert_int_equal(parse(&o, &err, three), RS_USAGE);
  assert_string_equal(err.msg, "test takes at most 2 arguments");
  assert_int_equal(parse(&o, &err, help), RS_OK); /* --help skips the bounds */
  assert_int_equal(parse(&o, &err, flag_value), RS_USAGE);
  assert_string_equal(err.msg, "option '--flag' takes no value");
  assert_int_equal(parse(&o, &err, missing), RS_USAGE);
  assert_string_equal(err.msg, "option '--count' needs a value (N)");
  assert_int_equal(parse(&o, &err, unknown), RS_USAGE);
  assert_string_equal(err.msg, "unknown option '--colour' for 'test'");
  assert_int_equal(parse(&o, &err, dashdash), RS_OK); /* "-F" is an argument */
  assert_false(o.flag);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_kind_stores_its_value),
      cmocka_unit_test(test_all_sets_every_bit),
      cmocka_unit_test(test_bad_values_say_what_was_expected),
      cmocka_unit_test(test_usage_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
