#!/usr/bin/env python3
"""Writes a text exposition for the streamed-reader CLI cases: SCRAPES
dcgm-exporter scrapes of 8 GPUs (memory used, memory total, utilization,
with # HELP/# TYPE lines) every 15 s from 2025-11-30 00:00 UTC, saved with
timestamps. Values follow fixed formulas of the scrape and GPU numbers (no
randomness), in an A100 40GB's ranges (MiB, percent).

Usage: gen_exposition.py OUT [--scrapes N] [--bad-line N] [--clash] [--concat]
  --bad-line N  replace line N (1-based) by a sample with an unclosed label set
  --clash       repeat the fifth sample line of the first scrape (a second
                series for one metric, GPU and time)
  --concat      write the second half of the scrapes before the first (two
                dumps concatenated out of time order)
"""
import argparse

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--scrapes", type=int, default=2400)
ap.add_argument("--bad-line", type=int, default=0)
ap.add_argument("--clash", action="store_true")
ap.add_argument("--concat", action="store_true")
args = ap.parse_args()

METRICS = [("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", lambda s, g: (s * 7 + g * 13) % 101),
           ("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).",
            lambda s, g: 20000 + (s * 37 + g * 101) % 4000),
           ("DCGM_FI_DEV_FB_TOTAL", "Framebuffer memory total (in MiB).", lambda s, g: 40960)]


def scrape(s):
    out = []
    for name, help_text, value in METRICS:
        out.append("# HELP %s %s" % (name, help_text))
        out.append("# TYPE %s gauge" % name)
        for g in range(8):
            out.append('%s{gpu="%d",UUID="GPU-%d",Hostname="node-a"} %d %d'
                       % (name, g, g + 1, value(s, g), 1764460800000 + 15000 * s))
    return out


order = list(range(args.scrapes))
if args.concat:
    half = args.scrapes // 2
    order = order[half:] + order[:half]
lines = []
for s in order:
    lines += scrape(s)
if args.clash:
    lines.insert(7, lines[6])
if args.bad_line:
    lines[args.bad_line - 1] = 'DCGM_FI_DEV_GPU_UTIL{gpu="0",Hostname="node-a" 5 1764460800000'
with open(args.out, "w") as f:
    f.write("\n".join(lines) + "\n")
