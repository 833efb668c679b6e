#!/usr/bin/env python3
"""Throughput and memory benchmark for `rightsize profile`.

Generates a native samples CSV of ROWS rows (default 5,000,000, about 300 MB;
cached under bench/data/), then runs, in one go and interleaved, each command
REPEAT times (default 5) and prints the median wall time, MB/s and the peak
resident memory of each, with ratios against the baseline `wc -l` (the
cost of just reading the bytes). Peak memory comes from GNU time
(Debian package `time`) when it is installed:

  wc -l FILE                                   the I/O floor
  rightsize profile FILE --format json         streaming sketch (the default)
  rightsize profile FILE --format json --exact keeps and sorts every value
  pandas read_csv + quantiles                  if python3-pandas is installed

Usage: python3 bench/run.py [--rows N] [--repeat K] [--bin build/rightsize]
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
HEADER = ("timestamp,gpu_index,gpu_mem_used_mib,gpu_util_pct,cpu_util_pct,"
          "request_rate_rps,latency_p50_ms,latency_p95_ms,latency_p99_ms\n")

PANDAS = r"""
import sys, pandas as pd
df = pd.read_csv(sys.argv[1])
cols = [c for c in df.columns if c not in ("timestamp", "gpu_index")]
print(df[cols].quantile([0.5, 0.9, 0.95, 0.99]).to_json())
print(df.groupby("gpu_index")[["gpu_mem_used_mib", "gpu_util_pct"]].quantile(0.99).to_json())
"""


def generate(path, rows):
    rng = random.Random(42)
    t0 = 1764460800
    with open(path + ".tmp", "w") as f:
        f.write(HEADER)
        chunk = []
        for i in range(rows):
            gpu = i % 4
            t = t0 + (i // 4)
            util = rng.random() * 40 if gpu == 0 else 0.0
            mem = 3000 + rng.random() * 200 if gpu == 0 else 0.0
            if gpu == 0:
                rate = 10 + rng.random() * 5
                chunk.append("%d,%d,%.1f,%.1f,%.1f,%.2f,%.2f,%.2f,%.2f\n" % (
                    t, gpu, mem, util, 5 + rng.random() * 5, rate,
                    8 + rng.random(), 12 + rng.random(), 18 + rng.random() * 4))
            else:
                chunk.append("%d,%d,%.1f,%.1f,,,,,\n" % (t, gpu, mem, util))
            if len(chunk) >= 100000:
                f.write("".join(chunk))
                chunk = []
        f.write("".join(chunk))
    os.replace(path + ".tmp", path)


GNU_TIME = "/usr/bin/time"  # Debian package `time`: peak RSS of the command alone


def run_once(cmd):
    """Wall seconds and peak resident MiB of one run of cmd."""
    wrapped = [GNU_TIME, "-f", "%M"] + cmd if os.path.exists(GNU_TIME) else cmd
    start = time.monotonic()
    proc = subprocess.run(wrapped, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.monotonic() - start
    err = proc.stderr.decode().strip().splitlines()
    if proc.returncode != 0:
        sys.exit("command failed: %s\n%s" % (" ".join(cmd), "\n".join(err)))
    if os.path.exists(GNU_TIME) and err and err[-1].isdigit():
        return wall, int(err[-1]) / 1024.0
    return wall, float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=5000000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "build", "rightsize"))
    ap.add_argument("--no-pandas", action="store_true")
    args = ap.parse_args()

    os.makedirs(os.path.join(HERE, "data"), exist_ok=True)
    path = os.path.join(HERE, "data", "samples-%d.csv" % args.rows)
    if not os.path.exists(path):
        print("generating %s ..." % path, file=sys.stderr)
        generate(path, args.rows)
    size_mb = os.path.getsize(path) / 1e6

    cmds = [("wc -l (I/O floor)", ["wc", "-l", path]),
            ("rightsize profile (sketch)", [args.bin, "profile", path, "--format", "json"]),
            ("rightsize profile --exact", [args.bin, "profile", path, "--format", "json",
                                           "--exact"])]
    if not args.no_pandas:
        # Debian's python3-pandas lives with /usr/bin/python3, which may not be
        # the python running this script.
        for py in (sys.executable, "/usr/bin/python3"):
            if subprocess.run([py, "-c", "import pandas"], stderr=subprocess.DEVNULL).returncode == 0:
                cmds.append(("pandas read_csv + quantiles", [py, "-c", PANDAS, path]))
                break
        else:
            print("pandas not installed: skipping that baseline", file=sys.stderr)

    results = {name: [] for name, _ in cmds}
    for _ in range(args.repeat):  # interleaved, so drift hits every command alike
        for name, cmd in cmds:
            results[name].append(run_once(cmd))

    base = statistics.median(w for w, _ in results[cmds[0][0]])
    sketch = statistics.median(w for w, _ in results[cmds[1][0]])
    print("file: %s (%.1f MB, %d rows), %d runs each, medians" % (
        path, size_mb, args.rows, args.repeat))
    print("%-30s %10s %10s %12s %10s %10s" % ("command", "wall s", "MB/s", "peak RSS MiB",
                                            "x wc -l", "x sketch"))
    for name, _ in cmds:
        wall = statistics.median(w for w, _ in results[name])
        rss = max(r for _, r in results[name])
        print("%-30s %10.3f %10.1f %12.1f %10.2f %10.2f" % (
            name, wall, size_mb / wall, rss, wall / base, wall / sketch))


if __name__ == "__main__":
    main()
