#!/usr/bin/env python3
"""Validate the JSON the program writes, not only the goldens: run the
binary over many inputs and check every JSON document against the schema
its `schema` field names (docs/schema/*.schema.json).

usage: json_outputs.py RIGHTSIZE SCHEMA_DIR REPO_DIR
Inputs: every shipped profile (profiles/**/*.yaml) through recommend (with
--explain and -p all), check, plan and profile; the shipped fleet through
audit (with and without --consolidate); diffs of recommendations and of
audits; and every CLI case (tests/cli/cases/*/args, those without a setup)
of a command with a JSON format (not plan --snippet), rerun with -f json: the cases' bad inputs,
no-fit, LLM, plan and diff variants. A command that fails prints nothing on
stdout; every document printed must validate. Exit 77 (skipped) when
python3-jsonschema is not installed.
"""
import concurrent.futures
import glob
import json
import os
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from json_schema import load_schemas  # noqa: E402 (exits 77 without python3-jsonschema)

JSON_COMMANDS = {"recommend", "check", "audit", "plan", "profile", "diff"}


def as_json(args):
    """args with its format replaced by json (or -f json added)."""
    out, skip = [], False
    for i, a in enumerate(args):
        if skip:
            skip = False
            continue
        if a in ("-f", "--format") and i + 1 < len(args):
            skip = True
            continue
        if a.startswith("--format="):
            continue
        out.append(a)
    return out + ["-f", "json"]


def case_commands(cases_dir):
    for d in sorted(glob.glob(os.path.join(cases_dir, "*"))):
        if os.path.exists(os.path.join(d, "setup")) or os.path.exists(os.path.join(d, "stdin")):
            continue
        try:
            with open(os.path.join(d, "args"), encoding="utf-8") as f:
                args = shlex.split(f.read())
        except (OSError, ValueError):
            continue
        if args and args[0] in JSON_COMMANDS and "--help" not in args and "--snippet" not in args:
            yield os.path.basename(d), as_json(args)


def main():
    rightsize, schema_dir, repo = sys.argv[1], sys.argv[2], sys.argv[3]
    os.chdir(repo)
    schemas = load_schemas(schema_dir)
    env = dict(os.environ, NO_COLOR="1")
    env.pop("RIGHTSIZE_PROGRESS_DELAY", None)
    tmp = tempfile.mkdtemp(prefix="rs_json_outputs.")
    runs = []
    profiles = sorted(p for p in glob.glob("profiles/**/*.yaml", recursive=True)
                      if "/fleet/" not in p) + sorted(glob.glob("profiles/fleet/*.yaml"))[:4]
    for p in profiles:
        runs += [(f"recommend {p}", ["recommend", p, "-f", "json"]),
                 (f"recommend --explain -p all {p}",
                  ["recommend", p, "--explain", "-p", "all", "-f", "json"]),
                 (f"check {p}", ["check", p, "--max-overprovision", "50", "--require-slo",
                                 "-f", "json"]),
                 (f"plan {p}", ["plan", p, "-f", "json"]),
                 (f"profile {p}", ["profile", p, "-f", "json"])]
    runs += [("audit fleet", ["audit", "profiles/fleet", "-f", "json"]),
             ("audit fleet --consolidate",
              ["audit", "profiles/fleet", "--consolidate", "--max-per-instance", "4", "-f", "json"])]
    runs += list(case_commands("tests/cli/cases"))

    def run(item):
        name, args = item
        p = subprocess.run([rightsize] + args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           env=env, timeout=600)
        return name, args, p.returncode, p.stdout

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(run, runs))
    # diffs of what was just written: two recommendations, two audits
    docs = {}
    for name, args, rc, out in results:
        if out.strip():
            try:
                docs[name] = json.loads(out)
            except ValueError:
                pass
    pairs = [("recommend profiles/resnet50-p3.8xlarge.yaml",
              "recommend profiles/distilbert-intent-g4dn.yaml"),
             ("audit fleet", "audit fleet --consolidate")]
    extra = []
    for i, (a, b) in enumerate(pairs):
        if a in docs and b in docs:
            pa, pb = os.path.join(tmp, f"old{i}.json"), os.path.join(tmp, f"new{i}.json")
            for path, key in ((pa, a), (pb, b)):
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(docs[key], f)
            extra.append((f"diff {a} / {b}", ["diff", pa, pb, "-f", "json"]))
            extra.append((f"diff --fail-above {a} / {b}",
                          ["diff", pa, pb, "--fail-above", "1", "-f", "json"]))
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results += list(pool.map(run, extra))

    bad, seen, checked = 0, {}, 0
    for name, args, rc, out in results:
        if not out.strip():
            continue
        try:
            doc = json.loads(out)
        except ValueError as e:
            print(f"{name}: stdout is not one JSON document: {e}")
            bad += 1
            continue
        v = schemas.get(doc.get("schema")) if isinstance(doc, dict) else None
        if v is None:
            print(f"{name}: no schema for {doc.get('schema') if isinstance(doc, dict) else doc!r}")
            bad += 1
            continue
        checked += 1
        seen[doc["schema"]] = seen.get(doc["schema"], 0) + 1
        for e in v.iter_errors(doc):
            print(f"{name} ({shlex.join(args)}): {'/'.join(map(str, e.absolute_path))}: "
                  f"{e.message[:300]}")
            bad += 1
    missing = sorted(set(schemas) - set(seen))
    if missing:
        print(f"no output exercised {', '.join(missing)}")
        bad += 1
    print(f"{checked} documents from {len(results)} runs validated "
          f"({', '.join(f'{k} {n}' for k, n in sorted(seen.items()))}); {bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
