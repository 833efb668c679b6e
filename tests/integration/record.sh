#!/bin/sh
# rightsize record dcgm against a real (local, python3) HTTP server that
# serves a DCGM exporter scrape without timestamps: --every 1s --for 3s
# gives rows whose timestamps increase, a file 'rightsize profile' reads,
# and no temporary left behind. Exits 77 (skipped) without python3.
# Usage: record.sh RIGHTSIZE_BINARY
set -u
bin=$1
command -v python3 >/dev/null 2>&1 || { echo "skipped: python3 is not installed"; exit 77; }
tmp=$(mktemp -d)
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fail() { echo "FAIL: $*"; exit 1; }

cat >"$tmp/scrape.prom" <<'PROM'
# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).
# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-1",modelName="NVIDIA A10G"} 42
DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-2",modelName="NVIDIA A10G"} 17
# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).
# TYPE DCGM_FI_DEV_FB_USED gauge
DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-1",modelName="NVIDIA A10G"} 9000
DCGM_FI_DEV_FB_USED{gpu="1",UUID="GPU-2",modelName="NVIDIA A10G"} 3000
PROM
cat >"$tmp/server.py" <<'PY'
import http.server, os, sys
body = open(sys.argv[2], "rb").read()
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        code = 200 if self.path == "/metrics" else 404
        self.send_response(code); self.end_headers(); self.wfile.write(body)
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
s.daemon_threads = True
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
s.serve_forever()
PY
python3 "$tmp/server.py" "$tmp/port" "$tmp/scrape.prom" 2>"$tmp/server.log" &
pid=$!
waited=0
while [ ! -s "$tmp/port" ]; do
  kill -0 "$pid" 2>/dev/null || fail "the test server exited: $(cat "$tmp/server.log")"
  [ "$waited" -lt 300 ] || fail "the test server did not start within 30 s"
  sleep 0.1
  waited=$((waited + 1))
done
url="http://127.0.0.1:$(cat "$tmp/port")"
mkdir "$tmp/out"

"$bin" record dcgm "$url/metrics" --every 1s --for 3s -o "$tmp/out/dcgm.csv" >"$tmp/out.txt" 2>"$tmp/err.txt" ||
  fail "record exited $?: $(cat "$tmp/err.txt")"
grep -q "^wrote $tmp/out/dcgm.csv: 3 scrapes, 6 rows" "$tmp/out.txt" || fail "summary: $(cat "$tmp/out.txt")"
[ "$(ls -A "$tmp/out")" = "dcgm.csv" ] || fail "a temporary was left: $(ls -A "$tmp/out")"
head -1 "$tmp/out/dcgm.csv" | grep -q '^timestamp,gpu_index,' || fail "no native header"
[ "$(wc -l <"$tmp/out/dcgm.csv")" -eq 7 ] || fail "expected 6 rows: $(cat "$tmp/out/dcgm.csv")"
# GPU 0's timestamps, one per scrape, strictly increasing.
sed -n '2,$p' "$tmp/out/dcgm.csv" | awk -F, '$2 == 0 { print $1 }' >"$tmp/ts"
[ "$(wc -l <"$tmp/ts")" -eq 3 ] || fail "expected 3 rows of GPU 0: $(cat "$tmp/ts")"
sort -u "$tmp/ts" | cmp -s - "$tmp/ts" || fail "timestamps do not increase: $(cat "$tmp/ts")"
"$bin" profile "$tmp/out/dcgm.csv" >"$tmp/profile.txt" 2>&1 || fail "profile: $(cat "$tmp/profile.txt")"

# A failed scrape (404): one line on stderr, exit 3, no file when nothing was recorded.
"$bin" record dcgm "$url/missing" --every 1s --for 2s -o "$tmp/out/x.csv" >/dev/null 2>"$tmp/err.txt"
rc=$?
[ "$rc" -eq 3 ] || fail "a 404 scrape exited $rc, expected 3"
[ "$(wc -l <"$tmp/err.txt")" -eq 1 ] || fail "stderr: $(cat "$tmp/err.txt")"
[ ! -e "$tmp/out/x.csv" ] || fail "a file was written without a scrape"

# SIGTERM ends the loop after the current scrape with a complete file.
"$bin" record dcgm "$url/metrics" --every 1s --for 1h -o "$tmp/out/term.csv" >"$tmp/out.txt" 2>&1 &
rec=$!
sleep 2
kill -TERM "$rec"
wait "$rec" || fail "record after SIGTERM exited $?: $(cat "$tmp/out.txt")"
[ -s "$tmp/out/term.csv" ] || fail "no file after SIGTERM"
"$bin" profile "$tmp/out/term.csv" >/dev/null 2>&1 || fail "the file after SIGTERM does not read"
echo "ok"
