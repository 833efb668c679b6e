/* The options every fitting command shares (recommend, check, audit): the
 * catalog and its pricing, the scope of shapes, the model's knobs. What
 * they drive is core's (rightsize/pipeline.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rightsize/num.h"

static const char *cmd_name = "recommend";

int rs_cli_bad_value(const char *opt, const char *v, const char *expected) {
  char msg[320];
  snprintf(msg, sizeof(msg), "bad --%s '%s', expected %s", opt, v, expected);
  return rs_cli_usage_error(cmd_name, msg);
}

static int read_pct(double *out, const char *opt, const char *v, double lo, double hi) {
  size_t n = strlen(v);
  double x;
  if (n > 0 && v[n - 1] == '%')
    n--;
  if (n == 0 || rs_num_parse_double(v, n, &x) != RS_OK || !(x >= lo && x <= hi)) {
    char expected[96];
    snprintf(expected, sizeof(expected), "a percentage from %g to %g such as 20", lo, hi);
    return rs_cli_bad_value(opt, v, expected);
  }
  *out = x / 100.0;
  return 0;
}

int rs_cli_read_count(unsigned *out, const char *opt, const char *v, int64_t lo, int64_t hi) {
  int64_t x;
  if (rs_num_parse_int64(v, strlen(v), &x) != RS_OK || x < lo || x > hi) {
    char expected[96];
    snprintf(expected, sizeof(expected), "a whole number from %lld to %lld", (long long)lo,
             (long long)hi);
    return rs_cli_bad_value(opt, v, expected);
  }
  *out = (unsigned)x;
  return 0;
}

static int read_providers(rs_cli_fit_opts *o, const char *v) {
  static const char *const known[] = {"aws", "gcp", "azure"};
  if (strcmp(v, "all") == 0) {
    o->fit.providers = o->providers;
    o->fit.nproviders = 0;
    return 0;
  }
  if (strlen(v) >= sizeof(o->provider_buf))
    return rs_cli_bad_value("provider", v, "aws, gcp, azure, a comma list of them, or all");
  strcpy(o->provider_buf, v);
  size_t n = 0;
  for (char *tok = strtok(o->provider_buf, ","); tok; tok = strtok(NULL, ",")) {
    bool ok = false;
    for (size_t i = 0; i < 3; i++)
      ok = ok || strcmp(tok, known[i]) == 0;
    if (!ok || n == RS_CLI_MAX_PROVIDERS)
      return rs_cli_bad_value("provider", v, "aws, gcp, azure, a comma list of them, or all");
    o->providers[n++] = tok;
  }
  if (n == 0)
    return rs_cli_bad_value("provider", v, "aws, gcp, azure, a comma list of them, or all");
  o->fit.providers = o->providers;
  o->fit.nproviders = n;
  return 0;
}

static int read_families(unsigned *out, const char *v) {
  const char *p = v;
  *out = 0;
  while (*p) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    char name[32];
    unsigned bit = 0;
    if (n > 0 && n < sizeof(name)) {
      memcpy(name, p, n);
      name[n] = '\0';
      bit = rs_family_from_name(name);
    }
    if (bit == 0)
      return rs_cli_bad_value("allow", v,
                              "a comma list of nvidia-gpu, cpu, inferentia, trainium, tpu");
    *out |= bit;
    p += n + (end != NULL);
  }
  return *out ? 0
              : rs_cli_bad_value("allow", v,
                                 "a comma list of nvidia-gpu, cpu, inferentia, trainium, tpu");
}

static int read_slo(rs_cli_fit_opts *o, const char *opt, const char *v, bool p95) {
  double ms;
  if (rs_units_parse(RS_UNIT_SECONDS, v, strlen(v), NULL, &ms) != RS_OK || !(ms > 0))
    return rs_cli_bad_value(opt, v, "a positive duration such as 50ms");
  o->fit.slo_ms = ms * 1e3;
  o->fit.slo_p95 = p95;
  return 0;
}

void rs_cli_fit_init(rs_cli_fit_opts *o, const char *cmd) {
  memset(o, 0, sizeof(*o));
  rs_fit_options_init(&o->fit);
  o->cmd = cmd;
}

int rs_cli_fit_option(rs_cli_fit_opts *o, const rs_cli_parsed *p) {
  const char *v = p->value;
  cmd_name = o->cmd;
  switch (p->id) {
  case RS_CLI_OPT_PROVIDER: return read_providers(o, v);
  case RS_CLI_OPT_REGION: o->fit.region = v; return 0;
  case RS_CLI_OPT_ALLOW: return read_families(&o->fit.families, v);
  case RS_CLI_OPT_PRICING:
    if (rs_price_basis_from_name(&o->basis, v) != RS_OK)
      return rs_cli_bad_value("pricing", v, "on-demand, spot or reserved");
    return 0;
  case RS_CLI_OPT_OVERLAY: o->overlay = v; return 0;
  case RS_CLI_OPT_CATALOG: o->catalog = v; return 0;
  case RS_CLI_OPT_HEADROOM: return read_pct(&o->fit.headroom, "headroom", v, 0, 400);
  case RS_CLI_OPT_MAX_UTIL: return read_pct(&o->fit.max_util, "max-util", v, 1, 100);
  case RS_CLI_OPT_SLO_P99: return read_slo(o, "slo-p99", v, false);
  case RS_CLI_OPT_SLO_P95: return read_slo(o, "slo-p95", v, true);
  case RS_CLI_OPT_PEAK:
    if (rs_peak_parse(v, &o->fit.peak, &o->fit.peak_rps) != RS_OK)
      return rs_cli_bad_value("peak", v, "p95, p99, max or a rate in req/s such as 25");
    o->fit.peak_set = true;
    return 0;
  case RS_CLI_OPT_MAX_REPLICAS:
    return rs_cli_read_count(&o->fit.max_replicas, "max-replicas", v, 1, 100000);
  case RS_CLI_OPT_AS_OF:
    if (!rs_fit_date_valid(v))
      return rs_cli_bad_value("as-of", v, "a date such as 2026-12-02");
    o->fit.as_of = v;
    return 0;
  default: return -1;
  }
}

void rs_cli_fit_pipeline(rs_pipeline_options *out, const rs_cli_fit_opts *o) {
  rs_pipeline_options_init(out);
  out->catalog = o->catalog;
  out->overlay = o->overlay;
  out->basis = o->basis;
  out->fit = o->fit;
}
