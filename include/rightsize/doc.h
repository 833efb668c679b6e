/* A parsed YAML or JSON document as one positioned tree.
 *
 * Both syntaxes end up here so that profiles, catalogs and policy files are
 * read by one set of typed accessors that report file:line:col. YAML is
 * read with libyaml; JSON is checked strictly with cJSON (so that JSON
 * mistakes are reported as JSON mistakes) and then read through libyaml,
 * which accepts JSON, to get positions. Anchors and aliases are refused, as
 * are duplicate keys and more than one document. All nodes live in the
 * arena passed in. */
#ifndef RIGHTSIZE_DOC_H
#define RIGHTSIZE_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rightsize/arena.h"
#include "rightsize/error.h"
#include "rightsize/num.h"

typedef enum { RS_NODE_SCALAR, RS_NODE_SEQ, RS_NODE_MAP } rs_node_kind;

typedef struct rs_node rs_node;
struct rs_node {
  rs_node_kind kind;
  const char *text; /* scalar text, NUL-terminated */
  size_t len;
  bool quoted;      /* a quoted scalar: never a number, bool or null */
  size_t line, col; /* 1-based start position */
  size_t n;         /* items in a sequence, pairs in a map */
  rs_node **items;  /* sequence items, or map values */
  rs_node **keys;   /* map keys (scalars), parallel to items */
};

typedef struct rs_doc {
  const char *path; /* as given, arena copy */
  rs_node *root;    /* NULL for an empty document */
} rs_doc;

/* Parses data (len bytes). The syntax is chosen by `json`. Errors are
 * RS_SYNTAX with the position the parser gives ("did not find expected
 * key", "trailing characters after the JSON value"). */
rs_status rs_doc_parse(rs_doc *out, rs_arena *arena, const char *path, const char *data, size_t len,
                       bool json, rs_error *err);

/* Reads a file (capped at max_bytes, 0: 16 MiB) and parses it as JSON when
 * its name ends in .json or its first non-blank byte is '{' or '[', else as
 * YAML. RS_IO for a missing file or a directory. */
rs_status rs_doc_load(rs_doc *out, rs_arena *arena, const char *path, size_t max_bytes,
                      rs_error *err);

/* Reads a whole file (at most max_bytes) into the arena, NUL-terminated, as
 * rs_doc_load does before parsing. RS_IO for a missing file or a directory,
 * RS_LIMIT past max_bytes. */
rs_status rs_doc_read_file(char **data, size_t *len, rs_arena *arena, const char *path,
                           size_t max_bytes, rs_error *err);

/* Map lookup by key; NULL when absent or when map is not a map. */
const rs_node *rs_node_get(const rs_node *map, const char *key);

/* The magnitudes a plain number in a document may have (0 aside): far past
 * any price, size or rate, far inside a double, so sums and projections of
 * them stay finite (1e308 is an error, not an infinite price). */
#define RS_DOC_NUMBER_MIN 1e-12
#define RS_DOC_NUMBER_MAX 1e18

/* Typed accessors. Each returns RS_OK or RS_INVALID with err set at the
 * node's position in path, naming `what` (the key path, "model.max_batch")
 * and what was expected: "model.max_batch: expected an integer, got 'eight'". */
rs_status rs_node_expect(const rs_node *node, rs_node_kind kind, const char *path, const char *what,
                         rs_error *err);
rs_status rs_node_string(const rs_node *node, const char *path, const char *what, const char **out,
                         rs_error *err);
rs_status rs_node_double(const rs_node *node, const char *path, const char *what, double *out,
                         rs_error *err);
rs_status rs_node_uint(const rs_node *node, const char *path, const char *what, uint64_t max,
                       uint64_t *out, rs_error *err);
rs_status rs_node_bool(const rs_node *node, const char *path, const char *what, bool *out,
                       rs_error *err);

/* A scalar with a unit, through rs_units_parse: "16GiB", "50ms", or a YAML
 * number when default_unit is not NULL; 0 or within the unit's physical
 * range (1 PiB, 1e8 s, 1e12, 1e6 %, 100 TB/s; from RS_DOC_NUMBER_MIN). */
rs_status rs_node_units(const rs_node *node, const char *path, const char *what, rs_unit_kind kind,
                        const char *default_unit, double *out, rs_error *err);

/* Checks that every key of map is in allowed (NULL-terminated); an unknown
 * key is RS_INVALID at its position, listing the allowed keys. */
rs_status rs_node_check_keys(const rs_node *map, const char *path, const char *what,
                             const char *const *allowed, rs_error *err);

#endif
