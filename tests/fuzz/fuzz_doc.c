/* Fuzz target: any bytes as a YAML and as a JSON document. Must never
 * crash; errors are fine. */
#include "fuzz_support.h"
#include "rightsize/doc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  for (int json = 0; json < 2; json++) {
    rs_arena arena;
    rs_doc doc;
    rs_error err;
    rs_arena_init(&arena, (size_t)64 << 20);
    rs_error_clear(&err);
    rs_doc_parse(&doc, &arena, "fuzz", (const char *)data, size, json != 0, &err);
    rs_arena_release(&arena);
  }
  return 0;
}
