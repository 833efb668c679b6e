#!/bin/sh
# Every JUnit golden validates against tests/data/junit/junit.xsd (the rules
# of junit-10.xsd, see its header), and the schema itself rejects a report
# with a `file` attribute on a testcase, so this check can fail.
# Usage: junit_schema.sh CASES_DIR XSD. Exit 77 (skipped) without xmllint.
set -u
cases=$1
xsd=$2
command -v xmllint >/dev/null 2>&1 || { echo "skipped: xmllint not installed (libxml2-utils)"; exit 77; }
n=0
fail=0
for args in "$cases"/*/args; do
  dir=${args%/args}
  grep -q -- '--format junit' "$args" || continue
  n=$((n + 1))
  if ! xmllint --noout --schema "$xsd" "$dir/expected_stdout" 2>/tmp/junit_schema.$$; then
    echo "FAIL: $dir/expected_stdout"; cat /tmp/junit_schema.$$; fail=1
  fi
done
rm -f /tmp/junit_schema.$$
[ "$n" -gt 0 ] || { echo "FAIL: no JUnit golden found under $cases"; exit 1; }
bad='<testsuites><testsuite name="a" tests="1" failures="0" errors="0"><testcase name="x" file="p.yaml"/></testsuite></testsuites>'
if printf '%s\n' "$bad" | xmllint --noout --schema "$xsd" - >/dev/null 2>&1; then
  echo "FAIL: the schema accepts a testcase with a file attribute"; fail=1
fi
[ "$fail" -eq 0 ] && echo "ok: $n JUnit goldens valid"
exit "$fail"
