/* rightsize fetch prometheus: pull an endpoint's metrics from a
 * Prometheus-compatible HTTP API into a profile and its native samples CSV. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "rightsize/arena.h"
#include "rightsize/buf.h"
#include "rightsize/doc.h"
#include "rightsize/fetch.h"
#include "rightsize/http.h"
#include "rightsize/num.h"
#include "rightsize/profile.h"

enum {
  OPT_URL = 1,
  OPT_SELECTOR,
  OPT_SINCE,
  OPT_END,
  OPT_STEP,
  OPT_RATE_WINDOW,
  OPT_OUTPUT,
  OPT_ENDPOINT,
  OPT_PROVIDER,
  OPT_INSTANCE,
  OPT_REPLICAS,
  OPT_REGION,
  OPT_SLO_P99,
  OPT_SLO_P95,
  OPT_FAMILIES,
  OPT_REQUESTS,
  OPT_HISTOGRAM,
  OPT_TOKEN_ENV,
  OPT_TOKEN_FILE,
  OPT_BASIC_ENV,
  OPT_INSECURE,
  OPT_CONNECT_TIMEOUT,
  OPT_TIMEOUT,
  OPT_MAX_BYTES,
  OPT_RETRIES
};

static const rs_cli_option fetch_options[] = {
    {"url", 0, "URL", "API base URL (Prometheus, Thanos, Mimir, VictoriaMetrics)", OPT_URL},
    {"selector", 0, "MATCHERS", "label matchers of the endpoint: '{job=\"bert\"}'", OPT_SELECTOR},
    {"since", 0, "DURATION", "how far back from --end (default 7d)", OPT_SINCE},
    {"end", 0, "TIME", "end of the range, unix seconds or RFC 3339 (default now)", OPT_END},
    {"step", 0, "DURATION", "resolution, one row per step (default 60s)", OPT_STEP},
    {"rate-window", 0, "DURATION", "rate() window for counters (default 5m, at least --step)",
     OPT_RATE_WINDOW},
    {"output", 'o', "FILE", "profile to write (.yaml); samples go to the same name with .csv",
     OPT_OUTPUT},
    {"endpoint", 0, "NAME", "endpoint name for the profile", OPT_ENDPOINT},
    {"provider", 0, "CLOUD", "current provider: aws, gcp or azure", OPT_PROVIDER},
    {"instance", 0, "TYPE", "current instance type", OPT_INSTANCE},
    {"replicas", 0, "N", "current replicas (default 1)", OPT_REPLICAS},
    {"region", 0, "REGION", "current region (optional)", OPT_REGION},
    {"slo-p99", 0, "DURATION", "p99 latency target (this or --slo-p95 is required)", OPT_SLO_P99},
    {"slo-p95", 0, "DURATION", "p95 latency target", OPT_SLO_P95},
    {"families", 0, "LIST", "accelerator families the model runs on (default nvidia-gpu)",
     OPT_FAMILIES},
    {"requests-metric", 0, "NAME", "request counter (default http_requests_total)", OPT_REQUESTS},
    {"latency-histogram", 0, "NAME",
     "latency histogram in seconds (default http_request_duration_seconds)", OPT_HISTOGRAM},
    {"token-env", 0, "VAR", "bearer token from this environment variable", OPT_TOKEN_ENV},
    {"token-file", 0, "FILE", "bearer token from this file", OPT_TOKEN_FILE},
    {"basic-auth-env", 0, "VAR", "basic auth 'user:password' from this environment variable",
     OPT_BASIC_ENV},
    {"insecure", 0, NULL, "do not verify the server's TLS certificate", OPT_INSECURE},
    {"connect-timeout", 0, "DURATION", "connect timeout per request (default 10s)",
     OPT_CONNECT_TIMEOUT},
    {"timeout", 0, "DURATION", "total timeout per request (default 60s)", OPT_TIMEOUT},
    {"max-bytes", 0, "SIZE", "largest response accepted (default 64MiB)", OPT_MAX_BYTES},
    {"retries", 0, "N", "retries on 429 and 5xx, with backoff (default 3)", OPT_RETRIES},
    {NULL, 0, NULL, NULL, 0}};

typedef struct fetch_opts {
  const char *v[OPT_RETRIES + 1]; /* the value of each option, NULL when absent */
  bool insecure;
  rs_fetch_prom_options prom;
  rs_http_retry retry;
  double since_s;
  const char *csv_path; /* arena */
} fetch_opts;

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

static int duration(double *out, const char *v, const char *flag, double min_s) {
  if (v != NULL &&
      (rs_units_parse(RS_UNIT_SECONDS, v, strlen(v), NULL, out) != RS_OK || *out < min_s)) {
    char msg[256];
    snprintf(msg, sizeof(msg), "bad --%s '%s', expected a duration such as 60s, 5m or 7d", flag, v);
    return rs_cli_usage_error("fetch", msg);
  }
  return 0;
}

static bool one_of(const char *v, const char *const *words) {
  for (; *words; words++)
    if (strcmp(v, *words) == 0)
      return true;
  return false;
}

/* Every family in a comma list is known. */
static bool families_ok(const char *list) {
  static const char *const known[] = {"nvidia-gpu", "cpu", "inferentia", "trainium", "tpu", NULL};
  char word[32];
  for (const char *p = list; *p;) {
    size_t n = strcspn(p, ",");
    if (n == 0 || n >= sizeof(word))
      return false;
    memcpy(word, p, n);
    word[n] = '\0';
    if (!one_of(word, known))
      return false;
    p += n + (p[n] == ',');
  }
  return list[0] != '\0';
}

static int check_required(const fetch_opts *fo) {
  static const struct {
    int id;
    const char *flag;
  } required[] = {{OPT_URL, "--url"},           {OPT_SELECTOR, "--selector"},
                  {OPT_OUTPUT, "--output"},     {OPT_ENDPOINT, "--endpoint"},
                  {OPT_PROVIDER, "--provider"}, {OPT_INSTANCE, "--instance"}};
  static const char *const providers[] = {"aws", "gcp", "azure", NULL};
  for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
    if (fo->v[required[i].id] == NULL)
      return usage("fetch prometheus needs %s", required[i].flag);
  if (fo->v[OPT_SLO_P99] == NULL && fo->v[OPT_SLO_P95] == NULL)
    return usage("fetch prometheus needs %s (or --slo-p95): the profile's latency target",
                 "--slo-p99");
  if (!one_of(fo->v[OPT_PROVIDER], providers))
    return usage("unknown --provider '%s', expected aws, gcp or azure", fo->v[OPT_PROVIDER]);
  if (fo->v[OPT_FAMILIES] && !families_ok(fo->v[OPT_FAMILIES]))
    return usage("bad --families '%s', expected a comma list of nvidia-gpu, cpu, inferentia, "
                 "trainium, tpu",
                 fo->v[OPT_FAMILIES]);
  if ((fo->v[OPT_TOKEN_ENV] != NULL) + (fo->v[OPT_TOKEN_FILE] != NULL) +
          (fo->v[OPT_BASIC_ENV] != NULL) >
      1)
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

static int read_numbers(fetch_opts *fo) {
  uint64_t n;
  double v = 0;
  int rc = duration(&fo->prom.step_s, fo->v[OPT_STEP], "step", 1);
  if (rc == 0)
    rc = duration(&fo->since_s, fo->v[OPT_SINCE], "since", 1);
  if (rc == 0)
    rc = duration(&fo->prom.rate_window_s, fo->v[OPT_RATE_WINDOW], "rate-window", 1);
  if (rc == 0 && (rc = duration(&v, fo->v[OPT_CONNECT_TIMEOUT], "connect-timeout", 0.001)) == 0 &&
      fo->v[OPT_CONNECT_TIMEOUT])
    fo->prom.http.connect_timeout_ms = (long)(v * 1000);
  if (rc == 0 && (rc = duration(&v, fo->v[OPT_TIMEOUT], "timeout", 0.001)) == 0 &&
      fo->v[OPT_TIMEOUT])
    fo->prom.http.timeout_ms = (long)(v * 1000);
  if (rc != 0)
    return rc;
  if (fo->v[OPT_MAX_BYTES]) {
    if (rs_units_parse(RS_UNIT_BYTES, fo->v[OPT_MAX_BYTES], strlen(fo->v[OPT_MAX_BYTES]), NULL,
                       &v) != RS_OK ||
        v < 1024 || v > 4e9)
      return usage("bad --max-bytes '%s', expected a size between 1KiB and 4GB such as 64MiB",
                   fo->v[OPT_MAX_BYTES]);
    fo->prom.http.max_bytes = (size_t)v;
  }
  if (fo->v[OPT_RETRIES]) {
    int64_t r;
    if (rs_num_parse_int64(fo->v[OPT_RETRIES], strlen(fo->v[OPT_RETRIES]), &r) != RS_OK || r < 0 ||
        r > 10)
      return usage("bad --retries '%s', expected an integer from 0 to 10", fo->v[OPT_RETRIES]);
    fo->retry.attempts = (unsigned)r + 1;
  }
  if (fo->v[OPT_REPLICAS] && (rs_num_parse_int64(fo->v[OPT_REPLICAS], strlen(fo->v[OPT_REPLICAS]),
                                                 (int64_t *)&n) != RS_OK ||
                              (int64_t)n < 1))
    return usage("bad --replicas '%s', expected an integer >= 1", fo->v[OPT_REPLICAS]);
  return 0;
}

static int read_times(fetch_opts *fo) {
  const char *end = fo->v[OPT_END];
  fo->prom.end = (double)time(NULL);
  if (end && rs_time_parse(end, strlen(end), &fo->prom.end) != RS_OK)
    return usage("bad --end '%s', expected unix seconds or an RFC 3339 time", end);
  fo->prom.start = fo->prom.end - fo->since_s;
  return 0;
}

static int read_options(fetch_opts *fo, const rs_cli_args *args) {
  int rc;
  memset(fo, 0, sizeof(*fo));
  for (size_t i = 0; i < args->nopts; i++) {
    if (args->opts[i].id == OPT_INSECURE)
      fo->insecure = true;
    else
      fo->v[args->opts[i].id] = args->opts[i].value;
  }
  if (args->nargs != 1 || strcmp(args->args[0], "prometheus") != 0)
    return usage("%s", args->nargs == 0 ? "fetch needs a source: prometheus"
                                        : "fetch knows one source: prometheus");
  fo->prom.step_s = 60;
  fo->since_s = 7 * 86400.0;
  if ((rc = check_required(fo)) != 0 || (rc = check_url(fo->v[OPT_URL])) != 0 ||
      (rc = read_numbers(fo)) != 0 || (rc = read_times(fo)) != 0)
    return rc;
  fo->prom.url = fo->v[OPT_URL];
  fo->prom.selector = fo->v[OPT_SELECTOR];
  fo->prom.requests_metric = fo->v[OPT_REQUESTS];
  fo->prom.latency_histogram = fo->v[OPT_HISTOGRAM];
  fo->prom.http.insecure = fo->insecure;
  fo->prom.retry = &fo->retry;
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
  if (fo->v[OPT_TOKEN_ENV])
    st = secret_from_env(&secret, fo->v[OPT_TOKEN_ENV], err);
  else if (fo->v[OPT_BASIC_ENV])
    st = secret_from_env(&secret, fo->v[OPT_BASIC_ENV], err);
  else if (fo->v[OPT_TOKEN_FILE])
    st = secret_from_file(&secret, arena, fo->v[OPT_TOKEN_FILE], err);
  if (st != RS_OK || secret == NULL)
    return st;
  if (strpbrk(secret, "\r\n") != NULL)
    return rs_error_set(err, RS_INVALID, NULL, 0, 0,
                        "the credential holds a line break, expected one line");
  if (fo->v[OPT_BASIC_ENV] && strchr(secret, ':') == NULL)
    return rs_error_set(err, RS_INVALID, NULL, 0, 0,
                        "environment variable '%s' must hold 'user:password'",
                        fo->v[OPT_BASIC_ENV]);
  if (fo->v[OPT_BASIC_ENV])
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

static void put_profile(rs_buf *b, const fetch_opts *fo, const char *csv_name) {
  double slo;
  const char *fam = fo->v[OPT_FAMILIES] ? fo->v[OPT_FAMILIES] : "nvidia-gpu";
  char t0[32], t1[32];
  rs_time_format(fo->prom.start, t0, sizeof(t0));
  rs_time_format(fo->prom.end, t1, sizeof(t1));
  rs_buf_puts(b, "# Written by rightsize fetch prometheus (docs/sources.md).\nschema: 1\n"
                 "endpoint: ");
  rs_buf_put_json_string(b, fo->v[OPT_ENDPOINT]);
  rs_buf_puts(b, "\ndescription: ");
  rs_buf_printf(b, "\"fetched from Prometheus, %s .. %s, step %gs\"\n", t0, t1, fo->prom.step_s);
  rs_buf_puts(b, "source: production\nmodel:\n  families: [");
  for (const char *p = fam; *p; p++)
    rs_buf_puts(b, *p == ',' ? ", " : (char[2]){*p, '\0'});
  rs_buf_puts(b, "]\ncurrent:\n  provider: ");
  rs_buf_puts(b, fo->v[OPT_PROVIDER]);
  rs_buf_puts(b, "\n  instance: ");
  rs_buf_put_json_string(b, fo->v[OPT_INSTANCE]);
  rs_buf_printf(b, "\n  replicas: %s\n", fo->v[OPT_REPLICAS] ? fo->v[OPT_REPLICAS] : "1");
  if (fo->v[OPT_REGION]) {
    rs_buf_puts(b, "  region: ");
    rs_buf_put_json_string(b, fo->v[OPT_REGION]);
    rs_buf_putc(b, '\n');
  }
  rs_buf_puts(b, "slo:\n");
  for (int i = 0; i < 2; i++) {
    const char *v = fo->v[i == 0 ? OPT_SLO_P99 : OPT_SLO_P95];
    if (v && rs_units_parse(RS_UNIT_SECONDS, v, strlen(v), "ms", &slo) == RS_OK)
      rs_buf_printf(b, "  latency_p%s: %.17gms\n", i == 0 ? "99" : "95", slo * 1000.0);
  }
  rs_buf_puts(b, "samples:\n  - path: ");
  rs_buf_put_json_string(b, csv_name);
  rs_buf_puts(b, "\n    format: native\n");
}

/* Writes data to path through a temporary file and a rename, so a reader
 * never sees half a file. Failing to write the output is exit code 5, as for
 * standard output (docs/exit-codes.md). */
static rs_status write_whole(const char *path, const rs_buf *data, rs_arena *arena, rs_error *err) {
  size_t n = strlen(path);
  char *tmp = rs_arena_alloc(arena, n + 8);
  FILE *f;
  if (tmp == NULL)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory");
  memcpy(tmp, path, n);
  memcpy(tmp + n, ".tmp", 5);
  f = fopen(tmp, "wb");
  if (f == NULL)
    return rs_error_set(err, RS_INTERNAL, path, 0, 0, "cannot write: %s", strerror(errno));
  bool ok = fwrite(data->data, 1, data->len, f) == data->len;
  ok = (fclose(f) == 0) && ok;
  if (!ok || rename(tmp, path) != 0) {
    int saved = errno;
    remove(tmp);
    return rs_error_set(err, RS_INTERNAL, path, 0, 0, "cannot write: %s", strerror(saved));
  }
  return RS_OK;
}

static rs_status fetch_and_write(const fetch_opts *fo, rs_arena *arena, rs_fetch_result *res,
                                 rs_error *err) {
  rs_transport *t = NULL;
  rs_buf auth, csv, prof;
  rs_fetch_prom_options prom = fo->prom;
  const char *csv_path = csv_path_for(arena, fo->v[OPT_OUTPUT]);
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
  if (st == RS_OK) {
    put_profile(&prof, fo, slash ? slash + 1 : csv_path);
    st = write_whole(csv_path, &csv, arena, err);
  }
  if (st == RS_OK && (st = write_whole(fo->v[OPT_OUTPUT], &prof, arena, err)) != RS_OK)
    remove(csv_path);
  rs_transport_free(t);
  if (auth.data)
    memset(auth.data, 0, auth.alloc);
  rs_buf_release(&auth);
  rs_buf_release(&csv);
  rs_buf_release(&prof);
  return st;
}

static int run_fetch(const rs_cli_args *args) {
  fetch_opts fo;
  rs_arena arena;
  rs_error err;
  rs_fetch_result res;
  int rc = read_options(&fo, args);
  if (rc != 0)
    return rc;
  rs_error_clear(&err);
  rs_arena_init(&arena, 0);
  rs_status st = fetch_and_write(&fo, &arena, &res, &err);
  if (st == RS_OK)
    printf("wrote %s and %s: %llu rows, %zu metrics, %zu requests\n", fo.v[OPT_OUTPUT],
           csv_path_for(&arena, fo.v[OPT_OUTPUT]), (unsigned long long)res.rows, res.metrics,
           res.requests);
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
    .run = run_fetch,
};
