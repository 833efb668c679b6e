/* SHA-256 against the FIPS 180-2 appendix B vectors and a streaming split. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sha256.h"

static void test_fips_one_block(void **state) {
  char hex[RS_SHA256_HEX_SIZE];
  (void)state;
  rs_sha256_hex(hex, "abc", 3);
  assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void test_fips_two_blocks(void **state) {
  const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  char hex[RS_SHA256_HEX_SIZE];
  (void)state;
  rs_sha256_hex(hex, m, strlen(m));
  assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_fips_million_a(void **state) {
  char chunk[1000];
  unsigned char d[RS_SHA256_SIZE];
  static const unsigned char want[RS_SHA256_SIZE] = {
      0xcd, 0xc7, 0x6e, 0x5c, 0x99, 0x14, 0xfb, 0x92, 0x81, 0xa1, 0xc7,
      0xe2, 0x84, 0xd7, 0x3e, 0x67, 0xf1, 0x80, 0x9a, 0x48, 0xa4, 0x97,
      0x20, 0x0e, 0x04, 0x6d, 0x39, 0xcc, 0xc7, 0x11, 0x2c, 0xd0};
  rs_sha256 ctx;
  (void)state;
  memset(chunk, 'a', sizeof(chunk));
  rs_sha256_init(&ctx);
  for (int i = 0; i < 1000; i++)
    rs_sha256_update(&ctx, chunk, sizeof(chunk));
  rs_sha256_final(&ctx, d);
  assert_memory_equal(d, want, sizeof(want));
}

static void test_empty(void **state) {
  char hex[RS_SHA256_HEX_SIZE];
  (void)state;
  rs_sha256_hex(hex, "", 0);
  assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

/* Every split of a 56..64 byte message (the padding edge) hashes the same. */
static void test_split_boundaries(void **state) {
  unsigned char msg[130], whole[RS_SHA256_SIZE], parts[RS_SHA256_SIZE];
  rs_sha256 ctx;
  (void)state;
  for (size_t i = 0; i < sizeof(msg); i++)
    msg[i] = (unsigned char)(i * 7 + 1);
  for (size_t n = 50; n <= sizeof(msg); n++) {
    rs_sha256_init(&ctx);
    rs_sha256_update(&ctx, msg, n);
    rs_sha256_final(&ctx, whole);
    for (size_t cut = 0; cut <= n; cut += 13) {
      rs_sha256_init(&ctx);
      rs_sha256_update(&ctx, msg, cut);
      rs_sha256_update(&ctx, msg + cut, n - cut);
      rs_sha256_final(&ctx, parts);
      assert_memory_equal(whole, parts, sizeof(whole));
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fips_one_block), cmocka_unit_test(test_fips_two_blocks),
      cmocka_unit_test(test_fips_million_a), cmocka_unit_test(test_empty),
      cmocka_unit_test(test_split_boundaries)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
