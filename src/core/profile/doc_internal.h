/* Shared between the document adapters (doc_yaml.c, doc_json.c) and doc.c. */
#ifndef RS_DOC_INTERNAL_H
#define RS_DOC_INTERNAL_H

#include "rightsize/doc.h"

/* YAML (or JSON read as YAML) -> positioned tree; *root NULL for an empty
 * document. Errors carry path:line:col. */
rs_status rs_doc_parse_yaml_tree(rs_node **root, rs_arena *arena, const char *path,
                                 const char *data, size_t len, rs_error *err);

/* Strict JSON syntax check; RS_SYNTAX with the position of the problem. */
rs_status rs_doc_check_json(const char *path, const char *data, size_t len, rs_error *err);

#endif
