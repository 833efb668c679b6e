/* What the report writers share and the program does not see. */
#ifndef RS_REPORT_INTERNAL_H
#define RS_REPORT_INTERNAL_H

#include "jsonw.h"
#include "rightsize/catalog.h"
#include "rightsize/pricing.h"

/* The "catalog" and "pricing" members every JSON document that prices
 * shapes starts with (docs/json.md). */
void rs_report_json_pricing(rs_jsonw *w, const rs_catalog *cat, rs_price_basis basis,
                            const rs_overlay *overlay);

#endif
