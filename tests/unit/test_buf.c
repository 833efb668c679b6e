#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rightsize/arena.h"
#include "rightsize/buf.h"

static int buf_setup(void **state) {
  static rs_buf buf;
  rs_buf_init(&buf, 0);
  *state = &buf;
  return 0;
}

static int buf_teardown(void **state) {
  rs_buf_release(*state);
  return 0;
}

static void test_append_and_reset(void **state) {
  rs_buf *b = *state;
  assert_int_equal(b->cap, RS_BUF_DEFAULT_CAP);
  assert_int_equal(rs_buf_append(b, "", 0), RS_OK);
  assert_non_null(b->data);
  assert_string_equal(b->data, "");
  assert_int_equal(rs_buf_puts(b, "ab"), RS_OK);
  assert_int_equal(rs_buf_putc(b, 'c'), RS_OK);
  assert_int_equal(rs_buf_append(b, "d\0e", 3), RS_OK);
  assert_int_equal(b->len, 6);
  assert_memory_equal(b->data, "abcd\0e", 7);
  rs_buf_reset(b);
  assert_int_equal(b->len, 0);
  assert_string_equal(b->data, "");
  assert_false(b->failed);
}

static void test_printf_growth(void **state) {
  rs_buf *b = *state;
  char big[1000];
  memset(big, 'x', sizeof(big) - 1);
  big[sizeof(big) - 1] = '\0';
  assert_int_equal(rs_buf_printf(b, "%d-%s", 42, "ok"), RS_OK);
  assert_string_equal(b->data, "42-ok");
  /* Longer than the 256-byte stack buffer: formatted straight into the buffer. */
  assert_int_equal(rs_buf_printf(b, "[%s]", big), RS_OK);
  assert_int_equal(b->len, 5 + 1001);
  assert_int_equal(b->data[5], '[');
  assert_int_equal(b->data[1005], ']');
  assert_int_equal(b->data[1006], '\0');
  for (int i = 0; i < 2000; i++)
    assert_int_equal(rs_buf_printf(b, "%04d", i), RS_OK);
  assert_int_equal(b->len, 1006 + 8000);
  assert_memory_equal(b->data + b->len - 4, "1999", 4);
}

static void test_cap(void **state) {
  (void)state;
  rs_buf b;
  rs_buf_init(&b, 8);
  assert_int_equal(rs_buf_puts(&b, "12345678"), RS_OK); /* exactly the cap */
  assert_int_equal(rs_buf_putc(&b, '9'), RS_LIMIT);
  assert_true(b.failed);
  assert_int_equal(b.len, 8);
  assert_string_equal(b.data, "12345678");         /* keeps what it had */
  assert_int_equal(rs_buf_puts(&b, ""), RS_LIMIT); /* later appends are no-ops */
  rs_buf_reset(&b);
  assert_false(b.failed);
  assert_int_equal(rs_buf_printf(&b, "%s", "123456789"), RS_LIMIT);
  assert_int_equal(b.len, 0);
  rs_buf_reset(&b);
  char big[300];
  memset(big, 'y', sizeof(big) - 1);
  big[sizeof(big) - 1] = '\0';
  rs_buf_release(&b);
  assert_int_equal(b.cap, 8); /* release keeps the cap */
  rs_buf_init(&b, 298);
  assert_int_equal(rs_buf_printf(&b, "%s", big), RS_LIMIT); /* the long printf path */
  assert_int_equal(b.len, 0);
  rs_buf_release(&b);
  rs_buf_init(&b, 4);
  assert_int_equal(rs_buf_append(&b, "x", SIZE_MAX), RS_LIMIT); /* no overflow */
  rs_buf_release(&b);
}

static void expect_json(rs_buf *b, const char *in, const char *want) {
  rs_buf_reset(b);
  assert_int_equal(rs_buf_put_json_string(b, in), RS_OK);
  assert_string_equal(b->data, want);
}

static void test_json_string(void **state) {
  rs_buf *b = *state;
  expect_json(b, "", "\"\"");
  expect_json(b, "gpu \"a\" \\ b", "\"gpu \\\"a\\\" \\\\ b\"");
  expect_json(b, "l1\nl2\r\t", "\"l1\\nl2\\r\\t\"");
  expect_json(b, "\x01\x1f\x7f", "\"\\u0001\\u001f\x7f\"");
  expect_json(b, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80",
              "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80\"");
  expect_json(b,
              "a\xff"
              "b",
              "\"a\\ufffdb\"");
  expect_json(b, "\xc3", "\"\\ufffd\"");                                  /* truncated at the end */
  expect_json(b, "\xc0\xaf", "\"\\ufffd\\ufffd\"");                       /* overlong */
  expect_json(b, "\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"");            /* overlong 3-byte */
  expect_json(b, "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");            /* surrogate */
  expect_json(b, "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* > U+10FFFF */
  expect_json(b, "\xe2\x82", "\"\\ufffd\\ufffd\"");
  rs_buf c;
  rs_buf_init(&c, 5);
  assert_int_equal(rs_buf_put_json_string(&c, "abcdef"), RS_LIMIT);
  assert_true(c.failed);
  rs_buf_release(&c);
}

static void expect_fixed(rs_buf *b, double v, int decimals, const char *want) {
  rs_buf_reset(b);
  assert_int_equal(rs_buf_put_fixed(b, v, decimals), RS_OK);
  assert_string_equal(b->data, want);
}

/* What rs_buf_put_fixed printed before it formatted the rounded integer
 * itself: printf of the rounded double. */
static void fixed_by_printf(char *out, size_t size, double v, int decimals) {
  if (v == 0.0)
    v = 0.0;
  double scale = pow(10.0, decimals);
  double r = round(v * scale) / scale;
  if (!isfinite(v * scale) || fabs(v * scale) >= 9007199254740992.0)
    r = v;
  if (r == 0.0)
    r = 0.0;
  snprintf(out, size, "%.*f", decimals, r);
}

static uint64_t next_random(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9E3779B97F4A7C15u);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  return z ^ (z >> 31);
}

/* The same bytes as printf on random values of every size (ties, values
 * near 2^50 scaled units where the integer path stops, whole numbers). */
static void test_put_fixed_as_printf(void **state) {
  rs_buf *b = *state;
  uint64_t seed = 17;
  char want[400];
  for (int i = 0; i < 400000; i++) {
    uint64_t x = next_random(&seed);
    int decimals = (int)(x % 12); /* 10 and 11 take printf */
    double mant = (double)(next_random(&seed) >> 11) * 0x1p-53;
    int e = (int)(next_random(&seed) % 34) - 14;
    double v = mant * pow(10.0, e);
    switch (x >> 60) {
    case 0: v = (floor(v * pow(10.0, decimals)) + 0.5) / pow(10.0, decimals); break; /* a tie */
    case 1: v = floor(v); break;
    case 2: v = ldexp(1.0, 50) / pow(10.0, decimals) * (0.999 + 0.002 * mant); break;
    default: break;
    }
    if (x & 1)
      v = -v;
    fixed_by_printf(want, sizeof(want), v, decimals);
    rs_buf_reset(b);
    assert_int_equal(rs_buf_put_fixed(b, v, decimals), RS_OK);
    if (strcmp(b->data, want) != 0)
      fail_msg("%.17g at %d decimals: %s, printf %s", v, decimals, b->data, want);
  }
}

static void test_put_fixed(void **state) {
  rs_buf *b = *state;
  expect_fixed(b, 12.24, 3, "12.240");
  expect_fixed(b, 0.0, 3, "0.000");
  expect_fixed(b, -0.0, 3, "0.000");
  expect_fixed(b, -0.0004, 3, "0.000");
  expect_fixed(b, -0.0005, 3, "-0.001");
  expect_fixed(b, 0.125, 2, "0.13"); /* half away from zero */
  expect_fixed(b, -0.125, 2, "-0.13");
  expect_fixed(b, 2.5, 0, "3");
  char want[400];
  snprintf(want, sizeof(want), "%.2f", 1e300); /* past 2^53: printed as is, not "inf" */
  expect_fixed(b, 1e300, 2, want);
  snprintf(want, sizeof(want), "%.3f", -1.5e308);
  expect_fixed(b, -1.5e308, 3, want);
  assert_null(strchr(want, 'i'));
  expect_fixed(b, 1e17, 1, "100000000000000000.0");
  expect_fixed(b, NAN, 3, "null");
  expect_fixed(b, INFINITY, 3, "null");
  expect_fixed(b, -INFINITY, 0, "null");
}

static int arena_setup(void **state) {
  static rs_arena arena;
  rs_arena_init(&arena, 0);
  *state = &arena;
  return 0;
}

static int arena_teardown(void **state) {
  rs_arena_release(*state);
  return 0;
}

static void test_arena_alloc(void **state) {
  rs_arena *a = *state;
  assert_int_equal(a->cap, RS_ARENA_DEFAULT_CAP);
  unsigned char *p = rs_arena_alloc(a, 10);
  assert_non_null(p);
  for (int i = 0; i < 10; i++)
    assert_int_equal(p[i], 0);
  memset(p, 0xAB, 10);
  void *z = rs_arena_alloc(a, 0); /* a valid, distinct pointer */
  assert_non_null(z);
  assert_ptr_not_equal(z, p);
  /* Many small and a few big allocations, all aligned and independent. */
  unsigned char *ptrs[300];
  for (int i = 0; i < 300; i++) {
    size_t n = i % 50 == 0 ? 100000 : (size_t)(i % 37) + 1;
    ptrs[i] = rs_arena_alloc(a, n);
    assert_non_null(ptrs[i]);
    assert_int_equal((uintptr_t)ptrs[i] % _Alignof(max_align_t), 0);
    memset(ptrs[i], i & 0xff, n);
  }
  for (int i = 0; i < 300; i++)
    assert_int_equal(ptrs[i][0], i & 0xff);
  for (int i = 0; i < 10; i++)
    assert_int_equal(p[i], 0xAB);
  rs_arena_release(a);
  assert_int_equal(a->used, 0);
  assert_non_null(rs_arena_alloc(a, 64)); /* usable again */
}

static void test_arena_cap(void **state) {
  (void)state;
  rs_arena a;
  rs_arena_init(&a, 256);
  assert_non_null(rs_arena_alloc(&a, 200));
  assert_null(rs_arena_alloc(&a, 100)); /* over the cap */
  assert_true(a.used <= 256);
  assert_null(rs_arena_alloc(&a, SIZE_MAX)); /* rounding would overflow */
  assert_null(rs_arena_alloc(&a, SIZE_MAX - 8));
  assert_non_null(rs_arena_alloc(&a, 16)); /* still within the cap */
  rs_arena_release(&a);
  assert_int_equal(a.cap, 256);
}

static void test_arena_strndup(void **state) {
  rs_arena *a = *state;
  char *s = rs_arena_strndup(a, "gpu_util_pct,rest", 12);
  assert_non_null(s);
  assert_string_equal(s, "gpu_util_pct");
  char *e = rs_arena_strndup(a, "", 0);
  assert_non_null(e);
  assert_string_equal(e, "");
  char *d = rs_arena_strdup(a, "node-a");
  assert_string_equal(d, "node-a");
  assert_null(rs_arena_strndup(a, "x", SIZE_MAX));
  rs_arena small;
  rs_arena_init(&small, 16);
  assert_null(rs_arena_strdup(&small, "more than sixteen bytes"));
  rs_arena_release(&small);
}

/* Names from the input in a report: one line of plain text, or Markdown
 * text whose markup is escaped ('|' is left to the table writer). */
static void test_put_text_and_markdown(void **state) {
  rs_buf b;
  (void)state;
  rs_buf_init(&b, 0);
  rs_buf_put_text(&b, "a\n::error::x \x1b[2J\tcaf\xc3\xa9 \xff");
  assert_string_equal(b.data, "a\\n::error::x \\x1b[2J\\tcaf\xc3\xa9 \\xff");
  rs_buf_reset(&b);
  rs_buf_put_markdown(&b, "*bold* _x_ [l](u) <b> `c` # | \\");
  assert_string_equal(b.data, "\\*bold\\* \\_x\\_ \\[l\\]\\(u\\) \\<b\\> \\`c\\` \\# | \\\\");
  rs_buf_release(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_append_and_reset, buf_setup, buf_teardown),
      cmocka_unit_test_setup_teardown(test_printf_growth, buf_setup, buf_teardown),
      cmocka_unit_test(test_put_text_and_markdown),
      cmocka_unit_test(test_cap),
      cmocka_unit_test_setup_teardown(test_json_string, buf_setup, buf_teardown),
      cmocka_unit_test_setup_teardown(test_put_fixed, buf_setup, buf_teardown),
      cmocka_unit_test_setup_teardown(test_put_fixed_as_printf, buf_setup, buf_teardown),
      cmocka_unit_test_setup_teardown(test_arena_alloc, arena_setup, arena_teardown),
      cmocka_unit_test(test_arena_cap),
      cmocka_unit_test_setup_teardown(test_arena_strndup, arena_setup, arena_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
