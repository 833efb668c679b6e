/* LLM serving (src/core/model/llm.c, llm_facts.c): KV bytes against the
 * published figures, the facts table's consistency, sliding windows, and
 * fits of the LLM goldens' profiles against the built-in catalog. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "llm.h"
#include "test_fit_support.h"
#include "test_support.h"

static double kv_of(const char *name, double value_bytes) {
  const rs_llm_facts *f = rs_llm_facts_find(name);
  assert_non_null(f);
  return rs_llm_kv_bytes_per_token(f->layers, f->kv_heads, f->head_dim, value_bytes);
}

/* 2 x layers x kv_heads x head_dim x bytes: Llama-2-7B 2 x 32 x 32 x 128 x 2
 * (no GQA), Llama-3.1-8B 2 x 32 x 8 x 128 x 2, Llama-3.1-70B 2 x 80 x 8 x
 * 128 x 2 (GQA), as their configs give (catalogs/models.csv sources). */
static void test_kv_published(void **state) {
  (void)state;
  assert_true(kv_of("llama-2-7b", 2) == 524288.0);
  assert_true(kv_of("llama-3.1-8b", 2) == 131072.0);
  assert_true(kv_of("llama-3.1-70b", 2) == 327680.0);
  assert_true(kv_of("llama-3.1-70b", 1) == 163840.0); /* fp8 KV halves it */
}

static void test_facts_names(void **state) {
  (void)state;
  const rs_llm_facts *a = rs_llm_facts_find("meta-llama/Llama-2-7b-chat-hf");
  assert_non_null(a);
  assert_string_equal(a->name, "llama-2-7b");
  a = rs_llm_facts_find("Meta-Llama-3.1-8B-Instruct");
  assert_non_null(a);
  assert_string_equal(a->name, "llama-3.1-8b");
  a = rs_llm_facts_find("Qwen/Qwen2.5-72B-Instruct");
  assert_non_null(a);
  assert_string_equal(a->name, "qwen2.5-72b");
  assert_null(rs_llm_facts_find("llama-9-1t"));
  assert_null(rs_llm_facts_find(NULL));
}

/* Every row: GQA groups divide the heads, active parameters at most the
 * total, windowed layers at most the layers, a source. */
static void test_facts_consistent(void **state) {
  (void)state;
  size_t n = 0;
  for (const rs_llm_facts *f; (f = rs_llm_facts_at(n)) != NULL; n++) {
    assert_true(f->kv_heads > 0 && f->heads % f->kv_heads == 0);
    assert_true(f->head_dim > 0 && f->layers > 0);
    assert_true(f->active_params > 0 && f->active_params <= f->params);
    assert_true(f->window_layers <= f->layers);
    assert_true((f->window == 0) == (f->window_layers == 0));
    assert_true(strlen(f->source) > 20);
  }
  assert_true(n >= 14);
}

/* Sliding-window layers hold at most the window: Mistral 7B (every layer
 * at 4096) holds the same at 8192 tokens as at 4096; Gemma 2 9B (half its
 * layers windowed) grows by half the full rate past the window. */
static void test_sliding_window(void **state) {
  (void)state;
  rs_llm_demand l;
  const rs_llm_facts *f = rs_llm_facts_find("mistral-7b");
  memset(&l, 0, sizeof(l));
  l.layers = f->layers;
  l.window = f->window;
  l.window_layers = f->window_layers;
  l.kv_bytes_per_token = rs_llm_kv_bytes_per_token(f->layers, f->kv_heads, f->head_dim, 2);
  assert_true(rs_llm_kv_bytes_seq(&l, 1000) == 1000 * 131072.0);
  assert_true(rs_llm_kv_bytes_seq(&l, 8192) == rs_llm_kv_bytes_seq(&l, 4096));
  f = rs_llm_facts_find("gemma-2-9b");
  l.layers = f->layers;
  l.window = f->window;
  l.window_layers = f->window_layers;
  l.kv_bytes_per_token = rs_llm_kv_bytes_per_token(f->layers, f->kv_heads, f->head_dim, 2);
  double at = rs_llm_kv_bytes_seq(&l, 4096), past = rs_llm_kv_bytes_seq(&l, 8192);
  assert_true(fabs((past - at) / (4096 * l.kv_bytes_per_token) - 0.5) < 1e-12);
}

/* The profile keys of an LLM fit (docs/profile-format.md). */
static void test_profile_keys(void **state) {
  rs_arena *arena = *state;
  rs_profile *p;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_profile_load(&p, arena, RS_SOURCE_DIR "/tests/cli/data/llm/chat.yaml", &err),
                   RS_OK);
  assert_string_equal(p->model.name, "meta-llama/Llama-2-7b-chat-hf");
  assert_true(p->slo.ttft_p99_ms == 2000.0 && p->slo.tpot_p99_ms == 100.0);
  assert_true(isnan(p->slo.ttft_p95_ms) && isnan(p->slo.tpot_p95_ms));
  assert_true(isnan(p->model.params) && isnan(p->model.kv_bytes_per_value));
  assert_int_equal(
      rs_profile_load(&p, arena, RS_SOURCE_DIR "/tests/cli/data/llm/tiny-cpu.yaml", &err), RS_OK);
  assert_true(p->model.params == 1.1e9);
  assert_null(p->model.name);
}

static const rs_candidate *find(const rs_fit_result *r, const char *name, bool *fits) {
  for (size_t i = 0; i < r->nfitting; i++)
    if (strcmp(r->fitting[i].inst->name, name) == 0) {
      *fits = true;
      return &r->fitting[i];
    }
  for (size_t i = 0; i < r->nrejected; i++)
    if (strcmp(r->rejected[i].inst->name, name) == 0) {
      *fits = false;
      return &r->rejected[i];
    }
  return NULL;
}

/* The chat golden's profile: the efficiencies reproduce the observed TPOT
 * and TTFT, every fitting shape meets the TTFT and TPOT SLOs, its running
 * batch is Little's law's fixed point, $ per token are priced, and the
 * 16 GB V100 is rejected with the weights and the KV spelled out. */
static void test_fit_chat(void **state) {
  rs_arena *arena = *state;
  rs_fit_result *r = fit_shipped(arena, "tests/cli/data/llm/chat.yaml", NULL);
  const rs_llm_demand *l = &r->demand.llm;
  assert_true(l->on);
  assert_true(l->kv_bytes_per_token == 524288.0);
  assert_true(fabs(l->tpot_model_ms / l->tpot_observed_ms - 1) < 0.02);
  assert_true(fabs(l->ttft_model_ms / l->ttft_observed_ms - 1) < 0.02);
  /* the back-test ran at five rates and stays within its stated error */
  assert_int_equal(l->backtest_points, 5);
  assert_true(l->backtest_lo <= 1.0 && l->backtest_hi >= 1.0 && l->backtest_error < 0.5);
  assert_true(r->nfitting > 0);
  for (size_t i = 0; i < r->nfitting; i++) {
    const rs_candidate *c = &r->fitting[i];
    const rs_llm_fit *f = &c->llm;
    assert_true(f->on);
    assert_true(f->tpot_ms <= l->tpot_slo_ms && f->ttft_q_ms <= l->ttft_slo_ms);
    assert_true(f->kv_demand_bytes <= f->kv_capacity_bytes);
    double lambda = r->demand.design_peak / c->servers;
    double little = lambda * l->output_mean * f->tpot_mean_ms / 1e3;
    assert_true(fabs(f->batch / little - 1) < 1e-6);
    /* the step stretches by the prefill chunks, never shrinks */
    assert_true(f->tpot_mean_ms >= f->step_ms);
    /* at its capacity the batch stays within what its KV memory holds */
    assert_true(f->capacity_batch <= f->kv_batch_max * (1 + 1e-9));
    assert_true(f->usd_per_m_output > 0 && f->usd_per_m_input > 0);
    /* both p99 SLOs met: at most about 2% of requests miss one of them */
    assert_true(f->goodput >= 0.98 && f->goodput <= 1.0);
    assert_true(c->inst->category != RS_CATEGORY_CPU);
  }
  bool fits = true;
  const rs_candidate *v100 = find(r, "p3.2xlarge", &fits);
  assert_non_null(v100);
  assert_false(fits);
  assert_int_equal(v100->failed, RS_CONSTRAINT_MEMORY);
  assert_non_null(strstr(v100->reason, "weights 12.6 GiB + KV"));
}

/* The Azure example's A10G by hand (docs/model.md "LLM serving"): 600 GB/s
 * and 70 TFLOPS (catalog), 50% of each; the KV memory holds B sequences of
 * prompt + output x (1 + cs2) / 2 tokens; a decode step reads the weights and their KV;
 * each 1173-token prompt is one chunk, a step of 2 x 8.03 G x (B + 1173)
 * FLOPs. Little's law with the prefill steps' extra time:
 * B = lambda x out x t / (1 - lambda x extra), so lambda = B / (out x t +
 * B x extra). The model's capacity is that rate and KV capacity binds. */
static void test_a10g_by_hand(void **state) {
  rs_arena *arena = *state;
  rs_fit_result *r = fit_shipped(arena, "profiles/llm-azure/llama31-8b-azure-conv.yaml", NULL);
  const rs_llm_demand *l = &r->demand.llm;
  const rs_candidate *c = &r->current;
  assert_string_equal(c->inst->name, "g5.2xlarge");
  assert_true(c->llm.on);
  /* the output weighted by how long it stays: prompt + out (1 + cs2) / 2 */
  double kv_seq = (l->prompt_mean + l->output_mean * (1 + l->output_cs2) / 2) * 131072.0;
  double b = c->llm.kv_capacity_bytes / kv_seq;
  double bw = 600e9 * 0.5, flops = 70e12 * 0.5;
  double t = (l->weight_bytes + b * kv_seq) / bw;
  double extra = 2.0 * 8.03e9 * (b + l->prompt_mean) / flops - t;
  double lambda = b / (l->output_mean * t + b * extra);
  assert_true(fabs(c->llm.capacity_rps / lambda - 1) < 1e-3);
  assert_string_equal(c->llm.binds, "KV capacity");
  assert_true(lambda > 0.7 && lambda < 0.9); /* about 0.80 req/s */
  /* prefill alone at the design peak needs more than the A10G's peak */
  assert_true(r->demand.design_peak * 2.0 * 8.03e9 * l->prompt_mean > 70e12);
  assert_false(c->fits);
  assert_int_equal(c->failed, RS_CONSTRAINT_KV_CAPACITY);
  assert_non_null(strstr(c->reason, "req/s a server sustains (KV capacity: "));
}

/* A model whose decode small CPU shapes cannot carry: those are rejected for
 * decode bandwidth (the reason names the bandwidth needed), and a CPU shape
 * that fits reads the weights within the TPOT SLO at its bandwidth. */
static void test_fit_cpu_decode(void **state) {
  rs_arena *arena = *state;
  rs_fit_result *r = fit_shipped(arena, "tests/cli/data/llm/tiny-cpu.yaml", NULL);
  const rs_llm_demand *l = &r->demand.llm;
  size_t slow = 0;
  assert_true(l->on);
  for (size_t i = 0; i < r->nfitting; i++) {
    const rs_candidate *c = &r->fitting[i];
    double read_ms = l->weight_bytes / (c->llm.bandwidth_gbps * 1e9 * c->llm.eff_bandwidth) * 1e3;
    assert_true(read_ms <= l->tpot_slo_ms);
  }
  for (size_t i = 0; i < r->nrejected; i++) {
    const rs_candidate *c = &r->rejected[i];
    if (c->inst->category == RS_CATEGORY_CPU && c->failed == RS_CONSTRAINT_DECODE_BANDWIDTH) {
      slow++;
      assert_non_null(strstr(c->reason, "GB/s)"));
    }
  }
  assert_true(slow > 0);
  assert_true(r->nfitting > 0 && r->fitting[0].inst->category != RS_CATEGORY_CPU);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kv_published),
      cmocka_unit_test(test_facts_names),
      cmocka_unit_test(test_facts_consistent),
      cmocka_unit_test(test_sliding_window),
      cmocka_unit_test_setup_teardown(test_profile_keys, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_fit_chat, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_fit_cpu_decode, setup_arena, teardown_arena),
      cmocka_unit_test_setup_teardown(test_a10g_by_hand, setup_arena, teardown_arena),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
