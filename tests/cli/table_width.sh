#!/bin/sh
# The default table of the canonical example (README's first command) fits
# 100 columns, with and without --explain; --wide is wider (it shows every
# column), so the check can tell the two apart.
# Usage: table_width.sh RIGHTSIZE PROFILE
set -u
bin=$1
profile=$2
fail=0
for extra in "" --explain; do
  # shellcheck disable=SC2086
  out=$("$bin" recommend "$profile" $extra) || { echo "FAIL: recommend $extra exited $?"; exit 1; }
  wide=$(printf '%s\n' "$out" | awk 'length > 100 {print NR": "length" columns"}')
  if [ -n "$wide" ]; then
    echo "FAIL: recommend $extra prints lines over 100 columns:"
    echo "$wide" | head -5
    fail=1
  fi
done
max=$("$bin" recommend "$profile" --wide | awk 'length > m {m = length} END {print m + 0}')
if [ "$max" -le 100 ]; then
  echo "FAIL: --wide is only $max columns wide: no column was hidden by default"
  fail=1
fi
[ $fail = 0 ] && echo "ok: default table <= 100 columns, --wide $max"
exit $fail
