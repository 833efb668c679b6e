#!/usr/bin/env python3
"""Start-up benchmark: what a short run of rightsize costs beyond its work.

Builds the working tree as a Release binary (bench/data/startup/new) and,
with --base REV, the same for an older commit taken with `git archive`
(bench/data/startup/base-REV), then runs, interleaved in a shuffled order
each round, REPEAT times each:

  /bin/true                                                 the cost of a process
  rightsize --version                                       start-up and the built-in catalog
  rightsize recommend profiles/resnet50-p3.8xlarge.yaml     one profile, a week at 60 s
  rightsize catalog list                                    the built-in catalog, every shape

and prints, for each binary, the shared objects it loads (ldd), the median
wall time of each command, its ratio to /bin/true, the median CPU time (user
+ system, from wait4: less moved by other load than the wall time) and
recommend's ratio to --version; with --base, the new/base ratio of each
command's wall time. Before timing,
the outputs and exit codes of the two builds are compared byte for byte.

Usage: python3 bench/startup.py [--base REV] [--repeat K] [--jobs N]
The machine is shared and noisy: compare medians from the same run only.
"""
import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(HERE, "data", "startup")
PROFILE = os.path.join(ROOT, "profiles", "resnet50-p3.8xlarge.yaml")


def sh(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw)
    if r.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (r.returncode, " ".join(cmd), r.stdout.decode()[-4000:]))
    return r.stdout.decode()


def build(src, dest, jobs):
    """A Release build of src's rightsize under dest; returns the binary."""
    sh(["cmake", "-S", src, "-B", dest, "-DCMAKE_BUILD_TYPE=Release", "-DRS_BUILD_TESTS=OFF",
        "-DRS_BUILD_BENCH=OFF"])
    sh(["cmake", "--build", dest, "-j%d" % jobs, "--target", "rightsize"])
    return os.path.join(dest, "rightsize")


def base_tree(rev):
    """The sources of rev (git archive) under bench/data/startup/base-SHA."""
    sha = sh(["git", "-C", ROOT, "rev-parse", "--verify", rev + "^{commit}"]).strip()
    src = os.path.join(DATA, "base-" + sha[:12])
    if not os.path.isdir(os.path.join(src, "src")):
        shutil.rmtree(src, ignore_errors=True)
        os.makedirs(src)
        tar = subprocess.Popen(["git", "-C", ROOT, "archive", sha], stdout=subprocess.PIPE)
        sh(["tar", "-x", "-C", src], stdin=tar.stdout)
        if tar.wait() != 0:
            sys.exit("git archive %s failed" % sha)
    return sha[:12], src


def shared_objects(binary):
    out = sh(["ldd", binary])
    return sum(1 for line in out.splitlines() if line.strip())


def run_once(cmd, devnull):
    t = time.perf_counter_ns()
    pid = os.posix_spawn(cmd[0], cmd, os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1),
                                       (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status, ru = os.wait4(pid, 0)
    dt = time.perf_counter_ns() - t
    return dt / 1e6, (ru.ru_utime + ru.ru_stime) * 1e3, os.waitstatus_to_exitcode(status)


def commands(binary):
    return [("--version", [binary, "--version"]),
            ("recommend", [binary, "recommend", PROFILE]),
            ("catalog list", [binary, "catalog", "list"])]


def same_outputs(base, new):
    """The two builds print the same bytes and exit the same way."""
    for (what, b), (_, n) in zip(commands(base), commands(new)):
        rb = subprocess.run(b, capture_output=True, cwd=ROOT)
        rn = subprocess.run(n, capture_output=True, cwd=ROOT)
        if (rb.returncode, rb.stdout, rb.stderr) != (rn.returncode, rn.stdout, rn.stderr):
            sys.exit("%s: the base and new builds differ (exit %d vs %d)" %
                     (what, rb.returncode, rn.returncode))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", help="a commit to build and compare against")
    ap.add_argument("--repeat", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    os.makedirs(DATA, exist_ok=True)
    builds = []
    if a.base:
        sha, src = base_tree(a.base)
        builds.append(("base " + sha, build(src, os.path.join(DATA, "build-base-" + sha), a.jobs)))
    builds.append(("new", build(ROOT, os.path.join(DATA, "build-new"), a.jobs)))
    if a.base:
        same_outputs(builds[0][1], builds[1][1])
    runs = [("/bin/true", "", ["/bin/true"])]
    for label, binary in builds:
        runs += [(what, label, cmd) for what, cmd in commands(binary)]
    times = {(what, label): [] for what, label, _ in runs}
    cpu = {(what, label): [] for what, label, _ in runs}
    rng = random.Random(17)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.chdir(ROOT)
    for r in range(a.repeat + 3):
        order = runs[:]
        rng.shuffle(order)
        for what, label, cmd in order:
            ms, cpu_ms, rc = run_once(cmd, devnull)
            if rc not in (0, 4):  # 4: no shape fits, still a full report
                sys.exit("failed (%d): %s" % (rc, " ".join(cmd)))
            if r >= 3:  # three warm-up rounds
                times[(what, label)].append(ms)
                cpu[(what, label)].append(cpu_ms)
    med = {k: statistics.median(v) for k, v in times.items()}
    mcpu = {k: statistics.median(v) for k, v in cpu.items()}
    true_ms = med[("/bin/true", "")]
    print("medians of %d interleaved runs each (ms), Release builds; cpu is user + system" %
          a.repeat)
    print("%-18s %-14s %9s %8s %9s" % ("binary", "command", "wall", "x true", "cpu"))
    print("%-18s %-14s %9.2f %8.2f %9.2f" % ("", "/bin/true", true_ms, 1.0,
                                            mcpu[("/bin/true", "")]))
    for label, binary in builds:
        print("%-18s (%d shared objects)" % (label, shared_objects(binary)))
        for what, _ in commands(binary):
            m = med[(what, label)]
            print("%-18s %-14s %9.2f %8.2f %9.2f" % (label, what, m, m / true_ms,
                                                    mcpu[(what, label)]))
        print("%-18s recommend / --version: %.2f" %
              (label, med[("recommend", label)] / med[("--version", label)]))
    if a.base:
        print("new / base:")
        for what, _ in commands(builds[1][1]):
            print("  %-14s %.2f" % (what, med[(what, "new")] / med[(what, builds[0][0])]))


if __name__ == "__main__":
    main()
