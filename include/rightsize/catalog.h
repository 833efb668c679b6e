/* The instance catalog: accelerators and the cloud shapes that carry them.
 *
 * A catalog is one versioned YAML file (docs/catalog-format.md). The default
 * one is compiled into the binary; --catalog FILE|DIR replaces it. A catalog
 * is named by its catalog_version and by the SHA-256 of its exact bytes, so
 * two reports priced from the same catalog say so. Unknown numbers are NaN,
 * never 0. Everything lives in the arena passed in. */
#ifndef RIGHTSIZE_CATALOG_H
#define RIGHTSIZE_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "rightsize/arena.h"
#include "rightsize/error.h"
#include "rightsize/workload.h"

#define RS_CATALOG_SHA256_HEX_SIZE 65 /* 64 hex digits and a NUL */

/* Schema versions this rightsize reads: 1, and 2 (which adds the
 * calibration section, fp8/tf32 figures, architecture and the CPU memory
 * bandwidth per vCPU; docs/catalog-format.md). */
#define RS_CATALOG_SCHEMA_MIN 1
#define RS_CATALOG_SCHEMA_MAJOR 2
#define RS_CATALOG_MAX_BYTES ((size_t)16 << 20)

/* The vocabularies: one list each, with the name both ways. */

/* Providers a profile, a fetch and --provider may name ("aws"). Catalog
 * entries carry the name as written. */
#define RS_PROVIDER_MAP(X)                                                                         \
  X(AWS, "aws")                                                                                    \
  X(GCP, "gcp")                                                                                    \
  X(AZURE, "azure")

typedef enum {
#define RS_PROVIDER_ENUM(name, key) RS_PROVIDER_##name,
  RS_PROVIDER_MAP(RS_PROVIDER_ENUM)
#undef RS_PROVIDER_ENUM
} rs_provider;
enum {
#define RS_PROVIDER_ONE(name, key) +1
  RS_PROVIDER_COUNT = 0 RS_PROVIDER_MAP(RS_PROVIDER_ONE)
#undef RS_PROVIDER_ONE
};

/* The names in enum order, NULL-terminated: {"aws", "gcp", "azure", NULL}. */
extern const char *const rs_provider_names[];
/* "aws" -> RS_PROVIDER_AWS; -1 for another name. */
int rs_provider_from_name(const char *name);

/* Model families (what a model may run on), as bits: a profile's
 * model.families and --allow. ACCEL rows are also accelerator families of
 * the catalog's accelerators (rs_accel_family); cpu is a host. */
#define RS_FAMILY_MAP(X)                                                                           \
  X(NVIDIA_GPU, "nvidia-gpu", 1u << 0, ACCEL)                                                      \
  X(CPU, "cpu", 1u << 1, HOST)                                                                     \
  X(INFERENTIA, "inferentia", 1u << 2, ACCEL)                                                      \
  X(TRAINIUM, "trainium", 1u << 3, ACCEL)                                                          \
  X(TPU, "tpu", 1u << 4, ACCEL)

enum {
#define RS_FAMILY_ENUM(name, key, bit, kind) RS_FAMILY_##name = bit,
  RS_FAMILY_MAP(RS_FAMILY_ENUM)
#undef RS_FAMILY_ENUM
};

/* The family names in bit order, NULL-terminated (bit i is names[i]). */
extern const char *const rs_family_names[];
/* "nvidia-gpu" -> bit; 0 when unknown. */
unsigned rs_family_from_name(const char *name);
/* The name of one bit; "unknown" for none or several. */
const char *rs_family_name(unsigned bit);

#define RS_FAMILY_IF_ACCEL(...) __VA_ARGS__
#define RS_FAMILY_IF_HOST(...)
typedef enum {
#define RS_ACCEL_ENUM(name, key, bit, kind) RS_FAMILY_IF_##kind(RS_ACCEL_##name, )
  RS_FAMILY_MAP(RS_ACCEL_ENUM)
#undef RS_ACCEL_ENUM
} rs_accel_family;
enum {
#define RS_ACCEL_ONE(name, key, bit, kind) RS_FAMILY_IF_##kind(+1)
  RS_ACCEL_COUNT = 0 RS_FAMILY_MAP(RS_ACCEL_ONE)
#undef RS_ACCEL_ONE
};

/* The accelerator family names in enum order, NULL-terminated. */
extern const char *const rs_accel_family_names[];
/* The RS_FAMILY_* bit of an accelerator family. */
unsigned rs_accel_family_bit(rs_accel_family family);

#define RS_CATEGORY_MAP(X)                                                                         \
  X(GPU, "gpu")                                                                                    \
  X(ACCELERATOR, "accelerator")                                                                    \
  X(TPU, "tpu")                                                                                    \
  X(CPU, "cpu")

typedef enum {
#define RS_CATEGORY_ENUM(name, key) RS_CATEGORY_##name,
  RS_CATEGORY_MAP(RS_CATEGORY_ENUM)
#undef RS_CATEGORY_ENUM
} rs_category;
enum {
#define RS_CATEGORY_ONE(name, key) +1
  RS_CATEGORY_COUNT = 0 RS_CATEGORY_MAP(RS_CATEGORY_ONE)
#undef RS_CATEGORY_ONE
};

extern const char *const rs_category_names[]; /* enum order, NULL-terminated */

#define RS_ARCH_MAP(X)                                                                             \
  X(UNKNOWN, "unknown")                                                                            \
  X(X86_64, "x86_64")                                                                              \
  X(ARM64, "arm64")

typedef enum {
#define RS_ARCH_ENUM(name, key) RS_ARCH_##name,
  RS_ARCH_MAP(RS_ARCH_ENUM)
#undef RS_ARCH_ENUM
} rs_arch;
enum {
#define RS_ARCH_ONE(name, key) +1
  RS_ARCH_COUNT = 0 RS_ARCH_MAP(RS_ARCH_ONE)
#undef RS_ARCH_ONE
};

extern const char *const rs_arch_names[]; /* enum order, NULL-terminated */

typedef enum {
  RS_PRICE_OK,      /* priced, no doubt recorded */
  RS_PRICE_SUSPECT, /* priced, but the source looks wrong: never rank it unnoticed */
  RS_PRICE_UNPRICED /* no on-demand price found: ondemand is NaN */
} rs_price_flag;

typedef struct rs_accelerator {
  const char *key;         /* join key, "V100-SXM2-16GB" */
  const char *vendor;      /* "NVIDIA" */
  const char *name;        /* "Tesla V100" */
  const char *form_factor; /* NULL when unknown */
  const char *memory_type; /* NULL when unknown */
  const char *source;
  const char *notes;        /* NULL when none */
  const char *architecture; /* "Hopper", "Ada Lovelace"; NULL when not said */
  rs_accel_family family;
  double memory_bytes;   /* per device */
  double memory_bw_gbps; /* GB/s (10^9 bytes/s) */
  double fp16_tflops;    /* dense FP16/BF16 tensor */
  double fp16_sparse_tflops;
  double int8_tops; /* dense */
  double fp32_tflops;
  double fp8_tflops;  /* dense FP8 tensor; NaN where the device has none */
  double tf32_tflops; /* dense TF32 tensor; NaN where the device has none */
  double tdp_w;
  size_t line, col; /* where the entry starts in the catalog file */
} rs_accelerator;

typedef struct rs_instance {
  const char *provider;          /* aws, gcp, azure */
  const char *name;              /* "p3.8xlarge" */
  const char *family;            /* "p3" */
  const char *region;            /* the region the price is from */
  const char *cpu;               /* CPU generation, CPU-only shapes; NULL otherwise */
  const char *accelerator_basis; /* how the accelerator variant is known; NULL when not said */
  const char *as_of;             /* how old the price data is; NULL when not said */
  const char *source;
  const char *notes; /* NULL when none */
  rs_category category;
  rs_arch arch;
  double vcpus;                      /* NaN for TPU slices (no host figures) */
  double memory_bytes;               /* host memory */
  const rs_accelerator *accelerator; /* NULL for CPU-only shapes */
  double accelerator_count;          /* devices, fractional for partial GPUs; NaN when unknown */
  double
      accelerator_memory_bytes; /* per device (the fraction for partial GPUs); NaN when unknown */
  double cpu_gflops_per_vcpu;   /* effective FP32 inference GFLOPS per vCPU (an assumption) */
  double cpu_memory_gbps_per_vcpu; /* DRAM bandwidth share of one vCPU, GB/s; NaN unknown */
  double network_gbps;             /* the rating, burst when network_up_to */
  double network_baseline_gbps;
  bool network_up_to;
  double ondemand_usd_per_hour;
  double spot_usd_per_hour; /* NaN when unknown */
  rs_price_flag price_flag;
  double price_usd_per_hour; /* effective price under the basis in use (on-demand unless
                                rs_pricing_apply said otherwise); NaN when unpriced */
  size_t line, col;
} rs_instance;

/* One published measurement (the catalog's calibration section): the
 * per-accelerator throughput of a benchmark in one round. Rows of the same
 * model and round form a group: ratios are taken inside a group. */
typedef struct rs_calibration {
  rs_workload workload;
  const char *model;     /* "resnet50": with round, the group */
  const char *benchmark; /* "resnet50", "gptj-99.9" */
  const rs_accelerator *accelerator;
  double throughput;        /* per accelerator, in unit */
  const char *unit;         /* "samples/s" */
  double system_throughput; /* as published, for the whole system */
  double accelerators;      /* accelerators in the system */
  rs_precision precision;
  const char *software, *round, *scenario, *submitter, *system, *source;
  const char *notes; /* NULL when none */
  size_t line, col;
} rs_calibration;

typedef struct rs_catalog {
  const char *path; /* file name as loaded, or the embedded file's name */
  unsigned schema_version;
  const char *version; /* catalog_version, "2026.12.0" */
  const char *prices_as_of;
  const char *currency;
  const char **sources;
  size_t nsources;
  rs_accelerator *accelerators;
  size_t naccelerators;
  rs_instance *instances;
  size_t ninstances;
  rs_calibration *calibration; /* schema 2; none in a schema-1 catalog */
  size_t ncalibration;
  char sha256[RS_CATALOG_SHA256_HEX_SIZE]; /* of the exact file bytes: 64 hex digits and a NUL */
  bool embedded;
} rs_catalog;

/* Parses and validates a catalog from data (len bytes) named `name` in
 * errors. On success *out is the catalog (in arena); on failure *out is NULL
 * and err holds the first problem at its file:line:col: RS_SYNTAX for YAML,
 * RS_INVALID for a missing or unknown key, a wrong type, an unknown schema
 * major version, an unknown accelerator key, a duplicate instance
 * (provider + name + region), a price <= 0, or an accelerator count of 0. */
rs_status rs_catalog_parse(rs_catalog **out, rs_arena *arena, const char *name, const char *data,
                           size_t len, rs_error *err);

/* Loads a catalog file, or from a directory the catalog file (*.yaml or
 * *.yml) whose name sorts last in version order (digit runs compare as
 * numbers: rightsize-2026.12.0 after rightsize-2026.9.1). RS_IO for a missing
 * path or a directory without catalogs. */
rs_status rs_catalog_load(rs_catalog **out, rs_arena *arena, const char *path, rs_error *err);

/* The compiled-in catalog, named by its file ("rightsize-2026.12.0.yaml"):
 * parsed, validated and hashed when rightsize was built (the same
 * rs_catalog_parse, run by the build's catalog_gen) and copied into the
 * arena here, so it costs a run no parsing. Only a full arena fails. */
rs_status rs_catalog_default(rs_catalog **out, rs_arena *arena, rs_error *err);

/* The first instance named `name` (exact, then case-insensitive), or NULL.
 * Borrowed from cat. */
const rs_instance *rs_catalog_find(const rs_catalog *cat, const char *name);
const rs_accelerator *rs_catalog_find_accelerator(const rs_catalog *cat, const char *key);

/* Accelerator memory of the whole shape: per-device memory times the count,
 * or the per-device memory alone for a partial device (count < 1, whose
 * accelerator_memory already is the fraction). NaN when unknown or none. */
double rs_instance_accel_memory(const rs_instance *in);

/* Names as written in the catalog ("nvidia-gpu", "gpu", "x86_64", "suspect"). */
const char *rs_accel_family_name(rs_accel_family family);
const char *rs_category_name(rs_category category);
const char *rs_arch_name(rs_arch arch);
const char *rs_price_flag_name(rs_price_flag flag);

#endif
