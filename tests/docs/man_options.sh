#!/bin/sh
# The man page keeps up with the program: every command the program lists
# and every long and short option in each command's --help (which prints the
# commands' option declarations) appears in docs/rightsize.1 (roff spells
# '-' as '\-'). Where mandoc or groff is installed, the page
# must also render without warnings.
set -u
bin=$1
man=$2
fail=0
commands=$("$bin" --help | awk '/^commands:/{on=1; next} on && NF{print $1} on && !NF{exit}')
[ -n "$commands" ] || { echo "no commands in rightsize --help"; exit 1; }
for cmd in $commands; do
  [ "$cmd" = help ] && continue
  if ! grep -q "rightsize $cmd" "$man"; then
    echo "man page lacks the command '$cmd'"
    fail=1
  fi
  for opt in $("$bin" "$cmd" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
    [ "$opt" = --help ] && continue
    roff=$(printf '%s' "$opt" | sed 's/-/\\\\-/g')
    if ! grep -q -- "$roff" "$man"; then
      echo "man page lacks '$opt' of 'rightsize $cmd'"
      fail=1
    fi
  done
  for opt in $("$bin" "$cmd" --help | grep -oE -- '^  -[a-zA-Z],' | tr -d ' ,' | sort -u); do
    [ "$opt" = -h ] && continue
    if ! grep -q -- "\\$opt\>" "$man"; then
      echo "man page lacks '$opt' of 'rightsize $cmd'"
      fail=1
    fi
  done
done
if command -v mandoc >/dev/null 2>&1; then
  out=$(mandoc -T lint -W warning "$man" 2>&1) || { echo "$out"; fail=1; }
elif command -v groff >/dev/null 2>&1; then
  out=$(groff -man -Tutf8 -ww -z "$man" 2>&1)
  [ -z "$out" ] || { echo "$out"; fail=1; }
fi
exit $fail
