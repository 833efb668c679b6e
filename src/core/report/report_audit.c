/* `rightsize audit` reports: the fleet table with totals, the consolidation
 * plan, failed profiles; as a table, Markdown, CSV or JSON
 * (rightsize.audit/1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "jsonw.h"
#include "rightsize/num.h"
#include "rightsize/report_audit.h"
#include "rightsize/report_fit.h"
#include "report_internal.h"
#include "table.h"
#include "rightsize/version.h"

#define NCOLS 9
#define NARROW 7 /* the default text table: CONFIDENCE and WARNINGS go below it */

static const char *const heads[NCOLS] = {"ENDPOINT",    "CURRENT",     "NOW_MONTH",
                                         "RECOMMENDED", "AFTER_MONTH", "SAVE_MONTH",
                                         "SAVE_PCT",    "CONFIDENCE",  "WARNINGS"};
static const char *const csv_heads[NCOLS] = {
    "endpoint",          "current",     "usd_per_month_now", "recommended", "usd_per_month_after",
    "savings_per_month", "savings_pct", "confidence",        "warnings"};
static const bool numeric[NCOLS] = {false, false, true, false, true, true, true, false, false};

typedef struct cells {
  char c[NCOLS][160];
} cells;

static void money(char *dst, double v, bool raw) {
  if (!isfinite(v))
    snprintf(dst, 160, "%s", raw ? "" : "-");
  else
    snprintf(dst, 160, "%.2f", v == 0 ? 0.0 : v);
}

static void row_cells(cells *c, const rs_audit_row *r, bool raw) {
  if (raw)
    snprintf(c->c[0], 160, "%s", r->endpoint); /* CSV: quoted by the writer */
  else
    rs_escape_text(c->c[0], 160, r->endpoint, strlen(r->endpoint), 0);
  snprintf(c->c[1], 160, "%s x%llu", r->current_instance, (unsigned long long)r->current_replicas);
  money(c->c[2], r->now_month, raw);
  if (r->after)
    snprintf(c->c[3], 160, "%s x%u", r->after->name, r->after_replicas);
  else
    snprintf(c->c[3], 160, "%s", rs_verdict_name(r->verdict));
  money(c->c[4], r->after_month, raw);
  money(c->c[5], r->savings_month, raw);
  if (isfinite(r->savings_pct))
    snprintf(c->c[6], 160, raw ? "%.2f" : "%.1f%%", r->savings_pct == 0 ? 0.0 : r->savings_pct);
  else
    snprintf(c->c[6], 160, "%s", raw ? "" : "-");
  snprintf(c->c[7], 160, "%s", rs_confidence_name(r->confidence));
  size_t off = 0;
  c->c[8][0] = '\0';
  for (size_t i = 0; i < r->nwarnings && off < 150; i++)
    off += (size_t)snprintf(c->c[8] + off, 160 - off, "%s%s", i ? (raw ? ";" : ",") : "",
                            rs_warning_code_name(r->warnings[i]));
  if (off == 0 && !raw)
    snprintf(c->c[8], 160, "-");
}

static size_t audited(const rs_audit *a) { return a->nrows - a->nfailed; }

static void put_table(rs_buf *out, const rs_audit *a, bool md, bool wide) {
  size_t n = audited(a);
  cells *rows = rs_malloc_array(n + 1, sizeof(*rows));
  const char **ptrs = rs_malloc_array(n + 1, sizeof(const char *[NCOLS]));
  if (rows == NULL || ptrs == NULL) {
    out->failed = true;
    free(rows);
    free(ptrs);
    return;
  }
  for (size_t i = 0; i < n; i++) {
    row_cells(&rows[i], &a->rows[i], false);
    const char *name = a->rows[i].endpoint;
    if (md)
      rs_escape_markdown(rows[i].c[0], 160, name, strlen(name));
  }
  cells *tot = &rows[n];
  memset(tot, 0, sizeof(*tot));
  snprintf(tot->c[0], 160, md ? "**total (%zu)**" : "total (%zu)", n);
  money(tot->c[2], a->now_month, false);
  money(tot->c[4], a->after_month, false);
  money(tot->c[5], a->savings_month, false);
  if (isfinite(a->savings_pct))
    snprintf(tot->c[6], 160, "%.1f%%", a->savings_pct);
  size_t ncols = md || wide ? NCOLS : NARROW;
  for (size_t i = 0; i <= n; i++)
    for (size_t k = 0; k < ncols; k++)
      ptrs[i * ncols + k] = rows[i].c[k];
  rs_table_write(out, md ? RS_TABLE_MARKDOWN : RS_TABLE_TEXT, ncols, heads, numeric, ptrs, n + 1);
  free(ptrs);
  free(rows);
}

/* Below the default text table, the two columns it leaves out: how many
 * endpoints have each confidence, and each endpoint's warning codes. */
static void put_notes(rs_buf *out, const rs_audit *a) {
  size_t count[RS_CONF_COUNT] = {0}, n = audited(a), shown = 0;
  if (n == 0)
    return;
  for (size_t i = 0; i < n; i++)
    if ((unsigned)a->rows[i].confidence < RS_CONF_COUNT)
      count[a->rows[i].confidence]++;
  rs_buf_puts(out, "\nconfidence");
  for (int c = RS_CONF_COUNT - 1; c >= 0; c--)
    if (count[c])
      rs_buf_printf(out, "%s %zu %s", shown++ ? "," : "", count[c],
                    rs_confidence_name((rs_confidence)c));
  rs_buf_puts(out, "\nwarnings  ");
  shown = 0;
  for (size_t i = 0; i < n; i++) {
    const rs_audit_row *r = &a->rows[i];
    if (r->nwarnings == 0)
      continue;
    rs_buf_puts(out, shown++ ? "; " : " ");
    rs_buf_put_text(out, r->endpoint);
    for (size_t k = 0; k < r->nwarnings; k++)
      rs_buf_printf(out, "%s%s", k ? ", " : ": ", rs_warning_code_name(r->warnings[k]));
  }
  rs_buf_puts(out, shown ? "\n" : " none\n");
}

static void put_consolidation(rs_buf *out, const rs_audit *a, bool md) {
  const rs_consolidation *c = a->consolidation;
  if (c == NULL)
    return;
  const char *item = md ? "- " : "  ";
  rs_buf_puts(out, md ? "\n**Consolidation**\n\n" : "\nconsolidation\n");
  if (c->npackings == 0) {
    rs_buf_printf(out, "%sno packing of endpoints onto shared instances saves money\n", item);
    return;
  }
  rs_buf_printf(out,
                "%s%zu endpoints on %zu shared shape%s: %.2f $/month against %.2f sized one by "
                "one, saves %.2f $/month; fleet after consolidation %.2f $/month\n",
                item, c->packed, c->npackings, c->npackings == 1 ? "" : "s", c->month,
                c->baseline_month, c->savings_month, c->fleet_month);
  rs_buf_printf(
      out,
      "%s%zu shared instance%s, lower bound %zu (+%.1f%%; per shape, the endpoints' total "
      "device memory, busy time, host CPU and memory over one instance's)\n",
      item, c->instances, c->instances == 1 ? "" : "s", c->lower_bound, 100.0 * c->above_bound);
  for (size_t k = 0; k < c->npackings; k++) {
    const rs_packing *p = &c->packings[k];
    for (size_t i = 0; i < p->ninstances; i++) {
      const rs_packed_instance *pi = &p->instances[i];
      rs_buf_printf(out, "%s%s %s #%zu (%s x%.0f, %.2f $/month): host %.1f vCPUs, %.1f GiB\n", item,
                    p->shape->provider, p->shape->name, i + 1, p->shape->accelerator->key,
                    p->shape->accelerator_count, p->instance_month, pi->host_cpu,
                    pi->host_mem / RS_GIB);
      for (unsigned d = 0; d < pi->devices_used; d++) {
        bool any = false;
        for (size_t j = 0; j < pi->nendpoints; j++)
          any = any || pi->endpoints[j].device == d;
        if (!any)
          continue;
        rs_buf_printf(out, "%s  device %u: %.2f of %.2f GiB, %.0f%% busy:", md ? "  " : "  ", d,
                      pi->mem_used[d] / RS_GIB, p->shape->accelerator_memory_bytes / RS_GIB,
                      pi->util[d] * 100.0);
        for (size_t j = 0; j < pi->nendpoints; j++) {
          const rs_packed_endpoint *e = &pi->endpoints[j];
          if (e->device != d)
            continue;
          rs_buf_printf(out, " %s (p%.0f %.1f of %g ms)", a->rows[e->row].endpoint,
                        e->slo_quantile * 100.0, e->latency_ms, e->slo_ms);
        }
        rs_buf_puts(out, "\n");
      }
    }
  }
}

static void put_failed(rs_buf *out, const rs_audit *a, bool md) {
  if (a->nfailed == 0)
    return;
  rs_buf_printf(out, md ? "\n**Failed (%zu)**\n\n" : "\nfailed (%zu)\n", a->nfailed);
  for (size_t i = audited(a); i < a->nrows; i++) {
    char line[1200];
    rs_error_format(a->rows[i].err, line, sizeof(line));
    rs_buf_printf(out, "%s%s\n", md ? "- " : "  ", line);
  }
}

static void put_head(rs_buf *out, const rs_audit *a, bool md) {
  const char *eol = md ? "  \n" : "\n";
  if (md)
    rs_buf_puts(out, "### rightsize audit\n\n");
  rs_buf_printf(out, "%sprofiles%s   %zu audited, %zu failed%s", md ? "**" : "", md ? "**" : "",
                audited(a), a->nfailed, eol);
  rs_buf_printf(out, "%scatalog%s    %s sha256 %.12s; %s prices%s", md ? "**" : "", md ? "**" : "",
                a->catalog->version, a->catalog->sha256, rs_price_basis_name(a->basis), eol);
  rs_buf_puts(out, "\n");
}

static rs_status audit_json(rs_buf *out, const rs_audit *a) {
  rs_jsonw w;
  rs_jsonw_init(&w, out);
  rs_jsonw_object(&w, NULL);
  rs_jsonw_string(&w, "schema", RS_AUDIT_JSON_SCHEMA);
  rs_jsonw_string(&w, "rightsize_version", rs_version());
  rs_report_json_pricing(&w, a->catalog, a->basis, a->overlay);
  rs_jsonw_uint(&w, "audited", audited(a));
  rs_jsonw_uint(&w, "failed", a->nfailed);
  rs_jsonw_object(&w, "totals");
  rs_jsonw_number(&w, "usd_per_month_now", a->now_month);
  rs_jsonw_number(&w, "usd_per_month_after", a->after_month);
  rs_jsonw_number(&w, "savings_per_month", a->savings_month);
  rs_jsonw_end(&w, '}');
  rs_jsonw_array(&w, "endpoints");
  for (size_t i = 0; i < audited(a); i++) {
    const rs_audit_row *r = &a->rows[i];
    rs_jsonw_object(&w, NULL);
    rs_jsonw_string(&w, "endpoint", r->endpoint);
    rs_jsonw_string(&w, "profile", r->path);
    rs_jsonw_string(&w, "current_instance", r->current_instance);
    rs_jsonw_uint(&w, "current_replicas", r->current_replicas);
    rs_jsonw_number(&w, "usd_per_month_now", r->now_month);
    rs_jsonw_string(&w, "action", rs_action_name(r->action));
    rs_jsonw_string(&w, "verdict", rs_verdict_name(r->verdict));
    rs_jsonw_number(&w, "wasted_usd_per_month", r->wasted_month);
    rs_jsonw_string(&w, "recommended_provider", r->after ? r->after->provider : NULL);
    rs_jsonw_string(&w, "recommended_instance", r->after ? r->after->name : NULL);
    if (r->after)
      rs_jsonw_uint(&w, "recommended_replicas", r->after_replicas);
    else
      rs_jsonw_null(&w, "recommended_replicas");
    rs_jsonw_number(&w, "usd_per_month_after", r->after_month);
    rs_jsonw_number(&w, "savings_per_month", r->savings_month);
    rs_jsonw_number(&w, "savings_pct", r->savings_pct);
    rs_jsonw_string(&w, "confidence", rs_confidence_name(r->confidence));
    rs_jsonw_array(&w, "warnings");
    for (size_t k = 0; k < r->nwarnings; k++)
      rs_jsonw_string(&w, NULL, rs_warning_code_name(r->warnings[k]));
    rs_jsonw_end(&w, ']');
    rs_jsonw_end(&w, '}');
  }
  rs_jsonw_end(&w, ']');
  rs_jsonw_array(&w, "failures");
  for (size_t i = audited(a); i < a->nrows; i++) {
    char line[1200];
    rs_jsonw_object(&w, NULL);
    rs_jsonw_string(&w, "profile", a->rows[i].path);
    rs_jsonw_string(&w, "error", rs_error_format(a->rows[i].err, line, sizeof(line)));
    rs_jsonw_uint(&w, "exit_code", (uint64_t)rs_status_exit_code(a->rows[i].err->status));
    rs_jsonw_end(&w, '}');
  }
  rs_jsonw_end(&w, ']');
  const rs_consolidation *c = a->consolidation;
  if (c == NULL) {
    rs_jsonw_null(&w, "consolidation");
  } else {
    rs_jsonw_object(&w, "consolidation");
    rs_jsonw_uint(&w, "endpoints_packed", c->packed);
    rs_jsonw_number(&w, "usd_per_month", c->month);
    rs_jsonw_number(&w, "usd_per_month_one_by_one", c->baseline_month);
    rs_jsonw_number(&w, "savings_per_month", c->savings_month);
    rs_jsonw_number(&w, "fleet_usd_per_month_after", c->fleet_month);
    rs_jsonw_uint(&w, "shared_instances", c->instances);
    rs_jsonw_uint(&w, "instances_lower_bound", c->lower_bound);
    rs_jsonw_array(&w, "instances");
    for (size_t k = 0; k < c->npackings; k++) {
      const rs_packing *p = &c->packings[k];
      for (size_t i = 0; i < p->ninstances; i++) {
        const rs_packed_instance *pi = &p->instances[i];
        rs_jsonw_object(&w, NULL);
        rs_jsonw_string(&w, "provider", p->shape->provider);
        rs_jsonw_string(&w, "instance", p->shape->name);
        rs_jsonw_number(&w, "usd_per_month", p->instance_month);
        rs_jsonw_number(&w, "host_vcpus_used", pi->host_cpu);
        rs_jsonw_number(&w, "host_memory_bytes_used", pi->host_mem);
        rs_jsonw_array(&w, "endpoints");
        for (size_t j = 0; j < pi->nendpoints; j++) {
          const rs_packed_endpoint *e = &pi->endpoints[j];
          rs_jsonw_object(&w, NULL);
          rs_jsonw_string(&w, "endpoint", a->rows[e->row].endpoint);
          rs_jsonw_uint(&w, "device", e->device);
          rs_jsonw_number(&w, "device_memory_used_bytes", pi->mem_used[e->device]);
          rs_jsonw_number(&w, "device_utilization", pi->util[e->device]);
          rs_jsonw_number(&w, "latency_ms", e->latency_ms);
          rs_jsonw_number(&w, "slo_ms", e->slo_ms);
          rs_jsonw_number(&w, "slo_quantile", e->slo_quantile);
          rs_jsonw_end(&w, '}');
        }
        rs_jsonw_end(&w, ']');
        rs_jsonw_end(&w, '}');
      }
    }
    rs_jsonw_end(&w, ']');
    rs_jsonw_end(&w, '}');
  }
  rs_jsonw_end(&w, '}');
  rs_jsonw_finish(&w);
  return rs_buf_status(out);
}

static rs_status audit_csv(rs_buf *out, const rs_audit *a) {
  for (int k = 0; k < NCOLS; k++)
    rs_buf_printf(out, "%s%s", k ? "," : "", csv_heads[k]);
  rs_buf_puts(out, ",profile\n");
  for (size_t i = 0; i < audited(a); i++) {
    cells c;
    row_cells(&c, &a->rows[i], true);
    for (int k = 0; k < NCOLS; k++) {
      if (k)
        rs_buf_putc(out, ',');
      rs_buf_put_csv(out, c.c[k]);
    }
    rs_buf_putc(out, ',');
    rs_buf_put_csv(out, a->rows[i].path);
    rs_buf_putc(out, '\n');
  }
  return rs_buf_status(out);
}

rs_status rs_report_audit(rs_buf *dst, const rs_audit *a, rs_audit_format format, bool wide) {
  bool md = format == RS_AUDIT_MARKDOWN, wrap = !md && !wide;
  switch (format) {
  case RS_AUDIT_JSON: return audit_json(dst, a);
  case RS_AUDIT_CSV: return audit_csv(dst, a);
  default: break;
  }
  rs_buf text, *out = wrap ? &text : dst;
  rs_buf_init(&text, 0);
  put_head(out, a, md);
  put_table(out, a, md, wide);
  if (wrap)
    put_notes(out, a);
  put_consolidation(out, a, md);
  put_failed(out, a, md);
  if (wrap)
    rs_text_wrap(dst, &text, RS_REPORT_FIT_WIDTH, 11);
  rs_buf_release(&text);
  return rs_buf_status(dst);
}
