/* The cJSON door: the only file that includes <cjson/cJSON.h>. JSON input
 * is checked strictly here and the cJSON tree is deleted at once; the
 * positioned tree is then built by the YAML reader, which accepts JSON. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "doc_internal.h"

/* The most bytes of the offending text quoted back in a message. */
#define QUOTE_MAX 16

static void position(const char *data, const char *at, size_t *line, size_t *col) {
  *line = 1;
  *col = 1;
  for (const char *p = data; p < at; p++) {
    if (*p == '\n') {
      (*line)++;
      *col = 1;
    } else {
      (*col)++;
    }
  }
}

static const char *skip_space(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
    p++;
  return p;
}

/* cJSON stopped at `at` in copy[0..len] (copy[len] is the NUL it may reach
 * when the text ends early). */
static rs_status syntax_error(const char *path, const char *copy, size_t len, const char *at,
                              rs_error *err) {
  size_t line, col, n = 0;
  if (at == NULL || at < copy || at > copy + len)
    at = copy;
  position(copy, at, &line, &col);
  if (at == copy + len)
    return rs_error_set(err, RS_SYNTAX, path, line, col,
                        "unexpected end of the JSON text, expected a value or a closing bracket");
  const char *first = skip_space(copy, copy + len);
  if (*first != '{' && *first != '[') /* not JSON at all: name it, quote nothing */
    return rs_error_set(err, RS_SYNTAX, path, 1, 1,
                        "a text file that is not JSON (it does not start with '{' or '['), "
                        "expected a JSON object");
  while (n < QUOTE_MAX && at + n < copy + len && at[n] != '\n' && at[n] != '\r')
    n++;
  return rs_error_set(err, RS_SYNTAX, path, line, col, "invalid JSON at '%.*s'", (int)n, at);
}

rs_status rs_doc_check_json(const char *path, const char *data, size_t len, rs_error *err) {
  const char *end = NULL;
  rs_status st = RS_OK;
  cJSON *tree;
  /* A NUL-terminated copy, parsed with the NUL counted, so that text that
   * ends early fails at the end rather than at its last byte. */
  char *copy = malloc(len + 1);
  if (copy == NULL)
    return rs_error_set(err, RS_NOMEM, path, 0, 0, "out of memory reading the document");
  memcpy(copy, data, len);
  copy[len] = '\0';
  tree = cJSON_ParseWithLengthOpts(copy, len + 1, &end, 0);
  if (tree == NULL) {
    st = syntax_error(path, copy, len, end ? end : cJSON_GetErrorPtr(), err);
  } else {
    const char *rest = skip_space(end, copy + len);
    cJSON_Delete(tree);
    if (rest < copy + len) {
      size_t line, col;
      position(copy, rest, &line, &col);
      st =
          rs_error_set(err, RS_SYNTAX, path, line, col, "trailing characters after the JSON value");
    }
  }
  free(copy);
  return st;
}
