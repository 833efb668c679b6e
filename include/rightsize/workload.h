/* The vocabulary of the cross-accelerator projection (docs/model.md):
 * workload classes and numeric precisions.
 *
 * A workload class groups models whose speed moves alike from one device to
 * another (the catalog's calibration table measures each class); the
 * precision picks which of a device's compute figures applies. Both are
 * named in profiles (`model.workload`, `model.precision`) and in the
 * catalog's `calibration` section by the keys below. */
#ifndef RIGHTSIZE_WORKLOAD_H
#define RIGHTSIZE_WORKLOAD_H

/* X(NAME, key) */
#define RS_WORKLOAD_MAP(X)                                                                         \
  X(VISION_CNN, "vision-cnn")                                                                      \
  X(TRANSFORMER_ENCODER, "transformer-encoder")                                                    \
  X(DETECTION, "detection")                                                                        \
  X(LLM_DECODE, "llm-decode")

typedef enum {
#define RS_WORKLOAD_ENUM(name, key) RS_WORKLOAD_##name,
  RS_WORKLOAD_MAP(RS_WORKLOAD_ENUM)
#undef RS_WORKLOAD_ENUM
      RS_WORKLOAD_COUNT,
  RS_WORKLOAD_UNKNOWN = RS_WORKLOAD_COUNT /* not named: inferred, at lower confidence */
} rs_workload;

/* X(NAME, key, bytes per value) */
#define RS_PRECISION_MAP(X)                                                                        \
  X(FP32, "fp32", 4)                                                                               \
  X(TF32, "tf32", 4)                                                                               \
  X(FP16, "fp16", 2)                                                                               \
  X(BF16, "bf16", 2)                                                                               \
  X(FP8, "fp8", 1)                                                                                 \
  X(INT8, "int8", 1)

typedef enum {
#define RS_PRECISION_ENUM(name, key, bytes) RS_PRECISION_##name,
  RS_PRECISION_MAP(RS_PRECISION_ENUM)
#undef RS_PRECISION_ENUM
      RS_PRECISION_COUNT
} rs_precision;

/* The key ("vision-cnn"; "unknown" for RS_WORKLOAD_UNKNOWN), and back:
 * RS_WORKLOAD_UNKNOWN for a name that is not a class. */
const char *rs_workload_name(rs_workload w);
rs_workload rs_workload_from_name(const char *name);

/* The key ("fp16"), and back: RS_PRECISION_COUNT for an unknown name. */
const char *rs_precision_name(rs_precision p);
rs_precision rs_precision_from_name(const char *name);

/* Bytes one value of the precision takes (4, 2 or 1). */
double rs_precision_bytes(rs_precision p);

#endif
