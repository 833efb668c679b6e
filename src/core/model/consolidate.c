/* Consolidation: packing endpoints that may share hardware onto shared
 * instances, as behind one model gateway (audit.h, docs/model.md).
 *
 * For each candidate shape T, the endpoints that fit T on their own with one
 * device's worth of load are packed first-fit decreasing onto T's devices. A
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

/* What one endpoint brings to a device of shape T. */
/* The cost an endpoint has when sized on its own. */
static double alone(const rs_audit_row *r) { return r->after_month; }

typedef struct item {
  size_t row;
  const rs_candidate *on; /* the endpoint's own fit on T */
  double lambda, busy, hold, cs2, service_q_ms, slo_ms, q;
  double s50_s; /* median of the endpoint's own (lognormal) service latency */
  double mem, host_cpu, host_mem;
  double size; /* for the decreasing order */
} item;

#define PER_DEVICE 64 /* endpoints one device may take */

typedef struct device {
  double mem, util;      /* bytes incl. headroom; busy fraction */
  double lambda, h1, h2; /* sums of lambda, lambda x hold, lambda x E[hold^2] */
  size_t *items;         /* indexes into the item array */
  size_t n;
} device;

static const rs_candidate *candidate_on(const rs_fit_result *f, const rs_instance *shape) {
  for (size_t i = 0; i < f->nfitting; i++)
    if (f->fitting[i].inst == shape)
      return &f->fitting[i];
  return NULL;
}

static bool make_item(item *it, const rs_audit *a, size_t row, const rs_instance *shape,
                      double max_util) {
  const rs_audit_row *r = &a->rows[row];
  const rs_candidate *c = candidate_on(r->fit, shape);
  const rs_demand *d = &r->fit->demand;
  if (c == NULL || c->devices_per_server != 1 || !(shape->accelerator_count >= 1))
    return false;
  it->row = row;
  it->on = c;
  it->lambda = d->design_peak;
  it->busy = c->service_s;
  it->hold = c->queue_s;
  it->cs2 = c->cs2;
  it->service_q_ms = c->service_q_ms;
  it->slo_ms = d->slo_ms;
  it->q = d->slo_quantile;
  it->s50_s = c->service_q_ms / 1e3 / exp(sqrt(log1p(c->cs2)) * rs_normal_quantile(it->q));
  it->mem = d->mem_need_head;
  it->host_cpu = d->cpu_known ? d->cpu_base_vcpus + d->design_peak * d->cpu_vcpu_s_per_req : 0;
  it->host_mem = isnan(c->host_mem_need) ? 0 : c->host_mem_need;
  double dev_mem = shape->accelerator_memory_bytes;
  /* one device must carry the whole endpoint */
  if (!(it->lambda * it->busy <= max_util) || !(it->mem <= dev_mem))
    return false;
  it->size = fmax(it->mem / dev_mem, it->lambda * it->busy / max_util);
  return true;
}

static void device_init(device *dv) {
  size_t *items = dv->items;
  memset(dv, 0, sizeof(*dv));
  dv->items = items;
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

/* Would the device meet every constraint of every endpoint with it added? */
static bool device_fits(const device *dv, const item *items, const item *it, double dev_mem,
                        double max_util) {
  if (dv->n >= PER_DEVICE || dv->mem + it->mem > dev_mem ||
      dv->util + it->lambda * it->busy > max_util)
    return false;
  double lambda = dv->lambda + it->lambda, h1 = dv->h1 + it->lambda * it->hold;
  double h2 = dv->h2 + it->lambda * it->hold * it->hold * (1.0 + it->cs2);
  bool queue = lambda > 0 && h1 > 0; /* else no wait: the service latency alone */
  rs_queue qu = queue ? shared_queue(lambda, h1, h2) : (rs_queue){1, 0, 1, 1, 1};
  for (size_t j = 0; j <= dv->n; j++) {
    const item *e = j < dv->n ? &items[dv->items[j]] : it;
    if (queue ? !meets_slo(&qu, e) : !(e->service_q_ms <= e->slo_ms))
      return false;
  }
  return true;
}

static void device_add(device *dv, const item *items, size_t i) {
  const item *it = &items[i];
  dv->items[dv->n++] = i;
  dv->mem += it->mem;
  dv->util += it->lambda * it->busy;
  dv->lambda += it->lambda;
  dv->h1 += it->lambda * it->hold;
  dv->h2 += it->lambda * it->hold * it->hold * (1.0 + it->cs2);
}

static int cmp_size(const void *pa, const void *pb) {
  const item *a = pa, *b = pb;
  if (a->size != b->size)
    return a->size > b->size ? -1 : 1;
  return a->row < b->row ? -1 : a->row > b->row;
}

typedef struct plan {
  device *devices;
  size_t ndevices, cap;
  unsigned per_instance;
  double *inst_cpu, *inst_mem;
  unsigned *inst_count; /* endpoints per instance */
  size_t *slots;
} plan;

static bool plan_alloc(plan *pl, size_t n, unsigned per_instance) {
  memset(pl, 0, sizeof(*pl));
  pl->per_instance = per_instance;
  pl->cap = (n ? n : 1) * per_instance; /* enough even with one device per instance */
  pl->devices = calloc(pl->cap, sizeof(*pl->devices));
  pl->inst_cpu = calloc(pl->cap, sizeof(double));
  pl->inst_mem = calloc(pl->cap, sizeof(double));
  pl->inst_count = calloc(pl->cap, sizeof(unsigned));
  pl->slots = calloc(pl->cap, sizeof(size_t[PER_DEVICE]));
  if (!pl->devices || !pl->inst_cpu || !pl->inst_mem || !pl->inst_count || !pl->slots)
    return false;
  for (size_t d = 0; d < pl->cap; d++) {
    pl->devices[d].items = pl->slots + d * PER_DEVICE;
    device_init(&pl->devices[d]);
  }
  return true;
}

static void plan_free(plan *pl) {
  free(pl->devices);
  free(pl->inst_cpu);
  free(pl->inst_mem);
  free(pl->inst_count);
  free(pl->slots);
  memset(pl, 0, sizeof(*pl));
}

/* First-fit decreasing of items onto devices of shape. */
static void pack(plan *pl, const item *items, size_t n, const rs_instance *shape, double max_util,
                 unsigned max_per_instance) {
  double dev_mem = shape->accelerator_memory_bytes;
  double vcpus = isnan(shape->vcpus) ? INFINITY : shape->vcpus;
  double host = isnan(shape->memory_bytes) ? INFINITY : shape->memory_bytes;
  for (size_t i = 0; i < n; i++) {
    size_t d;
    for (d = 0; d < pl->ndevices; d++) {
      size_t inst = d / pl->per_instance;
      if (pl->inst_count[inst] < max_per_instance &&
          pl->inst_cpu[inst] + items[i].host_cpu <= max_util * vcpus &&
          pl->inst_mem[inst] + items[i].host_mem <= host &&
          device_fits(&pl->devices[d], items, &items[i], dev_mem, max_util))
        break;
    }
    if (d == pl->ndevices) {
      /* a fresh device, on a fresh instance when this one's host is full */
      size_t inst = d / pl->per_instance;
      if (d % pl->per_instance != 0 && (pl->inst_count[inst] >= max_per_instance ||
                                        pl->inst_cpu[inst] + items[i].host_cpu > max_util * vcpus ||
                                        pl->inst_mem[inst] + items[i].host_mem > host))
        d = (inst + 1) * pl->per_instance;
      pl->ndevices = d + 1;
    }
    device_add(&pl->devices[d], items, i);
    pl->inst_cpu[d / pl->per_instance] += items[i].host_cpu;
    pl->inst_mem[d / pl->per_instance] += items[i].host_mem;
    pl->inst_count[d / pl->per_instance]++;
  }
}

/* The instance of the plan that saves the most against its endpoints
 * sized one by one (at least two endpoints); SIZE_MAX when none saves. */
static size_t best_instance(const plan *pl, const item *items, const rs_audit *a, double price,
                            double *saving) {
  size_t ninst = (pl->ndevices + pl->per_instance - 1) / pl->per_instance, best = SIZE_MAX;
  *saving = 0;
  for (size_t k = 0; k < ninst; k++) {
    double base = 0;
    size_t count = 0;
    for (size_t d = k * pl->per_instance; d < pl->ndevices && d < (k + 1) * pl->per_instance; d++)
      for (size_t j = 0; j < pl->devices[d].n; j++) {
        base += alone(&a->rows[items[pl->devices[d].items[j]].row]);
        count++;
      }
    if (count >= 2 && base - price > *saving + 1e-9) {
      *saving = base - price;
      best = k;
    }
  }
  return best;
}

/* Records instance k of the plan as a packed instance. */
static rs_status keep(rs_packed_instance *pi, rs_arena *arena, const plan *pl, size_t k,
                      const item *items) {
  size_t count = 0;
  memset(pi, 0, sizeof(*pi));
  for (size_t d = k * pl->per_instance; d < pl->ndevices && d < (k + 1) * pl->per_instance; d++)
    count += pl->devices[d].n;
  pi->endpoints = rs_arena_alloc_array(arena, count, sizeof(*pi->endpoints));
  if (pi->endpoints == NULL)
    return RS_NOMEM;
  pi->host_cpu = pl->inst_cpu[k];
  pi->host_mem = pl->inst_mem[k];
  for (size_t d = k * pl->per_instance; d < pl->ndevices && d < (k + 1) * pl->per_instance; d++) {
    const device *dv = &pl->devices[d];
    unsigned dev = (unsigned)(d - k * pl->per_instance);
    if (dv->n)
      pi->devices_used = dev + 1;
    pi->mem_used[dev] = dv->mem;
    pi->util[dev] = dv->util;
    for (size_t j = 0; j < dv->n; j++) {
      const item *it = &items[dv->items[j]];
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
  return r->ok && r->fit->nfitting > 0 && isfinite(r->after_month);
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

rs_status rs_audit_consolidate(rs_audit *a, rs_arena *arena, const rs_audit_options *opts,
                               rs_error *err) {
  const rs_catalog *cat = opts->pipeline->catalog;
  double max_util = opts->pipeline->fit.max_util;
  size_t n_rows = a->nrows ? a->nrows : 1;
  bool *taken = rs_arena_alloc_array(arena, n_rows, sizeof(bool));
  item *items = rs_malloc_array(n_rows, sizeof(*items));
  item *best_items = rs_malloc_array(n_rows, sizeof(*items));
  rs_consolidation *c = rs_arena_alloc(arena, sizeof(*c));
  rs_packed_instance *inst = rs_arena_alloc_array(arena, n_rows, sizeof(*inst));
  size_t ninst = 0;
  rs_status st = RS_OK;
  if (!taken || !items || !best_items || !c || !inst) {
    free(items);
    free(best_items);
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory while consolidating");
  }
  memset(c, 0, sizeof(*c));
  /* Greedy: each round packs the endpoints left onto every shape and keeps
   * the one shared instance that saves the most. */
  const rs_instance **inst_shape = rs_arena_alloc_array(arena, n_rows, sizeof(*inst_shape));
  if (inst_shape == NULL)
    st = RS_NOMEM;
  while (st == RS_OK) {
    const rs_instance *best_shape = NULL;
    plan best_plan = {0};
    size_t best_k = SIZE_MAX;
    double best_saving = 0;
    for (size_t s = 0; s < cat->ninstances && st == RS_OK; s++) {
      const rs_instance *shape = &cat->instances[s];
      size_t n = 0;
      if (shape->accelerator == NULL || isnan(shape->price_usd_per_hour) ||
          !(shape->accelerator_count >= 1))
        continue;
      for (size_t r = 0; r < a->nrows; r++) {
        device empty;
        size_t none[1];
        empty.items = none;
        device_init(&empty);
        if (!taken[r] && shareable(&a->rows[r]) && make_item(&items[n], a, r, shape, max_util) &&
            device_fits(&empty, items, &items[n], shape->accelerator_memory_bytes, max_util) &&
            items[n].host_cpu <= max_util * (isnan(shape->vcpus) ? INFINITY : shape->vcpus) &&
            items[n].host_mem <= (isnan(shape->memory_bytes) ? INFINITY : shape->memory_bytes))
          n++;
      }
      if (n < 2)
        continue;
      qsort(items, n, sizeof(*items), cmp_size);
      plan pl;
      if (!plan_alloc(&pl, n, (unsigned)shape->accelerator_count)) {
        plan_free(&pl);
        st = RS_NOMEM;
        break;
      }
      pack(&pl, items, n, shape, max_util,
           opts->max_per_instance ? opts->max_per_instance : UINT_MAX);
      double saving;
      size_t k =
          best_instance(&pl, items, a, shape->price_usd_per_hour * RS_FIT_HOURS_PER_MONTH, &saving);
      if (k != SIZE_MAX && saving > best_saving + 1e-9) {
        plan_free(&best_plan);
        best_plan = pl;
        best_k = k;
        best_shape = shape;
        best_saving = saving;
        memcpy(best_items, items, n * sizeof(*items));
      } else {
        plan_free(&pl);
      }
    }
    if (st != RS_OK || best_shape == NULL) {
      plan_free(&best_plan);
      break;
    }
    st = keep(&inst[ninst], arena, &best_plan, best_k, best_items);
    plan_free(&best_plan);
    if (st != RS_OK)
      break;
    for (size_t j = 0; j < inst[ninst].nendpoints; j++)
      taken[inst[ninst].endpoints[j].row] = true;
    inst_shape[ninst++] = best_shape;
  }
  free(items);
  free(best_items);
  /* Group the chosen instances by shape, in the order shapes were first chosen. */
  c->packings =
      st == RS_OK ? rs_arena_alloc_array(arena, ninst ? ninst : 1, sizeof(*c->packings)) : NULL;
  if (st == RS_OK && c->packings == NULL)
    st = RS_NOMEM;
  for (size_t i = 0; st == RS_OK && i < ninst; i++) {
    rs_packing *p = packing_for(c, inst_shape[i], ninst);
    if (p->instances == NULL) {
      size_t count = 0;
      for (size_t j = i; j < ninst; j++)
        count += inst_shape[j] == inst_shape[i];
      p->instances = rs_arena_alloc_array(arena, count, sizeof(*p->instances));
      if (p->instances == NULL) {
        st = RS_NOMEM;
        break;
      }
    }
    p->instances[p->ninstances++] = inst[i];
    p->instance_month = inst_shape[i]->price_usd_per_hour * RS_FIT_HOURS_PER_MONTH;
    p->month += p->instance_month;
    for (size_t j = 0; j < inst[i].nendpoints; j++)
      p->baseline_month += alone(&a->rows[inst[i].endpoints[j].row]);
  }
  for (size_t i = 0; st == RS_OK && i < c->npackings; i++) {
    c->month += c->packings[i].month;
    c->baseline_month += c->packings[i].baseline_month;
    for (size_t k = 0; k < c->packings[i].ninstances; k++)
      c->packed += c->packings[i].instances[k].nendpoints;
  }
  if (st != RS_OK)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory while consolidating");
  c->savings_month = c->baseline_month - c->month;
  c->fleet_month = a->after_month - c->savings_month;
  a->consolidation = c;
  return RS_OK;
}
