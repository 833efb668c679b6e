/* Where a report goes: standard output, or a file written atomically
 * (-o/--output), with colour on a terminal only (--color, NO_COLOR), or
 * nowhere (--quiet). The options every report command shares. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "rightsize/file.h"
#include "rightsize/num.h"

const char *const rs_cli_color_names[] = {"auto", "always", "never", NULL};

const rs_cli_opt rs_cli_common_options[] = {
    {RS_CLI_OPT("output", 'o', RS_CLI_PATH, offsetof(rs_cli_common, output), "FILE",
                "write the report to FILE (atomically: all of it or nothing) instead of stdout")},
    {RS_CLI_OPT("quiet", 'q', RS_CLI_FLAG, offsetof(rs_cli_common, quiet), NULL,
                "print no report on stdout; the exit code and stderr still tell")},
    {RS_CLI_OPT("color", 0, RS_CLI_CHOICE, offsetof(rs_cli_common, color), "WHEN",
                "colour verdict words: auto (default: on a terminal, not with NO_COLOR), "
                "always or never"),
     .choices = rs_cli_color_names},
    {RS_CLI_OPT("no-config", 0, RS_CLI_FLAG, offsetof(rs_cli_common, no_config), NULL,
                "ignore .rightsize.yaml (docs/cli.md \"Config file\")")},
    {0}};

bool rs_cli_color_wanted(const rs_cli_common *c, int fd) {
  const char *no = getenv("NO_COLOR");
  if (c->color == RS_CLI_COLOR_NEVER)
    return false;
  if (c->color == RS_CLI_COLOR_ALWAYS)
    return true;
  return isatty(fd) && (no == NULL || no[0] == '\0');
}

/* Set and not empty. */
static bool env_set(const char *name) {
  const char *v = getenv(name);
  return v != NULL && v[0] != '\0';
}

void rs_cli_progress_init(rs_progress *p, const rs_cli_common *c) {
  static const char *const ci[] = {"CI",          "GITHUB_ACTIONS", "GITLAB_CI",       "BUILDKITE",
                                   "JENKINS_URL", "TF_BUILD",       "TEAMCITY_VERSION"};
  const char *term = getenv("TERM"), *delay = getenv("RIGHTSIZE_PROGRESS_DELAY");
  double delay_s = 1.0;
  bool on = !c->quiet && isatty(STDERR_FILENO) && !(term && strcmp(term, "dumb") == 0);
  for (size_t i = 0; on && i < sizeof(ci) / sizeof(ci[0]); i++)
    on = !env_set(ci[i]);
  if (delay != NULL &&
      (rs_num_parse_double(delay, strlen(delay), &delay_s) != RS_OK || !(delay_s >= 0)))
    delay_s = 1.0;
  rs_progress_init(p, on ? stderr : NULL, delay_s);
}

#define GREEN "\033[32m"
#define YELLOW "\033[33m"
#define RED "\033[31m"
#define RESET "\033[0m"

/* The colour of a verdict code or a check status; NULL: none. */
static const char *word_color(const char *w, size_t n) {
  static const struct {
    const char *word, *color;
  } words[] = {{"move", GREEN},
               {"keep-right-sized", GREEN},
               {"PASS", GREEN},
               {"upsize", YELLOW},
               {"no-traffic", YELLOW},
               {"idle", YELLOW},
               {"idle-devices", YELLOW},
               {"underused", YELLOW},
               {"untrusted-data", YELLOW},
               {"current-unpriced", YELLOW},
               {"no-fit", RED},
               {"FAIL", RED}};
  for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
    if (strlen(words[i].word) == n && memcmp(words[i].word, w, n) == 0)
      return words[i].color;
  return NULL;
}

/* Copies one line, colouring its verdict or status word: the code after
 * "verdict    " (recommend) or a leading PASS/FAIL (check). */
static void color_line(rs_buf *out, const char *p, size_t len) {
  size_t at = 0;
  if (len > 11 && memcmp(p, "verdict    ", 11) == 0)
    at = 11;
  else
    while (at < len && p[at] == ' ')
      at++;
  size_t end = at;
  while (end < len && p[end] != ' ' && p[end] != ':')
    end++;
  const char *c = word_color(p + at, end - at);
  bool status = at == 11 || end - at == 4; /* a verdict code, or PASS/FAIL */
  if (c == NULL || !status) {
    rs_buf_append(out, p, len);
    return;
  }
  rs_buf_printf(out, "%.*s%s%.*s%s%.*s", (int)at, p, c, (int)(end - at), p + at, RESET,
                (int)(len - end), p + end);
}

void rs_cli_colorize(rs_buf *out, const rs_buf *text) {
  const char *p = text->data, *end = text->data + text->len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
    color_line(out, p, len);
    if (nl)
      rs_buf_putc(out, '\n');
    p += len + (nl ? 1 : 0);
  }
}

/* The report to -o FILE, or stdout (coloured when wanted), or nowhere. */
static int deliver(const rs_cli_args *args, bool text, const rs_buf *out) {
  const rs_cli_common *c = &args->common;
  rs_error err;
  rs_error_clear(&err);
  if (c->output)
    return rs_file_write_atomic(c->output, out->data, out->len, &err) == RS_OK ? 0
                                                                               : rs_cli_fail(&err);
  if (c->quiet)
    return 0;
  if (!text || !rs_cli_color_wanted(c, STDOUT_FILENO))
    return rs_cli_write_stdout(out->data, out->len);
  rs_buf colored;
  rs_buf_init(&colored, 0);
  rs_cli_colorize(&colored, out);
  int rc = rs_buf_status(&colored) == RS_OK ? rs_cli_write_stdout(colored.data, colored.len)
                                            : rs_cli_write_stdout(out->data, out->len);
  rs_buf_release(&colored);
  return rc;
}

int rs_cli_finish(const rs_cli_args *args, bool text, rs_status st, const rs_error *err,
                  const rs_buf *out, const rs_error *finding) {
  int rc;
  if (st != RS_OK)
    return err->status == RS_USAGE ? rs_cli_usage_error(args->cmd->name, err->msg)
                                   : rs_cli_fail(err);
  rc = deliver(args, text, out);
  if (rc == 0 && finding != NULL)
    rc = rs_cli_fail(finding);
  return rc;
}
