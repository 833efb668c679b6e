/* Names of workload classes and precisions (include/rightsize/workload.h). */
#include "names.h"
#include "rightsize/workload.h"

#include <string.h>

static const char *const workload_names[] = {
#define RS_WORKLOAD_NAME(name, key) key,
    RS_WORKLOAD_MAP(RS_WORKLOAD_NAME)
#undef RS_WORKLOAD_NAME
};

static const struct {
  const char *key;
  double bytes;
} precisions[] = {
#define RS_PRECISION_ROW(name, key, bytes) {key, bytes},
    RS_PRECISION_MAP(RS_PRECISION_ROW)
#undef RS_PRECISION_ROW
};

const char *rs_workload_name(rs_workload w) {
  return (unsigned)w < RS_WORKLOAD_COUNT ? workload_names[w] : "unknown";
}

rs_workload rs_workload_from_name(const char *name) {
  int i = rs_names_find(workload_names, RS_WORKLOAD_COUNT, name);
  return i < 0 ? RS_WORKLOAD_UNKNOWN : (rs_workload)i;
}

const char *rs_precision_name(rs_precision p) {
  return (unsigned)p < RS_PRECISION_COUNT ? precisions[p].key : "unknown";
}

rs_precision rs_precision_from_name(const char *name) {
  for (unsigned i = 0; i < RS_PRECISION_COUNT; i++)
    if (strcmp(precisions[i].key, name) == 0)
      return (rs_precision)i;
  return RS_PRECISION_COUNT;
}

double rs_precision_bytes(rs_precision p) {
  return (unsigned)p < RS_PRECISION_COUNT ? precisions[p].bytes : 2.0;
}
