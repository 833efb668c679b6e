#!/usr/bin/env python3
"""Throughput and memory benchmark for exported formats and --exact.

Generates, cached under bench/data/ (which git ignores; --data DIR puts them
elsewhere), as many points as make SIZE MB (--sizes, default 100 and 1000)
of each format in --formats:

  prom-SIZE.json     (prom) a Prometheus query_range answer: 24 series (DCGM
                     memory used, memory total and utilization of 8 GPUs) at
                     15 s, on one line as Prometheus writes it
  cwdata-SIZE.json   (cwdata) CloudWatch get-metric-data output as the AWS
                     CLI prints it (4-space indentation, one item a line,
                     newest point first): the five SageMaker metrics of
                     tests/data/exports/sagemaker_get_metric_data.json at 10 s
  cwstats-SIZE.json  (cwstats) CloudWatch get-metric-statistics output, the
                     "Datapoints" shape: GPUUtilization, one object a line
  dcgm-SIZE.prom     (exposition) a text exposition: dcgm-exporter scrapes of
                     8 GPUs (nine default counters each, with # HELP and
                     # TYPE) every 15 s, saved with timestamps
  vllm-SIZE.prom     (vllm, tgi, sglang) an LLM server's /metrics scrapes
  tgi-SIZE.prom      every 15 s, saved with timestamps: its gauges, counters
  sglang-SIZE.prom   and histograms (_bucket, _sum, _count) with the server's
                     own bucket bounds (sources cited at generate_llm)
  samples-ROWS.csv   a native CSV (bench/run.py's generator), for --exact

Values come from a seeded random generator (bench/export.py itself). The
CloudWatch files are read with tests/data/exports/sagemaker_mapping.yaml.

Then runs, in one go and interleaved, each command REPEAT times (default 3)
and prints the median wall time, the median CPU time (user + system: the
fairer figure on a loaded machine), MB/s by each, and peak resident memory
(GNU time, Debian package `time`):

  cat FILE > /dev/null                 the cost of reading the bytes
  wc -l FILE                           the cost of looking at each byte
  rightsize profile FILE --format json the reader
  BASELINE profile FILE --format json  the same with --baseline BIN (another
                                       build, e.g. main's), if given
  rightsize profile CSV --exact        every value kept, ranks selected

A command that fails (a reader out of memory, a size limit) is shown with
the last line of its error, not timed.

Usage: python3 bench/export.py [--sizes 100,1000]
                               [--formats prom,cwdata,cwstats,exposition,vllm,tgi,sglang]
                               [--csv-rows N] [--repeat K]
                               [--bin build-rel/rightsize] [--baseline BIN] [--data DIR]
Build Release first: cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=Release &&
cmake --build build-rel -j2 --target rightsize
The machine is shared and noisy: compare medians from the same run only.
"""
import argparse
import os
import random
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run import GNU_TIME, generate  # noqa: E402  (bench/run.py: CSV generator)

SERIES = [(name, gpu) for gpu in range(8)
          for name in ("DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_TOTAL", "DCGM_FI_DEV_GPU_UTIL")]
POINT_BYTES = 20  # '[1764460800,"3012"],' on average


def generate_prom(path, mb):
    """A query_range answer of about mb MB, written series by series."""
    rng = random.Random(7)
    t0 = 1764460800
    n = int(mb * 1e6 / (len(SERIES) * POINT_BYTES))
    with open(path + ".tmp", "w") as f:
        f.write('{"status":"success","data":{"resultType":"matrix","result":[')
        for k, (name, gpu) in enumerate(SERIES):
            f.write('%s{"metric":{"__name__":"%s","gpu":"%d","Hostname":"node-a",'
                    '"modelName":"NVIDIA A100-SXM4-40GB"},"values":['
                    % ("," if k else "", name, gpu))
            if name == "DCGM_FI_DEV_FB_TOTAL":
                vals = ["40960"] * 1000
            elif name == "DCGM_FI_DEV_FB_USED":
                vals = [str(20000 + rng.randrange(4000)) for _ in range(1000)]
            else:
                vals = [str(rng.randrange(101)) for _ in range(1000)]
            step = 100000
            for lo in range(0, n, step):
                f.write(",".join('[%d,"%s"]' % (t0 + 15 * i, vals[i % 1000])
                                 for i in range(lo, min(n, lo + step))))
                if lo + step < n:
                    f.write(",")
            f.write("]}")
        f.write("]}}\n")
    os.replace(path + ".tmp", path)


CW_METRICS = [("gpu", "GPUUtilization", lambda r: "%.1f" % (r.randrange(1001) / 10.0)),
              ("gpumem", "GPUMemoryUtilization", lambda r: "%.1f" % (r.randrange(1001) / 10.0)),
              ("cpu", "CPUUtilization", lambda r: "%.1f" % (r.randrange(48001) / 10.0)),
              ("inv", "Invocations", lambda r: "%.1f" % r.randrange(12000)),
              ("p99", "ModelLatency p99", lambda r: "%.1f" % (20000 + r.randrange(40000)))]
CW_POINT_BYTES = 60  # '            "2026-11-30T14:03:00+00:00",\n' and '            30.0,\n'
CW_T0 = 1764460800  # 2025-11-30T00:00:00Z


def cw_time(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(t))


def write_items(f, items, indent):
    """A JSON list's items, one a line, as the AWS CLI prints them."""
    sep = ",\n" + indent
    step = 100000
    for lo in range(0, len(items), step):
        f.write(indent if lo == 0 else sep)
        f.write(sep.join(items[lo:lo + step]))
    f.write("\n")


def generate_cwdata(path, mb):
    """get-metric-data output of about mb MB: five results, newest first."""
    rng = random.Random(11)
    n = int(mb * 1e6 / (len(CW_METRICS) * CW_POINT_BYTES))
    times = ['"%s"' % cw_time(CW_T0 + 10 * i) for i in range(n - 1, -1, -1)]
    with open(path + ".tmp", "w") as f:
        f.write('{\n    "MetricDataResults": [\n')
        for k, (ident, label, value) in enumerate(CW_METRICS):
            f.write('        {\n            "Id": "%s",\n            "Label": "%s",\n'
                    '            "Timestamps": [\n' % (ident, label))
            write_items(f, times, " " * 16)
            f.write('            ],\n            "Values": [\n')
            vals = [value(rng) for _ in range(1000)]
            write_items(f, [vals[i % 1000] for i in range(n)], " " * 16)
            f.write('            ],\n            "StatusCode": "Complete"\n        }%s\n'
                    % ("," if k + 1 < len(CW_METRICS) else ""))
        f.write('    ],\n    "Messages": []\n}\n')
    os.replace(path + ".tmp", path)


def generate_cwstats(path, mb):
    """get-metric-statistics output of about mb MB: GPUUtilization datapoints."""
    rng = random.Random(13)
    line = '        {"Timestamp": "%s", "Average": %.1f, "Maximum": %.1f, "Unit": "Percent"}'
    n = int(mb * 1e6 / (len(line) + 20))
    with open(path + ".tmp", "w") as f:
        f.write('{\n    "Label": "GPUUtilization",\n    "Datapoints": [\n')
        step = 100000
        for lo in range(0, n, step):
            avg = [rng.randrange(1001) / 10.0 for _ in range(lo, min(n, lo + step))]
            f.write(",\n".join(line % (cw_time(CW_T0 + 60 * (lo + i)), a, min(100.0, a + 5))
                               for i, a in enumerate(avg)))
            f.write(",\n" if lo + step < n else "\n")
        f.write("    ]\n}\n")
    os.replace(path + ".tmp", path)


# ---- text exposition (dcgm-exporter scrapes saved with timestamps) ----

# dcgm-exporter's default counters (docs/sources.md), per GPU; those
# rightsize maps (FB_USED, FB_TOTAL, GPU_UTIL) among those it skips.
EXPO_METRICS = [
    ("DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz).", lambda r: r.randrange(1200, 1411)),
    ("DCGM_FI_DEV_MEM_CLOCK", "Memory clock frequency (in MHz).", lambda r: 1215),
    ("DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", lambda r: r.randrange(30, 71)),
    ("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", lambda r: "%.3f" % r.uniform(60, 400)),
    ("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", lambda r: r.randrange(101)),
    ("DCGM_FI_DEV_MEM_COPY_UTIL", "Memory utilization (in %).", lambda r: r.randrange(101)),
    ("DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB).", lambda r: r.randrange(16000, 20961)),
    ("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", lambda r: r.randrange(20000, 24001)),
    ("DCGM_FI_DEV_FB_TOTAL", "Framebuffer memory total (in MiB).", lambda r: 40960),
]
EXPO_GPUS = 8


def expo_scrape(rng, t_ms):
    """One dcgm-exporter scrape of EXPO_GPUS GPUs at t_ms, as text."""
    out = []
    for name, help_text, value in EXPO_METRICS:
        out.append("# HELP %s %s\n# TYPE %s gauge\n" % (name, help_text, name))
        for gpu in range(EXPO_GPUS):
            out.append('%s{gpu="%d",UUID="GPU-5f3c2a%02d-7d1e-4b0a-9c1f-3e2d1c0b%04d",'
                       'device="nvidia%d",modelName="NVIDIA A100-SXM4-40GB",Hostname="node-a",'
                       'DCGM_FI_DRIVER_VERSION="535.129.03"} %s %d\n'
                       % (name, gpu, gpu, gpu, gpu, value(rng), t_ms))
    return "".join(out)


def generate_exposition(path, mb):
    """Scrapes every 15 s from 2025-11-30 00:00 UTC, about mb MB in all.
    The values come from a seeded generator (a pool of 64 scrapes, repeated
    with their timestamps advanced); their ranges are those of an A100 40GB."""
    rng = random.Random(11)
    t0 = 1764460800000
    pool = [expo_scrape(rng, 0) for _ in range(64)]
    target = int(mb * 1e6)
    size = 0
    i = 0
    with open(path + ".tmp", "w") as f:
        while size < target:
            text = pool[i % len(pool)].replace(" 0\n", " %d\n" % (t0 + 15000 * i))
            f.write(text)
            size += len(text)
            i += 1
    os.replace(path + ".tmp", path)


# ---- text exposition of the LLM servers' /metrics (vLLM, TGI, SGLang) ----
#
# Each server's metrics as rightsize maps them (src/core/ingest/llm_metrics.c,
# docs/sources.md "LLM serving metrics"): gauges, counters and histograms
# (_bucket, _sum, _count) with the servers' own bucket bounds, in seconds:
#   vLLM   vllm/engine/metrics.py (TTFT, TPOT, end-to-end latency);
#   TGI    router/src/server.rs: every histogram whose name ends in
#          "duration" gets 35 bounds, 0.00001 x 1.5^k for k = 1..35, written
#          as the metrics-exporter-prometheus crate prints f64 (positional);
#   SGLang docs/references/production_metrics.md: its example /metrics shows
#          TTFT bounds 0.001 ... 0.5, vLLM's list, which SGLang copied; the
#          same lists as vLLM for the three histograms.
# Requests per scrape, tokens and latencies come from a seeded generator
# (random.Random); counters only grow. Latency scales are typical of an 8B
# model on one GPU (tests/cli/data/llm: TTFT about 0.1 s, TPOT 0.03 s).

def positional(v):
    """A float as Rust's Display prints it: shortest digits, no exponent."""
    from decimal import Decimal
    text = format(Decimal(repr(v)), "f")
    return text if "." in text else text + ".0"


TGI_BOUNDS = []
_v = 0.00001
for _ in range(35):
    _v *= 1.5
    TGI_BOUNDS.append(_v)
VLLM_TTFT = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
             7.5, 10.0]
VLLM_TPOT = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5]
VLLM_E2E = [1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0]
MODEL = 'model_name="meta-llama/Llama-3.1-8B-Instruct"'

# server: labels, gauges (name, value), counters (name, per-request
# increment range), histograms (name, bounds, mean seconds)
LLM_SERVERS = {
    "vllm": (MODEL,
             [("vllm:num_requests_running", lambda r: "%d" % r.randrange(4, 40)),
              ("vllm:num_requests_waiting", lambda r: "%d" % r.randrange(0, 6)),
              ("vllm:gpu_cache_usage_perc", lambda r: "%.4f" % r.uniform(0.2, 0.9))],
             [("vllm:prompt_tokens_total", (200, 900)),
              ("vllm:generation_tokens_total", (100, 400)),
              ('vllm:request_success_total', (1, 1))],
             [("vllm:time_to_first_token_seconds", VLLM_TTFT, 0.08),
              ("vllm:time_per_output_token_seconds", VLLM_TPOT, 0.03),
              ("vllm:e2e_request_latency_seconds", VLLM_E2E, 6.0)]),
    "tgi": ("",
            [("tgi_batch_current_size", lambda r: "%d" % r.randrange(4, 40)),
             ("tgi_queue_size", lambda r: "%d" % r.randrange(0, 6))],
            [("tgi_request_count", (1, 1))],
            [("tgi_request_duration", TGI_BOUNDS, 6.0),
             ("tgi_request_mean_time_per_token_duration", TGI_BOUNDS, 0.03)]),
    "sglang": (MODEL,
               [("sglang:num_running_reqs", lambda r: "%d" % r.randrange(4, 40)),
                ("sglang:num_queue_reqs", lambda r: "%d" % r.randrange(0, 6)),
                ("sglang:token_usage", lambda r: "%.2f" % r.uniform(0.2, 0.9))],
               [("sglang:prompt_tokens_total", (200, 900)),
                ("sglang:generation_tokens_total", (100, 400)),
                ("sglang:num_requests_total", (1, 1))],
               [("sglang:time_to_first_token_seconds", VLLM_TTFT, 0.08),
                ("sglang:time_per_output_token_seconds", VLLM_TPOT, 0.03),
                ("sglang:e2e_request_latency_seconds", VLLM_E2E, 6.0)]),
}


def llm_delta(server, rng):
    """What one scrape adds: gauge texts, counter increases, and per histogram
    the requests in each bucket and their seconds, from rng."""
    _, gauges, counters, hists = LLM_SERVERS[server]
    n = rng.randrange(20, 80)
    g = [value(rng) for _, value in gauges]
    c = [sum(rng.randrange(lo, hi + 1) for _ in range(n)) for _, (lo, hi) in counters]
    h = []
    for _, bounds, mean in hists:
        counts = [0] * (len(bounds) + 1)
        total = 0.0
        for _ in range(n):
            v = rng.expovariate(1.0 / mean)
            total += v
            k = 0
            while k < len(bounds) and v > bounds[k]:
                k += 1
            counts[k] += 1
        h.append((counts, total))
    return g, c, h


def llm_lines(server, delta, state, t):
    """One scrape of server at t ms after delta (state: the counters so far)."""
    labels, gauges, counters, hists = LLM_SERVERS[server]
    g, c, h = delta
    braces = "{%s}" % labels if labels else ""
    out = []
    for (name, _), text in zip(gauges, g):
        out.append("%s%s %s %d\n" % (name, braces, text, t))
    for (name, _), inc in zip(counters, c):
        state[name] = state.get(name, 0) + inc
        out.append("%s%s %d %d\n" % (name, braces, state[name], t))
    for (name, bounds, _), (counts, total) in zip(hists, h):
        key = name + "_le"
        if key not in state:  # the bucket label sets, written once
            state[key] = [name + "_bucket{%s}" % ",".join(
                x for x in (labels, 'le="%s"' % (le if le == "+Inf" else positional(le)
                                                 if server == "tgi" else repr(le))) if x)
                for le in bounds + ["+Inf"]]
            state[name] = [0] * len(counts)
            state[name + "_sum"] = 0.0
        cum_state = state[name]
        state[name + "_sum"] += total
        cum = 0
        for k, head in enumerate(state[key]):
            cum_state[k] += counts[k]
            cum += cum_state[k]
            out.append("%s %d %d\n" % (head, cum, t))
        out.append("%s_sum%s %.6f %d\n" % (name, braces, state[name + "_sum"], t))
        out.append("%s_count%s %d %d\n" % (name, braces, cum, t))
    return "".join(out)


def generate_llm(server, path, mb):
    """server's /metrics scrapes every 15 s from 2025-11-30 00:00 UTC, saved
    with timestamps, about mb MB: what each scrape adds comes from a pool of
    256 drawn by a seeded generator, taken in turn."""
    rng = random.Random({"vllm": 13, "tgi": 17, "sglang": 19}[server])
    pool = [llm_delta(server, rng) for _ in range(256)]
    t0 = 1764460800000
    target = int(mb * 1e6)
    state = {}
    size = 0
    i = 0
    with open(path + ".tmp", "w") as f:
        while size < target:
            text = llm_lines(server, pool[i % len(pool)], state, t0 + 15000 * i)
            f.write(text)
            size += len(text)
            i += 1
    os.replace(path + ".tmp", path)


GENERATORS = {"prom": ("prom-%d.json", generate_prom), "cwdata": ("cwdata-%d.json", generate_cwdata),
              "cwstats": ("cwstats-%d.json", generate_cwstats),
              "exposition": ("dcgm-%d.prom", generate_exposition),
              "vllm": ("vllm-%d.prom", lambda p, mb: generate_llm("vllm", p, mb)),
              "tgi": ("tgi-%d.prom", lambda p, mb: generate_llm("tgi", p, mb)),
              "sglang": ("sglang-%d.prom", lambda p, mb: generate_llm("sglang", p, mb))}
ALIASES = {"prom-json": "prom"}
MAPPING = os.path.join(HERE, "..", "tests", "data", "exports", "sagemaker_mapping.yaml")


def run_once(cmd):
    """(wall s, CPU s, peak MiB) of one run, or the last line of its error."""
    start = time.monotonic()
    proc = subprocess.run([GNU_TIME, "-f", "%M %U %S"] + cmd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE)
    wall = time.monotonic() - start
    err = proc.stderr.decode(errors="replace").strip().splitlines()
    if proc.returncode != 0:
        said = [line for line in err if line.startswith("rightsize:")]
        return said[-1] if said else "exit %d" % proc.returncode
    rss, user, sys_ = err[-1].split()
    return wall, float(user) + float(sys_), int(rss) / 1024.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="100,1000", help="MB of the JSON answers")
    ap.add_argument("--formats", default="prom,cwdata,cwstats,exposition",
                    help="prom (query_range JSON; also prom-json), cwdata, cwstats (CloudWatch "
                         "JSON), exposition (dcgm-exporter text scrapes), vllm, tgi, sglang (the "
                         "LLM servers' /metrics scrapes)")
    ap.add_argument("--csv-rows", type=int, default=5000000, help="rows of the --exact CSV")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "build-rel", "rightsize"))
    ap.add_argument("--baseline", help="another rightsize build to run beside --bin")
    ap.add_argument("--data", default=os.path.join(HERE, "data"),
                    help="where the inputs are generated (and reused when there)")
    args = ap.parse_args()
    if not os.path.exists(GNU_TIME):
        sys.exit("%s is missing (Debian package time)" % GNU_TIME)

    data = args.data
    os.makedirs(data, exist_ok=True)
    files = []
    for fmt in (ALIASES.get(f, f) for f in args.formats.split(",") if f):
        if fmt not in GENERATORS:
            sys.exit("unknown format %r, expected one of %s" % (fmt, ", ".join(GENERATORS)))
        pattern, gen = GENERATORS[fmt]
        for mb in (int(s) for s in args.sizes.split(",") if s):
            path = os.path.join(data, pattern % mb)
            if not os.path.exists(path):
                print("generating %s ..." % path, file=sys.stderr)
                gen(path, mb)
            files.append((fmt, path))
    csv = os.path.join(data, "samples-%d.csv" % args.csv_rows)
    if args.csv_rows > 0 and not os.path.exists(csv):
        print("generating %s ..." % csv, file=sys.stderr)
        generate(csv, args.csv_rows)

    bins = [("rightsize", args.bin)] + ([("baseline", args.baseline)] if args.baseline else [])
    cmds = []
    for fmt, path in files:
        base = os.path.basename(path)
        extra = ["--mapping", MAPPING] if fmt.startswith("cw") else []
        cmds += [("cat %s" % base, path, ["sh", "-c", 'cat "$0" > /dev/null', path]),
                 ("wc -l %s" % base, path, ["wc", "-l", path])]
        cmds += [("%s profile %s" % (who, base), path,
                  [b, "profile", path, "--format", "json"] + extra) for who, b in bins]
    if args.csv_rows > 0:
        base = os.path.basename(csv)
        cmds += [("wc -l %s" % base, csv, ["wc", "-l", csv])]
        cmds += [("%s profile %s --exact" % (who, base), csv,
                  [b, "profile", csv, "--format", "json", "--exact"]) for who, b in bins]

    results = {name: [] for name, _, _ in cmds}
    for _ in range(args.repeat):  # interleaved, so drift hits every command alike
        for name, _, cmd in cmds:
            results[name].append(run_once(cmd))

    print("%d runs each, medians (bin %s%s)"
          % (args.repeat, args.bin, ", baseline %s" % args.baseline if args.baseline else ""))
    print("%-48s %8s %8s %9s %9s %9s" % ("command", "wall s", "cpu s", "MB/s wall", "MB/s cpu",
                                          "peak MiB"))
    for name, path, _ in cmds:
        runs = results[name]
        failed = [r for r in runs if isinstance(r, str)]
        if failed:
            print("%-48s failed: %s" % (name, failed[0]))
            continue
        wall = statistics.median(w for w, _, _ in runs)
        cpu = statistics.median(c for _, c, _ in runs)
        rss = max(r for _, _, r in runs)
        mb = os.path.getsize(path) / 1e6
        print("%-48s %8.2f %8.2f %9.1f %9.1f %9.1f"
              % (name, wall, cpu, mb / wall, mb / cpu if cpu > 0 else float("inf"), rss))


if __name__ == "__main__":
    main()
