#!/usr/bin/env python3
"""Writes gateway.csv, a synthetic per-request log for the CLI cases: 3
minutes of Poisson arrivals at 2 requests/s, tokens, latencies in ms and an
HTTP status (about 5% 503). Standard library only, fixed seed; run from this
directory to rewrite the file byte for byte."""
import random

random.seed(13)
lines = ["time,input_tokens,output_tokens,latency_ms,ttft_ms,itl_ms,status\n"]
t = 1796047500.0
while t < 1796047500.0 + 180:
    p = random.randint(50, 2000)
    o = random.randint(5, 400)
    ttft = round(40 + p * 0.05 + random.random() * 30, 1)
    itl = round(18 + random.random() * 8, 1)
    lat = round(ttft + o * itl, 1)
    st = 200 if random.random() > 0.05 else 503
    lines.append("%.3f,%d,%d,%.1f,%.1f,%.1f,%d\n" % (t, p, o, lat, ttft, itl, st))
    t += random.expovariate(2.0)
open("gateway.csv", "w").writelines(lines)
