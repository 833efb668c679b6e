/* The arena's failure statuses (cap vs malloc), overflow-checked array
 * allocation, rs_arena_printf, rs_buf_status, and that the document reader
 * passes the arena's reason up as RS_LIMIT (exit 3) or RS_NOMEM (exit 5). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rightsize/arena.h"
#include "rightsize/buf.h"
#include "rightsize/doc.h"

/* An allocator hook that lets `allow` blocks through, then fails, and counts
 * what it handed out and got back. */
typedef struct budget {
  int allow;
  int live;
  int calls;
} budget;

static void *budget_alloc(void *ctx, size_t size) {
  budget *b = ctx;
  b->calls++;
  if (b->allow <= 0)
    return NULL;
  void *p = malloc(size);
  if (p != NULL) {
    b->allow--;
    b->live++;
  }
  return p;
}

static void budget_free(void *ctx, void *p) {
  budget *b = ctx;
  b->live--;
  free(p);
}

static void test_size_mul(void **state) {
  (void)state;
  size_t out = 7;
  assert_true(rs_size_mul(&out, 3, 5));
  assert_int_equal(out, 15);
  assert_true(rs_size_mul(&out, 0, SIZE_MAX));
  assert_int_equal(out, 0);
  assert_true(rs_size_mul(&out, SIZE_MAX, 1));
  assert_true(out == SIZE_MAX);
  out = 7;
  assert_false(rs_size_mul(&out, SIZE_MAX / 2 + 1, 2));
  assert_false(
      rs_size_mul(&out, (size_t)1 << (sizeof(size_t) * 4), (size_t)1 << (sizeof(size_t) * 4)));
  assert_int_equal(out, 7); /* untouched on overflow */
}

static void test_alloc_array(void **state) {
  (void)state;
  rs_arena a;
  rs_arena_init(&a, 0);
  unsigned char *p = rs_arena_alloc_array(&a, 3, 5);
  assert_non_null(p);
  for (int i = 0; i < 15; i++)
    assert_int_equal(p[i], 0);
  assert_int_equal(rs_arena_status(&a), RS_OK);
  size_t used = a.used;
  /* A product that wraps round to a small number must not succeed. */
  assert_null(rs_arena_alloc_array(&a, SIZE_MAX / 8 + 2, 8));
  assert_int_equal(rs_arena_status(&a), RS_LIMIT);
  assert_int_equal(a.used, used);
  rs_arena_release(&a);
  assert_int_equal(rs_arena_status(&a), RS_OK); /* release forgets the failure */

  assert_null(rs_malloc_array(SIZE_MAX / 4 + 2, 4));
  double *d = rs_malloc_array(4, sizeof(*d));
  assert_non_null(d);
  d[3] = 1.5;
  assert_null(rs_realloc_array(d, SIZE_MAX / sizeof(*d) + 2, sizeof(*d)));
  assert_true(d[3] == 1.5); /* a refused realloc leaves the block as it was */
  d = rs_realloc_array(d, 8, sizeof(*d));
  assert_non_null(d);
  assert_true(d[3] == 1.5);
  free(d);
}

/* A copy, then one zeroed element; an overflowing count is refused. */
static void test_dup_array(void **state) {
  static const int src[3] = {7, -1, 42};
  (void)state;
  rs_arena a;
  rs_arena_init(&a, 0);
  int *p = rs_arena_dup_array(&a, src, 3, sizeof(int));
  assert_non_null(p);
  assert_ptr_not_equal(p, src);
  assert_memory_equal(p, src, sizeof(src));
  assert_int_equal(p[3], 0);
  int *none = rs_arena_dup_array(&a, NULL, 0, sizeof(int)); /* just the terminator */
  assert_non_null(none);
  assert_int_equal(none[0], 0);
  assert_null(rs_arena_dup_array(&a, src, SIZE_MAX, 1));
  assert_int_equal(rs_arena_status(&a), RS_LIMIT);
  assert_null(rs_arena_dup_array(&a, src, SIZE_MAX / 8, 8));
  rs_arena_release(&a);
}

/* Blocks full of 0xA5, as reused memory may be: the copies that skip the
 * zeroing still end in a zero terminator. */
static void *dirty_alloc(void *ctx, size_t size) {
  (void)ctx;
  void *p = malloc(size);
  if (p != NULL)
    memset(p, 0xA5, size);
  return p;
}

static void dirty_free(void *ctx, void *p) {
  (void)ctx;
  free(p);
}

static void test_copies_on_dirty_blocks(void **state) {
  static const int src[3] = {7, -1, 42};
  const rs_arena_allocator dirty = {dirty_alloc, dirty_free, NULL};
  (void)state;
  rs_arena a;
  rs_arena_init(&a, 0);
  rs_arena_set_allocator(&a, &dirty);
  int *p = rs_arena_dup_array(&a, src, 3, sizeof(int));
  assert_non_null(p);
  assert_memory_equal(p, src, sizeof(src));
  assert_int_equal(p[3], 0);
  int *none = rs_arena_dup_array(&a, NULL, 0, sizeof(int));
  assert_non_null(none);
  assert_int_equal(none[0], 0);
  char *s = rs_arena_strndup(&a, "abcdef", 3);
  assert_string_equal(s, "abc");
  assert_string_equal(rs_arena_printf(&a, "%d-%s", 12, "x"), "12-x");
  unsigned char *u = rs_arena_alloc_array_uninit(&a, 3, 5);
  assert_non_null(u);
  assert_int_equal(u[0], 0xA5); /* left as it was */
  unsigned char *z = rs_arena_alloc_array(&a, 3, 5);
  for (int i = 0; i < 15; i++)
    assert_int_equal(z[i], 0);
  size_t used = a.used;
  assert_null(rs_arena_alloc_array_uninit(&a, SIZE_MAX / 8 + 2, 8));
  assert_int_equal(rs_arena_status(&a), RS_LIMIT);
  assert_int_equal(a.used, used);
  rs_arena_release(&a);
}

static void test_cap_is_limit(void **state) {
  (void)state;
  rs_arena a;
  rs_error err;
  char line[RS_ERROR_MSG_MAX + RS_ERROR_PATH_MAX];
  rs_arena_init(&a, 256);
  assert_non_null(rs_arena_alloc(&a, 200));
  assert_int_equal(rs_arena_status(&a), RS_OK);
  assert_null(rs_arena_alloc(&a, 100));
  assert_int_equal(rs_arena_status(&a), RS_LIMIT);
  rs_error_clear(&err);
  assert_int_equal(rs_arena_error(&a, &err, "big.json", "reading the document"), RS_LIMIT);
  assert_int_equal(rs_status_exit_code(err.status), 3);
  assert_string_equal(rs_error_format(&err, line, sizeof(line)),
                      "big.json: memory limit of 256 bytes reached reading the document; split "
                      "the input into smaller files");
  assert_null(rs_arena_strndup(&a, "x", SIZE_MAX));
  assert_int_equal(rs_arena_status(&a), RS_LIMIT);
  rs_arena_release(&a);

  rs_arena_init(&a, 0);
  assert_null(rs_arena_alloc(&a, RS_ARENA_DEFAULT_CAP + 1));
  rs_error_clear(&err);
  rs_arena_error(&a, &err, NULL, "while fitting");
  assert_string_equal(err.msg, "memory limit of 1 GiB reached while fitting; split the input "
                               "into smaller files");
  rs_arena_release(&a);
  rs_arena_init(&a, (size_t)64 << 20);
  assert_null(rs_arena_alloc(&a, (size_t)65 << 20));
  rs_error_clear(&err);
  rs_arena_error(&a, &err, NULL, "x");
  assert_non_null(strstr(err.msg, "memory limit of 64 MiB reached x"));
  rs_arena_release(&a);
}

/* The unzeroed allocation counts against the cap like the other, is
 * aligned, and leaves the zeroed ones zeroed after it. */
static void test_alloc_uninit(void **state) {
  (void)state;
  rs_arena a;
  rs_arena_init(&a, 4096);
  unsigned char *p = rs_arena_alloc_uninit(&a, 1000);
  assert_non_null(p);
  assert_int_equal((uintptr_t)p % sizeof(void *), 0);
  memset(p, 0xab, 1000);
  unsigned char *q = rs_arena_alloc(&a, 100);
  assert_non_null(q);
  for (size_t i = 0; i < 100; i++)
    assert_int_equal(q[i], 0);
  assert_null(rs_arena_alloc_uninit(&a, 4000));
  assert_int_equal(rs_arena_status(&a), RS_LIMIT);
  rs_arena_release(&a);
}

static void test_malloc_failure_is_nomem(void **state) {
  (void)state;
  budget b = {.allow = 1};
  const rs_arena_allocator hook = {budget_alloc, budget_free, &b};
  rs_arena a;
  rs_error err;
  rs_arena_init(&a, 0);
  rs_arena_set_allocator(&a, &hook);
  assert_non_null(rs_arena_alloc(&a, 64)); /* the one block allowed */
  /* Bigger than a block: needs a second one, which the hook refuses. */
  assert_null(rs_arena_alloc(&a, 1 << 20));
  assert_int_equal(rs_arena_status(&a), RS_NOMEM);
  assert_int_equal(b.calls, 2);
  rs_error_clear(&err);
  assert_int_equal(rs_arena_error(&a, &err, "p.yaml", "reading the profile"), RS_NOMEM);
  assert_int_equal(rs_status_exit_code(err.status), 5);
  assert_string_equal(err.msg, "out of memory reading the profile");
  assert_string_equal(err.path, "p.yaml");
  rs_arena_release(&a);
  assert_int_equal(b.live, 0); /* every block went back through the hook */
  b.allow = 100;
  assert_non_null(rs_arena_alloc(&a, 10)); /* the hook stays after release */
  assert_int_equal(b.live, 1);
  rs_arena_release(&a);
  assert_int_equal(b.live, 0);
}

static void test_printf(void **state) {
  (void)state;
  rs_arena a;
  char big[2000];
  rs_arena_init(&a, 0);
  const char *s = rs_arena_printf(&a, "%s fails %s: %.1f", "g4dn.xlarge", "memory", 12.25);
  assert_string_equal(s, "g4dn.xlarge fails memory: 12.2");
  assert_string_equal(rs_arena_printf(&a, "%s", ""), "");
  /* No fixed-size scratch buffer: long text is not cut (the old copies
   * stopped at 511 bytes). */
  memset(big, 'x', sizeof(big) - 1);
  big[sizeof(big) - 1] = '\0';
  const char *t = rs_arena_printf(&a, "<%s>", big);
  assert_non_null(t);
  assert_int_equal(strlen(t), sizeof(big) + 1);
  assert_int_equal(t[sizeof(big)], '>');
  /* Around the stack buffer's 256 bytes (copied from it below, formatted
   * again above): every length whole, with its NUL. */
  for (size_t n = 250; n <= 262; n++) {
    char want[300];
    memset(want, 'a' + (int)(n % 26), n);
    want[n] = '\0';
    const char *u = rs_arena_printf(&a, "%.*s", (int)n, want);
    assert_non_null(u);
    assert_string_equal(u, want);
  }
  rs_arena_release(&a);
  rs_arena_init(&a, 64);
  assert_null(rs_arena_printf(&a, "%s", big));
  assert_int_equal(rs_arena_status(&a), RS_LIMIT);
  rs_arena_release(&a);
}

static void test_buf_status(void **state) {
  (void)state;
  rs_buf b;
  rs_buf_init(&b, 4);
  assert_int_equal(rs_buf_status(&b), RS_OK);
  assert_int_equal(rs_buf_puts(&b, "abcd"), RS_OK);
  assert_int_equal(rs_buf_status(&b), RS_OK);
  assert_int_equal(rs_buf_puts(&b, "e"), RS_LIMIT);
  assert_int_equal(rs_buf_status(&b), RS_LIMIT);
  assert_int_equal(rs_buf_puts(&b, "f"), RS_LIMIT); /* stays failed, same reason */
  rs_buf_reset(&b);
  assert_int_equal(rs_buf_status(&b), RS_OK);
  b.failed = true; /* a writer whose own malloc failed marks the buffer so */
  assert_int_equal(rs_buf_status(&b), RS_NOMEM);
  assert_int_equal(rs_buf_puts(&b, "g"), RS_NOMEM); /* and later appends are no-ops */
  assert_int_equal(b.len, 0);
  rs_buf_release(&b);
}

/* The document reader is the lowest level that knows the file: a cap hit
 * while building the tree is RS_LIMIT naming the file, a failed malloc is
 * RS_NOMEM. */
static void test_doc_reports_the_reason(void **state) {
  (void)state;
  static const char yaml[] =
      "samples:\n  - {t: 1, gpu_util_pct: 15}\n  - {t: 2, gpu_util_pct: 16}\n";
  rs_arena a;
  rs_doc doc;
  rs_error err;
  rs_arena_init(&a, 0);
  rs_error_clear(&err);
  assert_int_equal(rs_doc_parse(&doc, &a, "ok.yaml", yaml, strlen(yaml), false, &err), RS_OK);
  rs_arena_release(&a);

  rs_arena_init(&a, 512);
  rs_error_clear(&err);
  assert_int_equal(rs_doc_parse(&doc, &a, "p.yaml", yaml, strlen(yaml), false, &err), RS_LIMIT);
  assert_string_equal(err.path, "p.yaml");
  assert_non_null(strstr(err.msg, "memory limit of 512 bytes reached reading the document"));
  rs_arena_release(&a);

  budget b = {.allow = 0};
  const rs_arena_allocator hook = {budget_alloc, budget_free, &b};
  rs_arena_init(&a, 0);
  rs_arena_set_allocator(&a, &hook);
  rs_error_clear(&err);
  assert_int_equal(rs_doc_parse(&doc, &a, "p.yaml", yaml, strlen(yaml), false, &err), RS_NOMEM);
  assert_string_equal(err.msg, "out of memory reading the document");
  rs_arena_release(&a);
  assert_int_equal(b.live, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_size_mul),
      cmocka_unit_test(test_alloc_array),
      cmocka_unit_test(test_dup_array),
      cmocka_unit_test(test_copies_on_dirty_blocks),
      cmocka_unit_test(test_cap_is_limit),
      cmocka_unit_test(test_alloc_uninit),
      cmocka_unit_test(test_malloc_failure_is_nomem),
      cmocka_unit_test(test_printf),
      cmocka_unit_test(test_buf_status),
      cmocka_unit_test(test_doc_reports_the_reason),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
