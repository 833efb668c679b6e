#include "rightsize/error.h"

#include "escape.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct {
  const char *name;
  const char *msg;
  int code;
} status_table[RS_STATUS_COUNT] = {
#define RS_STATUS_ROW(name, msg, code) {#name, msg, code},
    RS_STATUS_MAP(RS_STATUS_ROW)
#undef RS_STATUS_ROW
};

void rs_error_clear(rs_error *err) {
  if (err == NULL)
    return;
  memset(err, 0, sizeof(*err));
  err->status = RS_OK;
}

rs_status rs_error_set(rs_error *err, rs_status status, const char *path, size_t line, size_t col,
                       const char *fmt, ...) {
  va_list ap;
  if (err == NULL || err->status != RS_OK)
    return status;
  err->status = status;
  err->line = line;
  err->col = col;
  /* Paths and messages quote untrusted text: both go through the one
   * escaping rule, so an error stays one line of plain text. */
  char text[RS_ERROR_MSG_MAX * 2];
  rs_escape_text(err->path, sizeof(err->path), path ? path : "", path ? strlen(path) : 0, 0);
  va_start(ap, fmt);
  int len = vsnprintf(text, sizeof(text), fmt, ap);
  va_end(ap);
  size_t n = len < 0 ? 0 : strlen(text);
  /* A message cut by vsnprintf still ends in "...": a cap below n says so. */
  rs_escape_text(err->msg, sizeof(err->msg), text, n, len >= (int)sizeof(text) ? n - 1 : 0);
  return status;
}

char *rs_error_format(const rs_error *err, char *buf, size_t size) {
  if (size == 0)
    return buf;
  if (err->path[0] && err->line > 0)
    snprintf(buf, size, "%s:%zu:%zu: %s", err->path, err->line, err->col ? err->col : 1, err->msg);
  else if (err->path[0])
    snprintf(buf, size, "%s: %s", err->path, err->msg);
  else
    snprintf(buf, size, "%s", err->msg);
  return buf;
}

const char *rs_status_name(rs_status status) {
  return (unsigned)status < RS_STATUS_COUNT ? status_table[status].name : "UNKNOWN";
}

const char *rs_status_message(rs_status status) {
  return (unsigned)status < RS_STATUS_COUNT ? status_table[status].msg : "unknown status";
}

int rs_status_exit_code(rs_status status) {
  return (unsigned)status < RS_STATUS_COUNT ? status_table[status].code : 5;
}
