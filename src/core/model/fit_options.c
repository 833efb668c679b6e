/* The fit's names and options (fit.h): constraint, confidence and action
 * names, --peak parsing, option defaults. */
#include <math.h>
#include <string.h>

#include "names.h"
#include "rightsize/fit.h"
#include "rightsize/num.h"

static const char *const constraint_names[] = {
#define RS_CONSTRAINT_NAME(name, key) key,
    RS_CONSTRAINT_MAP(RS_CONSTRAINT_NAME)
#undef RS_CONSTRAINT_NAME
};

const char *rs_constraint_name(rs_constraint c) {
  return (unsigned)c < RS_CONSTRAINT_COUNT ? constraint_names[c] : "unknown";
}

static const char *const confidence_names[] = {
#define RS_CONFIDENCE_NAME(name, key) key,
    RS_CONFIDENCE_MAP(RS_CONFIDENCE_NAME)
#undef RS_CONFIDENCE_NAME
};

static const char *const action_names[] = {
#define RS_ACTION_NAME(name, key) key,
    RS_ACTION_MAP(RS_ACTION_NAME)
#undef RS_ACTION_NAME
};

const char *rs_action_name(rs_action a) {
  return (unsigned)a < RS_ACTION_COUNT ? action_names[a] : "unknown";
}

const char *rs_confidence_name(rs_confidence c) {
  return (unsigned)c < RS_CONF_COUNT ? confidence_names[c] : "unknown";
}

rs_status rs_confidence_from_name(rs_confidence *out, const char *name) {
  int c = rs_names_find(confidence_names, RS_CONF_COUNT, name);
  if (c < 0)
    return RS_USAGE;
  *out = (rs_confidence)c;
  return RS_OK;
}

rs_status rs_peak_parse(const char *text, rs_peak_kind *kind, double *rps) {
  static const struct {
    const char *name;
    rs_peak_kind kind;
  } names[] = {{"p95", RS_PEAK_P95}, {"p99", RS_PEAK_P99}, {"max", RS_PEAK_MAX}};
  size_t n = strlen(text);
  *rps = NAN;
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    if (strcmp(text, names[i].name) == 0) {
      *kind = names[i].kind;
      return RS_OK;
    }
  }
  if (n > 3 && strcmp(text + n - 3, "rps") == 0)
    n -= 3;
  double v;
  if (n == 0 || rs_num_parse_double(text, n, &v) != RS_OK || !(v >= 0) || !isfinite(v))
    return RS_USAGE;
  *kind = RS_PEAK_RPS;
  *rps = v;
  return RS_OK;
}

void rs_fit_options_init(rs_fit_options *o) {
  memset(o, 0, sizeof(*o));
  o->headroom = RS_FIT_HEADROOM;
  o->max_util = RS_FIT_MAX_UTIL;
  o->slo_ms = NAN;
  o->peak = RS_PEAK_P99;
  o->peak_rps = NAN;
  o->max_replicas = RS_FIT_MAX_REPLICAS;
}
