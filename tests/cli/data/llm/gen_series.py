#!/usr/bin/env python3
"""Writes a vLLM /metrics dump of N series (one per `pod` label): the
exposition reader holds at most 4,096 series and 262,144 series-and-`le`
pairs (docs/sources.md, "Size limits").

Without --buckets: one counter per series over two scrapes a minute apart,
each up by 60 between them. With --buckets K: one time-to-first-token
histogram per series with K `le` bounds (+Inf the last) and its _count and
_sum, every bucket up by 60 a minute; the first half of the series is
scraped at the first two minutes and the second half at the next two, so
no time holds more than half of the N x K pairs (the limit of samples held
at one time is not what such a file meets).

Usage: gen_series.py OUT N [--buckets K]
"""
import argparse

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("n", type=int)
ap.add_argument("--buckets", type=int, default=0)
args = ap.parse_args()

T0 = 1764460800000
with open(args.out, "w") as f:
    if args.buckets == 0:
        f.write("# TYPE vllm:prompt_tokens_total counter\n")
        for k in range(2):
            for i in range(args.n):
                f.write('vllm:prompt_tokens_total{model_name="m",pod="p%d"} %d %d\n'
                        % (i, 1000 + 60 * k, T0 + 60000 * k))
        raise SystemExit(0)
    f.write("# TYPE vllm:time_to_first_token_seconds histogram\n")
    halves = (range(0, args.n // 2), range(args.n // 2, args.n))
    for k in range(4):
        t, v = T0 + 60000 * k, 1000 + 60 * (k % 2)
        for i in halves[k // 2]:
            lab = 'model_name="m",pod="p%d"' % i
            for b in range(args.buckets):
                le = "+Inf" if b == args.buckets - 1 else "%g" % (0.001 * (b + 1))
                f.write('vllm:time_to_first_token_seconds_bucket{%s,le="%s"} %d %d\n'
                        % (lab, le, v, t))
            f.write("vllm:time_to_first_token_seconds_count{%s} %d %d\n" % (lab, v, t))
            f.write("vllm:time_to_first_token_seconds_sum{%s} %d %d\n" % (lab, v // 50, t))
