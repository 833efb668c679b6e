#!/bin/sh
# The libcurl transport against a real (local, python3) HTTP server: a
# timeout, 401, 500 with retries, a body over --max-bytes, and the credential
# sent only in the Authorization header, never shown. Exits 77 (skipped)
# without python3. Usage: http.sh RIGHTSIZE_BINARY
#
# Nothing here depends on how fast the machine is (ctest -j16 on two cores):
# the server says when it listens, the wait for it is bounded by a deadline
# and not by a guess, and only the timeout case uses a short client timeout.
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

cat >"$tmp/server.py" <<'PY'
import http.server, os, socket, sys, time
hits = {}
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        path = self.path.split("?")[0]
        hits[path] = hits.get(path, 0) + 1
        sys.stderr.write("%s %s\n" % (path, self.headers.get("Authorization"))); sys.stderr.flush()
        if path.startswith("/hang/"):
            time.sleep(5); return
        code, body = 200, b'{"status":"success","data":{"resultType":"matrix","result":[]}}'
        if path.startswith("/401/"): code, body = 401, b"Unauthorized"
        if path.startswith("/500/"): code, body = 500, b"oops"
        if path.startswith("/429/") and hits[path] == 1: code, body = 429, b"slow down"
        if path.startswith("/big/"): body = b"{" + b" " * 300000 + b"}"
        if path.startswith("/data/") and "DCGM_FI_DEV_GPU_UTIL" in self.path:
            body = (b'{"status":"success","data":{"resultType":"matrix","result":[{"metric":'
                    b'{"rs_metric":"gpu_util","gpu":"0"},"values":[[1699999800,"42"]]}]}}')
        self.send_response(code); self.end_headers(); self.wfile.write(body)
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
s.daemon_threads = True
# The socket listens from here on; the port file appears whole (rename).
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
s.serve_forever()
PY
python3 "$tmp/server.py" "$tmp/port" 2>"$tmp/server.log" &
pid=$!
# Ready when the port file exists; give up after 30 s or when the server died.
waited=0
while [ ! -s "$tmp/port" ]; do
  kill -0 "$pid" 2>/dev/null || fail "the test server exited: $(cat "$tmp/server.log")"
  [ "$waited" -lt 300 ] || fail "the test server did not start within 30 s"
  sleep 0.1
  waited=$((waited + 1))
done
base="http://127.0.0.1:$(cat "$tmp/port")"
# The client's total timeout per request: generous, except in the timeout case.
to=30s

# fetch PREFIX EXPECTED_EXIT ERE [more options]
check() {
  prefix=$1 want=$2 pattern=$3
  shift 3
  "$bin" fetch prometheus --url "$base/$prefix" --selector '{job="x"}' -o "$tmp/p.yaml" \
    --endpoint e --provider aws --instance t --slo-p99 50ms --since 1h --timeout "$to" --retries 1 "$@" \
    >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ "$rc" = "$want" ] || fail "$prefix: exit code $rc, expected $want: $(cat "$tmp/err")"
  [ "$(wc -l <"$tmp/err")" = 1 ] || fail "$prefix: expected one line on stderr: $(cat "$tmp/err")"
  grep -Eq "$pattern" "$tmp/err" || fail "$prefix: stderr '$(cat "$tmp/err")' does not match '$pattern'"
  [ -s "$tmp/out" ] && fail "$prefix: a failed fetch printed on stdout"
  [ -e "$tmp/p.yaml" ] && fail "$prefix: a failed fetch wrote a profile"
  return 0
}

to=1s
check hang 3 "^rightsize: $base/hang/api/v1/query_range: Operation timed out after"
to=30s
check 401 3 "^rightsize: $base/401: HTTP status 401 \\(check the credential\\), expected 200$"
check 500 3 "^rightsize: $base/500: HTTP status 500 after retries, expected 200$"
[ "$(grep -c '^/500/' "$tmp/server.log")" = 2 ] || fail "500: expected 1 retry"
check big 3 "the response is larger than 102400 bytes" --max-bytes 100KiB
# 429 then success on every query: all answers empty, so "no samples"
check 429 3 "^rightsize: no samples: no query matched any series"
[ "$(grep -c '^/429/' "$tmp/server.log")" = 11 ] || fail "429: expected 10 queries and 1 retry"
RS_IT_BASIC=alice:s3cret-pw
export RS_IT_BASIC
check auth 3 "no samples" --basic-auth-env RS_IT_BASIC
grep -q "^/auth/api/v1/query_range Basic YWxpY2U6czNjcmV0LXB3$" "$tmp/server.log" ||
  fail "basic auth header not sent"
grep -q "s3cret" "$tmp/err" "$tmp/out" && fail "the password was printed"
printf 'tok-123\n' >"$tmp/token"
check tok 3 "no samples" --token-file "$tmp/token"
grep -q "^/tok/api/v1/query_range Bearer tok-123$" "$tmp/server.log" || fail "bearer token not sent"
# Writing the outputs (docs/cli.md, fetch): unique temporaries, never through
# a link planted at the old fixed name, both files or none, every write checked.
data() {
  "$bin" fetch prometheus --url "$base/data" --selector '{job="x"}' --endpoint e --provider aws \
    --instance t --slo-p99 50ms --since 1h --end 1700000000 --timeout "$to" "$@"
}
printf 'victim\n' >"$tmp/victim"
ln -s "$tmp/victim" "$tmp/w.yaml.tmp"
ln -s "$tmp/victim" "$tmp/w.csv.tmp"
data -o "$tmp/w.yaml" >"$tmp/out" 2>"$tmp/err" || fail "data: exit $?: $(cat "$tmp/err")"
grep -q "^wrote $tmp/w.yaml and $tmp/w.csv: 1 rows" "$tmp/out" || fail "data: $(cat "$tmp/out")"
[ "$(cat "$tmp/victim")" = victim ] || fail "fetch wrote through a planted link"
grep -q "^0,42" "$tmp/w.csv" 2>/dev/null || grep -q ",42" "$tmp/w.csv" || fail "w.csv lacks the sample"
ls -a "$tmp" | grep -q '^\.w\.' && fail "a temporary was left behind"
printf 'old\n' >"$tmp/q.csv"
mkdir "$tmp/q.yaml"
data -o "$tmp/q.yaml" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 5 ] || fail "profile onto a directory: exit $rc, expected 5: $(cat "$tmp/err")"
grep -q "^rightsize: $tmp/q.yaml: cannot write: is a directory$" "$tmp/err" || fail "$(cat "$tmp/err")"
[ "$(cat "$tmp/q.csv")" = old ] || fail "a failed fetch replaced or deleted the earlier CSV"
ls -a "$tmp" | grep -q '^\.q\.' && fail "a temporary was left behind"
if [ -w /dev/full ]; then
  data -o "$tmp/f.yaml" >/dev/full 2>"$tmp/err"
  rc=$?
  [ "$rc" = 5 ] || fail "success line into a full stdout: exit $rc, expected 5"
  grep -q "^rightsize: standard output: cannot write: No space left on device$" "$tmp/err" ||
    fail "full stdout: $(cat "$tmp/err")"
fi
echo "ok: timeout, 401, 500 with retries, 429 then success, size cap, basic and bearer auth, safe writes"
