#!/usr/bin/env python3
"""Writes a vLLM /metrics dump of N counter series (one per `pod` label) over
two scrapes a minute apart, each series' counter up by 60 between them: the
exposition reader's series limit (docs/sources.md, "Size limits") is 4,096.

Usage: gen_series.py OUT N
"""
import sys

out, n = sys.argv[1], int(sys.argv[2])
with open(out, "w") as f:
    f.write("# TYPE vllm:prompt_tokens_total counter\n")
    for k, t in enumerate((1764460800000, 1764460860000)):
        for i in range(n):
            f.write('vllm:prompt_tokens_total{model_name="m",pod="p%d"} %d %d\n'
                    % (i, 1000 + 60 * k, t))
