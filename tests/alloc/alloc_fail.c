/* Test-only allocation-failure hook, linked into rightsize_allocfail with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup,--wrap=strndup
 * (tests/CMakeLists.txt): every allocation the program's own code makes
 * (cli, core, util, arena blocks) passes through here. The product binary
 * has no hook at all.
 *
 *   RS_ALLOC_FAIL_AT=N     the N-th allocation (1-based) returns NULL, once
 *   RS_ALLOC_COUNT_FILE=P  at exit, the number of allocations is written to P
 *
 * Allocations inside the shared libraries (libyaml, cJSON, libcurl, libc's
 * own strdup) do not pass through the wrapper; tests/alloc/README says why
 * that is enough. The counter is atomic: audit fits on threads. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rightsize/num.h"

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

/* Test-only process state: the hook is global by nature (one malloc). */
static atomic_long count;
static atomic_long fail_at = -2; /* -2: not read yet, -1: never fail */

static void report(void) {
  const char *path = getenv("RS_ALLOC_COUNT_FILE");
  FILE *f = path ? fopen(path, "w") : NULL;
  if (f != NULL) {
    fprintf(f, "%ld\n", atomic_load(&count));
    fclose(f);
  }
}

/* Reads the environment once, on the first allocation. */
static long threshold(void) {
  long at = atomic_load(&fail_at);
  if (at == -2) {
    const char *e = getenv("RS_ALLOC_FAIL_AT");
    int64_t n = -1;
    if (e == NULL || rs_num_parse_int64(e, strlen(e), &n) != RS_OK || n < 1)
      n = -1;
    long expected = -2;
    if (atomic_compare_exchange_strong(&fail_at, &expected, (long)n) &&
        getenv("RS_ALLOC_COUNT_FILE"))
      atexit(report);
    at = atomic_load(&fail_at);
  }
  return at;
}

/* true for the allocation that is to fail. */
static int fails(void) {
  long at = threshold();
  long n = atomic_fetch_add(&count, 1) + 1;
  return at > 0 && n == at;
}

void *__wrap_malloc(size_t size) { return fails() ? NULL : __real_malloc(size); }
void *__wrap_calloc(size_t n, size_t size) { return fails() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t size) { return fails() ? NULL : __real_realloc(p, size); }
char *__wrap_strdup(const char *s) { return fails() ? NULL : __real_strdup(s); }
char *__wrap_strndup(const char *s, size_t n) { return fails() ? NULL : __real_strndup(s, n); }
