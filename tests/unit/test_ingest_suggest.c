/* The "did you mean" of an unknown native column (ingest_native.c) skips
 * candidates by length and stops a distance table early; it must pick what
 * the plain Levenshtein search over every documented name picks. The
 * reference here is that plain search, run against misspellings made from
 * every documented name (and a few that match nothing). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "ingest_internal.h"

#define MAXN 64

static size_t ref_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  size_t d[MAXN + 1][MAXN + 1];
  for (size_t i = 0; i <= la; i++)
    d[i][0] = i;
  for (size_t j = 0; j <= lb; j++)
    d[0][j] = j;
  for (size_t i = 1; i <= la; i++)
    for (size_t j = 1; j <= lb; j++) {
      size_t best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best)
        best = d[i][j - 1] + 1;
      if (d[i - 1][j - 1] + (a[i - 1] != b[j - 1]) < best)
        best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
      d[i][j] = best;
    }
  return d[la][lb];
}

/* The first documented name at the smallest distance, if that is 2 or less. */
static bool ref_suggest(char *out, size_t size, const char *name) {
  char cand[MAXN + 1];
  size_t best = 3;
  if (strlen(name) > MAXN) /* longer names get no suggestion */
    return false;
  for (size_t i = 0; rs_ingest_native_name(cand, sizeof(cand), i); i++) {
    size_t d = ref_distance(name, cand);
    if (d < best) {
      best = d;
      snprintf(out, size, "%s", cand);
    }
  }
  return best <= 2;
}

static int checked;

static void check(const char *name) {
  char got[MAXN + 1] = "", want[MAXN + 1] = "";
  bool g = rs_ingest_native_suggest(got, sizeof(got), name, strlen(name));
  bool w = ref_suggest(want, sizeof(want), name);
  if (g != w || (w && strcmp(got, want) != 0))
    fail_msg("'%s': suggested %s'%s', the plain search %s'%s'", name, g ? "" : "nothing ", got,
             w ? "" : "nothing ", want);
  checked++;
}

static void test_suggest_matches_plain_search(void **state) {
  char cand[MAXN + 1], m[2 * MAXN + 2];
  size_t names = 0;
  (void)state;
  for (size_t i = 0; rs_ingest_native_name(cand, sizeof(cand), i); i++, names++) {
    size_t n = strlen(cand);
    check(cand);
    for (size_t k = 0; k < n; k++) {
      /* one byte dropped, changed, doubled; two neighbours swapped */
      snprintf(m, sizeof(m), "%.*s%s", (int)k, cand, cand + k + 1);
      check(m);
      snprintf(m, sizeof(m), "%s", cand);
      m[k] = m[k] == 'x' ? 'y' : 'x';
      check(m);
      snprintf(m, sizeof(m), "%.*s%c%s", (int)k, cand, cand[k], cand + k);
      check(m);
      if (k + 1 < n) {
        snprintf(m, sizeof(m), "%s", cand);
        m[k] = cand[k + 1];
        m[k + 1] = cand[k];
        check(m);
      }
    }
    /* prefixes: distances growing past the cut-off */
    for (size_t k = 1; k < n; k += 3) {
      snprintf(m, sizeof(m), "%.*s", (int)k, cand);
      check(m);
    }
  }
  check("");
  check("q");
  check("frobnicate");
  check("zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz");
  assert_true(names > 10);
  assert_true(checked > 100);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_suggest_matches_plain_search),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
