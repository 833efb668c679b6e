/* Consolidation: packing endpoints that may share hardware onto shared
 * instances, as behind one model gateway (audit.h, docs/model.md).
 *
 * For each candidate shape T, the endpoints that fit T on their own with one
 * device's worth of load are packed onto T's devices first-fit decreasing
 * and by a bounded minimum-bin-slack search, the packing saving more kept. A
 * device takes an endpoint only if, with it, every endpoint on the device
 * still has its memory with headroom, the device stays under the
 * utilization ceiling, every endpoint's latency at its SLO quantile stays
 * under its SLO (one M/G/1 queue per device with the mix of their service
 * times; each endpoint's own service time plus that wait, the quantile of the
 * sum, queue.h), and the instance's host CPU and memory hold all of
 * its endpoints. Instances costing at least what their endpoints cost sized
 * one by one are dissolved. The shape saving the most wins the round; rounds
 * repeat over the endpoints left. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "consolidate_pack.h"
#include "rightsize/audit.h"

#define GREEDY_MAX 256  /* shareable endpoints up to which the round-by-round greedy runs too */
#define FILL_PROBES 256 /* devices tried per endpoint when filling gaps */

typedef rs_pack_item item;
typedef rs_pack_device device;
typedef rs_pack_caps shape_caps;
typedef rs_pack_plan plan;

static bool shareable(const rs_audit_row *r) {
  return r->ok && r->nfitting > 0 && isfinite(r->after_month);
}

/* One chosen instance: instance k of a plan. */
typedef struct pick {
  plan *pl;
  size_t k;
} pick;

/* Per shape (catalog index), the rows that may share it, in row order. */
typedef struct shape_lists {
  size_t *start; /* nshapes + 1 offsets into row and share */
  size_t *row;
  const rs_audit_share **share;
} shape_lists;

static bool lists_build(shape_lists *l, const rs_audit *a, const rs_catalog *cat) {
  size_t total = 0, ns = cat->ninstances;
  l->start = calloc(ns + 1, sizeof(size_t));
  if (l->start == NULL)
    return false;
  for (size_t r = 0; r < a->nrows; r++)
    if (shareable(&a->rows[r]))
      for (size_t j = 0; j < a->rows[r].nshares; j++) {
        l->start[a->rows[r].shares[j].inst - cat->instances]++;
        total++;
      }
  size_t off = 0;
  for (size_t s = 0; s <= ns; s++) {
    size_t c = s < ns ? l->start[s] : 0;
    l->start[s] = off;
    off += c;
  }
  l->row = rs_malloc_array(total ? total : 1, sizeof(size_t));
  l->share = rs_malloc_array(total ? total : 1, sizeof(*l->share));
  size_t *fill = calloc(ns ? ns : 1, sizeof(size_t));
  bool ok = l->row && l->share && fill;
  for (size_t r = 0; ok && r < a->nrows; r++)
    if (shareable(&a->rows[r]))
      for (size_t j = 0; j < a->rows[r].nshares; j++) {
        size_t s = (size_t)(a->rows[r].shares[j].inst - cat->instances);
        size_t at = l->start[s] + fill[s]++;
        l->row[at] = r;
        l->share[at] = &a->rows[r].shares[j];
      }
  free(fill);
  return ok;
}

static void lists_free(shape_lists *l) {
  free(l->start);
  free(l->row);
  free(l->share);
}

static bool plan_of(plan *pl, const rs_audit *a, const rs_catalog *cat, const shape_lists *l,
                    size_t s, const bool *taken, double max_util, unsigned max_per,
                    rs_pack_memo *memo) {
  return rs_pack_build(pl, a, &cat->instances[s], l->row + l->start[s], l->share + l->start[s],
                       l->start[s + 1] - l->start[s], taken, max_util, max_per, memo);
}

static void take(pick p, const rs_audit *a, const rs_catalog *cat, bool *taken, bool *dirty) {
  const plan *pl = p.pl;
  size_t per = pl->caps.per_instance;
  for (size_t d = p.k * per; d < pl->ndevices && d < (p.k + 1) * per; d++)
    for (size_t j = pl->devices[d].n ? pl->devices[d].first : NONE; j != NONE; j = pl->next[j]) {
      const rs_audit_row *r = &a->rows[pl->items[j].row];
      taken[pl->items[j].row] = true;
      for (size_t k = 0; dirty && k < r->nshares; k++)
        dirty[r->shares[k].inst - cat->instances] = true;
    }
}

/* No packing of the endpoints left onto shape s saves more: per resource
 * (device memory, busy time, host CPU and memory, endpoints per device), an
 * instance's endpoints use at most all of it, so each pays at least its share
 * of the price; the smallest of the sums of what each could save beyond its
 * share. Shapes are packed in decreasing order of this bound and the rest
 * skipped once one saves at least that much. */
static double saving_bound(const rs_audit *a, const rs_catalog *cat, const shape_lists *l, size_t s,
                           const bool *taken, double max_util) {
  const rs_instance *shape = &cat->instances[s];
  double price = shape->price_usd_per_hour * RS_FIT_HOURS_PER_MONTH, k = shape->accelerator_count;
  double cap[5] = {shape->accelerator_memory_bytes * k, max_util * k,
                   max_util * (isnan(shape->vcpus) ? INFINITY : shape->vcpus),
                   isnan(shape->memory_bytes) ? INFINITY : shape->memory_bytes, PER_DEVICE * k};
  double ub[5] = {0, 0, 0, 0, 0};
  size_t n = 0;
  for (size_t j = l->start[s]; j < l->start[s + 1]; j++) {
    const rs_audit_row *r = &a->rows[l->row[j]];
    if (taken[l->row[j]])
      continue;
    n++;
    double use[5] = {r->mem, r->design_peak * l->share[j]->busy_s, r->host_cpu,
                     l->share[j]->host_mem, 1};
    for (int d = 0; d < 5; d++)
      ub[d] += fmax(0, rs_pack_alone(r) - price * use[d] / cap[d]);
  }
  double best = INFINITY;
  for (int d = 0; d < 5; d++)
    best = fmin(best, ub[d]);
  return n < 2 ? 0 : best;
}

typedef struct ranked {
  double bound;
  size_t s;
} ranked;

static int cmp_ranked(const void *pa, const void *pb) {
  const ranked *a = pa, *b = pb;
  if (a->bound != b->bound)
    return a->bound > b->bound ? -1 : 1;
  return a->s < b->s ? -1 : a->s > b->s;
}

/* The packing behind --consolidate: shape by shape, each round packs the
 * endpoints left onto every shape not chosen yet (first-fit decreasing;
 * only the shapes that lost endpoints are packed again) and keeps every
 * instance worth keeping of the shape saving the most in all. Then the
 * endpoints left are fitted into the free room of the instances kept, which
 * costs nothing more. */
static bool by_shape(plan *plans, pick **picks, size_t *npicks, const rs_audit *a,
                     const rs_catalog *cat, const shape_lists *l, bool *taken, double max_util,
                     unsigned max_per, rs_pack_memo *memo) {
  size_t ns = cat->ninstances, norder = 0, cap = 0;
  bool *dirty = malloc(ns ? ns : 1), *done = calloc(ns ? ns : 1, 1);
  size_t *order = rs_malloc_array(ns ? ns : 1, sizeof(size_t));
  ranked *rank = rs_malloc_array(ns ? ns : 1, sizeof(*rank));
  bool ok = dirty && done && order && rank;
  if (ok)
    memset(dirty, 1, ns);
  *picks = NULL;
  *npicks = 0;
  while (ok) {
    size_t best = NONE, nrank = 0;
    double best_saving = 0;
    for (size_t s = 0; s < ns; s++)
      if (!done[s] && l->start[s + 1] - l->start[s] >= 2) {
        rank[nrank].s = s;
        rank[nrank++].bound = dirty[s] ? saving_bound(a, cat, l, s, taken, max_util)
                                       : plans[s].saving; /* packed as it stands */
      }
    qsort(rank, nrank, sizeof(*rank), cmp_ranked);
    for (size_t o = 0; ok && o < nrank; o++) {
      size_t s = rank[o].s;
      if (rank[o].bound <= best_saving + 1e-9 && best != NONE)
        break; /* no shape left can save more */
      if (dirty[s]) {
        rs_pack_free(&plans[s]);
        ok = plan_of(&plans[s], a, cat, l, s, taken, max_util, max_per, memo);
        dirty[s] = false;
      }
      if (!ok)
        break;
      double sv = plans[s].saving;
      /* the most saving; a tie goes to the shape first in the catalog */
      if (sv > best_saving + 1e-9 || (best != NONE && sv >= best_saving - 1e-9 && s < best)) {
        best_saving = fmax(sv, best_saving);
        best = s;
      }
    }
    if (!ok || best == NONE)
      break;
    done[best] = true;
    order[norder++] = best;
    for (size_t k = 0; k < rs_pack_instances(&plans[best]); k++)
      if (plans[best].kept[k])
        take((pick){&plans[best], k}, a, cat, taken, dirty);
  }
  /* the endpoints left, into the room the kept instances have */
  for (size_t o = 0; ok && o < norder; o++) {
    plan *pl = &plans[order[o]];
    size_t per = pl->caps.per_instance, ninst = rs_pack_instances(pl);
    for (size_t i = 0; i < pl->nitems; i++) {
      const item *it = &pl->items[i];
      if (taken[it->row])
        continue;
      size_t probes = 0, d = NONE;
      for (size_t k = 0; k < ninst && d == NONE && probes < FILL_PROBES; k++) {
        if (!pl->kept[k] || !rs_pack_host_takes(pl, k, it))
          continue;
        for (size_t c = k * per; c < (k + 1) * per && c < pl->ndevices; c++) {
          const device *dv = &pl->devices[c];
          if (dv->mem + it->mem > pl->caps.dev_mem ||
              dv->util + it->lambda * it->busy > pl->caps.max_util)
            continue;
          probes++;
          if (rs_pack_device_fits(dv, pl->items, pl->next_kind, it, pl->caps.dev_mem,
                                  pl->caps.max_util, memo)) {
            d = c;
            break;
          }
        }
      }
      if (d != NONE) {
        rs_pack_place(pl, d, i);
        taken[it->row] = true;
      }
    }
  }
  for (size_t o = 0; ok && o < norder; o++) {
    plan *pl = &plans[order[o]];
    for (size_t k = 0; k < rs_pack_instances(pl); k++) {
      if (!pl->kept[k])
        continue;
      if (*npicks == cap) {
        pick *v = rs_realloc_array(*picks, cap = cap ? 2 * cap : 64, sizeof(*v));
        if (v == NULL) {
          ok = false;
          break;
        }
        *picks = v;
      }
      (*picks)[(*npicks)++] = (pick){pl, k};
    }
  }
  free(dirty);
  free(done);
  free(order);
  free(rank);
  return ok;
}

/* The previous packing, kept for small fleets: each round packs the
 * endpoints left onto every shape and keeps the one instance that saves the
 * most. */
static bool greedy(plan **plans_out, size_t *nplans, pick **picks, size_t *npicks,
                   const rs_audit *a, const rs_catalog *cat, const shape_lists *l, bool *taken,
                   double max_util, unsigned max_per, rs_pack_memo *memo) {
  size_t ns = cat->ninstances, np = 0, cap = 0;
  plan *kept = NULL, cur;
  bool ok = true;
  *picks = NULL;
  *npicks = 0;
  while (ok) {
    plan best = {0};
    size_t best_k = NONE;
    double best_saving = 0;
    for (size_t s = 0; ok && s < ns; s++) {
      if (l->start[s + 1] - l->start[s] < 2)
        continue;
      ok = plan_of(&cur, a, cat, l, s, taken, max_util, max_per, memo);
      double price = cur.shape->price_usd_per_hour * RS_FIT_HOURS_PER_MONTH, saving = 0;
      size_t k_best = NONE;
      for (size_t k = 0; ok && cur.nitems >= 2 && k < rs_pack_instances(&cur); k++) {
        double base = 0;
        for (size_t d = k * cur.caps.per_instance;
             d < cur.ndevices && d < (k + 1) * cur.caps.per_instance; d++)
          for (size_t j = cur.devices[d].n ? cur.devices[d].first : NONE; j != NONE;
               j = cur.next[j])
            base += rs_pack_alone(&a->rows[cur.items[j].row]);
        if (cur.inst_count[k] >= 2 && base - price > saving + 1e-9) {
          saving = base - price;
          k_best = k;
        }
      }
      if (ok && k_best != NONE && saving > best_saving + 1e-9) {
        rs_pack_free(&best);
        best = cur;
        best_k = k_best;
        best_saving = saving;
      } else {
        rs_pack_free(&cur);
      }
    }
    if (!ok || best_k == NONE) {
      rs_pack_free(&best);
      break;
    }
    if (np == cap) {
      plan *v = rs_realloc_array(kept, cap = cap ? 2 * cap : 16, sizeof(*v));
      pick *w = v ? rs_realloc_array(*picks, cap, sizeof(*w)) : NULL;
      if (v)
        kept = v;
      if (w)
        *picks = w;
      if (v == NULL || w == NULL) {
        rs_pack_free(&best);
        ok = false;
        break;
      }
    }
    kept[np] = best;
    take((pick){&kept[np], best_k}, a, cat, taken, NULL);
    (*picks)[np] = (pick){NULL, best_k};
    np++;
  }
  for (size_t i = 0; i < np; i++) /* kept moved while growing */
    (*picks)[i].pl = &kept[i];
  *plans_out = kept;
  *nplans = np;
  *npicks = np;
  return ok;
}

static double picks_saving(const pick *p, size_t n, const rs_audit *a) {
  double s = 0;
  for (size_t i = 0; i < n; i++) {
    const plan *pl = p[i].pl;
    size_t per = pl->caps.per_instance;
    for (size_t d = p[i].k * per; d < pl->ndevices && d < (p[i].k + 1) * per; d++)
      for (size_t j = pl->devices[d].n ? pl->devices[d].first : NONE; j != NONE; j = pl->next[j])
        s += rs_pack_alone(&a->rows[pl->items[j].row]);
    s -= pl->shape->price_usd_per_hour * RS_FIT_HOURS_PER_MONTH;
  }
  return s;
}

/* The packing of c for shape, created on first use. */
static rs_packing *packing_for(rs_consolidation *c, const rs_instance *shape, size_t cap) {
  for (size_t i = 0; i < c->npackings; i++)
    if (c->packings[i].shape == shape)
      return &c->packings[i];
  if (c->npackings == cap)
    return NULL;
  rs_packing *p = &c->packings[c->npackings++];
  memset(p, 0, sizeof(*p));
  p->shape = shape;
  return p;
}

/* No packing of the packing's endpoints onto its shape uses fewer
 * instances: the larger of each resource's total need over one instance's
 * capacity (device memory, busy time under the ceiling, host CPU and
 * memory, endpoints per device and per instance), rounded up. */
static size_t lower_bound(const rs_packing *p, const rs_audit *a, double max_util,
                          unsigned max_per) {
  const rs_instance *shape = p->shape;
  double mem = 0, busy = 0, cpu = 0, hmem = 0, n = 0;
  for (size_t i = 0; i < p->ninstances; i++)
    for (size_t j = 0; j < p->instances[i].nendpoints; j++) {
      const rs_audit_row *r = &a->rows[p->instances[i].endpoints[j].row];
      for (size_t k = 0; k < r->nshares; k++)
        if (r->shares[k].inst == shape) {
          mem += r->mem;
          busy += r->design_peak * r->shares[k].busy_s;
          cpu += r->host_cpu;
          hmem += r->shares[k].host_mem;
        }
      n++;
    }
  double k = shape->accelerator_count, need = n / (PER_DEVICE * k);
  need = fmax(need, mem / (shape->accelerator_memory_bytes * k));
  need = fmax(need, busy / (max_util * k));
  if (!isnan(shape->vcpus))
    need = fmax(need, cpu / (max_util * shape->vcpus));
  if (!isnan(shape->memory_bytes))
    need = fmax(need, hmem / shape->memory_bytes);
  need = fmax(need, n / (double)max_per);
  size_t lb = (size_t)ceil(need * (1 - 1e-12));
  return lb ? lb : 1;
}

rs_status rs_audit_consolidate(rs_audit *a, rs_arena *arena, const rs_audit_options *opts,
                               rs_error *err) {
  const rs_catalog *cat = opts->pipeline->catalog;
  double max_util = opts->pipeline->fit.max_util;
  unsigned max_per = opts->max_per_instance ? opts->max_per_instance : UINT_MAX;
  size_t n_rows = a->nrows ? a->nrows : 1, ns = cat->ninstances, nshareable = 0;
  bool *taken = calloc(n_rows, sizeof(bool)), *taken2 = calloc(n_rows, sizeof(bool));
  plan *plans = calloc(ns ? ns : 1, sizeof(*plans)), *gplans = NULL;
  size_t ngplans = 0, npicks = 0, ngpicks = 0;
  pick *picks = NULL, *gpicks = NULL;
  shape_lists l = {0};
  rs_pack_memo memo = {0};
  rs_consolidation *c = rs_arena_alloc(arena, sizeof(*c));
  rs_status st = RS_OK;
  for (size_t r = 0; r < a->nrows; r++)
    nshareable += shareable(&a->rows[r]) && a->rows[r].nshares > 0;
  if (!taken || !taken2 || !plans || !c || !lists_build(&l, a, cat) ||
      !by_shape(plans, &picks, &npicks, a, cat, &l, taken, max_util, max_per, &memo) ||
      (nshareable <= GREEDY_MAX &&
       !greedy(&gplans, &ngplans, &gpicks, &ngpicks, a, cat, &l, taken2, max_util, max_per, &memo)))
    st = RS_NOMEM;
  /* the better of the two; a tie keeps the greedy plan */
  if (st == RS_OK && gplans != NULL &&
      picks_saving(gpicks, ngpicks, a) >= picks_saving(picks, npicks, a) - 1e-9) {
    pick *t = picks;
    picks = gpicks;
    gpicks = t;
    size_t tn = npicks;
    npicks = ngpicks;
    ngpicks = tn;
  }
  if (st == RS_OK)
    memset(c, 0, sizeof(*c));
  /* Group the chosen instances by shape, in the order shapes were first chosen. */
  c->packings =
      st == RS_OK ? rs_arena_alloc_array(arena, npicks ? npicks : 1, sizeof(*c->packings)) : NULL;
  if (st == RS_OK && c->packings == NULL)
    st = RS_NOMEM;
  for (size_t i = 0; st == RS_OK && i < npicks; i++) {
    const rs_instance *shape = picks[i].pl->shape;
    rs_packing *p = packing_for(c, shape, npicks);
    if (p->instances == NULL) {
      size_t count = 0;
      for (size_t j = i; j < npicks; j++)
        count += picks[j].pl->shape == shape;
      p->instances = rs_arena_alloc_array(arena, count, sizeof(*p->instances));
      if (p->instances == NULL) {
        st = RS_NOMEM;
        break;
      }
    }
    rs_packed_instance *pi = &p->instances[p->ninstances++];
    if ((st = rs_pack_keep(pi, arena, picks[i].pl, picks[i].k)) != RS_OK)
      break;
    p->instance_month = shape->price_usd_per_hour * RS_FIT_HOURS_PER_MONTH;
    p->month += p->instance_month;
    for (size_t j = 0; j < pi->nendpoints; j++)
      p->baseline_month += rs_pack_alone(&a->rows[pi->endpoints[j].row]);
  }
  for (size_t i = 0; st == RS_OK && i < c->npackings; i++) {
    rs_packing *p = &c->packings[i];
    p->lower_bound = lower_bound(p, a, max_util, max_per);
    c->month += p->month;
    c->baseline_month += p->baseline_month;
    c->instances += p->ninstances;
    c->lower_bound += p->lower_bound;
    for (size_t k = 0; k < p->ninstances; k++)
      c->packed += p->instances[k].nendpoints;
  }
  for (size_t s = 0; s < ns && plans; s++)
    rs_pack_free(&plans[s]);
  for (size_t s = 0; s < ngplans; s++)
    rs_pack_free(&gplans[s]);
  free(plans);
  free(gplans);
  free(picks);
  free(gpicks);
  free(taken);
  free(taken2);
  lists_free(&l);
  rs_pack_memo_free(&memo);
  if (st != RS_OK)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory while consolidating");
  c->savings_month = c->baseline_month - c->month;
  c->above_bound = c->lower_bound ? (double)c->instances / (double)c->lower_bound - 1.0 : 0.0;
  c->fleet_month = a->after_month - c->savings_month;
  a->consolidation = c;
  return RS_OK;
}
