/* A discrete-event simulation of continuous batching beside the LLM serving
 * formulas (docs/model.md, "LLM serving"; bench/README.md).
 *
 * It fits a profile (by default the Azure example, profiles/llm-azure), and
 * for every shape the model evaluated (the fitting ones, the rejected ones it
 * sized, the current one) simulates one server of that shape with the same
 * figures: the effective FLOP/s and bytes/s, the weights, the KV bytes per
 * token and the KV memory the weights leave. The scheduler is vLLM V1's:
 *
 *   - iteration-level: every step decodes one token for each running
 *     sequence, then fills what is left of a token budget of
 *     RS_LLM_CHUNK_TOKENS with prompt chunks, oldest request first (chunked
 *     prefill); at most RS_LLM_MAX_SEQS sequences run;
 *   - a request is admitted when the KV of its whole prompt fits the memory
 *     left; a sequence's KV grows by one token per step, and when the memory
 *     runs out the newest running sequence is preempted (its KV freed, its
 *     prompt and the tokens it made recomputed later, as vLLM's recompute
 *     preemption);
 *   - a step lasts the longer of reading the weights and every running
 *     sequence's KV at its actual length, and 2 x active parameters FLOPs per
 *     token it processes (the model's roofline; attention FLOPs left out on
 *     both sides);
 *   - a request's first token comes at the end of the step that finishes its
 *     prompt; TTFT is that minus its arrival, its TPOT the time of its other
 *     output tokens over their number.
 *
 * Arrivals are Poisson at the rate the model sized each shape for (the
 * design peak over its servers); prompt and output tokens are drawn in pairs
 * from the profile's requests samples (the trace's rows). The saturation
 * rate is the completion rate with a standing backlog of requests (the most
 * a server sustains). Seeds are fixed: the table is the same on every run.
 *
 *   llm_sim [--profile PATH] [--requests N] [--seed K] [--csv PATH]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rightsize/arena.h"
#include "rightsize/catalog.h"
#include "rightsize/error.h"
#include "rightsize/fit.h"
#include "rightsize/profile.h"
#include "rightsize/summary.h"

#include "bench_rng.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* ---- the token pairs ---- */

typedef struct pairs {
  size_t n;
  double *prompt, *output;
} pairs;

/* Reads TIMESTAMP,ContextTokens,GeneratedTokens rows (the Azure trace's
 * columns; the header line skipped). */
static int load_pairs(const char *path, pairs *p) {
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return -1;
  char line[512];
  size_t cap = 0;
  p->n = 0;
  p->prompt = p->output = NULL;
  while (fgets(line, sizeof line, f)) {
    char *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
    if (c2 == NULL)
      continue;
    char *end;
    double a = strtod(c1 + 1, &end), b = strtod(c2 + 1, NULL);
    if (end == c1 + 1 || !(a >= 0) || !(b >= 1))
      continue;
    if (p->n == cap) {
      cap = cap ? cap * 2 : 1024;
      p->prompt = realloc(p->prompt, cap * sizeof(double));
      p->output = realloc(p->output, cap * sizeof(double));
      if (p->prompt == NULL || p->output == NULL) {
        fclose(f);
        return -1;
      }
    }
    p->prompt[p->n] = a > 0 ? a : 1;
    p->output[p->n] = b;
    p->n++;
  }
  fclose(f);
  return p->n ? 0 : -1;
}

/* ---- one server ---- */

typedef struct shape {
  double flops, bytes_s;       /* effective */
  double weight_bytes, kv_tok; /* bytes */
  double kv_cap_tokens;        /* tokens the KV memory holds */
  double active_params;
} shape;

typedef struct req {
  double arrival, first, finish;
  double prompt, output;
  double need; /* tokens to prefill before decoding: the prompt, or prompt + made after a
                  preemption (recomputed) */
  double ctx;  /* tokens whose KV the sequence holds */
  double made; /* output tokens made */
  int state;   /* 0 waiting, 1 running, 2 done */
} req;

typedef struct sim_out {
  double ttft_p99, tpot_p99, e2e_p99, rate; /* ms, ms, ms, completions/s */
  double preemptions;
} sim_out;

static double pct(double *v, size_t n, double q) {
  if (n == 0)
    return NAN;
  qsort(v, n, sizeof(double), cmp_double);
  size_t i = (size_t)(q * (double)n);
  return v[i < n ? i : n - 1];
}

/* KV a running sequence holds: what it reserved for its prompt at admission,
 * or more once it decodes. */
static double held(const req *c) { return c->ctx > c->need ? c->ctx : c->need; }

/* Simulates n requests (arrivals at rate lambda; lambda 0: all at time 0, a
 * standing backlog). The first n / 10 are warm-up. */
static sim_out simulate(const shape *s, const pairs *tp, double lambda, size_t n, uint64_t seed) {
  rng r = {seed, 0, 0};
  req *q = calloc(n, sizeof(req));
  size_t *run = calloc(n, sizeof(size_t)), *wait = calloc(n, sizeof(size_t));
  double *buf = calloc(n, sizeof(double));
  sim_out o = {NAN, NAN, NAN, NAN, 0};
  if (q == NULL || run == NULL || wait == NULL || buf == NULL)
    goto out;
  double t = 0;
  for (size_t i = 0; i < n; i++) {
    if (lambda > 0)
      t += -log(rng_uniform(&r)) / lambda;
    size_t k = (size_t)(rng_uniform(&r) * (double)tp->n);
    q[i].arrival = lambda > 0 ? t : 0;
    q[i].prompt = q[i].need = tp->prompt[k];
    q[i].output = tp->output[k];
  }
  size_t nrun = 0, head = 0, wn = 0, done = 0; /* run[]: in admission order */
  double now = 0, kv_used = 0;
  while (done < n) {
    /* admit: the preempted first, then arrivals in order, while the prompt's KV fits */
    for (;;) {
      size_t id;
      if (wn)
        id = wait[0];
      else if (head < n && q[head].arrival <= now)
        id = head;
      else
        break;
      req *c = &q[id];
      if (nrun >= RS_LLM_MAX_SEQS || (nrun && kv_used + c->need > s->kv_cap_tokens))
        break;
      kv_used += c->need;
      c->state = 1;
      c->ctx = 0;
      run[nrun++] = id;
      if (wn)
        memmove(wait, wait + 1, --wn * sizeof(size_t));
      else
        head++;
    }
    if (nrun == 0) { /* idle until the next arrival */
      now = fmax(now, q[head].arrival);
      continue;
    }
    /* the step: one token for each decoding sequence, then prompt chunks
     * oldest first within the token budget */
    double tokens = 0, kv_read = 0, left = RS_LLM_CHUNK_TOKENS;
    double *chunk = buf; /* per running slot */
    for (size_t i = 0; i < nrun; i++) {
      req *c = &q[run[i]];
      chunk[i] = 0;
      kv_read += c->ctx;
      if (c->ctx >= c->need) {
        tokens += 1;
        left -= 1;
      }
    }
    for (size_t i = 0; i < nrun && left > 0; i++) {
      req *c = &q[run[i]];
      if (c->ctx < c->need) {
        chunk[i] = fmin(left, c->need - c->ctx);
        tokens += chunk[i];
        left -= chunk[i];
      }
    }
    double dt = fmax((s->weight_bytes + kv_read * s->kv_tok) / s->bytes_s,
                     2.0 * s->active_params * tokens / s->flops);
    now += dt;
    /* a sequence whose prompt is done makes a token: its first, or its
     * next after a recompute; the decoding ones one each */
    size_t m = 0;
    for (size_t i = 0; i < nrun; i++) {
      req *c = &q[run[i]];
      double before = held(c);
      bool decoding = c->ctx >= c->need;
      if (!decoding) {
        c->ctx += chunk[i];
        if (c->ctx < c->need) {
          run[m++] = run[i];
          continue;
        }
      }
      if (c->made == 0)
        c->first = now;
      c->made += 1;
      c->ctx += 1; /* the new token's KV */
      kv_used += held(c) - before;
      if (c->made >= c->output) {
        c->state = 2;
        c->finish = now;
        kv_used -= held(c);
        done++;
      } else {
        run[m++] = run[i];
      }
    }
    nrun = m;
    /* the newest running sequences give their KV back while it overflows */
    while (kv_used > s->kv_cap_tokens && nrun > 1) {
      size_t id = run[--nrun];
      req *c = &q[id];
      kv_used -= held(c);
      c->state = 0;
      c->need = c->prompt + c->made;
      c->ctx = 0;
      memmove(wait + 1, wait, wn * sizeof(size_t));
      wait[0] = id;
      wn++;
      o.preemptions++;
    }
  }
  size_t warm = n / 10, k = 0;
  for (size_t i = warm; i < n; i++)
    buf[k++] = (q[i].first - q[i].arrival) * 1e3;
  o.ttft_p99 = pct(buf, k, 0.99);
  k = 0;
  for (size_t i = warm; i < n; i++)
    if (q[i].output > 1)
      buf[k++] = (q[i].finish - q[i].first) / (q[i].output - 1) * 1e3;
  o.tpot_p99 = pct(buf, k, 0.99);
  k = 0;
  for (size_t i = warm; i < n; i++)
    buf[k++] = (q[i].finish - q[i].arrival) * 1e3;
  o.e2e_p99 = pct(buf, k, 0.99);
  /* completions per second between the first and the last tenth */
  k = 0;
  for (size_t i = 0; i < n; i++)
    buf[k++] = q[i].finish;
  qsort(buf, k, sizeof(double), cmp_double);
  o.rate = (double)(k - 2 * warm) / (buf[k - warm - 1] - buf[warm]);
out:
  free(q);
  free(run);
  free(wait);
  free(buf);
  return o;
}

static double err(double model, double sim) { return (model / sim - 1.0) * 100.0; }

int main(int argc, char **argv) {
  const char *path = RS_SOURCE_DIR "/profiles/llm-azure/llama31-8b-azure-conv.yaml";
  const char *trace = NULL;
  size_t n = 20000;
  uint64_t seed = 1;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc)
      path = argv[++i];
    else if (strcmp(argv[i], "--trace") == 0 && i + 1 < argc)
      trace = argv[++i];
    else if (strcmp(argv[i], "--requests") == 0 && i + 1 < argc)
      n = strtoul(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
      seed = strtoull(argv[++i], NULL, 10);
    else {
      fprintf(stderr, "usage: llm_sim [--profile PATH] [--trace CSV] [--requests N] [--seed K]\n");
      return 2;
    }
  }
  if (n < 100)
    n = 100;
  rs_arena arena_s, *arena = &arena_s;
  rs_arena_init(arena, 0);
  rs_profile *p;
  rs_summary *sum;
  rs_catalog *cat;
  rs_fit_result *res;
  rs_error e;
  rs_error_clear(&e);
  if (rs_profile_load(&p, arena, path, &e) != RS_OK ||
      rs_summary_from_profile(&sum, arena, p, NULL, &e) != RS_OK ||
      rs_catalog_default(&cat, arena, &e) != RS_OK ||
      rs_pricing_apply(cat, RS_BASIS_ONDEMAND, NULL, &e) != RS_OK ||
      rs_fit(&res, arena, sum, cat, RS_BASIS_ONDEMAND, NULL, NULL, &e) != RS_OK) {
    fprintf(stderr, "llm_sim: %s: %s\n", e.path, e.msg);
    return 1;
  }
  const rs_llm_demand *l = &res->demand.llm;
  if (!l->on) {
    fprintf(stderr, "llm_sim: %s is not an LLM endpoint\n", path);
    return 1;
  }
  char tpath[1024];
  if (trace == NULL) {
    snprintf(tpath, sizeof tpath, "%s", path);
    char *slash = strrchr(tpath, '/');
    snprintf(slash ? slash + 1 : tpath, sizeof tpath - (size_t)(slash ? slash + 1 - tpath : 0),
             "%s", "conv-15min.csv");
    trace = p->nfiles ? p->files[0].path : tpath;
  }
  pairs tp;
  if (load_pairs(trace, &tp) != 0) {
    fprintf(stderr, "llm_sim: cannot read token pairs from %s\n", trace);
    return 1;
  }
  printf("llm_sim: %s, %zu token pairs from %s, %zu requests per run, seed %llu\n", l->model, tp.n,
         trace, n, (unsigned long long)seed);
  printf("%-16s %5s %7s | %9s %9s %6s | %9s %9s %6s | %9s %9s %6s | %7s %7s %6s\n", "shape", "srv",
         "req/s", "ttft99 m", "ttft99 s", "err%", "tpot99 m", "tpot99 s", "err%", "e2e99 m",
         "e2e99 s", "err%", "cap m", "cap s", "err%");
  double worst[4] = {0, 0, 0, 0}, sumabs[4] = {0, 0, 0, 0};
  size_t rows = 0;
  for (size_t i = 0; i < res->nfitting + res->nrejected + 1; i++) {
    const rs_candidate *c = i < res->nfitting                    ? &res->fitting[i]
                            : i < res->nfitting + res->nrejected ? &res->rejected[i - res->nfitting]
                                                                 : &res->current;
    const rs_llm_fit *f = &c->llm;
    if (!f->on || !(f->capacity_rps > 0) || !(f->kv_capacity_bytes > 0) || c->servers == 0)
      continue;
    shape s = {f->compute_tflops * 1e12 * f->eff_compute,
               f->bandwidth_gbps * 1e9 * f->eff_bandwidth,
               l->weight_bytes,
               l->kv_bytes_per_token * l->kv_scale,
               f->kv_capacity_bytes / (l->kv_bytes_per_token * l->kv_scale),
               l->active_params};
    double lambda = res->demand.design_peak / (double)c->servers;
    sim_out at = simulate(&s, &tp, lambda, n, seed + i);
    sim_out sat = simulate(&s, &tp, 0, n / 2, seed + 1000 + i);
    bool loaded = isfinite(f->ttft_q_ms) && isfinite(at.ttft_p99) && at.rate > 0.9 * lambda;
    printf("%-16s %5u %7.3f | %9.1f %9.1f %6.1f | %9.1f %9.1f %6.1f | %9.0f %9.0f %6.1f | %7.3f "
           "%7.3f %6.1f\n",
           c->inst->name, c->servers, lambda, f->ttft_q_ms, at.ttft_p99,
           loaded ? err(f->ttft_q_ms, at.ttft_p99) : NAN, f->tpot_ms, at.tpot_p99,
           loaded ? err(f->tpot_ms, at.tpot_p99) : NAN, f->e2e_q_ms, at.e2e_p99,
           loaded ? err(f->e2e_q_ms, at.e2e_p99) : NAN, f->capacity_rps, sat.rate,
           err(f->capacity_rps, sat.rate));
    double es[4] = {err(f->ttft_q_ms, at.ttft_p99), err(f->tpot_ms, at.tpot_p99),
                    err(f->e2e_q_ms, at.e2e_p99), err(f->capacity_rps, sat.rate)};
    for (int k = 0; k < 4; k++) {
      if (k < 3 && !loaded)
        continue;
      sumabs[k] += fabs(es[k]);
      if (fabs(es[k]) > fabs(worst[k]))
        worst[k] = es[k];
    }
    rows++;
  }
  printf("%zu shapes; err%% = model / simulation - 1: above 0 the model is pessimistic on a "
         "latency, optimistic on the capacity\n",
         rows);
  const char *names[4] = {"TTFT p99", "TPOT p99", "e2e p99", "capacity"};
  for (int k = 0; k < 4; k++)
    printf("  %-9s mean |err| %5.1f%%, worst %+6.1f%%\n", names[k],
           rows ? sumabs[k] / (double)rows : NAN, worst[k]);
  free(tp.prompt);
  free(tp.output);
  rs_arena_release(arena);
  return 0;
}
