/* Sample files in, rows out.
 *
 * Formats: the native CSV (docs/samples-format.md: unit-bearing column names
 * such as gpu_mem_used_mib), nvidia-smi --query-gpu CSV logs as nvidia-smi
 * prints them (with or without units, with or without header), per-request
 * logs (one CSV row per request, turned into token rows and per-interval
 * rates and percentiles), and what
 * monitoring systems export (docs/sources.md): Prometheus query_range JSON,
 * Prometheus text exposition scrapes with timestamps, and CloudWatch
 * get-metric-data JSON; and any CSV through a mapping file's csv section
 * (docs/samples-format.md, "Any CSV"). Any of them may be gzip- or
 * zstd-compressed (told by magic bytes) and read from standard input. The
 * format is detected from the content unless given. Every cell is
 * validated (numbers, units, ranges) and converted to canonical units before
 * the row reaches the sink; the first bad cell stops ingestion with its
 * position, so a caller never sees part of a bad file as good data. */
#ifndef RIGHTSIZE_INGEST_H
#define RIGHTSIZE_INGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rightsize/arena.h"
#include "rightsize/error.h"
#include "rightsize/metric.h"
#include "rightsize/progress.h"

typedef enum {
  RS_FORMAT_AUTO = 0,
  RS_FORMAT_NATIVE,     /* "native" */
  RS_FORMAT_NVSMI,      /* "nvidia-smi" */
  RS_FORMAT_PROM_JSON,  /* "prometheus-json": an HTTP API query_range response */
  RS_FORMAT_PROM_TEXT,  /* "prometheus-text": text exposition scrapes with timestamps */
  RS_FORMAT_CLOUDWATCH, /* "cloudwatch-json": aws cloudwatch get-metric-data output */
  RS_FORMAT_REQUESTS,   /* "requests": a per-request log, one CSV row per request */
  RS_FORMAT_CSV,        /* "csv": any CSV, read through a mapping file's csv section */
  RS_FORMAT_DMON,       /* "nvidia-smi-dmon": nvidia-smi dmon -o DT output */
  RS_FORMAT_COUNT
} rs_sample_format;

/* The format names in enum order, NULL-terminated. */
extern const char *const rs_sample_format_names[];

/* The names accepted by rs_format_from_name, for messages. */
#define RS_FORMAT_NAMES                                                                            \
  "auto, native, nvidia-smi, prometheus-json, prometheus-text, cloudwatch-json, requests, csv "    \
  "or nvidia-smi-dmon"

/* A format name ("auto", "native", "nvidia-smi", "prometheus-json", ...) ->
 * enum; RS_USAGE for an unknown name. */
rs_status rs_format_from_name(rs_sample_format *out, const char *name);
const char *rs_format_name(rs_sample_format f);

/* What a column holds. */
typedef enum {
  RS_COL_TIMESTAMP,
  RS_COL_GPU_INDEX,
  RS_COL_METRIC,
  RS_COL_IGNORED /* user columns named x_..., and nvidia-smi fields we do not use */
} rs_column_kind;

typedef struct rs_column {
  rs_column_kind kind;
  rs_metric metric; /* for RS_COL_METRIC */
  double scale;     /* canonical value = number in the cell x scale */
  const char *unit; /* unit text a cell may carry after the number ("MiB", "%"), or NULL */
} rs_column;

/* Looks up a native column name ("gpu_mem_used_mib"). RS_INVALID when the
 * name is not a known column (the caller adds the position). */
rs_status rs_column_from_name(rs_column *out, const char *name, size_t len);

/* Parses one cell of column c into s (sets the value and its present bit,
 * or s->t / s->gpu). An empty cell leaves the metric absent (a timestamp may
 * not be empty). Checks: a locale-free number, an optional unit matching the
 * column, "[N/A]"-style cells as absent, finite, >= 0, <= the metric's upper
 * bound. Errors carry path:line:col. */
rs_status rs_sample_set_cell(rs_sample *s, const rs_column *c, const char *text, size_t len,
                             const char *path, size_t line, size_t col, rs_error *err);

/* Label selection (--select KEY=VALUE, a mapping's select): a CSV row or
 * an exported series is kept when every match holds (the column or label
 * KEY has exactly VALUE). Texts are borrowed. */
#define RS_SELECT_MAX 16
#define RS_SELECT_KEY_MAX 64

typedef struct rs_label_match {
  char key[RS_SELECT_KEY_MAX]; /* a copy */
  const char *value;           /* borrowed */
} rs_label_match;

typedef struct rs_selection {
  rs_label_match m[RS_SELECT_MAX];
  size_t n;
} rs_selection;

/* Adds "KEY=VALUE" (the value borrowed from text): RS_USAGE without '=',
 * with an empty key or one of RS_SELECT_KEY_MAX bytes or more, RS_LIMIT
 * past RS_SELECT_MAX matches. */
rs_status rs_selection_add(rs_selection *s, const char *text);

/* Appends every match of from to to: RS_LIMIT past RS_SELECT_MAX. */
rs_status rs_selection_merge(rs_selection *to, const rs_selection *from);

/* How a mapped CSV column (wide) or a whole file (long, by base name)
 * becomes a metric (docs/samples-format.md, "Any CSV"). */
typedef struct rs_csv_rule {
  const char *name; /* the column, or the file's base name */
  bool ignore;
  rs_metric metric;
  double scale;        /* canonical value = cell x scale (from unit and scale) */
  rs_selection select; /* files: rows kept from this file */
  size_t line, col;    /* in the mapping file */
} rs_csv_rule;

/* A mapping file's csv section: which column is what. Column names are
 * matched after trimming. */
typedef struct rs_csv_map {
  bool set;                  /* the mapping has a csv section */
  const char *time;          /* the time column (required) */
  double time_scale;         /* seconds per unit of a numeric time; 0: unix seconds or RFC 3339 */
  const char *value;         /* long format: the value column */
  const char *metric_column; /* long format: the column naming the series (a series key) */
  bool has_metric;           /* long format: one metric for the whole file */
  rs_metric metric;
  double scale;
  const char *device;   /* the device index column, or NULL */
  const char *endpoint; /* the endpoint column (pod, container, host), or NULL */
  rs_csv_rule *columns; /* wide format */
  size_t ncolumns;
  rs_csv_rule *files; /* per-file metric and selection, by base name */
  size_t nfiles;
  rs_selection select; /* rows kept from every file */
  const char *path;    /* the mapping file, for messages */
  size_t line, col;    /* of the csv section */
} rs_csv_map;

/* How exported series become metrics (docs/sources.md). A series' key is its
 * rs_metric label when it has one, else its __name__ (Prometheus) or its Label
 * (CloudWatch). A user rule for a key replaces the default rule. */
typedef struct rs_series_rule {
  const char *key;
  bool ignore; /* drop the series */
  rs_metric metric;
  double scale; /* canonical value = exported value x scale */
  double cap;   /* > 0: a larger canonical value is read as cap (a device's memory) */
} rs_series_rule;

typedef struct rs_series_map {
  const rs_series_rule *rules; /* user rules, tried before the defaults */
  size_t nrules;
  double gpu_mem_total; /* bytes per device, for CloudWatch GPUMemoryUtilization; 0: unknown */
  double gpus;          /* devices summed in CloudWatch GPU metrics (default 1) */
  double cpus;          /* vCPUs summed in CloudWatch CPUUtilization (default 1) */
  double period_s;      /* CloudWatch period of Invocations sums (default 60) */
  rs_csv_map csv;       /* any CSV: which column is what */
  const void *profile;  /* the mapping's profile section (an rs_node), or NULL */
} rs_series_map;

/* Sets the defaults: no user rules, gpus 1, cpus 1, period 60 s. */
void rs_series_map_init(rs_series_map *map);

/* Reads a mapping file (YAML or JSON, docs/sources.md) into out; everything
 * lives in arena. Errors carry the file's position (RS_IO, RS_SYNTAX, RS_INVALID). */
rs_status rs_series_map_load(rs_series_map *out, rs_arena *arena, const char *path, rs_error *err);

typedef struct rs_ingest_options {
  rs_sample_format format;    /* RS_FORMAT_AUTO: detect */
  size_t max_record_bytes;    /* 0: the CSV reader's default (1 MiB) */
  const rs_series_map *map;   /* exported formats and mapped CSV; NULL: the defaults */
  const rs_selection *select; /* rows and series kept; NULL: all */
  double interval_s;          /* request logs: seconds per rate row; 0: the default (60) */
  double instant_t;           /* a scrape without timestamps was taken then (unix seconds);
                                 0: the file's mtime (record passes the scrape's clock) */
  rs_progress *progress;      /* bytes read, per block (rightsize/progress.h); NULL: none */
} rs_ingest_options;

/* The interval over which a request log's rows become rates and percentiles. */
#define RS_INGEST_INTERVAL_DEFAULT 60.0

/* What a reader had to assume or skip, for the summary to say
 * (docs/samples-format.md, docs/sources.md): bits of rs_ingest_result.notes. */
typedef enum {
  RS_INGEST_NOTE_INSTANT = 1u << 0,     /* a scrape without timestamps: one instant, now */
  RS_INGEST_NOTE_GPU_MEM_AVG = 1u << 1, /* CloudWatch GPUMemoryUtilization, an average over
                                           the GPUs, read as if one device held it all */
  RS_INGEST_NOTE_DEVICE_KEYS = 1u << 2  /* nvidia-smi devices told apart by bus id or uuid */
} rs_ingest_note;

typedef struct rs_ingest_result {
  rs_sample_format format;   /* the format used (detected or given) */
  uint64_t rows;             /* rows handed to the sink */
  size_t columns;            /* columns in the file */
  uint64_t repeated_headers; /* header lines met again inside the file and skipped */
  uint32_t notes;            /* rs_ingest_note bits */
} rs_ingest_result;

/* The exported format a file's first bytes show (a JSON object with
 * "status" or "resultType": prometheus-json; with "MetricDataResults":
 * cloudwatch-json; '#' or "name{" / "name value": prometheus-text), or
 * RS_FORMAT_AUTO for anything else (CSV, a profile, an unreadable file). */
rs_sample_format rs_ingest_detect_file(const char *path);

/* The largest exported (JSON or text exposition) file read, in bytes. */
#define RS_INGEST_EXPORT_MAX ((size_t)256 << 20)

/* One endpoint's rows from files that hold many (rs_ingest_split). */
typedef struct rs_endpoint_rows {
  const char *name; /* the endpoint column's value */
  rs_sample *rows;  /* merged by time and device, in time order */
  size_t nrows;
} rs_endpoint_rows;

/* The most endpoints rs_ingest_split accepts. */
#define RS_INGEST_MAX_ENDPOINTS 100000

/* Reads paths through opts->map's csv section, which must name an endpoint
 * column, and splits the rows by endpoint: one entry per distinct value,
 * sorted by name, points of every file merged by time and device. All in
 * arena. Errors as rs_ingest_file; RS_USAGE when the mapping has no
 * csv.endpoint. */
rs_status rs_ingest_split(rs_endpoint_rows **out, size_t *n, rs_arena *arena,
                          const char *const *paths, size_t npaths, const rs_ingest_options *opts,
                          rs_error *err);

/* Reads path ("-": standard input) and calls sink once per
 * row. opts may be NULL. result may be NULL. Exported formats are read whole,
 * their points merged by time and GPU into rows (in time order). Errors: RS_IO (missing file, a
 * directory, read error), RS_SYNTAX / RS_INVALID / RS_LIMIT with position; an empty file or a
 * header with no rows is RS_INVALID ("no samples"). */
rs_status rs_ingest_file(const char *path, const rs_ingest_options *opts, rs_sample_sink sink,
                         void *ctx, rs_ingest_result *result, rs_error *err);

/* One file read on several threads into accumulators that append
 * (rs_ingest_file_parts). open makes an empty accumulator for a part of the
 * file (ctx is the caller's); sink adds a row to one (and, for a file read
 * in one pass, to ctx); fits says whether part's rows can follow those of
 * acc (a part, or ctx) as one pass would read them, and append adds them.
 * close frees a part's. */
/* rs_ingest_parts.threads: as many parts as there are online CPUs (at most
 * 16), counted only for a file large enough to cut, so a small one costs
 * no look at the system (a file read and a few pages). */
#define RS_INGEST_THREADS_AUTO (~0u)

typedef struct rs_ingest_parts {
  unsigned threads; /* at most this many parts (or RS_INGEST_THREADS_AUTO); 1: one pass */
  void *ctx;        /* the caller's accumulator */
  rs_sample_sink sink;
  rs_status (*open)(void *ctx, void **part, rs_error *err);
  bool (*fits)(const void *acc, const void *part);
  rs_status (*append)(void *acc, void *part, rs_error *err);
  void (*close)(void *part);
} rs_ingest_parts;

/* The least bytes of rows per part, and the least size of a file to cut:
 * smaller files are read in one pass. A part's thread, reader and
 * accumulator cost about 1 to 2 ms of CPU (docs/scale.md, "Start-up"),
 * more than a second core saves on a file of a few megabytes. */
#define RS_INGEST_PART_MIN ((uint64_t)1 << 20)
#define RS_INGEST_SPLIT_MIN ((uint64_t)3 << 20)

/* rs_ingest_file with the rows of a plain native CSV (a regular file, not
 * compressed, at least RS_INGEST_SPLIT_MIN and 2 x RS_INGEST_PART_MIN) cut at line ends into up to
 * how->threads parts read at once, appended in file order to how->ctx;
 * every other input, a file whose cut may fall in a quoted field, a series
 * going back in time across a cut (fits false) and every error are read in
 * one pass (rs_ingest_file), so the rows folded, the result and the error
 * (its position: the first in file order) are one pass's. */
rs_status rs_ingest_file_parts(const char *path, const rs_ingest_options *opts,
                               const rs_ingest_parts *how, rs_ingest_result *result, rs_error *err);

/* The same over a memory buffer (plain, gzip or zstd); name is used in
 * messages. */
rs_status rs_ingest_memory(const char *name, const char *data, size_t len,
                           const rs_ingest_options *opts, rs_sample_sink sink, void *ctx,
                           rs_ingest_result *result, rs_error *err);

#endif
