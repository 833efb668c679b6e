#!/bin/sh
# Allocation-failure sweep: for each main path (profile, recommend, audit on
# small inputs) count the allocations of a clean run, then run it again once
# per allocation N with the N-th made to fail (RS_ALLOC_FAIL_AT, see
# alloc_fail.c). Every run must end either with exactly one line on stderr,
# "rightsize: ...", exit code 5 and nothing on stdout, or, where the failed
# allocation had a fallback, exactly as the clean run did. A crash, a hang,
# a sanitizer report (ASan's leak check exits 23) or any other exit fails.
#
# Usage: sweep.sh RIGHTSIZE_ALLOCFAIL [MAX_RUNS_PER_PATH]
# MAX_RUNS_PER_PATH (default 200) bounds the time: with more allocations
# than that, every k-th one is failed (the first 100 always are).
set -u
bin=$1
max=${2:-200}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat=tests/data/catalog/fixture.yaml
fails=0
total=0

sweep() {
  name=$1
  shift
  RS_ALLOC_COUNT_FILE=$tmp/count "$bin" "$@" >"$tmp/clean.out" 2>"$tmp/clean.err"
  clean_rc=$?
  n=$(cat "$tmp/count" 2>/dev/null || echo 0)
  if [ "$n" -lt 1 ]; then
    echo "FAIL $name: the clean run counted no allocations (is the wrapper linked?)"
    fails=$((fails + 1))
    return
  fi
  step=$(( (n + max - 1) / max ))
  i=1
  runs=0
  while [ "$i" -le "$n" ]; do
    RS_ALLOC_FAIL_AT=$i "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    runs=$((runs + 1))
    lines=$(wc -l <"$tmp/err")
    if [ "$rc" = 5 ] && [ "$lines" = 1 ] && [ ! -s "$tmp/out" ] && grep -q '^rightsize: ' "$tmp/err"; then
      :
    elif [ "$rc" = "$clean_rc" ] && cmp -s "$tmp/out" "$tmp/clean.out" && cmp -s "$tmp/err" "$tmp/clean.err"; then
      :
    else
      echo "FAIL $name: allocation $i of $n: exit $rc, $lines line(s) on stderr:"
      head -c 600 "$tmp/err"
      fails=$((fails + 1))
    fi
    if [ "$i" -lt 100 ]; then i=$((i + 1)); else i=$((i + step)); fi
  done
  total=$((total + runs))
  echo "$name: $n allocations, $runs runs (clean exit $clean_rc)"
}

sweep profile profile tests/cli/data/gpu-only.yaml
sweep profile-csv profile --format json tests/cli/data/gpu-only.csv
sweep recommend recommend --catalog "$cat" tests/cli/data/gpu-only.yaml
sweep audit audit --threads 1 --catalog "$cat" tests/cli/data/fleet-broken
echo "$total runs, $fails failures"
[ "$fails" = 0 ]
