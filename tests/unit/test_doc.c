#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rightsize/doc.h"
#include "test_support.h"

#define DATA RS_TEST_DATA "/profiles/"

/* Parses text (NUL-terminated) and returns the status. */
static rs_status parse(void **state, const char *text, bool json, rs_doc *doc, rs_error *err) {
  rs_error_clear(err);
  return rs_doc_parse(doc, *state, "t.doc", text, strlen(text), json, err);
}

static void check_err(const rs_error *err, rs_status status, size_t line, size_t col,
                      const char *substring) {
  if (strstr(err->msg, substring) == NULL)
    fail_msg("message '%s' lacks '%s'", err->msg, substring);
  assert_int_equal(err->status, status);
  assert_int_equal(err->line, line);
  assert_int_equal(err->col, col);
}

/* Expects text to fail to parse with status at line:col, msg containing substring. */
static void parse_fails(void **state, const char *text, bool json, rs_status status, size_t line,
                        size_t col, const char *substring) {
  rs_doc doc;
  rs_error err;
  assert_int_equal(parse(state, text, json, &doc, &err), status);
  check_err(&err, status, line, col, substring);
  assert_string_equal(err.path, "t.doc");
}

/* Writes text to a file named "doc<suffix>" in a fresh temporary directory,
 * loads it and removes both. */
static rs_status load_text(void **state, const char *suffix, const char *text, rs_doc *doc,
                           rs_error *err) {
  char dir[] = "/tmp/rs_test_doc_XXXXXX";
  char path[64];
  FILE *fp;
  rs_status st;
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof(path), "%s/doc%s", dir, suffix);
  fp = fopen(path, "wb");
  assert_non_null(fp);
  assert_int_equal(fwrite(text, 1, strlen(text), fp), strlen(text));
  fclose(fp);
  rs_error_clear(err);
  st = rs_doc_load(doc, *state, path, 0, err);
  assert_int_equal(unlink(path), 0);
  assert_int_equal(rmdir(dir), 0);
  return st;
}

static void check_scalar(const rs_node *n, const char *text, bool quoted, size_t line, size_t col) {
  assert_non_null(n);
  assert_int_equal(n->kind, RS_NODE_SCALAR);
  assert_string_equal(n->text, text);
  assert_int_equal(n->len, strlen(text));
  assert_int_equal(n->quoted, quoted);
  assert_int_equal(n->line, line);
  assert_int_equal(n->col, col);
}

static void test_yaml_tree_and_positions(void **state) {
  rs_doc doc;
  rs_error err;
  const char *text = "# comment\n"
                     "name: resnet\n"
                     "model:\n"
                     "  families: [cpu, 'tpu']\n"
                     "  max_batch: 8\n"
                     "list:\n"
                     "  - \"quoted\"\n"
                     "  - {a: 1}\n"
                     "block: |\n"
                     "  text\n";
  assert_int_equal(parse(state, text, false, &doc, &err), RS_OK);
  assert_string_equal(doc.path, "t.doc");
  const rs_node *root = doc.root;
  assert_int_equal(root->kind, RS_NODE_MAP);
  assert_int_equal(root->n, 4);
  assert_int_equal(root->line, 2);
  assert_int_equal(root->col, 1);
  check_scalar(root->keys[0], "name", false, 2, 1);
  check_scalar(rs_node_get(root, "name"), "resnet", false, 2, 7);
  const rs_node *model = rs_node_get(root, "model");
  assert_int_equal(model->kind, RS_NODE_MAP);
  assert_int_equal(model->line, 4);
  assert_int_equal(model->col, 3);
  const rs_node *fam = rs_node_get(model, "families");
  assert_int_equal(fam->kind, RS_NODE_SEQ);
  assert_int_equal(fam->n, 2);
  assert_int_equal(fam->col, 13);
  check_scalar(fam->items[0], "cpu", false, 4, 14);
  check_scalar(fam->items[1], "tpu", true, 4, 19);
  check_scalar(rs_node_get(model, "max_batch"), "8", false, 5, 14);
  const rs_node *list = rs_node_get(root, "list");
  assert_int_equal(list->n, 2);
  check_scalar(list->items[0], "quoted", true, 7, 5);
  assert_int_equal(list->items[1]->kind, RS_NODE_MAP);
  check_scalar(rs_node_get(list->items[1], "a"), "1", false, 8, 9);
  check_scalar(rs_node_get(root, "block"), "text\n", true, 9, 8);
  assert_null(rs_node_get(root, "absent"));
  assert_null(rs_node_get(fam, "cpu"));
  assert_null(rs_node_get(NULL, "x"));
}

static void test_json_tree_and_positions(void **state) {
  rs_doc doc;
  rs_error err;
  const char *text = "{\n"
                     "  \"name\": \"resnet\",\n"
                     "  \"n\": 8, \"ok\": true,\n"
                     "  \"list\": [1.5, \"x\\/y\", {\"a\":null}]\n"
                     "}\n";
  assert_int_equal(parse(state, text, true, &doc, &err), RS_OK);
  const rs_node *root = doc.root;
  assert_int_equal(root->kind, RS_NODE_MAP);
  assert_int_equal(root->n, 4);
  assert_int_equal(root->line, 1);
  assert_int_equal(root->col, 1);
  check_scalar(root->keys[0], "name", true, 2, 3);
  check_scalar(rs_node_get(root, "name"), "resnet", true, 2, 11);
  check_scalar(rs_node_get(root, "n"), "8", false, 3, 8);
  check_scalar(rs_node_get(root, "ok"), "true", false, 3, 17);
  const rs_node *list = rs_node_get(root, "list");
  assert_int_equal(list->kind, RS_NODE_SEQ);
  assert_int_equal(list->n, 3);
  check_scalar(list->items[0], "1.5", false, 4, 12);
  check_scalar(list->items[1], "x/y", true, 4, 17);
  check_scalar(rs_node_get(list->items[2], "a"), "null", false, 4, 30);
}

static void test_empty_documents(void **state) {
  rs_doc doc;
  rs_error err;
  assert_int_equal(parse(state, "", false, &doc, &err), RS_OK);
  assert_null(doc.root);
  assert_int_equal(parse(state, "# only a comment\n", false, &doc, &err), RS_OK);
  assert_null(doc.root);
  assert_int_equal(parse(state, "---\n", false, &doc, &err), RS_OK);
  assert_null(doc.root);
}

static void test_yaml_syntax_errors(void **state) {
  /* Truncated inside a quoted scalar. */
  parse_fails(state, "a: 1\nb: \"abc", false, RS_SYNTAX, 2, 8,
              "found unexpected end of stream (while scanning a quoted scalar at line 2)");
  /* Truncated inside a flow sequence. */
  parse_fails(state, "a: 1\nb: [1, 2\n", false, RS_SYNTAX, 3, 1,
              "did not find expected ',' or ']'");
  /* Bad indentation. */
  parse_fails(state, "a:\n  b: 1\n c: 2\n", false, RS_SYNTAX, 3, 2,
              "did not find expected key (while parsing a block mapping at line 1)");
  /* A tab used for indentation. */
  parse_fails(state, "a:\n\tb: 1\n", false, RS_SYNTAX, 2, 1,
              "found character that cannot start any token");
  parse_fails(state, "a: b: c\n", false, RS_SYNTAX, 1, 5,
              "mapping values are not allowed in this context");
}

static void test_yaml_refused_constructs(void **state) {
  parse_fails(state, "a: 1\nb: 2\na: 3\n", false, RS_INVALID, 3, 1,
              "duplicate key 'a' (first at line 1)");
  parse_fails(state, "m: {x: 1,\n  x: 2}\n", false, RS_INVALID, 2, 3,
              "duplicate key 'x' (first at line 1)");
  parse_fails(state, "a: &base 1\nb: *base\n", false, RS_INVALID, 1, 4,
              "anchors and aliases are not supported");
  parse_fails(state, "a: [1]\nb: *nothing\n", false, RS_INVALID, 2, 4,
              "anchors and aliases are not supported");
  parse_fails(state, "a: &m {x: 1}\n", false, RS_INVALID, 1, 4,
              "anchors and aliases are not supported");
  parse_fails(state, "a: 1\n---\nb: 2\n", false, RS_INVALID, 2, 1,
              "more than one document, expected one");
  parse_fails(state, "? [a, b]\n: 1\n", false, RS_INVALID, 1, 3,
              "expected a plain key, found a sequence");
  parse_fails(state, "{? {a: 1} : 2}\n", false, RS_INVALID, 1, 4,
              "expected a plain key, found a mapping");
}

static void test_nesting_limit(void **state) {
  char text[200];
  memset(text, '[', 70);
  memset(text + 70, ']', 70);
  text[140] = '\0';
  parse_fails(state, text, false, RS_LIMIT, 1, 65, "nesting deeper than 64 levels");
}

static void test_json_errors(void **state) {
  parse_fails(state, "{\"a\": 1}\n  x\n", true, RS_SYNTAX, 2, 3,
              "trailing characters after the JSON value");
  parse_fails(state, "[1, 2]]", true, RS_SYNTAX, 1, 7, "trailing characters after the JSON value");
  parse_fails(state, "{\"a\": 1,\n \"b\": [1, 2,]}", true, RS_SYNTAX, 2, 13,
              "invalid JSON at ']}'");
  parse_fails(state, "{\"a\": 1 \"b\": 2}", true, RS_SYNTAX, 1, 9, "invalid JSON at '\"b\": 2}'");
  /* cJSON places an unquoted key's error one byte after its start. */
  parse_fails(state, "{a: 1}", true, RS_SYNTAX, 1, 3, "invalid JSON at ': 1}'");
  parse_fails(state, "{\"a\":\n", true, RS_SYNTAX, 2, 1,
              "unexpected end of the JSON text, expected a value or a closing bracket");
  parse_fails(state, "{\"a\": 1", true, RS_SYNTAX, 1, 8, "unexpected end of the JSON text");
  parse_fails(state, "", true, RS_SYNTAX, 1, 1, "unexpected end of the JSON text");
  /* Valid JSON that the document model still refuses. */
  parse_fails(state, "{\"a\": 1,\n \"a\": 2}", true, RS_INVALID, 2, 2,
              "duplicate key 'a' (first at line 1)");
}

static void test_load_files(void **state) {
  rs_doc doc;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_doc_load(&doc, *state, DATA "minimal.yaml", 0, &err), RS_OK);
  assert_string_equal(doc.path, DATA "minimal.yaml");
  assert_string_equal(rs_node_get(doc.root, "endpoint")->text, "tiny");
  /* The extension picks JSON even for text YAML would accept. */
  assert_int_equal(load_text(state, ".json", "a: 1\n", &doc, &err), RS_SYNTAX);
  /* Text that does not even start like JSON is named, never quoted (it
   * may be a token file given by mistake). */
  check_err(&err, RS_SYNTAX, 1, 1, "a text file that is not JSON (it does not start with '{'");
  assert_null(strstr(err.msg, "a: 1"));
  assert_int_equal(load_text(state, ".json", "{\"a\": 1,\n oops}", &doc, &err), RS_SYNTAX);
  check_err(&err, RS_SYNTAX, 2, 3, "invalid JSON at 'ops}'");
  /* So does a first non-blank '{' or '[' under any name. */
  assert_int_equal(load_text(state, ".yaml", "\n  {\"a\": 1} {}", &doc, &err), RS_SYNTAX);
  check_err(&err, RS_SYNTAX, 2, 12, "trailing characters after the JSON value");
  assert_int_equal(load_text(state, ".txt", " [1]\n]", &doc, &err), RS_SYNTAX);
  check_err(&err, RS_SYNTAX, 2, 1, "trailing characters after the JSON value");
  assert_int_equal(load_text(state, ".yml", "a: [1]\n", &doc, &err), RS_OK);
  assert_int_equal(doc.root->kind, RS_NODE_MAP);
}

static void test_load_errors(void **state) {
  rs_doc doc;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_doc_load(&doc, *state, DATA "no-such.yaml", 0, &err), RS_IO);
  check_err(&err, RS_IO, 0, 0, "cannot open: No such file or directory");
  assert_string_equal(err.path, DATA "no-such.yaml");
  assert_null(doc.root);
  rs_error_clear(&err);
  assert_int_equal(rs_doc_load(&doc, *state, RS_TEST_DATA, 0, &err), RS_IO);
  check_err(&err, RS_IO, 0, 0, "is a directory, expected a file");
  rs_error_clear(&err);
  assert_int_equal(rs_doc_load(&doc, *state, DATA "minimal.yaml", 16, &err), RS_LIMIT);
  check_err(&err, RS_LIMIT, 0, 0, "file is larger than 16 bytes");
  assert_int_equal(load_text(state, ".yaml", "", &doc, &err), RS_INVALID);
  check_err(&err, RS_INVALID, 1, 1, "empty document");
  assert_int_equal(load_text(state, ".yaml", "# nothing\n\n", &doc, &err), RS_INVALID);
  check_err(&err, RS_INVALID, 1, 1, "empty document");
  assert_int_equal(load_text(state, ".yaml", "---\n", &doc, &err), RS_INVALID);
  check_err(&err, RS_INVALID, 1, 1, "empty document");
}

/* The root of a one-line YAML document "k: <value>" and its value node. */
static const rs_node *value_of(void **state, const char *text) {
  rs_doc doc;
  rs_error err;
  assert_int_equal(parse(state, text, false, &doc, &err), RS_OK);
  return rs_node_get(doc.root, "k");
}

static void test_accessor_string(void **state) {
  rs_error err;
  const char *s = NULL;
  rs_error_clear(&err);
  assert_int_equal(rs_node_string(value_of(state, "k: pytorch"), "p", "model.framework", &s, &err),
                   RS_OK);
  assert_string_equal(s, "pytorch");
  assert_int_equal(rs_node_string(value_of(state, "k: '8'"), "p", "x", &s, &err), RS_OK);
  assert_string_equal(s, "8");
  assert_int_equal(rs_node_string(value_of(state, "k: [a]"), "p", "model.framework", &s, &err),
                   RS_INVALID);
  check_err(&err, RS_INVALID, 1, 4, "model.framework: expected a string, got a list");
  assert_string_equal(err.path, "p");
  rs_error_clear(&err);
  assert_int_equal(rs_node_string(value_of(state, "k: {a: 1}"), "p", "f", &s, &err), RS_INVALID);
  check_err(&err, RS_INVALID, 1, 4, "f: expected a string, got a mapping");
  rs_error_clear(&err);
  assert_int_equal(rs_node_string(value_of(state, "k:"), "p", "endpoint", &s, &err), RS_INVALID);
  check_err(&err, RS_INVALID, 1, 3, "endpoint: expected a non-empty string, got null");
  rs_error_clear(&err);
  assert_int_equal(rs_node_string(value_of(state, "k: ~"), "p", "endpoint", &s, &err), RS_INVALID);
  check_err(&err, RS_INVALID, 1, 4, "endpoint: expected a non-empty string, got null");
  rs_error_clear(&err);
  assert_int_equal(rs_node_string(value_of(state, "k: ''"), "p", "endpoint", &s, &err), RS_INVALID);
  check_err(&err, RS_INVALID, 1, 4, "endpoint: expected a non-empty string");
  assert_string_equal(s, "8");
}

static void test_accessor_double(void **state) {
  rs_error err;
  double v = 0;
  rs_error_clear(&err);
  assert_int_equal(rs_node_double(value_of(state, "k: 0.85"), "p", "x", &v, &err), RS_OK);
  assert_true(fabs(v - 0.85) < 1e-12);
  assert_int_equal(rs_node_double(value_of(state, "k: -2e3"), "p", "x", &v, &err), RS_OK);
  assert_true(v == -2000.0);
  assert_int_equal(
      rs_node_double(value_of(state, "k: \"0.9\""), "p", "model.prealloc_fraction", &v, &err),
      RS_INVALID);
  check_err(&err, RS_INVALID, 1, 4, "model.prealloc_fraction: expected a number, got string '0.9'");
  rs_error_clear(&err);
  assert_int_equal(rs_node_double(value_of(state, "k: lots"), "p", "traffic.peak_rps", &v, &err),
                   RS_INVALID);
  check_err(&err, RS_INVALID, 1, 4, "traffic.peak_rps: expected a number, got 'lots'");
  rs_error_clear(&err);
  assert_int_equal(rs_node_double(value_of(state, "k: .nan"), "p", "x", &v, &err), RS_INVALID);
  check_err(&err, RS_INVALID, 1, 4, "x: expected a number, got '.nan'");
  rs_error_clear(&err);
  assert_int_equal(rs_node_double(value_of(state, "k: [1]"), "p", "x", &v, &err), RS_INVALID);
  check_err(&err, RS_INVALID, 1, 4, "x: expected a number, got a list");
  assert_true(v == -2000.0);
}

static void test_accessor_uint(void **state) {
  rs_error err;
  uint64_t v = 0;
  rs_error_clear(&err);
  assert_int_equal(rs_node_uint(value_of(state, "k: 8"), "p", "x", 100, &v, &err), RS_OK);
  assert_int_equal(v, 8);
  assert_int_equal(rs_node_uint(value_of(state, "k: 100"), "p", "x", 100, &v, &err), RS_OK);
  assert_int_equal(v, 100);
  assert_int_equal(rs_node_uint(value_of(state, "k: eight"), "p", "model.max_batch", 100, &v, &err),
                   RS_INVALID);
  check_err(&err, RS_INVALID, 1, 4, "model.max_batch: expected an integer, got 'eight'");
  rs_error_clear(&err);
  assert_int_equal(rs_node_uint(value_of(state, "k: 1.5"), "p", "x", 100, &v, &err), RS_INVALID);
  check_err(&err, RS_INVALID, 1, 4, "x: expected an integer, got '1.5'");
  rs_error_clear(&err);
  assert_int_equal(rs_node_uint(value_of(state, "k: '8'"), "p", "x", 100, &v, &err), RS_INVALID);
  check_err(&err, RS_INVALID, 1, 4, "x: expected an integer, got string '8'");
  rs_error_clear(&err);
  assert_int_equal(rs_node_uint(value_of(state, "k: 101"), "p", "x", 100, &v, &err), RS_INVALID);
  check_err(&err, RS_INVALID, 1, 4, "x: expected an integer between 0 and 100, got '101'");
  rs_error_clear(&err);
  assert_int_equal(rs_node_uint(value_of(state, "k: -1"), "p", "x", 100, &v, &err), RS_INVALID);
  check_err(&err, RS_INVALID, 1, 4, "x: expected an integer between 0 and 100, got '-1'");
  rs_error_clear(&err);
  assert_int_equal(
      rs_node_uint(value_of(state, "k: 99999999999999999999"), "p", "x", 100, &v, &err),
      RS_INVALID);
  check_err(&err, RS_INVALID, 1, 4, "x: expected an integer, got '99999999999999999999'");
  assert_int_equal(v, 100);
}

static void test_accessor_bool(void **state) {
  rs_error err;
  bool v = false;
  rs_error_clear(&err);
  assert_int_equal(rs_node_bool(value_of(state, "k: true"), "p", "x", &v, &err), RS_OK);
  assert_true(v);
  assert_int_equal(rs_node_bool(value_of(state, "k: false"), "p", "x", &v, &err), RS_OK);
  assert_false(v);
  assert_int_equal(rs_node_bool(value_of(state, "k: yes"), "p", "model.shardable", &v, &err),
                   RS_INVALID);
  check_err(&err, RS_INVALID, 1, 4, "model.shardable: expected true or false, got 'yes'");
  rs_error_clear(&err);
  assert_int_equal(rs_node_bool(value_of(state, "k: \"true\""), "p", "x", &v, &err), RS_INVALID);
  check_err(&err, RS_INVALID, 1, 4, "x: expected true or false, got 'true'");
  rs_error_clear(&err);
  assert_int_equal(rs_node_bool(value_of(state, "k: {}"), "p", "x", &v, &err), RS_INVALID);
  check_err(&err, RS_INVALID, 1, 4, "x: expected true or false, got a mapping");
}

static void test_accessor_units(void **state) {
  rs_error err;
  double v = 0;
  rs_error_clear(&err);
  assert_int_equal(
      rs_node_units(value_of(state, "k: 16GiB"), "p", "x", RS_UNIT_BYTES, NULL, &v, &err), RS_OK);
  assert_true(v == 16.0 * 1024 * 1024 * 1024);
  assert_int_equal(
      rs_node_units(value_of(state, "k: \"98MiB\""), "p", "x", RS_UNIT_BYTES, NULL, &v, &err),
      RS_OK);
  assert_true(v == 98.0 * 1024 * 1024);
  assert_int_equal(
      rs_node_units(value_of(state, "k: 50ms"), "p", "x", RS_UNIT_SECONDS, "ms", &v, &err), RS_OK);
  assert_true(fabs(v - 0.05) < 1e-12);
  assert_int_equal(
      rs_node_units(value_of(state, "k: 50"), "p", "x", RS_UNIT_SECONDS, "ms", &v, &err), RS_OK);
  assert_true(fabs(v - 0.05) < 1e-12);
  assert_int_equal(
      rs_node_units(value_of(state, "k: 98"), "p", "model.weights", RS_UNIT_BYTES, NULL, &v, &err),
      RS_INVALID);
  check_err(&err, RS_INVALID, 1, 4,
            "model.weights: expected a size with a unit, such as 98MiB or 16GB, got '98'");
  rs_error_clear(&err);
  assert_int_equal(rs_node_units(value_of(state, "k: soon"), "p", "slo.latency_p99",
                                 RS_UNIT_SECONDS, "ms", &v, &err),
                   RS_INVALID);
  check_err(&err, RS_INVALID, 1, 4,
            "slo.latency_p99: expected a duration with a unit, such as 50ms or 2s, got 'soon'");
  rs_error_clear(&err);
  assert_int_equal(
      rs_node_units(value_of(state, "k: -1GiB"), "p", "x", RS_UNIT_BYTES, NULL, &v, &err),
      RS_INVALID);
  check_err(&err, RS_INVALID, 1, 4, "x: expected a size with a unit");
  rs_error_clear(&err);
  assert_int_equal(
      rs_node_units(value_of(state, "k: [1]"), "p", "x", RS_UNIT_BYTES, NULL, &v, &err),
      RS_INVALID);
  check_err(&err, RS_INVALID, 1, 4,
            "x: expected a size with a unit, such as 98MiB or 16GB, got a list");
  assert_true(fabs(v - 0.05) < 1e-12);
}

static void test_accessor_expect_and_keys(void **state) {
  rs_error err;
  static const char *const allowed[] = {"provider", "instance", NULL};
  rs_error_clear(&err);
  const rs_node *map = value_of(state, "k:\n  provider: aws\n  instance: x\n");
  assert_int_equal(rs_node_expect(map, RS_NODE_MAP, "p", "current", &err), RS_OK);
  assert_int_equal(rs_node_check_keys(map, "p", "current", allowed, &err), RS_OK);
  assert_int_equal(rs_node_expect(map, RS_NODE_SEQ, "p", "current", &err), RS_INVALID);
  check_err(&err, RS_INVALID, 2, 3, "current: expected a list, got a mapping");
  rs_error_clear(&err);
  assert_int_equal(rs_node_expect(value_of(state, "k: aws"), RS_NODE_MAP, "p", "current", &err),
                   RS_INVALID);
  check_err(&err, RS_INVALID, 1, 4, "current: expected a mapping, got 'aws'");
  rs_error_clear(&err);
  assert_int_equal(rs_node_expect(value_of(state, "k: [1]"), RS_NODE_SCALAR, "p", "schema", &err),
                   RS_INVALID);
  check_err(&err, RS_INVALID, 1, 4, "schema: expected a scalar, got a list");
  rs_error_clear(&err);
  map = value_of(state, "k:\n  provider: aws\n  instanse: x\n");
  assert_int_equal(rs_node_check_keys(map, "p", "current", allowed, &err), RS_INVALID);
  check_err(&err, RS_INVALID, 3, 3,
            "unknown key 'instanse' in current, expected one of: provider, instance");
}

/* rs_doc_read_file around its 8 KiB read block: every byte, NUL-ended, and
 * no more, whether the last block was short or exactly full. */
static void test_read_file_sizes(void **state) {
  static const size_t sizes[] = {0, 1, 444, 8191, 8192, 8193, 16384, 20000};
  char dir[] = "/tmp/rs_test_docread_XXXXXX", path[64];
  char *want = malloc(20000);
  assert_non_null(want);
  for (size_t i = 0; i < 20000; i++)
    want[i] = (char)('0' + i % 10);
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof(path), "%s/d.yaml", dir);
  for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
    char *data = NULL;
    size_t len = 1;
    rs_error err;
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(want, 1, sizes[k], fp), sizes[k]);
    fclose(fp);
    rs_error_clear(&err);
    assert_int_equal(rs_doc_read_file(&data, &len, *state, path, 1 << 20, &err), RS_OK);
    assert_int_equal(len, sizes[k]);
    assert_memory_equal(data, want, sizes[k]);
    assert_int_equal(data[len], '\0');
  }
  /* The limit still counts every block, the exactly full last one too. */
  {
    char *data = NULL;
    size_t len = 0;
    rs_error err;
    rs_error_clear(&err);
    assert_int_equal(rs_doc_read_file(&data, &len, *state, path, 16384, &err), RS_LIMIT);
    assert_non_null(strstr(err.msg, "larger than 16384 bytes"));
  }
  assert_int_equal(unlink(path), 0);
  assert_int_equal(rmdir(dir), 0);
  free(want);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_yaml_tree_and_positions, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_json_tree_and_positions, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_empty_documents, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_yaml_syntax_errors, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_yaml_refused_constructs, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_nesting_limit, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_json_errors, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_load_files, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_load_errors, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_read_file_sizes, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_accessor_string, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_accessor_double, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_accessor_uint, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_accessor_bool, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_accessor_units, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_accessor_expect_and_keys, setup_arena, teardown_arena),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
