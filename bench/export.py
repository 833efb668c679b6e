#!/usr/bin/env python3
"""Throughput and memory benchmark for exported formats and --exact.

Generates, cached under bench/data/ (which git ignores):

  prom-SIZE.json   a Prometheus query_range answer: 24 series (DCGM memory
                   used, memory total and utilization of 8 GPUs) at 15 s,
                   as many points as make SIZE MB (default 100 and 1000)
  dcgm-SIZE.prom   a text exposition: dcgm-exporter scrapes of 8 GPUs (nine
                   default counters each, with # HELP and # TYPE) every 15 s,
                   saved with timestamps, SIZE MB (generate_exposition)
  vllm-SIZE.prom   vLLM /metrics scrapes every 15 s with counters and
                   histograms (generate_vllm); its reader holds the file
                   whole, so at most 256 MiB
  samples-ROWS.csv a native CSV (bench/run.py's generator), for --exact

then runs, in one go and interleaved, each command REPEAT times (default 3)
and prints the median wall time, MB/s and peak resident memory (GNU time,
Debian package `time`) of each:

  cat FILE > /dev/null                 the cost of reading the bytes
  wc -l FILE                           the cost of looking at each byte
  rightsize profile FILE --format json the streaming reader
  rightsize profile CSV --exact        every value kept, ranks selected

Usage: python3 bench/export.py [--sizes 100,1000] [--formats prom-json,exposition]
                               [--csv-rows N] [--repeat K] [--bin build-rel/rightsize]
Build Release first: cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=Release &&
cmake --build build-rel -j2 --target rightsize
The machine is shared and noisy: compare medians from the same run only.
"""
import argparse
import os
import random
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run import generate, run_once  # noqa: E402  (bench/run.py: CSV generator, timing)

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


# ---- text exposition of vLLM's /metrics (gauges, counters, histograms) ----

VLLM_LABELS = 'model_name="meta-llama/Llama-3.1-8B-Instruct"'
# vLLM's histogram buckets (vllm/engine/metrics.py), in seconds
VLLM_HISTOGRAMS = [
    ("vllm:time_to_first_token_seconds",
     [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0]),
    ("vllm:time_per_output_token_seconds",
     [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5]),
    ("vllm:e2e_request_latency_seconds",
     [1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0]),
]


def generate_vllm(path, mb):
    """vLLM /metrics scrapes every 15 s, saved with timestamps, about mb MB:
    three gauges, three counters and three histograms (_bucket, _sum,
    _count) of one model. Requests per scrape and their latencies come from
    a seeded generator; counters only grow."""
    rng = random.Random(13)
    t0 = 1764460800000
    target = int(mb * 1e6)
    prompt = gen = done = 0
    hist = {name: [0] * (len(bounds) + 1) for name, bounds in VLLM_HISTOGRAMS}
    sums = {name: 0.0 for name, _ in VLLM_HISTOGRAMS}
    scale = {"vllm:time_to_first_token_seconds": 0.08,
             "vllm:time_per_output_token_seconds": 0.03,
             "vllm:e2e_request_latency_seconds": 6.0}
    size = 0
    i = 0
    with open(path + ".tmp", "w") as f:
        while size < target:
            t = t0 + 15000 * i
            n = rng.randrange(20, 80)
            prompt += n * rng.randrange(200, 900)
            gen += n * rng.randrange(100, 400)
            done += n
            out = ["vllm:num_requests_running{%s} %d %d\n" % (VLLM_LABELS, rng.randrange(4, 40), t),
                   "vllm:num_requests_waiting{%s} %d %d\n" % (VLLM_LABELS, rng.randrange(0, 6), t),
                   "vllm:gpu_cache_usage_perc{%s} %.4f %d\n" % (VLLM_LABELS, rng.uniform(0.2, 0.9), t),
                   "vllm:prompt_tokens_total{%s} %d %d\n" % (VLLM_LABELS, prompt, t),
                   "vllm:generation_tokens_total{%s} %d %d\n" % (VLLM_LABELS, gen, t),
                   'vllm:request_success_total{%s,finished_reason="stop"} %d %d\n'
                   % (VLLM_LABELS, done, t)]
            for name, bounds in VLLM_HISTOGRAMS:
                counts = hist[name]
                for _ in range(n):
                    v = rng.expovariate(1.0 / scale[name])
                    sums[name] += v
                    k = 0
                    while k < len(bounds) and v > bounds[k]:
                        k += 1
                    counts[k] += 1
                cum = 0
                for k, le in enumerate(bounds + ["+Inf"]):
                    cum += counts[k]
                    out.append('%s_bucket{%s,le="%s"} %d %d\n' % (name, VLLM_LABELS, le, cum, t))
                out.append("%s_sum{%s} %.6f %d\n" % (name, VLLM_LABELS, sums[name], t))
                out.append("%s_count{%s} %d %d\n" % (name, VLLM_LABELS, cum, t))
            text = "".join(out)
            f.write(text)
            size += len(text)
            i += 1
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="100,1000", help="MB of the generated exports")
    ap.add_argument("--formats", default="prom-json,exposition",
                    help="exports to generate and read: prom-json (query_range JSON), "
                         "exposition (dcgm-exporter text scrapes), vllm (vLLM /metrics "
                         "scrapes, held whole: at most 256 MiB)")
    ap.add_argument("--csv-rows", type=int, default=5000000, help="rows of the --exact CSV")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "build-rel", "rightsize"))
    ap.add_argument("--baseline", help="another rightsize to run on the same files, where "
                                       "they are at most 256 MiB (what it may refuse above)")
    args = ap.parse_args()

    data = os.path.join(HERE, "data")
    os.makedirs(data, exist_ok=True)
    files = []
    generators = {"prom-json": ("prom-%d.json", generate_prom),
                  "exposition": ("dcgm-%d.prom", generate_exposition),
                  "vllm": ("vllm-%d.prom", generate_vllm)}
    for fmt in (f for f in args.formats.split(",") if f):
        if fmt not in generators:
            sys.exit("unknown format %r, expected one of %s" % (fmt, ", ".join(generators)))
        pattern, gen = generators[fmt]
        for mb in (int(s) for s in args.sizes.split(",") if s):
            path = os.path.join(data, pattern % mb)
            if not os.path.exists(path):
                print("generating %s ..." % path, file=sys.stderr)
                gen(path, mb)
            files.append(path)
    csv = os.path.join(data, "samples-%d.csv" % args.csv_rows)
    if args.csv_rows > 0 and not os.path.exists(csv):
        print("generating %s ..." % csv, file=sys.stderr)
        generate(csv, args.csv_rows)

    cmds = []
    for path in files:
        base = os.path.basename(path)
        cmds += [("cat %s" % base, path, ["sh", "-c", 'cat "$0" > /dev/null', path]),
                 ("wc -l %s" % base, path, ["wc", "-l", path]),
                 ("rightsize profile %s" % base, path,
                  [args.bin, "profile", path, "--format", "json"])]
        if args.baseline and os.path.getsize(path) <= 256 << 20:
            cmds.append(("baseline profile %s" % base, path,
                         [args.baseline, "profile", path, "--format", "json"]))
    if args.csv_rows > 0:
        base = os.path.basename(csv)
        cmds += [("wc -l %s" % base, csv, ["wc", "-l", csv]),
                 ("rightsize profile %s --exact" % base, csv,
                  [args.bin, "profile", csv, "--format", "json", "--exact"])]

    results = {name: [] for name, _, _ in cmds}
    for _ in range(args.repeat):  # interleaved, so drift hits every command alike
        for name, _, cmd in cmds:
            results[name].append(run_once(cmd))

    print("%d runs each, medians (bin %s)" % (args.repeat, args.bin))
    print("%-44s %10s %9s %8s %11s %11s" % ("command", "wall s", "MB/s", "CPU s", "MB/CPU s",
                                             "peak MiB"))
    for name, path, _ in cmds:
        wall = statistics.median(r[0] for r in results[name])
        cpu = statistics.median(r[1] for r in results[name]) if len(results[name][0]) > 2 \
            else float("nan")
        rss = max(r[-1] for r in results[name])
        mb = os.path.getsize(path) / 1e6
        print("%-44s %10.2f %9.1f %8.2f %11.1f %11.1f"
              % (name, wall, mb / wall, cpu, mb / cpu if cpu > 0 else float("nan"), rss))


if __name__ == "__main__":
    main()
