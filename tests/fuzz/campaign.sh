#!/bin/sh
# The fuzz campaign of issue 15 (tests/fuzz/README, "Campaign"): each target
# in turn, ONE AT A TIME under nice -n 19 (a shared machine), with its
# dictionary and corpus, for 10 million executions or 20 minutes, whichever
# comes first; then its corpus, the committed one plus what the run found,
# is minimised (-merge=1 into an empty folder) and written back into
# tests/fuzz/corpus/TARGET.
#
#   tests/fuzz/campaign.sh [TARGET...]      (run from the repository root)
#
# Resumable: a target whose log ends with the line "campaign: TARGET done"
# is skipped, so after an interruption (or a fix for a crash) run the same
# command again; a target that was cut short starts over (its working
# corpus is kept, its 20 minutes are counted afresh; the old log is kept as
# TARGET.log.N). A crash, leak, sanitizer report or timeout stops that
# target only: it is logged as "campaign: TARGET FAILED", the input is left
# in $LOGDIR/crashes/ and the next target starts. tests/fuzz/summary.sh
# prints the table from the logs.
#
# Environment (defaults): BUILD=build-fuzz (configured with RS_FUZZ=ON,
# best with RS_FUZZ_DEPS: deps.sh), LOGDIR=/work/fuzzlogs,
# WORK=$LOGDIR/work (working corpora, outside the tree), RUNS=10000000,
# TIME=1200 (seconds), MAXLEN=4096, TIMEOUT=10 (seconds per input).
# Start it in the background, outside the build folder, e.g.
#   nohup tests/fuzz/campaign.sh >/work/fuzzlogs/campaign.out 2>&1 &
set -u

BUILD=${BUILD:-build-fuzz}
LOGDIR=${LOGDIR:-/work/fuzzlogs}
WORK=${WORK:-$LOGDIR/work}
RUNS=${RUNS:-10000000}
TIME=${TIME:-1200}
MAXLEN=${MAXLEN:-4096}
TIMEOUT=${TIMEOUT:-10}
# Fastest first (exec/s measured in the README, "Speed").
ALL="doc overlay profile mapping catalog policy native cloudwatch nvsmi promjson ingest promtext"

if [ ! -d tests/fuzz/corpus ]; then
  echo "campaign.sh: run it from the repository root" >&2
  exit 2
fi
mkdir -p "$LOGDIR/crashes" "$WORK"
targets=${*:-$ALL}

note() { echo "campaign: $*" >>"$log"; }

for t in $targets; do
  bin=$BUILD/tests/fuzz_$t
  log=$LOGDIR/$t.log
  if [ ! -x "$bin" ]; then
    echo "campaign.sh: no $bin (cmake --build $BUILD --target rs_fuzz_targets)" >&2
    exit 2
  fi
  if [ -f "$log" ] && tail -n 1 "$log" | grep -qx "campaign: $t done"; then
    echo "campaign.sh: $t already done ($log), skipped"
    continue
  fi
  if [ -f "$log" ]; then
    n=1
    while [ -f "$log.$n" ]; do n=$((n + 1)); done
    mv "$log" "$log.$n"
  fi
  : >"$log"
  mkdir -p "$WORK/$t"
  note "$t start $(date -u +%Y-%m-%dT%H:%M:%SZ) runs=$RUNS max_total_time=$TIME max_len=$MAXLEN $(git rev-parse --short HEAD 2>/dev/null)"
  nice -n 19 "$bin" -dict="tests/fuzz/dict/$t.dict" -max_len="$MAXLEN" -runs="$RUNS" \
    -max_total_time="$TIME" -timeout="$TIMEOUT" -print_final_stats=1 \
    -artifact_prefix="$LOGDIR/crashes/$t-" "$WORK/$t" "tests/fuzz/corpus/$t" >>"$log" 2>&1
  rc=$?
  if [ "$rc" -ne 0 ]; then
    note "$t FAILED rc=$rc $(date -u +%Y-%m-%dT%H:%M:%SZ) (see $LOGDIR/crashes/)"
    echo "campaign.sh: $t FAILED (rc $rc), see $log"
    continue
  fi
  note "$t fuzzed $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  # Minimise: the committed corpus and the new units, into an empty folder.
  min=$WORK/$t.min
  rm -rf "$min"
  mkdir -p "$min"
  if ! nice -n 19 "$bin" -merge=1 -timeout="$TIMEOUT" "$min" \
    "tests/fuzz/corpus/$t" "$WORK/$t" >>"$log" 2>&1; then
    note "$t FAILED in merge $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    continue
  fi
  rm -f "tests/fuzz/corpus/$t"/*
  cp "$min"/* "tests/fuzz/corpus/$t/"
  note "$t corpus $(ls "tests/fuzz/corpus/$t" | wc -l) files $(cat "tests/fuzz/corpus/$t"/* | wc -c) bytes"
  note "$t done"
done
