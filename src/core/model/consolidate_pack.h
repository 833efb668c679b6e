/* Packing endpoints onto the devices of one shape (consolidate_pack.c),
 * for the rounds of consolidate.c. Private to core. */
#ifndef RIGHTSIZE_CONSOLIDATE_PACK_H
#define RIGHTSIZE_CONSOLIDATE_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "queue.h"
#include "rightsize/audit.h"

#define PER_DEVICE 64 /* endpoints one device may take */
#define NONE SIZE_MAX

/* The cost an endpoint has when sized on its own. */
static inline double rs_pack_alone(const rs_audit_row *r) { return r->after_month; }

/* What one endpoint brings to a device of one shape. */
typedef struct rs_pack_item {
  size_t row;
  double lambda, busy, hold, cs2, service_q_ms, slo_ms, q;
  double s50_s; /* median of the endpoint's own (lognormal) service latency */
  double mem, host_cpu, host_mem;
  double size; /* for the decreasing order */
  size_t kind; /* the first item (in plan order) whose latency figures are the same */
} rs_pack_item;

typedef struct rs_pack_device {
  double mem, util;             /* bytes incl. headroom; busy fraction */
  double lambda, h1, h2;        /* sums of lambda, lambda x hold, lambda x E[hold^2] */
  size_t first, last;           /* its items, linked through plan.next */
  size_t first_kind, last_kind; /* one item per kind on it, linked through plan.next_kind */
  size_t n;
  unsigned rejects;          /* items refused in a row */
  size_t refused, refused_n; /* the twin it last refused on latency, and its n then */
} rs_pack_device;

/* The constraints of one shape. */
typedef struct rs_pack_caps {
  double dev_mem, max_util, vcpus, host;
  unsigned per_instance, max_per_instance;
} rs_pack_caps;

/* The answers of the latency checks already made, keyed by every figure
 * they read, bit for bit: the shared queue's sums (lambda, h1, h2) and the
 * endpoint's latency figures (s50_s, cs2, slo_ms, q, service_q_ms). Packing
 * a fleet of many alike endpoints makes the same check again and again (on
 * the next device, in the other strategy, in the next round), and each is an
 * integral over the wait's tail (rs_queue_response_tail): a lookup gives the
 * same answer. A direct-mapped table of 65,536 slots (5 MiB, allocated on
 * first use): a key takes over the slot it hashes to. Where fewer than a
 * quarter of 65,536 lookups find their key it turns itself off. One per
 * rs_audit_consolidate; NULL where none is kept. */
typedef struct rs_pack_memo_slot {
  uint64_t key[8];
  double latency_ms;   /* the endpoint's latency at its SLO quantile, when known */
  unsigned char state; /* RS_PACK_MEMO_* bits; 0: an empty slot */
} rs_pack_memo_slot;

typedef struct rs_pack_memo {
  rs_pack_memo_slot *v;
  size_t cap, n;        /* slots (0 until first used), slots ever filled */
  size_t lookups, hits; /* a hit: the key was there */
  bool off;             /* too few hits to pay for the lookups */
} rs_pack_memo;

/* Frees what the memo holds and zeroes it; NULL is a no-op. */
void rs_pack_memo_free(rs_pack_memo *m);

/* One shape's items, packed. */
typedef struct rs_pack_plan {
  const rs_instance *shape;
  rs_pack_caps caps;
  rs_pack_item *items; /* sorted largest first */
  size_t nitems;
  size_t *next;      /* per item: the next item on its device; NONE last */
  size_t *next_kind; /* per item heading its kind on a device: the next kind's */
  size_t *twin;      /* per item: the first of the items before it with all the same figures */
  rs_pack_device *devices;
  size_t ndevices, cap;
  double *inst_cpu, *inst_mem;
  unsigned *inst_count;
  bool *kept;         /* per instance: chosen for the result */
  unsigned strategy;  /* how the items were packed (consolidate_pack.c) */
  rs_pack_memo *memo; /* borrowed; may be NULL */
  double saving;      /* of the instances worth keeping */
} rs_pack_plan;

/* Instances the plan's devices fill. */
size_t rs_pack_instances(const rs_pack_plan *pl);
/* Frees what the plan holds and zeroes it. */
void rs_pack_free(rs_pack_plan *pl);
/* The plan of shape over the rows not taken that may share it (list, in
 * row order, with each one's share of shape), packed first-fit decreasing
 * and by minimum bin slack, the one that saves more kept, and evaluated
 * (kept instances and saving). false: out of memory (*pl may hold a part:
 * rs_pack_free it). */
bool rs_pack_build(rs_pack_plan *pl, const rs_audit *a, const rs_instance *shape,
                   const size_t *list, const rs_audit_share *const *shares, size_t nlist,
                   const bool *taken, double max_util, unsigned max_per_instance,
                   rs_pack_memo *memo);
/* Whether instance inst's host takes the item. */
bool rs_pack_host_takes(const rs_pack_plan *pl, size_t inst, const rs_pack_item *it);
/* Whether the device meets every constraint of every endpoint on it with it
 * added; memo (may be NULL) answers the latency checks made before. */
bool rs_pack_device_fits(const rs_pack_device *dv, const rs_pack_item *items,
                         const size_t *next_kind, const rs_pack_item *it, double dev_mem,
                         double max_util, rs_pack_memo *memo);
/* One FCFS server carrying these sums (lambda, lambda x hold, lambda x
 * E[hold^2]): the mix of the endpoints' hold times as one M/G/1 queue. */
rs_queue rs_pack_shared_queue(double lambda, double h1, double h2);
/* Whether the endpoint meets its SLO behind the queue: P(R > SLO) <= 1 -
 * q (rs_queue_response_tail). With ceiling, an upper bound on that tail at
 * the cost of one wait tail decides first where it is under 1 - q: the same
 * answer, cheaper (consolidate_pack.c). */
bool rs_pack_meets_slo(const rs_queue *qu, const rs_pack_item *it, bool ceiling);
/* For benchmarks and tests (bench/consolidate.c --no-ceiling): true, every
 * check evaluates the tail, the packing as it was before the ceiling. */
extern bool rs_pack_no_ceiling;
/* That upper bound on rs_queue_response_tail for the endpoint behind qu
 * (INFINITY where it finds none), for tests. */
double rs_pack_tail_ceiling(const rs_queue *qu, const rs_pack_item *it);
/* Puts item i on the device (no check): its lists (next; next_kind when a
 * new kind on it) and its sums. */
void rs_pack_device_add(rs_pack_device *dv, size_t *next, size_t *next_kind,
                        const rs_pack_item *items, size_t i);
/* Puts item i on device d of the plan (no check). */
void rs_pack_place(rs_pack_plan *pl, size_t d, size_t i);
/* Records instance k of the plan as a packed instance, in arena. RS_NOMEM only. */
rs_status rs_pack_keep(rs_packed_instance *pi, rs_arena *arena, const rs_pack_plan *pl, size_t k);

#endif
