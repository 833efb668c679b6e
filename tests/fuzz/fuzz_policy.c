/* Fuzz target: any bytes as a policy file (YAML or JSON), through the
 * loader the program uses (it takes a path: the bytes go through a file of
 * this process, fuzz_support.h). Must never crash; errors are fine. */
#include "fuzz_support.h"
#include "rightsize/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rs_arena arena;
  rs_error err;
  const char *path = fuzz_file(data, size, ".yaml");
  if (path == NULL)
    return 0;
  rs_arena_init(&arena, (size_t)64 << 20);
  rs_error_clear(&err);
  rs_policy_set set = {0};
  rs_policy_load(&set, &arena, path, &err);
  rs_arena_release(&arena);
  return 0;
}
