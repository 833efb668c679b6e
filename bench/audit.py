#!/usr/bin/env python3
"""Fleet benchmark for `rightsize audit` and `rightsize recommend`.

Builds a fleet of COPIES x 24 endpoints under bench/data/fleet-N/ by copying
profiles/fleet/ with renamed endpoints (each copy's profiles point at the
shipped sample files), then runs, interleaved, REPEAT times each:

  rightsize recommend profiles/resnet50-p3.8xlarge.yaml   one profile (a week at 60 s, 4 GPUs)
  rightsize audit FLEET --threads 1                         one worker
  rightsize audit FLEET --threads T                         T workers (default 2)
  rightsize audit FLEET --consolidate --threads 1           with the packing
  rightsize audit FLEET --consolidate --threads T

(only the last two with --consolidate-only; with --baseline BIN, the same
audits again with that build, in the same rounds) and prints the median wall
time and CPU time (user + system) of each, the ratio of wall times against
the first audit and each command's peak resident memory (its own, from
wait4). The outputs of the 1-thread and T-thread runs are compared byte for
byte (the thread count must not change the report).

Usage: python3 bench/audit.py [--copies N] [--repeat K] [--bin build/rightsize]
                              [--threads T] [--baseline OTHER/rightsize] [--consolidate-only]
10,008 endpoints: --copies 417.
The machine is shared and noisy: compare medians from the same run only.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
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
    """Runs cmd; returns wall seconds, CPU seconds (user + system), its own peak RSS in KiB
    (wait4) and stdout."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        dt = time.perf_counter() - t
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if p.returncode != 0:
            sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), err.read().decode()))
        return dt, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, out.read()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--copies", type=int, default=17)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "rightsize"))
    ap.add_argument("--baseline", default=None,
                    help="another rightsize build to run the same audits with, interleaved")
    ap.add_argument("--threads", type=int, default=2, help="the many-thread runs (default 2)")
    ap.add_argument("--consolidate-only", action="store_true",
                    help="only the two audits with --consolidate (a fleet of 10,000 takes minutes)")
    a = ap.parse_args()
    fleet = build_fleet(a.copies)
    n = 24 * a.copies
    bins = [("", a.bin)] + ([("base ", a.baseline)] if a.baseline else [])
    cmds = [("recommend, one profile", [a.bin, "recommend",
                                        os.path.join(ROOT, "profiles", "resnet50-p3.8xlarge.yaml")])]
    for tag, b in bins:
        if not a.consolidate_only:
            cmds += [
                ("%saudit %d, 1 thread" % (tag, n), [b, "audit", fleet, "--threads", "1"]),
                ("%saudit %d, %d threads" % (tag, n, a.threads),
                 [b, "audit", fleet, "--threads", str(a.threads)]),
            ]
        cmds += [
            ("%saudit %d --consolidate, 1 thread" % (tag, n),
             [b, "audit", fleet, "--consolidate", "--threads", "1"]),
            ("%saudit %d --consolidate, %d threads" % (tag, n, a.threads),
             [b, "audit", fleet, "--consolidate", "--threads", str(a.threads)]),
        ]
    per = 2 if a.consolidate_only else 4  # audits per build
    times = {name: [] for name, _ in cmds}
    cpus = {name: [] for name, _ in cmds}
    rss = {name: 0 for name, _ in cmds}
    outs = {}
    for _ in range(a.repeat):
        for name, cmd in cmds:
            dt, cpu, kib, out = run(cmd)
            times[name].append(dt)
            cpus[name].append(cpu)
            rss[name] = max(rss[name], kib)
            outs[name] = out
    same = all(outs[cmds[k][0]] == outs[cmds[k + 1][0]] for k in range(1, per + 1, 2))
    base = statistics.median(times[cmds[1][0]])
    print("%-44s %10s %10s %8s %12s" % ("command", "median s", "median CPU", "ratio",
                                          "peak RSS MB"))
    for name, _ in cmds:
        m = statistics.median(times[name])
        print("%-44s %10.3f %10.3f %8.2f %12.1f" % (name, m, statistics.median(cpus[name]),
                                                     m / base, rss[name] / 1024.0))
    for tag, _ in bins[1:]:
        for k in range(1, per + 1):
            mine, theirs = cmds[k][0], tag + cmds[k][0]
            print("%-44s %10.2fx wall, %5.2fx CPU" % (
                "speed-up of " + mine, statistics.median(times[theirs]) /
                statistics.median(times[mine]), statistics.median(cpus[theirs]) /
                statistics.median(cpus[mine])))
    print("CPUs: %d; 1-thread and %d-thread reports identical: %s" % (os.cpu_count(), a.threads,
                                                                      same))
    for line in outs[cmds[per - 1][0]].decode().splitlines():
        if "instances for" in line or "lower bound" in line:
            print("packing: " + line.strip())
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
