/* Shared by catalog.c (loading, lookup) and catalog_parse.c (validation). */
#ifndef RS_CATALOG_INTERNAL_H
#define RS_CATALOG_INTERNAL_H

#include "rightsize/catalog.h"
#include "rightsize/doc.h"

/* Fills cat (already zeroed, path and sha256 set) from a parsed document,
 * validating as it goes; errors at the offending node's position. */
rs_status rs_catalog_from_doc(rs_catalog *cat, rs_arena *arena, const rs_doc *doc, rs_error *err);

/* Fills cat->calibration from the `calibration` sequence (schema 2); the
 * accelerators must be parsed first. RS_INVALID at the offending node for a
 * missing key, a wrong type, an unknown class, precision or accelerator. */
rs_status rs_catalog_parse_calibration(rs_catalog *cat, rs_arena *arena, const char *path,
                                       const rs_node *seq, rs_error *err);

#endif
