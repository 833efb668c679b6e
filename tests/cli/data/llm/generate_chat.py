#!/usr/bin/env python3
"""Writes the LLM serving goldens' samples (deterministic; rerun to refresh).

chat.csv: one replica of a Llama-2-7B chat endpoint on vLLM, one day at
5-minute intervals: request rate with a daily cycle, per-interval mean prompt
and output tokens (lognormal-ish spread), GPU utilization, TTFT and TPOT
percentiles, the running batch and the KV-cache usage. Synthetic: the
numbers exercise the model, they are no measurement. TPOT follows the
decode physics (the weights and the batch's KV read per step at 70 % of the
A10G's 600 GB/s, the running batch from Little's law), so the LLM model's
back-test has something consistent to hold on to."""
import math
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main():
    rnd = random.Random(13)
    rows = ["timestamp,request_rate_rps,gpu_util_pct,prompt_tokens,output_tokens,"
            "ttft_p50_ms,ttft_p99_ms,tpot_p50_ms,tpot_p99_ms,latency_p50_ms,latency_p99_ms,"
            "requests_running,kv_cache_usage_pct"]
    t0 = 1796083200  # 2026-12-01T00:00:00Z
    for i in range(288):
        hour = (i * 5 / 60.0) % 24
        rate = 1.0 + 0.5 * math.sin((hour - 9) / 24 * 2 * math.pi) + rnd.uniform(-0.05, 0.05)
        prompt = math.exp(rnd.gauss(math.log(550), 0.6))
        output = math.exp(rnd.gauss(math.log(180), 0.5))
        kv_seq = (550 * 1.2 + 100) * 524288.0  # a mean sequence's KV, bytes
        batch = 0.0
        for _ in range(100):  # Little's law: batch = rate x output x TPOT
            step = (13.48e9 + batch * kv_seq) / (600e9 * 0.7)
            batch = rate * 200 * step
        tpot = step * 1e3 * (1 + rnd.uniform(-0.03, 0.03))
        ttft = 150.0 + prompt * 0.25 + rnd.uniform(-5, 5)
        lat50 = ttft + output * tpot
        rows.append("%s,%.3f,%.1f,%.0f,%.0f,%.1f,%.1f,%.2f,%.2f,%.0f,%.0f,%.2f,%.1f" % (
            __import__("time").strftime("%Y-%m-%dT%H:%M:%SZ", __import__("time").gmtime(t0 + i * 300)),
            rate, min(99.0, 35 + 25 * rate), prompt, output, ttft, ttft * 2.6, tpot, tpot * 1.4,
            lat50, lat50 * 2.0, rate * output * tpot / 1000.0,
            min(95.0, batch * kv_seq / (0.9 * 24e9 - 13.48e9) * 100)))
    (HERE / "chat.csv").write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
