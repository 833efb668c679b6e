#!/bin/sh
# No output format may print a non-number: every golden expected_stdout
# under tests/cli/cases is searched for nan and inf as whole words, any case
# (nan, -nan, NaN, inf, -inf, Infinity is not a word match and is not used).
# Usage: no_nan.sh CASES_DIR
set -u
dir=$1
found=$(find "$dir" -name expected_stdout -type f -exec grep -EiwHn 'nan|inf' {} + 2>/dev/null)
if [ -n "$found" ]; then
  echo "FAIL: nan/inf in goldens:"
  echo "$found" | head -20
  exit 1
fi
n=$(find "$dir" -name expected_stdout -type f | wc -l)
[ "$n" -gt 0 ] || { echo "FAIL: no goldens under $dir"; exit 1; }
echo "ok: $n goldens, no nan/inf"
