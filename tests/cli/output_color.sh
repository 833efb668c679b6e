#!/bin/sh
# -o/--output, --quiet and --color (docs/cli.md "Output"):
#   -o writes exactly the stdout report to the file, nothing on stdout;
#   a failed write (missing directory, or over an existing file in a
#   read-only directory) leaves no file and no temporary file behind;
#   --quiet prints nothing, with the same exit code;
#   colour appears on a terminal (a pty from Python's pty module), not with
#   NO_COLOR set, not with --color never, and in a pipe only with --color always.
# Usage: output_color.sh RIGHTSIZE PROFILE
set -u
bin=$1
profile=$2
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }

"$bin" recommend "$profile" >"$tmp/stdout" || no "recommend exited $?"
out=$("$bin" recommend "$profile" -o "$tmp/report.txt") || no "-o exited $?"
[ -z "$out" ] || no "-o also printed on stdout"
cmp -s "$tmp/stdout" "$tmp/report.txt" || no "-o file differs from stdout"
"$bin" recommend "$profile" --output="$tmp/report.json" -f json || no "--output= exited $?"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/report.json" || no "-o json unreadable"

"$bin" recommend "$profile" -o "$tmp/missing/r.txt" 2>"$tmp/err"
[ $? = 5 ] || no "write into a missing directory: exit code not 5"
grep -q "cannot write" "$tmp/err" || no "write failure not reported: $(cat "$tmp/err")"
mkdir "$tmp/ro" && echo old >"$tmp/ro/r.txt" && chmod a-w "$tmp/ro"
if [ "$(id -u)" != 0 ]; then # root writes anywhere: the check would not hold
  "$bin" recommend "$profile" -o "$tmp/ro/r.txt" 2>/dev/null && no "write into a read-only dir succeeded"
  [ "$(cat "$tmp/ro/r.txt")" = old ] || no "a failed write changed the old file"
fi
[ -z "$(ls -A "$tmp" "$tmp/ro" | grep -E '^\..*\.[A-Za-z0-9]{6}$')" ] || no "temporary file left behind"
mkdir "$tmp/dir.txt"
"$bin" recommend "$profile" -o "$tmp/dir.txt" 2>"$tmp/err"
[ $? = 5 ] || no "write over a directory: exit code not 5"
grep -q "is a directory" "$tmp/err" || no "a directory target not named: $(cat "$tmp/err")"

out=$("$bin" recommend "$profile" --quiet) || no "--quiet exited $?"
[ -z "$out" ] || no "--quiet printed on stdout"
"$bin" recommend tests/cli/data/missing.yaml -q 2>/dev/null
[ $? = 3 ] || no "--quiet changed a bad input's exit code"

esc=$(printf '\033[')
"$bin" recommend "$profile" | grep -qF "$esc" && no "colour in a pipe"
"$bin" recommend "$profile" --color always | grep -qF "verdict    ${esc}33midle-devices" \
  || no "--color always did not colour the verdict code"
"$bin" recommend "$profile" -f json --color always | grep -qF "$esc" && no "colour in JSON"
if command -v python3 >/dev/null 2>&1; then
  tty_has_colour() { # NO_COLOR value, then arguments
  python3 - "$@" <<'PY'
import os, pty, subprocess, sys
no_color, args = sys.argv[1], sys.argv[2:]
env = dict(os.environ)
env.pop("NO_COLOR", None)
if no_color != "-":
    env["NO_COLOR"] = no_color
m, s = pty.openpty()
subprocess.run(args, stdout=s, stderr=subprocess.DEVNULL, env=env)
os.close(s)
data = b""
while True:
    try:
        d = os.read(m, 65536)
    except OSError:
        break
    if not d:
        break
    data += d
sys.exit(0 if b"\x1b[" in data else 1)
PY
  }
  tty_has_colour - "$bin" recommend "$profile" || no "no colour on a terminal"
  tty_has_colour 1 "$bin" recommend "$profile" && no "colour on a terminal with NO_COLOR=1"
  tty_has_colour "" "$bin" recommend "$profile" || no "an empty NO_COLOR turned colour off"
  tty_has_colour - "$bin" recommend "$profile" --color never && no "colour with --color never"
fi
[ $fail = 0 ] && echo "ok: -o, --quiet, --color"
exit $fail
