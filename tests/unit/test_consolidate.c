/* The packer behind `audit --consolidate` (consolidate.c) on fleets built
 * here, row by row, so the best packing is known: a bin-packing case that
 * first-fit decreasing gets wrong, a pair the shared queue must keep apart,
 * and a larger fleet that must respect every device's memory, never go under
 * its lower bound and come out the same on every run. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rightsize/audit.h"
#include "rightsize/catalog.h"
#include "rightsize/pipeline.h"
#include "consolidate_pack.h"
#include "queue.h"
#include "test_support.h"

#define SHAPE "g6.2xlarge" /* one L4 per instance */

typedef struct fleet {
  rs_pipeline p;
  rs_audit_options o;
  rs_audit a;
  rs_audit_row *rows;
  rs_audit_share *shares;
  const rs_instance *shape;
} fleet;

static void fleet_open(fleet *f, rs_arena *arena, size_t n) {
  rs_pipeline_options po;
  rs_error err;
  rs_error_clear(&err);
  rs_pipeline_options_init(&po);
  assert_int_equal(rs_pipeline_open(&f->p, arena, &po, &err), RS_OK);
  f->shape = rs_catalog_find(f->p.catalog, SHAPE);
  assert_non_null(f->shape);
  assert_true(f->shape->accelerator_count == 1 && isfinite(f->shape->price_usd_per_hour));
  f->o = (rs_audit_options){.pipeline = &f->p, .consolidate = true};
  f->rows = rs_arena_alloc_array(arena, n, sizeof(*f->rows));
  f->shares = rs_arena_alloc_array(arena, n, sizeof(*f->shares));
  assert_non_null(f->rows);
  assert_non_null(f->shares);
  memset(&f->a, 0, sizeof(f->a));
  f->a.rows = f->rows;
  f->a.catalog = f->p.catalog;
  f->a.max_util = f->p.fit.max_util;
}

/* Row i: an endpoint needing mem_frac of the device's memory, lambda
 * requests/s of hold_s each, an SLO of slo_ms at p99, sized alone on one
 * instance of the shape (so any shared instance saves). */
static void fleet_row(fleet *f, size_t i, double mem_frac, double lambda, double hold_s,
                      double slo_ms) {
  rs_audit_share *sh = &f->shares[i];
  rs_audit_row *r = &f->rows[i];
  double cs2 = 0.1, q = 0.99, price = f->shape->price_usd_per_hour * RS_FIT_HOURS_PER_MONTH;
  double s50 = hold_s / sqrt(1 + cs2); /* lognormal with mean hold_s */
  *sh = (rs_audit_share){.inst = f->shape,
                         .busy_s = hold_s,
                         .hold_s = hold_s,
                         .cs2 = cs2,
                         .service_q_ms = s50 * exp(sqrt(log1p(cs2)) * rs_normal_quantile(q)) * 1e3,
                         .s50_s = s50,
                         .host_mem = 0,
                         .size = mem_frac};
  memset(r, 0, sizeof(*r));
  r->path = r->endpoint = "synthetic";
  r->ok = true;
  r->nfitting = 1;
  r->now_month = r->after_month = price;
  r->design_peak = lambda;
  r->slo_ms = slo_ms;
  r->slo_quantile = q;
  r->mem = mem_frac * f->shape->accelerator_memory_bytes;
  r->host_cpu = 0;
  r->shares = sh;
  r->nshares = 1;
  f->a.nrows = i + 1 > f->a.nrows ? i + 1 : f->a.nrows;
  f->a.after_month += price;
}

static const rs_consolidation *consolidate(fleet *f, rs_arena *arena) {
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_audit_consolidate(&f->a, arena, &f->o, &err), RS_OK);
  assert_non_null(f->a.consolidation);
  return f->a.consolidation;
}

/* 0.40, 0.40 and four of 0.29 of a device: first fit decreasing opens three
 * devices ({0.40, 0.40}, {0.29 x3}, {0.29}); two hold them all
 * ({0.40, 0.29, 0.29} twice), the lower bound. */
static void test_beats_first_fit(void **state) {
  fleet f;
  const double sizes[] = {0.29, 0.40, 0.29, 0.29, 0.40, 0.29};
  fleet_open(&f, *state, 6);
  for (size_t i = 0; i < 6; i++)
    fleet_row(&f, i, sizes[i], 0.01, 0.001, 1000);
  const rs_consolidation *c = consolidate(&f, *state);
  assert_int_equal(c->packed, 6);
  assert_int_equal(c->instances, 2);
  assert_int_equal(c->lower_bound, 2);
  assert_true(c->above_bound == 0);
  for (size_t i = 0; i < c->packings[0].ninstances; i++)
    assert_int_equal(c->packings[0].instances[i].nendpoints, 3);
}

/* Two endpoints that each meet their SLO alone but not behind one queue:
 * the best plan shares nothing. */
static void test_queue_keeps_apart(void **state) {
  fleet f;
  double lambda = 30, hold = 0.01, cs2 = 0.1, s50 = hold / sqrt(1 + cs2);
  rs_queue alone = {1, lambda, hold, 1.0, cs2}, both = {1, 2 * lambda, hold, 1.0, cs2};
  double l1 = rs_queue_response_quantile(&alone, s50, cs2, 0.99) * 1e3;
  double l2 = rs_queue_response_quantile(&both, s50, cs2, 0.99) * 1e3;
  assert_true(l1 < l2);
  fleet_open(&f, *state, 2);
  fleet_row(&f, 0, 0.1, lambda, hold, (l1 + l2) / 2);
  fleet_row(&f, 1, 0.1, lambda, hold, (l1 + l2) / 2);
  const rs_consolidation *c = consolidate(&f, *state);
  assert_int_equal(c->npackings, 0);
  assert_int_equal(c->packed, 0);
  /* with room in the SLO they share one device */
  fleet_row(&f, 0, 0.1, lambda, hold, l2 * 1.01);
  fleet_row(&f, 1, 0.1, lambda, hold, l2 * 1.01);
  f.a.after_month /= 2;
  c = consolidate(&f, *state);
  assert_int_equal(c->packed, 2);
  assert_int_equal(c->instances, 1);
}

static uint64_t lcg(uint64_t *s) {
  *s = *s * 6364136223846793005u + 1442695040888963407u;
  return *s >> 33;
}

/* 300 endpoints of 3% to 55% of a device: every device within its memory,
 * each endpoint once, never under the bound, the same plan twice. */
static void test_bound_and_determinism(void **state) {
  enum { N = 300 };
  fleet f;
  uint64_t seed = 17;
  fleet_open(&f, *state, N);
  for (size_t i = 0; i < N; i++)
    fleet_row(&f, i, 0.03 + 0.52 * (double)(lcg(&seed) % 10000) / 10000.0, 0.05, 0.002, 1000);
  const rs_consolidation *c = consolidate(&f, *state);
  assert_int_equal(c->packed, N);
  assert_true(c->instances >= c->lower_bound);
  assert_true(fabs(c->above_bound - ((double)c->instances / (double)c->lower_bound - 1)) < 1e-12);
  /* a packing this simple is near its bound */
  assert_true(c->above_bound <= 0.05);
  bool seen[N] = {false};
  for (size_t k = 0; k < c->npackings; k++)
    for (size_t i = 0; i < c->packings[k].ninstances; i++) {
      const rs_packed_instance *pi = &c->packings[k].instances[i];
      assert_true(pi->mem_used[0] <= f.shape->accelerator_memory_bytes);
      for (size_t j = 0; j < pi->nendpoints; j++) {
        assert_false(seen[pi->endpoints[j].row]);
        seen[pi->endpoints[j].row] = true;
      }
    }
  const rs_consolidation *c2 = consolidate(&f, *state);
  assert_int_equal(c2->instances, c->instances);
  assert_int_equal(c2->npackings, c->npackings);
  for (size_t k = 0; k < c->npackings; k++) {
    assert_int_equal(c2->packings[k].ninstances, c->packings[k].ninstances);
    for (size_t i = 0; i < c->packings[k].ninstances; i++) {
      const rs_packed_instance *x = &c->packings[k].instances[i],
                               *y = &c2->packings[k].instances[i];
      assert_int_equal(x->nendpoints, y->nendpoints);
      for (size_t j = 0; j < x->nendpoints; j++)
        assert_int_equal(x->endpoints[j].row, y->endpoints[j].row);
    }
  }
}

/* Whether two plans put the same items on the same devices with the same
 * sums, bit for bit, and record the same latencies. */
static void assert_same_plan(const rs_pack_plan *x, const rs_pack_plan *y, rs_arena *arena) {
  assert_int_equal(x->nitems, y->nitems);
  assert_int_equal(x->ndevices, y->ndevices);
  assert_int_equal(x->strategy, y->strategy);
  assert_memory_equal(&x->saving, &y->saving, sizeof(double));
  for (size_t i = 0; i < x->nitems; i++)
    assert_int_equal(x->items[i].row, y->items[i].row);
  for (size_t d = 0; d < x->ndevices; d++) {
    const rs_pack_device *a = &x->devices[d], *b = &y->devices[d];
    assert_int_equal(a->n, b->n);
    assert_memory_equal(&a->h2, &b->h2, sizeof(double));
    assert_memory_equal(&a->mem, &b->mem, sizeof(double));
    for (size_t i = a->n ? a->first : NONE, j = b->n ? b->first : NONE; i != NONE;
         i = x->next[i], j = y->next[j])
      assert_int_equal(x->items[i].row, y->items[j].row);
  }
  for (size_t k = 0; k < rs_pack_instances(x); k++) {
    rs_packed_instance pa, pb;
    assert_int_equal(rs_pack_keep(&pa, arena, x, k), RS_OK);
    assert_int_equal(rs_pack_keep(&pb, arena, y, k), RS_OK);
    assert_int_equal(pa.nendpoints, pb.nendpoints);
    for (size_t j = 0; j < pa.nendpoints; j++)
      assert_memory_equal(&pa.endpoints[j].latency_ms, &pb.endpoints[j].latency_ms, sizeof(double));
  }
}

/* The memo of latency checks answers a check as evaluating it would: 240
 * endpoints of four kinds, on devices their SLOs fill before their memory
 * does, pack the same with and without it; packing them again fills no new
 * slot of it (the same checks, looked up). */
static void test_memo_same_plan(void **state) {
  enum { N = 240 };
  fleet f;
  fleet_open(&f, *state, N);
  size_t list[N];
  const rs_audit_share *shares[N];
  bool taken[N] = {false};
  for (size_t i = 0; i < N; i++) {
    double k = (double)(i % 4);
    fleet_row(&f, i, 0.02 + 0.01 * k, 8 + 4 * k, 0.002 * (k + 1), 12 + 4 * k);
    list[i] = i;
    shares[i] = &f.shares[i];
  }
  rs_pack_plan plain, memoized, again;
  rs_pack_memo memo = {0};
  double max_util = f.p.fit.max_util;
  assert_true(
      rs_pack_build(&plain, &f.a, f.shape, list, shares, N, taken, max_util, UINT_MAX, NULL));
  assert_true(
      rs_pack_build(&memoized, &f.a, f.shape, list, shares, N, taken, max_util, UINT_MAX, &memo));
  /* the latency checks decide: memory alone would take 17 endpoints a device */
  assert_true(plain.ndevices > N / 17 + 1);
  assert_same_plan(&plain, &memoized, *state);
  size_t held = memo.n;
  assert_true(held > 0);
  assert_true(
      rs_pack_build(&again, &f.a, f.shape, list, shares, N, taken, max_util, UINT_MAX, &memo));
  assert_same_plan(&plain, &again, *state);
  assert_int_equal(memo.n, held);
  rs_pack_free(&plain);
  rs_pack_free(&memoized);
  rs_pack_free(&again);
  rs_pack_memo_free(&memo);
  rs_pack_memo_free(NULL);
}

/* A random endpoint as the packer sees it: hold 1 ms to 0.3 s with cs2 0.01
 * to 3, a few percent of a device's busy time, an SLO 1 to 100 times its own
 * latency (log-uniform) at one of five quantiles; kind k (its own figures). */
static rs_pack_item random_item(rng *g, size_t k) {
  static const double qs[] = {0.5, 0.9, 0.95, 0.99, 0.999};
  double hold = 1e-3 * pow(10, 2.5 * rng_uniform(g)), cs2 = 0.01 * pow(10, 2.5 * rng_uniform(g));
  double q = qs[rng_next(g) % 5], u = rng_uniform(g);
  double s50 = hold / sqrt(1 + cs2);
  double service_q_ms = s50 * exp(sqrt(log1p(cs2)) * rs_normal_quantile(q)) * 1e3;
  rs_pack_item it = {.row = k,
                     .lambda = (0.005 + 0.15 * rng_uniform(g)) / hold,
                     .busy = hold,
                     .hold = hold,
                     .cs2 = cs2,
                     .service_q_ms = service_q_ms,
                     .slo_ms = service_q_ms * pow(10, 2 * u),
                     .q = q,
                     .s50_s = s50,
                     .kind = k};
  return it;
}

/* Gives item k the latency figures (and kind) of item j: the same SLO check. */
static void same_kind(rs_pack_item *items, size_t k, size_t j) {
  items[k].s50_s = items[j].s50_s;
  items[k].cs2 = items[j].cs2;
  items[k].slo_ms = items[j].slo_ms;
  items[k].q = items[j].q;
  items[k].service_q_ms = items[j].service_q_ms;
  items[k].kind = items[j].kind;
}

/* The tail's ceiling (consolidate_pack.c, tail_ceiling) is never under the
 * tail as rs_queue_response_tail computes it, on 20,000 random queues and
 * endpoints, and it is under 1 - q (deciding the check without the tail)
 * for a good part of them: the shortcut's premise, checked against queue.c
 * as it stands (a change of its grid fails here). */
static void test_tail_ceiling(void **state) {
  (void)state;
  rng g = {17};
  size_t decided = 0, met = 0, n = 20000;
  for (size_t k = 0; k < n; k++) {
    double lambda = 0, h1 = 0, h2 = 0;
    size_t m = 1 + rng_next(&g) % 12;
    for (size_t j = 0; j < m; j++) {
      rs_pack_item e = random_item(&g, j);
      lambda += e.lambda;
      h1 += e.lambda * e.hold;
      h2 += e.lambda * e.hold * e.hold * (1.0 + e.cs2);
    }
    if (!(h1 < 0.98))
      continue;
    rs_queue qu = rs_pack_shared_queue(lambda, h1, h2);
    rs_pack_item it = random_item(&g, m);
    double tail = rs_queue_response_tail(&qu, it.s50_s, it.cs2, it.slo_ms / 1e3);
    double ceil = rs_pack_tail_ceiling(&qu, &it);
    assert_false(isnan(tail));
    assert_false(isnan(ceil));
    if (!(tail <= ceil))
      fail_msg("tail %.17g over its ceiling %.17g (case %zu)", tail, ceil, k);
    decided += ceil <= 1 - it.q;
    met += tail <= 1 - it.q;
    assert_int_equal(rs_pack_meets_slo(&qu, &it, true), tail <= 1 - it.q);
    assert_int_equal(rs_pack_meets_slo(&qu, &it, false), tail <= 1 - it.q);
  }
  /* an unstable queue: the tail is 1 (an edge value, not the integral) and
   * no ceiling is offered, whatever the quantile */
  rs_pack_item it = random_item(&g, 0);
  for (int k = 0; k < 3; k++) {
    rs_queue qu = rs_pack_shared_queue(10.0, 1.0 + 0.5 * k, 3.0);
    assert_true(rs_queue_response_tail(&qu, it.s50_s, it.cs2, it.slo_ms / 1e3) == 1.0);
    it.q = k == 0 ? 1e-9 : 0.99;
    assert_true(isinf(rs_pack_tail_ceiling(&qu, &it)));
    assert_false(rs_pack_meets_slo(&qu, &it, true));
    assert_false(rs_pack_meets_slo(&qu, &it, false));
  }
  /* most of the met checks go without the tail; both answers occur */
  assert_true(met > n / 4 && met < n - n / 10);
  assert_true(decided > met / 2);
}

/* rs_pack_device_fits (the ceiling first, the new endpoint first, one check
 * per kind) answers as the full check does, every endpoint on the device
 * and the new one through rs_queue_response_tail, on 6,000 random devices of
 * up to 24 endpoints, some of them alike; with and without the memo. */
static void test_fits_as_full_check(void **state) {
  (void)state;
  enum { MAXN = 24, TRIALS = 6000 };
  const double dev_mem = 1.0, max_util = 0.95;
  rng g = {42};
  rs_pack_memo memo = {0};
  size_t pass = 0, fail = 0, by_ceiling = 0;
  for (size_t k = 0; k < TRIALS; k++) {
    rs_pack_item items[MAXN + 1];
    size_t next[MAXN + 1], next_kind[MAXN + 1];
    size_t m = rng_next(&g) % MAXN;
    rs_pack_device dv = {.first = NONE, .last = NONE, .first_kind = NONE, .last_kind = NONE};
    for (size_t i = 0; i <= m; i++) {
      items[i] = random_item(&g, i);
      items[i].lambda *= 0.2;
      items[i].mem = 0.02 * rng_uniform(&g);
      if (i > 0 && rng_next(&g) % 6 == 0)
        same_kind(items, i, rng_next(&g) % i);
    }
    for (size_t i = 0; i < m; i++)
      rs_pack_device_add(&dv, next, next_kind, items, i);
    const rs_pack_item *it = &items[m];
    /* the full check: room, then every endpoint on the device and the new one */
    bool want = dv.mem + it->mem <= dev_mem && dv.util + it->lambda * it->busy <= max_util;
    double lambda = dv.lambda + it->lambda, h1 = dv.h1 + it->lambda * it->hold;
    double h2 = dv.h2 + it->lambda * it->hold * it->hold * (1.0 + it->cs2);
    rs_queue qu = rs_pack_shared_queue(lambda, h1, h2);
    for (size_t i = 0; want && i <= m; i++) {
      want = rs_pack_meets_slo(&qu, &items[i], false);
      by_ceiling += want && rs_pack_tail_ceiling(&qu, &items[i]) <= 1 - items[i].q;
    }
    bool got = rs_pack_device_fits(&dv, items, next_kind, it, dev_mem, max_util, NULL);
    bool got_memo = rs_pack_device_fits(&dv, items, next_kind, it, dev_mem, max_util, &memo);
    if (got != want || got_memo != want)
      fail_msg("device of %zu (case %zu): fits %d, memo %d, full check %d", m, k, got, got_memo,
               want);
    pass += want;
    fail += !want;
  }
  assert_true(pass > TRIALS / 5 && fail > TRIALS / 5);
  assert_true(by_ceiling > pass);
  rs_pack_memo_free(&memo);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_beats_first_fit, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_queue_keeps_apart, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_bound_and_determinism, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_memo_same_plan, setup_arena, teardown_arena),
      cmocka_unit_test(test_tail_ceiling),
      cmocka_unit_test(test_fits_as_full_check),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
