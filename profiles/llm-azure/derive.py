#!/usr/bin/env python3
"""Derives conv-15min.csv from the Azure LLM inference trace 2023.

The fixture is the first 15 minutes (900 s from the first request) of
AzureLLMInferenceTrace_conv.csv, its header and rows copied byte for byte
(nothing is rounded, re-ordered or re-formatted). Python 3 standard library
only. From the repository root:

    python3 profiles/llm-azure/derive.py ../shared/traces/azure-llm-inference-2023

The source file's SHA-256 is checked first, so the output is the committed
fixture byte for byte or the script stops.
"""
import datetime
import hashlib
import os
import sys

SOURCE = "AzureLLMInferenceTrace_conv.csv"
SOURCE_SHA256 = "2f1e5b666d4e3055fdbba98598ce2ec307767b9064e03e2fa46676dbcc7d0bf8"
SPAN_S = 900.0
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "conv-15min.csv")


def parse(ts):
    # "2023-11-16 18:15:46.6805900": seven fractional digits, more than
    # datetime's six; the seventh is kept in the copy, dropped for the cut.
    day, frac = ts.split(".") if "." in ts else (ts, "0")
    base = datetime.datetime.strptime(day, "%Y-%m-%d %H:%M:%S").replace(
        tzinfo=datetime.timezone.utc)
    return base.timestamp() + float("0." + frac)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: derive.py DIR (holding %s)" % SOURCE)
    path = os.path.join(sys.argv[1], SOURCE)
    data = open(path, "rb").read()
    digest = hashlib.sha256(data).hexdigest()
    if digest != SOURCE_SHA256:
        sys.exit("%s: sha256 %s, expected %s" % (path, digest, SOURCE_SHA256))
    lines = data.decode("ascii").splitlines(keepends=True)
    out = [lines[0]]
    first = None
    for line in lines[1:]:
        t = parse(line.split(",", 1)[0])
        first = t if first is None else first
        if t - first >= SPAN_S:
            break
        out.append(line)
    with open(OUT, "w", newline="") as f:
        f.writelines(out)
    print("%s: %d requests" % (OUT, len(out) - 1))


if __name__ == "__main__":
    main()
