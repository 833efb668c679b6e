#!/usr/bin/env python3
"""Writes vllm-query-range.json: a Prometheus query_range response (written
here, not captured) holding what `query_range` returns for a vLLM server's
own metrics over three 60 s steps: gauges, counters (with two label sets for
request_success_total) and TTFT, TPOT and end-to-end latency histograms with
their _sum and _count series. Numbers are chosen so the expected rates and
percentiles can be worked by hand (docs/sources.md); and vllm-scrapes.prom,
the same series as text exposition scrapes with timestamps. Standard
library only."""
import json

T0 = 1796047500
TIMES = [T0, T0 + 60, T0 + 120]
LABELS = {"instance": "vllm-0:8000", "job": "vllm", "model_name": "meta-llama/Llama-3.1-8B-Instruct"}


def series(name, values, **extra):
    metric = {"__name__": name}
    metric.update(LABELS)
    metric.update(extra)
    return {"metric": metric, "values": [[t, repr(float(v)) if isinstance(v, float) else str(v)]
                                         for t, v in zip(TIMES, values)]}


def histogram(name, bounds, per_step, total_s):
    """Cumulative buckets growing by per_step (cumulative counts) each step."""
    out = []
    for le, inc in zip(bounds, per_step):
        out.append(series(name + "_bucket", [0, inc, 2 * inc], le=le))
    out.append(series(name + "_sum", [0.0, total_s, 2 * total_s]))
    out.append(series(name + "_count", [0, per_step[-1], 2 * per_step[-1]]))
    return out


result = [
    series("vllm:num_requests_running", [12, 14, 16]),
    series("vllm:num_requests_waiting", [0, 2, 1]),
    series("vllm:gpu_cache_usage_perc", [0.42, 0.55, 0.61]),
    series("vllm:prompt_tokens_total", [1000, 61000, 121000]),
    series("vllm:generation_tokens_total", [500, 12500, 24500]),
    series("vllm:request_success_total", [10, 70, 130], finished_reason="stop"),
    series("vllm:request_success_total", [0, 6, 18], finished_reason="length"),
]
result += histogram("vllm:time_to_first_token_seconds", ["0.1", "0.25", "0.5", "1.0", "+Inf"],
                    [20, 50, 90, 98, 100], 31.5)
result += histogram("vllm:time_per_output_token_seconds", ["0.01", "0.025", "0.05", "0.1", "+Inf"],
                    [0, 400, 950, 1000, 1000], 29.0)
result += histogram("vllm:e2e_request_latency_seconds", ["1.0", "2.5", "5.0", "10.0", "+Inf"],
                    [10, 40, 80, 100, 100], 360.0)
doc = {"status": "success", "data": {"resultType": "matrix", "result": result}}
with open("vllm-query-range.json", "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")


def labels_text(metric):
    pairs = ['%s="%s"' % (k, v) for k, v in metric.items() if k != "__name__"]
    return "{" + ",".join(pairs) + "}"


# The same series as three saved /metrics scrapes with millisecond timestamps
# (vllm-scrapes.prom), one scrape after another as a recording loop saves them.
with open("vllm-scrapes.prom", "w") as f:
    for i, t in enumerate(TIMES):
        f.write("# scrape %d\n" % (i + 1))
        for s in result:
            f.write("%s%s %s %d\n" % (s["metric"]["__name__"], labels_text(s["metric"]),
                                       s["values"][i][1], t * 1000))
