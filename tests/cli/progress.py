#!/usr/bin/env python3
"""Progress on stderr: shown under a terminal, never in a pipe, with CI set
or with --quiet, and cleared at the end (docs/cli.md, "Progress").

usage: progress.py RIGHTSIZE FLEET_DIR
Generates a 20 MB native samples CSV, reads it with `rightsize profile`
under a pseudo-terminal (python3 pty) and with stderr to a pipe, and audits
three profiles of FLEET_DIR under a pseudo-terminal. RIGHTSIZE_PROGRESS_DELAY=0 starts the
line at once (the default waits a second), so the test does not depend on
the machine's speed.
"""
import os
import pty
import re
import subprocess
import sys
import tempfile

CI_VARS = ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "JENKINS_URL", "TF_BUILD",
           "TEAMCITY_VERSION")


def env(**extra):
    e = {k: v for k, v in os.environ.items() if k not in CI_VARS}
    e["RIGHTSIZE_PROGRESS_DELAY"] = "0"
    e["TERM"] = "xterm"
    e.update(extra)
    return e


def run_tty(cmd, e):
    """Runs cmd with stderr on a pseudo-terminal: (exit code, stdout, stderr)."""
    master, slave = pty.openpty()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=slave, env=e)
    os.close(slave)
    err = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        err += chunk
    out = p.stdout.read()
    p.wait()
    os.close(master)
    return p.returncode, out, err.decode("utf-8", "replace")


def generate(path, rows):
    head = ("timestamp,gpu_index,gpu_mem_used_mib,gpu_mem_total_mib,gpu_util_pct,cpu_util_pct,"
            "host_mem_used_gib,net_rx_bytes_per_s,net_tx_bytes_per_s,request_rate_rps,"
            "latency_p50_ms,latency_p95_ms,latency_p99_ms,batch_size\n")
    with open(path, "w", encoding="ascii") as f:
        f.write(head)
        t0 = 1795392000  # 2026-11-23T00:00:00Z
        for i in range(rows):
            f.write(f"{t0 + i},0,{3000 + i % 97},16384,{10 + i % 50}.5,7.3,7.43,1487398,13617,"
                    f"{12 + i % 7}.83,15.47,26.83,35.88,1\n")


def main():
    rightsize, fleet = sys.argv[1], sys.argv[2]
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        big = os.path.join(tmp, "big.csv")
        generate(big, 220000)
        size_mb = os.path.getsize(big) // 1000000
        cmd = [rightsize, "profile", big]
        rc, out, err = run_tty(cmd, env())
        line = re.compile(r"\rreading " + re.escape(big) +
                          rf": (\d+) MB of {size_mb} MB \((\d+)%\)")
        if rc != 0 or not out:
            bad.append(f"profile under a terminal exited {rc}")
        if not line.search(err):
            bad.append(f"no progress line under a terminal: {err[:200]!r}")
        shown = max((len(m.group(0)) - 1 for m in line.finditer(err)), default=0)
        if shown and not err.endswith("\r" + " " * shown + "\r"):
            bad.append(f"the progress line was not cleared at the end: {err[-120:]!r}")
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env())
        if p.returncode != 0 or p.stderr:
            bad.append(f"stderr to a pipe: exit {p.returncode}, stderr {p.stderr[:200]!r}")
        if p.stdout != out:
            bad.append("the report differs between a terminal and a pipe")
        for name, e, args in (("CI=true", env(CI="true"), []),
                              ("GITHUB_ACTIONS=true", env(GITHUB_ACTIONS="true"), []),
                              ("TERM=dumb", env(TERM="dumb"), []),
                              ("--quiet", env(), ["--quiet"])):
            rc, _, err = run_tty(cmd + args, e)
            if rc != 0 or err:
                bad.append(f"{name}: exit {rc}, stderr {err[:200]!r}")
    some = sorted(os.path.join(fleet, f) for f in os.listdir(fleet) if f.endswith(".yaml"))[:3]
    n = len(some)
    rc, out, err = run_tty([rightsize, "audit", "-j", "1"] + some, env())
    if not re.search(rf"\raudit: \d+ of {n} endpoints", err):
        bad.append(f"audit under a terminal: exit {rc}, no progress line: {err[:200]!r}")
    for b in bad:
        print("FAIL:", b)
    if not bad:
        print("ok: progress under a terminal only, cleared at the end")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
