/* Status codes and positioned errors.
 *
 * Every status comes from one X-macro list: its name, its message and the
 * process exit code the CLI maps it to (docs/exit-codes.md). Library code
 * fills an rs_error once, at the lowest level that knows where the problem
 * is (file, line, column), and higher levels pass it up untouched. */
#ifndef RIGHTSIZE_ERROR_H
#define RIGHTSIZE_ERROR_H

#include <stddef.h>

/* X(NAME, message, exit code) */
#define RS_STATUS_MAP(X)                                                                           \
  X(OK, "ok", 0)                                                                                   \
  X(POLICY, "a policy failed", 1)                                                                  \
  X(USAGE, "usage error", 2)                                                                       \
  X(IO, "cannot read input", 3)                                                                    \
  X(SYNTAX, "syntax error", 3)                                                                     \
  X(INVALID, "invalid value", 3)                                                                   \
  X(LIMIT, "input exceeds a limit", 3)                                                             \
  X(NOFIT, "no shape fits", 4)                                                                     \
  X(NOMEM, "out of memory", 5)                                                                     \
  X(INTERNAL, "internal error", 5)                                                                 \
  X(REGRESSED, "a change rose above --fail-above", 6)

typedef enum {
#define RS_STATUS_ENUM(name, msg, code) RS_##name,
  RS_STATUS_MAP(RS_STATUS_ENUM)
#undef RS_STATUS_ENUM
      RS_STATUS_COUNT
} rs_status;

#define RS_ERROR_PATH_MAX 512
#define RS_ERROR_MSG_MAX 768

/* A filled error. line and col are 1-based; 0 means "not known" (for
 * example a file that could not be opened has no line). */
typedef struct rs_error {
  rs_status status;
  char path[RS_ERROR_PATH_MAX];
  size_t line;
  size_t col;
  char msg[RS_ERROR_MSG_MAX];
} rs_error;

/* Resets err to RS_OK with no position. err may be NULL. */
void rs_error_clear(rs_error *err);

/* Fills err (when err is not NULL and not already set) and returns status.
 * path may be NULL. The message is printf-formatted, lowercase, without a
 * trailing full stop: "expected a number in column 'gpu_util_pct', got 'n/a'".
 * Path and message may quote untrusted text: both are escaped (control bytes
 * and newlines as \n, \x1b, ...) and cut with "..." where they do not fit, so
 * an error is always one line of plain text (docs/cli.md, "Untrusted text"). */
rs_status rs_error_set(rs_error *err, rs_status status, const char *path, size_t line, size_t col,
                       const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* Writes "PATH:LINE:COL: MSG" (or "PATH: MSG", or "MSG") into buf, always
 * NUL-terminated. Returns buf. */
char *rs_error_format(const rs_error *err, char *buf, size_t size);

/* The status' name ("SYNTAX"), its message and its exit code. */
const char *rs_status_name(rs_status status);
const char *rs_status_message(rs_status status);
int rs_status_exit_code(rs_status status);

#endif
