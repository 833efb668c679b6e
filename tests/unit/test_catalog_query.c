/* Catalog querying: each filter alone, "all" and comma lists of providers,
 * the sort orders with their tie-breakers and unknown keys last, and the
 * diff of two fixture catalogs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rightsize/catalog.h"
#include "rightsize/catalog_query.h"
#include "rightsize/num.h"
#include "test_support.h"

#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

/* Five shapes over three providers: enough for every filter to drop some. */
static const char fixture[] =
    "schema_version: 1\n"
    "catalog_version: 0.0.9\n"
    "prices_as_of: \"2026-01-01\"\n"
    "currency: USD\n"
    "sources: [\"test\"]\n"
    "accelerators:\n"
    "  - {key: T4, vendor: NVIDIA, family: nvidia-gpu, name: Tesla T4,"
    " memory: 16GB, source: t}\n"
    "  - {key: T4G, vendor: NVIDIA, family: nvidia-gpu, name: T4G,"
    " memory: 16GB, source: t}\n"
    "  - {key: INF2, vendor: AWS, family: inferentia, name: Inferentia2,"
    " memory: 32GB, source: t}\n"
    "instances:\n"
    "  - {provider: aws, name: g4dn.xlarge, family: g4dn, category: gpu,"
    " region: us-east-1, accelerator: T4, accelerator_count: 1,"
    " accelerator_memory: 16GB,"
    " vcpus: 4, ondemand_usd_per_hour: 0.5, source: t}\n"
    "  - {provider: aws, name: g5g.xlarge, family: g5g, category: gpu,"
    " region: us-east-1, accelerator: T4G, accelerator_count: 1,"
    " accelerator_memory: 16GB,"
    " vcpus: 4, arch: arm64, ondemand_usd_per_hour: 0.4, source: t}\n"
    "  - {provider: aws, name: inf2.xlarge, family: inf2,"
    " category: accelerator, region: us-west-2, accelerator: INF2,"
    " accelerator_count: 2, accelerator_memory: 32GB, vcpus: 8, ondemand_usd_per_hour: 0.8,"
    " source: t}\n"
    "  - {provider: gcp, name: n1-t4, family: n1, category: gpu,"
    " region: us-central1, accelerator: T4, accelerator_count: 4,"
    " accelerator_memory: 16GB,"
    " vcpus: 16, ondemand_usd_per_hour: 0.5, source: t}\n"
    "  - {provider: azure, name: D2, family: d, category: cpu,"
    " region: eastus, vcpus: 2, cpu_gflops_per_vcpu: 20,"
    " ondemand_usd_per_hour: 0.1, source: t}\n";

static rs_catalog *load(rs_arena *arena) {
  rs_catalog *cat;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(
      rs_catalog_parse(&cat, arena, "fixture.yaml", fixture, sizeof(fixture) - 1, &err), RS_OK);
  for (size_t i = 0; i < cat->ninstances; i++) /* as rs_pricing_apply on-demand would */
    cat->instances[i].price_usd_per_hour = cat->instances[i].ondemand_usd_per_hour;
  return cat;
}

/* The names the query returns, joined by spaces. */
static const char *query(rs_arena *arena, const rs_catalog_filter *f) {
  enum { size = 256 };
  char *names = rs_arena_alloc(arena, size);
  const rs_instance **rows;
  size_t n, used = 0;
  rs_error err;
  rs_error_clear(&err);
  assert_non_null(names);
  assert_int_equal(rs_catalog_query(&rows, &n, arena, load(arena), f, &err), RS_OK);
  names[0] = '\0';
  for (size_t i = 0; i < n; i++)
    used += (size_t)snprintf(names + used, size - used, "%s%s", i ? " " : "", rows[i]->name);
  return names;
}

static void test_no_filter_keeps_catalog_order(void **state) {
  rs_catalog_filter f;
  rs_catalog_filter_init(&f);
  assert_string_equal(query(*state, &f), "g4dn.xlarge g5g.xlarge inf2.xlarge n1-t4 D2");
}

static void test_providers(void **state) {
  rs_catalog_filter f;
  rs_catalog_filter_init(&f);
  f.providers = 1u << RS_PROVIDER_GCP;
  assert_string_equal(query(*state, &f), "n1-t4");
  f.providers = (1u << RS_PROVIDER_AWS) | (1u << RS_PROVIDER_AZURE);
  assert_string_equal(query(*state, &f), "g4dn.xlarge g5g.xlarge inf2.xlarge D2");
  f.providers = UINT32_MAX; /* "all" */
  assert_string_equal(query(*state, &f), "g4dn.xlarge g5g.xlarge inf2.xlarge n1-t4 D2");
  assert_int_equal(rs_provider_from_name("gcp"), RS_PROVIDER_GCP);
  assert_int_equal(rs_provider_from_name("oracle"), -1);
  assert_string_equal(rs_provider_names[RS_PROVIDER_AZURE], "azure");
}

static void test_region_family_category_arch(void **state) {
  rs_catalog_filter f;
  rs_catalog_filter_init(&f);
  f.region = "us-west-2";
  assert_string_equal(query(*state, &f), "inf2.xlarge");
  rs_catalog_filter_init(&f);
  f.families = RS_FAMILY_CPU | RS_FAMILY_INFERENTIA;
  assert_string_equal(query(*state, &f), "inf2.xlarge D2");
  rs_catalog_filter_init(&f);
  f.category = RS_CATEGORY_GPU;
  f.arch = RS_ARCH_ARM64;
  assert_string_equal(query(*state, &f), "g5g.xlarge");
}

static void test_accelerator_exact_key_or_substring(void **state) {
  rs_catalog_filter f;
  rs_catalog_filter_init(&f);
  f.accelerator = "t4"; /* an exact key: not T4G */
  assert_string_equal(query(*state, &f), "g4dn.xlarge n1-t4");
  f.accelerator = "inferent"; /* a substring of a name */
  assert_string_equal(query(*state, &f), "inf2.xlarge");
}

static void test_numeric_limits(void **state) {
  rs_catalog_filter f;
  rs_catalog_filter_init(&f);
  f.max_price = 0.4;
  assert_string_equal(query(*state, &f), "g5g.xlarge D2");
  rs_catalog_filter_init(&f);
  f.min_vcpus = 8;
  assert_string_equal(query(*state, &f), "inf2.xlarge n1-t4");
  rs_catalog_filter_init(&f);
  f.min_accel_mem = 20e9; /* the CPU shape's unknown memory never passes */
  assert_string_equal(query(*state, &f), "inf2.xlarge");
}

static void test_sorts_ties_and_unknown_last(void **state) {
  rs_catalog_filter f;
  rs_catalog_filter_init(&f);
  f.sort = RS_CATALOG_SORT_PRICE; /* 0.5 twice: by provider, aws first */
  assert_string_equal(query(*state, &f), "D2 g5g.xlarge g4dn.xlarge n1-t4 inf2.xlarge");
  f.sort = RS_CATALOG_SORT_PER_ACCEL; /* n1-t4 0.125, inf2 0.4, g5g 0.4 (aws, by name) */
  assert_string_equal(query(*state, &f), "n1-t4 g5g.xlarge inf2.xlarge g4dn.xlarge D2");
  f.sort = RS_CATALOG_SORT_ACCEL_MEM; /* the CPU shape has none: last */
  assert_string_equal(query(*state, &f), "g4dn.xlarge g5g.xlarge inf2.xlarge n1-t4 D2");
  assert_string_equal(rs_catalog_sort_names[RS_CATALOG_SORT_PER_ACCEL], "price-per-accel");
}

static void test_instance_family(void **state) {
  rs_catalog *cat = load(*state);
  assert_int_equal(rs_instance_family(&cat->instances[0]), RS_FAMILY_NVIDIA_GPU);
  assert_int_equal(rs_instance_family(&cat->instances[2]), RS_FAMILY_INFERENTIA);
  assert_int_equal(rs_instance_family(&cat->instances[4]), RS_FAMILY_CPU);
  assert_int_equal(rs_accel_family_bit(RS_ACCEL_TPU), RS_FAMILY_TPU);
  assert_string_equal(rs_accel_family_name(RS_ACCEL_TRAINIUM), "trainium");
  assert_near(rs_instance_per_accel(&cat->instances[2], 0.8), 0.4, 1e-12);
}

static void test_diff(void **state) {
  rs_catalog *a, *b;
  rs_catalog_diff d;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_catalog_load(&a, *state, RS_TEST_DATA "/catalogs/diff_old.yaml", &err),
                   RS_OK);
  assert_int_equal(rs_catalog_load(&b, *state, RS_TEST_DATA "/catalogs/diff_new.yaml", &err),
                   RS_OK);
  assert_int_equal(rs_catalog_diff_compute(&d, *state, a, b, &err), RS_OK);
  assert_int_equal(d.added, 1);
  assert_int_equal(d.removed, 1);
  assert_int_equal(d.changed, 1);
  assert_int_equal(d.unchanged, 1);
  assert_int_equal(d.nchanges, 3);
  assert_int_equal(d.changes[0].kind, RS_CHANGE_PRICE);
  assert_string_equal(d.changes[0].in->name, "g4dn.xlarge");
  assert_true(d.changes[0].ondemand.changed);
  assert_false(d.changes[0].spot.changed);
  assert_near(d.changes[0].ondemand.pct, -4.9, 1e-9);
  assert_int_equal(d.changes[1].kind, RS_CHANGE_REMOVED);
  assert_string_equal(d.changes[1].in->name, "g4dn.2xlarge");
  assert_int_equal(d.changes[2].kind, RS_CHANGE_ADDED);
  assert_string_equal(d.changes[2].in->provider, "gcp");
  assert_int_equal(rs_catalog_diff_compute(&d, *state, a, a, &err), RS_OK);
  assert_int_equal(d.nchanges, 0);
  assert_int_equal(d.unchanged, a->ninstances);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_no_filter_keeps_catalog_order, setup_arena,
                                      teardown_arena),
      cmocka_unit_test_setup_teardown(test_providers, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_region_family_category_arch, setup_arena,
                                      teardown_arena),
      cmocka_unit_test_setup_teardown(test_accelerator_exact_key_or_substring, setup_arena,
                                      teardown_arena),
      cmocka_unit_test_setup_teardown(test_numeric_limits, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_sorts_ties_and_unknown_last, setup_arena,
                                      teardown_arena),
      cmocka_unit_test_setup_teardown(test_instance_family, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_diff, setup_arena, teardown_arena),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
