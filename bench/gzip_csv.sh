#!/bin/sh
# Memory of a gzip-compressed native CSV read in one pass. Generates a block
# of about 100 MiB of native CSV under /tmp, gzips it (level 1), and builds
# inputs of 1 and COPIES (default 10, about 1 GiB) blocks as concatenated gzip
# members (a valid .gz that zcat and rightsize read whole; the blocks repeat
# their timestamps, hence --allow-unordered). Runs `rightsize profile` on each
# with /usr/bin/time -v and prints the decompressed size, the wall time and
# the peak resident memory: memory flat in the input's size.
# Usage: sh bench/gzip_csv.sh build/rightsize [COPIES]. Not a test (a minute of CPU).
set -eu
bin=$1
copies=${2:-10}
dir=$(mktemp -d /tmp/rs_bench_gzip.XXXXXX)
trap 'rm -rf "$dir"' EXIT

echo "timestamp,gpu_index,gpu_mem_used_mib,gpu_util_pct,cpu_util_pct,request_rate_rps,latency_p99_ms" |
  gzip -1 >"$dir/header.gz"
awk -v n=3000000 'BEGIN {
  for (i = 0; i < n; i++)
    printf "%d,%d,%d,%d,%d,%d.%d,%d.%d\n", 1796047200 + int(i / 4) * 15, i % 4,
           3000 + (i * 7) % 900, (i * 13) % 100, (i * 3) % 100, 100 + i % 50, i % 10, 40 + i % 20, i % 10
}' | gzip -1 >"$dir/block.gz"

run() { # BLOCKS
  cat "$dir/header.gz" >"$dir/in.csv.gz"
  i=0
  while [ "$i" -lt "$1" ]; do cat "$dir/block.gz" >>"$dir/in.csv.gz"; i=$((i + 1)); done
  raw=$(gzip -dc "$dir/in.csv.gz" | wc -c)
  gz=$(wc -c <"$dir/in.csv.gz")
  /usr/bin/time -v "$bin" profile --allow-unordered "$dir/in.csv.gz" >"$dir/out" 2>"$dir/time"
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$dir/time")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$dir/time")
  rows=$(sed -n 's/^inputs .*(native, \([0-9]*\) rows)$/\1/p' "$dir/out")
  echo "$1 block(s): $raw bytes of CSV ($gz gzipped), $rows rows: wall $wall, peak RSS $rss KiB"
}

run 1
run "$copies"
