/* The profile writer against the reader: write, read back with
 * rs_profile_load, same profile; with hostile strings (quotes, colons,
 * newlines, '#', backslashes, tabs, UTF-8) and every optional field, and
 * for each shipped profile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rightsize/buf.h"
#include "rightsize/profile.h"
#include "rightsize/profile_write.h"
#include "test_support.h"

#define SHIPPED RS_SOURCE_DIR "/profiles"

static void assert_same_string(const char *a, const char *b) {
  if (a == NULL || b == NULL)
    assert_ptr_equal(a, b);
  else
    assert_string_equal(a, b);
}

/* Equal, both NaN, or within a part in 10^12 (ms and bytes pass through
 * a unit conversion on the way back). */
static void assert_same_number(double a, double b) {
  if (isnan(a) || isnan(b))
    assert_true(isnan(a) && isnan(b));
  else
    assert_true(fabs(a - b) <= 1e-12 * fmax(fabs(a), 1.0));
}

static void assert_same_model(const rs_profile *a, const rs_profile *b) {
  assert_same_string(a->model.framework, b->model.framework);
  assert_int_equal(a->model.families, b->model.families);
  assert_same_number(a->model.weights_bytes, b->model.weights_bytes);
  assert_int_equal(a->model.max_batch, b->model.max_batch);
  assert_same_number(a->model.activation_bytes_per_sample, b->model.activation_bytes_per_sample);
  assert_int_equal(a->model.preallocates, b->model.preallocates);
  if (a->model.preallocates)
    assert_same_number(a->model.prealloc_fraction, b->model.prealloc_fraction);
  assert_int_equal(a->model.kv.set, b->model.kv.set);
  assert_memory_equal(&a->model.kv.layers, &b->model.kv.layers, 3 * sizeof(uint64_t));
  assert_same_number(a->model.kv.bytes_per_value, b->model.kv.bytes_per_value);
  assert_int_equal(a->model.kv.max_tokens, b->model.kv.max_tokens);
  assert_int_equal(a->model.bound, b->model.bound);
  assert_int_equal(a->model.shardable, b->model.shardable);
}

static void assert_same_profile(const rs_profile *a, const rs_profile *b) {
  assert_same_string(a->endpoint, b->endpoint);
  assert_same_string(a->description, b->description);
  assert_int_equal(a->source, b->source);
  assert_same_model(a, b);
  assert_same_string(a->current.provider, b->current.provider);
  assert_same_string(a->current.instance, b->current.instance);
  assert_same_string(a->current.region, b->current.region);
  assert_int_equal(a->current.replicas, b->current.replicas);
  assert_same_number(a->slo.latency_p99_ms, b->slo.latency_p99_ms);
  assert_same_number(a->slo.latency_p95_ms, b->slo.latency_p95_ms);
  assert_same_number(a->traffic.peak_rps, b->traffic.peak_rps);
  assert_same_number(a->traffic.growth, b->traffic.growth);
  assert_int_equal(a->traffic.rate_per_endpoint, b->traffic.rate_per_endpoint);
  assert_int_equal(a->nfiles, b->nfiles);
  for (size_t i = 0; i < a->nfiles; i++) {
    assert_same_string(a->files[i].given, b->files[i].given);
    assert_int_equal(a->files[i].format, b->files[i].format);
  }
  assert_int_equal(a->nrows, b->nrows);
  assert_int_equal(a->nbenchmarks, b->nbenchmarks);
  for (size_t i = 0; i < a->nbenchmarks; i++) {
    const rs_benchmark *x = &a->benchmarks[i], *y = &b->benchmarks[i];
    assert_same_string(x->instance, y->instance);
    assert_int_equal(x->batch, y->batch);
    assert_same_number(x->throughput_rps, y->throughput_rps);
    assert_same_number(x->latency_p99_ms, y->latency_p99_ms);
    assert_same_number(x->latency_p50_ms, y->latency_p50_ms);
  }
}

/* Writes p to DIR/name.yaml and loads it back. */
static rs_profile *round_trip(rs_arena *arena, const rs_profile *p, const char *dir) {
  char path[512];
  rs_buf out;
  rs_profile *back = NULL;
  rs_error err;
  FILE *f;
  rs_error_clear(&err);
  rs_buf_init(&out, 0);
  assert_int_equal(rs_profile_write(&out, p, "a test: round trip # of the writer"), RS_OK);
  snprintf(path, sizeof(path), "%s/written.yaml", dir);
  f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(out.data, 1, out.len, f), out.len);
  assert_int_equal(fclose(f), 0);
  if (rs_profile_load(&back, arena, path, &err) != RS_OK)
    fail_msg("%s\n%.*s", err.msg, (int)out.len, out.data);
  rs_buf_release(&out);
  return back;
}

static void touch(const char *dir, const char *name) {
  char path[512];
  FILE *f;
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  f = fopen(path, "wb");
  assert_non_null(f);
  fclose(f);
}

static void test_hostile_strings_and_every_field(void **state) {
  char dir[] = "/tmp/rs_profile_write_XXXXXX";
  rs_sample_file file = {.given = "samples: #1 \"a\".csv", .format = RS_FORMAT_NATIVE};
  rs_benchmark bench = {.instance = "g5.xlarge: 'spot' #2",
                        .batch = 4,
                        .latency_p99_ms = 41.25,
                        .latency_p50_ms = NAN,
                        .throughput_rps = 310.5};
  rs_profile p = {
      .endpoint = "bert \"quoted\": a # not a comment\nsecond line\\ and a\ttab",
      .description = "caf\xc3\xa9 - [x, y] {z}: 'q' & *anchor ? |",
      .source = RS_SOURCE_LOADTEST,
  };
  rs_profile *back;
  assert_non_null(mkdtemp(dir));
  touch(dir, file.given);
  p.model.framework = "torch: 2.1 # cuda";
  p.model.families = RS_FAMILY_NVIDIA_GPU | RS_FAMILY_CPU;
  p.model.weights_bytes = 1.5e9;
  p.model.max_batch = 8;
  p.model.activation_bytes_per_sample = 1234567;
  p.model.preallocates = true;
  p.model.prealloc_fraction = 0.85;
  p.model.kv = (rs_kv_cache){true, 32, 8, 128, 2, 65536};
  p.model.bound = RS_BOUND_MEMORY;
  p.model.shardable = true;
  p.current.provider = "gcp";
  p.current.instance = "a2-highgpu-1g # really";
  p.current.region = "us-central1: 'b'";
  p.current.replicas = 3;
  p.slo.latency_p99_ms = 37.3;
  p.slo.latency_p95_ms = 20;
  p.traffic.peak_rps = 12.5;
  p.traffic.growth = 1.5;
  p.traffic.rate_per_endpoint = true;
  p.files = &file;
  p.nfiles = 1;
  p.benchmarks = &bench;
  p.nbenchmarks = 1;
  back = round_trip(*state, &p, dir);
  assert_same_profile(&p, back);
  unlink(strcat(strcat(strcpy((char[600]){0}, dir), "/"), file.given));
  unlink(strcat(strcpy((char[600]){0}, dir), "/written.yaml"));
  rmdir(dir);
}

/* Each shipped profile, written with its sample paths made absolute (the
 * copy lives elsewhere), reads back the same. */
static void test_shipped_profiles(void **state) {
  static const char *const names[] = {"resnet50-p3.8xlarge.yaml", "resnet50-loadtest.yaml",
                                      "distilbert-intent-g4dn.yaml", "llama2-7b-vllm-a100.yaml"};
  char dir[] = "/tmp/rs_profile_write_XXXXXX";
  assert_non_null(mkdtemp(dir));
  for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
    char path[512];
    rs_profile *p, *back;
    rs_error err;
    rs_error_clear(&err);
    snprintf(path, sizeof(path), "%s/%s", SHIPPED, names[k]);
    assert_int_equal(rs_profile_load(&p, *state, path, &err), RS_OK);
    for (size_t i = 0; i < p->nfiles; i++)
      p->files[i].given = p->files[i].path;
    back = round_trip(*state, p, dir);
    assert_same_profile(p, back);
  }
  unlink(strcat(strcpy((char[600]){0}, dir), "/written.yaml"));
  rmdir(dir);
}

static void test_inline_rows_are_refused(void **state) {
  rs_sample row;
  rs_profile p = {.endpoint = "e", .rows = &row, .nrows = 1};
  rs_buf out;
  (void)state;
  rs_buf_init(&out, 0);
  assert_int_equal(rs_profile_write(&out, &p, NULL), RS_INVALID);
  assert_int_equal(out.len, 0);
  rs_buf_release(&out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_hostile_strings_and_every_field, setup_arena,
                                      teardown_arena),
      cmocka_unit_test_setup_teardown(test_shipped_profiles, setup_arena, teardown_arena),
      cmocka_unit_test(test_inline_rows_are_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
