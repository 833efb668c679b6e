/* .rightsize.yaml: option defaults for a repository, found upward from the
 * working directory. Its settings become option words put before the
 * command line's, so a flag given on the command line wins (the parser
 * keeps the last value) and every value is checked as a flag's would be. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define CONFIG_NAME ".rightsize.yaml"

/* The nearest .rightsize.yaml from the working directory upward into
 * path; false when there is none. */
static bool find_upward(char *path, size_t size) {
  char dir[PATH_MAX];
  if (getcwd(dir, sizeof(dir)) == NULL)
    return false;
  for (;;) {
    if (snprintf(path, size, "%s/%s", strcmp(dir, "/") ? dir : "", CONFIG_NAME) < (int)size &&
        access(path, R_OK) == 0)
      return true;
    char *slash = strrchr(dir, '/');
    if (slash == NULL || strcmp(dir, "/") == 0)
      return false;
    if (slash == dir)
      slash[1] = '\0';
    else
      *slash = '\0';
  }
}

rs_status rs_cli_config_load(rs_cli_config *out, rs_arena *arena, rs_error *err) {
  char path[PATH_MAX + 32];
  memset(out, 0, sizeof(*out));
  if (!find_upward(path, sizeof(path)))
    return RS_OK;
  size_t n = strlen(path) - strlen(CONFIG_NAME) - 1;
  out->dir = n ? rs_arena_strndup(arena, path, n) : "/"; /* "/.rightsize.yaml": the root */
  if (out->dir == NULL)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory");
  rs_status st = rs_doc_load(&out->doc, arena, path, 1 << 20, err);
  if (st == RS_OK && out->doc.root && out->doc.root->kind != RS_NODE_MAP)
    st = rs_error_set(err, RS_USAGE, out->doc.path, out->doc.root->line, out->doc.root->col,
                      "expected a map of 'defaults' and command names");
  out->found = st == RS_OK;
  return st;
}

static const rs_cli_opt *find_opt(const rs_cli_command *cmd, const char *name) {
  for (int i = 0; i < 2; i++)
    for (const rs_cli_opt *o = i ? (cmd->report ? rs_cli_common_options : NULL) : cmd->options;
         o && o->name; o++)
      if (strcmp(o->name, name) == 0)
        return o;
  return NULL;
}

/* The option word for o = v: "--name=value" (a relative path made
 * relative to the file's directory, a list joined with commas), "--name"
 * for a true flag, NULL for a false one. */
static rs_status word_for(const char **out, const rs_cli_config *c, const rs_cli_opt *o,
                          const rs_node *v, rs_arena *arena, rs_error *err) {
  rs_buf b;
  rs_buf_init(&b, 0);
  *out = NULL;
  if (o->kind == RS_CLI_FLAG) {
    bool on;
    rs_status st = rs_node_bool(v, c->doc.path, o->name, &on, err);
    if (st == RS_OK && on)
      *out = rs_arena_printf(arena, "--%s", o->name);
    return st;
  }
  rs_buf_printf(&b, "--%s=", o->name);
  if (v->kind == RS_NODE_SEQ && o->kind == RS_CLI_LIST) {
    for (size_t i = 0; i < v->n && v->items[i]->kind == RS_NODE_SCALAR; i++)
      rs_buf_printf(&b, "%s%s", i ? "," : "", v->items[i]->text);
  } else if (v->kind != RS_NODE_SCALAR) {
    rs_buf_release(&b);
    return rs_error_set(err, RS_USAGE, c->doc.path, v->line, v->col, "%s: expected a value",
                        o->name);
  } else if (o->kind == RS_CLI_PATH && v->text[0] != '/') {
    rs_buf_printf(&b, "%s/%s", c->dir, v->text);
  } else {
    rs_buf_puts(&b, v->text);
  }
  *out = b.failed ? NULL : rs_arena_strdup(arena, b.data ? b.data : "");
  rs_status st = b.failed ? rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory") : RS_OK;
  rs_buf_release(&b);
  return st;
}

/* The words of one section (a map of option names to values). In
 * "defaults" an option the command lacks is skipped; in the command's own
 * section it is a usage error at its line. */
static rs_status section_words(rs_cli_config_word *words, size_t *n, const rs_cli_config *c,
                               const rs_cli_command *cmd, size_t at, rs_arena *arena,
                               rs_error *err) {
  const rs_node *sec = c->doc.root->items[at];
  const char *name = c->doc.root->keys[at]->text;
  bool defaults = strcmp(name, "defaults") == 0;
  if (sec->kind != RS_NODE_MAP)
    return rs_error_set(err, RS_USAGE, c->doc.path, sec->line, sec->col,
                        "%s: expected a map of option names to values", name);
  for (size_t i = 0; i < sec->n; i++) {
    const rs_node *key = sec->keys[i];
    const rs_cli_opt *o = find_opt(cmd, key->text);
    if (o == NULL && defaults)
      continue;
    if (o == NULL)
      return rs_error_set(err, RS_USAGE, c->doc.path, key->line, key->col,
                          "unknown option '%s' for '%s'", key->text, cmd->name);
    rs_status st = word_for(&words[*n].word, c, o, sec->items[i], arena, err);
    if (st != RS_OK)
      return st;
    if (words[*n].word == NULL)
      continue;
    words[*n].section = name;
    words[*n].line = key->line;
    (*n)++;
  }
  return RS_OK;
}

rs_status rs_cli_config_words(rs_cli_config_word **out, size_t *n, const rs_cli_config *c,
                              const rs_cli_command *cmd, rs_arena *arena, rs_error *err) {
  const rs_node *root = c->found ? c->doc.root : NULL;
  size_t cap = 0;
  *out = NULL;
  *n = 0;
  for (size_t i = 0; root && i < root->n; i++) {
    const char *name = root->keys[i]->text;
    const rs_cli_command *named = rs_cli_find(name);
    if (strcmp(name, "defaults") != 0 && (named == NULL || !named->report))
      return rs_error_set(err, RS_USAGE, c->doc.path, root->keys[i]->line, root->keys[i]->col,
                          "unknown section '%s': expected defaults or a command that reports",
                          name);
    if (root->items[i]->kind == RS_NODE_MAP)
      cap += root->items[i]->n;
  }
  *out = rs_arena_alloc_array(arena, cap ? cap : 1, sizeof(**out));
  if (*out == NULL)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory");
  for (int pass = 0; pass < 2; pass++) /* defaults first: the command's own section wins */
    for (size_t i = 0; root && i < root->n; i++) {
      const char *name = root->keys[i]->text;
      bool mine = pass == 0 ? strcmp(name, "defaults") == 0 : strcmp(name, cmd->name) == 0;
      rs_status st = mine ? section_words(*out, n, c, cmd, i, arena, err) : RS_OK;
      if (st != RS_OK)
        return st;
    }
  return RS_OK;
}

bool rs_cli_no_config(int argc, char **argv) {
  for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
    if (strcmp(argv[i], "--no-config") == 0)
      return true;
  return false;
}
