#!/usr/bin/env python3
"""Generate the fleet example: profiles/fleet/, 24 endpoints of mixed sizes.

A platform team's fleet as `rightsize audit profiles/fleet --consolidate`
sees it: mostly small models each on its own GPU instance at low traffic
(the waste consolidation removes), a few busy or large endpoints that need
their own hardware, one endpoint already on the right shape, and one that is
CPU-friendly. Each endpoint gets a profile (NAME.yaml) and a week of native
samples at 15 minute intervals (NAME.csv, one GPU, no gpu_index column).

Rerun with

    python3 profiles/generate_fleet.py

from anywhere: it rewrites profiles/fleet/ byte for byte (fixed seeds,
random.Random only, fixed formatting, '\\n' line endings, standard library
only).
"""

import datetime
import math
import os
import random

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fleet")
UTC = datetime.timezone.utc
START = datetime.datetime(2026, 11, 23, 0, 0, 0, tzinfo=UTC)
STEP_MIN = 15
ROWS = 7 * 24 * 60 // STEP_MIN

# name, model, current instance, GPU total MiB, GPU used MiB, weights, mean
# rps, busy ms per request on the current GPU, p50 latency ms, SLO ms,
# families, host GiB, bound, description
FLEET = [
    ("search-rerank", "pytorch", "g4dn.xlarge", 15360, 1450, "420MiB", 3.0, 14.0, 9.0, 150, "nvidia-gpu", 2.2, "compute", "cross-encoder reranker for site search"),
    ("image-tagger", "pytorch", "g5.xlarge", 23028, 2100, "98MiB", 2.0, 9.0, 12.0, 200, "nvidia-gpu", 2.6, "compute", "ResNet-50 image tagging for uploads"),
    ("toxicity-filter", "onnxruntime", "g4dn.xlarge", 15360, 900, "255MiB", 4.0, 6.0, 6.0, 100, "nvidia-gpu", 1.9, "compute", "DistilBERT toxicity filter for comments"),
    ("lang-detect", "onnxruntime", "g4dn.xlarge", 15360, 600, "120MiB", 5.0, 3.0, 4.0, 80, "nvidia-gpu", 1.6, "compute", "language identification"),
    ("ocr-receipts", "pytorch", "g4dn.2xlarge", 15360, 2600, "310MiB", 1.0, 40.0, 55.0, 400, "nvidia-gpu", 3.0, "compute", "receipt OCR for expense reports"),
    ("sentiment-reviews", "onnxruntime", "g5.xlarge", 23028, 1100, "255MiB", 2.5, 7.0, 7.0, 120, "nvidia-gpu", 2.0, "compute", "review sentiment"),
    ("embed-docs", "pytorch", "g4dn.xlarge", 15360, 1300, "440MiB", 3.5, 11.0, 10.0, 150, "nvidia-gpu", 2.3, "compute", "sentence embeddings for document search"),
    ("nsfw-detect", "tensorrt", "g4dn.xlarge", 15360, 800, "90MiB", 1.5, 5.0, 7.0, 150, "nvidia-gpu", 1.8, "compute", "image safety classifier"),
    ("intent-chat", "onnxruntime", "g4dn.xlarge", 15360, 700, "255MiB", 2.0, 5.0, 5.0, 100, "nvidia-gpu", 1.7, "compute", "chat intent classifier"),
    ("fraud-score", "pytorch", "p3.2xlarge", 16160, 1900, "600MiB", 6.0, 4.0, 6.0, 60, "nvidia-gpu", 2.8, "compute", "transaction fraud scoring"),
    ("asr-short", "pytorch", "g5.2xlarge", 23028, 3800, "1.5GiB", 0.8, 120.0, 140.0, 800, "nvidia-gpu", 3.4, "compute", "speech to text for voice notes"),
    ("product-recs", "pytorch", "g4dn.xlarge", 15360, 1700, "700MiB", 4.5, 8.0, 8.0, 100, "nvidia-gpu", 2.5, "compute", "next-item recommendations"),
    ("doc-classify", "onnxruntime", "g4dn.xlarge", 15360, 950, "260MiB", 1.2, 9.0, 9.0, 200, "nvidia-gpu", 1.9, "compute", "document type classifier"),
    ("face-blur", "tensorrt", "g5.xlarge", 23028, 1500, "150MiB", 1.8, 12.0, 14.0, 250, "nvidia-gpu", 2.1, "compute", "face detection for privacy blurring"),
    ("keyword-extract", "onnxruntime", "g4dn.xlarge", 15360, 650, "110MiB", 2.2, 4.0, 5.0, 100, "nvidia-gpu", 1.6, "compute", "keyword extraction"),
    ("caption-gen", "pytorch", "g5.xlarge", 23028, 4200, "1.8GiB", 0.6, 90.0, 110.0, 1000, "nvidia-gpu", 3.6, "compute", "image captioning"),
    ("spam-mail", "onnxruntime", "g4dn.xlarge", 15360, 750, "200MiB", 3.0, 4.0, 5.0, 100, "nvidia-gpu", 1.7, "compute", "mail spam classifier"),
    ("translate-ui", "pytorch", "g5.2xlarge", 23028, 3100, "1.2GiB", 1.5, 45.0, 50.0, 500, "nvidia-gpu", 3.1, "compute", "UI string translation"),
    # busy or large endpoints that need their own hardware
    ("search-embed-hot", "tensorrt", "g5.xlarge", 23028, 5200, "1.3GiB", 55.0, 9.0, 11.0, 60, "nvidia-gpu", 4.5, "compute", "query embeddings on the search hot path"),
    ("ads-ranker", "pytorch", "p3.2xlarge", 16160, 9800, "6GiB", 30.0, 14.0, 16.0, 50, "nvidia-gpu", 6.0, "compute", "ads ranking model"),
    ("llm-support", "vllm", "g5.12xlarge", 23028, 21000, "13.5GB", 1.2, 500.0, 900.0, 6000, "nvidia-gpu", 30.0, "memory", "Llama 2 7B support assistant"),
    ("video-moderation", "tensorrt", "g4dn.2xlarge", 15360, 6500, "2.2GiB", 12.0, 35.0, 40.0, 200, "nvidia-gpu", 5.0, "compute", "frame moderation for uploads"),
    # already on the right shape, and a CPU-friendly one
    ("geo-rank", "pytorch", "g4dn.xlarge", 15360, 11800, "9GiB", 9.0, 60.0, 62.0, 250, "nvidia-gpu", 5.5, "compute", "geo ranking with a large embedding table"),
    ("tabular-churn", "onnxruntime", "g4dn.xlarge", 15360, 400, "40MiB", 0.5, 2.0, 3.0, 200, "nvidia-gpu,cpu", 1.4, "compute", "churn score, a gradient-boosted model"),
]

VCPUS = {"g4dn.xlarge": 4, "g4dn.2xlarge": 8, "g5.xlarge": 4, "g5.2xlarge": 8, "p3.2xlarge": 8,
         "g5.12xlarge": 48}


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def diurnal(hours, offset):
    local = hours + offset
    return 0.5 - 0.5 * math.cos(2.0 * math.pi * (local - 4.0) / 24.0)


def clamp(x, lo, hi):
    return lo if x < lo else hi if x > hi else x


def samples(seed, total, used, rps_mean, busy_ms, p50, vcpus, host):
    rng = random.Random(seed)
    offset = rng.choice([-8.0, -5.0, 1.0])
    lines = ["timestamp,gpu_mem_used_mib,gpu_mem_total_mib,gpu_util_pct,cpu_util_pct,"
             "host_mem_used_gib,net_rx_bytes_per_s,net_tx_bytes_per_s,request_rate_rps,"
             "latency_p50_ms,latency_p95_ms,latency_p99_ms,batch_size"]
    base_util = rng.uniform(0.3, 1.5)
    cpu_base = rng.uniform(1.5, 3.0) * 4.0 / vcpus
    cpu_per_rps = rng.uniform(0.010, 0.025) * 100.0 / vcpus  # vCPU-s per request, as %
    rx_per_req = rng.uniform(8e3, 60e3)
    for k in range(ROWS):
        t = START + datetime.timedelta(minutes=STEP_MIN * k)
        hours = k * STEP_MIN / 60.0
        weekend = ((t + datetime.timedelta(hours=offset)).weekday() >= 5)
        level = 0.35 + 1.3 * diurnal(hours % 24.0, offset)
        rps = rps_mean * level * (0.8 if weekend else 1.0) * (1.0 + rng.gauss(0.0, 0.06))
        rps = max(0.0, rps + rng.gauss(0.0, math.sqrt(max(rps, 0.01) / (60.0 * STEP_MIN))))
        util = clamp(base_util + rps * busy_ms / 10.0 + rng.gauss(0.0, 0.3), 0.0, 100.0)
        mem = used + rng.gauss(0.0, 6.0)
        cpu = clamp(cpu_base + cpu_per_rps * rps + rng.gauss(0.0, 0.2), 0.0, 100.0)
        hm = host + rng.gauss(0.0, 0.02)
        load = util / 100.0
        l50 = p50 * (1.0 + 0.6 * load) + abs(rng.gauss(0.0, 0.03 * p50))
        l95 = l50 * (1.45 + 0.3 * load) + abs(rng.gauss(0.0, 0.04 * p50))
        l99 = l50 * (1.9 + 0.6 * load) + abs(rng.gauss(0.0, 0.06 * p50))
        rx = rps * rx_per_req * (1.0 + rng.gauss(0.0, 0.03))
        tx = rps * 900.0 + 200.0
        lines.append("%s,%.0f,%d,%.1f,%.1f,%.2f,%.0f,%.0f,%.3f,%.2f,%.2f,%.2f,1" % (
            iso(t), mem, total, util, cpu, hm, max(0.0, rx), tx, rps, l50, l95, l99))
    return lines


def write(name, lines):
    with open(os.path.join(HERE, name), "w", newline="\n") as f:
        f.write("\n".join(lines) + "\n")


def main():
    os.makedirs(HERE, exist_ok=True)
    for i, e in enumerate(FLEET):
        (name, fw, inst, total, used, weights, rps, busy, p50, slo, fams, host, bound,
         desc) = e
        write(name + ".csv", samples(1000 + i, total, used, rps, busy, p50, VCPUS[inst], host))
        families = "[" + ", ".join(fams.split(",")) + "]"
        prealloc = "  preallocates: true\n" if fw == "vllm" else ""
        kv = ("  kv_cache: {layers: 32, kv_heads: 32, head_dim: 128, bytes_per_value: 2, "
              "max_tokens: 8192}\n" if fw == "vllm" else "")
        shard = "true" if fw == "vllm" else "false"
        write(name + ".yaml", [
            "# Generated by profiles/generate_fleet.py: do not edit by hand.",
            "schema: 1",
            "endpoint: %s" % name,
            "description: %s. A week of samples at 15 min from one replica." % desc.capitalize(),
            "source: production",
            "model:",
            "  framework: %s" % fw,
            "  families: %s" % families,
            "  weights: %s" % weights,
            "  max_batch: 1",
            "  bound: %s" % bound,
            "  shardable: %s" % shard,
        ] + ([prealloc.rstrip("\n")] if prealloc else []) + ([kv.rstrip("\n")] if kv else []) + [
            "current: {provider: aws, instance: %s, replicas: 1, region: us-east-1}" % inst,
            "slo: {latency_p99: %dms}" % slo,
            "samples:",
            "  - %s.csv" % name,
        ])


if __name__ == "__main__":
    main()
