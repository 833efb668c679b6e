/* Opening the catalog the way every command does: --catalog or the
 * built-in one, priced under --pricing with --price-overlay on top. */
#include "cli.h"

rs_status rs_cli_open_catalog(rs_catalog **cat, const rs_overlay **overlay, rs_arena *arena,
                              const char *catalog_path, rs_price_basis basis,
                              const char *overlay_path, rs_error *err) {
  rs_overlay *ov = NULL;
  rs_status st = catalog_path ? rs_catalog_load(cat, arena, catalog_path, err)
                              : rs_catalog_default(cat, arena, err);
  if (st == RS_OK && overlay_path)
    st = rs_overlay_load(&ov, arena, overlay_path, err);
  if (st == RS_OK)
    st = rs_pricing_apply(*cat, basis, ov, err);
  *overlay = ov;
  return st;
}
