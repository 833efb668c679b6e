#include "rightsize/metric.h"

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
