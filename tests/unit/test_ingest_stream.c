/* The decompression layer (src/core/ingest/ingest_stream.c): gzip and zstd
 * told apart by magic bytes and decoded to the same bytes as their sources,
 * concatenated gzip members, any read size, and every bad input (corrupt,
 * truncated, a recognised but unsupported container, binary data) one
 * positioned error that quotes no raw bytes. Fixtures: tests/data/compressed
 * (written by its make.sh). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ingest_stream.h"
#include "rightsize/arena.h"

static char *load(const char *rel, size_t *len) {
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", RS_TEST_DATA, rel);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  char *buf = malloc(1 << 20);
  assert_non_null(buf);
  *len = fread(buf, 1, 1 << 20, f);
  fclose(f);
  return buf;
}

/* Every decoded byte of data, read cap bytes at a time. */
static char *decode_all(const char *data, size_t len, size_t cap, size_t *out_len, rs_status *st,
                        rs_error *err) {
  rs_instream *s = NULL;
  char *out = malloc(1 << 20);
  size_t n = 0, got = 1;
  assert_non_null(out);
  rs_error_clear(err);
  *st = rs_instream_open_memory(&s, "mem", data, len, err);
  while (*st == RS_OK && got > 0) {
    *st = rs_instream_read(s, out + n, cap, &got, err);
    n += got;
  }
  rs_instream_free(s);
  *out_len = n;
  return out;
}

static void assert_decodes_to(const char *packed, const char *plain, size_t cap) {
  size_t zlen, plen, dlen;
  rs_status st;
  rs_error err;
  char *z = load(packed, &zlen), *p = load(plain, &plen);
  char *d = decode_all(z, zlen, cap, &dlen, &st, &err);
  assert_int_equal(st, RS_OK);
  assert_int_equal(dlen, plen);
  assert_memory_equal(d, p, plen);
  free(z);
  free(p);
  free(d);
}

static void test_gzip_and_zstd(void **state) {
  (void)state;
  assert_decodes_to("compressed/native_full.csv.gz", "samples/native_full.csv", 65536);
  assert_decodes_to("compressed/native_full.csv.gz", "samples/native_full.csv", 1);
  assert_decodes_to("compressed/dcgm_query_range.json.zst", "exports/dcgm_query_range.json", 7);
  assert_decodes_to("compressed/long.csv.gz", "csvmap/long.csv", 4096);
  assert_decodes_to("samples/native_full.csv", "samples/native_full.csv", 3); /* plain */
}

static void test_encoding_and_head(void **state) {
  size_t zlen, hlen;
  rs_error err;
  rs_instream *s = NULL;
  char *z = load("compressed/dcgm_query_range.json.zst", &zlen);
  (void)state;
  assert_int_equal(rs_instream_open_memory(&s, "q.zst", z, zlen, &err), RS_OK);
  assert_string_equal(rs_instream_encoding(s), "zstd");
  const char *head = rs_instream_head(s, &hlen);
  assert_true(hlen > 20);
  assert_memory_equal(head, "{\"status\":\"success\"", 19);
  rs_instream_free(s);
  assert_int_equal(rs_instream_open_memory(&s, "p.csv", "timestamp\n1\n", 12, &err), RS_OK);
  assert_null(rs_instream_encoding(s));
  rs_instream_free(s);
  rs_instream_free(NULL);
  free(z);
}

/* cat a.gz a.gz: two members decode to the text twice. */
static void test_gzip_members(void **state) {
  size_t zlen, plen, dlen;
  rs_status st;
  rs_error err;
  char *z = load("compressed/native_full.csv.gz", &zlen),
       *p = load("samples/native_full.csv", &plen);
  char *zz = malloc(2 * zlen);
  (void)state;
  memcpy(zz, z, zlen);
  memcpy(zz + zlen, z, zlen);
  char *d = decode_all(zz, 2 * zlen, 100, &dlen, &st, &err);
  assert_int_equal(st, RS_OK);
  assert_int_equal(dlen, 2 * plen);
  assert_memory_equal(d + plen, p, plen);
  free(z);
  free(zz);
  free(p);
  free(d);
}

static void assert_printable(const char *msg) {
  for (const char *c = msg; *c; c++)
    if (*c < 0x20 || *c > 0x7e)
      fail_msg("byte 0x%02x in message '%s'", (unsigned char)*c, msg);
}

static void assert_fails(const char *data, size_t len, rs_status want, const char *text) {
  size_t dlen;
  rs_status st;
  rs_error err;
  free(decode_all(data, len, 4096, &dlen, &st, &err));
  assert_int_equal(st, want);
  if (strstr(err.msg, text) == NULL)
    fail_msg("message '%s' lacks '%s'", err.msg, text);
  assert_printable(err.msg);
  assert_string_equal(err.path, "mem");
}

static void test_bad_inputs(void **state) {
  size_t len;
  char *z;
  (void)state;
  z = load("compressed/corrupt.csv.gz", &len);
  assert_fails(z, len, RS_SYNTAX, "corrupt gzip data after");
  free(z);
  z = load("compressed/truncated.json.zst", &len);
  assert_fails(z, len, RS_SYNTAX, "truncated zstd data after 204 compressed bytes");
  free(z);
  z = load("compressed/native_full.csv.gz", &len);
  assert_fails(z, len - 12, RS_SYNTAX, "truncated gzip data");
  z[len / 2] ^= 0x5a; /* flipped inside the deflate data or the CRC: caught either way */
  assert_fails(z, len, RS_SYNTAX, "gzip data");
  free(z);
  assert_fails("\xFD"
               "7zXZ\x00\x00\x04",
               8, RS_INVALID, "xz-compressed");
  assert_fails("BZh91AY&SY", 10, RS_INVALID, "bzip2-compressed");
  assert_fails("PK\x03\x04\x14\x00", 6, RS_INVALID, "zip archive");
  assert_fails("PAR1\x15\x04", 6, RS_INVALID, "Apache Parquet");
  assert_fails("time\x00stamp\n", 11, RS_INVALID, "binary data (a NUL byte at offset 4)");
}

static void test_slurp_limit(void **state) {
  size_t zlen, len;
  rs_error err;
  rs_arena arena;
  rs_instream *s = NULL;
  char *data;
  char *z = load("compressed/dcgm_query_range.json.zst", &zlen);
  (void)state;
  rs_arena_init(&arena, 0);
  rs_error_clear(&err);
  assert_int_equal(rs_instream_open_memory(&s, "q.zst", z, zlen, &err), RS_OK);
  assert_int_equal(rs_instream_slurp(&data, &len, s, &arena, 100, &err), RS_LIMIT);
  assert_non_null(strstr(err.msg, "larger than 100 bytes decompressed"));
  rs_instream_free(s);
  rs_error_clear(&err);
  assert_int_equal(rs_instream_open_memory(&s, "q.zst", z, zlen, &err), RS_OK);
  assert_int_equal(rs_instream_slurp(&data, &len, s, &arena, 1 << 20, &err), RS_OK);
  assert_int_equal(data[len], '\0');
  assert_non_null(strstr(data, "DCGM_FI_DEV_FB_USED"));
  rs_instream_free(s);
  rs_arena_release(&arena);
  free(z);
}

/* A file (not memory) read through rs_instream_open at sizes around the
 * 64 KiB window and cap boundaries: every byte once, then only ends of
 * file, whether the last read was short or exactly filled its buffer. */
static void assert_file_round_trip(size_t size, size_t cap) {
  char dir[] = "/tmp/rs_test_instream_XXXXXX", path[64];
  rs_instream *s = NULL;
  rs_error err;
  size_t n = 0, got = 1;
  char *data = malloc(size + 1), *out = malloc(size + cap + 1);
  assert_non_null(data);
  assert_non_null(out);
  for (size_t i = 0; i < size; i++)
    data[i] = (char)('a' + (i * 7 + i / 13) % 26);
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof(path), "%s/f.csv", dir);
  FILE *fp = fopen(path, "wb");
  assert_non_null(fp);
  assert_int_equal(fwrite(data, 1, size, fp), size);
  fclose(fp);
  rs_error_clear(&err);
  assert_int_equal(rs_instream_open(&s, path, &err), RS_OK);
  while (got > 0) {
    assert_int_equal(rs_instream_read(s, out + n, cap, &got, &err), RS_OK);
    assert_true(n + got <= size);
    n += got;
  }
  assert_int_equal(rs_instream_read(s, out, cap, &got, &err), RS_OK); /* still the end */
  assert_int_equal(got, 0);
  assert_int_equal(n, size);
  assert_memory_equal(out, data, size);
  rs_instream_free(s);
  assert_int_equal(unlink(path), 0);
  assert_int_equal(rmdir(dir), 0);
  free(data);
  free(out);
}

static void test_file_sizes(void **state) {
  static const size_t sizes[] = {1, 8, 500, 65535, 65536, 65537, 131072, 262144, 300001};
  static const size_t caps[] = {1000, 65536, 262144};
  (void)state;
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
    for (size_t j = 0; j < sizeof(caps) / sizeof(caps[0]); j++)
      assert_file_round_trip(sizes[i], caps[j]);
}

/* A compressed file from disk, not memory, decodes to its source too. */
static void test_gzip_file(void **state) {
  char path[512];
  rs_instream *s = NULL;
  rs_error err;
  size_t plen, n = 0, got = 1;
  char *p = load("samples/native_full.csv", &plen), *out = malloc(1 << 20);
  (void)state;
  assert_non_null(out);
  snprintf(path, sizeof(path), "%s/compressed/native_full.csv.gz", RS_TEST_DATA);
  rs_error_clear(&err);
  assert_int_equal(rs_instream_open(&s, path, &err), RS_OK);
  while (got > 0) {
    assert_int_equal(rs_instream_read(s, out + n, 4096, &got, &err), RS_OK);
    n += got;
  }
  assert_int_equal(n, plen);
  assert_memory_equal(out, p, plen);
  rs_instream_free(s);
  free(p);
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gzip_and_zstd), cmocka_unit_test(test_encoding_and_head),
      cmocka_unit_test(test_gzip_members),  cmocka_unit_test(test_bad_inputs),
      cmocka_unit_test(test_slurp_limit),   cmocka_unit_test(test_file_sizes),
      cmocka_unit_test(test_gzip_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
