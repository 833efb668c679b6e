/* The catalog writers (`rightsize catalog list|show|validate|diff`): they
 * format what catalog_query.h selected or compared, and compute nothing. */
#ifndef RIGHTSIZE_REPORT_CATALOG_H
#define RIGHTSIZE_REPORT_CATALOG_H

#include <stddef.h>

#include <stdbool.h>

#include "rightsize/buf.h"
#include "rightsize/catalog.h"
#include "rightsize/catalog_query.h"
#include "rightsize/error.h"
#include "rightsize/pricing.h"

typedef enum { RS_CATALOG_TABLE, RS_CATALOG_JSON, RS_CATALOG_CSV } rs_catalog_format;

/* "table", "json", "csv" in enum order, NULL-terminated. */
extern const char *const rs_catalog_format_names[];

/* Shapes of one catalog as priced (rs_pricing_apply under basis and overlay). */
typedef struct rs_catalog_listing {
  const rs_catalog *cat;
  rs_price_basis basis;
  const rs_overlay *overlay; /* NULL: none */
  const rs_instance *const *rows;
  size_t nrows;
  bool wide; /* table: every column and the full hash; else what fits 100 columns */
} rs_catalog_listing;

/* The rows as an aligned table (the catalog and pricing above it, a count
 * line below), JSON (docs/json.md) or CSV. RS_NOMEM when out failed. */
rs_status rs_report_catalog_list(rs_buf *out, const rs_catalog_listing *l, rs_catalog_format fmt);

/* One shape (rows[0]) with its accelerator's specs. RS_NOMEM when out failed. */
rs_status rs_report_catalog_show(rs_buf *out, const rs_catalog_listing *l);

/* "ok FILE: catalog VERSION, schema N, ... sha256 HEX". */
rs_status rs_report_catalog_validate(rs_buf *out, const rs_catalog *cat);

/* One line per change, then the counts. */
rs_status rs_report_catalog_diff(rs_buf *out, const rs_catalog_diff *d);

#endif
