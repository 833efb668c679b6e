/* rightsize recommend: fit a profile against the catalog, rank the shapes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rightsize/buf.h"
#include "rightsize/fit.h"
#include "rightsize/num.h"
#include "rightsize/profile.h"
#include "rightsize/report.h"
#include "rightsize/summary.h"

enum {
  OPT_FORMAT = 1,
  OPT_EXPLAIN,
  OPT_TOP,
  OPT_PROVIDER,
  OPT_REGION,
  OPT_ALLOW,
  OPT_PRICING,
  OPT_OVERLAY,
  OPT_CATALOG,
  OPT_HEADROOM,
  OPT_MAX_UTIL,
  OPT_SLO_P99,
  OPT_SLO_P95,
  OPT_PEAK,
  OPT_MAX_REPLICAS,
};

static const rs_cli_option recommend_options[] = {
    {"format", 'f', "FORMAT", "output format: table (default), json, markdown or csv", OPT_FORMAT},
    {"explain", 'e', NULL, "the winner's margins and every rejected shape with its reason",
     OPT_EXPLAIN},
    {"top", 'n', "N", "ranked shapes to show (default 10; 0 shows all)", OPT_TOP},
    {"provider", 'p', "LIST", "aws, gcp, azure, a comma list, or all (default: the current one)",
     OPT_PROVIDER},
    {"region", 'r', "REGION", "only shapes priced in this region (default: any)", OPT_REGION},
    {"allow", 'a', "FAMILIES",
     "accelerator families to consider, overriding the profile: a comma list of nvidia-gpu, "
     "cpu, inferentia, trainium, tpu",
     OPT_ALLOW},
    {"pricing", 0, "BASIS", "on-demand (default), spot or reserved (docs/pricing.md)", OPT_PRICING},
    {"price-overlay", 0, "FILE", "discounts and prices on top of the catalog", OPT_OVERLAY},
    {"catalog", 'c', "FILE|DIR", "catalog to use instead of the built-in one", OPT_CATALOG},
    {"headroom", 0, "PCT", "memory headroom over the need (default 20)", OPT_HEADROOM},
    {"max-util", 0, "PCT", "utilization ceiling for devices, host CPU, network (default 80)",
     OPT_MAX_UTIL},
    {"slo-p99", 0, "DURATION", "p99 latency target, overriding the profile's SLO (50ms)",
     OPT_SLO_P99},
    {"slo-p95", 0, "DURATION", "p95 latency target, overriding the profile's SLO", OPT_SLO_P95},
    {"peak", 0, "PEAK",
     "design peak: p95, p99 (default), max of the request rate, or a rate in req/s; "
     "overrides traffic.peak_rps",
     OPT_PEAK},
    {"max-replicas", 0, "N", "largest replica count to consider per shape (default 64)",
     OPT_MAX_REPLICAS},
    {NULL, 0, NULL, NULL, 0}};

typedef enum { FMT_TABLE, FMT_JSON, FMT_MARKDOWN, FMT_CSV } out_format;

#define MAX_PROVIDERS 8

typedef struct recommend_opts {
  out_format format;
  rs_report_fit_options report;
  rs_fit_options fit;
  const char *providers[MAX_PROVIDERS];
  char provider_buf[64];
  rs_price_basis basis;
  const char *overlay, *catalog;
} recommend_opts;

static int bad(const char *opt, const char *v, const char *expected) {
  char msg[320];
  snprintf(msg, sizeof(msg), "bad --%s '%s', expected %s", opt, v, expected);
  return rs_cli_usage_error("recommend", msg);
}

static int read_pct(double *out, const char *opt, const char *v, double lo, double hi) {
  size_t n = strlen(v);
  double x;
  if (n > 0 && v[n - 1] == '%')
    n--;
  if (n == 0 || rs_num_parse_double(v, n, &x) != RS_OK || !(x >= lo && x <= hi)) {
    char expected[96];
    snprintf(expected, sizeof(expected), "a percentage from %g to %g such as 20", lo, hi);
    return bad(opt, v, expected);
  }
  *out = x / 100.0;
  return 0;
}

static int read_count(unsigned *out, const char *opt, const char *v, int64_t lo, int64_t hi) {
  int64_t x;
  if (rs_num_parse_int64(v, strlen(v), &x) != RS_OK || x < lo || x > hi) {
    char expected[96];
    snprintf(expected, sizeof(expected), "a whole number from %lld to %lld", (long long)lo,
             (long long)hi);
    return bad(opt, v, expected);
  }
  *out = (unsigned)x;
  return 0;
}

static int read_providers(recommend_opts *o, const char *v) {
  static const char *const known[] = {"aws", "gcp", "azure"};
  if (strcmp(v, "all") == 0) {
    o->fit.providers = o->providers;
    o->fit.nproviders = 0;
    return 0;
  }
  if (strlen(v) >= sizeof(o->provider_buf))
    return bad("provider", v, "aws, gcp, azure, a comma list of them, or all");
  strcpy(o->provider_buf, v);
  size_t n = 0;
  for (char *tok = strtok(o->provider_buf, ","); tok; tok = strtok(NULL, ",")) {
    bool ok = false;
    for (size_t i = 0; i < 3; i++)
      ok = ok || strcmp(tok, known[i]) == 0;
    if (!ok || n == MAX_PROVIDERS)
      return bad("provider", v, "aws, gcp, azure, a comma list of them, or all");
    o->providers[n++] = tok;
  }
  if (n == 0)
    return bad("provider", v, "aws, gcp, azure, a comma list of them, or all");
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
      return bad("allow", v, "a comma list of nvidia-gpu, cpu, inferentia, trainium, tpu");
    *out |= bit;
    p += n + (end != NULL);
  }
  return *out ? 0 : bad("allow", v, "a comma list of nvidia-gpu, cpu, inferentia, trainium, tpu");
}

static int read_slo(recommend_opts *o, const char *opt, const char *v, bool p95) {
  double ms;
  if (rs_units_parse(RS_UNIT_SECONDS, v, strlen(v), NULL, &ms) != RS_OK || !(ms > 0))
    return bad(opt, v, "a positive duration such as 50ms");
  o->fit.slo_ms = ms * 1e3;
  o->fit.slo_p95 = p95;
  return 0;
}

static int read_option(recommend_opts *o, const rs_cli_parsed *p) {
  static const char *const formats[] = {"table", "json", "markdown", "csv"};
  const char *v = p->value;
  unsigned top = 0;
  int rc = 0;
  switch (p->id) {
  case OPT_FORMAT:
    for (size_t i = 0; i < 4; i++)
      if (strcmp(v, formats[i]) == 0) {
        o->format = (out_format)i;
        return 0;
      }
    return bad("format", v, "table, json, markdown or csv");
  case OPT_EXPLAIN: o->report.explain = true; break;
  case OPT_TOP:
    rc = read_count(&top, "top", v, 0, 100000);
    o->report.top = top;
    break;
  case OPT_PROVIDER: return read_providers(o, v);
  case OPT_REGION: o->fit.region = v; break;
  case OPT_ALLOW: return read_families(&o->fit.families, v);
  case OPT_PRICING:
    if (rs_price_basis_from_name(&o->basis, v) != RS_OK)
      return bad("pricing", v, "on-demand, spot or reserved");
    break;
  case OPT_OVERLAY: o->overlay = v; break;
  case OPT_CATALOG: o->catalog = v; break;
  case OPT_HEADROOM: return read_pct(&o->fit.headroom, "headroom", v, 0, 400);
  case OPT_MAX_UTIL: return read_pct(&o->fit.max_util, "max-util", v, 1, 100);
  case OPT_SLO_P99: return read_slo(o, "slo-p99", v, false);
  case OPT_SLO_P95: return read_slo(o, "slo-p95", v, true);
  case OPT_PEAK:
    if (rs_peak_parse(v, &o->fit.peak, &o->fit.peak_rps) != RS_OK)
      return bad("peak", v, "p95, p99, max or a rate in req/s such as 25");
    o->fit.peak_set = true;
    break;
  case OPT_MAX_REPLICAS: return read_count(&o->fit.max_replicas, "max-replicas", v, 1, 100000);
  default: break;
  }
  return rc;
}

static int read_options(recommend_opts *o, const rs_cli_args *args) {
  memset(o, 0, sizeof(*o));
  rs_fit_options_init(&o->fit);
  o->report.top = 10;
  for (size_t i = 0; i < args->nopts; i++) {
    int rc = read_option(o, &args->opts[i]);
    if (rc != 0)
      return rc;
  }
  return 0;
}

static rs_status write_report(rs_buf *out, const recommend_opts *o, const rs_fit_result *r) {
  switch (o->format) {
  case FMT_JSON: return rs_report_fit_json(out, r, &o->report);
  case FMT_MARKDOWN: return rs_report_fit_markdown(out, r, &o->report);
  case FMT_CSV: return rs_report_fit_csv(out, r, &o->report);
  default: return rs_report_fit_table(out, r, &o->report);
  }
}

static rs_status recommend(rs_buf *out, rs_arena *arena, const char *path, const recommend_opts *o,
                           rs_fit_result **res, rs_error *err) {
  rs_profile *profile;
  rs_summary *sum;
  rs_catalog *cat;
  const rs_overlay *overlay;
  rs_summary_options so;
  memset(&so, 0, sizeof(so));
  rs_status st = rs_profile_load(&profile, arena, path, err);
  if (st == RS_OK)
    st = rs_summary_from_profile(&sum, arena, profile, &so, err);
  if (st == RS_OK)
    st = rs_cli_open_catalog(&cat, &overlay, arena, o->catalog, o->basis, o->overlay, err);
  if (st == RS_OK)
    st = rs_fit(res, arena, sum, cat, o->basis, overlay, &o->fit, err);
  if (st == RS_OK && (st = write_report(out, o, *res)) != RS_OK)
    rs_error_set(err, st, NULL, 0, 0, "%s while writing the report", rs_status_message(st));
  return st;
}

static int run_recommend(const rs_cli_args *args) {
  recommend_opts o;
  rs_arena arena;
  rs_fit_result *res = NULL;
  rs_error err;
  rs_buf out;
  int rc = read_options(&o, args);
  if (rc != 0)
    return rc;
  if (args->nargs != 1)
    return rs_cli_usage_error("recommend", args->nargs ? "recommend takes one PROFILE"
                                                       : "recommend needs a PROFILE");
  const char *dot = strrchr(args->args[0], '.');
  if (dot == NULL ||
      (strcmp(dot, ".yaml") != 0 && strcmp(dot, ".yml") != 0 && strcmp(dot, ".json") != 0))
    return rs_cli_usage_error("recommend", "recommend needs a PROFILE (.yaml, .yml or .json): "
                                           "model facts, current deployment and SLO, not bare "
                                           "sample files");
  rs_error_clear(&err);
  rs_arena_init(&arena, 0);
  rs_buf_init(&out, 0);
  rs_status st = recommend(&out, &arena, args->args[0], &o, &res, &err);
  if (st != RS_OK) {
    rc = err.status == RS_USAGE ? rs_cli_usage_error("recommend", err.msg) : rs_cli_fail(&err);
  } else {
    rc = rs_cli_write_stdout(out.data, out.len);
    if (rc == 0 && res->nfitting == 0) {
      rs_error_set(&err, RS_NOFIT, args->args[0], 0, 0,
                   "no shape meets every constraint (the report lists the closest and why)");
      rc = rs_cli_fail(&err);
    }
  }
  rs_buf_release(&out);
  rs_arena_release(&arena);
  return rc;
}

const rs_cli_command rs_cmd_recommend = {
    .name = "recommend",
    .summary = "fit a profile against the catalog: ranked shapes, replicas, latency, cost, savings",
    .usage = "PROFILE [options]",
    .description =
        "Reads a profile and its samples, derives what the endpoint needs (memory per device,\n"
        "busy time per request, service latency, host CPU and network per request, the design\n"
        "peak), and fits it onto every catalog shape the model may run on: memory with\n"
        "headroom, the busy time projected onto the target device, and the smallest replica\n"
        "count that keeps utilization under the ceiling and the SLO's latency quantile under\n"
        "the SLO (service time plus Erlang C queueing). Prints the fitting shapes ranked by\n"
        "monthly cost, the current deployment beside them, the binding constraint and the\n"
        "confidence of each. The model is in docs/model.md. Exit 0 with a recommendation,\n"
        "4 when no shape fits (the report still lists the closest), 2 for usage errors,\n"
        "3 for bad input.",
    .options = recommend_options,
    .run = run_recommend,
};
