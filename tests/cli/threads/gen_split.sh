# Writes a native CSV of about 4.5 MB (120,000 rows: two GPUs every 15 s,
# a request rate and latencies on GPU 0's rows, a 2-hour gap and a repeated
# time) for the --threads cases: large enough to be cut into three parts.
# Values from a Park-Miller generator (seed 42), so every run writes the
# same bytes. Usage: sh gen_split.sh OUT [BAD_LINE [BACK_LINE]]: the cell
# gpu_util_pct of line BAD_LINE reads 'n/a'; at BACK_LINE the time goes back
# an hour.
awk -v bad="${2:-0}" -v back="${3:-0}" 'BEGIN {
  x = 42
  print "timestamp,gpu_index,gpu_mem_used_mib,gpu_util_pct,request_rate_rps,latency_p50_ms,latency_p99_ms"
  t = 1764460800
  for (i = 0; i < 120000; i++) {
    line = i + 2
    g = i % 2
    if (g == 0) t += (i == 60000 ? 7200 : (i == 80000 ? 0 : 15))
    if (line == back) t -= 3600
    x = (x * 16807) % 2147483647; mem = 3000 + (x % 2000) / 10
    x = (x * 16807) % 2147483647; util = (x % 1000) / 10
    if (line == bad) util = "n/a"
    if (g == 0) {
      x = (x * 16807) % 2147483647; rate = 10 + (x % 500) / 100
      x = (x * 16807) % 2147483647; p50 = 5 + (x % 500) / 100
      printf "%d,%d,%.1f,%s,%.2f,%.2f,%.2f\n", t, g, mem, util, rate, p50, p50 * 2.5
    } else {
      printf "%d,%d,%.1f,%s,,,\n", t, g, mem, util
    }
  }
}' >"$1"
