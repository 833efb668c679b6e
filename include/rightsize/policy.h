/* Policies for `rightsize check` (docs/ci.md): thresholds a deployment must
 * meet, from flags or a policy file, evaluated on a fit result.
 *
 * A policy file is YAML or JSON with flat keys (schema 1):
 *   schema: 1
 *   max_cost_per_million: 25      # USD per million predictions
 *   max_monthly_usd: 2000
 *   max_overprovision_pct: 50     # evaluated cost over the best fitting shape's
 *   require_slo: true             # every constraint holds at the design peak
 *   min_memory_headroom_pct: 20   # device memory left free
 *   min_confidence: medium
 *   fail_verdicts: [idle, no-traffic, underused]   # verdict codes (fit.h) */
#ifndef RIGHTSIZE_POLICY_H
#define RIGHTSIZE_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "rightsize/arena.h"
#include "rightsize/error.h"
#include "rightsize/fit.h"

/* X(NAME, key in files and reports, flag) */
#define RS_POLICY_MAP(X)                                                                           \
  X(COST_PER_MILLION, "max_cost_per_million", "max-cost-per-million")                              \
  X(MONTHLY, "max_monthly_usd", "max-monthly")                                                     \
  X(OVERPROVISION, "max_overprovision_pct", "max-overprovision")                                   \
  X(SLO, "require_slo", "require-slo")                                                             \
  X(HEADROOM, "min_memory_headroom_pct", "min-headroom")                                           \
  X(CONFIDENCE, "min_confidence", "min-confidence")                                                \
  X(VERDICT, "fail_verdicts", "fail-verdict")

typedef enum {
#define RS_POLICY_ENUM(name, key, flag) RS_POLICY_##name,
  RS_POLICY_MAP(RS_POLICY_ENUM)
#undef RS_POLICY_ENUM
      RS_POLICY_COUNT
} rs_policy_kind;

const char *rs_policy_key(rs_policy_kind k);
const char *rs_policy_flag(rs_policy_kind k);

typedef struct rs_policy_set {
  bool set[RS_POLICY_COUNT];
  double limit[RS_POLICY_COUNT]; /* USD, USD, percent, -, percent, rs_confidence, verdict bits */
  const char *path;              /* the policy file, or NULL */
} rs_policy_set;

/* True when set asks for at least one policy. */
bool rs_policy_set_any(const rs_policy_set *set);

/* "idle,no-traffic" -> bit (1 << code) per verdict code; RS_USAGE for an
 * empty list or an unknown code. */
rs_status rs_policy_verdicts_parse(unsigned *out, const char *list);

/* Reads a policy file into set (keys it names are set; others untouched).
 * RS_INVALID with position for an unknown key, a wrong type or an out of
 * range value, RS_IO / RS_SYNTAX as for any document. */
rs_status rs_policy_load(rs_policy_set *set, rs_arena *arena, const char *path, rs_error *err);

typedef struct rs_policy_check {
  rs_policy_kind kind;
  bool pass;
  double value; /* what was measured, in the limit's unit; NaN when it cannot be */
  double limit;
  const char *text; /* one line: what was measured against what */
} rs_policy_check;

typedef struct rs_check_result {
  const rs_fit_result *fit;
  const rs_candidate *evaluated; /* the current deployment, or the proposed one */
  bool proposed;
  double overprovision_pct; /* evaluated $/month over the best fitting shape's, percent */
  rs_policy_check checks[RS_POLICY_COUNT];
  size_t nchecks; /* the policies set, in RS_POLICY_MAP order */
  size_t nfailed; /* of them, the ones that failed */
  bool pass;      /* nfailed == 0 */
} rs_check_result;

/* The verdict of `rightsize check` over every profile, computed once:
 * writers and the exit code read it. */
typedef struct rs_check_report {
  const rs_check_result *results;
  size_t nresults;
  size_t failed;             /* profiles that failed a policy */
  size_t nchecks;            /* policies evaluated, over every profile */
  size_t failed_checks;      /* of them, the ones that failed */
  bool pass;                 /* no profile failed */
  const rs_catalog *catalog; /* what priced the fits */
  rs_price_basis basis;
  const rs_overlay *overlay;
} rs_check_report;

/* Evaluates every policy set on fit (its proposed deployment when there is
 * one, else the current). Texts live in arena. RS_NOMEM only. */
rs_status rs_policy_evaluate(rs_check_result *out, rs_arena *arena, const rs_policy_set *set,
                             const rs_fit_result *fit, rs_error *err);

/* Fills *out from n evaluated results (borrowed): counts and the verdict. */
void rs_check_report_tally(rs_check_report *out, const rs_check_result *results, size_t n,
                           const rs_catalog *catalog, rs_price_basis basis,
                           const rs_overlay *overlay);

#endif
