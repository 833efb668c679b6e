#!/bin/sh
# Integration test against a real Prometheus server (docs/sources.md).
#
# Generates a day of 60 s samples as OpenMetrics, backfills them into a fresh
# TSDB with promtool, starts prometheus on a free 127.0.0.1 port over it,
# waits until it is ready, runs `rightsize fetch prometheus` and checks the
# profile's statistics against the generated values. Stops the server it
# started, whatever happens. Exits 77 (skipped) when prometheus, promtool or
# python3 is missing. Usage: prometheus.sh RIGHTSIZE_BINARY
set -u
bin=$1
for tool in prometheus promtool python3; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "skipped: $tool is not installed (apt-get install prometheus)"
    exit 77
  fi
done

tmp=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
  echo "FAIL: $*"
  if [ -f "$tmp/prometheus.log" ]; then
    echo "--- prometheus log (last lines)"
    tail -20 "$tmp/prometheus.log"
  fi
  exit 1
}

# A day ending three hours ago, on a minute boundary, so it lies in
# backfilled blocks and not in the head the server will keep in memory.
now=$(date +%s)
end=$(( (now / 60) * 60 - 3 * 3600 ))
points=1440
start=$(( end - (points - 1) * 60 ))

python3 - "$start" "$points" >"$tmp/data.om" <<'PY'
import sys
start, points = int(sys.argv[1]), int(sys.argv[2])
ts = [start + 60 * i for i in range(points)]
out = ["# TYPE DCGM_FI_DEV_FB_USED gauge"]
for gpu in (0, 1):
    for i, t in enumerate(ts):
        mib = 3000 + (i * 37) % 500 if gpu == 0 else 1000 + (i % 7) * 10
        out.append('DCGM_FI_DEV_FB_USED{gpu="%d",job="rs-it",Hostname="node-a"} %d %d' % (gpu, mib, t))
for t in ts[:10]:  # another job on the same host: the selector must keep it out
    out.append('DCGM_FI_DEV_FB_USED{gpu="0",job="other",Hostname="node-a"} 99999 %d' % t)
out.append("# TYPE DCGM_FI_DEV_GPU_UTIL gauge")
for gpu in (0, 1):
    for i, t in enumerate(ts):
        out.append('DCGM_FI_DEV_GPU_UTIL{gpu="%d",job="rs-it"} %d %d' % (gpu, (i * 13) % 101 if gpu == 0 else 0, t))
out.append("# TYPE http_requests counter")
for i, t in enumerate(ts):
    out.append('http_requests_total{job="rs-it"} %d %d' % (600 * i, t))  # 10 requests/s
out.append("# EOF")
print("\n".join(out))
PY
[ -s "$tmp/data.om" ] || fail "could not generate the OpenMetrics file"

mkdir -p "$tmp/tsdb"
promtool tsdb create-blocks-from openmetrics "$tmp/data.om" "$tmp/tsdb" >"$tmp/promtool.log" 2>&1 ||
  { cat "$tmp/promtool.log"; fail "promtool could not backfill the data"; }

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
printf 'global:\n  scrape_interval: 1h\nscrape_configs: []\n' >"$tmp/prometheus.yml"
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
  --storage.tsdb.retention.time=30d --web.listen-address="127.0.0.1:$port" \
  >"$tmp/prometheus.log" 2>&1 &
pid=$!

# Ready when /-/ready answers 200; a deadline of 60 s (a loaded machine, as
# under ctest -j16, opens the TSDB slowly), and no wait at all once the
# server has exited (say, another process took the port meanwhile).
python3 - "$port" "$pid" <<'PY' || fail "prometheus did not become ready on port $port"
import os, sys, time, urllib.request
url = "http://127.0.0.1:%s/-/ready" % sys.argv[1]
def alive(pid):  # an exited child stays a zombie until the shell waits for it
    try:
        with open("/proc/%s/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        return True
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    if not alive(sys.argv[2]):
        print("prometheus exited before it was ready")
        sys.exit(1)
    try:
        if urllib.request.urlopen(url, timeout=2).status == 200:
            sys.exit(0)
    except Exception:
        pass
    time.sleep(0.1)
sys.exit(1)
PY

# A credential from the environment: it must never show in output or files.
RS_IT_TOKEN=it-secret-7f3a9c
export RS_IT_TOKEN
"$bin" fetch prometheus --url "http://127.0.0.1:$port" --selector '{job="rs-it"}' \
  --end "$end" --since "$(( (points - 1) * 60 ))s" --step 60s \
  --token-env RS_IT_TOKEN --timeout 60s \
  -o "$tmp/out/bert.yaml" --endpoint bert --provider aws --instance g4dn.12xlarge \
  --slo-p99 50ms >"$tmp/fetch.out" 2>"$tmp/fetch.err"
rc=$?
[ "$rc" = 5 ] || fail "fetch into a missing folder: exit code $rc, expected 5"
grep -q "cannot write" "$tmp/fetch.err" || fail "missing folder: $(cat "$tmp/fetch.err")"
[ -s "$tmp/fetch.out" ] && fail "a failed fetch printed on stdout"
mkdir -p "$tmp/out"
"$bin" fetch prometheus --url "http://127.0.0.1:$port" --selector '{job="rs-it"}' \
  --end "$end" --since "$(( (points - 1) * 60 ))s" --step 60s \
  --token-env RS_IT_TOKEN --timeout 60s \
  -o "$tmp/out/bert.yaml" --endpoint bert --provider aws --instance g4dn.12xlarge \
  --slo-p99 50ms >"$tmp/fetch.out" 2>"$tmp/fetch.err" ||
  fail "fetch failed: $(cat "$tmp/fetch.err")"
cat "$tmp/fetch.out"
cat "$tmp/out/bert.yaml"
[ -f "$tmp/out/bert.csv" ] || fail "no samples CSV next to the profile"
if grep -rq "$RS_IT_TOKEN" "$tmp/out" "$tmp/fetch.out" "$tmp/fetch.err"; then
  fail "the token appears in the output"
fi

"$bin" profile -f json --exact "$tmp/out/bert.yaml" >"$tmp/profile.json" 2>"$tmp/profile.err" ||
  fail "rightsize profile cannot read the fetched profile: $(cat "$tmp/profile.err")"

python3 - "$tmp/profile.json" "$points" <<'PY' || fail "statistics differ from the generated data"
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
mib = 1048576
mem0 = [3000 + (i * 37) % 500 for i in range(n)]
mem1 = [1000 + (i % 7) * 10 for i in range(n)]
util0 = [(i * 13) % 101 for i in range(n)]
m = d["metrics"]
def near(got, want, what, rel=1e-9):
    if abs(got - want) > rel * max(1.0, abs(want)):
        print("%s: got %r, want %r" % (what, got, want)); sys.exit(1)
near(m["gpu_mem_used"]["count"], 2 * n, "gpu_mem_used count")
near(m["gpu_mem_used"]["max"], max(mem0) * mib, "gpu_mem_used max")
near(m["gpu_mem_used"]["min"], min(mem1) * mib, "gpu_mem_used min")
near(m["gpu_mem_used"]["mean"], (sum(mem0) + sum(mem1)) / (2 * n) * mib, "gpu_mem_used mean", 1e-6)
near(m["gpu_util"]["count"], 2 * n, "gpu_util count")
near(m["gpu_util"]["max"], max(util0), "gpu_util max")
near(m["gpu_util"]["mean"], sum(util0) / (2 * n), "gpu_util mean", 1e-6)
rate = m["request_rate"]
near(rate["p50"], 10.0, "request_rate p50")
near(rate["max"], 10.0, "request_rate max", 1e-6)
c = d["coverage"]
near(c["rows"], 2 * n, "rows")
near(c["interval_s"], 60, "interval")
print("ok: %d rows, gpu memory, utilization and request rate match the generated data" % c["rows"])
PY
