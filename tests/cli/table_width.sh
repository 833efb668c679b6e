#!/bin/sh
# The default text output of the canonical examples fits 100 columns:
# recommend (with and without --explain), check with the README's policies,
# audit of the shipped fleet (with and without --consolidate), plan of the
# daily-cycle profile and of a fleet endpoint, diff, catalog list; --wide is
# wider where a table hides columns, so the check can tell the two apart.
# Usage: table_width.sh RIGHTSIZE PROFILE FLEET_DIR
set -u
bin=$1
profile=$2
fleet=$3
fail=0

# fits NAME CMD...: the command's stdout has no line over 100 columns.
fits() {
  name=$1
  shift
  out=$("$@" 2>/dev/null)
  rc=$?
  [ $rc -le 1 ] || { echo "FAIL: $name exited $rc"; fail=1; return; }
  wide=$(printf '%s\n' "$out" | awk 'length > 100 {print NR": "length" columns"}')
  if [ -n "$wide" ]; then
    echo "FAIL: $name prints lines over 100 columns:"
    echo "$wide" | head -5
    fail=1
  fi
}

# wider NAME CMD...: with --wide the command prints a line over 100 columns.
wider() {
  name=$1
  shift
  max=$("$@" 2>/dev/null | awk 'length > m {m = length} END {print m + 0}')
  if [ "$max" -le 100 ]; then
    echo "FAIL: $name is only $max columns wide: nothing was hidden or wrapped by default"
    fail=1
  fi
}

fits "recommend" "$bin" recommend "$profile"
fits "recommend --explain" "$bin" recommend "$profile" --explain
wider "recommend --wide" "$bin" recommend "$profile" --wide
fits "check" "$bin" check --require-slo --max-overprovision 50 "$profile"
wider "check --wide" "$bin" check --require-slo --max-overprovision 50 "$profile" --wide
fits "audit" "$bin" audit "$fleet"
fits "audit --consolidate" "$bin" audit "$fleet" --consolidate
wider "audit --wide" "$bin" audit "$fleet" --wide
# plan of the shipped daily-cycle profile and of a fleet endpoint (one replica)
daily=$(dirname "$profile")/search-rerank-daily.yaml
fits "plan (daily)" "$bin" plan "$daily"
fits "plan (fleet endpoint)" "$bin" plan "$fleet/ads-ranker.yaml"
# the built-in catalog, every provider
fits "catalog list" "$bin" catalog list --provider all
wider "catalog list --wide" "$bin" catalog list --provider all --wide
# diff of two recommendations of the canonical endpoint (tests/data/diff)
diffs=$(dirname "$profile")/../tests/data/diff
fits "diff" "$bin" diff "$diffs/resnet50-old.json" "$diffs/resnet50-peak-max.json"
wider "diff --wide" "$bin" diff "$diffs/resnet50-old.json" "$diffs/resnet50-peak-max.json" --wide
[ $fail = 0 ] && echo "ok: default outputs <= 100 columns, --wide wider"
exit $fail
