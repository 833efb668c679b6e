#!/bin/sh
# One native CSV on 1, 2, 3 and 8 threads (docs/scale.md): the same output
# bytes for profile (table and JSON) and recommend, equal to the goldens
# beside this script (the temporary directory written as DIR), and the same
# error, at the same line, for a bad cell and for a time going back, both in
# the second part of the file. Usage: sh run.sh BIN (from the repo root).
set -u
bin=$1
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
sh "$here/gen_split.sh" "$tmp/s.csv"
sh "$here/gen_split.sh" "$tmp/bad.csv" 100000
sh "$here/gen_split.sh" "$tmp/back.csv" 0 90001
sed 's/^endpoint: gpu-only/endpoint: split/; s/gpu-only.csv/s.csv/' tests/cli/data/gpu-only.yaml >"$tmp/p.yaml"

# run NAME EXIT ARGS...: output (stdout and stderr, DIR for the directory) of
# every thread count must be the golden's, and the exit code EXIT
run() {
  name=$1 want=$2
  shift 2
  for t in 1 2 3 8; do
    "$bin" "$@" --threads "$t" >"$tmp/out" 2>&1
    rc=$?
    sed "s|$tmp|DIR|g" "$tmp/out" >"$tmp/$name.$t"
    if [ "$rc" != "$want" ]; then
      echo "$name --threads $t: exit code $rc, expected $want"
      fail=1
    fi
    if [ "${RS_UPDATE_GOLDEN:-0}" = 1 ] && [ "$t" = 1 ]; then
      cp "$tmp/$name.$t" "$here/$name.expected"
    elif ! cmp -s "$tmp/$name.$t" "$here/$name.expected"; then
      echo "$name --threads $t differs from $name.expected:"
      diff -u "$here/$name.expected" "$tmp/$name.$t" | head -20
      fail=1
    fi
  done
}
run profile_table 0 profile "$tmp/s.csv"
run profile_json 0 profile "$tmp/s.csv" --format json
run recommend_json 0 recommend "$tmp/p.yaml" --format json --catalog tests/data/catalog/fixture.yaml
run error_cell 3 profile "$tmp/bad.csv"
run error_backwards 3 profile "$tmp/back.csv"
run unordered_json 0 profile "$tmp/back.csv" --allow-unordered --format json
exit $fail
