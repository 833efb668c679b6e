/* Shared by the cmocka test programs: a fresh arena per test, a fixed-seed
 * random generator and a double comparator. Include after <cmocka.h>. */
#ifndef RS_TEST_SUPPORT_H
#define RS_TEST_SUPPORT_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "rightsize/arena.h"

/* cmocka setup/teardown: *state is a fresh rs_arena. */
static inline int setup_arena(void **state) {
  rs_arena *arena = malloc(sizeof(*arena));
  if (arena == NULL)
    return -1;
  rs_arena_init(arena, 0);
  *state = arena;
  return 0;
}

static inline int teardown_arena(void **state) {
  rs_arena_release(*state);
  free(*state);
  return 0;
}

typedef struct rng {
  uint64_t s;
} rng;

/* splitmix64: a fixed-seed generator so every run sees the same values. */
static inline uint64_t rng_next(rng *r) {
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Uniform in (0, 1). */
static inline double rng_uniform(rng *r) {
  return ((double)(rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

/* Standard normal (Box-Muller). */
static inline double rng_normal(rng *r) {
  double u = rng_uniform(r), v = rng_uniform(r);
  return sqrt(-2.0 * log(u)) * cos(2.0 * 3.14159265358979323846 * v);
}

static inline int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

#endif
