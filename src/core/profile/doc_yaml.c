/* The libyaml door: the only file that includes <yaml.h>. Builds an rs_node
 * tree in the arena from libyaml's events, then lets go of libyaml. */
#include <string.h>
#include <yaml.h>

#include "doc_internal.h"

#define MAX_DEPTH 64

typedef struct frame {
  rs_node *node;
  size_t alloc;
  rs_node *pending_key; /* maps: a key waiting for its value */
} frame;

typedef struct builder {
  rs_arena *arena;
  const char *path;
  rs_error *err;
  frame stack[MAX_DEPTH];
  int depth;
  rs_node *root;
  int documents;
} builder;

static rs_status nomem(builder *b) {
  return rs_arena_error(b->arena, b->err, b->path, "reading the document");
}

static rs_node *new_node(builder *b, rs_node_kind kind, const yaml_mark_t *mark) {
  rs_node *n = rs_arena_alloc(b->arena, sizeof(*n));
  if (n == NULL)
    return NULL;
  n->kind = kind;
  n->line = mark->line + 1;
  n->col = mark->column + 1;
  n->text = "";
  return n;
}

static rs_status push_item(builder *b, frame *f, rs_node *key, rs_node *value) {
  if (f->node->n == f->alloc) {
    size_t na = f->alloc ? f->alloc * 2 : 8;
    rs_node **items = rs_arena_alloc_array(b->arena, na, sizeof(*items));
    rs_node **keys = rs_arena_alloc_array(b->arena, na, sizeof(*keys));
    if (items == NULL || keys == NULL)
      return nomem(b);
    if (f->node->n) {
      memcpy(items, f->node->items, f->node->n * sizeof(*items));
      memcpy(keys, f->node->keys, f->node->n * sizeof(*keys));
    }
    f->node->items = items;
    f->node->keys = keys;
    f->alloc = na;
  }
  f->node->keys[f->node->n] = key;
  f->node->items[f->node->n] = value;
  f->node->n++;
  return RS_OK;
}

/* Hands a finished node to its parent (or makes it the root). */
static rs_status attach(builder *b, rs_node *n) {
  frame *f;
  if (b->depth == 0) {
    b->root = n;
    return RS_OK;
  }
  f = &b->stack[b->depth - 1];
  if (f->node->kind == RS_NODE_SEQ)
    return push_item(b, f, NULL, n);
  if (f->pending_key == NULL) {
    if (n->kind != RS_NODE_SCALAR)
      return rs_error_set(b->err, RS_INVALID, b->path, n->line, n->col,
                          "expected a plain key, found a %s",
                          n->kind == RS_NODE_MAP ? "mapping" : "sequence");
    for (size_t i = 0; i < f->node->n; i++)
      if (strcmp(f->node->keys[i]->text, n->text) == 0)
        return rs_error_set(b->err, RS_INVALID, b->path, n->line, n->col,
                            "duplicate key '%s' (first at line %zu)", n->text,
                            f->node->keys[i]->line);
    f->pending_key = n;
    return RS_OK;
  }
  rs_node *key = f->pending_key;
  f->pending_key = NULL;
  return push_item(b, f, key, n);
}

static rs_status open_container(builder *b, rs_node_kind kind, const yaml_event_t *ev) {
  rs_node *n;
  if (b->depth >= MAX_DEPTH)
    return rs_error_set(b->err, RS_LIMIT, b->path, ev->start_mark.line + 1,
                        ev->start_mark.column + 1, "nesting deeper than %d levels", MAX_DEPTH);
  n = new_node(b, kind, &ev->start_mark);
  if (n == NULL)
    return nomem(b);
  b->stack[b->depth].node = n;
  b->stack[b->depth].alloc = 0;
  b->stack[b->depth].pending_key = NULL;
  b->depth++;
  return RS_OK;
}

static rs_status scalar(builder *b, const yaml_event_t *ev) {
  rs_node *n = new_node(b, RS_NODE_SCALAR, &ev->start_mark);
  if (n == NULL)
    return nomem(b);
  n->len = ev->data.scalar.length;
  /* A NUL ("\0" in YAML, "\u0000" in JSON) would end the C string early:
   * "g4dn.xlarge\u0000evil" must not read as g4dn.xlarge. */
  if (memchr(ev->data.scalar.value, '\0', n->len) != NULL)
    return rs_error_set(b->err, RS_INVALID, b->path, ev->start_mark.line + 1,
                        ev->start_mark.column + 1,
                        "a string holds a NUL character, expected text without NUL");
  n->text = rs_arena_strndup(b->arena, (const char *)ev->data.scalar.value, n->len);
  if (n->text == NULL)
    return nomem(b);
  n->quoted = ev->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
              ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE ||
              ev->data.scalar.style == YAML_LITERAL_SCALAR_STYLE ||
              ev->data.scalar.style == YAML_FOLDED_SCALAR_STYLE;
  return attach(b, n);
}

static rs_status on_event(builder *b, const yaml_event_t *ev) {
  const yaml_mark_t *m = &ev->start_mark;
  switch (ev->type) {
  case YAML_DOCUMENT_START_EVENT:
    if (++b->documents > 1)
      return rs_error_set(b->err, RS_INVALID, b->path, m->line + 1, m->column + 1,
                          "more than one document, expected one");
    return RS_OK;
  case YAML_ALIAS_EVENT:
    return rs_error_set(b->err, RS_INVALID, b->path, m->line + 1, m->column + 1,
                        "anchors and aliases are not supported");
  case YAML_SCALAR_EVENT:
    if (ev->data.scalar.anchor)
      return rs_error_set(b->err, RS_INVALID, b->path, m->line + 1, m->column + 1,
                          "anchors and aliases are not supported");
    return scalar(b, ev);
  case YAML_SEQUENCE_START_EVENT:
  case YAML_MAPPING_START_EVENT:
    if ((ev->type == YAML_SEQUENCE_START_EVENT ? ev->data.sequence_start.anchor
                                               : ev->data.mapping_start.anchor) != NULL)
      return rs_error_set(b->err, RS_INVALID, b->path, m->line + 1, m->column + 1,
                          "anchors and aliases are not supported");
    return open_container(b, ev->type == YAML_SEQUENCE_START_EVENT ? RS_NODE_SEQ : RS_NODE_MAP, ev);
  case YAML_SEQUENCE_END_EVENT:
  case YAML_MAPPING_END_EVENT: b->depth--; return attach(b, b->stack[b->depth].node);
  default: return RS_OK;
  }
}

/* libyaml's problem at its problem_mark, with the context it was in:
 * "did not find expected key (while parsing a block mapping at line 1)". */
static rs_status syntax_error(const yaml_parser_t *parser, const char *path, rs_error *err) {
  const yaml_mark_t *pm = &parser->problem_mark;
  const char *problem = parser->problem ? parser->problem : "syntax error";
  if (parser->context == NULL)
    return rs_error_set(err, RS_SYNTAX, path, pm->line + 1, pm->column + 1, "%s", problem);
  return rs_error_set(err, RS_SYNTAX, path, pm->line + 1, pm->column + 1, "%s (%s at line %zu)",
                      problem, parser->context, parser->context_mark.line + 1);
}

rs_status rs_doc_parse_yaml_tree(rs_node **root, rs_arena *arena, const char *path,
                                 const char *data, size_t len, rs_error *err) {
  yaml_parser_t parser;
  yaml_event_t ev;
  builder b;
  rs_status st = RS_OK;
  bool done = false;

  memset(&b, 0, sizeof(b));
  b.arena = arena;
  b.path = path;
  b.err = err;
  *root = NULL;
  if (!yaml_parser_initialize(&parser))
    return nomem(&b);
  yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
  while (st == RS_OK && !done) {
    if (!yaml_parser_parse(&parser, &ev)) {
      st = syntax_error(&parser, path, err);
      break;
    }
    done = ev.type == YAML_STREAM_END_EVENT;
    st = on_event(&b, &ev);
    yaml_event_delete(&ev);
  }
  yaml_parser_delete(&parser);
  if (st == RS_OK)
    *root = b.root;
  return st;
}
