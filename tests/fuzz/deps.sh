#!/bin/sh
# Builds libyaml and cJSON from their Debian source packages with the fuzz
# build's instrumentation, so that libFuzzer sees their branches too
# (tests/fuzz/README, "Instrumented libyaml and cJSON"). Opt-in: the normal
# and CI fuzz builds link the Debian shared libraries and need none of this.
#
#   tests/fuzz/deps.sh [--add-deb-src] [DIR]
#
# DIR (default build-fuzz/deps) receives src/ (the unpacked, Debian-patched
# sources: `apt-get source`, never committed), include/ and lib/
# (libyaml.a, libcjson.a). Then configure the fuzz build with
#
#   CC=clang cmake -S . -B build-fuzz -DRS_FUZZ=ON -DRS_FUZZ_DEPS=$PWD/build-fuzz/deps
#
# `apt-get source` needs a deb-src entry in the APT sources. Without one it
# fails with "You must put some 'deb-src' URIs in your sources.list".
# --add-deb-src writes one (deb-src beside every deb line of the system's
# deb822 sources, /etc/apt/sources.list.d/rightsize-deb-src.sources, then
# apt-get update; needs root). Nothing is added unless asked.
#
# Environment: CC (default clang), DEPS_CFLAGS (default: the flags RS_FUZZ
# gives every object of the project).
set -eu

add_src=0
dir=
for a in "$@"; do
  case "$a" in
  --add-deb-src) add_src=1 ;;
  -h | --help)
    sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  -*)
    echo "deps.sh: unknown option $a (expected --add-deb-src or a directory)" >&2
    exit 2
    ;;
  *) dir=$a ;;
  esac
done
dir=${dir:-build-fuzz/deps}
CC=${CC:-clang}
DEPS_CFLAGS=${DEPS_CFLAGS:--O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer}

if [ "$add_src" = 1 ]; then
  list=/etc/apt/sources.list.d/rightsize-deb-src.sources
  if grep -qs '^Types:.*deb-src\|^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/*; then
    echo "deps.sh: the APT sources already have a deb-src entry, none added"
  elif [ ! -f "$list" ]; then
    # Every deb822 stanza of the system's sources, with Types: deb-src.
    found=0
    for f in /etc/apt/sources.list.d/*.sources; do
      [ -f "$f" ] || continue
      [ "$f" = "$list" ] && continue
      grep -q '^Types:.*deb-src' "$f" && continue
      sed 's/^Types:.*/Types: deb-src/' "$f" >>"$list.tmp"
      printf '\n' >>"$list.tmp"
      found=1
    done
    if [ "$found" = 0 ]; then
      rm -f "$list.tmp"
      echo "deps.sh: no deb822 .sources file to derive a deb-src entry from; add one by hand" >&2
      exit 1
    fi
    mv "$list.tmp" "$list"
  fi
  apt-get update
fi

mkdir -p "$dir/src" "$dir/include/cjson" "$dir/lib" "$dir/obj"
dir=$(cd "$dir" && pwd)
cd "$dir/src"
[ -d libyaml-0.2.5 ] || apt-get source libyaml=0.2.5-1 || apt-get source libyaml
[ -d cjson-1.7.15 ] || apt-get source cjson
yaml=$(ls -d libyaml-0.2.* | head -1)
cjson=$(ls -d cjson-1.7.* | head -1)
yver=${yaml#libyaml-}

rm -f "$dir"/obj/*.o "$dir"/lib/libyaml.a "$dir"/lib/libcjson.a
ymaj=$(echo "$yver" | cut -d. -f1)
ymin=$(echo "$yver" | cut -d. -f2)
ypat=$(echo "$yver" | cut -d. -f3)
for c in "$yaml"/src/*.c; do
  # shellcheck disable=SC2086
  $CC $DEPS_CFLAGS -DYAML_VERSION_MAJOR="$ymaj" -DYAML_VERSION_MINOR="$ymin" \
    -DYAML_VERSION_PATCH="$ypat" -DYAML_VERSION_STRING="\"$yver\"" -I"$yaml/include" \
    -c "$c" -o "$dir/obj/yaml_$(basename "$c" .c).o"
done
ar rcs "$dir/lib/libyaml.a" "$dir"/obj/yaml_*.o
# shellcheck disable=SC2086
$CC $DEPS_CFLAGS -c "$cjson/cJSON.c" -o "$dir/obj/cjson.o"
ar rcs "$dir/lib/libcjson.a" "$dir/obj/cjson.o"
cp "$yaml/include/yaml.h" "$dir/include/"
cp "$cjson/cJSON.h" "$dir/include/cjson/"
echo "deps.sh: built $dir/lib/libyaml.a ($yaml) and $dir/lib/libcjson.a ($cjson)"
echo "  CC=clang cmake -S . -B build-fuzz -DRS_FUZZ=ON -DRS_FUZZ_DEPS=$dir"
