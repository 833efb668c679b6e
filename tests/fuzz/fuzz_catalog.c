/* Fuzz target: any bytes as a catalog (YAML or JSON), parsed and validated.
 * Must never crash; errors are fine. */
#include "fuzz_support.h"
#include "rightsize/catalog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rs_arena arena;
  rs_catalog *cat;
  rs_error err;
  rs_arena_init(&arena, (size_t)64 << 20);
  rs_error_clear(&err);
  rs_catalog_parse(&cat, &arena, "fuzz.yaml", (const char *)data, size, &err);
  rs_arena_release(&arena);
  return 0;
}
