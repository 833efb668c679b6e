/* The profile document (docs/profile-format.md), schema 1.
 *
 * A profile names an endpoint and says what it serves (model facts), where
 * it runs now, its latency SLO, traffic facts, where the data came from, and
 * its samples: files (paths relative to the profile) or inline rows. It may
 * also carry measured benchmarks on other instance types. */
#ifndef RIGHTSIZE_PROFILE_H
#define RIGHTSIZE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rightsize/arena.h"
#include "rightsize/catalog.h"
#include "rightsize/error.h"
#include "rightsize/ingest.h"
#include "rightsize/metric.h"
#include "rightsize/workload.h"

#define RS_PROFILE_SCHEMA_MAJOR 1

/* Model families (RS_FAMILY_*, rs_family_from_name) are in catalog.h. */

typedef enum {
  RS_SOURCE_PRODUCTION, /* "production" */
  RS_SOURCE_LOADTEST,   /* "loadtest" */
  RS_SOURCE_CHAOS,      /* "chaos" */
  RS_SOURCE_SYNTHETIC   /* "synthetic" */
} rs_data_source;

const char *rs_source_name(rs_data_source s);

typedef enum {
  RS_BOUND_UNKNOWN, /* not said: an even compute/bandwidth mix, lower confidence */
  RS_BOUND_COMPUTE, /* "compute" */
  RS_BOUND_MEMORY,  /* "memory" (memory-bandwidth bound, as LLM decode is) */
  RS_BOUND_MIXED    /* "mixed": said to be an even mix */
} rs_bound;

const char *rs_bound_name(rs_bound b);

/* KV-cache facts for a serving stack that pre-allocates accelerator memory:
 * bytes per token = 2 x layers x kv_heads x head_dim x bytes_per_value. */
typedef struct rs_kv_cache {
  bool set;
  uint64_t layers, kv_heads, head_dim;
  double bytes_per_value; /* 2 for FP16/BF16 */
  uint64_t max_tokens;    /* tokens resident at once (context x concurrent sequences) */
} rs_kv_cache;

typedef struct rs_sample_file {
  const char *given;       /* the path as written in the profile */
  const char *path;        /* resolved against the profile's directory */
  rs_sample_format format; /* RS_FORMAT_AUTO unless the profile says */
  const char *mapping;     /* series mapping file for exports (resolved), or NULL */
  double interval_s;       /* request logs: seconds per rate row; 0: the default */
  size_t line, col;        /* where the profile names it */
} rs_sample_file;

typedef struct rs_benchmark {
  const char *instance;  /* instance type it was measured on */
  uint64_t batch;        /* batch size (1 when not given) */
  double latency_p99_ms; /* NaN when not given */
  double latency_p50_ms; /* NaN when not given */
  double throughput_rps; /* sustained requests/s per replica */
  size_t line, col;
} rs_benchmark;

typedef struct rs_profile {
  const char *path; /* the profile file */
  unsigned schema_major, schema_minor;
  const char *endpoint;
  const char *description; /* NULL when absent */
  struct {
    const char *framework;              /* NULL when absent */
    unsigned families;                  /* RS_FAMILY_* bits; never 0 after loading */
    double weights_bytes;               /* NaN when absent */
    uint64_t max_batch;                 /* 1 when absent */
    double activation_bytes_per_sample; /* NaN when absent */
    bool preallocates;        /* serving stack grabs memory up front (vLLM, TensorRT-LLM) */
    double prealloc_fraction; /* fraction it grabs (0.9 default for both) */
    rs_kv_cache kv;
    rs_bound bound;
    bool workload_set;      /* model.workload given (else inferred, docs/model.md) */
    rs_workload workload;   /* when workload_set */
    bool precision_set;     /* model.precision given (else fp16) */
    rs_precision precision; /* when precision_set */
    bool shardable;         /* may be split across the devices of one instance */
    /* LLM serving (docs/profile-format.md): a row of the model facts table
     * (docs/model.md "LLM serving"), its parameter count, the KV cache's
     * precision. Either name or params makes the fit an LLM fit. */
    const char *name; /* NULL when absent */
    size_t name_line, name_col;
    double params;             /* NaN when absent */
    double kv_bytes_per_value; /* model.kv_precision: 2 (fp16, bf16) or 1 (fp8, int8); NaN absent */
  } model;
  struct {
    const char *provider; /* aws, gcp, azure */
    const char *instance;
    const char *region; /* NULL when absent */
    uint64_t replicas;  /* >= 1 */
    size_t line, col;   /* where the profile names the instance */
  } current;
  struct {
    double latency_p99_ms; /* NaN when absent */
    double latency_p95_ms; /* NaN when absent; at least one of the two is set */
    /* LLM serving: time to first token and time per output token; NaN absent */
    double ttft_p95_ms, ttft_p99_ms, tpot_p95_ms, tpot_p99_ms;
  } slo;
  struct {
    double peak_rps; /* design peak override; NaN when absent */
    double growth;   /* multiplier on peak; 1 when absent */
    /* The samples' request_rate is the whole endpoint's ("endpoint") rather
     * than one replica's ("replica", the default: samples come from one
     * machine, as its GPU metrics do). */
    bool rate_per_endpoint;
    double cold_start_s; /* a new replica's time to serve (boot, model load); NaN absent */
  } traffic;
  rs_data_source source;
  rs_sample_file *files;
  size_t nfiles;
  rs_sample *rows; /* inline samples, validated like CSV cells */
  size_t nrows;
  rs_benchmark *benchmarks;
  size_t nbenchmarks;
} rs_profile;

/* Whether path names a profile rather than a sample file: a .yaml or .yml
 * file, or a .json file that is not a monitoring export (those are samples,
 * docs/sources.md; telling them apart reads the file's first bytes). */
bool rs_profile_is_path(const char *path);

/* Loads and validates a profile (YAML or JSON). Everything lives in arena.
 * Sample files are resolved but not opened. On failure *out is NULL and err
 * has the position (RS_IO, RS_SYNTAX, RS_INVALID). */
rs_status rs_profile_load(rs_profile **out, rs_arena *arena, const char *path, rs_error *err);

struct rs_node;

/* The profile section of a mapping file (node: an rs_node from rightsize/doc.h)
 * as a template for endpoints read from files that hold many: every key of
 * a profile but schema, endpoint and samples (the endpoint's name and rows
 * come from the files). model, current and slo are required as in a
 * profile. Errors carry the mapping's positions. */
rs_status rs_profile_template(rs_profile **out, rs_arena *arena, const char *path,
                              const struct rs_node *node, rs_error *err);

#endif
