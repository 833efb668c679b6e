/* `rightsize recommend --format json` (docs/json.md, schema
 * rightsize.recommendation/1). Keys are stable; numbers are in canonical
 * units (bytes, seconds for busy time, ms for latency, fractions for
 * utilization and memory free, USD). */
#include <math.h>

#include "jsonw.h"
#include "rightsize/report_fit.h"
#include "report_fit_llm.h"
#include "report_internal.h"
#include "rightsize/version.h"

static void json_strings(rs_jsonw *w, const char *key, const char *const *v, size_t n) {
  rs_jsonw_array(w, key);
  for (size_t i = 0; i < n; i++)
    rs_jsonw_string(w, NULL, v[i]);
  rs_jsonw_end(w, ']');
}

static void json_shape(rs_jsonw *w, const rs_instance *in) {
  rs_jsonw_string(w, "provider", in->provider);
  rs_jsonw_string(w, "instance", in->name);
  rs_jsonw_string(w, "region", in->region);
  rs_jsonw_string(w, "category", rs_category_name(in->category));
  rs_jsonw_string(w, "accelerator", in->accelerator ? in->accelerator->key : NULL);
  rs_jsonw_number(w, "accelerator_count", in->accelerator ? in->accelerator_count : 0);
  rs_jsonw_number(w, "vcpus", in->vcpus);
  rs_jsonw_string(w, "price_flag", rs_price_flag_name(in->price_flag));
}

static void json_candidate(rs_jsonw *w, const char *key, const rs_candidate *c, size_t rank,
                           bool full) {
  rs_jsonw_object(w, key);
  if (rank)
    rs_jsonw_uint(w, "rank", rank);
  json_shape(w, c->inst);
  rs_jsonw_bool(w, "fits", c->fits);
  if (!c->fits) {
    rs_jsonw_string(w, "failed", rs_constraint_name(c->failed));
    rs_jsonw_string(w, "reason", c->reason);
    rs_jsonw_number(w, "shortfall", c->shortfall);
  }
  if (full) {
    rs_jsonw_uint(w, "replicas", c->replicas);
    rs_jsonw_uint(w, "servers", c->servers);
    rs_jsonw_uint(w, "devices_per_server", c->devices_per_server);
    rs_jsonw_string(w, "basis", c->basis);
    rs_jsonw_number(w, "ratio", c->ratio);
    rs_jsonw_number(w, "busy_s", c->service_s);
    rs_jsonw_number(w, "error_band", c->error_band);
    rs_jsonw_number(w, "modelled_ratio", c->modelled_ratio);
    rs_jsonw_bool(w, "benchmark_disagrees", c->benchmark_disagrees);
    rs_jsonw_number(w, "utilization", c->util);
    rs_jsonw_number(w, "p_wait", c->p_wait);
    rs_jsonw_number(w, "service_ms", c->service_q_ms);
    rs_jsonw_number(w, "wait_ms", c->wait_q_ms);
    rs_jsonw_number(w, "latency_ms", c->latency_q_ms);
    rs_jsonw_number(w, "memory_capacity_bytes", c->mem_capacity);
    rs_jsonw_number(w, "memory_free", c->mem_free);
    rs_jsonw_number(w, "host_memory_need_bytes", c->host_mem_need);
    rs_jsonw_number(w, "host_cpu_utilization", c->host_cpu_util);
    rs_jsonw_number(w, "network_utilization", c->net_util);
    if (c->fits)
      rs_jsonw_string(w, "binding", rs_constraint_name(c->binding));
    if (c->fits && c->binding_why)
      rs_jsonw_string(w, "binding_why", c->binding_why);
    rs_jsonw_number(w, "usd_per_hour", c->usd_per_hour);
    rs_jsonw_number(w, "usd_per_month", c->usd_per_month);
    rs_jsonw_number(w, "usd_per_million", c->usd_per_million);
    if (!c->is_current) {
      rs_jsonw_number(w, "savings_usd_per_month", c->savings_month);
      rs_jsonw_number(w, "savings_pct", c->savings_pct);
    }
    rs_jsonw_string(w, "confidence", rs_confidence_name(c->confidence));
    json_strings(w, "confidence_reasons", c->reasons, c->nreasons);
    json_strings(w, "notes", c->notes, c->nnotes);
    rs_report_llm_json_candidate(w, c);
  }
  rs_jsonw_end(w, '}');
}

static void json_backtest(rs_jsonw *w, const rs_backtest *bt) {
  if (!bt->run) {
    rs_jsonw_null(w, "backtest");
    return;
  }
  rs_jsonw_object(w, "backtest");
  rs_jsonw_uint(w, "intervals", bt->intervals);
  rs_jsonw_uint(w, "buckets", bt->buckets);
  rs_jsonw_uint(w, "fit_points", bt->points);
  rs_jsonw_number(w, "ratio_median", bt->ratio_median);
  rs_jsonw_number(w, "ratio_p10", bt->ratio_p10);
  rs_jsonw_number(w, "ratio_p90", bt->ratio_p90);
  rs_jsonw_number(w, "error", bt->error);
  rs_jsonw_number(w, "band_low", RS_BACKTEST_BAND_LO);
  rs_jsonw_number(w, "band_high", RS_BACKTEST_BAND_HI);
  rs_jsonw_number(w, "service_p50_ms", bt->s50_ms);
  rs_jsonw_number(w, "service_cs2", bt->cs2);
  rs_jsonw_number(w, "hold_ms", bt->hold_ms);
  rs_jsonw_number(w, "default_hold_ms", bt->default_hold_ms);
  rs_jsonw_uint(w, "servers", bt->servers);
  rs_jsonw_number(w, "concurrency", bt->concurrency);
  rs_jsonw_number(w, "wait_at_mean_ms", bt->wait_mean_ms);
  rs_jsonw_number(w, "observed_spread_ms", bt->spread_ms);
  rs_jsonw_bool(w, "busy_above_p50", bt->busy_above_p50);
  rs_jsonw_bool(w, "off_band", bt->off_band);
  rs_jsonw_bool(w, "wait_above_spread", bt->wait_above_spread);
  rs_jsonw_bool(w, "contradictory", bt->contradictory);
  rs_jsonw_end(w, '}');
}

static void json_demand(rs_jsonw *w, const rs_fit_result *r) {
  const rs_demand *d = &r->demand;
  rs_jsonw_object(w, "demand");
  rs_jsonw_number(w, "memory_need_bytes", d->mem_need);
  rs_jsonw_number(w, "memory_need_with_headroom_bytes", d->mem_need_head);
  rs_jsonw_string(w, "memory_basis", d->mem_basis);
  rs_jsonw_number(w, "memory_observed_bytes", d->mem_observed);
  rs_jsonw_number(w, "memory_model_bytes", d->mem_model);
  rs_jsonw_number(w, "host_memory_peak_bytes", d->host_mem_peak);
  rs_jsonw_number(w, "design_peak_rps", d->design_peak);
  rs_jsonw_string(w, "design_peak_basis", d->peak_basis);
  rs_jsonw_number(w, "observed_peak_rps", d->observed_peak);
  rs_jsonw_number(w, "mean_rps", d->rate_mean);
  rs_jsonw_number(w, "busy_s", d->busy_s);
  rs_jsonw_string(w, "busy_basis", d->busy_basis);
  rs_jsonw_number(w, "busy_r2", d->busy_r2);
  rs_jsonw_uint(w, "source_active_devices", d->source_active);
  rs_jsonw_number(w, "compute_weight", d->mix_compute);
  rs_jsonw_number(w, "slo_ms", d->slo_ms);
  rs_jsonw_number(w, "slo_quantile", d->slo_quantile);
  rs_jsonw_bool(w, "latency_observed", d->latency_observed);
  rs_jsonw_number(w, "service_ms", d->service_q_ms);
  rs_jsonw_number(w, "service_p50_ms", d->service_p50_ms);
  rs_jsonw_number(w, "service_cs2", d->cs2);
  rs_jsonw_number(w, "device_share", d->device_share);
  rs_jsonw_number(w, "hold_s", d->hold_s);
  json_backtest(w, &d->backtest);
  rs_jsonw_number(w, "host_cpu_base_vcpus", d->cpu_known ? d->cpu_base_vcpus : NAN);
  rs_jsonw_number(w, "host_cpu_vcpu_s_per_request", d->cpu_known ? d->cpu_vcpu_s_per_req : NAN);
  rs_jsonw_number(w, "network_base_bytes_per_s", d->net_known ? d->net_base_bps : NAN);
  rs_jsonw_number(w, "network_bytes_per_request", d->net_known ? d->net_bytes_per_req : NAN);
  rs_report_llm_json_demand(w, d);
  rs_jsonw_end(w, '}');
}

static void json_shape_ref(rs_jsonw *w, const char *key, const rs_candidate *c, const char *why) {
  if (c == NULL) {
    rs_jsonw_null(w, key);
    return;
  }
  rs_jsonw_object(w, key);
  rs_jsonw_string(w, "provider", c->inst->provider);
  rs_jsonw_string(w, "instance", c->inst->name);
  if (c->replicas) /* a shape the model could not size has no count */
    rs_jsonw_uint(w, "replicas", c->replicas);
  else
    rs_jsonw_null(w, "replicas");
  rs_jsonw_number(w, "usd_per_month", c->usd_per_month);
  if (why)
    rs_jsonw_string(w, "why", why);
  rs_jsonw_end(w, '}');
}

static void json_verdict(rs_jsonw *w, const rs_fit_result *r) {
  const rs_verdict *v = &r->verdict;
  rs_jsonw_object(w, "verdict");
  rs_jsonw_string(w, "action", rs_action_name(v->action));
  if (r->nfitting) {
    /* the best-ranked shape, whatever the verdict (schema 1 had these) */
    rs_jsonw_string(w, "provider", r->fitting[0].inst->provider);
    rs_jsonw_string(w, "instance", r->fitting[0].inst->name);
    rs_jsonw_uint(w, "replicas", r->fitting[0].replicas);
    rs_jsonw_number(w, "savings_usd_per_month", r->fitting[0].savings_month);
    rs_jsonw_number(w, "savings_pct", r->fitting[0].savings_pct);
  }
  rs_jsonw_string(w, "code", rs_verdict_name(v->code));
  rs_jsonw_string(w, "reason", v->reason);
  json_shape_ref(w, "target", v->target, NULL);
  rs_jsonw_number(w, "target_savings_usd_per_month", v->savings_month);
  rs_jsonw_number(w, "target_savings_pct", v->savings_pct);
  rs_jsonw_number(w, "wasted_usd_per_month", v->wasted_month);
  rs_jsonw_uint(w, "idle_devices", v->idle_devices);
  rs_jsonw_number(w, "peak_utilization_pct", v->peak_util_pct);
  json_shape_ref(w, "passed_over", v->passed_over, v->passed_over_why);
  rs_jsonw_end(w, '}');
}

rs_status rs_report_fit_json(rs_buf *out, const rs_fit_result *r, const rs_report_fit_options *o) {
  const rs_profile *p = r->summary->profile;
  const rs_catalog *cat = r->catalog;
  const rs_fit_options *fo = &r->opts;
  rs_jsonw w;
  size_t n = o->top && o->top < r->nfitting ? o->top : r->nfitting;
  rs_jsonw_init(&w, out);
  rs_jsonw_object(&w, NULL);
  rs_jsonw_string(&w, "schema", RS_FIT_JSON_SCHEMA);
  rs_jsonw_string(&w, "rightsize_version", rs_version());
  rs_jsonw_string(&w, "endpoint", p->endpoint);
  rs_jsonw_string(&w, "profile", p->path);
  rs_report_json_pricing(&w, cat, r->basis, r->overlay);
  rs_jsonw_string(&w, "prices_reference_date", r->as_of);
  rs_jsonw_number(&w, "prices_age_days", r->prices_age_days >= 0 ? r->prices_age_days : NAN);
  rs_jsonw_bool(&w, "prices_old", r->prices_age_days > RS_FIT_PRICE_MAX_AGE_DAYS);
  rs_jsonw_object(&w, "options");
  rs_jsonw_number(&w, "headroom", fo->headroom);
  rs_jsonw_number(&w, "max_utilization", fo->max_util);
  rs_jsonw_uint(&w, "max_replicas", fo->max_replicas);
  rs_jsonw_string(&w, "region", fo->region);
  rs_jsonw_array(&w, "providers");
  if (fo->providers == NULL)
    rs_jsonw_string(&w, NULL, p->current.provider);
  for (size_t i = 0; fo->providers && i < fo->nproviders; i++)
    rs_jsonw_string(&w, NULL, fo->providers[i]);
  rs_jsonw_end(&w, ']');
  rs_jsonw_array(&w, "families");
  for (unsigned bit = 1; bit <= RS_FAMILY_TPU; bit <<= 1)
    if (r->families & bit)
      rs_jsonw_string(&w, NULL, rs_family_name(bit));
  rs_jsonw_end(&w, ']');
  rs_jsonw_end(&w, '}');
  json_demand(&w, r);
  json_candidate(&w, "current", &r->current, 0, true);
  json_verdict(&w, r);
  rs_jsonw_uint(&w, "fitting_total", r->nfitting);
  rs_jsonw_array(&w, "candidates");
  for (size_t i = 0; i < n; i++)
    json_candidate(&w, NULL, &r->fitting[i], i + 1, true);
  rs_jsonw_end(&w, ']');
  rs_jsonw_uint(&w, "rejected_total", r->nrejected);
  rs_jsonw_array(&w, "rejected");
  for (size_t i = 0; i < r->nrejected && (o->explain || i < 5); i++)
    json_candidate(&w, NULL, &r->rejected[i], 0, false);
  rs_jsonw_end(&w, ']');
  rs_jsonw_array(&w, "warnings");
  for (size_t i = 0; i < r->nwarnings; i++) {
    rs_jsonw_object(&w, NULL);
    rs_jsonw_string(&w, "code", rs_warning_code_name(r->warnings[i].code));
    rs_jsonw_string(&w, "text", r->warnings[i].text);
    rs_jsonw_end(&w, '}');
  }
  rs_jsonw_end(&w, ']');
  rs_jsonw_end(&w, '}');
  rs_jsonw_finish(&w);
  return rs_buf_status(out);
}

void rs_report_json_pricing(rs_jsonw *w, const rs_catalog *cat, rs_price_basis basis,
                            const rs_overlay *overlay) {
  rs_jsonw_object(w, "catalog");
  rs_jsonw_string(w, "version", cat->version);
  rs_jsonw_string(w, "file", cat->path);
  rs_jsonw_bool(w, "built_in", cat->embedded);
  rs_jsonw_string(w, "sha256", cat->sha256);
  rs_jsonw_string(w, "prices_as_of", cat->prices_as_of);
  rs_jsonw_string(w, "currency", cat->currency);
  rs_jsonw_end(w, '}');
  rs_jsonw_object(w, "pricing");
  rs_jsonw_string(w, "basis", rs_price_basis_name(basis));
  rs_jsonw_string(w, "overlay", overlay ? overlay->name : NULL);
  rs_jsonw_string(w, "overlay_file", overlay ? overlay->path : NULL);
  rs_jsonw_end(w, '}');
}
