#!/bin/bash
# run.sh - builds the demo "kernel" every way and shows what LTO breaks and
# what klto fixes.
#
#   examples/demo/run.sh <build-dir | install-prefix [llvm-major]>
#
# <build-dir> is klto's CMake build tree; <install-prefix> is where klto was
# installed (`cmake --install`, or /usr for the Debian package): the demo
# then uses only the installed plugin and linker from
# <prefix>/lib/klto/llvm-N, N the only LLVM klto is installed for there or
# the one <llvm-major> names.
# Either way it compiles and links with the clang and ld.lld of the LLVM
# that klto was built for, which llvm.env beside the plugin names.
#
# For both entry styles Linux uses (function-pointer variables, and PREL32
# offsets emitted by file-scope asm) the demo is built without LTO (the
# reference), with -flto and with -flto=thin, each without and with klto's
# plugin; when klto's ld.lld is there, also with LTO partitions and
# a mix of LTO and non-LTO objects, linked by stock ld.lld and by klto's
# ld.lld --kinit-order. Every run's output is compared with the reference.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tree=$(cd "${1:?usage: $0 <build-dir | install-prefix [llvm-major]>}" && pwd)
major_glob=${2:-*}
# shellcheck disable=SC2086
installed=$(ls "$tree"/lib/klto/llvm-$major_glob/kltoplugin.so "$tree"/lib/*/klto/llvm-$major_glob/kltoplugin.so 2>/dev/null)
if [ "$(echo "$installed" | wc -l)" -gt 1 ]; then
  echo "run.sh: klto is installed for several LLVMs in $tree: name one (${installed//$'\n'/ })" >&2
  exit 1
fi
if [ -n "$installed" ]; then
  plugin=$installed
  klto_ld=$(dirname "$installed")/ld.lld
  work=$(mktemp -d "${TMPDIR:-/tmp}/klto-demo.XXXXXX")
  trap 'rm -rf "$work"' EXIT
else
  plugin=$tree/lib/kltoplugin.so
  klto_ld=$tree/bin/ld.lld
  work=$tree/demo
  mkdir -p "$work"
fi
llvm_env=$(dirname "$plugin")/llvm.env
[ -n "$installed" ] || llvm_env=$tree/llvm.env
if [ -f "$llvm_env" ]; then
  # shellcheck source=/dev/null
  . "$llvm_env"
  llvm=$KLTO_LLVM_BINDIR
else
  echo "run.sh: no llvm.env in $tree: configure klto there (cmake) or give the prefix klto was installed to" >&2
  exit 1
fi
cd "$here"

srcs="kernel/main.c kernel/sched.c drivers/pci.c drivers/tty.c drivers/virtio.c fs/super.c net/core.c"
[ -f "$plugin" ] || { echo "run.sh: no kltoplugin.so in $tree: build it (ninja -C $tree) or give the prefix klto was installed to" >&2; exit 1; }
failures=0

# build <out> <linker> <cflags...>: compiles every file to an object (not
# LTO for the files named in $NON_LTO_FILES), links with demo.lds. $TARGET
# holds the target flags ("" for this machine).
build() {
  local out=$1 linker=$2; shift 2
  local objs=() f o flags
  for f in $srcs; do
    o=$work/$(echo "$f" | tr / _).o
    flags=("$@")
    if [ -n "${NON_LTO_FILES:-}" ] && [[ " $NON_LTO_FILES " == *" $f "* ]]; then
      flags=("${flags[@]/-flto*/}")
    fi
    "$llvm/clang" ${TARGET:-} -O2 -Iinclude "${flags[@]}" -c "$f" -o "$o" || return 1
    objs+=("$o")
  done
  "$llvm/clang" ${TARGET:-} -O2 "$@" --ld-path="$linker" "${objs[@]}" ${LDFLAGS_EXTRA:-} \
    -Wl,-T,demo.lds -o "$out"
}

# variant <label> <linker> <cflags...>
variant() {
  local label=$1 linker=$2; shift 2
  local out=$work/demo.$$ result difference=
  if ! build "$out" "$linker" "$@" >"$work/log" 2>&1; then
    result="BUILD FAILED: $(grep -m1 -E 'error' "$work/log" | sed 's/^.*error: //')"
    ((failures++))
  elif ! ${RUNNER:-} "$out" >"$work/out" 2>&1; then
    result="CRASHED"
    ((failures++))
  elif cmp -s "$work/out" "$work/reference"; then
    result="ok: same initcalls, order and fixups as the reference"
  else
    result="WRONG: $(diff "$work/reference" "$work/out" | grep -c '^>') of $(wc -l <"$work/reference") lines differ"
    [ -z "${shown:-}" ] && { shown=1; difference=$(diff "$work/reference" "$work/out"); }
    ((failures++))
  fi
  printf '  %-44s %s\n' "$label" "$result"
  [ -n "$difference" ] && echo "$difference" | sed 's/^/      diff | /'
  rm -f "$out"
}

for style in pointer prel32; do
  def=()
  [ $style = prel32 ] && def=(-DCONFIG_HAVE_ARCH_PREL32_RELOCATIONS)
  echo "== entries as ${style} ${def[*]}"
  build "$work/ref" "$llvm/ld.lld" "${def[@]}" >"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
  "$work/ref" >"$work/reference"
  [ $style = pointer ] && { echo "  reference output (no LTO, no klto):"; sed 's/^/    | /' "$work/reference"; }
  shown=
  variant "no LTO  + klto plugin"      "$llvm/ld.lld" "${def[@]}" -fplugin="$plugin"
  variant "-flto                      " "$llvm/ld.lld" "${def[@]}" -flto
  variant "-flto      + klto plugin"   "$llvm/ld.lld" "${def[@]}" -flto -fplugin="$plugin"
  variant "-flto=thin"                 "$llvm/ld.lld" "${def[@]}" -flto=thin
  variant "-flto=thin + klto plugin"   "$llvm/ld.lld" "${def[@]}" -flto=thin -fplugin="$plugin"
  if [ -x "$klto_ld" ]; then
    LDFLAGS_EXTRA=-Wl,--lto-partitions=4 \
    variant "-flto partitions=4, plugin, stock ld" "$llvm/ld.lld" "${def[@]}" -flto -fplugin="$plugin"
    LDFLAGS_EXTRA="-Wl,--lto-partitions=4 -Wl,--kinit-order" \
    variant "-flto partitions=4, plugin, klto ld" "$klto_ld" "${def[@]}" -flto -fplugin="$plugin"
    NON_LTO_FILES="kernel/sched.c fs/super.c" \
    variant "mixed LTO/non-LTO, plugin, stock ld" "$llvm/ld.lld" "${def[@]}" -flto=thin -fplugin="$plugin"
    NON_LTO_FILES="kernel/sched.c fs/super.c" LDFLAGS_EXTRA=-Wl,--kinit-order \
    variant "mixed LTO/non-LTO, plugin, klto ld" "$klto_ld" "${def[@]}" -flto=thin -fplugin="$plugin"
  fi
done
# The same on aarch64 (static, run under qemu-user) when the cross C library
# and qemu are installed.
if command -v qemu-aarch64 >/dev/null && [ -f /usr/aarch64-linux-gnu/lib/libc.a ]; then
  TARGET="--target=aarch64-linux-gnu -static" RUNNER=qemu-aarch64
  def=(-DCONFIG_HAVE_ARCH_PREL32_RELOCATIONS)
  echo "== aarch64 (qemu-aarch64), entries as prel32"
  build "$work/ref" "$llvm/ld.lld" "${def[@]}" >"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
  $RUNNER "$work/ref" >"$work/reference"
  shown=
  variant "-flto                      " "$llvm/ld.lld" "${def[@]}" -flto
  variant "-flto      + klto plugin"   "$llvm/ld.lld" "${def[@]}" -flto -fplugin="$plugin"
  variant "-flto=thin"                 "$llvm/ld.lld" "${def[@]}" -flto=thin
  variant "-flto=thin + klto plugin"   "$llvm/ld.lld" "${def[@]}" -flto=thin -fplugin="$plugin"
  unset TARGET RUNNER
else
  echo "== aarch64 skipped: needs qemu-user and libc6-dev-arm64-cross"
fi
echo "(runs marked WRONG or FAILED without klto are the LTO bugs klto fixes)"
