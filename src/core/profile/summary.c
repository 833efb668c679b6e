#include "names.h"
#include "rightsize/summary.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "rightsize/num.h"

#define MAX_WARNINGS 16

typedef struct builder {
  rs_arena *arena;
  rs_summary *sum;
  rs_stats *stats;
  double request_interval_s; /* the option's; a profile's file may say its own */
  rs_progress *progress;
  unsigned threads; /* --threads for a native CSV; --exact reads in one pass */
} builder;

static const char *const warning_names[] = {
#define RS_WARNING_NAME(name, key) key,
    RS_WARNING_MAP(RS_WARNING_NAME)
#undef RS_WARNING_NAME
};

const char *rs_warning_code_name(rs_warning_code c) {
  return (unsigned)c < RS_WARNING_COUNT ? warning_names[c] : "unknown";
}

rs_status rs_warning_code_from_name(rs_warning_code *out, const char *name) {
  int c = rs_names_find(warning_names, RS_WARNING_COUNT, name);
  if (c < 0)
    return RS_USAGE;
  *out = (rs_warning_code)c;
  return RS_OK;
}

static rs_status nomem(const rs_arena *arena, rs_error *err) {
  return rs_arena_error(arena, err, NULL, "while summarizing samples");
}

static void warn(rs_summary *sum, rs_arena *arena, rs_warning_code code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static void warn(rs_summary *sum, rs_arena *arena, rs_warning_code code, const char *fmt, ...) {
  va_list ap;
  if (sum->nwarnings >= MAX_WARNINGS)
    return;
  va_start(ap, fmt);
  const char *copy = rs_arena_vprintf(arena, fmt, ap);
  va_end(ap);
  /* A warning lost to memory keeps its slot with no text: finish() then
   * fails the run rather than print a report without it. */
  sum->warnings[sum->nwarnings].code = code;
  sum->warnings[sum->nwarnings].text = copy;
  sum->nwarnings++;
}

/* "2.0 h", "25 min", "3.5 d": durations for warning text. */
static void fmt_duration(char *buf, size_t size, double s) {
  if (s >= 2 * 86400.0)
    snprintf(buf, size, "%.1f d", s / 86400.0);
  else if (s >= 2 * 3600.0)
    snprintf(buf, size, "%.1f h", s / 3600.0);
  else if (s >= 120.0)
    snprintf(buf, size, "%.0f min", s / 60.0);
  else
    snprintf(buf, size, "%.0f s", s);
}

static bool warn_missing(rs_summary *sum, rs_arena *arena) {
  const rs_endpoint_stats *st = &sum->stats;
  double low = 1.0;
  int metric = -1, gpu = -1;
  char a[32], b[32];
  for (int m = 0; m < RS_METRIC_COUNT; m++) {
    if (isfinite(st->m[m].present) && st->m[m].present < low) {
      low = st->m[m].present;
      metric = m;
      gpu = -1;
    }
    for (size_t d = 0; d < st->ndevices; d++)
      if (isfinite(st->devices[d].m[m].present) && st->devices[d].m[m].present < low) {
        low = st->devices[d].m[m].present;
        metric = m;
        gpu = st->devices[d].index;
      }
  }
  if (metric < 0 || low >= 1.0 - RS_WARN_GAP_FRACTION)
    return false;
  double pct = floor(1000.0 * low + 0.5) / 10.0;
  char dev[32] = "";
  fmt_duration(a, sizeof(a), st->coverage.interval_s);
  fmt_duration(b, sizeof(b), st->coverage.longest_gap_s);
  if (gpu >= 0)
    snprintf(dev, sizeof(dev), " of GPU %d", gpu);
  warn(sum, arena, RS_WARNING_GAPS,
       "%s%s holds %.1f%% of its expected samples (%.1f%% missing at one every %s), longest "
       "interval %s",
       rs_metric_key((rs_metric)metric), dev, pct, 100.0 - pct, a, b);
  return true;
}

static void warn_coverage(rs_summary *sum, rs_arena *arena) {
  const rs_coverage *c = &sum->stats.coverage;
  char a[32], b[32];
  if (c->rows < RS_WARN_MIN_ROWS)
    warn(sum, arena, RS_WARNING_FEW_SAMPLES,
         "only %llu sample rows; statistics from fewer than %d rows are low confidence",
         (unsigned long long)c->rows, RS_WARN_MIN_ROWS);
  /* A week sampled every minute spans a week less one interval. */
  double span = c->duration_s + (isfinite(c->interval_s) ? c->interval_s : 0.0);
  if (span < RS_WARN_HISTORY_S) {
    fmt_duration(a, sizeof(a), span);
    warn(sum, arena, RS_WARNING_SHORT_HISTORY,
         "history covers %s, less than a weekly cycle (7 d): weekly peaks may be missing", a);
  }
  /* Missing samples: the least complete metric (or device) against the
   * samples its series should hold, so 58% present reads 42% missing. */
  double covered = c->duration_s * (double)(c->series ? c->series : 1);
  if (!warn_missing(sum, arena) && c->gaps > 0 && covered > 0 &&
      c->gap_s > RS_WARN_GAP_FRACTION * covered) {
    fmt_duration(a, sizeof(a), c->gap_s);
    fmt_duration(b, sizeof(b), c->longest_gap_s);
    warn(sum, arena, RS_WARNING_GAPS,
         "%llu gaps across %llu series lose %s of samples (%.1f%% of the series' time), "
         "longest %s",
         (unsigned long long)c->gaps, (unsigned long long)c->series, a, 100.0 * c->gap_s / covered,
         b);
  }
  if (c->out_of_order > 0)
    warn(sum, arena, RS_WARNING_OUT_OF_ORDER, "%llu rows were older than the row before them",
         (unsigned long long)c->out_of_order);
}

static void warn_source(rs_summary *sum, rs_arena *arena) {
  switch (sum->source) {
  case RS_SOURCE_LOADTEST:
    warn(sum, arena, RS_WARNING_LOADTEST_DATA,
         "samples come from a load test: real traffic peaks and their shape may differ");
    break;
  case RS_SOURCE_CHAOS:
    warn(sum, arena, RS_WARNING_CHAOS_DATA,
         "samples come from a chaos experiment: failures distort utilization and latency");
    break;
  case RS_SOURCE_SYNTHETIC:
    warn(sum, arena, RS_WARNING_SYNTHETIC_DATA,
         "samples are synthetic, not measured on a real endpoint");
    break;
  case RS_SOURCE_PRODUCTION: break;
  }
}

static void warn_profile(rs_summary *sum, rs_arena *arena) {
  const rs_profile *p = sum->profile;
  const rs_metric_stats *mem = &sum->stats.m[RS_METRIC_GPU_MEM_USED];
  if (p == NULL || !p->model.preallocates)
    return;
  if (mem->count > 0)
    warn(sum, arena, RS_WARNING_PREALLOCATED,
         "the serving stack pre-allocates %.0f%% of GPU memory: the observed peak (%.1f GiB) "
         "says nothing about need; size on weights + KV cache instead",
         100.0 * p->model.prealloc_fraction, mem->max / RS_GIB);
  else
    warn(sum, arena, RS_WARNING_PREALLOCATED,
         "the serving stack pre-allocates %.0f%% of GPU memory: size on weights + KV cache",
         100.0 * p->model.prealloc_fraction);
}

static void warn_devices(rs_summary *sum, rs_arena *arena) {
  const rs_endpoint_stats *st = &sum->stats;
  char list[256] = "";
  size_t idle = 0, used = 0;
  for (size_t i = 0; i < st->ndevices; i++) {
    const rs_metric_stats *u = &st->devices[i].m[RS_METRIC_GPU_UTIL];
    if (u->count == 0 || u->max >= RS_IDLE_UTIL_PCT)
      continue;
    idle++;
    used += (size_t)snprintf(list + used, used < sizeof(list) ? sizeof(list) - used : 0, "%s%d",
                             idle > 1 ? ", " : "", st->devices[i].index);
    if (used >= sizeof(list))
      used = sizeof(list) - 1;
  }
  if (idle > 0)
    warn(sum, arena, RS_WARNING_IDLE_DEVICES,
         "%zu of %zu GPUs never rose above %.0f%% utilization (GPU %s): paid for and unused", idle,
         st->ndevices, RS_IDLE_UTIL_PCT, list);
}

static void warn_traffic(rs_summary *sum, rs_arena *arena) {
  const rs_endpoint_stats *st = &sum->stats;
  if (st->m[RS_METRIC_REQUEST_RATE].count == 0) {
    warn(sum, arena, RS_WARNING_NO_TRAFFIC,
         "no request-rate samples: cost per prediction and replica sizing need request_rate_rps");
    return;
  }
  if (isfinite(st->rate_peak_to_mean) && st->rate_peak_to_mean > RS_WARN_PEAK_TO_MEAN)
    warn(sum, arena, RS_WARNING_SPIKY_TRAFFIC,
         "request rate peaks at %.1fx its mean (cv %.2f): autoscaling cold starts would hurt, "
         "size for the peak",
         st->rate_peak_to_mean, st->rate_cv);
}

/* What a reader had to assume, once per kind, naming the first file. */
static void warn_inputs(rs_summary *sum, rs_arena *arena) {
  const char *instant = NULL, *averaged = NULL;
  for (size_t i = 0; i < sum->ninputs; i++) {
    if ((sum->inputs[i].notes & RS_INGEST_NOTE_INSTANT) && instant == NULL)
      instant = sum->inputs[i].path;
    if ((sum->inputs[i].notes & RS_INGEST_NOTE_GPU_MEM_AVG) && averaged == NULL)
      averaged = sum->inputs[i].path;
  }
  if (instant != NULL)
    warn(sum, arena, RS_WARNING_INSTANT_SCRAPE,
         "%s is a scrape without timestamps, read as one instant: it shows a moment, not a "
         "history (save scrapes with timestamps for one, see docs/sources.md)",
         instant);
  if (averaged != NULL)
    warn(sum, arena, RS_WARNING_GPU_MEMORY_AVERAGED,
         "%s: CloudWatch GPUMemoryUtilization is one number for all the GPUs, not per device; "
         "read as if the busiest GPU held all of it (at most one device's memory)",
         averaged);
}

static rs_status summary_alloc(rs_summary **out, rs_arena *arena, size_t ninputs, rs_error *err) {
  /* Not zeroed: rs_stats_finish writes the statistics, which are most of
   * the struct and mostly never touched (rightsize/stats.h). */
  rs_summary *sum = rs_arena_alloc_uninit(arena, sizeof(*sum));
  if (sum == NULL)
    return nomem(arena, err);
  size_t tail = offsetof(rs_summary, stats) + sizeof(sum->stats);
  memset(sum, 0, offsetof(rs_summary, stats));
  memset((char *)sum + tail, 0, sizeof(*sum) - tail);
  sum->inputs = rs_arena_alloc_array(arena, ninputs ? ninputs : 1, sizeof(*sum->inputs));
  sum->warnings = rs_arena_alloc_array(arena, MAX_WARNINGS, sizeof(*sum->warnings));
  if (sum->inputs == NULL || sum->warnings == NULL)
    return nomem(arena, err);
  *out = sum;
  return RS_OK;
}

/* rs_ingest_parts over rs_stats: one accumulator per part of a file. */
static rs_status part_open(void *ctx, void **part, rs_error *err) {
  rs_stats *st = NULL;
  rs_status rc = rs_stats_new_part(&st, ctx, err);
  *part = st;
  return rc;
}

static bool part_fits(const void *acc, const void *part) { return rs_stats_continues(acc, part); }

static rs_status part_append(void *acc, void *part, rs_error *err) {
  return rs_stats_append(acc, part, err);
}

static void part_close(void *part) { rs_stats_free(part); }

static rs_status read_file(builder *b, const char *path, rs_sample_format format,
                           const char *mapping, double interval_s, const rs_selection *select,
                           rs_error *err) {
  rs_ingest_options io = {.format = format,
                          .select = select,
                          .interval_s = interval_s > 0 ? interval_s : b->request_interval_s,
                          .progress = b->progress};
  rs_series_map map;
  rs_ingest_result res;
  rs_summary_input *in = &b->sum->inputs[b->sum->ninputs];
  rs_status st;

  if (mapping != NULL) {
    st = rs_series_map_load(&map, b->arena, mapping, err);
    if (st != RS_OK)
      return st;
    io.map = &map;
  }
  rs_stats_begin_file(b->stats, path);
  rs_ingest_parts parts = {.threads = b->threads,
                           .ctx = b->stats,
                           .sink = rs_stats_sink,
                           .open = part_open,
                           .fits = part_fits,
                           .append = part_append,
                           .close = part_close};
  st = rs_ingest_file_parts(path, &io, &parts, &res, err);
  if (st != RS_OK)
    return st;
  in->path = path;
  in->format = res.format;
  in->rows = res.rows;
  in->repeated_headers = res.repeated_headers;
  in->notes = res.notes;
  b->sum->ninputs++;
  return RS_OK;
}

static rs_status finish(builder *b, rs_summary **out, rs_error *err) {
  rs_summary *sum = b->sum;
  rs_status st = rs_stats_finish(b->stats, &sum->stats, err);
  if (st != RS_OK)
    return st;
  warn_source(sum, b->arena);
  warn_inputs(sum, b->arena);
  warn_profile(sum, b->arena);
  warn_coverage(sum, b->arena);
  warn_devices(sum, b->arena);
  warn_traffic(sum, b->arena);
  for (size_t i = 0; i < sum->nwarnings; i++)
    if (sum->warnings[i].text == NULL)
      return rs_arena_error(b->arena, err, NULL, "writing the warnings");
  *out = sum;
  return RS_OK;
}

static rs_status begin(builder *b, rs_arena *arena, size_t ninputs, const rs_summary_options *opts,
                       rs_error *err) {
  rs_status st;
  b->arena = arena;
  b->stats = NULL;
  st = summary_alloc(&b->sum, arena, ninputs, err);
  if (st != RS_OK)
    return st;
  b->sum->exact = opts && opts->stats.exact;
  b->request_interval_s = opts ? opts->request_interval_s : 0.0;
  b->progress = opts ? opts->progress : NULL;
  b->threads = opts && !opts->stats.exact ? opts->threads : 1;
  return rs_stats_new(&b->stats, opts ? &opts->stats : NULL, err);
}

rs_status rs_summary_from_profile(rs_summary **out, rs_arena *arena, const rs_profile *profile,
                                  const rs_summary_options *opts, rs_error *err) {
  builder b;
  rs_status st;

  *out = NULL;
  st = begin(&b, arena, profile->nfiles, opts, err);
  for (size_t i = 0; st == RS_OK && i < profile->nfiles; i++)
    st = read_file(&b, profile->files[i].path, profile->files[i].format, profile->files[i].mapping,
                   profile->files[i].interval_s, opts ? &opts->select : NULL, err);
  if (st == RS_OK && profile->nrows > 0) {
    rs_stats_begin_file(b.stats, profile->path);
    for (size_t i = 0; st == RS_OK && i < profile->nrows; i++)
      st = rs_stats_add(b.stats, &profile->rows[i], err);
    b.sum->inline_rows = profile->nrows;
  }
  if (st == RS_OK) {
    b.sum->profile = profile;
    b.sum->name = profile->endpoint;
    b.sum->source = profile->source;
    st = finish(&b, out, err);
  }
  rs_stats_free(b.stats);
  return st;
}

rs_status rs_summary_from_files(rs_summary **out, rs_arena *arena, const char *const *paths,
                                size_t npaths, const rs_summary_options *opts, rs_error *err) {
  builder b;
  rs_status st;

  *out = NULL;
  st = begin(&b, arena, npaths, opts, err);
  for (size_t i = 0; st == RS_OK && i < npaths; i++)
    st = read_file(&b, paths[i], opts ? opts->format : RS_FORMAT_AUTO, opts ? opts->mapping : NULL,
                   0.0, opts ? &opts->select : NULL, err);
  if (st == RS_OK) {
    b.sum->name = npaths ? paths[0] : "";
    b.sum->source = RS_SOURCE_PRODUCTION;
    st = finish(&b, out, err);
  }
  rs_stats_free(b.stats);
  return st;
}
