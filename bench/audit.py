#!/usr/bin/env python3
"""Fleet benchmark for `rightsize audit` and `rightsize recommend`.

Builds a fleet of COPIES x 24 endpoints under bench/data/fleet-N/ by copying
profiles/fleet/ with renamed endpoints (each copy's profiles point at the
shipped sample files), then runs, interleaved, REPEAT times each:

  rightsize recommend profiles/resnet50-p3.8xlarge.yaml   one profile (a week at 60 s, 4 GPUs)
  rightsize audit FLEET --threads 1                         one worker
  rightsize audit FLEET                                     every CPU
  rightsize audit FLEET --consolidate                       every CPU, with the packing

and prints the median wall time of each and the ratios against the
one-thread audit. The outputs of the one-thread and all-CPU runs are
compared byte for byte (the thread count must not change the report).

Usage: python3 bench/audit.py [--copies N] [--repeat K] [--bin build/rightsize]
The machine is shared and noisy: compare medians from the same run only.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def build_fleet(copies):
    dest = os.path.join(HERE, "data", "fleet-%d" % copies)
    src = os.path.join(ROOT, "profiles", "fleet")
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    for k in range(copies):
        d = os.path.join(dest, "copy%03d" % k)
        os.makedirs(d)
        for name in sorted(os.listdir(src)):
            if not name.endswith(".yaml"):
                continue
            with open(os.path.join(src, name)) as f:
                text = f.read()
            stem = name[:-5]
            text = text.replace("endpoint: %s" % stem, "endpoint: %s-%03d" % (stem, k))
            text = text.replace("  - %s.csv" % stem, "  - %s" % os.path.join(src, stem + ".csv"))
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
    return dest


def run(cmd):
    t = time.perf_counter()
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t
    if out.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (out.returncode, " ".join(cmd), out.stderr.decode()))
    return dt, out.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--copies", type=int, default=17)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "rightsize"))
    a = ap.parse_args()
    fleet = build_fleet(a.copies)
    n = 24 * a.copies
    cmds = [
        ("recommend, one profile", [a.bin, "recommend",
                                    os.path.join(ROOT, "profiles", "resnet50-p3.8xlarge.yaml")]),
        ("audit %d, 1 thread" % n, [a.bin, "audit", fleet, "--threads", "1"]),
        ("audit %d, all CPUs" % n, [a.bin, "audit", fleet]),
        ("audit %d --consolidate" % n, [a.bin, "audit", fleet, "--consolidate"]),
    ]
    times = {name: [] for name, _ in cmds}
    outs = {}
    for _ in range(a.repeat):
        for name, cmd in cmds:
            dt, out = run(cmd)
            times[name].append(dt)
            outs[name] = out
    same = outs[cmds[1][0]] == outs[cmds[2][0]]
    base = statistics.median(times[cmds[1][0]])
    print("%-32s %10s %8s" % ("command", "median s", "ratio"))
    for name, _ in cmds:
        m = statistics.median(times[name])
        print("%-32s %10.3f %8.2f" % (name, m, m / base))
    print("CPUs: %d; one-thread and all-CPU reports identical: %s" % (os.cpu_count(), same))
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
