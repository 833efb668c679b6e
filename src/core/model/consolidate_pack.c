/* Packing the endpoints that may share one shape onto its devices
 * (consolidate_pack.h): what each endpoint brings to a device, the checks a
 * device makes before it takes one (memory with headroom, the utilization
 * ceiling, every endpoint's SLO behind the shared queue, the host's CPU and
 * memory), and two packings, first-fit decreasing and a bounded minimum bin
 * slack, of which the one saving more is kept (docs/model.md,
 * "Consolidation"). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "consolidate_pack.h"
#include "queue.h"

#define REJECT_MAX 64 /* items in a row a device refuses on latency before it is closed */
/* Ways to pack a shape, each tried, the best kept: 0 first fit decreasing,
 * 1 minimum bin slack (pack_mbs). */
#define STRATEGIES 2
#define MBS_CHECKS 48   /* latency checks one device's search may spend */
#define MBS_PROBES 4096 /* items one device's search may look at */
#define MEMO_SLO 1u     /* rs_pack_memo_slot.state: the SLO check is known */
#define MEMO_OK 2u      /* ... and met */
#define MEMO_LATENCY 4u /* latency_ms is known */
#define MEMO_USED 8u
#define MEMO_SLOTS ((size_t)1 << 16) /* 5 MiB */

typedef rs_pack_item item;
typedef rs_pack_device device;
typedef rs_pack_caps shape_caps;
typedef rs_pack_plan plan;

size_t rs_pack_instances(const plan *pl) {
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

void rs_pack_memo_free(rs_pack_memo *m) {
  if (m == NULL)
    return;
  free(m->v);
  memset(m, 0, sizeof(*m));
}

static uint64_t bits_of(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof(u));
  return u;
}

static uint64_t memo_hash(const uint64_t key[8]) {
  uint64_t h = 0x9e3779b97f4a7c15u;
  for (int k = 0; k < 8; k++) {
    h = (h ^ key[k]) * 0xff51afd7ed558ccdu;
    h ^= h >> 32;
  }
  return h;
}

/* The memo's slot for an endpoint's checks behind a queue with these sums:
 * the one slot its key hashes to (a direct-mapped cache: a new key takes the
 * slot over, nothing known yet); NULL without a memo, or when its table
 * cannot be allocated (the caller then evaluates without it). */
static rs_pack_memo_slot *memo_slot(rs_pack_memo *m, double lambda, double h1, double h2,
                                    const rs_pack_item *it) {
  if (m == NULL || m->off)
    return NULL;
  if (m->v == NULL && (m->v = calloc(MEMO_SLOTS, sizeof(*m->v))) == NULL)
    return NULL;
  /* A lookup costs about a tenth of an evaluation: where fewer than a
   * quarter of the checks come again (endpoints that all differ), the memo
   * is turned off. */
  if (++m->lookups % MEMO_SLOTS == 0 && m->hits < m->lookups / 4)
    m->off = true;
  m->cap = MEMO_SLOTS;
  uint64_t key[8] = {
      bits_of(lambda),  bits_of(h1),         bits_of(h2),    bits_of(it->s50_s),
      bits_of(it->cs2), bits_of(it->slo_ms), bits_of(it->q), bits_of(it->service_q_ms)};
  rs_pack_memo_slot *sl = &m->v[memo_hash(key) & (MEMO_SLOTS - 1)];
  if (sl->state != 0 && memcmp(sl->key, key, sizeof(key)) == 0)
    m->hits++;
  else {
    m->n += sl->state == 0;
    memcpy(sl->key, key, sizeof(key));
    sl->state = MEMO_USED;
  }
  return sl;
}

/* One FCFS server carrying these sums: the mix of the endpoints' hold times
 * as one M/G/1 queue (Allen-Cunneen mean, the hold mix's own cs2). */
rs_queue rs_pack_shared_queue(double lambda, double h1, double h2) {
  double mean = h1 / lambda, second = h2 / lambda;
  rs_queue qu = {1, lambda, mean, 1.0, fmax(second / (mean * mean) - 1.0, 0.0)};
  return qu;
}

/* The endpoint's latency at its SLO quantile on such a server: its own
 * service time plus the shared wait, the quantile of the sum. */
static double latency_ms(double lambda, double h1, double h2, const item *it, rs_pack_memo *memo) {
  if (!(lambda > 0) || !(h1 > 0))
    return it->service_q_ms;
  rs_pack_memo_slot *sl = memo_slot(memo, lambda, h1, h2, it);
  if (sl != NULL && (sl->state & MEMO_LATENCY))
    return sl->latency_ms;
  rs_queue qu = rs_pack_shared_queue(lambda, h1, h2);
  double r = rs_queue_response_quantile(&qu, it->s50_s, it->cs2, it->q);
  r = isnan(r) ? it->service_q_ms + rs_queue_wait_quantile(&qu, it->q) * 1e3 : r * 1e3;
  if (sl != NULL) {
    sl->latency_ms = r;
    sl->state |= MEMO_LATENCY;
  }
  return r;
}

/* The grid of queue.c's response tail (response_tail_n): nodes from
 * z = -ZLO to top = min(z(t), ZTOP) under z = top - span v^3, Simpson's
 * weights. tail_ceiling bounds that sum and test_consolidate checks it
 * against rs_queue_response_tail on random queues, so a change of grid there
 * shows as a failing test, not as a changed decision. */
#define ZLO 6.5
#define ZTOP 6.5
#define CEIL_REL 1e-6  /* slack for the rounding of the tail's terms (about 1e-13 of each) */
#define CEIL_ABS 1e-12 /* ... and for the absolute error of 1 - P in its gamma series */

/* An upper bound on rs_queue_response_tail(qu, s50, cs2, slo) as computed,
 * at the cost of one wait tail instead of forty (INFINITY where none is
 * found). That tail is P(S > t) plus p_wait h/3/sqrt(2 pi) times the sum over
 * nodes z_i <= top of wt_i 3 span v_i^2 e^(-z_i^2/2) Q(a, x_i), with x_i
 * growing as z_i falls (x_i = (t - s50 e^(sigma z_i)) a / mean). Simpson's
 * rule integrates 3 span v^2 exactly, so the weights h/3 wt_i 3 span v_i^2
 * sum to span, and e^(-z^2/2) / sqrt(2 pi) <= phi(max(z*, 0)) above any z*.
 * Split at z*: the nodes above it take Q <= 1 and p_wait <= 1; those at or
 * below it take p_wait Q(a, x_i) <= p_wait Q(a, x*) = P(W > t - s*), s* =
 * s50 e^(sigma z*), and phi <= phi(0):
 *   tail <= P(S > t) + span phi(max(z*, 0)) + span phi(0) P(W > t - s*).
 * z* puts the second term at a quarter of the budget 1 - q. P(W > d) is
 * rs_queue_response_tail with a point service time (s_cs2 = 0: no
 * integral, the wait's tail at t - s50), taken a little short of t - s*
 * (the tail grows as d falls). */
static double tail_ceiling(const rs_queue *qu, const item *it) {
  double t = it->slo_ms / 1e3, s50 = it->s50_s, budget = 1.0 - it->q;
  double sigma = sqrt(log1p(it->cs2));
  if (!(sigma > 0) || !isfinite(sigma) || !(s50 > 0) || !isfinite(s50) || !(t > 0) ||
      !isfinite(t) || !(budget > 0))
    return INFINITY;
  double zt = log(t / s50) / sigma, top = fmin(zt, ZTOP), span = fmax(top + ZLO, 0.0);
  double above = 0.5 * erfc(zt / sqrt(2.0));
  const double phi0 = 0.3989422804014327; /* 1 / sqrt(2 pi) */
  double g = 4 * span * phi0 / budget, zs = g > 1 ? sqrt(2 * log(g)) : 0.0;
  zs = fmin(zs, top);
  double s = s50 * exp(sigma * zs) * (1 + 1e-9), d = t - s;
  if (!(d > 0))
    return INFINITY;
  /* 1 also stands for an unstable queue, whose tail is that edge value,
   * not the sum: no ceiling then */
  double wait = rs_queue_response_tail(qu, d * 1e-9, 0.0, d);
  if (!(wait >= 0) || !(wait < 1))
    return INFINITY;
  double zp = fmax(zs, 0.0);
  double ceil = above + span * phi0 * exp(-zp * zp / 2) + span * phi0 * wait;
  return ceil * (1 + CEIL_REL) + CEIL_ABS;
}

double rs_pack_tail_ceiling(const rs_queue *qu, const item *it) { return tail_ceiling(qu, it); }

bool rs_pack_no_ceiling = false;

/* Whether the endpoint meets its SLO on such a server: P(R > SLO) <= 1 - q,
 * one evaluation of the tail instead of a quantile search; with ceiling,
 * tail_ceiling first, which answers most met checks (the same answer: the
 * tail is at most the ceiling). */

bool rs_pack_meets_slo(const rs_queue *qu, const item *it, bool ceiling) {
  if (ceiling && !rs_pack_no_ceiling && tail_ceiling(qu, it) <= 1.0 - it->q)
    return true;
  double tail = rs_queue_response_tail(qu, it->s50_s, it->cs2, it->slo_ms / 1e3);
  if (isnan(tail)) /* no service latency to combine: the wait alone, as before */
    return it->service_q_ms + rs_queue_wait_quantile(qu, it->q) * 1e3 <= it->slo_ms;
  return tail <= 1.0 - it->q;
}

/* rs_pack_meets_slo, answered by the memo when it holds the check. */
static bool meets_slo_memo(rs_pack_memo *memo, const rs_queue *qu, double lambda, double h1,
                           double h2, const item *it) {
  rs_pack_memo_slot *sl = memo_slot(memo, lambda, h1, h2, it);
  if (sl != NULL && (sl->state & MEMO_SLO))
    return (sl->state & MEMO_OK) != 0;
  bool ok = rs_pack_meets_slo(qu, it, true);
  if (sl != NULL)
    sl->state |= MEMO_SLO | (ok ? MEMO_OK : 0);
  return ok;
}

/* Would the device meet every constraint of every endpoint with it added?
 * The SLO check of an endpoint depends on the shared queue and on its own
 * latency figures alone, so endpoints of one kind (the same figures) are
 * checked once: the device keeps one of each kind. The new endpoint is
 * checked first (the one that fails most often; the answer, all of them met,
 * is the same in any order), then each kind on the device but its own. */
bool rs_pack_device_fits(const device *dv, const item *items, const size_t *next_kind,
                         const item *it, double dev_mem, double max_util, rs_pack_memo *memo) {
  if (dv->n >= PER_DEVICE || dv->mem + it->mem > dev_mem ||
      dv->util + it->lambda * it->busy > max_util)
    return false;
  double lambda = dv->lambda + it->lambda, h1 = dv->h1 + it->lambda * it->hold;
  double h2 = dv->h2 + it->lambda * it->hold * it->hold * (1.0 + it->cs2);
  if (!(lambda > 0 && h1 > 0)) { /* no wait: the service latency alone */
    if (!(it->service_q_ms <= it->slo_ms))
      return false;
    for (size_t j = dv->n ? dv->first_kind : NONE; j != NONE; j = next_kind[j])
      if (!(items[j].service_q_ms <= items[j].slo_ms))
        return false;
    return true;
  }
  rs_queue qu = rs_pack_shared_queue(lambda, h1, h2);
  if (!meets_slo_memo(memo, &qu, lambda, h1, h2, it))
    return false;
  for (size_t j = dv->n ? dv->first_kind : NONE; j != NONE; j = next_kind[j])
    if (items[j].kind != it->kind && !meets_slo_memo(memo, &qu, lambda, h1, h2, &items[j]))
      return false;
  return true;
}

/* Whether the endpoint fits an empty device and host of the shape. */
static bool fits_alone(const item *it, const shape_caps *k) {
  device empty = {.first = NONE, .last = NONE, .first_kind = NONE, .last_kind = NONE};
  return rs_pack_device_fits(&empty, NULL, NULL, it, k->dev_mem, k->max_util, NULL) &&
         it->host_cpu <= k->max_util * k->vcpus && it->host_mem <= k->host;
}

void rs_pack_device_add(device *dv, size_t *next, size_t *next_kind, const item *items, size_t i) {
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

void rs_pack_free(plan *pl) {
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
bool rs_pack_host_takes(const plan *pl, size_t inst, const item *it) {
  return pl->inst_count[inst] < pl->caps.max_per_instance &&
         pl->inst_cpu[inst] + it->host_cpu <= pl->caps.max_util * pl->caps.vcpus &&
         pl->inst_mem[inst] + it->host_mem <= pl->caps.host;
}

void rs_pack_place(plan *pl, size_t d, size_t i) {
  size_t inst = d / pl->caps.per_instance;
  rs_pack_device_add(&pl->devices[d], pl->next, pl->next_kind, pl->items, i);
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
         rs_pack_host_takes(pl, c / pl->caps.per_instance, it);
}

/* The first open device that takes it (every constraint); NONE when none
 * does. A device with room that fails the latency check counts a reject. */
static size_t first_fit(plan *pl, const size_t *open, size_t nopen, size_t i) {
  const shape_caps *k = &pl->caps;
  const item *it = &pl->items[i];
  for (size_t o = 0; o < nopen; o++) {
    size_t c = open[o];
    device *dv = &pl->devices[c];
    if (!rs_pack_host_takes(pl, c / k->per_instance, it))
      continue;
    if (dv->refused == pl->twin[i] && dv->refused_n == dv->n)
      continue; /* its twin failed the same check on the device as it is */
    if (rs_pack_device_fits(dv, pl->items, pl->next_kind, it, k->dev_mem, k->max_util, pl->memo))
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
      if (d % k->per_instance != 0 && !rs_pack_host_takes(pl, inst, it))
        d = (inst + 1) * k->per_instance;
      if (!(ok = plan_reserve(pl, d + 1)))
        break;
      for (size_t e = pl->ndevices; e <= d; e++)
        open[nopen++] = e; /* a skipped device stays empty; it is closed below */
      pl->ndevices = d + 1;
    }
    rs_pack_place(pl, d, i);
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
    if (!rs_pack_device_fits(dv, pl->items, pl->next_kind, it, k->dev_mem, k->max_util, pl->memo))
      continue;
    saved sv = {*dv, pl->inst_cpu[inst], pl->inst_mem[inst], pl->inst_count[inst]};
    rs_pack_place(pl, m->d, j);
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
    if (d % k->per_instance != 0 && !rs_pack_host_takes(pl, inst, it))
      d = (inst + 1) * k->per_instance; /* a fresh instance */
    if (!(ok = plan_reserve(pl, d + 1)))
      break;
    pl->ndevices = d + 1;
    rs_pack_place(pl, d, first);
    m.up[first] = first + 1;
    m.d = d;
    m.ncur = m.nbest = 0;
    m.best_fill = fill_of(&pl->devices[d], k);
    m.checks = MBS_CHECKS;
    m.probes = MBS_PROBES;
    mbs_search(&m, first + 1);
    for (size_t b = 0; b < m.nbest; b++) {
      rs_pack_place(pl, d, m.best[b]);
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
  size_t ninst = rs_pack_instances(pl);
  pl->saving = 0;
  for (size_t k = 0; k < ninst; k++) {
    double base = 0;
    size_t count = 0;
    for (size_t d = k * pl->caps.per_instance;
         d < pl->ndevices && d < (k + 1) * pl->caps.per_instance; d++)
      for (size_t j = pl->devices[d].n ? pl->devices[d].first : NONE; j != NONE; j = pl->next[j]) {
        base += rs_pack_alone(&a->rows[pl->items[j].row]);
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
                          double max_util, unsigned max_per_instance, unsigned strategy,
                          rs_pack_memo *memo) {
  memset(pl, 0, sizeof(*pl));
  pl->memo = memo;
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
bool rs_pack_build(plan *pl, const rs_audit *a, const rs_instance *shape, const size_t *list,
                   const rs_audit_share *const *shares, size_t nlist, const bool *taken,
                   double max_util, unsigned max_per_instance, rs_pack_memo *memo) {
  if (!plan_build_as(pl, a, shape, list, shares, nlist, taken, max_util, max_per_instance, 0, memo))
    return false;
  for (unsigned s = 1; s < STRATEGIES && pl->nitems >= 2; s++) {
    plan other;
    if (!plan_build_as(&other, a, shape, list, shares, nlist, taken, max_util, max_per_instance, s,
                       memo)) {
      rs_pack_free(&other);
      return false;
    }
    if (other.saving > pl->saving + 1e-9) {
      rs_pack_free(pl);
      *pl = other;
    } else {
      rs_pack_free(&other);
    }
  }
  return true;
}

/* Records instance k of the plan as a packed instance. */
rs_status rs_pack_keep(rs_packed_instance *pi, rs_arena *arena, const plan *pl, size_t k) {
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
      pe->latency_ms = latency_ms(dv->lambda, dv->h1, dv->h2, it, pl->memo);
      pe->slo_ms = it->slo_ms;
      pe->slo_quantile = it->q;
    }
  }
  return RS_OK;
}
