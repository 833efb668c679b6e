#!/bin/sh
# .rightsize.yaml (docs/cli.md "Config file"): found from a subdirectory
# upward; its defaults and command sections apply, relative paths are
# relative to the file; a flag on the command line wins; --no-config
# ignores it; `rightsize config` says where each setting came from; an
# unknown option or section is a usage error (exit 2) at its line.
# Usage: config.sh RIGHTSIZE REPO_ROOT
set -u
bin=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }
profile=$root/profiles/resnet50-p3.8xlarge.yaml
mkdir -p "$tmp/repo/sub/deeper"
cp "$root/tests/data/catalog/fixture.yaml" "$tmp/repo/cat.yaml"
cat >"$tmp/repo/.rightsize.yaml" <<'YAML'
defaults:
  catalog: cat.yaml
  max-wobble: 3
recommend:
  top: 2
  format: json
YAML
cd "$tmp/repo/sub/deeper" || exit 1
out=$("$bin" recommend "$profile") || no "recommend with the config exited $?"
echo "$out" | python3 -c 'import json,sys
d = json.load(sys.stdin)
assert d["catalog"]["version"] == "fixture-1", d["catalog"]
assert len(d["candidates"]) == 2, len(d["candidates"])' || no "the config's catalog, top or format not applied"
"$bin" recommend "$profile" --top 3 -f table | grep -q '^3 ' || no "a flag did not win over the file"
"$bin" recommend "$profile" --no-config | grep -q 'built in' || no "--no-config still read the file"
cfg=$("$bin" config recommend) || no "config exited $?"
echo "$cfg" | grep -q "^recommend  --top=2 .*\.rightsize\.yaml:5 (recommend)" || no "config: $cfg"
echo "$cfg" | grep -q "^recommend  --catalog=$tmp/repo/cat.yaml .*:2 (defaults)" || no "config: $cfg"
printf 'recommend:\n  topp: 2\n' >"$tmp/repo/.rightsize.yaml"
"$bin" recommend "$profile" >/dev/null 2>"$tmp/err"
[ $? = 2 ] || no "an unknown option in the file is not exit 2"
grep -q "rightsize.yaml:2:3: unknown option 'topp'" "$tmp/err" || no "error: $(cat "$tmp/err")"
"$bin" recommend "$profile" --no-config >/dev/null || no "--no-config did not skip a bad file"
cd "$tmp" || exit 1
"$bin" config | grep -q "^file       none" || no "config outside the repo found a file"
[ $fail = 0 ] && echo "ok: .rightsize.yaml"
exit $fail
