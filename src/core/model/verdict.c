/* The sizing policy (docs/model.md "Sizing policy"): one place decides what
 * to do about the current deployment from the ranked fit, in this order:
 * an endpoint without traffic or idle, no fit, untrusted data, the current
 * shape unpriced or failing, then a move only when it saves the minimum and
 * keeps the memory margin; idle devices and an underused shape say what
 * they waste. A suspect price never decides: the target is the cheapest
 * trusted fit. */
#include <math.h>
#include <string.h>

#include "names.h"
#include "fit_internal.h"
#include "rightsize/num.h"

static const char *const verdict_names[] = {
#define RS_VERDICT_NAME(name, key) key,
    RS_VERDICT_MAP(RS_VERDICT_NAME)
#undef RS_VERDICT_NAME
};

const char *rs_verdict_name(rs_verdict_code v) {
  return (unsigned)v < RS_VERDICT_COUNT ? verdict_names[v] : "unknown";
}

rs_status rs_verdict_from_name(rs_verdict_code *out, const char *name) {
  int i = rs_names_find(verdict_names, RS_VERDICT_COUNT, name);
  if (i < 0)
    return RS_USAGE;
  *out = (rs_verdict_code)i;
  return RS_OK;
}

/* ---- what the data says about the current deployment ---- */

/* The busiest device's peak utilization (a CPU source: its CPU), and how
 * many devices never worked while another did. */
static double peak_util(const rs_fit_result *res, unsigned *idle) {
  const rs_endpoint_stats *st = &res->summary->stats;
  double peak = NAN;
  unsigned n_idle = 0, n_seen = 0;
  *idle = 0;
  if (res->demand.source->category == RS_CATEGORY_CPU)
    return st->m[RS_METRIC_CPU_UTIL].count ? st->m[RS_METRIC_CPU_UTIL].max : NAN;
  for (size_t i = 0; i < st->ndevices; i++) {
    const rs_metric_stats *u = &st->devices[i].m[RS_METRIC_GPU_UTIL];
    if (u->count == 0)
      continue;
    n_seen++;
    n_idle += u->max < RS_IDLE_UTIL_PCT;
    if (isnan(peak) || u->max > peak)
      peak = u->max;
  }
  if (n_idle < n_seen)
    *idle = n_idle;
  return peak;
}

/* The user named the peak as a rate: the data's own peaks are not used. */
static bool peak_named(const rs_fit_ctx *ctx) {
  if (ctx->o->peak_set)
    return ctx->o->peak == RS_PEAK_RPS;
  return !isnan(ctx->profile->traffic.peak_rps);
}

/* A move's target keeps RS_FIT_MEM_MARGIN of its memory free beyond the
 * headroom (on a CPU shape the host memory holds the model). */
static bool keeps_margin(const rs_demand *d, const rs_candidate *c) {
  double used = c->inst->category == RS_CATEGORY_CPU ? c->host_mem_need : d->mem_need_head;
  return used <= (1.0 - RS_FIT_MEM_MARGIN) * c->mem_capacity;
}

static unsigned family_bit(const rs_instance *in) {
  if (in->category == RS_CATEGORY_CPU || in->accelerator == NULL)
    return RS_FAMILY_CPU;
  return rs_accel_family_bit(in->accelerator->family);
}

/* Whether b runs what a runs without a port: the same accelerator family
 * and, where both are known, the same host architecture (an x86_64 image
 * does not run on an arm64 host). */
static bool same_kind(const rs_instance *a, const rs_instance *b) {
  if (family_bit(a) != family_bit(b))
    return false;
  return a->arch == RS_ARCH_UNKNOWN || b->arch == RS_ARCH_UNKNOWN || a->arch == b->arch;
}

/* When the chosen target needs a port from the current shape (another
 * accelerator family or host architecture), the cheapest trusted fit of the
 * current kind that keeps the memory margin and costs at most
 * RS_FIT_PORT_PREMIUM more: a port (a Neuron compilation, a TPU build, a CPU
 * runtime, an arm64 image) is work and risk the saving must pay for. NULL
 * when there is none. */
static const rs_candidate *same_family(const rs_fit_result *res, const rs_candidate *best) {
  const rs_instance *now = res->current.inst;
  if (same_kind(now, best->inst))
    return NULL;
  for (size_t i = 0; i < res->nfitting; i++) {
    const rs_candidate *c = &res->fitting[i];
    if (c->usd_per_month > best->usd_per_month * (1.0 + RS_FIT_PORT_PREMIUM))
      break;
    if (same_kind(now, c->inst) && c->inst->price_flag != RS_PRICE_SUSPECT &&
        keeps_margin(&res->demand, c))
      return c;
  }
  return NULL;
}

/* Why a port was passed over for kin. */
static const char *port_text(rs_fit_ctx *ctx, const rs_instance *now, const rs_instance *port) {
  if (family_bit(port) != family_bit(now))
    return rs_fit_printf(ctx,
                         "it is %s, another accelerator family: the model would have to be "
                         "ported, and a %s shape costs at most %.0f%% more",
                         rs_family_name(family_bit(port)), rs_family_name(family_bit(now)),
                         RS_FIT_PORT_PREMIUM * 100.0);
  return rs_fit_printf(ctx,
                       "its host is %s, the current one's %s: the serving image would have to "
                       "be rebuilt, and an %s shape costs at most %.0f%% more",
                       rs_arch_name(port->arch), rs_arch_name(now->arch), rs_arch_name(now->arch),
                       RS_FIT_PORT_PREMIUM * 100.0);
}

/* The cheapest fit whose price is trusted and that keeps the memory margin;
 * failing that the cheapest trusted one, failing that the cheapest; a
 * same-family shape within RS_FIT_PORT_PREMIUM of a cross-family one. Says
 * why a cheaper fit was passed over. */
static const rs_candidate *choose_target(rs_fit_ctx *ctx, rs_fit_result *res) {
  const rs_candidate *trusted = NULL, *best = NULL;
  rs_verdict *v = &res->verdict;
  for (size_t i = 0; i < res->nfitting && best == NULL; i++) {
    const rs_candidate *c = &res->fitting[i];
    if (c->inst->price_flag == RS_PRICE_SUSPECT)
      continue;
    if (trusted == NULL)
      trusted = c;
    if (keeps_margin(&res->demand, c))
      best = c;
  }
  if (best == NULL)
    best = trusted ? trusted : &res->fitting[0];
  const rs_candidate *kin = same_family(res, best);
  if (kin != NULL) {
    v->passed_over = best;
    v->passed_over_why = port_text(ctx, res->current.inst, best->inst);
    return kin;
  }
  const rs_candidate *first = &res->fitting[0];
  if (best != first && best->usd_per_month > first->usd_per_month) {
    v->passed_over = first;
    v->passed_over_why =
        first->inst->price_flag == RS_PRICE_SUSPECT
            ? "the catalog marks its price suspect, so it cannot decide the verdict"
            : rs_fit_printf(ctx,
                            "it would keep %.0f%% of its memory free with headroom, under the "
                            "%.0f%% margin a move keeps",
                            (1.0 - res->demand.mem_need_head / first->mem_capacity) * 100.0,
                            RS_FIT_MEM_MARGIN * 100.0);
  }
  return best;
}

static const char *shape_text(rs_fit_ctx *ctx, const rs_candidate *c) {
  return rs_fit_printf(ctx, "%s %s x%u for %.2f $/month", c->inst->provider, c->inst->name,
                       c->replicas, c->usd_per_month);
}

static void set(rs_verdict *v, rs_verdict_code code, rs_action act, const char *reason) {
  v->code = code;
  v->action = act;
  v->reason = reason;
}

/* ---- the rules, in order ---- */

/* No traffic, or next to none on idle devices: the whole cost is waste. */
static bool rule_idle(rs_fit_ctx *ctx, rs_fit_result *res, double month) {
  const rs_metric_stats *r = &ctx->sum->stats.m[RS_METRIC_REQUEST_RATE];
  rs_verdict *v = &res->verdict;
  if (r->count == 0)
    return false;
  double days = ctx->sum->stats.coverage.duration_s / 86400.0;
  if (r->max == 0) {
    v->wasted_month = month;
    set(v, RS_VERDICT_NO_TRAFFIC, RS_ACTION_REVIEW,
        rs_fit_printf(ctx,
                      "not one request in %llu intervals over %.1f days: %.2f $/month buys "
                      "nothing; retire the endpoint or let it scale to zero",
                      (unsigned long long)r->count, days, month));
    return true;
  }
  double mean = res->demand.rate_mean;
  double pu = v->peak_util_pct;
  if (mean < RS_FIT_IDLE_RPS && !(pu >= RS_FIT_IDLE_UTIL_PCT)) {
    v->wasted_month = month;
    set(v, RS_VERDICT_IDLE, RS_ACTION_REVIEW,
        rs_fit_printf(ctx,
                      "%.4f req/s on average (under one a minute) and devices at most %.1f%% "
                      "busy over %.1f days: %.2f $/month is idle; retire the endpoint, scale "
                      "it to zero or share a device with another model",
                      mean, isnan(pu) ? 0.0 : pu, days, month));
    return true;
  }
  return false;
}

/* Load-test, chaos or synthetic data: no move unless the peak is named. */
static bool rule_untrusted(rs_fit_ctx *ctx, rs_fit_result *res, const rs_candidate *t) {
  rs_verdict *v = &res->verdict;
  if (ctx->sum->source == RS_SOURCE_PRODUCTION || peak_named(ctx))
    return false;
  v->passed_over = t;
  v->passed_over_why = "the data cannot say what production needs";
  set(v, RS_VERDICT_UNTRUSTED_DATA, RS_ACTION_KEEP,
      rs_fit_printf(ctx,
                    "%s data hides the real peaks: no move without a named peak (--peak RPS "
                    "or traffic.peak_rps); on this data alone the best is %s",
                    rs_source_name(ctx->sum->source), shape_text(ctx, t)));
  return true;
}

/* Savings against now: a move must clear both minimums. */
/* reason, and when the target needs a port from the current shape (another
 * accelerator family or host architecture, same_kind) what the port is: a
 * move the policy chose anyway should not hide it. */
static const char *with_port(rs_fit_ctx *ctx, const rs_fit_result *res, const rs_candidate *t,
                             const char *reason) {
  const rs_instance *now = res->current.inst;
  if (reason == NULL || same_kind(now, t->inst))
    return reason;
  if (family_bit(t->inst) != family_bit(now))
    return rs_fit_printf(ctx, "%s; a port from %s to %s", reason, rs_family_name(family_bit(now)),
                         rs_family_name(family_bit(t->inst)));
  return rs_fit_printf(ctx, "%s; a port from an %s host to an %s one (rebuild the serving image)",
                       reason, rs_arch_name(now->arch), rs_arch_name(t->inst->arch));
}

static void rule_savings(rs_fit_ctx *ctx, rs_fit_result *res, const rs_candidate *t) {
  rs_verdict *v = &res->verdict;
  const rs_profile *p = ctx->profile;
  const rs_candidate *cur = &res->current;
  bool same = t->inst == cur->inst && t->replicas == cur->replicas;
  if (!cur->fits) {
    v->target = t;
    v->savings_month = t->savings_month;
    v->savings_pct = t->savings_pct;
    if (t->savings_month > 0)
      set(v, RS_VERDICT_MOVE, RS_ACTION_MOVE,
          with_port(
              ctx, res, t,
              rs_fit_printf(ctx, "%s saves %.2f $/month (%.1f%%); the current deployment fails: %s",
                            shape_text(ctx, t), t->savings_month, t->savings_pct, cur->reason)));
    else
      set(v, RS_VERDICT_UPSIZE, RS_ACTION_MOVE,
          with_port(ctx, res, t,
                    rs_fit_printf(ctx,
                                  "%s, %.2f $/month (%.1f%%) more than now: the current "
                                  "deployment does not hold the demand (%s)",
                                  shape_text(ctx, t), -t->savings_month, -t->savings_pct,
                                  cur->reason)));
    return;
  }
  if (same || !(t->savings_month > 0)) {
    const rs_candidate *po = v->passed_over;
    if (po != NULL && po->savings_month > 0)
      set(v, RS_VERDICT_KEEP, RS_ACTION_KEEP,
          rs_fit_printf(ctx, "keep %s x%llu: a cheaper fit, %s, passed over: %s",
                        p->current.instance, (unsigned long long)p->current.replicas,
                        shape_text(ctx, po), v->passed_over_why));
    else
      set(v, RS_VERDICT_KEEP, RS_ACTION_KEEP,
          rs_fit_printf(ctx, "keep %s x%llu: nothing cheaper fits", p->current.instance,
                        (unsigned long long)p->current.replicas));
    return;
  }
  if (t->savings_pct < RS_FIT_RIGHT_SIZED_PCT || t->savings_month < RS_FIT_MIN_SAVE_USD) {
    v->passed_over = t;
    v->passed_over_why = "it saves less than a move must";
    set(v, RS_VERDICT_KEEP, RS_ACTION_KEEP,
        rs_fit_printf(ctx,
                      "keep %s x%llu: the best alternative, %s, saves %.2f $/month (%.1f%%), "
                      "under the %.0f%% and %.0f $/month a move must save",
                      p->current.instance, (unsigned long long)p->current.replicas,
                      shape_text(ctx, t), t->savings_month, t->savings_pct, RS_FIT_RIGHT_SIZED_PCT,
                      RS_FIT_MIN_SAVE_USD));
    return;
  }
  v->target = t;
  v->savings_month = t->savings_month;
  v->savings_pct = t->savings_pct;
  set(v, RS_VERDICT_MOVE, RS_ACTION_MOVE,
      with_port(ctx, res, t,
                rs_fit_printf(ctx, "%s saves %.2f $/month (%.1f%%)", shape_text(ctx, t),
                              t->savings_month, t->savings_pct)));
}

/* Devices of the current shape that never worked while another did. */
static void rule_idle_devices(rs_fit_ctx *ctx, rs_fit_result *res, double month) {
  rs_verdict *v = &res->verdict;
  const rs_instance *src = res->demand.source;
  if (v->idle_devices == 0 || !(src->accelerator_count >= 2) || !isfinite(month))
    return;
  if (v->code != RS_VERDICT_MOVE && v->code != RS_VERDICT_KEEP)
    return;
  v->wasted_month = month * (double)v->idle_devices / src->accelerator_count;
  const char *idle = rs_fit_printf(
      ctx, "%u of %.0f %s devices never worked (under %.0f%% busy): %.2f $/month idle",
      v->idle_devices, src->accelerator_count, src->accelerator ? src->accelerator->name : "",
      RS_IDLE_UTIL_PCT, v->wasted_month);
  if (v->code == RS_VERDICT_MOVE)
    set(v, RS_VERDICT_IDLE_DEVICES, RS_ACTION_MOVE, rs_fit_printf(ctx, "%s; %s", idle, v->reason));
  else
    set(v, RS_VERDICT_IDLE_DEVICES, RS_ACTION_REVIEW,
        rs_fit_printf(ctx,
                      "%s; no cheaper allowed shape holds the load: put another model on "
                      "them or a shape with fewer devices",
                      idle));
}

/* Under RS_FIT_UNDERUSED_PCT peak utilization, "keep" is not the answer
 * while a cheaper allowed shape holds the memory: either it fits (saving
 * less than a move must) or the model could not project onto it. */
static void rule_underused(rs_fit_ctx *ctx, rs_fit_result *res) {
  rs_verdict *v = &res->verdict;
  const rs_candidate *alt = NULL;
  double reps = (double)ctx->profile->current.replicas, alt_month = INFINITY;
  double month = res->current_usd_hour * RS_FIT_HOURS_PER_MONTH;
  if (v->code != RS_VERDICT_KEEP || !(v->peak_util_pct < RS_FIT_UNDERUSED_PCT))
    return;
  for (size_t i = 0; i < res->nfitting + res->nrejected; i++) {
    const rs_candidate *c =
        i < res->nfitting ? &res->fitting[i] : &res->rejected[i - res->nfitting];
    if (c->inst == res->demand.source || c->inst->price_flag == RS_PRICE_SUSPECT)
      continue;
    if (!c->fits && c->failed != RS_CONSTRAINT_SPEC)
      continue; /* the model says it fails, or it cannot hold the memory */
    /* a fit at its own replica count; one the model cannot project, at now's */
    double m =
        c->fits ? c->usd_per_month : c->inst->price_usd_per_hour * reps * RS_FIT_HOURS_PER_MONTH;
    if (m < month && m < alt_month) {
      alt = c;
      alt_month = m;
    }
  }
  if (alt == NULL)
    return;
  const char *why = alt->fits ? "it saves less than a move must" : alt->reason;
  v->passed_over = alt;
  v->passed_over_why = why;
  v->wasted_month = month - alt_month;
  set(v, RS_VERDICT_UNDERUSED, RS_ACTION_REVIEW,
      rs_fit_printf(ctx,
                    "devices at most %.1f%% busy (under %.0f%%): %s %s x%u holds the memory for "
                    "%.2f $/month, %.2f $/month less, but %s%s",
                    v->peak_util_pct, RS_FIT_UNDERUSED_PCT, alt->inst->provider, alt->inst->name,
                    alt->fits ? alt->replicas : (unsigned)reps, alt_month, v->wasted_month, why,
                    alt->fits ? "; a benchmark on it would decide" : ""));
}

void rs_fit_verdict(rs_fit_ctx *ctx, rs_fit_result *res) {
  rs_verdict *v = &res->verdict;
  double month = res->current_usd_hour * RS_FIT_HOURS_PER_MONTH;
  memset(v, 0, sizeof(*v));
  v->savings_month = v->savings_pct = v->wasted_month = NAN;
  v->peak_util_pct = peak_util(res, &v->idle_devices);
  if (rule_idle(ctx, res, month))
    return;
  if (res->nfitting == 0) {
    set(v, RS_VERDICT_NO_FIT, RS_ACTION_NOFIT,
        "no allowed shape meets every constraint: the closest are listed with the reason each "
        "failed");
    return;
  }
  const rs_candidate *t = choose_target(ctx, res);
  if (rule_untrusted(ctx, res, t))
    return;
  if (!isfinite(res->current_usd_hour)) {
    v->target = t;
    set(v, RS_VERDICT_CURRENT_UNPRICED, RS_ACTION_MOVE,
        rs_fit_printf(ctx, "%s (the current shape has no price to compare with)",
                      shape_text(ctx, t)));
    return;
  }
  rule_savings(ctx, res, t);
  rule_idle_devices(ctx, res, month);
  rule_underused(ctx, res);
  if (res->current.inst->price_flag == RS_PRICE_SUSPECT)
    v->reason =
        rs_fit_printf(ctx, "%s (the current shape's own price is marked suspect)", v->reason);
}

bool rs_fit_verdict_eligible(const rs_fit_result *res, const rs_candidate *c) {
  return c->inst->price_flag != RS_PRICE_SUSPECT && keeps_margin(&res->demand, c);
}

/* What the rules read of the fits, all of which cost at most best * (1 +
 * RS_FIT_PORT_PREMIUM) when an eligible fit costs best: choose_target reads
 * the ranked fits up to the first eligible one (which costs best) and
 * same_family those up to best * (1 + RS_FIT_PORT_PREMIUM); passed_over,
 * the near-memory warning and the no-fit rule read the first fit, which
 * costs best or less. rule_underused alone reads further, every shape
 * cheaper than now, and only under RS_FIT_UNDERUSED_PCT peak utilization:
 * then the shapes not searched must cost now's $/month or more. (A shape
 * that fails the spec, which that rule also reads, is decided before any
 * search.) A fit's $/month is never under its floor, so the fits costing
 * less than floor are all known, in the order they rank. */
bool rs_fit_verdict_settled(const rs_fit_result *res, double best, double floor) {
  unsigned idle;
  if (!(best * (1.0 + RS_FIT_PORT_PREMIUM) < floor))
    return false;
  if (floor >= res->current_usd_hour * RS_FIT_HOURS_PER_MONTH)
    return true;
  return !(peak_util(res, &idle) < RS_FIT_UNDERUSED_PCT);
}

/* "YYYY-MM-DD" -> days since the epoch; false when it is not one. */
static bool parse_date(const char *s, int64_t *days) {
  int64_t y, m, d;
  if (s == NULL || strlen(s) != 10 || s[4] != '-' || s[7] != '-')
    return false;
  if (rs_num_parse_int64(s, 4, &y) != RS_OK || rs_num_parse_int64(s + 5, 2, &m) != RS_OK ||
      rs_num_parse_int64(s + 8, 2, &d) != RS_OK || y < 1970 || m < 1 || m > 12 || d < 1)
    return false;
  /* the day exists when the next month starts after it */
  int64_t next = m == 12 ? rs_time_days_from_civil(y + 1, 1, 1)
                         : rs_time_days_from_civil(y, (unsigned)m + 1, 1);
  if (rs_time_days_from_civil(y, (unsigned)m, 1) + d - 1 >= next)
    return false;
  *days = rs_time_days_from_civil(y, (unsigned)m, (unsigned)d);
  return true;
}

bool rs_fit_date_valid(const char *date) {
  int64_t d;
  return parse_date(date, &d);
}

int rs_fit_price_age(const char *prices_as_of, const char *reference) {
  int64_t a, b;
  if (!parse_date(prices_as_of, &a) || !parse_date(reference, &b))
    return -1;
  return b >= a ? (int)(b - a) : 0;
}
