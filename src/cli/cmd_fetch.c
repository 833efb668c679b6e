/* rightsize fetch prometheus: pull an endpoint's metrics from a
 * Prometheus-compatible HTTP API into a profile and its native samples CSV. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "rightsize/arena.h"
#include "rightsize/buf.h"
#include "rightsize/doc.h"
#include "rightsize/fetch.h"
#include "rightsize/file.h"
#include "rightsize/http.h"
#include "rightsize/num.h"
#include "rightsize/profile.h"
#include "rightsize/profile_write.h"

typedef struct fetch_opts {
  const char *url, *selector, *output, *endpoint, *instance, *region;
  int provider;                               /* RS_PROVIDER_*, -1 when not given (a CHOICE) */
  unsigned families;                          /* RS_FAMILY_* bits; 0: nvidia-gpu */
  unsigned replicas;                          /* 0: not given (1) */
  unsigned retries;                           /* UINT_MAX: not given (the transport's default) */
  double since_s, end, step_s, rate_window_s; /* end: NaN for now */
  double slo_p99_s, slo_p95_s;                /* NaN when not given */
  double connect_timeout_s, timeout_s;        /* NaN: the transport's defaults */
  double max_bytes;                           /* NaN: the transport's default */
  const char *requests_metric, *latency_histogram;
  const char *token_env, *token_file, *basic_env;
  bool insecure;
  rs_fetch_prom_options prom; /* from the above, by finish_options */
  rs_http_retry retry;
} fetch_opts;

static bool parse_time(void *field, const char *value) {
  return rs_time_parse(value, strlen(value), field) == RS_OK;
}

#define OPT(m) offsetof(fetch_opts, m)
static const rs_cli_opt fetch_options[] = {
    {RS_CLI_OPT("url", 0, RS_CLI_STRING, OPT(url), "URL",
                "API base URL (Prometheus, Thanos, Mimir, VictoriaMetrics)")},
    {RS_CLI_OPT("selector", 0, RS_CLI_STRING, OPT(selector), "MATCHERS",
                "label matchers of the endpoint: '{job=\"bert\"}'")},
    {RS_CLI_OPT("since", 0, RS_CLI_DURATION, OPT(since_s), "DURATION",
                "how far back from --end (default 7d, at most 400d)"),
     .lo = 1},
    {RS_CLI_OPT("end", 0, RS_CLI_CUSTOM, OPT(end), "TIME",
                "end of the range, unix seconds or RFC 3339 (default now)"),
     .expect = "unix seconds or an RFC 3339 time", .parse = parse_time},
    {RS_CLI_OPT("step", 0, RS_CLI_DURATION, OPT(step_s), "DURATION",
                "resolution, one row per step (default 60s)"),
     .lo = 1},
    {RS_CLI_OPT("rate-window", 0, RS_CLI_DURATION, OPT(rate_window_s), "DURATION",
                "rate() window for counters (default 5m, at least --step)"),
     .lo = 1},
    {RS_CLI_OPT("output", 'o', RS_CLI_PATH, OPT(output), "FILE",
                "profile to write (.yaml); samples go to the same name with .csv")},
    {RS_CLI_OPT("endpoint", 0, RS_CLI_STRING, OPT(endpoint), "NAME",
                "endpoint name for the profile")},
    {RS_CLI_OPT("provider", 0, RS_CLI_CHOICE, OPT(provider), "CLOUD",
                "current provider: aws, gcp or azure"),
     .choices = rs_provider_names},
    {RS_CLI_OPT("instance", 0, RS_CLI_STRING, OPT(instance), "TYPE", "current instance type")},
    {RS_CLI_OPT("replicas", 0, RS_CLI_COUNT, OPT(replicas), "N", "current replicas (default 1)"),
     .lo = 1, .hi = UINT32_MAX},
    {RS_CLI_OPT("region", 0, RS_CLI_STRING, OPT(region), "REGION", "current region (optional)")},
    {RS_CLI_OPT("slo-p99", 0, RS_CLI_DURATION, OPT(slo_p99_s), "DURATION",
                "p99 latency target (this or --slo-p95 is required)")},
    {RS_CLI_OPT("slo-p95", 0, RS_CLI_DURATION, OPT(slo_p95_s), "DURATION", "p95 latency target")},
    {RS_CLI_OPT("families", 0, RS_CLI_LIST, OPT(families), "LIST",
                "accelerator families the model runs on (default nvidia-gpu)"),
     .choices = rs_family_names},
    {RS_CLI_OPT("requests-metric", 0, RS_CLI_STRING, OPT(requests_metric), "NAME",
                "request counter (default http_requests_total)")},
    {RS_CLI_OPT("latency-histogram", 0, RS_CLI_STRING, OPT(latency_histogram), "NAME",
                "latency histogram in seconds (default http_request_duration_seconds)")},
    {RS_CLI_OPT("token-env", 0, RS_CLI_STRING, OPT(token_env), "VAR",
                "bearer token from this environment variable")},
    {RS_CLI_OPT("token-file", 0, RS_CLI_PATH, OPT(token_file), "FILE",
                "bearer token from this file")},
    {RS_CLI_OPT("basic-auth-env", 0, RS_CLI_STRING, OPT(basic_env), "VAR",
                "basic auth 'user:password' from this environment variable")},
    {RS_CLI_OPT("insecure", 0, RS_CLI_FLAG, OPT(insecure), NULL,
                "do not verify the server's TLS certificate")},
    {RS_CLI_OPT("connect-timeout", 0, RS_CLI_DURATION, OPT(connect_timeout_s), "DURATION",
                "connect timeout per request (default 10s)"),
     .lo = 0.001},
    {RS_CLI_OPT("timeout", 0, RS_CLI_DURATION, OPT(timeout_s), "DURATION",
                "total timeout per request (default 60s)"),
     .lo = 0.001},
    {RS_CLI_OPT("max-bytes", 0, RS_CLI_SIZE, OPT(max_bytes), "SIZE",
                "largest response accepted (default 64MiB)"),
     .lo = 1024, .hi = 4e9, .expect = "a size between 1KiB and 4GB such as 64MiB"},
    {RS_CLI_OPT("retries", 0, RS_CLI_COUNT, OPT(retries), "N",
                "retries on 429 and 5xx, with backoff (default 3)"),
     .lo = 0, .hi = 10},
    {0}};

static void init_options(void *opts) {
  fetch_opts *fo = opts;
  fo->provider = -1;
  fo->retries = UINT_MAX;
  fo->since_s = 7 * 86400.0;
  fo->step_s = 60;
  fo->end = fo->slo_p99_s = fo->slo_p95_s = NAN;
  fo->connect_timeout_s = fo->timeout_s = fo->max_bytes = NAN;
}

static int usage(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

static int usage(const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return rs_cli_usage_error("fetch", msg);
}

static int check_required(const fetch_opts *fo) {
  const struct {
    const void *given;
    const char *flag;
  } required[] = {{fo->url, "--url"},
                  {fo->selector, "--selector"},
                  {fo->output, "--output"},
                  {fo->endpoint, "--endpoint"},
                  {fo->provider >= 0 ? fo : NULL, "--provider"},
                  {fo->instance, "--instance"}};
  for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
    if (required[i].given == NULL)
      return usage("fetch prometheus needs %s", required[i].flag);
  if (isnan(fo->slo_p99_s) && isnan(fo->slo_p95_s))
    return usage("fetch prometheus needs %s (or --slo-p95): the profile's latency target",
                 "--slo-p99");
  if ((fo->token_env != NULL) + (fo->token_file != NULL) + (fo->basic_env != NULL) > 1)
    return usage("%s: give one of --token-env, --token-file, --basic-auth-env", "credentials");
  return 0;
}

static int check_url(const char *url) {
  const char *rest = strncmp(url, "http://", 7) == 0    ? url + 7
                     : strncmp(url, "https://", 8) == 0 ? url + 8
                                                        : NULL;
  if (rest == NULL)
    return usage("bad --url '%s', expected http://HOST:PORT or https://...", url);
  size_t host = strcspn(rest, "/?#");
  if (memchr(rest, '@', host) != NULL)
    return rs_cli_usage_error("fetch", "credentials in --url would show in the process list; "
                                       "use --basic-auth-env or --token-env");
  if (strchr(url, '?') != NULL || strchr(url, '#') != NULL)
    return usage("bad --url '%s', expected the API base without a query", url);
  return 0;
}

/* The parsed options into the fetch's own: the range, the transport's knobs. */
static void finish_options(fetch_opts *fo) {
  rs_fetch_prom_options *prom = &fo->prom;
  prom->url = fo->url;
  prom->selector = fo->selector;
  prom->step_s = fo->step_s;
  prom->rate_window_s = fo->rate_window_s;
  prom->end = isnan(fo->end) ? (double)time(NULL) : fo->end;
  prom->start = prom->end - fo->since_s;
  prom->requests_metric = fo->requests_metric;
  prom->latency_histogram = fo->latency_histogram;
  prom->http.insecure = fo->insecure;
  if (!isnan(fo->connect_timeout_s))
    prom->http.connect_timeout_ms = (long)(fo->connect_timeout_s * 1000);
  if (!isnan(fo->timeout_s))
    prom->http.timeout_ms = (long)(fo->timeout_s * 1000);
  if (!isnan(fo->max_bytes))
    prom->http.max_bytes = (size_t)fo->max_bytes;
  if (fo->retries != UINT_MAX)
    fo->retry.attempts = fo->retries + 1;
  prom->retry = &fo->retry;
}

static int read_options(fetch_opts *fo, const rs_cli_args *args) {
  int rc;
  if (strcmp(args->args[0], "prometheus") != 0)
    return usage("%s", "fetch knows one source: prometheus");
  if ((rc = check_required(fo)) != 0 || (rc = check_url(fo->url)) != 0)
    return rc;
  if (fo->since_s > RS_FETCH_MAX_SINCE_S)
    return usage("--since is longer than the maximum of %.0fd", RS_FETCH_MAX_SINCE_S / 86400);
  finish_options(fo);
  return 0;
}

/* ---- credentials: from the environment or a file, never argv, never printed ---- */

static rs_status secret_from_env(const char **out, const char *var, rs_error *err) {
  *out = getenv(var);
  if (*out == NULL || **out == '\0')
    return rs_error_set(err, RS_USAGE, NULL, 0, 0, "environment variable '%s' is not set", var);
  return RS_OK;
}

static rs_status secret_from_file(const char **out, rs_arena *arena, const char *path,
                                  rs_error *err) {
  char *data = NULL;
  size_t len = 0;
  rs_status st = rs_doc_read_file(&data, &len, arena, path, 64 * 1024, err);
  if (st != RS_OK)
    return st;
  while (len > 0 && (data[len - 1] == '\n' || data[len - 1] == '\r' || data[len - 1] == ' '))
    data[--len] = '\0';
  if (len == 0)
    return rs_error_set(err, RS_INVALID, path, 0, 0, "the token file is empty");
  *out = data;
  return RS_OK;
}

static rs_status authorization(rs_buf *auth, rs_arena *arena, const fetch_opts *fo, rs_error *err) {
  const char *secret = NULL;
  rs_status st = RS_OK;
  if (fo->token_env)
    st = secret_from_env(&secret, fo->token_env, err);
  else if (fo->basic_env)
    st = secret_from_env(&secret, fo->basic_env, err);
  else if (fo->token_file)
    st = secret_from_file(&secret, arena, fo->token_file, err);
  if (st != RS_OK || secret == NULL)
    return st;
  if (strpbrk(secret, "\r\n") != NULL)
    return rs_error_set(err, RS_INVALID, NULL, 0, 0,
                        "the credential holds a line break, expected one line");
  if (fo->basic_env && strchr(secret, ':') == NULL)
    return rs_error_set(err, RS_INVALID, NULL, 0, 0,
                        "environment variable '%s' must hold 'user:password'", fo->basic_env);
  if (fo->basic_env)
    return rs_http_put_basic_auth(auth, secret);
  rs_buf_puts(auth, "Bearer ");
  return rs_buf_puts(auth, secret);
}

/* ---- output ---- */

static const char *csv_path_for(rs_arena *arena, const char *profile) {
  const char *dot = strrchr(profile, '.');
  const char *slash = strrchr(profile, '/');
  size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - profile) : strlen(profile);
  char *p = rs_arena_alloc(arena, stem + 5);
  if (p != NULL) {
    memcpy(p, profile, stem);
    memcpy(p + stem, ".csv", 5);
  }
  return p;
}

/* The profile fetch writes: what the options say about the endpoint, and
 * its one samples file. */
static rs_status put_profile(rs_buf *b, const fetch_opts *fo, const char *csv_name) {
  char t0[32], t1[32], description[128];
  rs_sample_file file = {.given = csv_name, .path = csv_name, .format = RS_FORMAT_NATIVE};
  rs_profile p = {.schema_major = 1, .endpoint = fo->endpoint, .source = RS_SOURCE_PRODUCTION};
  rs_time_format(fo->prom.start, t0, sizeof(t0));
  rs_time_format(fo->prom.end, t1, sizeof(t1));
  snprintf(description, sizeof(description), "fetched from Prometheus, %s .. %s, step %gs", t0, t1,
           fo->prom.step_s);
  p.description = description;
  p.model.families = fo->families ? fo->families : RS_FAMILY_NVIDIA_GPU;
  p.model.weights_bytes = p.model.activation_bytes_per_sample = NAN;
  p.model.max_batch = 1;
  p.current.provider = rs_provider_names[fo->provider];
  p.current.instance = fo->instance;
  p.current.region = fo->region;
  p.current.replicas = fo->replicas ? fo->replicas : 1;
  p.slo.latency_p99_ms = fo->slo_p99_s * 1000.0;
  p.slo.latency_p95_ms = fo->slo_p95_s * 1000.0;
  p.traffic.peak_rps = NAN;
  p.traffic.growth = 1;
  p.files = &file;
  p.nfiles = 1;
  return rs_profile_write(b, &p, "Written by rightsize fetch prometheus (docs/sources.md).");
}

/* Both outputs staged, then both renamed: a reader never sees half a file,
 * and a failure before the renames leaves the earlier files untouched. */
static rs_status write_both(const char *csv_path, const rs_buf *csv, const char *prof_path,
                            const rs_buf *prof, rs_error *err) {
  rs_file_staged s[2] = {{csv_path, NULL}, {prof_path, NULL}};
  const rs_buf *data[2] = {csv, prof};
  rs_status st = RS_OK;
  for (size_t i = 0; i < 2 && st == RS_OK; i++)
    st = rs_file_stage(&s[i], s[i].path, data[i]->data, data[i]->len, err);
  for (size_t i = 0; i < 2 && st == RS_OK; i++)
    st = rs_file_commit(&s[i], err);
  for (size_t i = 0; i < 2; i++)
    rs_file_unstage(&s[i]);
  return st;
}

static rs_status fetch_and_write(const fetch_opts *fo, rs_arena *arena, rs_fetch_result *res,
                                 rs_error *err) {
  rs_transport *t = NULL;
  rs_buf auth, csv, prof;
  rs_fetch_prom_options prom = fo->prom;
  const char *csv_path = csv_path_for(arena, fo->output);
  const char *slash = csv_path ? strrchr(csv_path, '/') : NULL;
  rs_status st = csv_path ? RS_OK : rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory");
  rs_buf_init(&auth, 64 * 1024);
  rs_buf_init(&csv, 0);
  rs_buf_init(&prof, 0);
  if (st == RS_OK)
    st = authorization(&auth, arena, fo, err);
  prom.http.authorization = auth.len ? auth.data : NULL;
  if (st == RS_OK)
    st = rs_transport_curl_new(&t, err);
  if (st == RS_OK)
    st = rs_fetch_prometheus(&prom, t, rs_fetch_csv_sink, &csv, res, err);
  if (st == RS_OK && (st = put_profile(&prof, fo, slash ? slash + 1 : csv_path)) != RS_OK)
    rs_error_set(err, st, NULL, 0, 0, "%s while writing the profile", rs_status_message(st));
  if (st == RS_OK)
    st = write_both(csv_path, &csv, fo->output, &prof, err);
  rs_transport_free(t);
  if (auth.data)
    memset(auth.data, 0, auth.alloc);
  rs_buf_release(&auth);
  rs_buf_release(&csv);
  rs_buf_release(&prof);
  return st;
}

static int run_fetch(const rs_cli_args *args) {
  fetch_opts *fo = args->opts;
  rs_arena arena;
  rs_error err;
  rs_fetch_result res;
  int rc = read_options(fo, args);
  if (rc != 0)
    return rc;
  rs_error_clear(&err);
  rs_arena_init(&arena, 0);
  rs_status st = fetch_and_write(fo, &arena, &res, &err);
  if (st == RS_OK && (printf("wrote %s and %s: %llu rows, %zu metrics, %zu requests\n", fo->output,
                             csv_path_for(&arena, fo->output), (unsigned long long)res.rows,
                             res.metrics, res.requests) < 0 ||
                      fflush(stdout) != 0))
    st = rs_error_set(&err, RS_INTERNAL, "standard output", 0, 0, "cannot write: %s",
                      strerror(errno));
  if (st == RS_OK)
    rc = 0;
  else if (err.status == RS_USAGE)
    rc = rs_cli_usage_error("fetch", err.msg);
  else
    rc = rs_cli_fail(&err);
  rs_arena_release(&arena);
  return rc;
}

const rs_cli_command rs_cmd_fetch = {
    .name = "fetch",
    .summary = "pull an endpoint's metrics from Prometheus into a profile and samples",
    .usage = "prometheus --url URL --selector MATCHERS -o PROFILE --endpoint NAME --provider CLOUD "
             "--instance TYPE --slo-p99 DURATION [options]",
    .description =
        "Runs one range query per metric against a Prometheus-compatible HTTP API\n"
        "(Prometheus, Thanos, Mimir, VictoriaMetrics): DCGM exporter GPU memory and\n"
        "utilization, node_exporter CPU, memory and network, request rate and latency\n"
        "quantiles, aggregated by the engine (see docs/sources.md). Writes a profile and\n"
        "its native samples CSV that 'rightsize profile' reads. Credentials come from an\n"
        "environment variable or a file, never from the command line.",
    .options = fetch_options,
    .opts_size = sizeof(fetch_opts),
    .init = init_options,
    .args = {1, 1, "source: prometheus"},
    .run = run_fetch,
    .examples =
        "  rightsize fetch prometheus --url http://prometheus:9090 --selector '{job=\"bert\"}' \\\n"
        "      -o bert.yaml --endpoint bert --provider aws --instance g4dn.xlarge "
        "--slo-p99 50ms\n"
        "  rightsize fetch prometheus --url https://thanos.example:10902 --token-env "
        "THANOS_TOKEN \\\n"
        "      --selector '{job=\"asr\"}' --since 14d --step 5m -o asr.yaml --endpoint asr "
        "--provider gcp \\\n"
        "      --instance g2-standard-8 --slo-p95 300ms\n",
};
