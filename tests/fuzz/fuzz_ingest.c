/* Fuzz target: any bytes through format detection (auto) and the reader it
 * picks, into the statistics. Must never crash; errors are fine. Each
 * reader also has a target of its own (fuzz_native.c ... fuzz_cloudwatch.c):
 * running all six readers per input here made this target slow (README). */
#include "fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_ingest(data, size, RS_FORMAT_AUTO);
  return 0;
}
