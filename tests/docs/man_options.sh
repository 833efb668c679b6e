#!/bin/sh
# The docs keep up with the program: every command the program lists and
# every long and short option in each command's --help (which prints the
# commands' option declarations) appears in the documentation.
# Usage: man_options.sh RIGHTSIZE DOC [roff|markdown]
#   roff (the default): DOC is docs/rightsize.1 (roff spells '-' as '\-'),
#     which must also render without warnings where mandoc or groff is
#     installed;
#   markdown: DOC is docs/cli.md, where options are spelled as typed.
set -u
bin=$1
doc=$2
style=${3:-roff}
fail=0
commands=$("$bin" --help | awk '/^commands:/{on=1; next} on && NF{print $1} on && !NF{exit}')
[ -n "$commands" ] || { echo "no commands in rightsize --help"; exit 1; }
spell() {
  if [ "$style" = roff ]; then printf '%s' "$1" | sed 's/-/\\\\-/g'; else printf '%s' "$1"; fi
}
for cmd in $commands; do
  [ "$cmd" = help ] && continue
  if ! grep -q "rightsize $cmd" "$doc"; then
    echo "$doc lacks the command '$cmd'"
    fail=1
  fi
  # the options: section of --help, one declaration a line
  opts=$("$bin" "$cmd" --help | awk '/^options:/{on=1; next} on && /^  /{print} on && !NF{exit}')
  [ -n "$opts" ] || { echo "no options in 'rightsize $cmd --help'"; fail=1; }
  for opt in $(printf '%s\n' "$opts" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
    [ "$opt" = --help ] && continue
    if ! grep -q -- "$(spell "$opt")\([^a-z0-9-]\|$\)" "$doc"; then
      echo "$doc lacks '$opt' of 'rightsize $cmd'"
      fail=1
    fi
  done
  for opt in $(printf '%s\n' "$opts" | grep -oE -- '^  -[a-zA-Z],' | tr -d ' ,' | sort -u); do
    [ "$opt" = -h ] && continue
    if ! grep -q -- "$(spell "$opt")\([^a-zA-Z0-9-]\|$\)" "$doc"; then
      echo "$doc lacks '$opt' of 'rightsize $cmd'"
      fail=1
    fi
  done
done
if [ "$style" = roff ] && command -v mandoc >/dev/null 2>&1; then
  out=$(mandoc -T lint -W warning "$doc" 2>&1) || { echo "$out"; fail=1; }
elif [ "$style" = roff ] && command -v groff >/dev/null 2>&1; then
  out=$(groff -man -Tutf8 -ww -z "$doc" 2>&1)
  [ -z "$out" ] || { echo "$out"; fail=1; }
fi
[ $fail = 0 ] && echo "ok: every command and option of --help is in $doc"
exit $fail
