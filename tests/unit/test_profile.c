#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rightsize/profile.h"
#include "test_support.h"

#define DATA RS_TEST_DATA "/profiles/"
#define MIB (1024.0 * 1024.0)

static rs_profile *load_ok(void **state, const char *path) {
  rs_profile *p = NULL;
  rs_error err;
  char buf[1024];
  rs_error_clear(&err);
  if (rs_profile_load(&p, *state, path, &err) != RS_OK)
    fail_msg("%s", rs_error_format(&err, buf, sizeof(buf)));
  assert_non_null(p);
  return p;
}

static void assert_near(double got, double want) {
  if (!(fabs(got - want) <= 1e-9 * fmax(1.0, fabs(want))))
    fail_msg("got %.17g, want %.17g", got, want);
}

static bool has(const rs_sample *s, rs_metric m) { return (s->present & (1u << m)) != 0; }

static void check_full(const rs_profile *p, const char *path) {
  assert_string_equal(p->path, path);
  assert_int_equal(p->schema_major, 1);
  assert_int_equal(p->schema_minor, 2);
  assert_string_equal(p->endpoint, "resnet50-classifier");
  assert_string_equal(p->description, "ResNet-50 image classification API");
  assert_int_equal(p->source, RS_SOURCE_LOADTEST);
  assert_string_equal(p->model.framework, "pytorch");
  assert_int_equal(p->model.families, RS_FAMILY_NVIDIA_GPU | RS_FAMILY_INFERENTIA | RS_FAMILY_CPU);
  assert_near(p->model.weights_bytes, 98 * MIB);
  assert_int_equal(p->model.max_batch, 8);
  assert_near(p->model.activation_bytes_per_sample, 40 * MIB);
  assert_int_equal(p->model.bound, RS_BOUND_MEMORY);
  assert_true(p->model.shardable);
  assert_true(p->model.preallocates);
  assert_near(p->model.prealloc_fraction, 0.85);
  assert_true(p->model.kv.set);
  assert_int_equal(p->model.kv.layers, 32);
  assert_int_equal(p->model.kv.kv_heads, 8);
  assert_int_equal(p->model.kv.head_dim, 128);
  assert_near(p->model.kv.bytes_per_value, 2);
  assert_int_equal(p->model.kv.max_tokens, 16384);
  assert_string_equal(p->current.provider, "gcp");
  assert_string_equal(p->current.instance, "a2-highgpu-1g");
  assert_int_equal(p->current.replicas, 3);
  assert_string_equal(p->current.region, "us-central1");
  assert_near(p->slo.latency_p99_ms, 50);
  assert_near(p->slo.latency_p95_ms, 30);
  assert_near(p->traffic.peak_rps, 40);
  assert_near(p->traffic.growth, 1.2);
  assert_near(p->traffic.cold_start_s, 240); /* 4m in YAML, 240s in JSON */
}

static void check_full_lists(const rs_profile *p) {
  assert_int_equal(p->nfiles, 2);
  assert_string_equal(p->files[0].given, "week.csv");
  assert_string_equal(p->files[0].path, DATA "week.csv");
  assert_int_equal(p->files[0].format, RS_FORMAT_AUTO);
  assert_string_equal(p->files[1].given, "gpu.log");
  assert_string_equal(p->files[1].path, DATA "gpu.log");
  assert_int_equal(p->files[1].format, RS_FORMAT_NVSMI);
  assert_int_equal(p->nrows, 2);
  const rs_sample *r = &p->rows[0];
  assert_near(r->t, 1764461600);
  assert_int_equal(r->gpu, 0);
  assert_int_equal(r->present, (1u << RS_METRIC_GPU_MEM_USED) | (1u << RS_METRIC_GPU_UTIL));
  assert_near(r->v[RS_METRIC_GPU_MEM_USED], 2048 * MIB);
  assert_near(r->v[RS_METRIC_GPU_UTIL], 50);
  assert_string_equal(r->path, p->path);
  r = &p->rows[1];
  assert_near(r->t, 1795996860);
  assert_int_equal(r->gpu, 1);
  assert_int_equal(r->present, 1u << RS_METRIC_LATENCY_P99);
  assert_near(r->v[RS_METRIC_LATENCY_P99], 12.5);
  assert_int_equal(p->nbenchmarks, 2);
  assert_string_equal(p->benchmarks[0].instance, "g4dn.xlarge");
  assert_int_equal(p->benchmarks[0].batch, 4);
  assert_near(p->benchmarks[0].throughput_rps, 180);
  assert_near(p->benchmarks[0].latency_p99_ms, 9);
  assert_near(p->benchmarks[0].latency_p50_ms, 4);
  assert_string_equal(p->benchmarks[1].instance, "inf2.xlarge");
  assert_int_equal(p->benchmarks[1].batch, 1);
  assert_near(p->benchmarks[1].throughput_rps, 95.5);
  assert_true(isnan(p->benchmarks[1].latency_p99_ms));
  assert_true(isnan(p->benchmarks[1].latency_p50_ms));
}

static void test_full_yaml(void **state) {
  rs_profile *p = load_ok(state, DATA "full.yaml");
  check_full(p, DATA "full.yaml");
  check_full_lists(p);
  /* Positions point into the profile. */
  assert_int_equal(p->files[0].line, 29);
  assert_int_equal(p->files[0].col, 5);
  assert_int_equal(p->files[1].line, 30);
  assert_int_equal(p->files[1].col, 12);
  assert_int_equal(p->rows[0].line, 32);
  assert_int_equal(p->rows[0].t_col, 21);
  assert_int_equal(p->rows[1].line, 33);
  assert_int_equal(p->benchmarks[1].line, 36);
  assert_int_equal(p->benchmarks[1].col, 5);
}

/* The JSON twin reads to the same values; only positions differ. */
static void test_json_twin_is_identical(void **state) {
  rs_profile *y = load_ok(state, DATA "full.yaml");
  rs_profile *j = load_ok(state, DATA "full.json");
  check_full(j, DATA "full.json");
  check_full_lists(j);
  assert_memory_equal(&y->model.kv, &j->model.kv, sizeof(y->model.kv));
  assert_int_equal(y->current.replicas, j->current.replicas);
  assert_memory_equal(&y->slo, &j->slo, sizeof(y->slo));
  assert_memory_equal(&y->traffic, &j->traffic, sizeof(y->traffic));
  assert_int_equal(y->nrows, j->nrows);
  for (size_t i = 0; i < y->nrows; i++) {
    assert_memory_equal(y->rows[i].v, j->rows[i].v, sizeof(y->rows[i].v));
    assert_int_equal(y->rows[i].present, j->rows[i].present);
    assert_true(y->rows[i].t == j->rows[i].t);
    assert_int_equal(y->rows[i].gpu, j->rows[i].gpu);
  }
  assert_int_equal(j->files[1].line, 25);
  assert_int_equal(j->files[1].col, 14);
}

static void test_minimal_defaults(void **state) {
  rs_profile *p = load_ok(state, DATA "minimal.yaml");
  assert_int_equal(p->schema_major, 1);
  assert_int_equal(p->schema_minor, 0);
  assert_string_equal(p->endpoint, "tiny");
  assert_null(p->description);
  assert_int_equal(p->source, RS_SOURCE_PRODUCTION);
  assert_null(p->model.framework);
  assert_int_equal(p->model.families, RS_FAMILY_CPU);
  assert_true(isnan(p->model.weights_bytes));
  assert_true(isnan(p->model.activation_bytes_per_sample));
  assert_int_equal(p->model.max_batch, 1);
  assert_int_equal(p->model.bound, RS_BOUND_UNKNOWN);
  assert_false(p->model.workload_set);  /* inferred by the projection */
  assert_false(p->model.precision_set); /* fp16 */
  assert_false(p->model.shardable);
  assert_false(p->model.preallocates);
  assert_near(p->model.prealloc_fraction, 0.9);
  assert_false(p->model.kv.set);
  assert_string_equal(p->current.provider, "aws");
  assert_string_equal(p->current.instance, "c6i.large");
  assert_null(p->current.region);
  assert_int_equal(p->current.replicas, 1);
  assert_true(isnan(p->slo.latency_p99_ms));
  assert_near(p->slo.latency_p95_ms, 200); /* a bare number is milliseconds */
  assert_true(isnan(p->traffic.peak_rps));
  assert_near(p->traffic.growth, 1);
  assert_true(isnan(p->traffic.cold_start_s));
  assert_int_equal(p->nfiles, 1);
  assert_int_equal(p->nrows, 0);
  assert_int_equal(p->nbenchmarks, 0);
}

/* model.workload and model.precision (issue 12). */
static void test_workload_precision(void **state) {
  rs_profile *p = load_ok(state, DATA "workload-precision.yaml");
  assert_true(p->model.workload_set);
  assert_int_equal(p->model.workload, RS_WORKLOAD_TRANSFORMER_ENCODER);
  assert_true(p->model.precision_set);
  assert_int_equal(p->model.precision, RS_PRECISION_INT8);
}

static void test_inline_rows(void **state) {
  rs_profile *p = load_ok(state, DATA "inline-rows.yaml");
  assert_int_equal(p->nfiles, 0);
  assert_int_equal(p->nrows, 3);
  assert_near(p->rows[0].t, 1764461600);
  assert_int_equal(p->rows[0].gpu, -1);
  assert_near(p->rows[0].v[RS_METRIC_GPU_MEM_USED], 1024 * MIB);
  assert_near(p->rows[0].v[RS_METRIC_REQUEST_RATE], 5);
  assert_near(p->rows[1].v[RS_METRIC_GPU_UTIL], 30);
  assert_int_equal(p->rows[1].line, 9);
  /* A second rows entry appends; an empty cell leaves the metric absent. */
  assert_near(p->rows[2].t, 1795996920);
  assert_false(has(&p->rows[2], RS_METRIC_GPU_UTIL));
  assert_true(has(&p->rows[2], RS_METRIC_CPU_UTIL));
  assert_near(p->rows[2].v[RS_METRIC_CPU_UTIL], 55);
  assert_int_equal(p->rows[2].line, 11);
  assert_int_equal(p->rows[2].t_col, 20);
  assert_string_equal(p->rows[2].path, DATA "inline-rows.yaml");
}

static void test_sample_path_resolution(void **state) {
  char dir[] = "/tmp/rs_test_profile_XXXXXX";
  char path[128], cwd[4096];
  FILE *fp;
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof(path), "%s/abs.yaml", dir);
  fp = fopen(path, "w");
  assert_non_null(fp);
  fprintf(fp,
          "schema: 1\nendpoint: abs\nmodel: {families: [tpu, trainium]}\n"
          "current: {provider: gcp, instance: ct5lp-hightpu-1t}\nslo: {latency_p99: 1s}\n"
          "samples: [%s]\n",
          DATA "week.csv");
  fclose(fp);
  rs_profile *p = load_ok(state, path);
  assert_int_equal(p->model.families, RS_FAMILY_TPU | RS_FAMILY_TRAINIUM);
  assert_near(p->slo.latency_p99_ms, 1000);
  assert_string_equal(p->files[0].path, DATA "week.csv");
  assert_int_equal(unlink(path), 0);
  assert_int_equal(rmdir(dir), 0);
  /* A profile named without a directory resolves against the current one. */
  assert_non_null(getcwd(cwd, sizeof(cwd)));
  assert_int_equal(chdir(DATA), 0);
  p = load_ok(state, "minimal.yaml");
  assert_string_equal(p->files[0].path, "week.csv");
  assert_int_equal(chdir(cwd), 0);
}

static void test_example_profiles_load(void **state) {
  static const char *const names[] = {"distilbert-intent-g4dn.yaml", "llama2-7b-vllm-a100.yaml",
                                      "resnet50-loadtest.yaml", "resnet50-p3.8xlarge.yaml"};
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    char path[512];
    snprintf(path, sizeof(path), "%s/profiles/%s", RS_SOURCE_DIR, names[i]);
    rs_profile *p = load_ok(state, path);
    assert_true(p->model.families != 0);
    assert_true(p->nfiles >= 1);
  }
}

typedef struct bad_case {
  const char *file;
  rs_status status;
  size_t line, col;
  const char *msg;
} bad_case;

static const bad_case bad_cases[] = {
    {"err-max-batch-word.yaml", RS_INVALID, 5, 14,
     "model.max_batch: expected an integer, got 'eight'"},
    {"err-quoted-number.yaml", RS_INVALID, 5, 22,
     "model.prealloc_fraction: expected a number, got string '0.9'"},
    {"err-bool.yaml", RS_INVALID, 5, 14, "model.shardable: expected true or false, got 'yes'"},
    {"err-json-type.json", RS_INVALID, 1, 79,
     "model.max_batch: expected an integer, got string '8'"},
    {"err-families-not-list.yaml", RS_INVALID, 4, 13, "model.families: expected a list, got 'cpu'"},
    {"err-missing-endpoint.yaml", RS_INVALID, 1, 1,
     "missing required key 'endpoint' in the profile"},
    {"err-missing-slo-latency.yaml", RS_INVALID, 6, 6,
     "slo: expected latency_p99 or latency_p95 (for example latency_p99: 50ms)"},
    {"err-kv-incomplete.yaml", RS_INVALID, 5, 13,
     "missing required key 'head_dim' in model.kv_cache"},
    {"err-samples-empty.yaml", RS_INVALID, 7, 10,
     "samples: expected at least one sample file or inline rows"},
    {"err-unknown-key.yaml", RS_INVALID, 5, 3,
     "unknown key 'weigths' in model, expected one of: framework, families, weights, max_batch, "
     "activation_per_sample, bound, shardable, preallocates, prealloc_fraction, kv_cache"},
    {"err-family.yaml", RS_INVALID, 4, 19,
     "model.families: unknown family 'nvidia', expected nvidia-gpu, cpu, inferentia, trainium or "
     "tpu"},
    {"err-provider.yaml", RS_INVALID, 5, 21,
     "current.provider: unknown value 'oracle', expected one of: aws, gcp, azure"},
    {"err-benchmark.yaml", RS_INVALID, 9, 43,
     "benchmarks[].throughput_rps: expected a value > 0, got '0'"},
    {"err-schema-major.yaml", RS_INVALID, 1, 9, "unsupported schema 2, expected 1"},
    {"err-truncated.yaml", RS_SYNTAX, 5, 44,
     "found unexpected end of stream (while scanning a quoted scalar at line 5)"},
    {"err-trailing.json", RS_SYNTAX, 9, 1, "trailing characters after the JSON value"},
    {"err-missing-sample.yaml", RS_IO, 9, 5,
     "sample file 'month.csv' not found (looked at " DATA "month.csv)"},
    {"err-sample-dir.yaml", RS_IO, 8, 12,
     "sample file '../samples' (" DATA "../samples) is a directory, expected a file"},
    {"err-inline-cell.yaml", RS_INVALID, 10, 47,
     "expected a percentage between 0 and 100 in column 'gpu_util_pct', got '140'"},
    {"err-inline-column.yaml", RS_INVALID, 9, 33,
     "unknown column 'gpu_utl_pct' in an inline row, expected a native column name (see "
     "docs/samples-format.md); did you mean 'gpu_util_pct'?"},
    {"err-workload.yaml", RS_INVALID, 5, 13,
     "model.workload: unknown value 'speech', expected one of: vision-cnn, transformer-encoder, "
     "detection, llm-decode"},
    {"err-precision.yaml", RS_INVALID, 5, 14,
     "model.precision: unknown value 'int4', expected one of: fp32, tf32, fp16, bf16, fp8, int8"},
    {"err-size-unit.yaml", RS_INVALID, 5, 12,
     "model.weights: expected a size with a unit, such as 98MiB or 16GB, got '98'"},
};

static void test_bad_profiles(void **state) {
  for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
    const bad_case *c = &bad_cases[i];
    char path[512];
    rs_profile *p = (rs_profile *)1;
    rs_error err;
    rs_error_clear(&err);
    snprintf(path, sizeof(path), "%s%s", DATA, c->file);
    rs_status st = rs_profile_load(&p, *state, path, &err);
    if (st != c->status || err.line != c->line || err.col != c->col ||
        strstr(err.msg, c->msg) == NULL)
      fail_msg("%s: got %s %zu:%zu '%s'", c->file, rs_status_name(st), err.line, err.col, err.msg);
    assert_null(p);
    assert_string_equal(err.path, path);
  }
}

static void test_missing_profile(void **state) {
  rs_profile *p = (rs_profile *)1;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_profile_load(&p, *state, DATA "nope.yaml", &err), RS_IO);
  assert_null(p);
  assert_int_equal(err.line, 0);
  assert_string_equal(err.msg, "cannot open: No such file or directory");
  rs_error_clear(&err);
  assert_int_equal(rs_profile_load(&p, *state, RS_TEST_DATA "/profiles", &err), RS_IO);
  assert_string_equal(err.msg, "is a directory, expected a file");
}

static void test_names(void **state) {
  (void)state;
  assert_int_equal(rs_family_from_name("nvidia-gpu"), RS_FAMILY_NVIDIA_GPU);
  assert_int_equal(rs_family_from_name("inferentia"), RS_FAMILY_INFERENTIA);
  assert_int_equal(rs_family_from_name("tpu"), RS_FAMILY_TPU);
  assert_int_equal(rs_family_from_name("gpu"), 0);
  assert_int_equal(rs_family_from_name("CPU"), 0);
  assert_string_equal(rs_family_name(RS_FAMILY_CPU), "cpu");
  assert_string_equal(rs_family_name(RS_FAMILY_TRAINIUM), "trainium");
  assert_string_equal(rs_family_name(RS_FAMILY_CPU | RS_FAMILY_TPU), "unknown");
  assert_string_equal(rs_source_name(RS_SOURCE_PRODUCTION), "production");
  assert_string_equal(rs_source_name(RS_SOURCE_CHAOS), "chaos");
  assert_string_equal(rs_source_name(RS_SOURCE_SYNTHETIC), "synthetic");
  assert_string_equal(rs_bound_name(RS_BOUND_UNKNOWN), "unknown");
  assert_string_equal(rs_bound_name(RS_BOUND_COMPUTE), "compute");
  assert_string_equal(rs_bound_name(RS_BOUND_MIXED), "mixed");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_full_yaml, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_json_twin_is_identical, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_workload_precision, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_minimal_defaults, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_inline_rows, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_sample_path_resolution, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_example_profiles_load, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_bad_profiles, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_missing_profile, setup_arena, teardown_arena),
      cmocka_unit_test(test_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
