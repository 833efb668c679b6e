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

#include "rightsize/audit.h"
#include "queue.h"

#define PER_DEVICE 64 /* endpoints one device may take */
#define NONE SIZE_MAX
#define GREEDY_MAX 256  /* shareable endpoints up to which the round-by-round greedy runs too */
#define REJECT_MAX 64   /* items in a row a device refuses on latency before it is closed */
#define FILL_PROBES 256 /* devices tried per endpoint when filling gaps */
/* Ways to pack a shape, each tried, the best kept: 0 first fit decreasing,
 * 1 minimum bin slack (pack_mbs). */
#define STRATEGIES 2
#define MBS_CHECKS 48   /* latency checks one device's search may spend */
#define MBS_PROBES 4096 /* items one device's search may look at */

/* The cost an endpoint has when sized on its own. */
static double alone(const rs_audit_row *r) { return r->after_month; }

/* What one endpoint brings to a device of one shape. */
typedef struct item {
  size_t row;
  double lambda, busy, hold, cs2, service_q_ms, slo_ms, q;
  double s50_s; /* median of the endpoint's own (lognormal) service latency */
  double mem, host_cpu, host_mem;
  double size; /* for the decreasing order */
  size_t kind; /* the first item (in plan order) whose latency figures are the same */
} item;

typedef struct device {
  double mem, util;             /* bytes incl. headroom; busy fraction */
  double lambda, h1, h2;        /* sums of lambda, lambda x hold, lambda x E[hold^2] */
  size_t first, last;           /* its items, linked through plan.next */
  size_t first_kind, last_kind; /* one item per kind on it, linked through plan.next_kind */
  size_t n;
  unsigned rejects;          /* items refused in a row */
  size_t refused, refused_n; /* the twin it last refused on latency, and its n then */
} device;

/* The constraints of one shape. */
typedef struct shape_caps {
  double dev_mem, max_util, vcpus, host;
  unsigned per_instance, max_per_instance;
} shape_caps;

/* One shape's items, packed. */
typedef struct plan {
  const rs_instance *shape;
  shape_caps caps;
  item *items; /* sorted largest first */
  size_t nitems;
  size_t *next;      /* per item: the next item on its device; NONE last */
  size_t *next_kind; /* per item heading its kind on a device: the next kind's */
  size_t *twin;      /* per item: the first of the items before it with all the same figures */
  device *devices;
  size_t ndevices, cap;
  double *inst_cpu, *inst_mem;
  unsigned *inst_count;
  bool *kept;        /* per instance: chosen for the result */
  unsigned strategy; /* how pack orders the items and picks a device (STRATEGIES) */
  double saving;     /* of the instances worth keeping */
} plan;

static size_t instances_of(const plan *pl) {
  return (pl->ndevices + pl->caps.per_instance - 1) / pl->caps.per_instance;
}

/* The share a row keeps for shape, from its fit on it (NULL: it cannot share it). */
static bool share_of(rs_audit_share *sh, const rs_audit_row *r, const rs_candidate *c,
                     const rs_demand *d, double max_util) {
  const rs_instance *shape = c->inst;
  if (shape->accelerator == NULL || isnan(shape->price_usd_per_hour) ||
      !(shape->accelerator_count >= 1) || c->devices_per_server != 1)
    return false;
  double dev_mem = shape->accelerator_memory_bytes;
  sh->inst = shape;
  sh->busy_s = c->service_s;
  sh->hold_s = c->queue_s;
  sh->cs2 = c->cs2;
  sh->service_q_ms = c->service_q_ms;
  sh->s50_s =
      c->service_q_ms / 1e3 / exp(sqrt(log1p(c->cs2)) * rs_normal_quantile(r->slo_quantile));
  sh->host_mem = isnan(c->host_mem_need) ? 0 : c->host_mem_need;
  /* one device must carry the whole endpoint */
  if (!(d->design_peak * sh->busy_s <= max_util) || !(r->mem <= dev_mem))
    return false;
  sh->size = fmax(r->mem / dev_mem, d->design_peak * sh->busy_s / max_util);
  return true;
}

static void item_of(item *it, const rs_audit *a, size_t row, const rs_audit_share *sh) {
  const rs_audit_row *r = &a->rows[row];
  it->row = row;
  it->lambda = r->design_peak;
  it->busy = sh->busy_s;
  it->hold = sh->hold_s;
  it->cs2 = sh->cs2;
  it->service_q_ms = sh->service_q_ms;
  it->slo_ms = r->slo_ms;
  it->q = r->slo_quantile;
  it->s50_s = sh->s50_s;
  it->mem = r->mem;
  it->host_cpu = r->host_cpu;
  it->host_mem = sh->host_mem;
  it->size = sh->size;
  it->kind = NONE;
}

/* One FCFS server carrying these sums: the mix of the endpoints' hold times
 * as one M/G/1 queue (Allen-Cunneen mean, the hold mix's own cs2). */
static rs_queue shared_queue(double lambda, double h1, double h2) {
  double mean = h1 / lambda, second = h2 / lambda;
  rs_queue qu = {1, lambda, mean, 1.0, fmax(second / (mean * mean) - 1.0, 0.0)};
  return qu;
}

/* The endpoint's latency at its SLO quantile on such a server: its own
 * service time plus the shared wait, the quantile of the sum. */
static double latency_ms(double lambda, double h1, double h2, const item *it) {
  if (!(lambda > 0) || !(h1 > 0))
    return it->service_q_ms;
  rs_queue qu = shared_queue(lambda, h1, h2);
  double r = rs_queue_response_quantile(&qu, it->s50_s, it->cs2, it->q);
  return isnan(r) ? it->service_q_ms + rs_queue_wait_quantile(&qu, it->q) * 1e3 : r * 1e3;
}

/* Whether the endpoint meets its SLO on such a server: P(R > SLO) <= 1 - q,
 * one evaluation of the tail instead of a quantile search. */
static bool meets_slo(const rs_queue *qu, const item *it) {
  double tail = rs_queue_response_tail(qu, it->s50_s, it->cs2, it->slo_ms / 1e3);
  if (isnan(tail)) /* no service latency to combine: the wait alone, as before */
    return it->service_q_ms + rs_queue_wait_quantile(qu, it->q) * 1e3 <= it->slo_ms;
  return tail <= 1.0 - it->q;
}

/* Would the device meet every constraint of every endpoint with it added?
 * The SLO check of an endpoint depends on the shared queue and on its own
 * latency figures alone, so endpoints of one kind (the same figures) are
 * checked once: the device keeps one of each kind. */
static bool device_fits(const device *dv, const item *items, const size_t *next_kind,
                        const item *it, double dev_mem, double max_util) {
  if (dv->n >= PER_DEVICE || dv->mem + it->mem > dev_mem ||
      dv->util + it->lambda * it->busy > max_util)
    return false;
  double lambda = dv->lambda + it->lambda, h1 = dv->h1 + it->lambda * it->hold;
  double h2 = dv->h2 + it->lambda * it->hold * it->hold * (1.0 + it->cs2);
  bool queue = lambda > 0 && h1 > 0; /* else no wait: the service latency alone */
  rs_queue qu = queue ? shared_queue(lambda, h1, h2) : (rs_queue){1, 0, 1, 1, 1};
  bool seen = false; /* its kind is on the device already */
  for (size_t j = dv->n ? dv->first_kind : NONE;; j = next_kind[j]) {
    const item *e = j != NONE ? &items[j] : it;
    if (j == NONE && seen)
      break;
    seen = seen || (j != NONE && e->kind == it->kind);
    if (queue ? !meets_slo(&qu, e) : !(e->service_q_ms <= e->slo_ms))
      return false;
    if (j == NONE)
      break;
  }
  return true;
}

/* Whether the endpoint fits an empty device and host of the shape. */
static bool fits_alone(const item *it, const shape_caps *k) {
  device empty = {.first = NONE, .last = NONE, .first_kind = NONE, .last_kind = NONE};
  return device_fits(&empty, NULL, NULL, it, k->dev_mem, k->max_util) &&
         it->host_cpu <= k->max_util * k->vcpus && it->host_mem <= k->host;
}

static void device_add(device *dv, size_t *next, size_t *next_kind, const item *items, size_t i) {
  const item *it = &items[i];
  size_t j = dv->n ? dv->first_kind : NONE;
  while (j != NONE && items[j].kind != it->kind)
    j = next_kind[j];
  if (j == NONE) { /* a new kind on the device */
    next_kind[i] = NONE;
    if (dv->n == 0)
      dv->first_kind = i;
    else
      next_kind[dv->last_kind] = i;
    dv->last_kind = i;
  }
  next[i] = NONE;
  if (dv->n == 0)
    dv->first = i;
  else
    next[dv->last] = i;
  dv->last = i;
  dv->n++;
  dv->mem += it->mem;
  dv->util += it->lambda * it->busy;
  dv->lambda += it->lambda;
  dv->h1 += it->lambda * it->hold;
  dv->h2 += it->lambda * it->hold * it->hold * (1.0 + it->cs2);
}

static shape_caps caps_of(const rs_instance *shape, double max_util, unsigned max_per_instance) {
  shape_caps k = {shape->accelerator_memory_bytes,
                  max_util,
                  isnan(shape->vcpus) ? INFINITY : shape->vcpus,
                  isnan(shape->memory_bytes) ? INFINITY : shape->memory_bytes,
                  (unsigned)shape->accelerator_count,
                  max_per_instance};
  return k;
}

rs_status rs_audit_row_shares(rs_audit_row *row, rs_arena *arena, const rs_fit_result *fit,
                              double max_util) {
  const rs_demand *d = &fit->demand;
  row->design_peak = d->design_peak;
  row->slo_ms = d->slo_ms;
  row->slo_quantile = d->slo_quantile;
  row->mem = d->mem_need_head;
  row->host_cpu = d->cpu_known ? d->cpu_base_vcpus + d->design_peak * d->cpu_vcpu_s_per_req : 0;
  row->shares = NULL;
  row->nshares = 0;
  if (fit->nfitting == 0)
    return RS_OK;
  rs_audit_share *v = rs_arena_alloc_array(arena, fit->nfitting, sizeof(*v));
  if (v == NULL)
    return RS_NOMEM;
  for (size_t i = 0; i < fit->nfitting; i++) {
    rs_audit_share *sh = &v[row->nshares];
    bool first = true; /* a shape's first fit is the one to share (as fitting[] ranks them) */
    for (size_t j = 0; j < i && first; j++)
      first = fit->fitting[j].inst != fit->fitting[i].inst;
    if (!first || !share_of(sh, row, &fit->fitting[i], d, max_util))
      continue;
    item it;
    rs_audit a1 = {.rows = row, .nrows = 1};
    item_of(&it, &a1, 0, sh);
    shape_caps k = caps_of(sh->inst, max_util, UINT_MAX);
    if (fits_alone(&it, &k))
      row->nshares++;
  }
  row->shares = v;
  return RS_OK;
}

static int cmp_size(const void *pa, const void *pb) {
  const item *a = pa, *b = pb;
  if (a->size != b->size)
    return a->size > b->size ? -1 : 1;
  return a->row < b->row ? -1 : a->row > b->row;
}

static void plan_free(plan *pl) {
  free(pl->items);
  free(pl->next);
  free(pl->next_kind);
  free(pl->twin);
  free(pl->devices);
  free(pl->inst_cpu);
  free(pl->inst_mem);
  free(pl->inst_count);
  free(pl->kept);
  memset(pl, 0, sizeof(*pl));
}

/* *p reallocated to n elements of size; false (and *p kept) when it fails. */
static bool grow(void **p, size_t n, size_t size) {
  void *v = rs_realloc_array(*p, n, size);
  if (v != NULL)
    *p = v;
  return v != NULL;
}

/* Room for devices up to index need - 1 (and their instances). */
static bool plan_reserve(plan *pl, size_t need) {
  size_t per = pl->caps.per_instance;
  while (pl->cap < need) {
    size_t cap = pl->cap ? 2 * pl->cap : 16 * (size_t)per;
    size_t ninst = cap / per + 1, old_inst = pl->cap ? pl->cap / per + 1 : 0;
    if (!grow((void **)&pl->devices, cap, sizeof(*pl->devices)) ||
        !grow((void **)&pl->inst_cpu, ninst, sizeof(double)) ||
        !grow((void **)&pl->inst_mem, ninst, sizeof(double)) ||
        !grow((void **)&pl->inst_count, ninst, sizeof(unsigned)) ||
        !grow((void **)&pl->kept, ninst, sizeof(bool)))
      return false;
    for (size_t d = pl->cap; d < cap; d++)
      pl->devices[d] = (device){
          .first = NONE, .last = NONE, .first_kind = NONE, .last_kind = NONE, .refused = NONE};
    for (size_t i = old_inst; i < ninst; i++) {
      pl->inst_cpu[i] = pl->inst_mem[i] = 0;
      pl->inst_count[i] = 0;
      pl->kept[i] = false;
    }
    pl->cap = cap;
  }
  return true;
}

/* Whether instance inst's host takes the item. */
static bool host_takes(const plan *pl, size_t inst, const item *it) {
  return pl->inst_count[inst] < pl->caps.max_per_instance &&
         pl->inst_cpu[inst] + it->host_cpu <= pl->caps.max_util * pl->caps.vcpus &&
         pl->inst_mem[inst] + it->host_mem <= pl->caps.host;
}

static void place(plan *pl, size_t d, size_t i) {
  size_t inst = d / pl->caps.per_instance;
  device_add(&pl->devices[d], pl->next, pl->next_kind, pl->items, i);
  pl->devices[d].rejects = 0;
  pl->inst_cpu[inst] += pl->items[i].host_cpu;
  pl->inst_mem[inst] += pl->items[i].host_mem;
  pl->inst_count[inst]++;
}

/* Whether device c of the plan has the room for it (memory, busy time,
 * endpoints, host): the checks before the queue's. */
static bool room_for(const plan *pl, size_t c, const item *it) {
  const device *dv = &pl->devices[c];
  return dv->mem + it->mem <= pl->caps.dev_mem &&
         dv->util + it->lambda * it->busy <= pl->caps.max_util &&
         host_takes(pl, c / pl->caps.per_instance, it);
}

/* The first open device that takes it (every constraint); NONE when none
 * does. A device with room that fails the latency check counts a reject. */
static size_t first_fit(plan *pl, const size_t *open, size_t nopen, size_t i) {
  const shape_caps *k = &pl->caps;
  const item *it = &pl->items[i];
  for (size_t o = 0; o < nopen; o++) {
    size_t c = open[o];
    device *dv = &pl->devices[c];
    if (!host_takes(pl, c / k->per_instance, it))
      continue;
    if (dv->refused == pl->twin[i] && dv->refused_n == dv->n)
      continue; /* its twin failed the same check on the device as it is */
    if (device_fits(dv, pl->items, pl->next_kind, it, k->dev_mem, k->max_util))
      return c;
    if (dv->mem + it->mem <= k->dev_mem && dv->util + it->lambda * it->busy <= k->max_util) {
      dv->rejects++;
      dv->refused = pl->twin[i];
      dv->refused_n = dv->n;
    }
  }
  return NONE;
}

/* First-fit decreasing of the plan's items onto devices of its shape. The
 * devices still open are kept in a list: a device leaves it when no item
 * left could fit it (less memory or busy time free than the smallest need
 * among them, its endpoint limit, or its host full), or after REJECT_MAX
 * items in a row failed a latency check on it, so an item tries a few
 * devices, not all of them. */
static bool pack(plan *pl) {
  size_t n = pl->nitems;
  double *min_mem = rs_malloc_array(n + 1, sizeof(double));
  double *min_busy = rs_malloc_array(n + 1, sizeof(double));
  double *min_cpu = rs_malloc_array(n + 1, sizeof(double));
  double *min_hmem = rs_malloc_array(n + 1, sizeof(double));
  /* every device the items could open, skipped ones included */
  size_t *open = rs_malloc_array((n + 1) * pl->caps.per_instance, sizeof(size_t));
  size_t nopen = 0;
  bool ok = min_mem && min_busy && min_cpu && min_hmem && open;
  if (ok) {
    min_mem[n] = min_busy[n] = min_cpu[n] = min_hmem[n] = INFINITY;
    for (size_t i = n; i-- > 0;) {
      const item *it = &pl->items[i];
      min_mem[i] = fmin(min_mem[i + 1], it->mem);
      min_busy[i] = fmin(min_busy[i + 1], it->lambda * it->busy);
      min_cpu[i] = fmin(min_cpu[i + 1], it->host_cpu);
      min_hmem[i] = fmin(min_hmem[i + 1], it->host_mem);
    }
  }
  const shape_caps *k = &pl->caps;
  for (size_t i = 0; ok && i < n; i++) {
    const item *it = &pl->items[i];
    size_t d = first_fit(pl, open, nopen, i);
    if (d == NONE) {
      /* a fresh device, on a fresh instance when this one's host is full */
      d = pl->ndevices;
      size_t inst = d / k->per_instance;
      if (d % k->per_instance != 0 && !host_takes(pl, inst, it))
        d = (inst + 1) * k->per_instance;
      if (!(ok = plan_reserve(pl, d + 1)))
        break;
      for (size_t e = pl->ndevices; e <= d; e++)
        open[nopen++] = e; /* a skipped device stays empty; it is closed below */
      pl->ndevices = d + 1;
    }
    place(pl, d, i);
    /* close what no item left can use */
    size_t kept = 0;
    for (size_t o = 0; o < nopen; o++) {
      size_t c = open[o];
      const device *dv = &pl->devices[c];
      size_t inst = c / k->per_instance;
      bool closed = dv->n >= PER_DEVICE || dv->rejects >= REJECT_MAX ||
                    dv->mem + min_mem[i + 1] > k->dev_mem ||
                    dv->util + min_busy[i + 1] > k->max_util ||
                    pl->inst_count[inst] >= k->max_per_instance ||
                    pl->inst_cpu[inst] + min_cpu[i + 1] > k->max_util * k->vcpus ||
                    pl->inst_mem[inst] + min_hmem[i + 1] > k->host;
      if (!closed)
        open[kept++] = c;
    }
    nopen = kept;
  }
  free(min_mem);
  free(min_busy);
  free(min_cpu);
  free(min_hmem);
  free(open);
  return ok;
}

/* Minimum bin slack (Gupta and Ho 1999; Fleszar and Hindi 2002), bounded:
 * devices are filled one at a time, each with the largest item left and
 * then the set of items left that fills it most (device memory plus busy
 * time, as shares), found by a depth-first search over the items left in
 * decreasing order that stops after MBS_CHECKS latency checks or
 * MBS_PROBES items looked at, so a device costs a bounded amount of work.
 * Items with the same figures are tried once per level. */
typedef struct mbs {
  plan *pl;
  size_t d;
  size_t *up;   /* per item: an index at or before the next item left (path halving) */
  size_t *same; /* per item: the first later item whose figures differ */
  size_t *cur, ncur, *best, nbest;
  double best_fill;
  unsigned checks;
  size_t probes;
} mbs;

/* The first item left at or after i (n when none). */
static size_t left_from(mbs *m, size_t i) {
  size_t n = m->pl->nitems;
  while (i < n && m->up[i] != i) {
    m->up[i] = m->up[i] < n ? m->up[m->up[i]] : n;
    i = m->up[i];
  }
  return i;
}

static double fill_of(const device *dv, const shape_caps *k) {
  return dv->mem / k->dev_mem + dv->util / k->max_util;
}

typedef struct saved {
  device dv;
  double cpu, mem;
  unsigned count;
} saved;

static void mbs_search(mbs *m, size_t from) {
  plan *pl = m->pl;
  const shape_caps *k = &pl->caps;
  size_t inst = m->d / k->per_instance;
  for (size_t j = left_from(m, from); j < pl->nitems; j = left_from(m, m->same[j])) {
    if (m->probes == 0 || m->checks == 0)
      return;
    m->probes--;
    const item *it = &pl->items[j];
    device *dv = &pl->devices[m->d];
    if (!room_for(pl, m->d, it))
      continue;
    m->checks--;
    if (!device_fits(dv, pl->items, pl->next_kind, it, k->dev_mem, k->max_util))
      continue;
    saved sv = {*dv, pl->inst_cpu[inst], pl->inst_mem[inst], pl->inst_count[inst]};
    place(pl, m->d, j);
    m->cur[m->ncur++] = j;
    double f = fill_of(dv, k);
    if (f > m->best_fill + 1e-12) {
      m->best_fill = f;
      memcpy(m->best, m->cur, m->ncur * sizeof(*m->cur));
      m->nbest = m->ncur;
    }
    mbs_search(m, j + 1);
    /* take j off again: the device and its host as they were */
    m->ncur--;
    *dv = sv.dv;
    if (dv->n) {
      pl->next[dv->last] = NONE;
      pl->next_kind[dv->last_kind] = NONE;
    }
    pl->inst_cpu[inst] = sv.cpu;
    pl->inst_mem[inst] = sv.mem;
    pl->inst_count[inst] = sv.count;
  }
}

static bool pack_mbs(plan *pl) {
  size_t n = pl->nitems;
  const shape_caps *k = &pl->caps;
  mbs m = {.pl = pl,
           .up = rs_malloc_array(n + 1, sizeof(size_t)),
           .same = rs_malloc_array(n, sizeof(size_t)),
           .cur = rs_malloc_array(PER_DEVICE + 1, sizeof(size_t)),
           .best = rs_malloc_array(PER_DEVICE + 1, sizeof(size_t))};
  bool ok = m.up && m.same && m.cur && m.best;
  for (size_t i = 0; ok && i <= n; i++)
    m.up[i] = i;
  for (size_t i = n; ok && i-- > 0;) {
    bool same = i + 1 < n && pl->twin[i + 1] == pl->twin[i];
    m.same[i] = same ? m.same[i + 1] : i + 1;
  }
  for (size_t first = ok ? left_from(&m, 0) : n; ok && first < n; first = left_from(&m, 0)) {
    const item *it = &pl->items[first];
    size_t d = pl->ndevices, inst = d / k->per_instance;
    if (d % k->per_instance != 0 && !host_takes(pl, inst, it))
      d = (inst + 1) * k->per_instance; /* a fresh instance */
    if (!(ok = plan_reserve(pl, d + 1)))
      break;
    pl->ndevices = d + 1;
    place(pl, d, first);
    m.up[first] = first + 1;
    m.d = d;
    m.ncur = m.nbest = 0;
    m.best_fill = fill_of(&pl->devices[d], k);
    m.checks = MBS_CHECKS;
    m.probes = MBS_PROBES;
    mbs_search(&m, first + 1);
    for (size_t b = 0; b < m.nbest; b++) {
      place(pl, d, m.best[b]);
      m.up[m.best[b]] = m.best[b] + 1;
    }
  }
  free(m.up);
  free(m.same);
  free(m.cur);
  free(m.best);
  return ok;
}

/* Sums the plan's instances: each worth keeping (two endpoints or more,
 * cheaper than they are sized one by one) is marked, and the plan's saving
 * is what they save together. */
static void evaluate(plan *pl, const rs_audit *a) {
  double price = pl->shape->price_usd_per_hour * RS_FIT_HOURS_PER_MONTH;
  size_t ninst = instances_of(pl);
  pl->saving = 0;
  for (size_t k = 0; k < ninst; k++) {
    double base = 0;
    size_t count = 0;
    for (size_t d = k * pl->caps.per_instance;
         d < pl->ndevices && d < (k + 1) * pl->caps.per_instance; d++)
      for (size_t j = pl->devices[d].n ? pl->devices[d].first : NONE; j != NONE; j = pl->next[j]) {
        base += alone(&a->rows[pl->items[j].row]);
        count++;
      }
    pl->kept[k] = count >= 2 && base - price > 1e-9;
    if (pl->kept[k])
      pl->saving += base - price;
  }
}

/* The latency figures of an item, which alone (with the shared queue)
 * decide its SLO check. */
static void kind_key(double key[5], const item *it) {
  key[0] = it->s50_s;
  key[1] = it->cs2;
  key[2] = it->slo_ms;
  key[3] = it->q;
  key[4] = it->service_q_ms;
}

typedef struct keyed {
  double key[5];
  size_t i;
} keyed;

static int cmp_keyed(const void *pa, const void *pb) {
  const keyed *a = pa, *b = pb;
  int c = memcmp(a->key, b->key, sizeof(a->key));
  return c ? c : (a->i > b->i) - (a->i < b->i);
}

/* Each item's kind: the first item (in plan order) whose latency figures are
 * the same bits. */
static bool kinds_of(plan *pl) {
  size_t n = pl->nitems;
  keyed *v = rs_malloc_array(n, sizeof(*v));
  if (v == NULL)
    return false;
  for (size_t i = 0; i < n; i++) {
    kind_key(v[i].key, &pl->items[i]);
    v[i].i = i;
  }
  qsort(v, n, sizeof(*v), cmp_keyed);
  for (size_t i = 0; i < n; i++)
    pl->items[v[i].i].kind = i > 0 && memcmp(v[i].key, v[i - 1].key, sizeof(v[i].key)) == 0
                                 ? pl->items[v[i - 1].i].kind
                                 : v[i].i;
  free(v);
  return true;
}

/* Whether two items have every figure packing reads the same. */
static bool twins(const item *a, const item *b) {
  return a->kind == b->kind && a->mem == b->mem && a->lambda == b->lambda && a->busy == b->busy &&
         a->hold == b->hold && a->host_cpu == b->host_cpu && a->host_mem == b->host_mem;
}

/* The plan of shape over the rows not taken that may share it (list, in
 * row order), packed one way (STRATEGIES) and evaluated. */
static bool plan_build_as(plan *pl, const rs_audit *a, const rs_instance *shape, const size_t *list,
                          const rs_audit_share *const *shares, size_t nlist, const bool *taken,
                          double max_util, unsigned max_per_instance, unsigned strategy) {
  memset(pl, 0, sizeof(*pl));
  pl->shape = shape;
  pl->caps = caps_of(shape, max_util, max_per_instance);
  pl->strategy = strategy;
  pl->items = rs_malloc_array(nlist ? nlist : 1, sizeof(*pl->items));
  if (pl->items == NULL)
    return false;
  for (size_t j = 0; j < nlist; j++)
    if (!taken[list[j]]) {
      item *it = &pl->items[pl->nitems++];
      item_of(it, a, list[j], shares[j]);
    }
  if (pl->nitems < 2)
    return true; /* nothing to share: saving 0 */
  qsort(pl->items, pl->nitems, sizeof(*pl->items), cmp_size);
  pl->next = rs_malloc_array(pl->nitems, sizeof(size_t));
  pl->next_kind = rs_malloc_array(pl->nitems, sizeof(size_t));
  pl->twin = rs_malloc_array(pl->nitems, sizeof(size_t));
  if (pl->next == NULL || pl->next_kind == NULL || pl->twin == NULL || !kinds_of(pl))
    return false;
  for (size_t i = 0; i < pl->nitems; i++)
    pl->twin[i] = i > 0 && twins(&pl->items[i - 1], &pl->items[i]) ? pl->twin[i - 1] : i;
  if (!plan_reserve(pl, 1) || !(strategy == 0 ? pack(pl) : pack_mbs(pl)))
    return false;
  evaluate(pl, a);
  return true;
}

/* The plan of shape over the rows not taken that may share it (list, in
 * row order), packed each way of STRATEGIES and evaluated: the one that
 * saves the most (on a tie, the earlier way). */
static bool plan_build(plan *pl, const rs_audit *a, const rs_instance *shape, const size_t *list,
                       const rs_audit_share *const *shares, size_t nlist, const bool *taken,
                       double max_util, unsigned max_per_instance) {
  if (!plan_build_as(pl, a, shape, list, shares, nlist, taken, max_util, max_per_instance, 0))
    return false;
  for (unsigned s = 1; s < STRATEGIES && pl->nitems >= 2; s++) {
    plan other;
    if (!plan_build_as(&other, a, shape, list, shares, nlist, taken, max_util, max_per_instance,
                       s)) {
      plan_free(&other);
      return false;
    }
    if (other.saving > pl->saving + 1e-9) {
      plan_free(pl);
      *pl = other;
    } else {
      plan_free(&other);
    }
  }
  return true;
}

/* Records instance k of the plan as a packed instance. */
static rs_status keep(rs_packed_instance *pi, rs_arena *arena, const plan *pl, size_t k) {
  size_t count = pl->inst_count[k], per = pl->caps.per_instance;
  memset(pi, 0, sizeof(*pi));
  pi->endpoints = rs_arena_alloc_array(arena, count ? count : 1, sizeof(*pi->endpoints));
  if (pi->endpoints == NULL)
    return RS_NOMEM;
  pi->host_cpu = pl->inst_cpu[k];
  pi->host_mem = pl->inst_mem[k];
  for (size_t d = k * per; d < pl->ndevices && d < (k + 1) * per; d++) {
    const device *dv = &pl->devices[d];
    unsigned dev = (unsigned)(d - k * per);
    if (dv->n)
      pi->devices_used = dev + 1;
    pi->mem_used[dev] = dv->mem;
    pi->util[dev] = dv->util;
    for (size_t j = dv->n ? dv->first : NONE; j != NONE; j = pl->next[j]) {
      const item *it = &pl->items[j];
      rs_packed_endpoint *pe = &pi->endpoints[pi->nendpoints++];
      pe->row = it->row;
      pe->device = dev;
      pe->latency_ms = latency_ms(dv->lambda, dv->h1, dv->h2, it);
      pe->slo_ms = it->slo_ms;
      pe->slo_quantile = it->q;
    }
  }
  return RS_OK;
}

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
                    size_t s, const bool *taken, double max_util, unsigned max_per) {
  return plan_build(pl, a, &cat->instances[s], l->row + l->start[s], l->share + l->start[s],
                    l->start[s + 1] - l->start[s], taken, max_util, max_per);
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
      ub[d] += fmax(0, alone(r) - price * use[d] / cap[d]);
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
                     unsigned max_per) {
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
        plan_free(&plans[s]);
        ok = plan_of(&plans[s], a, cat, l, s, taken, max_util, max_per);
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
    for (size_t k = 0; k < instances_of(&plans[best]); k++)
      if (plans[best].kept[k])
        take((pick){&plans[best], k}, a, cat, taken, dirty);
  }
  /* the endpoints left, into the room the kept instances have */
  for (size_t o = 0; ok && o < norder; o++) {
    plan *pl = &plans[order[o]];
    size_t per = pl->caps.per_instance, ninst = instances_of(pl);
    for (size_t i = 0; i < pl->nitems; i++) {
      const item *it = &pl->items[i];
      if (taken[it->row])
        continue;
      size_t probes = 0, d = NONE;
      for (size_t k = 0; k < ninst && d == NONE && probes < FILL_PROBES; k++) {
        if (!pl->kept[k] || !host_takes(pl, k, it))
          continue;
        for (size_t c = k * per; c < (k + 1) * per && c < pl->ndevices; c++) {
          const device *dv = &pl->devices[c];
          if (dv->mem + it->mem > pl->caps.dev_mem ||
              dv->util + it->lambda * it->busy > pl->caps.max_util)
            continue;
          probes++;
          if (device_fits(dv, pl->items, pl->next_kind, it, pl->caps.dev_mem, pl->caps.max_util)) {
            d = c;
            break;
          }
        }
      }
      if (d != NONE) {
        place(pl, d, i);
        taken[it->row] = true;
      }
    }
  }
  for (size_t o = 0; ok && o < norder; o++) {
    plan *pl = &plans[order[o]];
    for (size_t k = 0; k < instances_of(pl); k++) {
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
                   double max_util, unsigned max_per) {
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
      ok = plan_of(&cur, a, cat, l, s, taken, max_util, max_per);
      double price = cur.shape->price_usd_per_hour * RS_FIT_HOURS_PER_MONTH, saving = 0;
      size_t k_best = NONE;
      for (size_t k = 0; ok && cur.nitems >= 2 && k < instances_of(&cur); k++) {
        double base = 0;
        for (size_t d = k * cur.caps.per_instance;
             d < cur.ndevices && d < (k + 1) * cur.caps.per_instance; d++)
          for (size_t j = cur.devices[d].n ? cur.devices[d].first : NONE; j != NONE;
               j = cur.next[j])
            base += alone(&a->rows[cur.items[j].row]);
        if (cur.inst_count[k] >= 2 && base - price > saving + 1e-9) {
          saving = base - price;
          k_best = k;
        }
      }
      if (ok && k_best != NONE && saving > best_saving + 1e-9) {
        plan_free(&best);
        best = cur;
        best_k = k_best;
        best_saving = saving;
      } else {
        plan_free(&cur);
      }
    }
    if (!ok || best_k == NONE) {
      plan_free(&best);
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
        plan_free(&best);
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
        s += alone(&a->rows[pl->items[j].row]);
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
  rs_consolidation *c = rs_arena_alloc(arena, sizeof(*c));
  rs_status st = RS_OK;
  for (size_t r = 0; r < a->nrows; r++)
    nshareable += shareable(&a->rows[r]) && a->rows[r].nshares > 0;
  if (!taken || !taken2 || !plans || !c || !lists_build(&l, a, cat) ||
      !by_shape(plans, &picks, &npicks, a, cat, &l, taken, max_util, max_per) ||
      (nshareable <= GREEDY_MAX &&
       !greedy(&gplans, &ngplans, &gpicks, &ngpicks, a, cat, &l, taken2, max_util, max_per)))
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
    if ((st = keep(pi, arena, picks[i].pl, picks[i].k)) != RS_OK)
      break;
    p->instance_month = shape->price_usd_per_hour * RS_FIT_HOURS_PER_MONTH;
    p->month += p->instance_month;
    for (size_t j = 0; j < pi->nendpoints; j++)
      p->baseline_month += alone(&a->rows[pi->endpoints[j].row]);
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
    plan_free(&plans[s]);
  for (size_t s = 0; s < ngplans; s++)
    plan_free(&gplans[s]);
  free(plans);
  free(gplans);
  free(picks);
  free(gpicks);
  free(taken);
  free(taken2);
  lists_free(&l);
  if (st != RS_OK)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory while consolidating");
  c->savings_month = c->baseline_month - c->month;
  c->above_bound = c->lower_bound ? (double)c->instances / (double)c->lower_bound - 1.0 : 0.0;
  c->fleet_month = a->after_month - c->savings_month;
  a->consolidation = c;
  return RS_OK;
}
