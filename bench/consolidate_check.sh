#!/bin/sh
# ctest unit.consolidate_bench: bench/consolidate.c at small sizes of a fleet
# whose endpoints all differ (--distinct), run twice, with the tail's ceiling
# (consolidate_pack.c) and without it (--no-ceiling, every latency check an
# integral). Both must print the same packing (instances, bound, endpoints
# packed, saving, and the digest of every endpoint's instance, device and
# latency bits); every size must pack at least 99% of its endpoints, never
# under the lower bound and at most 10% over it (docs/model.md,
# "Consolidation", "How far from the best").
#   sh bench/consolidate_check.sh build/bench/consolidate_bench
set -eu
bench=$1
sizes=480,1008
with=$("$bench" --distinct --sizes "$sizes" --repeat 1 --digest)
without=$("$bench" --distinct --sizes "$sizes" --repeat 1 --digest --no-ceiling)
# N instances bound packed saving digest: everything but the times and exponent
keep() { printf '%s\n' "$1" | awk 'NR > 1 { print $1, $4, $5, $7, $8, $10 }'; }
if [ "$(keep "$with")" != "$(keep "$without")" ]; then
  printf 'the ceiling changed the packing:\n%s\n--no-ceiling:\n%s\n' "$with" "$without" >&2
  exit 1
fi
printf '%s\n' "$with"
keep "$with" | awk -v want="$sizes" '
  { n++
    if (NF != 6 || $6 !~ /^[0-9a-f]+$/) { print "unreadable line: " $0; bad = 1; next }
    if ($4 < $1 * 0.99) { print $1 ": only " $4 " endpoints packed"; bad = 1 }
    if ($2 < $3) { print $1 ": " $2 " instances, under the bound " $3; bad = 1 }
    if ($2 > $3 * 1.10) { print $1 ": " $2 " instances, over 10% above the bound " $3; bad = 1 }
  }
  END { if (n != split(want, w, ",")) { print "expected " split(want, w, ",") " sizes, got " n; bad = 1 }
        exit bad }' >&2
