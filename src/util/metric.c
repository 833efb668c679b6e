#include "rightsize/metric.h"

#include <string.h>

static const struct {
  const char *key;
  const char *unit;
  bool per_device;
  double upper;
} metric_table[RS_METRIC_COUNT] = {
#define RS_METRIC_ROW(name, key, unit, per_device, upper) {key, unit, per_device, upper},
    RS_METRIC_MAP(RS_METRIC_ROW)
#undef RS_METRIC_ROW
};

const char *rs_metric_key(rs_metric m) { return metric_table[m].key; }
const char *rs_metric_unit(rs_metric m) { return metric_table[m].unit; }
bool rs_metric_per_device(rs_metric m) { return metric_table[m].per_device; }
double rs_metric_upper(rs_metric m) { return metric_table[m].upper; }

/* The physical range of each canonical unit (docs/samples-format.md,
 * "Ranges"): far past any real device, host or endpoint, and far enough
 * inside a double's range that every sum, rate and projection of the
 * values stays finite. */
static const struct {
  const char *unit;
  double max;
} unit_max[] = {
    {"bytes", 1125899906842624.0}, /* 1 PiB of memory */
    {"percent", 100.0},
    {"bytes_per_s", 1e14}, /* 800 Tbit/s of network */
    {"requests_per_s", 1e9},
    {"ms", 1e9}, /* about 11.6 days of latency */
    {"count", 1e9},
    {"tokens", 1e9},
    {"tokens_per_s", 1e12},
};

double rs_metric_max(rs_metric m) {
  if (metric_table[m].upper > 0)
    return metric_table[m].upper;
  for (size_t i = 0; i < sizeof(unit_max) / sizeof(unit_max[0]); i++)
    if (strcmp(unit_max[i].unit, metric_table[m].unit) == 0)
      return unit_max[i].max;
  return 1e9; /* a unit added without a row: bounded all the same */
}

bool rs_metric_in_range(rs_metric m, double v) {
  return v == 0.0 || (v >= RS_METRIC_MIN_NONZERO && v <= rs_metric_max(m));
}
