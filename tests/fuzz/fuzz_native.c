/* Fuzz target: any bytes as a native CSV sample file, into the
 * statistics. Must never crash; errors are fine. */
#include "fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_ingest(data, size, RS_FORMAT_NATIVE);
  return 0;
}
