#!/usr/bin/env python3
"""Generate the example sample files that ship with rightsize.

What this writes (all next to this script, in profiles/):

  resnet50-p3.8xlarge.csv         native CSV, 7 days at 60 s, 4 GPUs (gpu_index
                                  0..3). GPU 0 serves ResNet-50 (~3 GB used,
                                  ~15 % util, diurnal, a few spikes); GPUs 1-3
                                  idle. Endpoint metrics on the gpu 0 rows only.
                                  Two exporter outages (25 min and 2 h).
                                  Latency and utilization come from one
                                  request-level simulation (see
                                  simulate_minute), so they agree.
  llama2-7b-vllm-a100-gpu.log     nvidia-smi CSV log, 3 days at 30 s, 1 GPU,
                                  vLLM pre-allocating 90 % of an A100 80GB.
  llama2-7b-vllm-a100-traffic.csv native CSV, same 3 days at 60 s, endpoint
                                  metrics only (no GPU columns).
  distilbert-intent-g4dn.csv      native CSV, 2 days at 60 s, single GPU without
                                  a gpu_index column, tiny model on a T4.
  resnet50-loadtest.csv           native CSV, 2 hours at 10 s, single GPU, a
                                  constant ~120 rps load test on a T4.

The profiles (*.yaml) and README.md are written by hand and refer to these
files; this script does not touch them.

Rerun with

    python3 profiles/generate_examples.py

from anywhere: it regenerates every sample file in place. Output is
deterministic byte-for-byte: each file has its own fixed seed, uses only
random.Random (Mersenne Twister, stable across Python 3 versions) and fixed
decimal formatting, and is written with '\\n' line endings. Only the Python
standard library is used.
"""

import datetime
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
UTC = datetime.timezone.utc


def iso(t):
    """RFC 3339 UTC timestamp with a Z suffix, whole seconds."""
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def diurnal(utc_hours, utc_offset, trough_local=4.0, sharpness=1.0):
    """0 at trough_local (local hour), 1 twelve hours later."""
    local = utc_hours + utc_offset
    s = 0.5 - 0.5 * math.cos(2.0 * math.pi * (local - trough_local) / 24.0)
    return s ** sharpness


def clamp(x, lo, hi):
    return lo if x < lo else hi if x > hi else x


class AR1:
    """Slowly wandering noise (first-order autoregressive), mean 0."""

    def __init__(self, rng, phi, sigma):
        self.rng = rng
        self.phi = phi
        self.sigma = sigma
        self.x = 0.0

    def step(self):
        self.x = self.phi * self.x + self.rng.gauss(0.0, self.sigma)
        return self.x


def write(name, lines):
    path = os.path.join(HERE, name)
    data = ("\n".join(lines) + "\n").encode("ascii")
    with open(path, "wb") as f:
        f.write(data)
    print("wrote %-34s %7d rows %9d bytes" % (name, len(lines) - 1, len(data)))


NATIVE_ALL = [
    "timestamp", "gpu_index", "gpu_mem_used_mib", "gpu_mem_total_mib",
    "gpu_util_pct", "cpu_util_pct", "host_mem_used_gib", "net_rx_bytes_per_s",
    "net_tx_bytes_per_s", "request_rate_rps", "latency_p50_ms",
    "latency_p95_ms", "latency_p99_ms", "batch_size",
]


def spike_shape(minute, spikes):
    """Return (extra_rps_fraction, spike) for a spike covering minute, or (0, None)."""
    for sp in spikes:
        start, dur = sp[0], sp[1]
        if start <= minute < start + dur:
            # triangular-ish: ramps in over the first minute, holds, ramps out
            k = minute - start
            edge = min(k + 1, dur - k)
            return min(1.0, edge / 2.0), sp
    return 0.0, None


# ---------------------------------------------------------------------------
# 1. resnet50-p3.8xlarge.csv: the canonical case
# ---------------------------------------------------------------------------

# What one request costs (the simulation behind the latency and utilization
# columns): host pre- and post-processing (decode, resize, serialise) on
# the CPU threads, which run in parallel and never queue; then the model on
# GPU 0, one request at a time in arrival order (batch 1, FIFO). Both times
# are lognormal: median and squared coefficient of variation.
HOST_MEDIAN_MS, HOST_CS2 = 2.2, 0.30
DEVICE_MEDIAN_MS, DEVICE_CS2 = 12.6, 0.04
IDLE_UTIL_PCT = 1.1  # the GPU's utilization with no requests (driver, exporter)


def lognormal(rng, median, cs2):
    return median * math.exp(math.sqrt(math.log1p(cs2)) * rng.gauss(0.0, 1.0))


def simulate_minute(rng, rps, free_at):
    """One minute of Poisson arrivals at rps through the host and GPU 0.

    free_at is when the GPU finishes its backlog, in seconds from this
    minute's start (carried from the previous minute). Returns the sorted
    response times (ms), the GPU's busy seconds in the minute, and the new
    free_at relative to the next minute."""
    t, busy, lat = 0.0, 0.0, []
    while rps > 0:
        t += rng.expovariate(rps)
        if t >= 60.0:
            break
        host = lognormal(rng, HOST_MEDIAN_MS, HOST_CS2) / 1e3
        svc = lognormal(rng, DEVICE_MEDIAN_MS, DEVICE_CS2) / 1e3
        begin = max(t, free_at)
        free_at = begin + svc
        busy += svc
        lat.append((host + free_at - t) * 1e3)
    lat.sort()
    return lat, busy, max(0.0, free_at - 60.0)


def quantile(sorted_values, q):
    return sorted_values[int(math.floor(q * (len(sorted_values) - 1)))]


def gen_resnet50_p3():
    rng = random.Random(20261123)
    start = datetime.datetime(2026, 11, 23, 0, 0, 0, tzinfo=UTC)  # a Monday
    minutes = 7 * 24 * 60
    day = 24 * 60
    utc_offset = -5.0  # us-east-1 traffic follows US Eastern time

    # (start minute, duration minutes, peak rps, memory peak MiB or 0)
    spikes = [
        (0 * day + 15 * 60 + 32, 4, 31.0, 0),
        (1 * day + 20 * 60 + 5, 6, 29.0, 3402),
        (2 * day + 16 * 60 + 41, 3, 33.0, 0),
        (3 * day + 18 * 60 + 17, 5, 30.0, 0),
        (4 * day + 21 * 60 + 48, 4, 32.0, 3386),
    ]
    # exporter outages: [first missing minute, last missing minute]
    gaps = [
        (2 * day + 3 * 60 + 10, 2 * day + 3 * 60 + 34),   # 25 min, Wed 03:10Z
        (4 * day + 13 * 60 + 0, 4 * day + 14 * 60 + 59),  # 2 h,    Fri 13:00Z
    ]

    rate_noise = AR1(rng, 0.97, 0.012)
    mem_noise = AR1(rng, 0.90, 4.0)
    host_noise = AR1(rng, 0.995, 0.006)

    sim = random.Random(20261125)  # the request-level simulation's own stream
    free_at = 0.0
    lines = [",".join(NATIVE_ALL)]
    for m in range(minutes):
        # draw noise every minute, gap or not, so the series is continuous
        rn = rate_noise.step()
        mn = mem_noise.step()
        hn = host_noise.step()
        g_rate = rng.gauss(0.0, 1.0)
        g_util = rng.gauss(0.0, 1.0)
        g_cpu = rng.gauss(0.0, 1.0)
        # three draws once used for latency noise; still drawn so that the
        # other series keep their values (latency now comes from the simulation)
        for _ in range(3):
            rng.gauss(0.0, 1.0)
        g_rx = rng.gauss(0.0, 1.0)
        g_tx = rng.gauss(0.0, 1.0)
        g_host = rng.gauss(0.0, 1.0)
        t = start + datetime.timedelta(minutes=m)
        hours = m / 60.0
        local_day = (m + int(utc_offset * 60)) // day  # 0 = Monday (local)
        weekend = (local_day % 7) in (5, 6)
        s = diurnal(hours % 24.0, utc_offset, trough_local=4.0, sharpness=1.15)
        rps = (3.0 + 16.0 * s) * (0.78 if weekend else 1.0) * (1.0 + rn)
        rps += g_rate * math.sqrt(rps / 60.0)  # Poisson counting noise
        frac, sp = spike_shape(m, spikes)
        if sp is not None:
            rps = rps + (sp[2] - rps) * frac
        rps = max(0.0, rps)
        # the service runs through the exporter's outages; only the rows are lost
        lat, busy, free_at = simulate_minute(sim, rps, free_at)
        if any(a <= m <= b for a, b in gaps) or not lat:
            continue
        served = len(lat) / 60.0  # the exporter reports what was served

        util = clamp(IDLE_UTIL_PCT + busy / 60.0 * 100.0 + 0.9 * g_util, 0.0, 100.0)
        mem = 3046.0 + mn
        if sp is not None and sp[3]:
            mem = sp[3] + mn * 0.5
        rps = served
        cpu = clamp(4.4 + 0.24 * rps + 0.45 * g_cpu, 0.0, 100.0)
        host = 7.42 + 0.22 * math.sin(2.0 * math.pi * hours / 53.0) + hn + 0.015 * g_host
        p50, p95, p99 = quantile(lat, 0.50), quantile(lat, 0.95), quantile(lat, 0.99)
        rx = max(0.0, rps * 110000.0 * (1.0 + 0.04 * g_rx))
        tx = max(0.0, rps * 1000.0 * (1.0 + 0.05 * g_tx) + 180.0)

        ts = iso(t)
        lines.append("%s,0,%.0f,16384,%.1f,%.1f,%.2f,%.0f,%.0f,%.2f,%.2f,%.2f,%.2f,1" % (
            ts, mem, util, cpu, host, rx, tx, rps, p50, p95, p99))
        for g in (1, 2, 3):
            lines.append("%s,%d,0,16384,0.0,,,,,,,,," % (ts, g))
    write("resnet50-p3.8xlarge.csv", lines)


# ---------------------------------------------------------------------------
# 2. llama2-7b-vllm-a100: nvidia-smi GPU log + native traffic CSV
# ---------------------------------------------------------------------------

def gen_llama2_vllm():
    rng = random.Random(20261130)
    start = datetime.datetime(2026, 11, 30, 0, 0, 0, tzinfo=UTC)  # a Monday
    step_s = 30
    steps = 3 * 24 * 3600 // step_s
    utc_offset = -6.0  # us-central1

    # bursts: (start step, duration steps, extra rps)
    bursts = []
    for d in range(3):
        for _ in range(2):
            h = rng.uniform(13.0, 23.0)
            bursts.append((int((d * 24 + h) * 3600 / step_s), rng.randint(10, 30),
                           rng.uniform(1.2, 2.0)))
    bursts.sort()

    rate_noise = AR1(rng, 0.98, 0.015)
    host_noise = AR1(rng, 0.995, 0.01)
    mem = 73411
    total = 81920

    gpu = ["timestamp, index, utilization.gpu [%], memory.used [MiB], memory.total [MiB]"]
    traffic = ["timestamp,request_rate_rps,latency_p50_ms,latency_p95_ms,"
               "latency_p99_ms,cpu_util_pct,host_mem_used_gib,batch_size"]
    for k in range(steps):
        rn = rate_noise.step()
        hn = host_noise.step()
        g = [rng.gauss(0.0, 1.0) for _ in range(8)]
        ms = rng.randint(0, 60)
        if rng.random() < 0.004:  # allocator noise outside the vLLM pool
            mem += rng.choice((-2, 2))
            mem = clamp(mem, 73405, 73419)

        t = start + datetime.timedelta(seconds=k * step_s)
        hours = k * step_s / 3600.0
        s = diurnal(hours % 24.0, utc_offset, trough_local=4.0)
        rps = (0.6 + 2.8 * s) * (1.0 + rn)
        for b0, bd, extra in bursts:
            if b0 <= k < b0 + bd:
                rps += extra
        rps = max(0.05, rps + g[0] * math.sqrt(rps / 30.0))

        util = int(round(clamp(17.0 + 9.5 * rps + 2.0 * g[1], 0.0, 100.0)))
        tms = t + datetime.timedelta(milliseconds=123 + ms)
        gpu.append("%s.%03d, 0, %d %%, %d MiB, %d MiB" % (
            tms.strftime("%Y/%m/%d %H:%M:%S"), tms.microsecond // 1000, util, mem, total))

        if k % 2 == 0:  # the traffic exporter scrapes every 60 s
            p50 = max(200.0, 800.0 + 60.0 * rps + 45.0 * g[2])
            p95 = max(p50 + 300.0, 2150.0 + 150.0 * rps + 90.0 * g[3])
            p99 = min(4950.0, max(p95 + 400.0, 3450.0 + 230.0 * rps + 120.0 * g[4]))
            cpu = clamp(6.0 + 2.5 * rps + 0.8 * g[5], 0.0, 100.0)
            host = 31.2 + hn + 0.02 * g[6]
            batch = clamp(rps * 2.4 + 0.6 * g[7], 1.0, 16.0)
            traffic.append("%s,%.2f,%.1f,%.1f,%.1f,%.1f,%.2f,%.1f" % (
                iso(t), rps, p50, p95, p99, cpu, host, batch))
    write("llama2-7b-vllm-a100-gpu.log", gpu)
    write("llama2-7b-vllm-a100-traffic.csv", traffic)


# ---------------------------------------------------------------------------
# 3. distilbert-intent-g4dn.csv: small model, single GPU, no gpu_index
# ---------------------------------------------------------------------------

def gen_distilbert():
    rng = random.Random(20261124)
    start = datetime.datetime(2026, 11, 23, 0, 0, 0, tzinfo=UTC)
    minutes = 2 * 24 * 60
    utc_offset = -5.0

    rate_noise = AR1(rng, 0.97, 0.012)
    mem_noise = AR1(rng, 0.9, 1.5)
    host_noise = AR1(rng, 0.995, 0.004)
    cols = [c for c in NATIVE_ALL if c != "gpu_index"]
    lines = [",".join(cols)]
    for m in range(minutes):
        rn = rate_noise.step()
        mn = mem_noise.step()
        hn = host_noise.step()
        g = [rng.gauss(0.0, 1.0) for _ in range(8)]
        t = start + datetime.timedelta(minutes=m)
        hours = m / 60.0
        s = diurnal(hours % 24.0, utc_offset, trough_local=4.0)
        rps = (8.0 + 34.0 * s) * (1.0 + rn)
        rps = max(0.0, rps + g[0] * math.sqrt(rps / 60.0))
        mem = 902.0 + mn
        util = clamp(0.8 + 0.13 * rps + 0.4 * g[1], 0.0, 100.0)
        cpu = clamp(6.0 + 0.55 * rps + 1.2 * g[2], 0.0, 100.0)
        host = 3.12 + hn + 0.01 * g[3]
        p50 = 4.6 + 0.02 * rps + 0.15 * abs(g[4])
        p95 = max(p50 + 0.5, 7.4 + 0.04 * rps + 0.3 * g[5])
        p99 = max(p95 + 0.5, 10.4 + 0.06 * rps + 0.5 * g[6])
        rx = max(0.0, rps * 2100.0 * (1.0 + 0.05 * g[7]))
        tx = rps * 480.0 + 150.0
        lines.append("%s,%.0f,15360,%.1f,%.1f,%.2f,%.0f,%.0f,%.2f,%.2f,%.2f,%.2f,1" % (
            iso(t), mem, util, cpu, host, rx, tx, rps, p50, p95, p99))
    write("distilbert-intent-g4dn.csv", lines)


# ---------------------------------------------------------------------------
# 4. resnet50-loadtest.csv: 2 h constant-rate load test on a T4
# ---------------------------------------------------------------------------

def gen_resnet50_loadtest():
    rng = random.Random(20261201)
    start = datetime.datetime(2026, 12, 1, 18, 0, 0, tzinfo=UTC)
    step_s = 10
    steps = 2 * 3600 // step_s
    ramp = 18  # 3-minute ramp-up of the load generator
    cols = [c for c in NATIVE_ALL if c != "gpu_index"]
    lines = [",".join(cols)]
    mem_noise = AR1(rng, 0.9, 3.0)
    for k in range(steps):
        mn = mem_noise.step()
        g = [rng.gauss(0.0, 1.0) for _ in range(9)]
        t = start + datetime.timedelta(seconds=k * step_s)
        target = 120.0 * min(1.0, (k + 1) / float(ramp))
        rps = max(0.0, target + 1.6 * g[0])
        load = rps / 120.0
        util = clamp(2.0 + 83.0 * load + 1.5 * g[1], 0.0, 100.0)
        mem = (2890.0 + 210.0 * min(1.0, load * 1.5)) + mn
        cpu = clamp(8.0 + 57.0 * load + 2.0 * g[2], 0.0, 100.0)
        host = 5.18 + 0.02 * g[3]
        p50 = 9.0 + 5.0 * load + 0.4 * abs(g[4])
        p95 = max(p50 + 1.0, 14.0 + 8.0 * load + 0.8 * g[5])
        p99 = max(p95 + 1.0, 18.0 + 10.5 * load + 1.2 * g[6])
        rx = max(0.0, rps * 110000.0 * (1.0 + 0.03 * g[7]))
        tx = max(0.0, rps * 1000.0 * (1.0 + 0.04 * g[8]) + 180.0)
        batch = 4 if load > 0.75 else 2 if load > 0.35 else 1
        lines.append("%s,%.0f,15360,%.1f,%.1f,%.2f,%.0f,%.0f,%.2f,%.2f,%.2f,%.2f,%d" % (
            iso(t), mem, util, cpu, host, rx, tx, rps, p50, p95, p99, batch))
    write("resnet50-loadtest.csv", lines)


def main():
    gen_resnet50_p3()
    gen_llama2_vllm()
    gen_distilbert()
    gen_resnet50_loadtest()


if __name__ == "__main__":
    main()
