/* rightsize record dcgm: scrape a Prometheus text exposition endpoint (a
 * DCGM exporter's /metrics) on a schedule into a native samples CSV, for
 * exporters whose scrapes carry no timestamps. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "rightsize/buf.h"
#include "rightsize/fetch.h"
#include "rightsize/file.h"
#include "rightsize/http.h"
#include "rightsize/ingest.h"

/* The longest recording: with --every at least 1 s, at most 604800 scrapes. */
#define RECORD_MAX_FOR_S (7 * 86400.0)

typedef struct record_opts {
  const char *output;
  double every_s, for_s, timeout_s;
  bool insecure;
} record_opts;

#define OPT(m) offsetof(record_opts, m)
static const rs_cli_opt record_options[] = {
    {RS_CLI_OPT("every", 0, RS_CLI_DURATION, OPT(every_s), "DURATION",
                "time between scrapes (default 15s, at least 1s)"),
     .lo = 1},
    {RS_CLI_OPT("for", 0, RS_CLI_DURATION, OPT(for_s), "DURATION",
                "how long to record (default 1h, at most 7d)"),
     .lo = 1},
    {RS_CLI_OPT("output", 'o', RS_CLI_PATH, OPT(output), "FILE", "native samples CSV to write")},
    {RS_CLI_OPT("timeout", 0, RS_CLI_DURATION, OPT(timeout_s), "DURATION",
                "total timeout per scrape (default 10s)"),
     .lo = 0.001},
    {RS_CLI_OPT("insecure", 0, RS_CLI_FLAG, OPT(insecure), NULL,
                "do not verify the server's TLS certificate")},
    {0}};

static void init_options(void *opts) {
  record_opts *ro = opts;
  ro->every_s = 15;
  ro->for_s = 3600;
  ro->timeout_s = 10;
}

/* Set by SIGINT/SIGTERM: a signal handler can only talk through a
 * sig_atomic_t with static storage, so this is the one piece of file state. */
static volatile sig_atomic_t stop_requested;

static void on_signal(int sig) {
  (void)sig;
  stop_requested = 1;
}

static void catch_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

static double monotonic_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double wall_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleeps until the monotonic clock reads until; false when a signal asked
 * to stop first. */
static bool sleep_until(double until) {
  for (;;) {
    if (stop_requested)
      return false;
    double left = until - monotonic_s();
    if (left <= 0)
      return true;
    struct timespec ts = {(time_t)left, (long)((left - floor(left)) * 1e9)};
    nanosleep(&ts, NULL); /* EINTR: loop, and see the flag */
  }
}

static int check_options(const record_opts *ro, const rs_cli_args *args) {
  const char *url = args->args[1];
  if (strcmp(args->args[0], "dcgm") != 0)
    return rs_cli_usage_error("record", "record knows one source: dcgm");
  if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
    return rs_cli_usage_error("record",
                              "bad URL, expected http://HOST:PORT/metrics or https://...");
  if (ro->output == NULL)
    return rs_cli_usage_error("record", "record needs --output");
  if (ro->for_s > RECORD_MAX_FOR_S)
    return rs_cli_usage_error("record", "--for is longer than the maximum of 7d");
  return 0;
}

/* One scrape, its rows appended to csv as native CSV lines; on failure csv
 * is as it was. */
static rs_status scrape(rs_buf *csv, rs_transport *t, const rs_http_request *req, uint64_t *rows,
                        rs_error *err) {
  rs_buf body;
  long status = 0;
  size_t before = csv->len;
  rs_ingest_result res;
  rs_ingest_options io = {.format = RS_FORMAT_PROM_TEXT, .instant_t = wall_s()};
  rs_http_retry once = {.attempts = 1};
  rs_buf_init(&body, 0);
  rs_status st = rs_http_get(t, req, &once, &status, &body, err);
  if (st == RS_OK && status != 200)
    st = rs_error_set(err, RS_IO, req->url, 0, 0, "HTTP status %ld", status);
  if (st == RS_OK)
    st = rs_ingest_memory(req->url, body.data ? body.data : "", body.len, &io, rs_fetch_csv_sink,
                          csv, &res, err);
  if (st == RS_OK)
    *rows += res.rows;
  else
    csv->len = before;
  rs_buf_release(&body);
  return st;
}

/* Scrapes at 0, every, 2*every, ... while less than --for has passed, or
 * until a signal; a failed scrape ends the loop with its error. */
static rs_status record_loop(rs_buf *csv, const record_opts *ro, const char *url,
                             unsigned long *scrapes, uint64_t *rows, rs_error *err) {
  rs_transport *t = NULL;
  rs_http_request req = {.url = url,
                         .insecure = ro->insecure,
                         .connect_timeout_ms = (long)(ro->timeout_s * 1000),
                         .timeout_ms = (long)(ro->timeout_s * 1000)};
  rs_status st = rs_transport_curl_new(&t, err);
  double start = monotonic_s();
  for (unsigned long k = 0; st == RS_OK; k++) {
    double at = (double)k * ro->every_s;
    if (at >= ro->for_s || !sleep_until(start + at))
      break;
    if ((st = scrape(csv, t, &req, rows, err)) == RS_OK)
      (*scrapes)++;
  }
  rs_transport_free(t);
  return st;
}

static int run_record(const rs_cli_args *args) {
  record_opts *ro = args->opts;
  rs_error err, werr;
  rs_buf csv;
  unsigned long scrapes = 0;
  uint64_t rows = 0;
  int rc = check_options(ro, args);
  if (rc != 0)
    return rc;
  rs_error_clear(&err);
  rs_error_clear(&werr);
  rs_buf_init(&csv, 0);
  catch_signals();
  rs_status st = record_loop(&csv, ro, args->args[1], &scrapes, &rows, &err);
  /* What was recorded before a failure or a signal is kept. */
  rs_status wst = csv.len > 0 ? rs_file_write_atomic(ro->output, csv.data, csv.len, &werr) : RS_OK;
  rs_buf_release(&csv);
  if (wst != RS_OK)
    return rs_cli_fail(&werr);
  if (st != RS_OK)
    return rs_cli_fail(&err);
  if (rows == 0) {
    rs_error_set(&err, RS_INVALID, args->args[1], 0, 0, "no samples were recorded");
    return rs_cli_fail(&err);
  }
  printf("wrote %s: %lu scrapes, %llu rows\n", ro->output, scrapes, (unsigned long long)rows);
  return fflush(stdout) == 0 ? 0 : 5;
}

const rs_cli_command rs_cmd_record = {
    .name = "record",
    .summary = "scrape a DCGM exporter's /metrics on a schedule into a samples CSV",
    .usage = "dcgm URL -o FILE [--every DURATION] [--for DURATION] [options]",
    .description =
        "Scrapes URL (a DCGM exporter, or any Prometheus text exposition endpoint) every\n"
        "--every for --for, reads each scrape as one instant at the scrape's wall-clock\n"
        "time, and writes the rows to a native samples CSV that 'rightsize profile'\n"
        "reads. SIGINT or SIGTERM ends the recording after the current scrape; a failed\n"
        "scrape ends it with one line on stderr. Either way the file holds what was\n"
        "recorded, written whole (see docs/sources.md).",
    .options = record_options,
    .opts_size = sizeof(record_opts),
    .init = init_options,
    .args = {2, 2, "source (dcgm) and URL"},
    .run = run_record,
    .examples = "  rightsize record dcgm http://gpu-node:9400/metrics --every 15s --for 1h "
                "-o dcgm.csv\n",
};
