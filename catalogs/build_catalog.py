#!/usr/bin/env python3
"""Builds catalogs/rightsize-<version>.yaml from the research CSVs.

Usage: python3 catalogs/build_catalog.py [SOURCE_DIR] [OUT_FILE]

SOURCE_DIR defaults to catalogs/source (a copy of shared/data: instances.csv,
accelerators.csv, README.md). The calibration section comes from
catalogs/calibration/mlperf.csv (published per-accelerator throughput; see
catalogs/calibration/README.md). The output is deterministic: the same CSVs give
the same bytes, so the catalog's SHA-256 changes only when its facts do.
Standard library only. See docs/catalog-format.md.
"""
import csv
import json
import os
import re
import sys

CATALOG_VERSION = "2026.12.0"
SCHEMA_VERSION = 2  # 2: calibration, fp8/tf32, architecture, CPU bandwidth
PRICES_AS_OF = "2026-01-21"  # newest snapshot; per-row as_of says how old each price is

SOURCES = [
    "tsaol/aws-gpu@77fcd9f data/<family>_instances.js (auto-generated from instances.vantage.sh,"
    " last updated 2026-01-21): AWS GPU/Inferentia/Trainium on-demand, vCPU, memory, GPUs, network",
    "skypilot-org/skypilot-catalog catalogs/v7/aws/vms.csv (indexed version 001367d2, older than"
    " the vantage data): AWS CPU on-demand and all AWS spot (minimum across the us-east-1 AZ rows read)",
    "awsdocs/amazon-ec2-user-guide@e3707c4 (2023-06-15): AWS network baseline/burst for c6i, c7g,"
    " m6i, r6i and GPU families",
    "skypilot-org/skypilot-catalog catalogs/v7/gcp/vms.csv (indexed version 017e2502): GCP VM +"
    " accelerator prices, TPU slice prices",
    "skypilot-org/skypilot-catalog catalogs/v6/azure/vms.csv (indexed version 098741e7): Azure prices and spot",
    "MicrosoftDocs/azure-docs articles/virtual-machines/sizes/gpu-accelerated/*-series.md"
    " (ms.date 2024-07-31, 2024-08-01): Azure accelerator count, GPU memory, network",
    "aws-neuron/aws-neuron-sdk general/arch/neuron-hardware/*.rst: Inferentia, Inferentia2, Trainium specs",
    "cloud.google.com/tpu/docs (v5e, v5p, v6e; v4 via glennklockwood.com): TPU specs",
    "mlcommons/inference_results_v0.7, v1.1, v3.0, v3.1, v4.0 closed/NVIDIA/results/*/"
    "mlperf_log_summary.txt (Offline): the calibration section, one source per row",
    "secondary pages citing NVIDIA datasheets (glennklockwood.com, thundercompute.com, sysrqmts.com,"
    " heise.de, grokipedia, winston-zhang-orz/gpu-specs): NVIDIA specs; no NVIDIA datasheet was read",
]

FAMILY_OF_VENDOR = {"NVIDIA": "nvidia-gpu", "Google": "tpu"}
ARM64_FAMILIES = {"c7g", "g5g"}

# TPU generations that instances.csv names but accelerators.csv has no spec row for.
EXTRA_ACCELERATORS = [
    {"key": "TPU-v2", "vendor": "Google", "name": "Cloud TPU v2 (per chip)",
     "model": "Google TPU v2"},
    {"key": "TPU-v3", "vendor": "Google", "name": "Cloud TPU v3 (per chip)",
     "model": "Google TPU v3"},
]

# Effective CPU inference throughput per vCPU (an assumption, documented in
# docs/catalog-format.md): 50% of the FP32 FMA vector peak of one vCPU.
CPU_EFFICIENCY = 0.5
CPU_GENERATIONS = {
    # family: (cpu description, FP32 FLOP/cycle/core, vCPUs per core, all-core GHz,
    #          DRAM GB/s per socket, vCPUs per socket of the largest size)
    "c6i": ("Intel Xeon 3rd gen (Ice Lake), AVX-512 2 FMA units", 32, 2, 3.5, 204.8, 64),
    "m6i": ("Intel Xeon 3rd gen (Ice Lake), AVX-512 2 FMA units", 32, 2, 3.5, 204.8, 64),
    "r6i": ("Intel Xeon 3rd gen (Ice Lake), AVX-512 2 FMA units", 32, 2, 3.5, 204.8, 64),
    "c7i": ("Intel Xeon 4th gen (Sapphire Rapids), AVX-512 2 FMA units", 32, 2, 3.2, 307.2, 96),
    "m7i": ("Intel Xeon 4th gen (Sapphire Rapids), AVX-512 2 FMA units", 32, 2, 3.2, 307.2, 96),
    "c7g": ("AWS Graviton3 (Neoverse V1), 2x256-bit SVE", 32, 1, 2.6, 307.2, 64),
}
CPU_DRAM = {204.8: "8 channels DDR4-3200", 307.2: "8 channels DDR5-4800"}

NEURON_GIB = {"Inferentia1", "Inferentia2"}  # the Neuron docs give GiB and GiB/s


def q(s):
    """A YAML double-quoted scalar (JSON string syntax is valid YAML)."""
    return json.dumps(s, ensure_ascii=True)


def num(text):
    """Normalizes a CSV number to its shortest exact decimal text."""
    text = text.strip()
    v = float(text)
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


def fraction(text):
    text = text.strip()
    if "/" in text:
        a, b = text.split("/")
        return float(a) / float(b), True
    return float(text), False


def fmt_count(v):
    if v == int(v):
        return str(int(v))
    return "%.6f" % v


def accel_entries(rows):
    out = []
    for r in rows:
        vendor = r["vendor"]
        key = r["accelerator_key"]
        fam = FAMILY_OF_VENDOR.get(vendor)
        if vendor == "AWS":
            fam = "trainium" if key.startswith("Trainium") else "inferentia"
        e = [("key", q(key)), ("vendor", q(vendor)), ("family", fam),
             ("name", q(r["accelerator"]))]
        if r["form_factor"]:
            e.append(("form_factor", q(r["form_factor"])))
        unit = "GiB" if key in NEURON_GIB else "GB"
        if r["memory_gb"]:
            e.append(("memory", num(r["memory_gb"]) + unit))
        if r["memory_type"]:
            e.append(("memory_type", q(r["memory_type"])))
        notes = r["notes"]
        if r["memory_bandwidth_gb_s"]:
            bw = float(r["memory_bandwidth_gb_s"])
            if key in NEURON_GIB:
                notes += " memory_bandwidth_gbps converted from %s GiB/s to GB/s." % num(
                    r["memory_bandwidth_gb_s"])
                bw = round(bw * 1.073741824, 3)
            e.append(("memory_bandwidth_gbps", num(repr(bw))))
        for col, field in (("bf16_fp16_tensor_dense_tflops", "fp16_tflops"),
                           ("bf16_fp16_tensor_sparse_tflops", "fp16_sparse_tflops"),
                           ("int8_dense_tops", "int8_tops"), ("fp32_tflops", "fp32_tflops"),
                           ("fp8_dense_tflops", "fp8_tflops"),
                           ("tf32_dense_tflops", "tf32_tflops"), ("tdp_w", "tdp_w")):
            if r[col]:
                e.append((field, num(r[col])))
        if r["architecture"]:
            e.append(("architecture", q(r["architecture"])))
        e.append(("source", q(r["source"])))
        if notes.strip():
            e.append(("notes", q(notes.strip())))
        out.append(e)
    for x in EXTRA_ACCELERATORS:
        out.append([("key", q(x["key"])), ("vendor", q(x["vendor"])), ("family", "tpu"),
                    ("name", q(x["name"])),
                    ("source", q("instances.csv accelerator_model '%s'" % x["model"])),
                    ("notes", q("No spec row in accelerators.csv; specs unknown."))])
    return out


def cpu_fields(family):
    desc, flop, per_core, ghz, dram, per_socket = CPU_GENERATIONS[family]
    peak = flop * ghz / per_core
    eff = round(peak * CPU_EFFICIENCY, 3)
    bw = round(dram / per_socket, 3)
    note = ("ASSUMPTION cpu_gflops_per_vcpu = %g%% of FP32 vector peak per vCPU: %s,"
            " %d FP32 FLOP/cycle/core x %.1f GHz all-core / %d vCPU per core = %g GFLOPS peak"
            " per vCPU (not measured); ASSUMPTION cpu_memory_gbps_per_vcpu = %s (%g GB/s per"
            " socket) / %d vCPUs per socket = %g GB/s (a fair share of peak DRAM bandwidth,"
            " not measured)" % (CPU_EFFICIENCY * 100, desc, flop, ghz, per_core, peak,
                                CPU_DRAM[dram], dram, per_socket, bw))
    return [("cpu", q(desc)), ("cpu_gflops_per_vcpu", num(repr(eff))),
            ("cpu_memory_gbps_per_vcpu", num(repr(bw)))], note


def network(r):
    if not r["network_gbps"]:
        return None
    parts = [("gbps", num(r["network_gbps"])),
             ("up_to", "true" if r["network_up_to"] == "true" else "false")]
    m = re.search(r"baseline ([0-9.]+) Gbps", r["notes"])
    if m:
        parts.append(("baseline_gbps", num(m.group(1))))
    return parts


def price_flag(r):
    name = r["instance_type"]
    if r["provider"] == "gcp" and r["region"] == "us-central1" and (
            name.startswith("a3-highgpu-") or name.startswith("a2-ultragpu-")):
        return "suspect"
    return None


def region_and_price(r, notes):
    """The NCads_A10_v4 rows have only a westus3 price in their notes: use it, in westus3."""
    region, od, spot = r["region"], r["ondemand_usd_per_hour"], r["spot_usd_per_hour"]
    if not od:
        m = re.search(r"westus3 ([0-9.]+) / spot ([0-9.]+)", r["notes"])
        if m:
            region, od, spot = "westus3", m.group(1), m.group(2)
            notes.append("priced in westus3: no eastus price in the source")
    if spot and od and float(spot) == float(od):
        notes.append("spot omitted: the source row has spot equal to on-demand (no spot price)")
        spot = ""
    return region, od, spot


def accel_fields(r, extra_keys):
    key = r["accelerator_key"]
    if not key and r["category"] == "tpu":
        key = {"Google TPU v2": "TPU-v2", "Google TPU v3": "TPU-v3"}[r["accelerator_model"]]
        extra_keys.add(key)
    if not key:
        return []
    f = [("accelerator", q(key))]
    if r["accelerator_count"]:
        count, frac = fraction(r["accelerator_count"])
        f.append(("accelerator_count", fmt_count(count)))
    if r["accelerator_memory_gb_per_device"]:
        unit = "GiB" if key in NEURON_GIB else "GB"
        f.append(("accelerator_memory", num(r["accelerator_memory_gb_per_device"]) + unit))
    if r["accelerator_key_basis"]:
        f.append(("accelerator_basis", q(r["accelerator_key_basis"])))
    return f


def instance_entry(r, extra_keys):
    notes = []
    region, od, spot = region_and_price(r, notes)
    e = [("provider", r["provider"]), ("name", q(r["instance_type"])),
         ("family", q(r["family"])), ("category", r["category"])]
    if r["category"] != "tpu":
        e.append(("arch", "arm64" if r["family"] in ARM64_FAMILIES else "x86_64"))
    e.append(("region", q(region)))
    if r["vcpus"]:
        e.append(("vcpus", num(r["vcpus"])))
    if r["memory_gib"]:
        e.append(("memory", num(r["memory_gib"]) + "GiB"))
    e += accel_fields(r, extra_keys)
    if r["category"] == "cpu":
        fields, note = cpu_fields(r["family"])
        e += fields
        notes.append(note)
    net = network(r)
    if net:
        e.append(("network", net))
    if od:
        e.append(("ondemand_usd_per_hour", num(od)))
    else:
        e.append(("price_flag", "unpriced"))
    if spot:
        e.append(("spot_usd_per_hour", num(spot)))
    flag = price_flag(r)
    if flag:
        e.append(("price_flag", flag))
    e.append(("as_of", q(r["data_as_of"])))
    e.append(("source", q(r["source"])))
    all_notes = "; ".join([n for n in [r["notes"].strip()] + notes if n])
    if all_notes:
        e.append(("notes", q(all_notes)))
    return e


def emit_entry(lines, entry):
    first = True
    for k, v in entry:
        lead = "  - " if first else "    "
        first = False
        if isinstance(v, list):
            lines.append("%s%s:" % (lead, k))
            for k2, v2 in v:
                lines.append("      %s: %s" % (k2, v2))
        else:
            lines.append("%s%s: %s" % (lead, k, v))


CALIBRATION_COLUMNS = [("class", False), ("model", True), ("benchmark", True),
                       ("accelerator", True), ("per_accelerator", None), ("unit", True),
                       ("system_throughput", None), ("accelerators", None), ("precision", False),
                       ("software", True), ("round", True), ("scenario", True),
                       ("submitter", True), ("system", True), ("source", True), ("notes", True)]


def calibration_entries(path, accel_keys):
    """Rows of calibration/mlperf.csv, checked against the accelerator keys."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    out = []
    for r in rows:
        if r["accelerator"] not in accel_keys:
            raise SystemExit("calibration: unknown accelerator %r" % r["accelerator"])
        per = float(r["system_throughput"]) / float(r["accelerators"])
        if abs(per - float(r["per_accelerator"])) > 1e-6 * per:
            raise SystemExit("calibration: %s %s: per_accelerator %s != system / count"
                             % (r["round"], r["system"], r["per_accelerator"]))
        e = []
        for col, quoted in CALIBRATION_COLUMNS:
            key = "throughput" if col == "per_accelerator" else col
            if col == "notes" and not r[col]:
                continue
            e.append((key, q(r[col]) if quoted else (num(r[col]) if quoted is None else r[col])))
        out.append(e)
    return out


def build(src):
    with open(os.path.join(src, "accelerators.csv"), newline="", encoding="utf-8") as f:
        accels = list(csv.DictReader(f))
    with open(os.path.join(src, "instances.csv"), newline="", encoding="utf-8") as f:
        insts = list(csv.DictReader(f))
    lines = ["# rightsize instance catalog. Generated by catalogs/build_catalog.py from",
             "# catalogs/source/*.csv; edit the CSVs or the script, not this file.",
             "# Format: docs/catalog-format.md",
             "schema_version: %d" % SCHEMA_VERSION,
             "catalog_version: %s" % CATALOG_VERSION,
             "prices_as_of: %s" % q(PRICES_AS_OF),
             "currency: USD",
             "sources:"]
    lines += ["  - %s" % q(s) for s in SOURCES]
    lines.append("accelerators:")
    for e in accel_entries(accels):
        emit_entry(lines, e)
    lines.append("instances:")
    extra = set()
    for r in insts:
        emit_entry(lines, instance_entry(r, extra))
    cal = os.path.join(os.path.dirname(os.path.abspath(__file__)), "calibration", "mlperf.csv")
    lines.append("calibration:")
    for e in calibration_entries(cal, {r["accelerator_key"] for r in accels}):
        emit_entry(lines, e)
    return "\n".join(lines) + "\n", len(accels) + len(EXTRA_ACCELERATORS), len(insts)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "source")
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        here, "rightsize-%s.yaml" % CATALOG_VERSION)
    text, na, ni = build(src)
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    print("wrote %s: %d accelerators, %d instances" % (out, na, ni), file=sys.stderr)


if __name__ == "__main__":
    main()
