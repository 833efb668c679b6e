/* `rightsize check` reports: text, JSON (rightsize.check/1), Markdown for a
 * pull-request comment, GitHub workflow annotations and JUnit XML
 * (docs/ci.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "rightsize/report_check.h"
#include "rightsize/report_fit.h"
#include "report_internal.h"
#include "escape.h"
#include "table.h"
#include "rightsize/version.h"

static const char *verdict(bool pass) { return pass ? "PASS" : "FAIL"; }

static void put_deployment(rs_buf *out, const rs_check_result *r) {
  const rs_candidate *e = r->evaluated;
  rs_buf_printf(out, "%s %s %s x%u", r->proposed ? "proposed" : "current", e->inst->provider,
                e->inst->name, e->replicas);
}

static rs_status check_text(rs_buf *dst, const rs_check_report *rep, bool wide) {
  size_t n = rep->nresults, policies = rep->failed_checks;
  rs_buf text, *out = wide ? dst : &text;
  rs_buf_init(&text, 0);
  for (size_t i = 0; i < n; i++) {
    const rs_check_result *r = &rep->results[i];
    const rs_profile *p = r->fit->summary->profile;
    rs_buf_printf(out, "%s  ", verdict(r->pass));
    rs_buf_put_text(out, p->endpoint);
    rs_buf_puts(out, " (");
    rs_buf_put_text(out, p->path);
    rs_buf_puts(out, "), ");
    put_deployment(out, r);
    rs_buf_puts(out, "\n");
    for (size_t k = 0; k < r->nchecks; k++)
      rs_buf_printf(out, "  %s  %-22s %s\n", verdict(r->checks[k].pass),
                    rs_policy_flag(r->checks[k].kind), r->checks[k].text);
  }
  rs_buf_printf(out, "%zu of %zu profile%s failed (%zu failed polic%s)\n", rep->failed, n,
                n == 1 ? "" : "s", policies, policies == 1 ? "y" : "ies");
  if (!wide)
    rs_text_wrap(dst, &text, RS_REPORT_FIT_WIDTH, 6);
  rs_buf_release(&text);
  return rs_buf_status(dst);
}

static rs_status check_json(rs_buf *out, const rs_check_report *rep) {
  rs_jsonw w;
  rs_jsonw_init(&w, out);
  rs_jsonw_object(&w, NULL);
  rs_jsonw_string(&w, "schema", RS_CHECK_JSON_SCHEMA);
  rs_jsonw_string(&w, "rightsize_version", rs_version());
  if (rep->catalog)
    rs_report_json_pricing(&w, rep->catalog, rep->basis, rep->overlay);
  rs_jsonw_bool(&w, "pass", rep->pass);
  rs_jsonw_array(&w, "profiles");
  for (size_t i = 0; i < rep->nresults; i++) {
    const rs_check_result *r = &rep->results[i];
    const rs_candidate *e = r->evaluated;
    rs_jsonw_object(&w, NULL);
    rs_jsonw_string(&w, "endpoint", r->fit->summary->profile->endpoint);
    rs_jsonw_string(&w, "profile", r->fit->summary->profile->path);
    rs_jsonw_bool(&w, "pass", r->pass);
    rs_jsonw_object(&w, "evaluated");
    rs_jsonw_bool(&w, "proposed", r->proposed);
    rs_jsonw_string(&w, "provider", e->inst->provider);
    rs_jsonw_string(&w, "instance", e->inst->name);
    rs_jsonw_uint(&w, "replicas", e->replicas);
    rs_jsonw_number(&w, "usd_per_month", e->usd_per_month);
    rs_jsonw_number(&w, "usd_per_million", e->usd_per_million);
    rs_jsonw_number(&w, "overprovision_pct", r->overprovision_pct);
    rs_jsonw_end(&w, '}');
    rs_jsonw_array(&w, "checks");
    for (size_t k = 0; k < r->nchecks; k++) {
      const rs_policy_check *c = &r->checks[k];
      rs_jsonw_object(&w, NULL);
      rs_jsonw_string(&w, "policy", rs_policy_key(c->kind));
      rs_jsonw_bool(&w, "pass", c->pass);
      rs_jsonw_number(&w, "value", c->value);
      rs_jsonw_number(&w, "limit", c->limit);
      rs_jsonw_string(&w, "text", c->text);
      rs_jsonw_end(&w, '}');
    }
    rs_jsonw_end(&w, ']');
    rs_jsonw_end(&w, '}');
  }
  rs_jsonw_end(&w, ']');
  rs_jsonw_end(&w, '}');
  rs_jsonw_finish(&w);
  return rs_buf_status(out);
}

typedef struct md_row {
  char deployment[160], policy[64], endpoint[512];
} md_row;

static rs_status check_markdown(rs_buf *out, const rs_check_report *rep) {
  static const char *const heads[5] = {"", "Endpoint", "Deployment", "Policy", "Details"};
  static const bool numeric[5] = {false, false, false, false, false};
  size_t n = rep->nresults, nrows = rep->nchecks, row = 0;
  md_row *extra = rs_malloc_array(nrows ? nrows : 1, sizeof(*extra));
  const char **cells = rs_malloc_array(nrows ? nrows : 1, sizeof(const char *[5]));
  if (extra == NULL || cells == NULL) {
    free(extra);
    free(cells);
    return RS_NOMEM;
  }
  for (size_t i = 0; i < n; i++) {
    const rs_check_result *r = &rep->results[i];
    for (size_t k = 0; k < r->nchecks; k++, row++) {
      const rs_policy_check *c = &r->checks[k];
      const rs_candidate *e = r->evaluated;
      snprintf(extra[row].deployment, sizeof(extra[row].deployment), "%s %s %s x%u",
               r->proposed ? "proposed" : "current", e->inst->provider, e->inst->name, e->replicas);
      snprintf(extra[row].policy, sizeof(extra[row].policy), "`%s`", rs_policy_flag(c->kind));
      const char **cell = cells + row * 5;
      cell[0] = c->pass ? ":white_check_mark:" : ":x:";
      const char *name = r->fit->summary->profile->endpoint;
      rs_escape_markdown(extra[row].endpoint, sizeof(extra[row].endpoint), name, strlen(name));
      cell[1] = extra[row].endpoint;
      cell[2] = extra[row].deployment;
      cell[3] = extra[row].policy;
      cell[4] = c->text;
    }
  }
  rs_buf_printf(out, "### rightsize check: %s\n\n", rep->pass ? "passed" : "failed");
  rs_buf_printf(out, "%zu of %zu profile%s failed.\n\n", rep->failed, n, n == 1 ? "" : "s");
  rs_table_write(out, RS_TABLE_MARKDOWN, 5, heads, numeric, cells, nrows);
  const rs_catalog *cat = rep->catalog;
  if (cat)
    rs_buf_printf(out, "\nCatalog %s (sha256 %.12s), %s prices.\n", cat->version, cat->sha256,
                  rs_price_basis_name(rep->basis));
  free(extra);
  free(cells);
  return rs_buf_status(out);
}

/* GitHub workflow commands: %, CR and LF are escaped in messages; ':' and ','
 * as well in properties (docs/ci.md cites GitHub's rules). With LF escaped a
 * "::" in a name or a message can never start a command line of its own. */
static void gh_escape(rs_buf *out, const char *s, bool property) {
  for (; *s; s++) {
    switch (*s) {
    case '%': rs_buf_puts(out, "%25"); break;
    case '\r': rs_buf_puts(out, "%0D"); break;
    case '\n': rs_buf_puts(out, "%0A"); break;
    case ':':
      if (property)
        rs_buf_puts(out, "%3A");
      else
        rs_buf_putc(out, ':');
      break;
    case ',':
      if (property)
        rs_buf_puts(out, "%2C");
      else
        rs_buf_putc(out, ',');
      break;
    default:
      /* GitHub decodes only the escapes above; any other control byte (an
       * ESC for the log's terminal) is shown as text, as in an error line. */
      if ((unsigned char)*s < 0x20 || *s == 0x7f)
        rs_buf_printf(out, "\\x%02x", (unsigned)(unsigned char)*s);
      else
        rs_buf_putc(out, *s);
      break;
    }
  }
}

static rs_status check_github(rs_buf *out, const rs_check_report *rep) {
  for (size_t i = 0; i < rep->nresults; i++) {
    const rs_check_result *r = &rep->results[i];
    const rs_profile *p = r->fit->summary->profile;
    for (size_t k = 0; k < r->nchecks; k++) {
      if (r->checks[k].pass)
        continue;
      rs_buf_puts(out, "::error file=");
      gh_escape(out, p->path, true);
      rs_buf_puts(out, ",title=");
      char title[128];
      snprintf(title, sizeof(title), "rightsize %s: %s", rs_policy_flag(r->checks[k].kind),
               p->endpoint);
      gh_escape(out, title, true);
      rs_buf_puts(out, "::");
      gh_escape(out, r->checks[k].text, false);
      rs_buf_puts(out, "\n");
    }
    if (r->pass) {
      rs_buf_puts(out, "::notice file=");
      gh_escape(out, p->path, true);
      rs_buf_puts(out, ",title=rightsize check::");
      char text[256];
      if (r->nchecks == 1)
        snprintf(text, sizeof(text), "%s: the one policy passes", p->endpoint);
      else
        snprintf(text, sizeof(text), "%s: all %zu policies pass", p->endpoint, r->nchecks);
      gh_escape(out, text, false);
      rs_buf_puts(out, "\n");
    }
  }
  return rs_buf_status(out);
}

/* The one escaping rule first (control bytes as \xHH text, invalid UTF-8
 * as bytes: XML 1.0 allows neither), then XML's entities. */
static void xml_escape(rs_buf *out, const char *raw) {
  char text[2048];
  rs_escape_text(text, sizeof(text), raw, strlen(raw), 0);
  for (const char *s = text; *s; s++) {
    switch (*s) {
    case '&': rs_buf_puts(out, "&amp;"); break;
    case '<': rs_buf_puts(out, "&lt;"); break;
    case '>': rs_buf_puts(out, "&gt;"); break;
    case '"': rs_buf_puts(out, "&quot;"); break;
    case '\'': rs_buf_puts(out, "&apos;"); break;
    default:
      /* control characters other than tab and newline are not allowed in XML 1.0 */
      if ((unsigned char)*s >= 0x20 || *s == '\t' || *s == '\n')
        rs_buf_putc(out, *s);
      break;
    }
  }
}

/* JUnit XML as the Jenkins xUnit plugin's junit-10.xsd reads it (the schema
 * most CI tools validate against): `file` is a testsuite attribute only,
 * `time` is a decimal number of seconds and `timestamp` the evaluation's
 * reference date. The checks are computed, not run, and the bytes must not
 * depend on the clock, so every time is 0. */
static void junit_testcase(rs_buf *out, const rs_profile *p, const rs_policy_check *c) {
  rs_buf_puts(out, "    <testcase classname=\"rightsize.check.");
  xml_escape(out, p->endpoint);
  rs_buf_printf(out, "\" name=\"%s\" time=\"0\">\n", rs_policy_flag(c->kind));
  if (c->pass) {
    rs_buf_puts(out, "      <system-out>");
    xml_escape(out, c->text);
    rs_buf_puts(out, "</system-out>\n    </testcase>\n");
    return;
  }
  rs_buf_puts(out, "      <failure type=\"policy\" message=\"");
  xml_escape(out, c->text);
  rs_buf_puts(out, "\">");
  xml_escape(out, c->text);
  rs_buf_puts(out, "</failure>\n    </testcase>\n");
}

static rs_status check_junit(rs_buf *out, const rs_check_report *rep) {
  rs_buf_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  rs_buf_printf(out,
                "<testsuites name=\"rightsize check\" tests=\"%zu\" failures=\"%zu\" "
                "errors=\"0\" time=\"0\">\n",
                rep->nchecks, rep->failed_checks);
  for (size_t i = 0; i < rep->nresults; i++) {
    const rs_check_result *r = &rep->results[i];
    const rs_profile *p = r->fit->summary->profile;
    rs_buf_puts(out, "  <testsuite name=\"");
    xml_escape(out, p->endpoint);
    rs_buf_printf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\" time=\"0\"",
                  r->nchecks, r->nfailed);
    if (r->fit->as_of != NULL) {
      rs_buf_puts(out, " timestamp=\"");
      xml_escape(out, r->fit->as_of);
      rs_buf_puts(out, "T00:00:00\"");
    }
    rs_buf_puts(out, " file=\"");
    xml_escape(out, p->path);
    rs_buf_puts(out, "\">\n");
    for (size_t k = 0; k < r->nchecks; k++)
      junit_testcase(out, p, &r->checks[k]);
    rs_buf_puts(out, "  </testsuite>\n");
  }
  rs_buf_puts(out, "</testsuites>\n");
  return rs_buf_status(out);
}

rs_status rs_report_check(rs_buf *out, const rs_check_report *rep, rs_check_format format,
                          bool wide) {
  switch (format) {
  case RS_CHECK_JSON: return check_json(out, rep);
  case RS_CHECK_MARKDOWN: return check_markdown(out, rep);
  case RS_CHECK_GITHUB: return check_github(out, rep);
  case RS_CHECK_JUNIT: return check_junit(out, rep);
  default: return check_text(out, rep, wide);
  }
}
