#!/bin/sh
# Runs one CLI test case: tests/cli/cases/NAME/ holds
#   args             the arguments, shell words, paths relative to the repo root
#   exit             the expected exit code
#   stdin            (optional) fed to standard input
#   expected_stdout  (optional) the exact expected standard output
#   expected_stderr  (optional) the exact expected standard error
#   stderr_match     (optional) an extended regex standard error must match
#   json             (optional, empty) standard output must parse as JSON
#   xml              (optional, empty) standard output must be well-formed XML
#                    (xmllint where installed, else Python's expat parser)
#   setup            (optional) a shell script run first as `sh setup DIR`; DIR
#                    is a fresh temporary directory, also $TMPDIR_CASE in args
# A failing case (exit != 0) must print nothing on stdout unless
# expected_stdout says otherwise, and exactly one line on stderr unless
# expected_stderr says otherwise.
# RS_UPDATE_GOLDEN=1 rewrites expected_stdout from the actual output.
set -u
bin=$1
case_dir=$2
name=$(basename "$case_dir")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

TMPDIR_CASE=$tmp/case
mkdir -p "$TMPDIR_CASE"
if [ -f "$case_dir/setup" ] && ! sh "$case_dir/setup" "$TMPDIR_CASE"; then
  echo "$name: setup failed"
  exit 1
fi
eval "set -- $(cat "$case_dir/args")"
if [ -f "$case_dir/stdin" ]; then
  "$bin" "$@" <"$case_dir/stdin" >"$tmp/out" 2>"$tmp/err"
else
  "$bin" "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
fi
rc=$?
fail=0
want_rc=$(cat "$case_dir/exit")
if [ "$rc" != "$want_rc" ]; then
  echo "$name: exit code $rc, expected $want_rc"
  fail=1
fi
if [ -f "$case_dir/expected_stdout" ]; then
  if [ "${RS_UPDATE_GOLDEN:-0}" = 1 ]; then
    cp "$tmp/out" "$case_dir/expected_stdout"
  elif ! cmp -s "$tmp/out" "$case_dir/expected_stdout"; then
    echo "$name: stdout differs from expected_stdout:"
    diff -u "$case_dir/expected_stdout" "$tmp/out" | head -40
    fail=1
  fi
elif [ "$want_rc" != 0 ] && [ -s "$tmp/out" ]; then
  echo "$name: a failing run printed on stdout:"
  head -5 "$tmp/out"
  fail=1
fi
if [ -f "$case_dir/expected_stderr" ]; then
  if ! cmp -s "$tmp/err" "$case_dir/expected_stderr"; then
    echo "$name: stderr differs from expected_stderr:"
    diff -u "$case_dir/expected_stderr" "$tmp/err" | head -20
    fail=1
  fi
elif [ "$want_rc" != 0 ]; then
  lines=$(wc -l <"$tmp/err")
  if [ "$lines" != 1 ]; then
    echo "$name: expected exactly one line on stderr, got $lines:"
    head -5 "$tmp/err"
    fail=1
  fi
fi
if [ -f "$case_dir/stderr_match" ]; then
  if ! grep -Eq -f "$case_dir/stderr_match" "$tmp/err"; then
    echo "$name: stderr does not match $(cat "$case_dir/stderr_match"):"
    head -5 "$tmp/err"
    fail=1
  fi
fi
if [ -f "$case_dir/xml" ]; then
  if command -v xmllint >/dev/null 2>&1; then
    xml_check="xmllint --noout $tmp/out"
  else
    xml_check="python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' $tmp/out"
  fi
  if ! eval "$xml_check" >"$tmp/xerr" 2>&1; then
    echo "$name: stdout is not well-formed XML: $(head -3 "$tmp/xerr")"
    fail=1
  fi
fi
if [ -f "$case_dir/json" ]; then
  if ! python3 -m json.tool "$tmp/out" >/dev/null 2>"$tmp/jerr"; then
    echo "$name: stdout is not valid JSON: $(cat "$tmp/jerr")"
    fail=1
  fi
fi
exit $fail
