#!/usr/bin/env python3
"""Validate every JSON golden against the schema its `schema` field names.

usage: json_schema.py SCHEMA_DIR CASES_DIR
Each docs/schema/*.json carries its document name in `$id`. A golden whose
`schema` names no schema there fails the test (a new document needs a
schema). One mutated golden must fail validation, so the test can fail.
Exit 77 (skipped) when python3-jsonschema is not installed.
"""
import copy
import glob
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema not installed: skipped")
    sys.exit(77)


def load_schemas(schema_dir):
    schemas = {}
    for path in sorted(glob.glob(os.path.join(schema_dir, "*.json"))):
        with open(path, encoding="utf-8") as f:
            s = json.load(f)
        jsonschema.Draft202012Validator.check_schema(s)
        schemas[s["$id"]] = jsonschema.Draft202012Validator(s)
    return schemas


def goldens(cases_dir):
    for path in sorted(glob.glob(os.path.join(cases_dir, "*", "expected_stdout"))):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if not text.lstrip().startswith("{"):
            continue
        try:
            doc = json.loads(text)
        except ValueError:
            continue  # not one JSON document (e.g. JSON lines)
        if isinstance(doc, dict) and "schema" in doc:
            yield path, doc


def main():
    schemas = load_schemas(sys.argv[1])
    bad = 0
    seen = {}
    for path, doc in goldens(sys.argv[2]):
        v = schemas.get(doc["schema"])
        if v is None:
            print(f"{path}: unknown schema {doc['schema']!r}")
            bad += 1
            continue
        seen.setdefault(doc["schema"], doc)
        for e in v.iter_errors(doc):
            print(f"{path}: {'/'.join(map(str, e.absolute_path))}: {e.message}")
            bad += 1
    # Negative check: a verdict code outside the list and an unknown key
    # must both be refused.
    rec = seen.get("rightsize.recommendation/1")
    if rec is None:
        print("no rightsize.recommendation/1 golden for the negative check")
        return 1
    for mutate in ("code", "extra"):
        m = copy.deepcopy(rec)
        if mutate == "code":
            m["verdict"]["code"] = "shrink"
        else:
            m["surprise"] = 1
        if schemas["rightsize.recommendation/1"].is_valid(m):
            print(f"negative check ({mutate}): a mutated document validated")
            bad += 1
    print(f"{len(seen)} schemas used, {bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
