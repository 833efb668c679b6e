/* LLM serving (docs/model.md "LLM serving"). Core-private.
 *
 * The model facts table (catalogs/models.csv), KV-cache bytes from the
 * architecture, and the serving model of one shape: prefill compute-bound,
 * decode bandwidth-bound, a running batch from Little's law under continuous
 * batching, TTFT and TPOT, KV demand against what memory is left. */
#ifndef RS_LLM_H
#define RS_LLM_H

#include <stddef.h>

#include "fit_internal.h"

/* One row of catalogs/models.csv. */
typedef struct rs_llm_facts {
  const char *name;  /* "llama-3.1-8b" */
  const char *hf_id; /* "meta-llama/Llama-3.1-8B" */
  double params, active_params;
  unsigned layers, heads, kv_heads, head_dim;
  unsigned window, window_layers; /* sliding window (tokens) and the layers using it; 0 none */
  const char *dtype;
  const char *source;
} rs_llm_facts;

/* The row named `name` (its name or Hugging Face id, case-insensitive, with
 * an "-instruct", "-chat", "-hf" or "-it" suffix ignored), or NULL. Static. */
const rs_llm_facts *rs_llm_facts_find(const char *name);
/* Rows in table order; NULL past the end. */
const rs_llm_facts *rs_llm_facts_at(size_t i);

/* Bytes of K and V one token adds to the cache over all layers:
 * 2 x layers x kv_heads x head_dim x value_bytes. */
double rs_llm_kv_bytes_per_token(unsigned layers, unsigned kv_heads, unsigned head_dim,
                                 double value_bytes);

/* Bytes one sequence of `tokens` tokens holds: sliding-window layers keep at
 * most `window` tokens. */
double rs_llm_kv_bytes_seq(const rs_llm_demand *l, double tokens);

/* Fills d->llm when the profile names a model or its parameters (d->llm.on
 * false otherwise) and replaces the memory need by the weights: the KV cache
 * is sized per shape. Needs d's traffic, source and SLO. RS_INVALID with the
 * position for an unknown model.name or when token counts are missing. */
rs_status rs_llm_demand_init(rs_fit_ctx *ctx, rs_demand *d, rs_error *err);

/* One server's figures on shape c (its devices_per_server set): peak
 * compute and bandwidth and the efficiencies projected from the source
 * (pr_mem and pr_comp: the memory- and compute-bound projections, NULL on
 * the source), and what one server sustains (c->llm.capacity_rps and what
 * binds it). false with *why when the shape cannot decode the model within
 * its TPOT (or latency) budget at any batch, or lacks a figure. */
bool rs_llm_prepare(rs_fit_ctx *ctx, const rs_demand *d, rs_candidate *c,
                    const rs_projection *pr_mem, const rs_projection *pr_comp, rs_constraint *k,
                    const char **why);

/* Evaluates the shape at `replicas` (c->servers_per_replica set, after
 * rs_llm_prepare): fills c->llm, c->util, c->latency_q_ms, c->service_s; the first failing
 * constraint or RS_CONSTRAINT_NONE. */
rs_constraint rs_llm_eval(rs_fit_ctx *ctx, const rs_demand *d, rs_candidate *c, unsigned replicas);

/* The reason text for a constraint rs_llm_eval returned, with the numbers. */
const char *rs_llm_failure(rs_fit_ctx *ctx, const rs_demand *d, const rs_candidate *c,
                           rs_constraint k);

/* The memory rejection's reason with the weights and the KV spelled out
 * (c rejected by fit_memory); c->reason for a CPU shape. */
const char *rs_llm_memory_reason(rs_fit_ctx *ctx, const rs_demand *d, const rs_candidate *c);

/* Why a server sustains c->llm.capacity_rps, with the numbers. */
const char *rs_llm_capacity_why(rs_fit_ctx *ctx, const rs_demand *d, const rs_candidate *c);

/* The binding constraint k of a fitting shape with its numbers and margin. */
const char *rs_llm_binding_why(rs_fit_ctx *ctx, const rs_demand *d, const rs_candidate *c,
                               rs_constraint k);

/* The constraint with the least margin at c's evaluated count. */
rs_constraint rs_llm_tightest(const rs_fit_ctx *ctx, const rs_demand *d, const rs_candidate *c);

#endif
