#!/bin/sh
# Prints the fuzz campaign (campaign.sh) per target, from its logs:
# executions, seconds, exec/s, crashes, final cov, corpus size, state.
#
#   tests/fuzz/summary.sh [LOGDIR]        (default /work/fuzzlogs)
#
# executions and exec/s are libFuzzer's final stats (-print_final_stats=1),
# seconds its "Done N runs in S second(s)"; for a target still running (or
# cut short) they are its last status line's, marked "running" (or
# "stopped"). crashes counts the inputs libFuzzer wrote out (crash, leak,
# sanitizer report, timeout, out of memory). corpus is the minimised
# corpus written back into tests/fuzz/corpus/TARGET (files/bytes).
LOGDIR=${1:-${LOGDIR:-/work/fuzzlogs}}
ALL="doc overlay profile mapping catalog policy native cloudwatch nvsmi promjson ingest promtext"

printf '%-11s %11s %7s %7s %7s %6s %14s  %s\n' target executions seconds exec/s crashes cov \
  corpus state
for t in $ALL; do
  log=$LOGDIR/$t.log
  if [ ! -f "$log" ]; then
    printf '%-11s %11s %7s %7s %7s %6s %14s  %s\n' "$t" - - - - - - "not started"
    continue
  fi
  awk -v t="$t" '
    /^stat::number_of_executed_units:/ { execs = $2 }
    /^stat::average_exec_per_sec:/ { rate = $2 }
    /^Done [0-9]+ runs in [0-9]+ second/ { done_runs = $2; secs = $5 }
    /^#[0-9]+\t/ {
      last = $1; sub(/^#/, "", last)
      for (i = 2; i < NF; i++) {
        if ($i == "cov:") cov = $(i + 1)
        if ($i == "exec/s:") lrate = $(i + 1)
      }
    }
    /Test unit written to/ { crashes++ }
    $1 == "campaign:" && $2 == t && $3 == "start" { start = $4 }
    $1 == "campaign:" && $2 == t && $3 == "corpus" { corpus = $4 "/" $6 }
    $1 == "campaign:" && $2 == t && $3 == "done" { state = "done" }
    $1 == "campaign:" && $2 == t && $3 == "FAILED" { state = "FAILED" }
    END {
      if (state == "") {
        # No final line: still running, or killed. Estimate the seconds
        # from the start time only when it is still running (no way to
        # know here): show the last status line.
        state = (done_runs != "") ? "fuzzed, not merged" : "running or stopped"
      }
      if (execs == "") execs = (done_runs != "") ? done_runs : last
      if (rate == "") rate = lrate
      if (secs == "") secs = "-"
      if (corpus == "") corpus = "-"
      printf "%-11s %11s %7s %7s %7d %6s %14s  %s\n", t, execs, secs, rate, crashes, cov, corpus, state
    }' "$log"
done
