#!/bin/sh
# Output failures (docs/exit-codes.md): a full disk and a closed standard
# output end with exactly one line "rightsize: cannot write the report: ..."
# and exit 5; a reader that stops early (`| head -1`) ends the run quietly,
# exit 0, with nothing on standard error. Usage: output_failures.sh RIGHTSIZE
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# expect NAME CODE PATTERN: the last run's exit code and its stderr ($tmp/err)
expect() {
  if [ "$rc" != "$2" ]; then
    echo "$1: exit code $rc, expected $2"
    fail=1
  fi
  lines=$(wc -l <"$tmp/err")
  if [ -n "$3" ] && { [ "$lines" != 1 ] || ! grep -Eq "$3" "$tmp/err"; }; then
    echo "$1: expected one line matching '$3' on stderr, got:"
    head -5 "$tmp/err"
    fail=1
  fi
  if [ -z "$3" ] && [ -s "$tmp/err" ]; then
    echo "$1: expected nothing on stderr, got:"
    head -5 "$tmp/err"
    fail=1
  fi
}

report='^rightsize: cannot write the report: '
if [ -w /dev/full ]; then
  "$bin" catalog list --provider all >/dev/full 2>"$tmp/err"
  rc=$?
  expect "full disk (report)" 5 "${report}No space left on device$"
  "$bin" --help >/dev/full 2>"$tmp/err"
  rc=$?
  expect "full disk (--help)" 5 "${report}No space left on device$"
fi
"$bin" catalog list --provider all >&- 2>"$tmp/err"
rc=$?
expect "closed stdout (report)" 5 "${report}Bad file descriptor$"
"$bin" --version >&- 2>"$tmp/err"
rc=$?
expect "closed stdout (--version)" 5 "${report}Bad file descriptor$"

# The reader is gone before the report is written: EPIPE, not SIGPIPE (141).
{ sleep 1; "$bin" catalog list --provider all 2>"$tmp/err"; echo $? >"$tmp/rc"; } | true
rc=$(cat "$tmp/rc")
expect "closed pipe" 0 ""
exit $fail
