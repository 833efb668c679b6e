/* `nvidia-smi dmon` output: whitespace-separated columns under a "# gpu
 * pwr gtemp ..." header and a "# Idx W C ..." units line, both repeated
 * now and then; `-o DT` adds "#Date Time" columns in front. Only the
 * columns rightsize uses are read: gpu (the index), sm (utilization %,
 * from -s u) and fb (frame-buffer memory in use, from -s m). */
#include <stdio.h>
#include <string.h>

#include "ingest_internal.h"
#include "rightsize/num.h"

#define MAX_WORDS 64

typedef struct words {
  const char *w[MAX_WORDS];
  size_t len[MAX_WORDS], col[MAX_WORDS];
  size_t n;
} words;

/* The header's layout: the word index of each column we use, or -1. */
typedef struct dmon_cols {
  bool seen;
  int date, time, gpu, sm, fb;
  size_t ncols;
  size_t line; /* where the header was */
} dmon_cols;

static void split(words *out, const char *p, const char *end) {
  const char *start = p;
  out->n = 0;
  while (p < end && out->n < MAX_WORDS) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
      p++;
    if (p == end)
      break;
    out->w[out->n] = p;
    out->col[out->n] = (size_t)(p - start) + 1;
    while (p < end && *p != ' ' && *p != '\t' && *p != '\r')
      p++;
    out->len[out->n] = (size_t)(p - out->w[out->n]);
    out->n++;
  }
}

static bool word_is(const words *ws, size_t i, const char *word) {
  return strlen(word) == ws->len[i] && memcmp(ws->w[i], word, ws->len[i]) == 0;
}

/* "# gpu ..." or "#Date Time gpu ...": the words after '#' name columns. */
static void read_header(dmon_cols *c, const words *ws, size_t line) {
  memset(c, 0, sizeof(*c));
  c->date = c->time = c->gpu = c->sm = c->fb = -1;
  c->seen = true;
  c->ncols = ws->n;
  c->line = line;
  for (size_t i = 0; i < ws->n; i++) {
    int *slot = word_is(ws, i, "Date")   ? &c->date
                : word_is(ws, i, "Time") ? &c->time
                : word_is(ws, i, "gpu")  ? &c->gpu
                : word_is(ws, i, "sm")   ? &c->sm
                : word_is(ws, i, "fb")   ? &c->fb
                                         : NULL;
    if (slot != NULL && *slot < 0)
      *slot = (int)i;
  }
}

/* The header must give a time, a device and something to read: say which
 * dmon option is missing rather than fail on a later row. */
static rs_status check_header(const rs_export *x, const dmon_cols *c, rs_error *err) {
  if (c->gpu < 0)
    return rs_error_set(err, RS_INVALID, x->path, c->line, 1,
                        "nvidia-smi dmon header without a 'gpu' column, expected '# gpu ...'");
  if (c->date < 0 || c->time < 0)
    return rs_error_set(err, RS_INVALID, x->path, c->line, 1,
                        "nvidia-smi dmon output without %s columns has no time of day for its "
                        "rows, expected output of 'nvidia-smi dmon -o DT' (see "
                        "docs/samples-format.md)",
                        c->time < 0 ? "Date and Time" : "a Date");
  if (c->sm < 0 && c->fb < 0)
    return rs_error_set(err, RS_INVALID, x->path, c->line, 1,
                        "nvidia-smi dmon output without 'sm' or 'fb' columns holds nothing "
                        "rightsize reads, expected 'nvidia-smi dmon -s um -o DT' (utilization and "
                        "memory)");
  return RS_OK;
}

/* "20261130" "14:05:01" -> epoch seconds, read as UTC like nvidia-smi logs. */
static rs_status row_time(double *out, const rs_export *x, const words *ws, const dmon_cols *c,
                          size_t line, rs_error *err) {
  char text[32];
  const char *d = ws->w[c->date], *t = ws->w[c->time];
  if (ws->len[c->date] == 8 && ws->len[c->time] == 8) {
    snprintf(text, sizeof(text), "%.4s-%.2s-%.2sT%.8sZ", d, d + 4, d + 6, t);
    if (rs_time_parse(text, strlen(text), out) == RS_OK)
      return RS_OK;
  }
  return rs_error_set(err, RS_INVALID, x->path, line, ws->col[c->date],
                      "expected a date and time as 'YYYYMMDD HH:MM:SS', got '%.*s %.*s'",
                      (int)(ws->len[c->date] > 16 ? 16 : ws->len[c->date]), d,
                      (int)(ws->len[c->time] > 16 ? 16 : ws->len[c->time]), t);
}

static rs_status add_value(rs_export *x, const words *ws, int at, rs_metric m, double scale,
                           const char *key, int gpu, double t, size_t line, rs_error *err) {
  rs_series_rule rule = {key, false, m, scale, 0.0};
  if (at < 0 || (ws->len[at] == 1 && ws->w[at][0] == '-'))
    return RS_OK; /* not selected, or "-": not measured */
  return rs_export_add(x, &rule, key, gpu, t, ws->w[at], ws->len[at], line, ws->col[at], err);
}

static rs_status data_row(rs_export *x, const dmon_cols *c, const words *ws, size_t line,
                          rs_error *err) {
  double t;
  int gpu;
  rs_status st;
  if (ws->n != c->ncols)
    return rs_error_set(err, RS_INVALID, x->path, line, ws->n ? ws->col[ws->n - 1] : 1,
                        "row has %zu fields, expected %zu (as in the header at line %zu)", ws->n,
                        c->ncols, c->line);
  st = row_time(&t, x, ws, c, line, err);
  if (st == RS_OK)
    st = rs_export_gpu(&gpu, x, ws->w[c->gpu], ws->len[c->gpu], line, ws->col[c->gpu], err);
  if (st == RS_OK)
    st = add_value(x, ws, c->sm, RS_METRIC_GPU_UTIL, 1.0, "sm", gpu, t, line, err);
  if (st == RS_OK) /* dmon's "MB" is the MiB nvidia-smi shows everywhere else */
    st = add_value(x, ws, c->fb, RS_METRIC_GPU_MEM_USED, RS_MIB, "fb", gpu, t, line, err);
  return st;
}

static rs_status one_line(rs_export *x, dmon_cols *c, const char *p, const char *end, size_t line,
                          rs_error *err) {
  words ws;
  if (p < end && *p == '#') {
    split(&ws, p + 1, end);
    if (ws.n > 0 && !word_is(&ws, 0, "Idx") && !word_is(&ws, 0, "YYYYMMDD") &&
        !word_is(&ws, 0, "HH:MM:SS")) {
      read_header(c, &ws, line);
      return check_header(x, c, err);
    }
    return RS_OK; /* the units line */
  }
  split(&ws, p, end);
  if (ws.n == 0)
    return RS_OK;
  if (!c->seen)
    return rs_error_set(err, RS_INVALID, x->path, line, 1,
                        "expected the nvidia-smi dmon header '# gpu ...' before the rows");
  return data_row(x, c, &ws, line, err);
}

bool rs_ingest_dmon_sniff(const char *p, const char *end) {
  words ws;
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  if (p >= end || *p != '#')
    return false;
  split(&ws, p + 1, nl ? nl : end);
  for (size_t i = 0; i < ws.n && i < 3; i++)
    if (word_is(&ws, i, "gpu"))
      return i == 0 || word_is(&ws, 0, "Date") || word_is(&ws, 0, "Time");
  return false;
}

rs_status rs_ingest_dmon(rs_export *x, const char *data, size_t len, rs_error *err) {
  const char *p = data, *end = data + len;
  dmon_cols cols;
  size_t line = 1;
  rs_status st = RS_OK;
  memset(&cols, 0, sizeof(cols));
  if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
    p += 3;
  while (st == RS_OK && p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    st = one_line(x, &cols, p, nl ? nl : end, line, err);
    p = nl ? nl + 1 : end;
    line++;
  }
  x->series = x->mapped = x->n > 0 ? 1 : 0;
  return st;
}
