/* The catalog loader: the shipped catalog's facts, the compiled copy, the
 * directory rule, and one test per validation error with its position. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rightsize/catalog.h"
#include "test_support.h"

/* cmocka before 1.1.6 has no assert_double_equal. */
#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

#define SHIPPED RS_SOURCE_DIR "/catalogs/rightsize-2026.12.0.yaml"
#define FIXTURES RS_TEST_DATA "/catalogs"

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf;
  long n;
  assert_non_null(f);
  assert_int_equal(fseek(f, 0, SEEK_END), 0);
  n = ftell(f);
  rewind(f);
  buf = malloc((size_t)n + 1);
  assert_non_null(buf);
  assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  buf[n] = '\0';
  *len = (size_t)n;
  return buf;
}

/* Both strings equal (or both NULL), then both cleared so the bytes left
 * to compare are the numbers, enums, flags and positions. */
static void same_str(const char **a, const char **b) {
  if (*a == NULL || *b == NULL)
    assert_ptr_equal(*a, *b);
  else
    assert_string_equal(*a, *b);
  *a = *b = NULL;
}

/* Both links name the same row of their own catalog's accelerators. */
static void same_accel(const rs_accelerator **a, const rs_catalog *ca, const rs_accelerator **b,
                       const rs_catalog *cb) {
  if (*a == NULL || *b == NULL)
    assert_ptr_equal(*a, *b);
  else
    assert_int_equal(*a - ca->accelerators, *b - cb->accelerators);
  *a = *b = NULL;
}

static void same_accelerator(const rs_accelerator *pa, const rs_accelerator *pb) {
  rs_accelerator a, b;
  memcpy(&a, pa, sizeof(a)); /* memcpy, not assignment: padding too */
  memcpy(&b, pb, sizeof(b));
  same_str(&a.key, &b.key);
  same_str(&a.vendor, &b.vendor);
  same_str(&a.name, &b.name);
  same_str(&a.form_factor, &b.form_factor);
  same_str(&a.memory_type, &b.memory_type);
  same_str(&a.source, &b.source);
  same_str(&a.notes, &b.notes);
  same_str(&a.architecture, &b.architecture);
  assert_memory_equal(&a, &b, sizeof(a));
}

static void same_instance(const rs_catalog *ca, const rs_instance *pa, const rs_catalog *cb,
                          const rs_instance *pb) {
  rs_instance a, b;
  memcpy(&a, pa, sizeof(a));
  memcpy(&b, pb, sizeof(b));
  same_str(&a.provider, &b.provider);
  same_str(&a.name, &b.name);
  same_str(&a.family, &b.family);
  same_str(&a.region, &b.region);
  same_str(&a.cpu, &b.cpu);
  same_str(&a.accelerator_basis, &b.accelerator_basis);
  same_str(&a.as_of, &b.as_of);
  same_str(&a.source, &b.source);
  same_str(&a.notes, &b.notes);
  same_accel(&a.accelerator, ca, &b.accelerator, cb);
  assert_memory_equal(&a, &b, sizeof(a));
}

static void same_calibration(const rs_catalog *ca, const rs_calibration *pa, const rs_catalog *cb,
                             const rs_calibration *pb) {
  rs_calibration a, b;
  memcpy(&a, pa, sizeof(a));
  memcpy(&b, pb, sizeof(b));
  same_str(&a.model, &b.model);
  same_str(&a.benchmark, &b.benchmark);
  same_accel(&a.accelerator, ca, &b.accelerator, cb);
  same_str(&a.unit, &b.unit);
  same_str(&a.software, &b.software);
  same_str(&a.round, &b.round);
  same_str(&a.scenario, &b.scenario);
  same_str(&a.submitter, &b.submitter);
  same_str(&a.system, &b.system);
  same_str(&a.source, &b.source);
  same_str(&a.notes, &b.notes);
  assert_memory_equal(&a, &b, sizeof(a));
}

/* The built-in catalog, compiled at build time by catalog_gen, is the
 * run-time parse of the shipped file: every string by content, every
 * accelerator link by row, and the rest of every struct byte for byte, so a
 * field the generator forgets (or writes rounded) fails here. */
static void test_compiled_equals_parse(void **state) {
  rs_catalog *compiled, *parsed, a, b;
  rs_error err;
  size_t len;
  char *file = slurp(SHIPPED, &len);
  rs_error_clear(&err);
  assert_int_equal(rs_catalog_default(&compiled, *state, &err), RS_OK);
  assert_int_equal(rs_catalog_parse(&parsed, *state, "rightsize-2026.12.0.yaml", file, len, &err),
                   RS_OK);
  free(file);
  assert_true(compiled->embedded);
  assert_false(parsed->embedded);
  assert_int_equal(compiled->naccelerators, parsed->naccelerators);
  assert_int_equal(compiled->ninstances, parsed->ninstances);
  assert_int_equal(compiled->ncalibration, parsed->ncalibration);
  assert_int_equal(compiled->nsources, parsed->nsources);
  for (size_t i = 0; i < parsed->naccelerators; i++)
    same_accelerator(&compiled->accelerators[i], &parsed->accelerators[i]);
  for (size_t i = 0; i < parsed->ninstances; i++)
    same_instance(compiled, &compiled->instances[i], parsed, &parsed->instances[i]);
  for (size_t i = 0; i < parsed->ncalibration; i++)
    same_calibration(compiled, &compiled->calibration[i], parsed, &parsed->calibration[i]);
  for (size_t i = 0; i < parsed->nsources; i++)
    assert_string_equal(compiled->sources[i], parsed->sources[i]);
  memcpy(&a, compiled, sizeof(a));
  memcpy(&b, parsed, sizeof(b));
  same_str(&a.path, &b.path);
  same_str(&a.version, &b.version);
  same_str(&a.prices_as_of, &b.prices_as_of);
  same_str(&a.currency, &b.currency);
  a.sources = b.sources = NULL;
  a.accelerators = b.accelerators = NULL;
  a.instances = b.instances = NULL;
  a.calibration = b.calibration = NULL;
  a.embedded = b.embedded = false;
  assert_memory_equal(&a, &b, sizeof(a)); /* the SHA-256 (a constant) among them */
}

/* Each run gets its own writable copy: pricing one leaves the next alone,
 * and its links point into its own accelerators. */
static void test_default_is_a_private_copy(void **state) {
  rs_catalog *one, *two;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_catalog_default(&one, *state, &err), RS_OK);
  assert_int_equal(rs_catalog_default(&two, *state, &err), RS_OK);
  assert_ptr_not_equal(one->instances, two->instances);
  one->instances[0].price_usd_per_hour = 1e9;
  assert_true(two->instances[0].price_usd_per_hour < 1e9);
  for (size_t i = 0; i < one->ninstances; i++) {
    const rs_accelerator *acc = one->instances[i].accelerator;
    if (acc != NULL)
      assert_ptr_equal(acc, rs_catalog_find_accelerator(one, acc->key));
  }
  for (size_t i = 0; i < one->ncalibration; i++)
    assert_ptr_equal(one->calibration[i].accelerator,
                     rs_catalog_find_accelerator(one, one->calibration[i].accelerator->key));
}

static void test_shipped_catalog_facts(void **state) {
  rs_catalog *cat;
  rs_error err;
  const rs_instance *p3;
  rs_error_clear(&err);
  assert_int_equal(rs_catalog_default(&cat, *state, &err), RS_OK);
  assert_int_equal(cat->ninstances, 160);
  assert_int_equal(cat->naccelerators, 26);
  assert_string_equal(cat->version, "2026.12.0");
  assert_string_equal(cat->currency, "USD");
  assert_true(cat->embedded);
  /* schema 2: the calibration table the projection is fitted to (issue 12) */
  assert_int_equal(cat->schema_version, 2);
  assert_int_equal(cat->ncalibration, 45);
  assert_string_equal(cat->calibration[0].accelerator->key, "T4");
  assert_int_equal(cat->calibration[0].workload, RS_WORKLOAD_VISION_CNN);
  assert_int_equal(cat->calibration[0].precision, RS_PRECISION_INT8);
  assert_near(cat->calibration[0].throughput, 6035.57, 0);
  for (size_t i = 0; i < cat->ncalibration; i++) {
    const rs_calibration *c = &cat->calibration[i];
    assert_near(c->throughput * c->accelerators, c->system_throughput, 1e-6 * c->system_throughput);
    /* every row names the published results file it was read from */
    assert_non_null(strstr(c->source, "github.com/mlcommons/inference_results_v"));
    assert_true(strstr(c->source, "mlperf_log_summary.txt") || strstr(c->source, "summary.html"));
  }
  p3 = rs_catalog_find(cat, "p3.8xlarge");
  assert_non_null(p3);
  assert_string_equal(p3->accelerator->key, "V100-SXM2-16GB");
  assert_near(p3->accelerator_count, 4, 0);
  assert_near(p3->accelerator_memory_bytes, 16e9, 0);
  assert_near(p3->vcpus, 32, 0);
  assert_near(p3->memory_bytes, 244.0 * 1024 * 1024 * 1024, 0);
  assert_near(p3->ondemand_usd_per_hour, 12.24, 0);
  assert_string_equal(p3->region, "us-east-1");
  assert_near(rs_instance_accel_memory(p3), 64e9, 0);
  assert_int_equal(p3->arch, RS_ARCH_X86_64);
  assert_int_equal(rs_catalog_find(cat, "g5g.xlarge")->arch, RS_ARCH_ARM64);
  assert_int_equal(rs_catalog_find(cat, "c7g.large")->arch, RS_ARCH_ARM64);
  assert_int_equal(rs_catalog_find(cat, "a3-highgpu-8g")->price_flag, RS_PRICE_SUSPECT);
  assert_int_equal(rs_catalog_find(cat, "a2-ultragpu-1g")->price_flag, RS_PRICE_SUSPECT);
  assert_int_equal(rs_catalog_find(cat, "a3-megagpu-8g")->price_flag, RS_PRICE_OK);
  assert_int_equal(rs_catalog_find(cat, "a2-highgpu-1g")->price_flag, RS_PRICE_OK);
}

static void test_shipped_unknowns_stay_unknown(void **state) {
  rs_catalog *cat;
  rs_error err;
  const rs_instance *nv6, *tpu, *c6i, *g4;
  const rs_accelerator *t4g;
  rs_error_clear(&err);
  assert_int_equal(rs_catalog_default(&cat, *state, &err), RS_OK);
  nv6 = rs_catalog_find(cat, "Standard_NV6ads_A10_v5");
  assert_near(nv6->accelerator_count, 1.0 / 6, 1e-6);
  assert_near(nv6->accelerator_memory_bytes, 4e9, 0);
  assert_near(rs_instance_accel_memory(nv6), 4e9, 0);
  assert_int_equal(nv6->price_flag, RS_PRICE_UNPRICED);
  assert_true(isnan(nv6->ondemand_usd_per_hour));
  tpu = rs_catalog_find(cat, "tpu-v2-8");
  assert_true(isnan(tpu->vcpus));
  assert_int_equal(tpu->arch, RS_ARCH_UNKNOWN);
  assert_string_equal(tpu->accelerator->key, "TPU-v2");
  c6i = rs_catalog_find(cat, "c6i.large");
  assert_null(c6i->accelerator);
  assert_near(c6i->cpu_gflops_per_vcpu, 28, 0);
  assert_near(c6i->network_baseline_gbps, 0.781, 0);
  assert_true(c6i->network_up_to);
  g4 = rs_catalog_find(cat, "g4dn.2xlarge");
  assert_true(isnan(g4->spot_usd_per_hour));
  assert_true(isnan(rs_catalog_find(cat, "Standard_ND96isr_H100_v5")->spot_usd_per_hour));
  assert_near(rs_catalog_find(cat, "Standard_NC8ads_A10_v4")->ondemand_usd_per_hour, 1.1, 0);
  t4g = rs_catalog_find_accelerator(cat, "T4G");
  assert_near(t4g->fp16_tflops, 65, 0); /* issue 12: filled from a source */
  assert_near(t4g->memory_bw_gbps, 320, 0);
  assert_near(t4g->memory_bytes, 16e9, 0);
  assert_true(isnan(t4g->fp8_tflops)); /* Turing has no FP8 */
  assert_true(isnan(rs_catalog_find_accelerator(cat, "H100-NVL-94GB")->fp16_tflops));
  assert_near(rs_catalog_find_accelerator(cat, "A10G")->fp16_tflops, 70, 0);
  assert_near(rs_catalog_find_accelerator(cat, "K80")->fp32_tflops, 4.37, 0);
  assert_near(rs_catalog_find(cat, "Standard_NC40ads_H100_v5")->accelerator_memory_bytes, 94e9, 0);
}

static void test_load_file_hash_is_of_bytes(void **state) {
  rs_catalog *cat, *emb;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_catalog_load(&cat, *state, SHIPPED, &err), RS_OK);
  assert_int_equal(rs_catalog_default(&emb, *state, &err), RS_OK);
  assert_string_equal(cat->sha256, emb->sha256);
  assert_false(cat->embedded);
  assert_int_equal(strlen(cat->sha256), 64);
}

static void test_load_directory_takes_newest(void **state) {
  rs_catalog *cat;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_catalog_load(&cat, *state, FIXTURES "/newest", &err), RS_OK);
  assert_string_equal(cat->version, "2026.12.0");
  assert_non_null(strstr(cat->path, "rightsize-2026.12.0.yaml"));
}

static void test_load_missing_and_empty_dir(void **state) {
  rs_catalog *cat = (rs_catalog *)1;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_catalog_load(&cat, *state, FIXTURES "/nope.yaml", &err), RS_IO);
  assert_null(cat);
  assert_non_null(strstr(err.msg, "cannot open"));
  rs_error_clear(&err);
  assert_int_equal(rs_catalog_load(&cat, *state, RS_TEST_DATA "/samples", &err), RS_IO);
  assert_non_null(strstr(err.msg, "no catalog file"));
}

/* Parses the minimal fixture with `from` replaced by `to` (to may be "").
 * Asserts the status, position and a message substring. */
static void expect_error(rs_arena *arena, const char *from, const char *to, rs_status want,
                         size_t line, size_t col, const char *msg) {
  size_t len;
  char *base = slurp(FIXTURES "/minimal.yaml", &len);
  char *hit = strstr(base, from);
  size_t nf = strlen(from), nt = strlen(to);
  char *text = malloc(len + nt + 1);
  rs_catalog *cat = (rs_catalog *)1;
  rs_error err;
  assert_non_null(hit);
  memcpy(text, base, (size_t)(hit - base));
  memcpy(text + (hit - base), to, nt);
  strcpy(text + (hit - base) + nt, hit + nf);
  rs_error_clear(&err);
  if (rs_catalog_parse(&cat, arena, "t.yaml", text, strlen(text), &err) != want)
    fail_msg("status %s, want %s: %zu:%zu: %s", rs_status_name(err.status), rs_status_name(want),
             err.line, err.col, err.msg);
  if (want == RS_OK) {
    assert_non_null(cat);
    free(text);
    free(base);
    return;
  }
  assert_null(cat);
  if (want == RS_SYNTAX)
    line = err.line, col = err.col;
  if (err.line != line || err.col != col || strstr(err.msg, msg) == NULL)
    fail_msg("got %zu:%zu: %s; want %zu:%zu: ...%s...", err.line, err.col, err.msg, line, col, msg);
  assert_string_equal(err.path, "t.yaml");
  free(text);
  free(base);
}

static void test_minimal_is_valid(void **state) {
  expect_error(*state, "0.526", "0.526", RS_OK, 0, 0, "");
}

static void test_unknown_accelerator(void **state) {
  expect_error(*state, "accelerator: T4", "accelerator: T5", RS_INVALID, 19, 18,
               "instances[0].accelerator: unknown accelerator key 'T5'");
}

static void test_duplicate_instance_last(void **state) {
  /* Appended after the last instance: the later entry is the one reported. */
  size_t len;
  char *base = slurp(FIXTURES "/minimal.yaml", &len);
  char *text = malloc(2 * len + 64);
  rs_catalog *cat;
  rs_error err;
  snprintf(text, 2 * len + 64, "%s%s", base, strstr(base, "  - provider"));
  rs_error_clear(&err);
  assert_int_equal(rs_catalog_parse(&cat, *state, "t.yaml", text, strlen(text), &err), RS_INVALID);
  assert_int_equal(err.line, 23);
  assert_int_equal(err.col, 5);
  assert_non_null(strstr(err.msg,
                         "duplicate instance 'aws' 'g4dn.xlarge' in region 'us-east-1', first at "
                         "line 14"));
  free(text);
  free(base);
}

static void test_price_not_positive(void **state) {
  expect_error(*state, "ondemand_usd_per_hour: 0.526", "ondemand_usd_per_hour: 0", RS_INVALID, 21,
               28, "instances[0].ondemand_usd_per_hour: must be greater than 0, got '0'");
  expect_error(*state, "ondemand_usd_per_hour: 0.526", "ondemand_usd_per_hour: -2", RS_INVALID, 21,
               28, "must be greater than 0, got '-2'");
  expect_error(*state, "0.526\n", "0.526\n    spot_usd_per_hour: 0\n", RS_INVALID, 22, 24,
               "instances[0].spot_usd_per_hour: must be greater than 0");
}

static void test_accelerator_count_zero(void **state) {
  expect_error(*state, "accelerator_count: 1", "accelerator_count: 0", RS_INVALID, 20, 24,
               "instances[0].accelerator_count: must be greater than 0, got '0'");
}

static void test_missing_required(void **state) {
  expect_error(*state, "    region: us-east-1\n", "", RS_INVALID, 14, 5,
               "instances[0]: missing required key 'region'");
  expect_error(*state, "    ondemand_usd_per_hour: 0.526\n", "", RS_INVALID, 14, 5,
               "instances[0]: missing required key 'ondemand_usd_per_hour'");
  expect_error(*state, "    accelerator: T4\n", "", RS_INVALID, 14, 5,
               "instances[0]: missing required key 'accelerator'");
  expect_error(*state, "    vendor: NVIDIA\n", "", RS_INVALID, 7, 5,
               "accelerators[0]: missing required key 'vendor'");
  expect_error(*state, "currency: USD\n", "", RS_INVALID, 1, 1,
               "catalog: missing required key 'currency'");
  expect_error(*state, "schema_version: 1\n", "", RS_INVALID, 1, 1,
               "catalog: missing required key 'schema_version'");
}

static void test_wrong_type(void **state) {
  expect_error(*state, "accelerator_count: 1", "accelerator_count: one", RS_INVALID, 20, 24,
               "instances[0].accelerator_count: expected a number, got 'one'");
  expect_error(*state, "memory: 16GB", "memory: 16", RS_INVALID, 11, 13,
               "accelerators[0].memory: expected a size with a unit");
  expect_error(*state, "ondemand_usd_per_hour: 0.526", "ondemand_usd_per_hour: \"0.526\"",
               RS_INVALID, 21, 28, "expected a number, got string '0.526'");
  expect_error(*state, "category: gpu", "category: gpus", RS_INVALID, 17, 15,
               "instances[0].category: expected gpu, accelerator, tpu or cpu, got 'gpus'");
  expect_error(*state, "family: nvidia-gpu", "family: [gpu]", RS_INVALID, 9, 13,
               "accelerators[0].family: expected a string, got a list");
  expect_error(*state, "sources: [\"test fixture\"]", "sources: {a: b}", RS_INVALID, 5, 10,
               "sources: expected a list, got a mapping");
  expect_error(*state, "    region: us-east-1\n", "    region: us-east-1\n    network: 10\n",
               RS_INVALID, 19, 14, "instances[0].network: expected a mapping, got '10'");
}

#define CAL_ROW                                                                                    \
  "calibration:\n  - {class: vision-cnn, model: m, benchmark: m, accelerator: T4, "                \
  "throughput: 10, unit: samples/s, system_throughput: 10, accelerators: 1, precision: int8, "     \
  "software: s, round: v1, scenario: Offline, submitter: x, system: y, source: z}\n"

/* The calibration section: schema 2 only, every field checked. */
static void test_calibration_section(void **state) {
  expect_error(*state, "schema_version: 1\n", "schema_version: 1\n" CAL_ROW, RS_INVALID, 3, 3,
               "calibration: needs schema_version 2, the file says 1");
  expect_error(*state, "schema_version: 1\n", "schema_version: 2\n" CAL_ROW, RS_OK, 0, 0, NULL);
  expect_error(*state, "schema_version: 1\n", "schema_version: 2\n" CAL_ROW "  - {class: speech}\n",
               RS_INVALID, 4, 13,
               "calibration[1].class: expected vision-cnn, transformer-encoder, detection or "
               "llm-decode, got 'speech'");
  expect_error(*state, "schema_version: 1\n",
               "schema_version: 2\ncalibration:\n  - {class: vision-cnn, precision: int8, "
               "accelerator: A100}\n",
               RS_INVALID, 3, 55,
               "calibration[0].accelerator: expected an accelerator key of this catalog, got "
               "'A100'");
}

static void test_schema_major(void **state) {
  expect_error(*state, "schema_version: 1", "schema_version: 3", RS_INVALID, 1, 17,
               "unsupported schema_version 3, this rightsize reads schema 1 to 2");
  expect_error(*state, "schema_version: 1", "schema_version: 0", RS_INVALID, 1, 17,
               "unsupported schema_version 0, this rightsize reads schema 1 to 2");
  expect_error(*state, "schema_version: 1", "schema_version: 1.1", RS_INVALID, 1, 17,
               "schema_version: expected an integer, got '1.1'");
}

static void test_unknown_keys(void **state) {
  expect_error(*state, "    family: g4dn\n", "    family: g4dn\n    colour: red\n", RS_INVALID, 17,
               5, "unknown key 'colour' in instances[0], expected one of: provider, name");
  expect_error(*state, "currency: USD\n", "currency: USD\nowner: me\n", RS_INVALID, 5, 1,
               "unknown key 'owner' in the catalog");
  expect_error(*state, "    region: us-east-1\n",
               "    region: us-east-1\n    network:\n      gbps: 10\n      burst: 5\n", RS_INVALID,
               21, 7, "unknown key 'burst' in instances[0].network");
}

static void test_cross_field_rules(void **state) {
  expect_error(*state, "    ondemand_usd_per_hour: 0.526\n",
               "    ondemand_usd_per_hour: 0.526\n    price_flag: unpriced\n", RS_INVALID, 21, 28,
               "price_flag 'unpriced' and ondemand_usd_per_hour both given");
  expect_error(*state, "    ondemand_usd_per_hour: 0.526\n", "    price_flag: unpriced\n", RS_OK, 0,
               0, "");
  expect_error(*state, "category: gpu", "category: cpu", RS_INVALID, 19, 18,
               "instances[0]: a cpu shape has no accelerator, got 'T4'");
  expect_error(*state, "    accelerator: T4\n    accelerator_count: 1\n", "", RS_INVALID, 14, 5,
               "instances[0]: missing required key 'accelerator'");
  expect_error(*state, "category: gpu\n", "category: cpu\n", RS_INVALID, 19, 18, "cpu shape");
  expect_error(*state, "currency: USD", "currency: EUR", RS_INVALID, 4, 11,
               "currency: only USD is supported, got 'EUR'");
}

static void test_cpu_needs_throughput(void **state) {
  expect_error(*state,
               "    category: gpu\n    region: us-east-1\n    accelerator: T4\n"
               "    accelerator_count: 1\n",
               "    category: cpu\n    region: us-east-1\n", RS_INVALID, 14, 5,
               "instances[0]: missing required key 'cpu_gflops_per_vcpu'");
  expect_error(*state,
               "    category: gpu\n    region: us-east-1\n    accelerator: T4\n"
               "    accelerator_count: 1\n",
               "    category: cpu\n    region: us-east-1\n    cpu_gflops_per_vcpu: 28\n", RS_OK, 0,
               0, "");
}

static void test_duplicate_accelerator_and_syntax(void **state) {
  expect_error(*state, "instances:\n",
               "  - key: T4\n    vendor: x\n    family: tpu\n    name: y\n    source: z\n"
               "instances:\n",
               RS_INVALID, 13, 10, "duplicate accelerator key 'T4', first at line 7");
  expect_error(*state, "sources: [\"test fixture\"]", "sources: [\"test fixture\"", RS_SYNTAX, 0, 0,
               "");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_compiled_equals_parse, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_default_is_a_private_copy, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_shipped_catalog_facts, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_shipped_unknowns_stay_unknown, setup_arena,
                                      teardown_arena),
      cmocka_unit_test_setup_teardown(test_load_file_hash_is_of_bytes, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_load_directory_takes_newest, setup_arena,
                                      teardown_arena),
      cmocka_unit_test_setup_teardown(test_load_missing_and_empty_dir, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_minimal_is_valid, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_unknown_accelerator, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_duplicate_instance_last, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_price_not_positive, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_accelerator_count_zero, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_missing_required, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_wrong_type, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_schema_major, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_calibration_section, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_unknown_keys, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_cross_field_rules, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_cpu_needs_throughput, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_duplicate_accelerator_and_syntax, setup_arena,
                                      teardown_arena),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
