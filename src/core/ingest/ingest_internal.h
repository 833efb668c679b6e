/* Shared between ingest.c (detection, dispatch, the row loop, cell parsing),
 * the two CSV header readers (ingest_native.c, ingest_nvsmi.c) and the
 * readers of exported formats (ingest_export.c, ingest_json.c,
 * ingest_promtext.c). */
#ifndef RIGHTSIZE_INGEST_INTERNAL_H
#define RIGHTSIZE_INGEST_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rightsize/arena.h"
#include "csv.h"
#include "rightsize/doc.h"
#include "rightsize/ingest.h"

/* The columns of one file, as its header (or the headerless default) says.
 * Names are copies owned by the arena that built the layout: header fields
 * are borrowed from the CSV reader only until its next record. */
typedef struct rs_ingest_layout {
  rs_column *cols;
  const char **names; /* as written in the header, trimmed: used in messages */
  size_t ncols;
  bool headerless;    /* the first record is data (nvidia-smi csv,noheader) */
  int key_col;        /* nvidia-smi: the pci.bus_id or uuid column naming the device when there is
                         no index column (each distinct key is a GPU, in first-seen order), else -1 */
  const char *ragged; /* what a wrong field count message adds in parentheses */
} rs_ingest_layout;

/* The longest value text quoted back in an error message. */
#define RS_INGEST_QUOTE_MAX 64

/* What a timestamp out of range is expected to be, for messages. */
#define RS_INGEST_TIME_RANGE "a timestamp from 1970-01-01 to 9999-12-31 UTC"

/* What a value of metric m out of its physical range (rs_metric_in_range)
 * is expected to be, in the unit of the file (canonical value = number x
 * scale): "0 or a value from 1e-09 to 1.07374e+09" (MiB). */
void rs_ingest_range_text(char *buf, size_t size, rs_metric m, double scale);

/* Trims spaces and tabs from both ends of s[0..*len), returns the new start. */
const char *rs_ingest_trim(const char *s, size_t *len);

/* Allocates cols and names for n columns in arena; RS_NOMEM through err. */
rs_status rs_ingest_layout_alloc(rs_ingest_layout *out, rs_arena *arena, size_t n, rs_error *err);

/* Shared header checks for both formats: a duplicate timestamp, index or
 * metric column (reported at the second one, naming the first), and a
 * missing timestamp column. */
rs_status rs_ingest_layout_check(const rs_ingest_layout *layout, const rs_csv_field *fields,
                                 const char *path, rs_error *err);

/* rs_sample_set_cell with the column's name as written in the header. */
rs_status rs_ingest_set_cell(rs_sample *s, const rs_column *c, const char *colname,
                             const char *text, size_t len, const char *path, size_t line,
                             size_t col, rs_error *err);

/* The row loop of ingest.c on part of a file (ingest_parts.c). The first
 * record of reader as rs_ingest_file reads it: the layout (in arena), the
 * format found and the header's line; RS_INVALID also for a header with a
 * quoted field or over two lines, which parts do not take. */
rs_status rs_ingest_csv_header(rs_ingest_layout *out, rs_sample_format *format, size_t *line,
                               rs_csv_reader *reader, const char *path,
                               const rs_ingest_options *opts, rs_arena *arena, rs_error *err);

/* Every record of reader as a row of layout (a native header read before),
 * to sink; res counts rows and repeated headers. Errors as rs_ingest_file's,
 * with the reader's lines. */
rs_status rs_ingest_csv_rows(rs_csv_reader *reader, const char *path,
                             const rs_ingest_layout *layout, rs_sample_sink sink, void *ctx,
                             rs_ingest_result *res, rs_error *err);

/* Native header (ingest_native.c): every name must be a documented column or
 * start with x_. */
rs_status rs_ingest_native_header(rs_ingest_layout *out, rs_arena *arena,
                                  const rs_csv_field *fields, size_t n, const char *path,
                                  rs_error *err);

/* Suggests the native column name closest to name (edit distance <= 2) into
 * buf; false when none is close enough. */
bool rs_ingest_native_suggest(char *buf, size_t size, const char *name, size_t len);

/* Enumerates every native column name (ingest.c, next to the table): false
 * when i is past the end. */
bool rs_ingest_native_name(char *buf, size_t size, size_t i);

/* ---- native rows: the fast path (ingest_native.c) ----
 *
 * Whole lines parsed in place in the reader's buffer, no copy and no field
 * list: each column's handler reads its cell up to the delimiter. A row with
 * anything the handlers do not take (quotes, spaces, signs, units, more than
 * 15 digits, a value out of range, a wrong field count, an over-long line)
 * stops the fast path before anything of it reaches the sink; the caller
 * reads that row through the CSV reader and do_row, which accept or report
 * it as before. So the rows the sink sees, and the errors, are the same. */
typedef struct rs_native_col {
  rs_column_kind kind;
  rs_metric metric;
  uint32_t bit; /* 1 << metric: the row's present bit */
  double scale; /* to the canonical unit */
  double max;   /* rs_metric_max(metric): the fast path's range check */
} rs_native_col;

typedef struct rs_native_rows {
  const rs_native_col *cols; /* one per column of the header */
  size_t ncols;
  size_t max_line; /* longer lines are left to the reader (its record limit) */
  const char *path;
  rs_sample *s;            /* the row, reused: only what the previous row set is cleared */
  struct rs_time_day *day; /* the date of the last calendar timestamp (time_fast.h) */
  rs_sample_sink sink;
  /* NULL, or a sink that takes a row whose every present value is +0 as
   * sink would, with less work (rs_stats_sink_zeros beside rs_stats_sink):
   * the rows an idle GPU's memo gives go there. */
  rs_sample_sink zero_sink;
  void *ctx;
  uint64_t rows; /* rows handed to the sink so far */
} rs_native_rows;

/* Reads the whole lines buf[0..len) (buf[len - 1] is '\n'; line is the
 * number of the first) into the sink, row by row, up to the first line the
 * fast path does not take. Returns the bytes consumed (whole lines) and sets
 * *lines to their count; *st is the sink's status (not RS_OK: it failed on
 * the row after those consumed, and err says why). */
size_t rs_ingest_native_lines(rs_native_rows *nr, const char *buf, size_t len, size_t line,
                              size_t *lines, rs_status *st, rs_error *err);

/* nvidia-smi (ingest_nvsmi.c). */
bool rs_ingest_nvsmi_is_header(const rs_csv_field *fields, size_t n);
bool rs_ingest_nvsmi_is_timestamp(const char *s, size_t len);
rs_status rs_ingest_nvsmi_header(rs_ingest_layout *out, rs_arena *arena, const rs_csv_field *fields,
                                 size_t n, const char *path, rs_error *err);
/* The layout of csv,noheader logs: timestamp,index,utilization.gpu,memory.used,memory.total. */
rs_status rs_ingest_nvsmi_default(rs_ingest_layout *out, rs_arena *arena, rs_error *err);

/* Per-request logs (ingest_requests.c). A header with a time column and a
 * request column (tokens or a latency, under any documented alias) that is
 * not made of native column names only. */
bool rs_ingest_requests_is_header(const rs_csv_field *fields, size_t n);

/* Reads the rows after header (fields[0..n)) and hands the sink one row per
 * request with tokens and one per interval (rates, percentiles); *rows counts
 * them. Errors with position, as the row loop's. */
rs_status rs_ingest_requests_read(rs_csv_reader *reader, const char *path,
                                  const rs_csv_field *header, size_t n,
                                  const rs_ingest_options *opts, rs_sample_sink sink, void *ctx,
                                  uint64_t *rows, rs_error *err);

/* ---- exported formats (ingest_export.c) ----
 *
 * Exports hold one series per metric (and per GPU); their points are
 * collected, sorted by time, GPU and metric, and merged into rows. */

typedef struct rs_export_point {
  double t, v; /* epoch seconds; canonical value */
  int gpu;     /* -1: not per device */
  rs_metric metric;
  unsigned ep;      /* endpoint index (rs_export_endpoint); 0 when none */
  const char *key;  /* the series' key, for messages (arena) */
  size_t line, col; /* where the point is */
} rs_export_point;

typedef struct rs_export {
  rs_arena *arena;
  const char *path;
  const rs_series_map *map; /* never NULL */
  rs_export_point *pts;     /* malloc'd, grown by rs_export_add */
  size_t n, cap;
  size_t series, mapped;  /* series seen, series that map to a metric */
  const char *unmapped;   /* the first key that maps to nothing, for messages */
  bool allow_empty;       /* an empty query_range result is no error (fetch: one query of many) */
  struct rs_llm_acc *llm; /* LLM counters and histograms (llm_metrics.c), or NULL */
  size_t llm_series;      /* their series so far */
  const rs_selection *select; /* series kept (labels); NULL: all */
  size_t deselected;          /* series or rows the selection left out */
  const char **eps;           /* endpoint names by index (malloc'd table, names in arena) */
  size_t neps, eps_cap;
  unsigned *ep_hash; /* open addressing: index + 1, 0 empty */
  size_t hash_cap;
  const char *ep_column; /* the endpoint column, for messages */
  unsigned cur_ep;       /* the endpoint of the points rs_export_add adds now */
  uint32_t notes;        /* rs_ingest_note bits the reader sets */
  double instant_t;      /* the time of a scrape without timestamps: the file's mtime */
  int stamped;           /* text exposition: 0 no sample yet, 1 with timestamps, 2 without */
} rs_export;

/* The content's format when it looks exported (JSON or text exposition),
 * else RS_FORMAT_AUTO (CSV: detect from the first record). */
rs_sample_format rs_export_sniff(const char *data, size_t len);

void rs_export_init(rs_export *x, rs_arena *arena, const char *path, const rs_series_map *map);
void rs_export_release(rs_export *x);

/* The rule for a series key: *found false when nothing maps it (or a user
 * rule ignores it). Errors (RS_INVALID at line:col) when the rule needs a
 * mapping setting that is missing (gpu_mem_total). Counts the series. */
rs_status rs_export_rule(rs_export *x, const char *key, rs_series_rule *out, bool *found,
                         size_t line, size_t col, rs_error *err);

/* Parses a value's text (a number, "NaN" is skipped, infinities refused),
 * scales it by the rule and checks its range, then adds the point. */
rs_status rs_export_add(rs_export *x, const rs_series_rule *rule, const char *key, int gpu,
                        double t, const char *text, size_t len, size_t line, size_t col,
                        rs_error *err);

/* rs_num_parse_double with a fast path for short decimals ("1700000000",
 * "12.5"): the same value, bit for bit. */
rs_status rs_export_number(const char *s, size_t n, double *out);

/* The checks of rs_export_add without the adding: *out is the point, *kept
 * false for a "NaN" (no value), which is skipped. */
rs_status rs_export_point_make(const rs_export *x, const rs_series_rule *rule, const char *key,
                               int gpu, double t, const char *text, size_t len, size_t line,
                               size_t col, rs_export_point *out, bool *kept, rs_error *err);

/* Adds a point made by rs_export_point_make. */
rs_status rs_export_push(rs_export *x, const rs_export_point *p, rs_error *err);

/* rs_export_emit's order of points (endpoint, time, GPU, metric, file
 * position), and a sort of pts[0..n) by it. */
int rs_export_cmp_points(const rs_export_point *p, const rs_export_point *q);
void rs_export_sort_points(rs_export_point *pts, size_t n);
/* rs_export_point_make for a value already parsed (v, from text[0..len),
 * which messages quote): its scaling and checks. */
rs_status rs_export_point_value(const rs_export *x, const rs_series_rule *rule, const char *key,
                                int gpu, double t, double v, const char *text, size_t len,
                                size_t line, size_t col, rs_export_point *out, rs_error *err);

/* The "no samples" error of a file whose series gave no point. */
rs_status rs_export_no_samples(const rs_export *x, rs_error *err);

/* Emits the rows of pts[0..n), the points of one time, in rs_export_emit's
 * order (endpoint 0), as rs_export_emit does for each time. */
rs_status rs_export_emit_batch(rs_export *x, rs_export_point *pts, size_t n, rs_sample_sink sink,
                               void *ctx, uint64_t *rows, rs_error *err);

/* A gpu label ("0".."63") -> index; RS_INVALID at line:col otherwise. */
rs_status rs_export_gpu(int *out, const rs_export *x, const char *text, size_t len, size_t line,
                        size_t col, rs_error *err);

/* The index of endpoint name (len bytes), added when new: RS_LIMIT past
 * RS_INGEST_MAX_ENDPOINTS. */
rs_status rs_export_endpoint(rs_export *x, unsigned *out, const char *name, size_t len, size_t line,
                             size_t col, rs_error *err);

/* Counts a series left out by the selection (for the "no samples" message). */
void rs_export_deselect(rs_export *x);

/* Sorts the points and hands one row per (time, GPU) to sink. Points of
 * more than one endpoint are an error naming the endpoint column. RS_INVALID
 * "no samples" when nothing mapped; two series giving one metric for the
 * same GPU at the same time are an error naming both. */
rs_status rs_export_emit(rs_export *x, rs_sample_sink sink, void *ctx, uint64_t *rows,
                         rs_error *err);

/* Sorts the points by endpoint, then as rs_export_emit; emits the rows of
 * endpoint ep only, from *cursor on (call with ep 0, 1, ... in order and
 * *cursor 0 first). */
rs_status rs_export_emit_endpoint(rs_export *x, unsigned ep, size_t *cursor, rs_sample_sink sink,
                                  void *ctx, uint64_t *rows, rs_error *err);

/* Reads a CSV through the mapping's csv section (ingest_csvmap.c) into x's
 * points; path names the file (its base name picks a files: entry). */
rs_status rs_ingest_csvmap(rs_export *x, rs_csv_reader *reader, const char *path,
                           const rs_ingest_options *opts, rs_error *err);

/* Reads the csv, files, select and profile sections of a mapping document
 * (ingest_mapping.c) into out. */
rs_status rs_csvmap_load(rs_series_map *out, rs_arena *arena, const rs_node *root, const char *path,
                         rs_error *err);

/* Reads an exported format from data (the whole file) and hands its rows to
 * sink: the entry point rs_ingest_file and rs_ingest_memory use. */
rs_status rs_ingest_export(const char *path, const char *data, size_t len, rs_sample_format format,
                           const rs_ingest_options *opts, rs_sample_sink sink, void *ctx,
                           rs_ingest_result *result, rs_error *err);

/* The same, with the time a scrape without timestamps is read at (the
 * file's modification time: it was taken, at the latest, when saved). */
rs_status rs_ingest_export_at(const char *path, const char *data, size_t len,
                              rs_sample_format format, double instant_t,
                              const rs_ingest_options *opts, rs_sample_sink sink, void *ctx,
                              rs_ingest_result *result, rs_error *err);

/* ---- LLM serving metrics (llm_metrics.c, docs/sources.md) ---- */

/* A vLLM, TGI or SGLang gauge: its metric and scale; false for other keys. */
bool rs_llm_gauge(const char *key, rs_metric *metric, double *scale);

/* The table index of a counter, or of a histogram whose _bucket, _sum or
 * _count series key is (*bucket: it is the _bucket); -1 for other keys. */
int rs_llm_series(const char *key, bool *bucket);

/* Whether key is an LLM counter or histogram series that no user rule maps. */
bool rs_llm_is_series(const rs_export *x, const char *key);

/* Reads one such query_range series (its labels and values nodes). */
struct rs_node;
rs_status rs_llm_prom_series(rs_export *x, const struct rs_node *labels,
                             const struct rs_node *values, const struct rs_node *key,
                             rs_error *err);

/* Folds bytes into a series identity (64-bit words multiplied in, FNV-1a
 * for the tail; start from 0). */
uint64_t rs_llm_hash(uint64_t h, const char *s, size_t len);

/* Whether the points of a family's series are kept: counters and
 * histogram buckets (_bucket) are, a histogram's _sum and _count are not. */
bool rs_llm_kept(int family, bool bucket);

/* One text exposition sample of a kept series of family (key interned by
 * the reader: one pointer per name): others identifies the series among
 * those of its name (its labels but le). */
rs_status rs_llm_text_point(rs_export *x, int family, const char *key, uint64_t others,
                            const char *le, size_t le_len, double t, const char *text, size_t len,
                            size_t line, size_t col, rs_error *err);

/* Counts a counter or histogram series (mapped) and returns its id. */
size_t rs_llm_begin_series(rs_export *x);

/* Keeps one point of a counter or a histogram bucket (le: the bucket's
 * label text, NULL for counters) for rs_llm_finish. */
rs_status rs_llm_add(rs_export *x, int family, size_t series, const char *le, size_t le_len,
                     double t, const char *text, size_t len, size_t line, size_t col,
                     rs_error *err);

/* Turns the kept points into rates and p50/p95/p99 points (rs_export_add). */
rs_status rs_llm_finish(rs_export *x, rs_error *err);

/* Where rs_llm_flush met an error turning points into rows: the family
 * (its index in the table) and the time, the order rs_llm_finish meets
 * them in over the whole file. */
typedef struct rs_llm_at {
  bool failed; /* the error came from a point made (else: out of memory) */
  size_t family;
  double t;
  size_t taken;  /* points handed on */
  double latest; /* the latest time among them */
} rs_llm_at;

/* rs_llm_finish for the kept points older than before (all: every one),
 * as a stream hands them on: the others are kept, and the increases of the
 * next batch start from each series' last point in this one. add false:
 * the points made are only checked, not added. */
rs_status rs_llm_flush(rs_export *x, double before, bool all, bool add, rs_llm_at *at,
                       rs_error *err);

/* Points kept and not handed on yet; the oldest time among the newest
 * quarter of them (at least one kept); (series, le) pairs remembered. */
size_t rs_llm_pending(const rs_export *x);
double rs_llm_recent(const rs_export *x);
size_t rs_llm_buckets(const rs_export *x);
void rs_llm_free(struct rs_llm_acc *a);

/* The readers: data is the whole file, NUL-terminated. */
rs_status rs_ingest_prom_json(rs_export *x, const char *data, size_t len, rs_error *err);
rs_status rs_ingest_cloudwatch(rs_export *x, const char *data, size_t len, rs_error *err);

/* A CloudWatch result's StatusCode (NULL: none, taken as Complete): RS_OK for
 * Complete, else the error at line:col naming the result's label. */
rs_status rs_cw_status(const rs_export *x, const char *code, const char *label, size_t line,
                       size_t col, rs_error *err);

/* The series key of a CloudWatch result: its label, or for CloudWatch's
 * default label "ModelLatency" "ModelLatency pNN" with the statistic its id
 * (may be NULL) names, else RS_INVALID at the label's line:col. */
rs_status rs_cw_key(const char **out, rs_export *x, const char *label, const char *id, size_t line,
                    size_t col, rs_error *err);
rs_status rs_ingest_dmon(rs_export *x, const char *data, size_t len, rs_error *err);

struct rs_instream;
/* A text exposition read as a stream (ingest_promtext.c): memory bounded
 * whatever the file's size, the rows and messages those of reading it whole
 * (docs/sources.md, "Size limits"). instant_t: the time of a scrape
 * without timestamps (0: none, an error). */
rs_status rs_ingest_prom_text_stream(struct rs_instream *in, const char *path, double instant_t,
                                     const rs_ingest_options *opts, rs_sample_sink sink, void *ctx,
                                     rs_ingest_result *result, rs_error *err);

/* Files up to this size that the streaming JSON reader does not take are
 * read by the tree reader (RS_INGEST_EXPORT_MAX; tests set 0 to see the
 * streaming reader's own errors). */
extern size_t rs_json_stream_tree_max;

struct rs_instream;
/* A Prometheus query_range JSON, or CloudWatch get-metric-data output
 * (format), read as a stream (ingest_json_stream.c): memory flat in the
 * file's size. Files the tree reader can hold (up to
 * RS_INGEST_EXPORT_MAX) that the streaming reader does not take as they are
 * (anything unusual, every error) are handed to rs_ingest_export_at, so
 * their output and messages are that reader's. *handled false (nothing
 * read): the input is neither a plain file nor copiable to a temporary
 * file, and is the caller's to read whole. */
rs_status rs_ingest_json_stream(struct rs_instream *in, const char *path, rs_sample_format format,
                                double instant_t, const rs_ingest_options *opts,
                                rs_sample_sink sink, void *ctx, rs_ingest_result *result,
                                bool *handled, rs_error *err);

/* True when the line at p is an nvidia-smi dmon header ("# gpu pwr ...",
 * "#Date Time gpu ..."). */
bool rs_ingest_dmon_sniff(const char *p, const char *end);

#endif
