#!/usr/bin/env python3
"""Throughput and memory benchmark for `rightsize profile` on a native CSV.

Generates a native samples CSV of ROWS rows (default 5,000,000, about 162 MB;
--rows 31000000 is about 1 GB; cached under bench/data/), then runs, in one
go and interleaved, each command REPEAT times (default 5) and prints the
median wall time and CPU time (user + system), MB/s of each, and the peak
resident memory, with ratios against `rightsize profile`. Peak memory comes from GNU time (Debian package
`time`) when it is installed:

  cat FILE > /dev/null                         reading the bytes
  wc -l FILE                                   reading and counting lines
  rightsize profile FILE --format json --threads 1   streaming sketch, one thread
  rightsize profile FILE --format json --threads T   the same file cut into T parts (--threads,
                                               default 2), read at once; its output must be
                                               the same bytes (checked once before timing)
  rightsize profile FILE --format json --exact with --exact: keeps and sorts every value
  naive C (bench/naive_csv.c)                  fgets, strsep, strtod, keep all, qsort
  pandas read_csv + quantiles                  if python3-pandas is installed

Usage: python3 bench/run.py [--rows N] [--repeat K] [--bin build-rel/rightsize] [--threads T]
                            [--naive PATH] [--baseline OTHER_BIN] [--exact] [--no-pandas]
The baseline runs `profile FILE --format json` (no --threads: builds before
issue 17's split read one thread).
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


BLOCK = 200000  # rows drawn at random; the file repeats them at later times


def generate(path, rows):
    """A block of BLOCK random rows (4 GPUs per timestamp, one busy),
    repeated with advancing timestamps up to ROWS rows: quick to write at
    1 GB, the same value distribution throughout."""
    rng = random.Random(42)
    t0 = 1764460800
    tails = []
    for i in range(min(rows, BLOCK)):
        gpu = i % 4
        util = rng.random() * 40 if gpu == 0 else 0.0
        mem = 3000 + rng.random() * 200 if gpu == 0 else 0.0
        if gpu == 0:
            rate = 10 + rng.random() * 5
            tails.append(",%d,%.1f,%.1f,%.1f,%.2f,%.2f,%.2f,%.2f\n" % (
                gpu, mem, util, 5 + rng.random() * 5, rate,
                8 + rng.random(), 12 + rng.random(), 18 + rng.random() * 4))
        else:
            tails.append(",%d,%.1f,%.1f,,,,,\n" % (gpu, mem, util))
    with open(path + ".tmp", "w") as f:
        f.write(HEADER)
        done = 0
        while done < rows:
            n = min(len(tails), rows - done)
            f.write("".join(str(t0 + (done + i) // 4) + tails[i] for i in range(n)))
            done += n
    os.replace(path + ".tmp", path)


GNU_TIME = "/usr/bin/time"  # Debian package `time`: peak RSS of the command alone


def run_once(cmd):
    """Wall seconds, CPU seconds (user + system) and peak resident MiB of
    one run of cmd. CPU time is the fairer figure on a loaded machine: the
    wall time also counts the time the command waited for a core."""
    have_time = os.path.exists(GNU_TIME)
    wrapped = [GNU_TIME, "-f", "%M %U %S"] + cmd if have_time else cmd
    start = time.monotonic()
    proc = subprocess.run(wrapped, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.monotonic() - start
    err = proc.stderr.decode().strip().splitlines()
    if proc.returncode != 0:
        sys.exit("command failed: %s\n%s" % (" ".join(cmd), "\n".join(err)))
    fields = err[-1].split() if have_time and err else []
    if len(fields) == 3:
        return wall, float(fields[1]) + float(fields[2]), int(fields[0]) / 1024.0
    return wall, float("nan"), float("nan")


def find_pandas():
    # Debian's python3-pandas lives with /usr/bin/python3, which may not be
    # the python running this script.
    for py in (sys.executable, "/usr/bin/python3"):
        if subprocess.run([py, "-c", "import pandas"], stderr=subprocess.DEVNULL).returncode == 0:
            return py
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=5000000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "build", "rightsize"))
    ap.add_argument("--naive", help="the naive C baseline (default: bench/naive_csv beside --bin)")
    ap.add_argument("--exact", action="store_true", help="also run profile --exact")
    ap.add_argument("--baseline", help="another rightsize binary (an earlier build) to run too")
    ap.add_argument("--no-pandas", action="store_true")
    ap.add_argument("--threads", type=int, default=2,
                    help="threads of the second rightsize run (default 2; 1 or less: none)")
    args = ap.parse_args()

    os.makedirs(os.path.join(HERE, "data"), exist_ok=True)
    path = os.path.join(HERE, "data", "native-%d.csv" % args.rows)
    if not os.path.exists(path):
        print("generating %s ..." % path, file=sys.stderr)
        generate(path, args.rows)
    size_mb = os.path.getsize(path) / 1e6

    naive = args.naive or os.path.join(os.path.dirname(args.bin), "bench", "naive_csv")
    profile = [args.bin, "profile", path, "--format", "json", "--threads", "1"]
    split = profile[:-1] + [str(args.threads)]
    split_name = "rightsize --threads %d" % args.threads
    cmds = [("cat > /dev/null", ["sh", "-c", 'exec cat "$0" > /dev/null', path]),
            ("wc -l", ["wc", "-l", path]),
            ("rightsize profile", profile)]
    if args.threads > 1:
        one = subprocess.run(profile, stdout=subprocess.PIPE, check=True).stdout
        many = subprocess.run(split, stdout=subprocess.PIPE, check=True).stdout
        if one != many:
            sys.exit("%s: output differs from --threads 1" % split_name)
        cmds.append((split_name, split))
    if args.baseline:
        cmds.append(("baseline rightsize profile", [args.baseline] + profile[1:-2]))
    if args.exact:
        cmds.append(("rightsize profile --exact", profile + ["--exact"]))
    if os.path.exists(naive):
        cmds.append(("naive C (naive_csv)", [naive, path]))
    else:
        print("%s not built: skipping the naive C baseline" % naive, file=sys.stderr)
    py = None if args.no_pandas else find_pandas()
    if py is not None:
        cmds.append(("pandas read_csv + quantiles", [py, "-c", PANDAS, path]))
    elif not args.no_pandas:
        print("pandas not installed: skipping that baseline", file=sys.stderr)

    results = {name: [] for name, _ in cmds}
    for _ in range(args.repeat):  # interleaved, so drift hits every command alike
        for name, cmd in cmds:
            results[name].append(run_once(cmd))

    def med(name, k):
        return statistics.median(r[k] for r in results[name])

    ours = med("rightsize profile", 0)
    ours_cpu = med("rightsize profile", 1)
    print("file: %s (%.1f MB, %d rows), %d runs each, medians" % (
        path, size_mb, args.rows, args.repeat))
    print("%-28s %8s %8s %8s %9s %9s %8s %8s" % (
        "command", "wall s", "MB/s", "cpu s", "MB/cpu-s", "RSS MiB", "x wall", "x cpu"))
    for name, _ in cmds:
        wall, cpu = med(name, 0), med(name, 1)
        rss = max(r[2] for r in results[name])
        print("%-28s %8.3f %8.1f %8.3f %9.1f %9.1f %8.2f %8.2f" % (
            name, wall, size_mb / wall, cpu, size_mb / cpu if cpu > 0 else float("inf"), rss,
            wall / ours, cpu / ours_cpu if ours_cpu > 0 else float("nan")))
    print("x wall, x cpu: the command's median over rightsize profile's")
    if args.threads > 1:
        print("%s over --threads 1: %.2fx the speed (wall), %.2fx the CPU time; "
              "outputs identical" % (split_name, ours / med(split_name, 0),
                                     med(split_name, 1) / ours_cpu if ours_cpu > 0 else float("nan")))
    print("load average at the end: %s" % " ".join("%.2f" % x for x in os.getloadavg()))


if __name__ == "__main__":
    main()
