#!/bin/sh
# The completions `rightsize completion SHELL` prints load in their shell and
# complete from the option tables: bash and fish are asked to complete
# "rightsize recommend --fo" (--format) and the values of --format; zsh
# loads the script under compinit and registers _rightsize for rightsize.
# A shell that is not installed is skipped, and said so; with none of the
# three the test is skipped (exit 77).
# Usage: completions.sh RIGHTSIZE
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 ran=0
no() { echo "FAIL: $*"; fail=1; }
for sh in bash zsh fish; do
  "$bin" completion $sh >"$tmp/$sh" || no "completion $sh exited $?"
done
"$bin" completion tcsh 2>/dev/null && no "completion tcsh succeeded"
if command -v bash >/dev/null 2>&1; then
  ran=$((ran + 1))
  out=$(bash -c '. "$1"; COMP_WORDS=(rightsize recommend --fo); COMP_CWORD=2; _rightsize
    echo "${COMPREPLY[*]}"; COMP_WORDS=(rightsize check --format ""); COMP_CWORD=3; _rightsize
    echo "${COMPREPLY[*]}"' _ "$tmp/bash") || no "bash could not load its completion"
  echo "$out" | grep -qx -- "--format" || no "bash: 'recommend --fo' gave '$out'"
  echo "$out" | grep -q "junit" || no "bash: 'check --format' lacks junit: '$out'"
else
  echo "skip: bash not installed"
fi
if command -v zsh >/dev/null 2>&1; then
  ran=$((ran + 1))
  zsh -n "$tmp/zsh" || no "zsh: the script does not parse"
  out=$(zsh -fc 'autoload -Uz compinit; compinit -u -d "$2"; source "$1"; print $_comps[rightsize]' \
    _ "$tmp/zsh" "$tmp/zcompdump") || no "zsh could not load its completion"
  [ "$out" = _rightsize ] || no "zsh: rightsize completes with '$out'"
else
  echo "skip: zsh not installed (apt-get install -y zsh)"
fi
if command -v fish >/dev/null 2>&1; then
  ran=$((ran + 1))
  out=$(fish -c 'source $argv[1]; complete -C"rightsize recommend --fo"; complete -C"rightsize audit --format "' \
    "$tmp/fish") || no "fish could not load its completion"
  echo "$out" | grep -q "^--format" || no "fish: 'recommend --fo' gave '$out'"
  echo "$out" | grep -q "^markdown" || no "fish: 'audit --format' lacks markdown"
else
  echo "skip: fish not installed (apt-get install -y fish)"
fi
[ $ran = 0 ] && { echo "skip: none of bash, zsh, fish installed"; exit 77; }
[ $fail = 0 ] && echo "ok: completions load and complete in $ran shells"
exit $fail
