/* The fit engine behind `rightsize recommend` (docs/model.md).
 *
 * From an endpoint summary (its profile and statistics) it derives the
 * demand once: memory per device, busy time per request on the source
 * device, the latency the service adds, host CPU and network per request,
 * the design peak. Then every catalog shape the model may run on is fitted:
 * memory must fit a device (or a shard group of devices), the busy time is
 * projected onto the target device, and the smallest replica count is found
 * that keeps utilization under a ceiling, the SLO's latency quantile under
 * the SLO (service time plus Erlang C queueing), host CPU and baseline
 * network under the ceiling. Fitting shapes are ranked by monthly cost; every
 * rejected shape keeps the one reason it failed. Everything lives in the
 * arena passed in; nothing here prints. */
#ifndef RIGHTSIZE_FIT_H
#define RIGHTSIZE_FIT_H

#include <stdbool.h>
#include <stddef.h>

#include "rightsize/arena.h"
#include "rightsize/catalog.h"
#include "rightsize/error.h"
#include "rightsize/pricing.h"
#include "rightsize/summary.h"

/* Defaults (docs/model.md says why). */
#define RS_FIT_HEADROOM 0.20   /* memory headroom over the need */
#define RS_FIT_MAX_UTIL 0.80   /* utilization ceiling of devices, host CPU, network */
#define RS_FIT_MAX_REPLICAS 64 /* a shape needing more is rejected */
#define RS_FIT_HOURS_PER_MONTH 730.0
#define RS_FIT_RIGHT_SIZED_PCT 10.0  /* savings below this are inside the model's error */
#define RS_FIT_MIN_SAVE_USD 50.0     /* $/month a move must save (a year of it pays the move) */
#define RS_FIT_MEM_MARGIN 0.10       /* memory a move's target keeps free beyond the headroom */
#define RS_FIT_PORT_PREMIUM 0.10     /* a same-family target this much dearer beats a port */
#define RS_FIT_UNDERUSED_PCT 20.0    /* peak device utilization below: the shape is underused */
#define RS_FIT_IDLE_RPS (1.0 / 60.0) /* mean request rate below (one a minute): near zero */
#define RS_FIT_IDLE_UTIL_PCT 5.0     /* with near-zero traffic, peak device utilization below */
#define RS_FIT_PRICE_MAX_AGE_DAYS 90 /* older prices (on the reference date) are said old */
#define RS_FIT_SHARD_EFFICIENCY 0.85 /* throughput per device of a sharded model */
#define RS_FIT_CPU_EFFICIENCY 0.5    /* fraction of FP32 peak both sides reach (CPU projection) */
#define RS_LLM_EFFICIENCY                                                                          \
  0.5 /* share of peak compute and bandwidth an LLM step reaches, unfitted */
#define RS_LLM_MAX_SEQS                                                                            \
  256 /* sequences one server batches at most (vLLM's max_num_seqs default)                        \
       */

#define RS_LLM_CHUNK_TOKENS                                                                        \
  2048.0 /* prompt tokens one step prefills at most (chunked prefill's token budget) */

/* Constraints: what bound a replica count, or why a shape was rejected. */
#define RS_CONSTRAINT_MAP(X)                                                                       \
  X(NONE, "none")                                                                                  \
  X(MEMORY, "memory")                                                                              \
  X(HOST_MEMORY, "host-memory")                                                                    \
  X(UTILIZATION, "utilization")                                                                    \
  X(LATENCY, "latency")                                                                            \
  X(HOST_CPU, "host-cpu")                                                                          \
  X(NETWORK, "network")                                                                            \
  X(PRICE, "price")                                                                                \
  X(SPEC, "spec")                                                                                  \
  X(FRAMEWORK, "framework")                                                                        \
  X(KV_CAPACITY, "kv-capacity")                                                                    \
  X(DECODE_BANDWIDTH, "decode-bandwidth")                                                          \
  X(TTFT, "ttft")                                                                                  \
  X(TPOT, "tpot")                                                                                  \
  X(PREFILL_COMPUTE, "prefill-compute")

typedef enum {
#define RS_CONSTRAINT_ENUM(name, key) RS_CONSTRAINT_##name,
  RS_CONSTRAINT_MAP(RS_CONSTRAINT_ENUM)
#undef RS_CONSTRAINT_ENUM
      RS_CONSTRAINT_COUNT
} rs_constraint;

const char *rs_constraint_name(rs_constraint c);

/* Confidence of a projection, lowest first: X(NAME, name in reports and
 * policy files). */
#define RS_CONFIDENCE_MAP(X)                                                                       \
  X(LOW, "low")                                                                                    \
  X(MEDIUM, "medium")                                                                              \
  X(HIGH, "high")

typedef enum {
#define RS_CONFIDENCE_ENUM(name, key) RS_CONF_##name,
  RS_CONFIDENCE_MAP(RS_CONFIDENCE_ENUM)
#undef RS_CONFIDENCE_ENUM
      RS_CONF_COUNT
} rs_confidence;

/* Confidence -> "low", "medium", "high"; "unknown" out of range. */
const char *rs_confidence_name(rs_confidence c);
/* "low", "medium", "high" -> confidence; RS_USAGE for another name. */
rs_status rs_confidence_from_name(rs_confidence *out, const char *name);

/* What a fit recommends: X(NAME, name in reports). */
#define RS_ACTION_MAP(X)                                                                           \
  X(MOVE, "move")                                                                                  \
  X(KEEP, "keep")                                                                                  \
  X(REVIEW, "review")                                                                              \
  X(NOFIT, "no-fit")

typedef enum {
#define RS_ACTION_ENUM(name, key) RS_ACTION_##name,
  RS_ACTION_MAP(RS_ACTION_ENUM)
#undef RS_ACTION_ENUM
      RS_ACTION_COUNT
} rs_action;

/* Action -> "move", "keep", "review", "no-fit"; "unknown" out of range. */
const char *rs_action_name(rs_action a);

/* How the design peak is chosen from the request-rate samples. */
typedef enum { RS_PEAK_P95, RS_PEAK_P99, RS_PEAK_MAX, RS_PEAK_RPS } rs_peak_kind;

/* "p95", "p99", "max" or a rate ("25", "25rps") -> kind (and rps). RS_USAGE otherwise. */
rs_status rs_peak_parse(const char *text, rs_peak_kind *kind, double *rps);

typedef struct rs_fit_options {
  double headroom;        /* fraction over the need; RS_FIT_HEADROOM */
  double max_util;        /* fraction; RS_FIT_MAX_UTIL */
  double slo_ms;          /* NaN: the profile's SLO */
  bool slo_p95;           /* slo_ms is a p95 target (else p99) */
  bool peak_set;          /* peak/peak_rps given by the user, over the profile */
  rs_peak_kind peak;      /* RS_PEAK_P99 unless peak_set or the profile says peak_rps */
  double peak_rps;        /* for RS_PEAK_RPS */
  unsigned families;      /* RS_FAMILY_* allowed; 0: the profile's */
  const char **providers; /* NULL: the current deployment's provider only */
  size_t nproviders;      /* 0 with providers != NULL: every provider */
  const char *region;     /* NULL: any region */
  unsigned max_replicas;  /* RS_FIT_MAX_REPLICAS */
  /* The date prices are judged old against, "YYYY-MM-DD" (--as-of); NULL:
   * RS_FIT_REFERENCE_DATE. Never the clock: same input, same bytes. */
  const char *as_of;
  /* A proposed deployment to evaluate as well (`check --instance`): a shape
   * of the catalog and its replica count; NULL for none. */
  const rs_instance *proposed;
  unsigned proposed_replicas;
  /* The cross-device projection already fitted to the catalog
   * (rs_fit_projection), shared by many fits of one run; NULL: rs_fit fits
   * it itself, about 20 ms of every fit. */
  const struct rs_proj_model *projection;
  /* Whether to draw the back-test's latency-by-load curve
   * (rs_backtest.curve_*, RS_BACKTEST_CURVE evaluations of the latency
   * model): only the HTML charts show it, so it is off by default. */
  bool backtest_curve;
  /* An audit's fit, which reads only numbers, codes and the verdict's
   * shapes: the texts (reasons, notes, bases, every candidate's and the
   * verdict's reason, warning texts) are left empty, not formatted. */
  bool terse;
  /* An audit's fit without consolidation, which reads only the verdict,
   * its target, the current deployment and the warning codes: shapes are
   * searched cheapest first (by the $/month of the fewest replicas that
   * could hold the load) and those that provably cannot change any of these
   * are left out of fitting and rejected (rs_fit_verdict_settled), so
   * nfitting and nrejected count only the shapes evaluated. */
  bool verdict_only;
} rs_fit_options;

void rs_fit_options_init(rs_fit_options *o);

/* The back-test (docs/model.md "Back-test"): the service model fitted to
 * the endpoint's own history of latency by load, and how far its
 * predictions for the current deployment are from what was observed. */
#define RS_BACKTEST_BAND_LO 0.8 /* median predicted/observed inside [LO, HI]: the model holds */
#define RS_BACKTEST_BAND_HI 1.3
#define RS_BACKTEST_CURVE 48 /* points of the fitted model's latency-by-load curve */

typedef struct rs_backtest {
  bool run;            /* false: no interval carried a request rate and the SLO's quantile */
  uint64_t intervals;  /* intervals compared */
  size_t buckets;      /* load buckets they fell in */
  size_t points;       /* fit points (buckets grouped by interval count) */
  double ratio_median; /* predicted / observed SLO quantile, over the intervals */
  double ratio_p10, ratio_p90;
  double error; /* the larger of |p10 - 1| and |p90 - 1|: widens every error band */
  /* The fitted service model of the current deployment: its own latency
   * (lognormal, median s50, squared CV cs2) and a queue of `servers`
   * servers each held `hold_ms` per request. */
  double s50_ms, cs2, hold_ms;
  unsigned servers;
  double concurrency;     /* mean service / hold: requests one server overlaps */
  double default_hold_ms; /* min(busy time, mean service): where the fit starts */
  /* Contradictions in the data (each one is a warning). */
  bool busy_above_p50;    /* busy time per request above the typical p50 latency */
  bool off_band;          /* ratio_median outside the band */
  bool wait_above_spread; /* the model's wait at mean load above HI x (observed pq - p50) */
  double wait_mean_ms;    /* that wait at the SLO quantile, at the mean per-replica rate */
  double spread_ms;       /* the typical interval's SLO quantile minus its p50 */
  bool contradictory;     /* any of the three */
  /* The fitted model's SLO quantile at endpoint request rates from the
   * lightest to 1.5 x the heaviest load bucket (charts); ncurve 0: none
   * (also when rs_fit_options.backtest_curve is off). */
  size_t ncurve;
  double curve_rate[RS_BACKTEST_CURVE]; /* endpoint req/s */
  double curve_ms[RS_BACKTEST_CURVE];   /* NaN where the queue is unstable */
} rs_backtest;

/* LLM serving (docs/model.md "LLM serving"): what the profile's model and
 * the token metrics say, derived once. `on` is false for other models. */
typedef struct rs_llm_demand {
  bool on;
  const char *model;            /* the facts row ("llama-3.1-8b") or "profile" */
  double params, active_params; /* parameters, and those a token uses (MoE) */
  unsigned layers, kv_heads, head_dim, window, window_layers;
  double weight_bytes;          /* model.weights or params x bytes of the precision */
  double kv_value_bytes;        /* bytes per K or V value: 2 (fp16/bf16), 1 (fp8/int8) */
  double kv_bytes_per_token;    /* 2 x layers x kv_heads x head_dim x value bytes */
  double prompt_mean, prompt_q; /* prompt tokens per request: mean and the SLO quantile */
  double output_mean, output_q; /* output tokens per request */
  double prompt_cs2;            /* squared CV of prompt tokens (1 when unknown) */
  double output_cs2;            /* squared CV of output tokens (NaN when unknown) */
  const char *tokens_basis;
  double eff_compute, eff_bandwidth; /* share of peak reached on the source device */
  const char *eff_basis;
  double tpot_observed_ms, ttft_observed_ms; /* the source's typical p50s; NaN none */
  double tpot_model_ms, ttft_model_ms;       /* what the fitted model gives there */
  /* Back-test: modelled / observed typical TPOT at the request rate's min,
   * p50, p90, p99 and max, the observed from the line of tpot_p50 on the
   * rate (stats tpot_vs_rate); points 0 when the line is missing or weak. */
  unsigned backtest_points;
  double backtest_lo, backtest_hi, backtest_r2;
  double backtest_error;    /* the larger of |lo - 1| and |hi - 1|: widens the bands */
  double kv_scale;          /* measured KV demand / modelled on the source (1: not measured) */
  double kv_measured_bytes; /* kv_cache_usage x the pre-allocated pool; NaN none */
  double ttft_slo_ms, tpot_slo_ms; /* NaN when not set */
  double ttft_quantile, tpot_quantile;
  double decode_bw_need_gbps; /* to read the weights once per TPOT budget (at full efficiency) */
  double output_rate_mean, prompt_rate_mean; /* endpoint tokens/s (x growth), for $ per token */
} rs_llm_demand;

/* One shape's LLM figures at its replica count. */
typedef struct rs_llm_fit {
  bool on;
  double compute_tflops, bandwidth_gbps; /* one server (devices x TP efficiency) */
  double eff_compute, eff_bandwidth;     /* projected onto this device */
  double batch;                          /* running batch per server (Little's law) */
  double seqs_q;                         /* sequences resident at the SLO quantile (Poisson) */
  double kv_demand_bytes;                /* KV in use at that quantile */
  double kv_capacity_bytes;              /* memory left for KV after weights and headroom */
  double step_ms;                        /* one decode step at the running batch */
  double prefill_ms;                     /* a mean prompt's prefill */
  double prefill_share;                  /* of the server's time spent on prefill */
  double ttft_q_ms, tpot_ms, e2e_q_ms;
  double tpot_mean_ms;   /* TPOT at the running batch: the step stretched by the prefill chunks */
  double capacity_rps;   /* requests/s one server sustains before KV or compute runs out */
  double capacity_batch; /* the running batch at that rate */
  double kv_batch_max;   /* sequences the KV memory holds at the mean resident length */
  double goodput;        /* share of requests meeting the TTFT and TPOT SLOs at the peak */
  const char *binds;     /* what limits capacity: "decode bandwidth", "compute", "KV capacity" */
  double usd_per_m_output, usd_per_m_input; /* $ per million tokens at the mean rate */
} rs_llm_fit;

/* What the endpoint needs, derived from the summary once. */
typedef struct rs_demand {
  const rs_instance *source; /* the current shape, from the catalog */
  unsigned source_active;    /* devices that served traffic (max util above idle) */
  /* memory */
  double mem_observed;  /* busiest device's peak (max of window peaks), bytes; NaN none */
  double mem_model;     /* weights + activations x max batch (+ KV cache); NaN unknown */
  double mem_need;      /* the larger (the model only, for a pre-allocating stack) */
  double mem_need_head; /* mem_need x (1 + headroom) */
  const char *mem_basis;
  bool mem_unknown;     /* no samples, no model figure: the current device's memory stands in */
  double host_mem_peak; /* host memory peak of one replica, bytes; NaN none */
  /* traffic */
  bool capacity_only; /* no request rate: sized on the busiest device's peak (docs/model.md) */
  double rate_mean;   /* endpoint mean, requests/s (x growth) */
  double design_peak; /* endpoint requests/s the fit sizes for */
  double observed_peak;
  const char *peak_basis;
  /* compute on the source device */
  double busy_s; /* busy time per request on one source device; NaN unknown */
  const char *busy_basis;
  double busy_r2;     /* of the least-squares line, NaN for the utilization law */
  double mix_compute; /* weight of the compute ratio (1 compute-bound, 0 memory-bound) */
  /* latency on the source */
  double slo_ms;
  double slo_quantile; /* 0.99 or 0.95 */
  bool latency_observed;
  double service_q_ms; /* the service's own latency at the SLO quantile on the source */
  double service_p50_ms;
  double service_mean_ms; /* mean of that lognormal: what one request holds a server */
  double cs2;             /* squared CV of service times (lognormal fit of p50 and the quantile) */
  double device_share;    /* fraction of that latency spent on the device */
  double hold_s;          /* what a request holds a server in the queue (the back-test's fit) */
  rs_backtest backtest;
  /* host */
  bool cpu_known;
  double cpu_base_vcpus, cpu_vcpu_s_per_req;
  bool net_known;
  double net_base_bps, net_bytes_per_req; /* rx + tx, the larger direction */
  rs_llm_demand llm;
} rs_demand;

typedef struct rs_candidate {
  const rs_instance *inst;
  bool is_current;
  bool fits;
  rs_constraint failed;    /* why it does not fit */
  const char *reason;      /* one line with the numbers */
  const char *binding_why; /* an LLM fit's binding constraint with its numbers; NULL otherwise */
  double shortfall;        /* how far off (need / capacity), for "closest" */
  /* sizing */
  const char *basis;           /* "measured", "measured on SHAPE", "modelled", "observed" */
  double ratio;                /* projected busy time / source busy time */
  unsigned devices_per_server; /* > 1 when the model is sharded */
  unsigned servers_per_replica;
  unsigned replicas, servers;
  double service_s;    /* busy time per request per server: capacity, utilization */
  double queue_s;      /* what a request holds a server in the queue model (<= service_s) */
  double service_q_ms; /* service latency at the SLO quantile */
  double cs2;          /* squared CV of service times used in the queue */
  double util, p_wait, wait_q_ms, latency_q_ms;
  double mem_capacity; /* bytes per server (device x devices_per_server, or host memory) */
  double mem_free;     /* 1 - mem_need / mem_capacity */
  double host_mem_need;
  double host_cpu_util, net_util; /* NaN unknown */
  rs_constraint binding;          /* the tightest constraint at this replica count */
  double error_band;              /* relative error of the projection */
  /* A profile benchmark on this shape (or its device) checked against the
   * projection: what the model says (same units as ratio; NaN when not
   * checked) and whether the two differ by more than the model's band. */
  double modelled_ratio;
  bool benchmark_disagrees;
  /* cost */
  double usd_per_hour, usd_per_month, usd_per_million, savings_month, savings_pct;
  rs_confidence confidence;
  const char **reasons; /* why the confidence is what it is */
  size_t nreasons;
  const char **notes; /* other things to know about this shape */
  size_t nnotes;
  rs_llm_fit llm; /* LLM serving figures (llm.on) */
} rs_candidate;

/* Verdicts: what to do about the current deployment, and why (docs/model.md
 * "Sizing policy"). One list, names both directions; policies and tests
 * match the names, never the reason text. */
#define RS_VERDICT_MAP(X)                                                                          \
  X(MOVE, "move")                                                                                  \
  X(UPSIZE, "upsize")                                                                              \
  X(KEEP, "keep-right-sized")                                                                      \
  X(NO_TRAFFIC, "no-traffic")                                                                      \
  X(IDLE, "idle")                                                                                  \
  X(IDLE_DEVICES, "idle-devices")                                                                  \
  X(UNDERUSED, "underused")                                                                        \
  X(UNTRUSTED_DATA, "untrusted-data")                                                              \
  X(CURRENT_UNPRICED, "current-unpriced")                                                          \
  X(NO_FIT, "no-fit")

typedef enum {
#define RS_VERDICT_ENUM(name, key) RS_VERDICT_##name,
  RS_VERDICT_MAP(RS_VERDICT_ENUM)
#undef RS_VERDICT_ENUM
      RS_VERDICT_COUNT
} rs_verdict_code;

/* "move" for RS_VERDICT_MOVE; "unknown" out of range. */
const char *rs_verdict_name(rs_verdict_code v);
/* The code of a name; RS_USAGE when there is none. */
rs_status rs_verdict_from_name(rs_verdict_code *out, const char *name);

typedef struct rs_verdict {
  rs_verdict_code code;
  rs_action action; /* move to target, keep, review (idle money the model cannot place), no-fit */
  const rs_candidate *target; /* the shape to move to (in fitting[]); NULL otherwise */
  const char *reason;         /* one line with the numbers */
  double savings_month;       /* of the target against now; NaN without one */
  double savings_pct;
  double wasted_month; /* $/month idle devices or an idle endpoint cost; NaN when none */
  /* A cheaper fitting shape that did not decide the verdict: its price is
   * suspect, or it keeps too little memory free. NULL when none. */
  const rs_candidate *passed_over;
  const char *passed_over_why;
  unsigned idle_devices; /* devices of the current shape that never worked */
  double peak_util_pct;  /* busiest device's peak utilization; NaN unknown */
} rs_verdict;

typedef struct rs_fit_result {
  const rs_summary *summary;
  const rs_catalog *catalog;
  rs_price_basis basis;
  const rs_overlay *overlay;
  rs_fit_options opts;
  unsigned families;
  rs_demand demand;
  rs_candidate current;    /* the deployment as it runs */
  rs_candidate *proposed;  /* opts->proposed at its replica count; NULL without one */
  double current_usd_hour; /* NaN when the current shape has no price */
  rs_candidate *fitting;   /* ranked: cheapest first */
  size_t nfitting;
  rs_candidate *rejected; /* closest first */
  size_t nrejected;
  rs_verdict verdict;   /* decided once, by the sizing policy (verdict.c) */
  int prices_age_days;  /* catalog price date to the reference date; -1 unknown */
  const char *as_of;    /* the reference date used */
  rs_warning *warnings; /* the summary's, then the fit's own */
  size_t nwarnings;
} rs_fit_result;

/* The release date of this build's defaults: the reference for the price
 * age unless --as-of names another. */
#define RS_FIT_REFERENCE_DATE "2026-12-02"

/* Whether date is a "YYYY-MM-DD" date (--as-of). */
bool rs_fit_date_valid(const char *date);

/* Whole days from prices_as_of to reference (both "YYYY-MM-DD"), 0 when
 * the reference is earlier, -1 when either is not a date. */
int rs_fit_price_age(const char *prices_as_of, const char *reference);

/* Fits the summary (built from a profile) against cat, already priced
 * under basis by rs_pricing_apply. *out is in arena. RS_INVALID with the
 * profile position when its current instance is not in the catalog, or when
 * the profile lacks what sizing needs; RS_NOFIT is not returned: a result
 * with nfitting == 0 says so, and the caller picks the exit code. */
/* Fits the projection (docs/model.md "Projection onto another device") to
 * cat once, in arena, for rs_fit_options.projection: what every rs_fit on
 * cat would otherwise compute again. RS_NOMEM only. */
rs_status rs_fit_projection(const struct rs_proj_model **out, rs_arena *arena,
                            const rs_catalog *cat);

rs_status rs_fit(rs_fit_result **out, rs_arena *arena, const rs_summary *sum, const rs_catalog *cat,
                 rs_price_basis basis, const rs_overlay *overlay, const rs_fit_options *opts,
                 rs_error *err);

#endif
