#include "rightsize/doc.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "doc_internal.h"
#include "rightsize/buf.h"
#include "rightsize/file.h"

#define DEFAULT_MAX_BYTES ((size_t)16 << 20)

rs_status rs_doc_parse(rs_doc *out, rs_arena *arena, const char *path, const char *data, size_t len,
                       bool json, rs_error *err) {
  rs_status st;
  out->root = NULL;
  out->path = rs_arena_strdup(arena, path);
  if (out->path == NULL)
    return rs_arena_error(arena, err, path, "reading the document");
  if (json && (st = rs_doc_check_json(path, data, len, err)) != RS_OK)
    return st;
  st = rs_doc_parse_yaml_tree(&out->root, arena, path, data, len, err);
  /* "---" alone is a document holding one null: as empty as no document. */
  if (st == RS_OK && out->root && out->root->kind == RS_NODE_SCALAR && !out->root->quoted &&
      out->root->len == 0)
    out->root = NULL;
  /* One bare value is no document any reader takes (each wants a mapping):
   * likely a token or a note given by mistake, so it is named, not quoted. */
  if (st == RS_OK && out->root && out->root->kind == RS_NODE_SCALAR)
    st = rs_error_set(err, RS_INVALID, path, out->root->line, out->root->col,
                      "a text file that is not a %s document (it holds one plain value), "
                      "expected a mapping of keys",
                      json ? "JSON" : "YAML");
  return st;
}

static bool looks_json(const char *path, const char *data, size_t len) {
  size_t n = strlen(path);
  if (n >= 5 && strcmp(path + n - 5, ".json") == 0)
    return true;
  for (size_t i = 0; i < len; i++) {
    if (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n')
      continue;
    return data[i] == '{' || data[i] == '[';
  }
  return false;
}

/* Copies what fp holds, at most max_bytes, into the arena, NUL-terminated.
 * Reads until end of file rather than trusting st_size, so pipes work too. */
static rs_status slurp(char **data, size_t *len, rs_arena *arena, FILE *fp, const char *path,
                       size_t max_bytes, rs_error *err) {
  char chunk[8192];
  rs_buf buf;
  size_t got;
  rs_status st = RS_OK;
  rs_buf_init(&buf, max_bytes);
  /* A short fread means end of file or an error (checked below): no read
   * after it, which for a small file saves a system call. */
  do {
    got = fread(chunk, 1, sizeof(chunk), fp);
    if (got > 0)
      st = rs_buf_append(&buf, chunk, got);
  } while (st == RS_OK && got == sizeof(chunk));
  if (st == RS_LIMIT)
    st = rs_error_set(err, RS_LIMIT, path, 0, 0, "file is larger than %zu bytes", max_bytes);
  else if (st != RS_OK)
    st = rs_error_set(err, RS_NOMEM, path, 0, 0, "out of memory reading the file");
  else if (ferror(fp))
    st = rs_error_set(err, RS_IO, path, 0, 0, "read error: %s", strerror(errno));
  if (st == RS_OK) {
    *len = buf.len;
    *data = rs_arena_strndup(arena, buf.len ? buf.data : "", buf.len);
    if (*data == NULL)
      st = rs_arena_error(arena, err, path, "reading the file");
  }
  rs_buf_release(&buf);
  return st;
}

rs_status rs_doc_read_file(char **data, size_t *len, rs_arena *arena, const char *path,
                           size_t max_bytes, rs_error *err) {
  FILE *fp;
  rs_status st = rs_file_open_regular(&fp, path, err);
  if (st != RS_OK)
    return st;
  setvbuf(fp, NULL, _IONBF, 0); /* whole 8 KiB blocks: no stdio buffer, no fstat for it */
  st = slurp(data, len, arena, fp, path, max_bytes, err);
  fclose(fp);
  return st;
}

rs_status rs_doc_load(rs_doc *out, rs_arena *arena, const char *path, size_t max_bytes,
                      rs_error *err) {
  char *data = NULL;
  size_t len = 0;
  rs_status st;
  out->root = NULL;
  out->path = NULL;
  st = rs_doc_read_file(&data, &len, arena, path, max_bytes ? max_bytes : DEFAULT_MAX_BYTES, err);
  if (st != RS_OK)
    return st;
  st = rs_doc_parse(out, arena, path, data, len, looks_json(path, data, len), err);
  if (st == RS_OK && out->root == NULL)
    return rs_error_set(err, RS_INVALID, path, 1, 1, "empty document, expected a mapping");
  return st;
}

const rs_node *rs_node_get(const rs_node *map, const char *key) {
  if (map == NULL || map->kind != RS_NODE_MAP)
    return NULL;
  for (size_t i = 0; i < map->n; i++)
    if (strcmp(map->keys[i]->text, key) == 0)
      return map->items[i];
  return NULL;
}

static const char *kind_name(rs_node_kind k) {
  switch (k) {
  case RS_NODE_SCALAR: return "a scalar";
  case RS_NODE_SEQ: return "a list";
  case RS_NODE_MAP: return "a mapping";
  }
  return "a node";
}

static rs_status wrong(const rs_node *node, const char *path, const char *what,
                       const char *expected, rs_error *err) {
  if (node->kind == RS_NODE_SCALAR)
    return rs_error_set(err, RS_INVALID, path, node->line, node->col, "%s: expected %s, got '%s'",
                        what, expected, node->text);
  return rs_error_set(err, RS_INVALID, path, node->line, node->col, "%s: expected %s, got %s", what,
                      expected, kind_name(node->kind));
}

/* A quoted scalar is text even when it reads as a number or a bool. */
static rs_status quoted_wrong(const rs_node *node, const char *path, const char *what,
                              const char *expected, rs_error *err) {
  return rs_error_set(err, RS_INVALID, path, node->line, node->col,
                      "%s: expected %s, got string '%s'", what, expected, node->text);
}

/* A plain empty, "~" or "null" scalar is YAML's null (JSON's null). */
static bool is_null(const rs_node *node) {
  return node->kind == RS_NODE_SCALAR && !node->quoted &&
         (node->len == 0 || strcmp(node->text, "~") == 0 || strcmp(node->text, "null") == 0);
}

rs_status rs_node_expect(const rs_node *node, rs_node_kind kind, const char *path, const char *what,
                         rs_error *err) {
  if (node->kind == kind)
    return RS_OK;
  return wrong(node, path, what, kind_name(kind), err);
}

rs_status rs_node_string(const rs_node *node, const char *path, const char *what, const char **out,
                         rs_error *err) {
  if (node->kind != RS_NODE_SCALAR)
    return wrong(node, path, what, "a string", err);
  if (is_null(node))
    return rs_error_set(err, RS_INVALID, path, node->line, node->col,
                        "%s: expected a non-empty string, got null", what);
  if (node->len == 0)
    return rs_error_set(err, RS_INVALID, path, node->line, node->col,
                        "%s: expected a non-empty string", what);
  *out = node->text;
  return RS_OK;
}

rs_status rs_node_double(const rs_node *node, const char *path, const char *what, double *out,
                         rs_error *err) {
  double v;
  if (node->kind == RS_NODE_SCALAR && node->quoted)
    return quoted_wrong(node, path, what, "a number", err);
  if (node->kind != RS_NODE_SCALAR || rs_num_parse_double(node->text, node->len, &v) != RS_OK)
    return wrong(node, path, what, "a number", err);
  if (v != 0.0 && !(fabs(v) >= RS_DOC_NUMBER_MIN && fabs(v) <= RS_DOC_NUMBER_MAX))
    return rs_error_set(err, RS_INVALID, path, node->line, node->col,
                        "%s: expected 0 or a number from %g to %g in magnitude, got '%s'", what,
                        RS_DOC_NUMBER_MIN, RS_DOC_NUMBER_MAX, node->text);
  *out = v;
  return RS_OK;
}

rs_status rs_node_uint(const rs_node *node, const char *path, const char *what, uint64_t max,
                       uint64_t *out, rs_error *err) {
  int64_t v;
  if (node->kind == RS_NODE_SCALAR && node->quoted)
    return quoted_wrong(node, path, what, "an integer", err);
  if (node->kind != RS_NODE_SCALAR || rs_num_parse_int64(node->text, node->len, &v) != RS_OK)
    return wrong(node, path, what, "an integer", err);
  if (v < 0 || (uint64_t)v > max)
    return rs_error_set(err, RS_INVALID, path, node->line, node->col,
                        "%s: expected an integer between 0 and %llu, got '%s'", what,
                        (unsigned long long)max, node->text);
  *out = (uint64_t)v;
  return RS_OK;
}

rs_status rs_node_bool(const rs_node *node, const char *path, const char *what, bool *out,
                       rs_error *err) {
  if (node->kind == RS_NODE_SCALAR && !node->quoted) {
    if (strcmp(node->text, "true") == 0) {
      *out = true;
      return RS_OK;
    }
    if (strcmp(node->text, "false") == 0) {
      *out = false;
      return RS_OK;
    }
  }
  return wrong(node, path, what, "true or false", err);
}

static const char *unit_example(rs_unit_kind kind) {
  switch (kind) {
  case RS_UNIT_BYTES: return "a size with a unit, such as 98MiB or 16GB";
  case RS_UNIT_SECONDS: return "a duration with a unit, such as 50ms or 2s";
  case RS_UNIT_COUNT: return "a number, optionally with k or M";
  case RS_UNIT_PERCENT: return "a percentage such as 20%";
  case RS_UNIT_BITRATE: return "a rate such as 10Gbps or 100MB/s";
  }
  return "a value with a unit";
}

/* The physical range of each unit kind, in its canonical unit: far past
 * any real memory, latency or rate, far inside a double (docs/profile-format.md). */
static double unit_max(rs_unit_kind kind, const char **name) {
  switch (kind) {
  case RS_UNIT_BYTES: *name = "1PiB"; return 1125899906842624.0;
  case RS_UNIT_SECONDS: *name = "100000000s"; return 1e8;
  case RS_UNIT_COUNT: *name = "1000000000000"; return 1e12;
  case RS_UNIT_PERCENT: *name = "1000000%"; return 1e6;
  case RS_UNIT_BITRATE: *name = "100TB/s"; return 1e14;
  }
  *name = "1000000000000";
  return 1e12;
}

rs_status rs_node_units(const rs_node *node, const char *path, const char *what, rs_unit_kind kind,
                        const char *default_unit, double *out, rs_error *err) {
  double v;
  const char *max_name;
  double max = unit_max(kind, &max_name);
  if (node->kind != RS_NODE_SCALAR ||
      rs_units_parse(kind, node->text, node->len, default_unit, &v) != RS_OK)
    return wrong(node, path, what, unit_example(kind), err);
  if (v != 0.0 && !(v >= RS_DOC_NUMBER_MIN && v <= max))
    return rs_error_set(err, RS_INVALID, path, node->line, node->col,
                        "%s: expected 0 or %s from %g to %s, got '%s'", what, unit_example(kind),
                        RS_DOC_NUMBER_MIN, max_name, node->text);
  *out = v;
  return RS_OK;
}

rs_status rs_node_check_keys(const rs_node *map, const char *path, const char *what,
                             const char *const *allowed, rs_error *err) {
  char list[512];
  for (size_t i = 0; i < map->n; i++) {
    bool ok = false;
    for (const char *const *a = allowed; *a && !ok; a++)
      ok = strcmp(*a, map->keys[i]->text) == 0;
    if (ok)
      continue;
    size_t used = 0;
    list[0] = '\0';
    for (const char *const *a = allowed; *a && used < sizeof(list); a++)
      used +=
          (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", a == allowed ? "" : ", ", *a);
    return rs_error_set(err, RS_INVALID, path, map->keys[i]->line, map->keys[i]->col,
                        "unknown key '%s' in %s, expected one of: %s", map->keys[i]->text, what,
                        list);
  }
  return RS_OK;
}
