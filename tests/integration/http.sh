#!/bin/sh
# The libcurl transport against a real (local, python3) HTTP server: a
# timeout, 401, 500 with retries, a body over --max-bytes, and the credential
# sent only in the Authorization header, never shown. Exits 77 (skipped)
# without python3. Usage: http.sh RIGHTSIZE_BINARY
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
import http.server, socket, sys, time
hits = {}
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        path = self.path.split("?")[0]
        hits[path] = hits.get(path, 0) + 1
        sys.stderr.write("%s %s\n" % (path, self.headers.get("Authorization"))); sys.stderr.flush()
        if path.startswith("/hang/"):
            time.sleep(3); return
        code, body = 200, b'{"status":"success","data":{"resultType":"matrix","result":[]}}'
        if path.startswith("/401/"): code, body = 401, b"Unauthorized"
        if path.startswith("/500/"): code, body = 500, b"oops"
        if path.startswith("/429/") and hits[path] == 1: code, body = 429, b"slow down"
        if path.startswith("/big/"): body = b"{" + b" " * 300000 + b"}"
        self.send_response(code); self.end_headers(); self.wfile.write(body)
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write(str(s.server_address[1]))
s.serve_forever()
PY
python3 "$tmp/server.py" "$tmp/port" 2>"$tmp/server.log" &
pid=$!
# A loaded machine (ctest -j16) may take seconds to start python3: wait up
# to 30 s, stopping early when the server died.
i=0
while [ ! -s "$tmp/port" ] && [ $i -lt 300 ] && kill -0 "$pid" 2>/dev/null; do
  sleep 0.1
  i=$((i + 1))
done
[ -s "$tmp/port" ] || fail "the test server did not start"
base="http://127.0.0.1:$(cat "$tmp/port")"

# fetch PREFIX EXPECTED_EXIT ERE [more options]
check() {
  prefix=$1 want=$2 pattern=$3
  shift 3
  "$bin" fetch prometheus --url "$base/$prefix" --selector '{job="x"}' -o "$tmp/p.yaml" \
    --endpoint e --provider aws --instance t --slo-p99 50ms --since 1h --timeout 1s --retries 1 "$@" \
    >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ "$rc" = "$want" ] || fail "$prefix: exit code $rc, expected $want: $(cat "$tmp/err")"
  [ "$(wc -l <"$tmp/err")" = 1 ] || fail "$prefix: expected one line on stderr: $(cat "$tmp/err")"
  grep -Eq "$pattern" "$tmp/err" || fail "$prefix: stderr '$(cat "$tmp/err")' does not match '$pattern'"
  [ -s "$tmp/out" ] && fail "$prefix: a failed fetch printed on stdout"
  [ -e "$tmp/p.yaml" ] && fail "$prefix: a failed fetch wrote a profile"
  return 0
}

check hang 3 "^rightsize: $base/hang/api/v1/query_range: Operation timed out after"
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
echo "ok: timeout, 401, 500 with retries, 429 then success, size cap, basic and bearer auth"
