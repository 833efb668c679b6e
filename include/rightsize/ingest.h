/* Sample files in, rows out.
 *
 * Formats: the native CSV (docs/samples-format.md: unit-bearing column names
 * such as gpu_mem_used_mib), nvidia-smi --query-gpu CSV logs as nvidia-smi
 * prints them (with or without units, with or without header), and what
 * monitoring systems export (docs/sources.md): Prometheus query_range JSON,
 * Prometheus text exposition scrapes with timestamps, and CloudWatch
 * get-metric-data JSON. The format is detected from the content unless given. Every cell is
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

typedef enum {
  RS_FORMAT_AUTO = 0,
  RS_FORMAT_NATIVE,     /* "native" */
  RS_FORMAT_NVSMI,      /* "nvidia-smi" */
  RS_FORMAT_PROM_JSON,  /* "prometheus-json": an HTTP API query_range response */
  RS_FORMAT_PROM_TEXT,  /* "prometheus-text": text exposition scrapes with timestamps */
  RS_FORMAT_CLOUDWATCH, /* "cloudwatch-json": aws cloudwatch get-metric-data output */
  RS_FORMAT_DMON,       /* "nvidia-smi-dmon": nvidia-smi dmon -o DT output */
  RS_FORMAT_COUNT
} rs_sample_format;

/* The format names in enum order, NULL-terminated. */
extern const char *const rs_sample_format_names[];

/* The names accepted by rs_format_from_name, for messages:
 * "auto, native, nvidia-smi, prometheus-json, prometheus-text or cloudwatch-json". */
#define RS_FORMAT_NAMES                                                                            \
  "auto, native, nvidia-smi, prometheus-json, prometheus-text, cloudwatch-json or "                \
  "nvidia-smi-dmon"

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
} rs_series_map;

/* Sets the defaults: no user rules, gpus 1, cpus 1, period 60 s. */
void rs_series_map_init(rs_series_map *map);

/* Reads a mapping file (YAML or JSON, docs/sources.md) into out; everything
 * lives in arena. Errors carry the file's position (RS_IO, RS_SYNTAX, RS_INVALID). */
rs_status rs_series_map_load(rs_series_map *out, rs_arena *arena, const char *path, rs_error *err);

typedef struct rs_ingest_options {
  rs_sample_format format;  /* RS_FORMAT_AUTO: detect */
  size_t max_record_bytes;  /* 0: the CSV reader's default (1 MiB) */
  const rs_series_map *map; /* exported formats; NULL: the defaults */
} rs_ingest_options;

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

/* Reads path ("-": standard input, CSV formats only) and calls sink once per
 * row. opts may be NULL. result may be NULL. Exported formats are read whole,
 * their points merged by time and GPU into rows (in time order). Errors: RS_IO (missing file, a
 * directory, read error), RS_SYNTAX / RS_INVALID / RS_LIMIT with position; an empty file or a
 * header with no rows is RS_INVALID ("no samples"). */
rs_status rs_ingest_file(const char *path, const rs_ingest_options *opts, rs_sample_sink sink,
                         void *ctx, rs_ingest_result *result, rs_error *err);

/* The same over a memory buffer; name is used in messages. */
rs_status rs_ingest_memory(const char *name, const char *data, size_t len,
                           const rs_ingest_options *opts, rs_sample_sink sink, void *ctx,
                           rs_ingest_result *result, rs_error *err);

#endif
