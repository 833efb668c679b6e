/* Fuzz target: any bytes (plain, gzip or zstd) through format detection and
 * every sample reader, the mapped CSV reader included, into the statistics.
 * Must never crash; errors are fine. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rightsize/ingest.h"
#include "rightsize/stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const rs_sample_format formats[] = {
      RS_FORMAT_AUTO,      RS_FORMAT_NATIVE,     RS_FORMAT_NVSMI,   RS_FORMAT_PROM_JSON,
      RS_FORMAT_PROM_TEXT, RS_FORMAT_CLOUDWATCH, RS_FORMAT_REQUESTS};
  rs_series_map map; /* a long-format CSV mapping: ts,value,metric */
  rs_series_map_init(&map);
  map.csv.set = true;
  map.csv.time = "ts";
  map.csv.value = "value";
  map.csv.metric_column = "metric";
  map.csv.device = "gpu";
  map.csv.path = "fuzz-map";
  for (size_t i = 0; i <= sizeof(formats) / sizeof(formats[0]); i++) {
    bool mapped = i == sizeof(formats) / sizeof(formats[0]);
    rs_stats *st = NULL;
    rs_error err;
    rs_endpoint_stats out;
    rs_stats_options so = {.allow_unordered = (i == 1)};
    rs_ingest_options io = {.format = mapped ? RS_FORMAT_CSV : formats[i],
                            .max_record_bytes = 0,
                            .map = mapped ? &map : NULL,
                            .select = NULL};
    rs_error_clear(&err);
    if (rs_stats_new(&st, &so, &err) != RS_OK)
      return 0;
    rs_stats_begin_file(st, "fuzz");
    if (rs_ingest_memory("fuzz", (const char *)data, size, &io, rs_stats_sink, st, NULL, &err) ==
        RS_OK)
      rs_stats_finish(st, &out, &err);
    rs_stats_free(st);
  }
  return 0;
}
