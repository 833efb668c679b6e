#!/bin/sh
# Done-when test of issue 14: the published Alibaba GenAI trace files go into
# `rightsize audit` with one mapping file (tests/integration/alibaba-gentd26.yaml)
# and give the same audit, endpoint by endpoint, as the awk conversion below
# (a native CSV and a profile per pod), and the same statistics for three
# pods. Skipped (77) when ../shared/traces/alibaba-gentd26 is absent; the
# trace files are read in place, never copied into the project.
set -u
bin=$1
src=../shared/traces/alibaba-gentd26
map=tests/integration/alibaba-gentd26.yaml
[ -d "$src" ] || { echo "skipped: $src is absent"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The reference: twelve lines of awk join the three metric files on (pod,
# time) into one native CSV per pod (columns found by header name), and a
# profile per pod with the mapping's facts.
mkdir "$tmp/ref"
{ cat "$src/pod_gpu_duty_cycle_anon.csv" | awk -v m=u 'BEGIN{FS=OFS=","} {print m, $0}'
  cat "$src/pod_gpu_memory_used_bytes_anon.csv" | awk -v m=g 'BEGIN{FS=OFS=","} {print m, $0}'
  zcat "$src/qps.csv.gz" | awk -v m=q 'BEGIN{FS=OFS=","} {print m, $0}'; } |
awk -v dir="$tmp/ref" 'BEGIN { FS = "," }
  $2 ~ /^[a-z_]+$/ { for (i = 2; i <= NF; i++) c[$1, $i] = i; next }
  { p = $c[$1, "container_ip"]; t = $c[$1, "timestamp_anon"]; v = $c[$1, "value"] }
  $1 == "q" && $c["q", "request_type"] != "Generative Requests" { next }
  p == "" { next }
  { k = p SUBSEP t; ts[k] = t; pod[k] = p; val[$1, k] = v }
  END { for (k in ts) { f = dir "/" pod[k] ".csv"
          if (!(pod[k] in seen)) { seen[pod[k]] = 1; print "timestamp,gpu_util_pct,gpu_mem_used_bytes,request_rate_rps" > f }
          print ts[k] "," val["u", k] "," val["g", k] "," val["q", k] >> f } }'
for f in "$tmp"/ref/*.csv; do
  p=$(basename "$f" .csv)
  { head -1 "$f"; tail -n +2 "$f" | sort -t, -k1,1g; } >"$f.sorted" && mv "$f.sorted" "$f"
  printf 'schema: 1\nendpoint: %s\nsource: production\nmodel: {framework: pytorch, families: [nvidia-gpu]}\ncurrent: {provider: aws, instance: p5.4xlarge}\nslo: {latency_p99: 30s}\nsamples: [%s.csv]\n' \
    "$p" "$p" >"$tmp/ref/$p.yaml"
done

# The audits, without the profile column (a path in one, the pod in the other).
"$bin" audit -f csv "$tmp/ref" 2>"$tmp/ref.err" | cut -d, -f1-9 >"$tmp/ref.csv"
"$bin" audit -f csv --mapping "$map" "$src" 2>"$tmp/map.err" | cut -d, -f1-9 >"$tmp/map.csv"
rows=$(($(wc -l <"$tmp/ref.csv") - 1))
if [ "$rows" -lt 100 ] || ! cmp -s "$tmp/ref.csv" "$tmp/map.csv"; then
  echo "the audits differ ($rows endpoints in the reference):"
  diff "$tmp/ref.csv" "$tmp/map.csv" | head -20
  exit 1
fi
tail -1 "$tmp/ref.err" >"$tmp/ref.last"
tail -1 "$tmp/map.err" >"$tmp/map.last"
if ! cmp -s "$tmp/ref.last" "$tmp/map.last"; then
  echo "the failure counts differ:"; cat "$tmp/ref.last" "$tmp/map.last"; exit 1
fi

# Statistics, exact, for three pods that have a request rate: every
# metric's count, min, mean, quantiles and max.
# The statistics of every metric; "present" (the share of expected samples)
# is left out: it depends on the span of all the endpoint's rows, which the
# awk conversion's one-row-per-time layout and the mapped reader's merged
# points measure differently (0.1874 against 0.1887 on one pod).
metrics() { python3 -c 'import json,sys; m=json.load(sys.stdin)["metrics"]; [v.pop("present", None) for v in m.values()]; print(json.dumps(m, sort_keys=True))'; }
for p in $(grep -l ',[0-9.]*$' "$tmp"/ref/*.csv | sed 's|.*/||; s/\.csv$//' | sed -n '1p;40p;80p'); do
  "$bin" profile -f json --exact "$tmp/ref/$p.csv" | metrics >"$tmp/ref.json" || exit 1
  "$bin" profile -f json --exact --mapping "$map" --select "container_ip=$p" \
    "$src/pod_gpu_duty_cycle_anon.csv" "$src/pod_gpu_memory_used_bytes_anon.csv" "$src/qps.csv.gz" |
    metrics >"$tmp/map.json" || exit 1
  if ! cmp -s "$tmp/ref.json" "$tmp/map.json"; then
    echo "statistics of pod $p differ:"; cat "$tmp/ref.json" "$tmp/map.json"; exit 1
  fi
done
echo "ok: $rows endpoints audited alike, statistics of three pods equal"
