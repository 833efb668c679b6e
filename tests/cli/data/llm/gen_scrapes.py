#!/usr/bin/env python3
"""Writes a text exposition for the streamed LLM-server CLI cases: SCRAPES
/metrics scrapes of a vLLM, TGI or SGLang server every 15 s from 2025-11-30
00:00 UTC, saved with timestamps: the gauges, counters and histograms
(_bucket, _sum, _count) rightsize maps (docs/sources.md, "LLM serving
metrics"), with # HELP/# TYPE lines. Bucket bounds are the servers' own
(bench/export.py cites where each comes from; TGI's 35 duration bounds
are cut to their first 20 here). Values follow fixed formulas of the scrape
number (no randomness); counters only grow.

Usage: gen_scrapes.py OUT [--server vllm|tgi|sglang] [--scrapes N] [--bad-line N] [--late]
  --bad-line N  replace line N (1-based) by a bucket sample with a bad value
  --late        end with a sample of the first scrape's time (too late)
"""
import argparse

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--server", default="vllm", choices=["vllm", "tgi", "sglang"])
ap.add_argument("--scrapes", type=int, default=600)
ap.add_argument("--bad-line", type=int, default=0)
ap.add_argument("--late", action="store_true")
args = ap.parse_args()

T0 = 1764460800000
TTFT = ["0.001", "0.005", "0.01", "0.02", "0.04", "0.06", "0.08", "0.1", "0.25", "0.5", "0.75",
        "1.0", "2.5", "5.0", "7.5", "10.0"]
TPOT = ["0.01", "0.025", "0.05", "0.075", "0.1", "0.15", "0.2", "0.3", "0.4", "0.5", "0.75", "1.0",
        "2.5"]
E2E = ["1.0", "2.5", "5.0", "10.0", "15.0", "20.0", "30.0", "40.0", "50.0", "60.0"]
TGI = []
v = 0.00001
for _ in range(20):
    v *= 1.5
    TGI.append(repr(v) if v >= 1e-4 else "%.20f" % v)
MODEL = 'model_name="meta-llama/Llama-3.1-8B-Instruct"'

# labels, gauges (name, value of scrape s), counters (name, growth per
# scrape), histograms (name, bounds)
SERVERS = {
    "vllm": (MODEL,
             [("vllm:num_requests_running", lambda s: 4 + s * 7 % 36),
              ("vllm:num_requests_waiting", lambda s: s * 3 % 6),
              ("vllm:gpu_cache_usage_perc", lambda s: "0.%02d" % (20 + s * 11 % 70))],
             [("vllm:prompt_tokens_total", 24000), ("vllm:generation_tokens_total", 9000),
              ("vllm:request_success_total", 48)],
             [("vllm:time_to_first_token_seconds", TTFT),
              ("vllm:time_per_output_token_seconds", TPOT),
              ("vllm:e2e_request_latency_seconds", E2E)]),
    "tgi": ("",
            [("tgi_batch_current_size", lambda s: 4 + s * 7 % 36),
             ("tgi_queue_size", lambda s: s * 3 % 6)],
            [("tgi_request_count", 48)],
            [("tgi_request_duration", TGI), ("tgi_request_mean_time_per_token_duration", TGI)]),
    "sglang": (MODEL,
               [("sglang:num_running_reqs", lambda s: 4 + s * 7 % 36),
                ("sglang:num_queue_reqs", lambda s: s * 3 % 6),
                ("sglang:token_usage", lambda s: "0.%02d" % (20 + s * 11 % 70))],
               [("sglang:prompt_tokens_total", 24000), ("sglang:generation_tokens_total", 9000),
                ("sglang:num_requests_total", 48)],
               [("sglang:time_to_first_token_seconds", TTFT),
                ("sglang:time_per_output_token_seconds", TPOT),
                ("sglang:e2e_request_latency_seconds", E2E)]),
}


def braces(*parts):
    parts = [p for p in parts if p]
    return "{%s}" % ",".join(parts) if parts else ""


state = {}


def scrape(s):
    labels, gauges, counters, hists = SERVERS[args.server]
    t = T0 + 15000 * s
    out = []
    for name, value in gauges:
        out.append("# TYPE %s gauge" % name)
        out.append("%s%s %s %d" % (name, braces(labels), value(s), t))
    for name, step in counters:
        out.append("# TYPE %s counter" % name)
        out.append("%s%s %d %d" % (name, braces(labels), step * s + s * s % 17, t))
    for h, (name, bounds) in enumerate(hists):
        out.append("# HELP %s Histogram." % name)
        out.append("# TYPE %s histogram" % name)
        counts = state.setdefault(name, [0] * (len(bounds) + 1))
        for k in range(len(counts)):  # requests of this scrape in bucket k
            counts[k] += (s * 7 + k * 3 + h) % 5 if k < len(counts) * 2 // 3 else (s + k) % 2
        cum = 0
        for k, le in enumerate(bounds + ["+Inf"]):
            cum += counts[k]
            out.append('%s_bucket%s %d %d' % (name, braces(labels, 'le="%s"' % le), cum, t))
        out.append("%s_sum%s %.3f %d" % (name, braces(labels), 0.25 * cum, t))
        out.append("%s_count%s %d %d" % (name, braces(labels), cum, t))
    return out


with open(args.out, "w") as f:
    line = 0
    for s in range(args.scrapes):
        for text in scrape(s):
            line += 1
            if line == args.bad_line:
                text = text.rsplit(" ", 2)[0] + " many " + text.rsplit(" ", 1)[1]
            f.write(text + "\n")
    if args.late:  # a bucket of the first scrape's time, again
        f.write(scrape(0)[-3].rsplit(" ", 1)[0] + " %d\n" % T0)
