/* An audit's fit (rs_fit_options.terse and verdict_only) against the full
 * fit on every shipped profile, the verdict rules' and the LLM cases'
 * profiles, under several option sets: the same verdict, target, current
 * deployment and warning codes, with fewer shapes searched and no texts
 * worded. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdlib.h>

#include "fit_internal.h"
#include "test_fit_support.h"

#define MAX_PROFILES 128

typedef struct shipped {
  char *path[MAX_PROFILES];
  size_t n;
} shipped;

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.yaml profile in the folders of profiles/ that hold them. */
static void list_profiles(shipped *s) {
  static const char *const dirs[] = {"profiles", "profiles/fleet", "profiles/llm-azure",
                                     "tests/cli/data/rules", "tests/cli/data/llm"};
  s->n = 0;
  for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
    char dir[1024];
    snprintf(dir, sizeof(dir), "%s/%s", RS_SOURCE_DIR, dirs[d]);
    DIR *h = opendir(dir);
    assert_non_null(h);
    struct dirent *e;
    while ((e = readdir(h)) != NULL) {
      size_t len = strlen(e->d_name);
      if (len < 6 || strcmp(e->d_name + len - 5, ".yaml") != 0 ||
          strncmp(e->d_name, "bad-", 4) == 0)
        continue;
      assert_true(s->n < MAX_PROFILES);
      size_t need = strlen(dirs[d]) + len + 2;
      s->path[s->n] = malloc(need);
      assert_non_null(s->path[s->n]);
      snprintf(s->path[s->n++], need, "%s/%s", dirs[d], e->d_name);
    }
    closedir(h);
  }
  qsort(s->path, s->n, sizeof(*s->path), cmp_str);
  assert_true(s->n >= 40); /* the fleet's 24, the LLM ones, the examples, the rules' */
}

static void free_profiles(shipped *s) {
  for (size_t i = 0; i < s->n; i++)
    free(s->path[i]);
}

/* The same shape of two loads of the catalog. */
static bool same_inst(const rs_instance *a, const rs_instance *b) {
  return strcmp(a->provider, b->provider) == 0 && strcmp(a->name, b->name) == 0 &&
         strcmp(a->region, b->region) == 0;
}

/* Both candidates say the same in every number an audit row keeps. */
static void same_candidate(const rs_candidate *a, const rs_candidate *b) {
  assert_true(same_inst(a->inst, b->inst));
  assert_int_equal(a->replicas, b->replicas);
  assert_int_equal(a->fits, b->fits);
  assert_int_equal(a->confidence, b->confidence);
  assert_memory_equal(&a->usd_per_month, &b->usd_per_month, sizeof(double)); /* NaN too */
  assert_memory_equal(&a->savings_month, &b->savings_month, sizeof(double));
}

/* What an audit reads of a fit (audit.c keep_row and decide) is the same. */
static void same_for_audit(const rs_fit_result *full, const rs_fit_result *lean) {
  same_candidate(&full->current, &lean->current);
  assert_int_equal(full->verdict.code, lean->verdict.code);
  assert_int_equal(full->verdict.action, lean->verdict.action);
  assert_memory_equal(&full->verdict.wasted_month, &lean->verdict.wasted_month, sizeof(double));
  assert_memory_equal(&full->verdict.savings_month, &lean->verdict.savings_month, sizeof(double));
  assert_int_equal(full->verdict.target == NULL, lean->verdict.target == NULL);
  if (full->verdict.target != NULL)
    same_candidate(full->verdict.target, lean->verdict.target);
  assert_int_equal(full->verdict.passed_over == NULL, lean->verdict.passed_over == NULL);
  if (full->verdict.passed_over != NULL)
    same_candidate(full->verdict.passed_over, lean->verdict.passed_over);
  assert_int_equal(full->nwarnings, lean->nwarnings);
  for (size_t i = 0; i < full->nwarnings; i++)
    assert_int_equal(full->warnings[i].code, lean->warnings[i].code);
  /* the fits searched are a part of all the fits, in the same order, and
   * every fit up to the verdict's target is among them */
  assert_true(lean->nfitting <= full->nfitting);
  size_t j = 0;
  for (size_t i = 0; i < lean->nfitting; i++, j++) {
    while (j < full->nfitting && !same_inst(full->fitting[j].inst, lean->fitting[i].inst))
      j++;
    assert_true(j < full->nfitting);
    same_candidate(&full->fitting[j], &lean->fitting[i]);
  }
  const rs_candidate *t = full->verdict.target;
  for (size_t i = 0; t != NULL && i < full->nfitting; i++) {
    assert_true(i < lean->nfitting);
    assert_true(same_inst(full->fitting[i].inst, lean->fitting[i].inst));
    if (full->fitting[i].inst == t->inst)
      break;
  }
}

/* Fits every shipped profile with o, then with o terse and verdict_only,
 * and compares; *searched and *all: the shapes listed each way. */
static void compare_all(const rs_fit_options *o, size_t *searched, size_t *all) {
  shipped s;
  list_profiles(&s);
  *searched = *all = 0;
  for (size_t i = 0; i < s.n; i++) {
    rs_arena arena;
    rs_arena_init(&arena, 0);
    rs_fit_options lean = *o;
    lean.terse = lean.verdict_only = true;
    rs_fit_result *full = fit_shipped(&arena, s.path[i], o);
    rs_fit_result *cut = fit_shipped(&arena, s.path[i], &lean);
    same_for_audit(full, cut);
    *all += full->nfitting + full->nrejected;
    *searched += cut->nfitting + cut->nrejected;
    rs_arena_release(&arena);
  }
  free_profiles(&s);
}

static void test_same_verdict_defaults(void **state) {
  (void)state;
  rs_fit_options o;
  size_t searched, all;
  rs_fit_options_init(&o);
  compare_all(&o, &searched, &all);
  assert_true(searched < all / 2); /* most shapes cannot change an audit row */
}

/* Every provider and family: more shapes, and ports across families. */
static void test_same_verdict_everywhere(void **state) {
  (void)state;
  static const char *none[1];
  rs_fit_options o;
  size_t searched, all;
  rs_fit_options_init(&o);
  o.providers = none;
  o.nproviders = 0;
  o.families = RS_FAMILY_NVIDIA_GPU | RS_FAMILY_CPU | RS_FAMILY_INFERENTIA | RS_FAMILY_TRAINIUM |
               RS_FAMILY_TPU;
  compare_all(&o, &searched, &all);
  assert_true(searched < all);
}

/* A tight utilization ceiling and headroom, a grown peak: other targets. */
static void test_same_verdict_tight(void **state) {
  (void)state;
  rs_fit_options o;
  size_t searched, all;
  rs_fit_options_init(&o);
  o.max_util = 0.4;
  o.headroom = 0.6;
  o.max_replicas = 4;
  compare_all(&o, &searched, &all);
  assert_true(searched < all);
}

/* terse: no text is worded, and the numbers are the full fit's. */
static void test_terse_words_nothing(void **state) {
  (void)state;
  rs_arena arena;
  rs_fit_options o, t;
  rs_arena_init(&arena, 0);
  rs_fit_options_init(&o);
  t = o;
  t.terse = true;
  rs_fit_result *full = fit_shipped(&arena, "profiles/resnet50-p3.8xlarge.yaml", &o);
  rs_fit_result *r = fit_shipped(&arena, "profiles/resnet50-p3.8xlarge.yaml", &t);
  assert_true(strlen(full->verdict.reason) > 0);
  assert_string_equal(r->verdict.reason, "");
  assert_int_equal(r->nfitting, full->nfitting); /* terse alone searches every shape */
  assert_int_equal(r->nrejected, full->nrejected);
  for (size_t i = 0; i < r->nfitting; i++) {
    same_candidate(&full->fitting[i], &r->fitting[i]);
    assert_int_equal(r->fitting[i].nreasons, 0);
    assert_int_equal(r->fitting[i].nnotes, 0);
  }
  for (size_t i = 0; i < r->nrejected; i++) {
    assert_true(same_inst(full->rejected[i].inst, r->rejected[i].inst));
    assert_int_equal(full->rejected[i].failed, r->rejected[i].failed);
    assert_string_equal(r->rejected[i].reason, "");
  }
  same_for_audit(full, r);
  rs_arena_release(&arena);
}

/* rs_fit_verdict_settled's bounds on the fleet: a shape left out must cost
 * more than the cheapest eligible fit plus the port premium and, on a shape
 * under RS_FIT_UNDERUSED_PCT peak utilization, no less than now. */
static void test_settled_bounds(void **state) {
  (void)state;
  size_t low = 0, busy = 0;
  shipped s;
  list_profiles(&s);
  for (size_t i = 0; i < s.n; i++) {
    if (strncmp(s.path[i], "profiles/fleet/", 15) != 0)
      continue;
    rs_arena arena;
    rs_arena_init(&arena, 0);
    rs_fit_result *r = fit_shipped(&arena, s.path[i], NULL);
    double best = INFINITY, month = r->current_usd_hour * RS_FIT_HOURS_PER_MONTH;
    for (size_t k = 0; k < r->nfitting; k++)
      if (rs_fit_verdict_eligible(r, &r->fitting[k]))
        best = fmin(best, r->fitting[k].usd_per_month);
    assert_true(isfinite(best) && isfinite(month));
    double edge = best * (1.0 + RS_FIT_PORT_PREMIUM), above = nextafter(edge, INFINITY);
    assert_false(rs_fit_verdict_settled(r, best, edge));      /* a fit there is read */
    assert_false(rs_fit_verdict_settled(r, INFINITY, 1e300)); /* no eligible fit yet */
    if (r->verdict.peak_util_pct < RS_FIT_UNDERUSED_PCT) {
      low++;
      assert_true(rs_fit_verdict_settled(r, best, fmax(above, month)));
      if (above < month)
        assert_false(rs_fit_verdict_settled(r, best, above));
    } else {
      busy++;
      assert_true(rs_fit_verdict_settled(r, best, above));
    }
    rs_arena_release(&arena);
  }
  free_profiles(&s);
  assert_true(low >= 4 && busy >= 4);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_verdict_defaults), cmocka_unit_test(test_same_verdict_everywhere),
      cmocka_unit_test(test_same_verdict_tight),    cmocka_unit_test(test_terse_words_nothing),
      cmocka_unit_test(test_settled_bounds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
