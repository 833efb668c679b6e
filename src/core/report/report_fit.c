/* The recommendation as a table, Markdown or CSV (docs/cli.md). All three
 * print the same cells, made once per candidate by row_cells(). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rightsize/num.h"
#include "rightsize/report_fit.h"
#include "table.h"
#include "report_fit_llm.h"

#define NCOLS 15

typedef enum { OUT_TABLE, OUT_MARKDOWN, OUT_CSV } out_kind;

static const char *const col_names[NCOLS] = {
    "RANK",  "CLOUD",     "SHAPE",      "ACCELERATOR", "REPL",     "UTIL",  "P99_MS",    "MEM_FREE",
    "USD_H", "USD_MONTH", "USD_PER_1M", "SAVE_MONTH",  "SAVE_PCT", "BOUND", "CONFIDENCE"};
static const char *const csv_names[NCOLS] = {
    "rank",         "provider",      "shape",           "accelerator",
    "replicas",     "utilization",   "latency_ms",      "memory_free",
    "usd_per_hour", "usd_per_month", "usd_per_million", "savings_usd_per_month",
    "savings_pct",  "binding",       "confidence"};
static const bool col_numeric[NCOLS] = {false, false, false, false, true, true,  true, true,
                                        true,  true,  true,  true,  true, false, false};
/* The columns of the default table (--wide shows all): what to move to,
 * what it costs and saves, and what bounds it, in under 100 columns. */
static const bool col_default[NCOLS] = {true,  true, true,  true,  true, true, true, false,
                                        false, true, false, false, true, true, false};

typedef struct cells {
  char c[NCOLS][48];
} cells;

/* v with `decimals` digits and a suffix; `none` when not finite. */
static void fmt(char *dst, double v, int decimals, const char *suffix, const char *none) {
  if (!isfinite(v))
    snprintf(dst, 48, "%s", none);
  else
    snprintf(dst, 48, "%.*f%s", decimals, v == 0 ? 0.0 : v, suffix);
}

static void accel_text(char *dst, const rs_instance *in) {
  if (in->accelerator == NULL)
    snprintf(dst, 48, "%.0f vCPU", in->vcpus);
  else if (in->accelerator_count < 1)
    snprintf(dst, 48, "%s x%.3g", in->accelerator->key, in->accelerator_count);
  else
    snprintf(dst, 48, "%s x%.0f", in->accelerator->key, in->accelerator_count);
}

/* The cells of one candidate; rank 0 is the current deployment. Raw
 * (CSV) cells are plain numbers with more digits and no units. */
static void row_cells(cells *r, const rs_candidate *c, size_t rank, bool raw) {
  const char *none = raw ? "" : "-";
  if (rank == 0)
    snprintf(r->c[0], 48, "%s", raw ? "current" : "now");
  else
    snprintf(r->c[0], 48, "%zu", rank);
  snprintf(r->c[1], 48, "%s", c->inst->provider);
  snprintf(r->c[2], 48, "%s", c->inst->name);
  accel_text(r->c[3], c->inst);
  snprintf(r->c[4], 48, "%u", c->replicas);
  fmt(r->c[5], c->util * 100.0, raw ? 2 : 0, raw ? "" : "%", none);
  fmt(r->c[6], c->latency_q_ms, raw ? 3 : 1, "", none);
  fmt(r->c[7], c->mem_free * 100.0, raw ? 2 : 0, raw ? "" : "%", none);
  /* a suspect price is ranked but marked: it never decides the verdict */
  fmt(r->c[8], c->usd_per_hour, raw ? 4 : 3,
      !raw && c->inst->price_flag == RS_PRICE_SUSPECT ? "*" : "", none);
  fmt(r->c[9], c->usd_per_month, 2, "", none);
  fmt(r->c[10], c->usd_per_million, raw ? 4 : 2, "", none);
  fmt(r->c[11], rank == 0 ? NAN : c->savings_month, 2, "", none);
  fmt(r->c[12], rank == 0 ? NAN : c->savings_pct, raw ? 2 : 1, raw ? "" : "%", none);
  snprintf(r->c[13], 48, "%s", c->fits ? rs_constraint_name(c->binding) : raw ? "" : "fails");
  snprintf(r->c[14], 48, "%s", rs_confidence_name(c->confidence));
}

/* The LLM columns of a CSV row: $ per million input and output tokens,
 * TTFT and TPOT at their quantiles; empty for other endpoints and for a
 * shape that does not fit. */
static void put_llm_csv(rs_buf *out, const rs_candidate *c) {
  char cell[4][48] = {"", "", "", ""};
  if (c->llm.on && c->fits) {
    fmt(cell[0], c->llm.usd_per_m_input, 4, "", "");
    fmt(cell[1], c->llm.usd_per_m_output, 4, "", "");
    fmt(cell[2], c->llm.ttft_q_ms, 3, "", "");
    fmt(cell[3], c->llm.tpot_ms, 3, "", "");
  }
  for (int k = 0; k < 4; k++) {
    rs_buf_putc(out, ',');
    rs_buf_put_csv(out, cell[k]);
  }
}

static size_t shown(const rs_fit_result *r, const rs_report_fit_options *o) {
  return o->top && o->top < r->nfitting ? o->top : r->nfitting;
}

static void put_rows(rs_buf *out, const rs_fit_result *r, const rs_report_fit_options *o,
                     out_kind kind) {
  size_t n = shown(r, o) + 1;
  cells *rows = rs_malloc_array(n, sizeof(*rows));
  const char **ptrs = rs_malloc_array(n, sizeof(const char *[NCOLS]));
  if (rows == NULL || ptrs == NULL) {
    out->failed = true; /* the caller reports it */
    free(rows);
    free(ptrs);
    return;
  }
  for (size_t i = 0; i + 1 < n; i++)
    row_cells(&rows[i], &r->fitting[i], i + 1, kind == OUT_CSV);
  row_cells(&rows[n - 1], &r->current, 0, kind == OUT_CSV);
  if (kind == OUT_CSV) {
    for (int k = 0; k < NCOLS; k++)
      rs_buf_printf(out, "%s%s", k ? "," : "", csv_names[k]);
    rs_buf_puts(out, ",usd_per_million_input_tokens,usd_per_million_output_tokens,ttft_ms,tpot_ms");
    rs_buf_putc(out, '\n');
    for (size_t i = 0; i < n; i++) {
      for (int k = 0; k < NCOLS; k++) {
        if (k)
          rs_buf_putc(out, ',');
        rs_buf_put_csv(out, rows[i].c[k]);
      }
      put_llm_csv(out, i + 1 < n ? &r->fitting[i] : &r->current);
      rs_buf_putc(out, '\n');
    }
  } else {
    const char *names[NCOLS];
    bool numeric[NCOLS];
    size_t ncols = 0;
    bool all = o->wide || kind == OUT_MARKDOWN;
    for (int k = 0; k < NCOLS; k++) {
      if (!all && !col_default[k])
        continue;
      names[ncols] = k == 6 && r->demand.slo_quantile < 0.99 ? "P95_MS" : col_names[k];
      numeric[ncols] = col_numeric[k];
      for (size_t i = 0; i < n; i++)
        ptrs[i * NCOLS + ncols] = rows[i].c[k];
      ncols++;
    }
    for (size_t i = 1; i < n && ncols < NCOLS; i++) /* close the rows up to ncols apart */
      memmove(&ptrs[i * ncols], &ptrs[i * NCOLS], ncols * sizeof(*ptrs));
    rs_table_write(out, kind == OUT_MARKDOWN ? RS_TABLE_MARKDOWN : RS_TABLE_TEXT, ncols, names,
                   numeric, ptrs, n);
    bool suspect = r->current.inst->price_flag == RS_PRICE_SUSPECT;
    for (size_t i = 0; i + 1 < n; i++)
      suspect = suspect || r->fitting[i].inst->price_flag == RS_PRICE_SUSPECT;
    if (suspect)
      rs_buf_puts(out,
                  kind == OUT_MARKDOWN
                      ? "\n\\* price marked suspect by the catalog: ranked, never the verdict\n"
                      : "* price marked suspect by the catalog: ranked, never the verdict\n");
  }
  free(ptrs);
  free(rows);
}

static void put_money(rs_buf *out, double v) {
  if (isfinite(v))
    rs_buf_printf(out, "%.2f", v);
  else
    rs_buf_puts(out, "-");
}

/* Names and paths from the input: escaped, as Markdown text where md. */
static void put_untrusted(rs_buf *out, const char *s, bool md) {
  if (md)
    rs_buf_put_markdown(out, s);
  else
    rs_buf_put_text(out, s);
}

/* What the design peak means for the table: the load every row is sized
 * at, so the current row's UTIL is its busy share at that load, not the
 * history's mean. */
static void put_peak_meaning(rs_buf *out, const rs_fit_result *r) {
  rs_buf_puts(out, ", the load every row is sized for");
  if (isfinite(r->current.util))
    rs_buf_printf(out, " (now %.0f%% busy at it)", r->current.util * 100.0);
}

/* The header lines: what was fitted against what. pre/post wrap each
 * label for Markdown. */
static void put_header(rs_buf *out, const rs_fit_result *r, const char *pre, const char *post,
                       const char *eol) {
  const rs_profile *p = r->summary->profile;
  const rs_catalog *cat = r->catalog;
  const rs_demand *d = &r->demand;
  const rs_fit_options *o = &r->opts;
  bool md = *pre != '\0';
  rs_buf_printf(out, "%sendpoint%s   ", pre, post);
  put_untrusted(out, p->endpoint, md);
  rs_buf_puts(out, " (");
  put_untrusted(out, p->path, md);
  rs_buf_printf(out, ")%s%scatalog%s    ", eol, pre, post);
  put_untrusted(out, cat->version, md);
  rs_buf_puts(out, " (");
  put_untrusted(out, cat->path, md);
  /* 12 hex digits tell catalogs apart at a glance; JSON and --version carry all 64 */
  rs_buf_printf(out, "%s) sha256 %.12s%s", cat->embedded ? ", built in" : "", cat->sha256, eol);
  rs_buf_printf(out, "%spricing%s    %s, %s per hour, ", pre, post, rs_price_basis_name(r->basis),
                cat->currency);
  if (r->overlay)
    rs_buf_printf(out, "overlay %s (%s)", r->overlay->name, r->overlay->path);
  else
    rs_buf_puts(out, "no overlay");
  rs_buf_printf(out, "; %s%s", o->region ? "region " : "any region", o->region ? o->region : "");
  if (r->prices_age_days > RS_FIT_PRICE_MAX_AGE_DAYS)
    rs_buf_printf(out, "; prices of %s are %d days old on %s (over %d: check them)",
                  cat->prices_as_of, r->prices_age_days, r->as_of, RS_FIT_PRICE_MAX_AGE_DAYS);
  else if (r->prices_age_days >= 0)
    rs_buf_printf(out, "; prices of %s", cat->prices_as_of);
  rs_buf_puts(out, eol);
  rs_buf_printf(out, "%sscope%s      providers ", pre, post);
  if (o->providers == NULL)
    rs_buf_printf(out, "%s (the current one)", p->current.provider);
  else if (o->nproviders == 0)
    rs_buf_puts(out, "all");
  else
    for (size_t i = 0; i < o->nproviders; i++)
      rs_buf_printf(out, "%s%s", i ? "," : "", o->providers[i]);
  rs_buf_puts(out, "; families ");
  bool first = true;
  for (unsigned bit = 1; bit <= RS_FAMILY_TPU; bit <<= 1) {
    if (r->families & bit) {
      rs_buf_printf(out, "%s%s", first ? "" : ",", rs_family_name(bit));
      first = false;
    }
  }
  rs_buf_printf(out, "; %zu shape%s fit%s, %zu rejected%s", r->nfitting,
                r->nfitting == 1 ? "" : "s", r->nfitting == 1 ? "s" : "", r->nrejected, eol);
  rs_buf_printf(out, "%scurrent%s    %s %s x%llu", pre, post, p->current.provider,
                p->current.instance, (unsigned long long)p->current.replicas);
  if (p->current.region)
    rs_buf_printf(out, " (%s)", p->current.region);
  rs_buf_puts(out, ": ");
  put_money(out, r->current.usd_per_month);
  rs_buf_printf(out, " $/month%s", eol);
  rs_buf_printf(out, "%smemory%s     needs %.2f GiB (%s), %.2f GiB with %.0f%% headroom%s", pre,
                post, d->mem_need / RS_GIB, d->mem_basis, d->mem_need_head / RS_GIB,
                o->headroom * 100.0, eol);
  if (d->capacity_only)
    rs_buf_printf(out, "%straffic%s    no request rate: design peak %.2f capacity units (%s)", pre,
                  post, d->design_peak, d->peak_basis);
  else
    rs_buf_printf(out, "%straffic%s    design peak %.2f req/s (%s)", pre, post, d->design_peak,
                  d->peak_basis);
  put_peak_meaning(out, r);
  if (!d->capacity_only && isfinite(d->rate_mean))
    rs_buf_printf(out, "; mean %.2f req/s", d->rate_mean);
  else if (!d->capacity_only)
    rs_buf_puts(out, "; mean unknown");
  if (isfinite(d->observed_peak))
    rs_buf_printf(out, ", observed max %.2f req/s", d->observed_peak);
  rs_buf_puts(out, eol);
  rs_buf_printf(out, "%scompute%s    ", pre, post);
  bool llm_only = d->llm.on && !d->capacity_only && !isfinite(d->busy_s);
  if (llm_only)
    rs_buf_printf(out,
                  "from the LLM serving model: prefill compute-bound, decode bandwidth-bound "
                  "(llm, efficiency below)%s",
                  eol);
  else if (d->capacity_only)
    rs_buf_printf(out, "busy %.1f%% of a device per replica at peak on %s (%s", d->busy_s * 100.0,
                  d->source->accelerator ? d->source->accelerator->name : d->source->name,
                  d->busy_basis);
  else if (isfinite(d->busy_s))
    rs_buf_printf(out, "busy %.2f ms per request on %s (%s", d->busy_s * 1e3,
                  d->source->accelerator ? d->source->accelerator->name : d->source->name,
                  d->busy_basis);
  else
    rs_buf_printf(out, "busy time unknown (%s", d->busy_basis);
  if (!llm_only && isfinite(d->busy_r2))
    rs_buf_printf(out, ", R2 %.2f", d->busy_r2);
  if (!llm_only)
    rs_buf_printf(out, "); model.bound %s%s", rs_bound_name(p->model.bound), eol);
  if (isfinite(d->service_q_ms))
    rs_buf_printf(out,
                  "%sslo%s        p%.0f <= %g ms; service p%.0f %.2f ms on the current device, "
                  "cs2 %.2f; ceiling %.0f%%%s",
                  pre, post, d->slo_quantile * 100.0, d->slo_ms, d->slo_quantile * 100.0,
                  d->service_q_ms, d->cs2, o->max_util * 100.0, eol);
  else if (d->llm.on)
    rs_buf_printf(out,
                  "%sslo%s        p%.0f <= %g ms end to end, from the LLM serving model (TTFT + "
                  "output tokens x TPOT); ceiling %.0f%%%s",
                  pre, post, d->slo_quantile * 100.0, d->slo_ms, o->max_util * 100.0, eol);
  else
    rs_buf_printf(out,
                  "%sslo%s        p%.0f <= %g ms; no latency claim (no latency samples, no "
                  "request rate); ceiling %.0f%%%s",
                  pre, post, d->slo_quantile * 100.0, d->slo_ms, o->max_util * 100.0, eol);
  rs_report_llm_header(out, r, pre, post, eol);
}

/* The candidate the "bound by" line describes: the verdict's target, else
 * the current deployment when it holds, else the best fit. */
static const rs_candidate *described(const rs_fit_result *r) {
  if (r->verdict.target)
    return r->verdict.target;
  return r->current.fits ? &r->current : &r->fitting[0];
}

static void put_recommendation(rs_buf *out, const rs_fit_result *r, const char *pre,
                               const char *post, const char *eol) {
  const rs_verdict *v = &r->verdict;
  if (r->nfitting == 0) {
    rs_buf_printf(out, "%sverdict%s    %s: %s%s", pre, post, rs_verdict_name(v->code), v->reason,
                  eol);
    if (v->code != RS_VERDICT_NO_FIT)
      return;
    rs_buf_printf(out, "%sno fit%s: no allowed shape meets every constraint; the closest:\n", pre,
                  post);
    for (size_t i = 0; i < r->nrejected && i < 5; i++)
      rs_buf_printf(out, "  %s %s: %s: %s\n", r->rejected[i].inst->provider,
                    r->rejected[i].inst->name, rs_constraint_name(r->rejected[i].failed),
                    r->rejected[i].reason);
    return;
  }
  rs_buf_printf(out, "%sverdict%s    %s: %s%s", pre, post, rs_verdict_name(v->code), v->reason,
                eol);
  if (v->target && v->passed_over)
    rs_buf_printf(out, "%snot chosen%s %s %s x%u at %.2f $/month: %s%s", pre, post,
                  v->passed_over->inst->provider, v->passed_over->inst->name,
                  v->passed_over->replicas, v->passed_over->usd_per_month, v->passed_over_why, eol);
  const rs_candidate *b = described(r);
  rs_buf_printf(out, "%sbound by%s   %s", pre, post, rs_constraint_name(b->binding));
  if (b->binding_why)
    rs_buf_printf(out, " (%s)", b->binding_why);
  rs_buf_printf(out, "; confidence %s", rs_confidence_name(b->confidence));
  /* a projection a reason spells out already is not repeated: its band only */
  const char *how = strncmp(b->basis, "modelled: ", 10) == 0 ? b->basis + 10 : NULL;
  bool said = false, band_said = false;
  char band[32];
  snprintf(band, sizeof band, "band +/-%.0f%%", b->error_band * 100.0);
  for (size_t i = 0; i < b->nreasons; i++) {
    rs_buf_printf(out, "%s%s", i ? "; " : ": ", b->reasons[i]);
    if (how && strstr(b->reasons[i], how)) {
      said = true;
      band_said = band_said || strstr(b->reasons[i], band) != NULL;
    }
  }
  if (said && band_said)
    rs_buf_puts(out, "\n");
  else if (said)
    rs_buf_printf(out, "; error band +/-%.0f%%\n", b->error_band * 100.0);
  else
    rs_buf_printf(out, "; projection %s, error band +/-%.0f%%\n", b->basis, b->error_band * 100.0);
  rs_report_llm_line(out, r, b, pre, post, eol);
}

static void put_warnings(rs_buf *out, const rs_fit_result *r, bool markdown) {
  if (r->nwarnings == 0)
    return;
  rs_buf_puts(out, markdown ? "\n**Warnings**\n\n" : "\nwarnings\n");
  for (size_t i = 0; i < r->nwarnings; i++) {
    if (markdown)
      rs_buf_printf(out, "- `%s` %s\n", rs_warning_code_name(r->warnings[i].code),
                    r->warnings[i].text);
    else
      rs_buf_printf(out, "  %-20s %s\n", rs_warning_code_name(r->warnings[i].code),
                    r->warnings[i].text);
  }
}

/* The back-test of the current deployment's service model on its history. */
static void put_backtest(rs_buf *out, const rs_demand *d, bool markdown) {
  const rs_backtest *bt = &d->backtest;
  const char *item = markdown ? "- " : "  ";
  rs_buf_puts(out, markdown ? "\n**Back-test**\n\n" : "\nback-test\n");
  if (!bt->run) {
    rs_buf_printf(out, "%snot run: no interval carried a request rate and a p%.0f latency\n", item,
                  d->slo_quantile * 100.0);
    return;
  }
  rs_buf_printf(out,
                "%spredicted/observed p%.0f over %llu intervals in %zu load buckets: median "
                "%.2f, p10 %.2f, p90 %.2f (band %.1f-%.1f)%s\n",
                item, d->slo_quantile * 100.0, (unsigned long long)bt->intervals, bt->buckets,
                bt->ratio_median, bt->ratio_p10, bt->ratio_p90, RS_BACKTEST_BAND_LO,
                RS_BACKTEST_BAND_HI, bt->off_band ? ": off its own history" : "");
  rs_buf_printf(out,
                "%sservice      median %.2f ms, cs2 %.2f, fitted over %zu points; hold %.2f ms "
                "per request on %u server%s (default %.2f ms, %.1f requests overlapped)\n",
                item, bt->s50_ms, bt->cs2, bt->points, bt->hold_ms, bt->servers,
                bt->servers == 1 ? "" : "s", bt->default_hold_ms, bt->concurrency);
  rs_buf_printf(out, "%swait         p%.0f %.2f ms at the mean load", item, d->slo_quantile * 100.0,
                bt->wait_mean_ms);
  if (isfinite(bt->spread_ms))
    rs_buf_printf(out, "; observed p%.0f - p50 %.2f ms", d->slo_quantile * 100.0, bt->spread_ms);
  rs_buf_puts(out, "\n");
}

/* --explain: the back-test, the winner's margins, then every rejected
 * shape's reason. */
static void put_explain(rs_buf *out, const rs_fit_result *r, bool markdown) {
  const rs_demand *d = &r->demand;
  const char *item = markdown ? "- " : "  ";
  if (d->latency_observed)
    put_backtest(out, d, markdown);
  if (r->nfitting) {
    const rs_candidate *b = &r->fitting[0];
    double cap = r->opts.max_util * 100.0;
    rs_buf_printf(out, markdown ? "\n**Margins of %s x%u**\n\n" : "\nmargins of %s x%u\n",
                  b->inst->name, b->replicas);
    rs_buf_printf(out,
                  "%smemory       %.2f GiB needed incl. headroom of %.2f GiB per server "
                  "(%u device%s): %.0f%% free before headroom\n",
                  item, d->mem_need_head / RS_GIB, b->mem_capacity / RS_GIB, b->devices_per_server,
                  b->devices_per_server > 1 ? "s" : "", b->mem_free * 100.0);
    if (b->llm.on) /* the LLM model's load and end to end latency (llm.c) */
      rs_buf_printf(out,
                    "%sload         %.1f%% at %.2f req/s over %u server%s of %.2f req/s each (%s "
                    "binds), ceiling %.0f%%\n"
                    "%slatency      p%.0f %.2f ms end to end = TTFT + %.0f output tokens x TPOT, "
                    "both at p%.0f, SLO %g ms: %.2f ms to spare\n",
                    item, b->util * 100.0, d->design_peak, b->servers, b->servers > 1 ? "s" : "",
                    b->llm.capacity_rps, b->llm.binds, cap, item, d->slo_quantile * 100.0,
                    b->latency_q_ms, d->llm.output_q, d->slo_quantile * 100.0, d->slo_ms,
                    d->slo_ms - b->latency_q_ms);
    else
      rs_buf_printf(out, "%sutilization  %.1f%% at %.2f %s over %u server%s, ceiling %.0f%%\n",
                    item, b->util * 100.0, d->design_peak,
                    d->capacity_only ? "capacity units" : "req/s", b->servers,
                    b->servers > 1 ? "s" : "", cap);
    if (!b->llm.on && !isfinite(b->latency_q_ms))
      rs_buf_printf(out, "%slatency      not modelled (no latency samples, no request rate)\n",
                    item);
    else if (!b->llm.on) /* an LLM's latency line is above */
      rs_buf_printf(out,
                    "%slatency      p%.0f %.2f ms = service %.2f ms + queueing %.2f ms "
                    "(P(wait) %.3f), SLO %g ms: %.2f ms to spare\n",
                    item, d->slo_quantile * 100.0, b->latency_q_ms, b->service_q_ms, b->wait_q_ms,
                    b->p_wait, d->slo_ms, d->slo_ms - b->latency_q_ms);
    if (isfinite(b->host_cpu_util))
      rs_buf_printf(out, "%shost CPU     %.1f%% of %.0f vCPUs, ceiling %.0f%%\n", item,
                    b->host_cpu_util * 100.0, b->inst->vcpus, cap);
    if (isfinite(b->host_mem_need))
      rs_buf_printf(out, "%shost memory  %.2f GiB needed incl. headroom of %.2f GiB\n", item,
                    b->host_mem_need / RS_GIB, b->inst->memory_bytes / RS_GIB);
    if (isfinite(b->net_util))
      rs_buf_printf(out, "%snetwork      %.2f%% of the %g Gbps baseline, ceiling %.0f%%\n", item,
                    b->net_util * 100.0,
                    isfinite(b->inst->network_baseline_gbps) ? b->inst->network_baseline_gbps
                                                             : b->inst->network_gbps,
                    cap);
    if (d->capacity_only)
      rs_buf_printf(out, "%sprojection   %s; %.1f%% of a server per capacity unit (x%.3f)\n", item,
                    b->basis, b->service_s * 100.0, b->ratio);
    else
      rs_buf_printf(out, "%sprojection   %s; busy %.2f ms per request per server (x%.3f)\n", item,
                    b->basis, b->service_s * 1e3, b->ratio);
    rs_report_llm_explain(out, r, b, item);
    for (size_t i = 0; i < b->nnotes; i++)
      rs_buf_printf(out, "%snote         %s\n", item, b->notes[i]);
  }
  rs_buf_printf(out, markdown ? "\n**Rejected (%zu)**\n\n" : "\nrejected (%zu)\n", r->nrejected);
  for (size_t i = 0; i < r->nrejected; i++) {
    const rs_candidate *c = &r->rejected[i];
    rs_buf_printf(out, "%s%-6s %-24s %-12s %s\n", item, c->inst->provider, c->inst->name,
                  rs_constraint_name(c->failed), c->reason);
  }
}

/* --explain: the words a newcomer meets first (docs/cli.md "Glossary"). */
static void put_glossary(rs_buf *out, bool markdown) {
  static const char *const terms[][2] = {
      {"design peak", "the request rate every shape is sized for (the traffic line says where it "
                      "comes from); UTIL and P99_MS are projected at it"},
      {"busy", "device time one request takes (ms), or the share of a device kept working (%)"},
      {"R2", "how well a straight line of utilization on request rate fits the samples (1 is a "
             "perfect fit); the slope is trusted from 0.3 up"},
      {"cs2", "squared coefficient of variation of the service time: 0 is constant, 1 as "
              "variable as an exponential; more variation, more queueing"},
      {"BOUND", "the constraint that sets the shape's replica count (memory, utilization, "
                "latency, host-cpu, host-memory, network); model.bound is the profile's own "
                "claim of what limits the model"}};
  rs_buf_puts(out, markdown ? "\n**Glossary**\n\n" : "\nglossary\n");
  for (size_t i = 0; i < sizeof(terms) / sizeof(terms[0]); i++)
    rs_buf_printf(out, markdown ? "- **%s** %s\n" : "  %-12s %s\n", terms[i][0], terms[i][1]);
}

/* The table and the Markdown share one layout; Markdown bolds the labels
 * and ends lines with a hard break. The text table's prose lines wrap at
 * the width unless --wide. */
static rs_status put_report(rs_buf *out, const rs_fit_result *r, const rs_report_fit_options *o,
                            bool md) {
  const char *mark = md ? "**" : "", *eol = md ? "  \n" : "\n";
  bool wrap = !md && !o->wide;
  rs_buf prose;
  rs_buf *w = wrap ? &prose : out;
  rs_buf_init(&prose, 0);
  if (md) {
    rs_buf_puts(out, "### rightsize: ");
    rs_buf_put_markdown(out, r->summary->profile->endpoint);
    rs_buf_puts(out, "\n\n");
  }
  put_header(w, r, mark, mark, eol);
  rs_buf_puts(w, "\n");
  if (wrap) {
    rs_text_wrap(out, &prose, RS_REPORT_FIT_WIDTH, 11); /* before the reset forgets a failure */
    rs_buf_reset(&prose);
  }
  put_rows(out, r, o, md ? OUT_MARKDOWN : OUT_TABLE);
  rs_buf_puts(w, "\n");
  put_recommendation(w, r, mark, mark, eol);
  if (o->explain) {
    put_explain(w, r, md);
    put_glossary(w, md);
  }
  put_warnings(w, r, md);
  if (wrap)
    rs_text_wrap(out, &prose, RS_REPORT_FIT_WIDTH, 11);
  rs_buf_release(&prose);
  return rs_buf_status(out);
}

rs_status rs_report_fit_table(rs_buf *out, const rs_fit_result *r, const rs_report_fit_options *o) {
  return put_report(out, r, o, false);
}

rs_status rs_report_fit_markdown(rs_buf *out, const rs_fit_result *r,
                                 const rs_report_fit_options *o) {
  return put_report(out, r, o, true);
}

rs_status rs_report_fit_csv(rs_buf *out, const rs_fit_result *r, const rs_report_fit_options *o) {
  put_rows(out, r, o, OUT_CSV);
  return rs_buf_status(out);
}
