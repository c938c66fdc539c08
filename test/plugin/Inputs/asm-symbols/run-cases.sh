#!/bin/sh
# run-cases.sh <clang> <ld.lld> <x86_64|aarch64> [plugin flags...]
# Builds and runs each case of this folder in every LTO mode and prints one
# line per case and mode: its output, or why it did not build.
clang=$1 ld=$2 arch=$3
shift 3
plugin="$*"
here=$(dirname "$0")
case $arch in
  x86_64) target="--target=x86_64-linux-gnu" exec="" ;;
  aarch64) target="--target=aarch64-linux-gnu -static" exec="qemu-aarch64" ;;
esac
for mode in none full thin full-p4 thin-p4; do
  case $mode in
    none) lto="" link="" ;;
    full*) lto="-flto" ;;
    thin*) lto="-flto=thin" ;;
  esac
  case $mode in *-p4) link="-Wl,--lto-partitions=4" ;; *) link="" ;; esac
  for c in "named counter" "entry-user entry-host" "labels-user labels" \
           "static-user static-def"; do
    set -- $c
    out=$(for f in "$@"; do
            $clang $target -O2 $lto $plugin -c "$here/$f.c" -o "$f.o" || exit 1
          done 2>&1 &&
          $clang $target $lto $link --ld-path="$ld" "$1.o" "$2.o" -o "$1" 2>&1 &&
          $exec "./$1" 2>&1) || out="FAILED: $(echo "$out" | grep -m1 -o 'error: .*')"
    echo "$mode $1: $out"
  done
done
