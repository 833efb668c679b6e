/* LLM serving lines of `recommend` in text, Markdown and JSON. */
#include "report_fit_llm.h"

#include <math.h>

#include "rightsize/num.h"
#include "rightsize/profile.h"

void rs_report_llm_header(rs_buf *out, const rs_fit_result *r, const char *pre, const char *post,
                          const char *eol) {
  const rs_llm_demand *l = &r->demand.llm;
  if (!l->on)
    return;
  rs_buf_printf(out,
                "%sllm%s        %s: %.2f G parameters (%.2f G per token), %u layers, %u KV heads x "
                "%u, KV %.0f B/token at %.0f B per value",
                pre, post, l->model, l->params / 1e9, l->active_params / 1e9, l->layers,
                l->kv_heads, l->head_dim, l->kv_bytes_per_token, l->kv_value_bytes);
  if (l->window)
    rs_buf_printf(out, " (%u layers windowed at %u tokens)", l->window_layers, l->window);
  rs_buf_printf(out, "%s", eol);
  rs_buf_printf(out,
                "%stokens%s     prompt mean %.0f, p%.0f %.0f; output mean %.0f, p%.0f %.0f (%s)%s",
                pre, post, l->prompt_mean, r->demand.slo_quantile * 100, l->prompt_q,
                l->output_mean, r->demand.slo_quantile * 100, l->output_q, l->tokens_basis, eol);
  rs_buf_printf(out, "%sefficiency%s bandwidth %.0f%%, compute %.0f%% of peak (%s)", pre, post,
                l->eff_bandwidth * 100, l->eff_compute * 100, l->eff_basis);
  if (isfinite(l->tpot_observed_ms))
    rs_buf_printf(out, "; TPOT p50 %.1f ms observed, %.1f ms modelled", l->tpot_observed_ms,
                  l->tpot_model_ms);
  if (isfinite(l->ttft_observed_ms))
    rs_buf_printf(out, "; TTFT p50 %.1f ms observed, %.1f ms modelled", l->ttft_observed_ms,
                  l->ttft_model_ms);
  rs_buf_printf(out, "%s", eol);
  if (l->backtest_points)
    rs_buf_printf(out,
                  "%stpot test%s  modelled / observed typical TPOT at %u request rates of the "
                  "history (min to max, observed from the line of tpot_p50 on the rate, R2 "
                  "%.2f): %.2f to %.2f%s",
                  pre, post, l->backtest_points, l->backtest_r2, l->backtest_lo, l->backtest_hi,
                  eol);
  if (isfinite(l->kv_measured_bytes))
    rs_buf_printf(out,
                  "%skv cache%s   measured %.2f GiB in use at the peak (kv_cache_usage x the "
                  "pre-allocated pool): x%.2f the modelled demand%s",
                  pre, post, l->kv_measured_bytes / RS_GIB, l->kv_scale, eol);
  if (isfinite(l->ttft_slo_ms) || isfinite(l->tpot_slo_ms)) {
    rs_buf_printf(out, "%sslo llm%s   ", pre, post);
    if (isfinite(l->ttft_slo_ms))
      rs_buf_printf(out, " TTFT p%.0f <= %g ms", l->ttft_quantile * 100, l->ttft_slo_ms);
    if (isfinite(l->tpot_slo_ms))
      rs_buf_printf(out, "%s TPOT p%.0f <= %g ms", isfinite(l->ttft_slo_ms) ? ";" : "",
                    l->tpot_quantile * 100, l->tpot_slo_ms);
    rs_buf_printf(out, "%s", eol);
  }
}

void rs_report_llm_line(rs_buf *out, const rs_fit_result *r, const rs_candidate *c, const char *pre,
                        const char *post, const char *eol) {
  const rs_llm_fit *f = &c->llm;
  const rs_llm_demand *l = &r->demand.llm;
  if (!l->on || !f->on || !c->fits)
    return;
  if (*pre) /* Markdown: the "bound by" line before has no hard break */
    rs_buf_puts(out, "\n");
  rs_buf_printf(out,
                "%sserving%s    %s x%u: TTFT p%.0f %.1f ms, TPOT p%.0f %.1f ms; $%.3f per "
                "million output tokens, $%.3f per million input tokens, $%.2f per million "
                "requests%s",
                pre, post, c->inst->name, c->replicas,
                (isfinite(l->ttft_slo_ms) ? l->ttft_quantile : r->demand.slo_quantile) * 100,
                f->ttft_q_ms,
                (isfinite(l->tpot_slo_ms) ? l->tpot_quantile : r->demand.slo_quantile) * 100,
                f->tpot_ms, f->usd_per_m_output, f->usd_per_m_input, c->usd_per_million, eol);
}

void rs_report_llm_explain(rs_buf *out, const rs_fit_result *r, const rs_candidate *c,
                           const char *item) {
  const rs_llm_fit *f = &c->llm;
  if (!r->demand.llm.on || !f->on)
    return;
  rs_buf_printf(out,
                "%sbatch        %.2f sequences running per server (Little's law), %.0f at p%.0f\n",
                item, f->batch, f->seqs_q, r->demand.slo_quantile * 100);
  rs_buf_printf(out,
                "%skv cache     %.2f GiB in use at p%.0f of %.2f GiB the weights leave (%.0f%%)\n",
                item, f->kv_demand_bytes / RS_GIB, r->demand.slo_quantile * 100,
                f->kv_capacity_bytes / RS_GIB, f->kv_demand_bytes / f->kv_capacity_bytes * 100);
  rs_buf_printf(out,
                "%sstep         decode %.2f ms at the running batch, TPOT %.2f ms with the prefill "
                "chunks; a mean prompt's prefill %.2f ms alone; steps carrying prefill %.0f%% of "
                "the server's time\n",
                item, f->step_ms, f->tpot_mean_ms, f->prefill_ms, f->prefill_share * 100);
  rs_buf_printf(out,
                "%sdevice       %.0f TFLOPS at %.0f%%, %.0f GB/s at %.0f%%; %.2f req/s per server "
                "at most (%s binds)\n",
                item, f->compute_tflops, f->eff_compute * 100, f->bandwidth_gbps,
                f->eff_bandwidth * 100, f->capacity_rps, f->binds);
  rs_buf_printf(out,
                "%sllm latency  TTFT %.1f ms, TPOT %.1f ms, end to end p%.0f %.1f ms; goodput "
                "%.2f%% of requests within the TTFT and TPOT SLOs at the design peak\n",
                item, f->ttft_q_ms, f->tpot_ms, r->demand.slo_quantile * 100, f->e2e_q_ms,
                f->goodput * 100);
}

void rs_report_llm_json_demand(rs_jsonw *w, const rs_demand *d) {
  const rs_llm_demand *l = &d->llm;
  if (!l->on)
    return;
  rs_jsonw_object(w, "llm");
  rs_jsonw_string(w, "model", l->model);
  rs_jsonw_number(w, "params", l->params);
  rs_jsonw_number(w, "active_params", l->active_params);
  rs_jsonw_uint(w, "layers", l->layers);
  rs_jsonw_uint(w, "kv_heads", l->kv_heads);
  rs_jsonw_uint(w, "head_dim", l->head_dim);
  rs_jsonw_uint(w, "sliding_window", l->window);
  rs_jsonw_uint(w, "sliding_window_layers", l->window_layers);
  rs_jsonw_number(w, "weight_bytes", l->weight_bytes);
  rs_jsonw_number(w, "kv_bytes_per_token", l->kv_bytes_per_token);
  rs_jsonw_number(w, "prompt_tokens_mean", l->prompt_mean);
  rs_jsonw_number(w, "prompt_tokens_quantile", l->prompt_q);
  rs_jsonw_number(w, "prompt_tokens_cs2", l->prompt_cs2);
  rs_jsonw_number(w, "output_tokens_mean", l->output_mean);
  rs_jsonw_number(w, "output_tokens_quantile", l->output_q);
  rs_jsonw_string(w, "tokens_basis", l->tokens_basis);
  rs_jsonw_number(w, "efficiency_bandwidth", l->eff_bandwidth);
  rs_jsonw_number(w, "efficiency_compute", l->eff_compute);
  rs_jsonw_string(w, "efficiency_basis", l->eff_basis);
  rs_jsonw_number(w, "tpot_p50_observed_ms", l->tpot_observed_ms);
  rs_jsonw_number(w, "tpot_p50_modelled_ms", l->tpot_model_ms);
  rs_jsonw_number(w, "ttft_p50_observed_ms", l->ttft_observed_ms);
  rs_jsonw_number(w, "ttft_p50_modelled_ms", l->ttft_model_ms);
  rs_jsonw_uint(w, "backtest_points", l->backtest_points);
  rs_jsonw_number(w, "backtest_ratio_low", l->backtest_points ? l->backtest_lo : NAN);
  rs_jsonw_number(w, "backtest_ratio_high", l->backtest_points ? l->backtest_hi : NAN);
  rs_jsonw_number(w, "backtest_r2", l->backtest_points ? l->backtest_r2 : NAN);
  rs_jsonw_number(w, "backtest_error", l->backtest_error);
  rs_jsonw_number(w, "kv_measured_bytes", l->kv_measured_bytes);
  rs_jsonw_number(w, "kv_scale", l->kv_scale);
  rs_jsonw_number(w, "ttft_slo_ms", l->ttft_slo_ms);
  rs_jsonw_number(w, "tpot_slo_ms", l->tpot_slo_ms);
  rs_jsonw_number(w, "decode_bandwidth_need_gbps", l->decode_bw_need_gbps);
  rs_jsonw_number(w, "output_tokens_per_s_mean", l->output_rate_mean);
  rs_jsonw_number(w, "prompt_tokens_per_s_mean", l->prompt_rate_mean);
  rs_jsonw_end(w, '}');
}

void rs_report_llm_json_candidate(rs_jsonw *w, const rs_candidate *c) {
  const rs_llm_fit *f = &c->llm;
  if (!f->on)
    return;
  rs_jsonw_object(w, "llm");
  rs_jsonw_number(w, "compute_tflops", f->compute_tflops);
  rs_jsonw_number(w, "bandwidth_gbps", f->bandwidth_gbps);
  rs_jsonw_number(w, "efficiency_compute", f->eff_compute);
  rs_jsonw_number(w, "efficiency_bandwidth", f->eff_bandwidth);
  rs_jsonw_number(w, "running_batch", f->batch);
  rs_jsonw_number(w, "sequences_quantile", f->seqs_q);
  rs_jsonw_number(w, "kv_demand_bytes", f->kv_demand_bytes);
  rs_jsonw_number(w, "kv_capacity_bytes", f->kv_capacity_bytes);
  rs_jsonw_number(w, "step_ms", f->step_ms);
  rs_jsonw_number(w, "prefill_ms", f->prefill_ms);
  rs_jsonw_number(w, "prefill_share", f->prefill_share);
  rs_jsonw_number(w, "ttft_ms", f->ttft_q_ms);
  rs_jsonw_number(w, "tpot_ms", f->tpot_ms);
  rs_jsonw_number(w, "e2e_ms", f->e2e_q_ms);
  rs_jsonw_number(w, "capacity_rps", f->capacity_rps);
  rs_jsonw_number(w, "goodput", f->goodput);
  if (f->binds)
    rs_jsonw_string(w, "capacity_binds", f->binds);
  rs_jsonw_number(w, "usd_per_million_output_tokens", f->usd_per_m_output);
  rs_jsonw_number(w, "usd_per_million_input_tokens", f->usd_per_m_input);
  rs_jsonw_end(w, '}');
}
