#!/bin/sh
# Writes the compressed fixtures of tests/data/compressed from text fixtures
# beside them (run from the repository root; gzip -n and zstd are
# deterministic, so the bytes are the same every time). Committed outputs:
# the CLI cases read them; rerun after changing a source file.
set -eu
d=tests/data/compressed
gzip -9 -n -c tests/data/samples/native_full.csv >$d/native_full.csv.gz
zstd -q -19 -c tests/data/exports/dcgm_query_range.json >$d/dcgm_query_range.json.zst
gzip -9 -n -c tests/data/csvmap/long.csv >$d/long.csv.gz
zstd -q -19 -c tests/data/exports/dcgm_scrapes.prom >$d/dcgm_scrapes.prom.zst
# corrupt: a gzip whose deflate data has bytes flipped after the header
python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[20] ^= 0xFF; d[21] ^= 0x55; open(sys.argv[2], "wb").write(d)' \
  $d/native_full.csv.gz $d/corrupt.csv.gz
# truncated: the first half of a zstd frame
n=$(wc -c <$d/dcgm_query_range.json.zst)
head -c $((n / 2)) $d/dcgm_query_range.json.zst >$d/truncated.json.zst
# unsupported: xz (recognised, named, not read)
printf '\375\067\172\130\132\000\000\004' >$d/magic.xz
# streamed: 2,000 generated dcgm-exporter scrapes (48,000 samples, 4.4 MB of
# text), more than the exposition reader holds at once, so it hands rows on
# as it reads (docs/sources.md, "Size limits")
python3 tests/cli/data/exports/gen_exposition.py $d/dcgm_streamed.prom --scrapes 2000
zstd -q -19 -c $d/dcgm_streamed.prom >$d/dcgm_streamed.prom.zst
rm $d/dcgm_streamed.prom
# streamed LLM server: 600 generated vLLM /metrics scrapes (32,400 samples,
# 4.0 MB of text), counters and histograms turned into rates and quantiles
# as the reader hands rows on (docs/sources.md, "Size limits")
python3 tests/cli/data/llm/gen_scrapes.py $d/vllm_streamed.prom --scrapes 600
zstd -q -19 -c $d/vllm_streamed.prom >$d/vllm_streamed.prom.zst
rm $d/vllm_streamed.prom
