/* The simulations' random numbers (bench/queue_sim.c, bench/llm_sim.c):
 * splitmix64, fixed seeds, the same sequence on every run. */
#ifndef RS_BENCH_RNG_H
#define RS_BENCH_RNG_H

#include <stdint.h>

typedef struct rng {
  uint64_t s;
  double spare; /* the second normal of a Box-Muller pair */
  int has_spare;
} rng;

/* splitmix64 */
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

#endif
