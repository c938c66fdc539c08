#!/bin/bash
# run.sh - Linux 6.1 (arm64) end to end: klto in place of the kernel's
# initcall-ordering script (part 1), and LTO with no LTO macros at all
# (part 2). Every kernel is booted under QEMU; its initcall log and its
# initcall, console-initcall and PCI-fixup tables are compared, entry by
# entry, with a kernel built without LTO by stock tools.
#
#   test/kernel/run.sh [--build <klto build dir>] [--work <dir>] [--part 1|2|all]
#
# Needs root for apt-get on a fresh machine (it installs linux-source-6.1,
# qemu-system-arm, flex, bison, bc, libelf-dev, libssl-dev). Kernels are
# built in <dir> (default /var/tmp/klto-kernel), outside the repository.
# No kernel source is changed: everything is kbuild variables on make's
# command line. Prints a summary table and writes it to <dir>/summary.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build
work=/var/tmp/klto-kernel
part=all
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --work) work=$2; shift 2 ;;
    --part) part=$2; shift 2 ;;
    *) echo "usage: $0 [--build dir] [--work dir] [--part 1|2|all]" >&2; exit 2 ;;
  esac
done
llvm=/usr/lib/llvm-19/bin
plugin=$build/lib/kltoplugin.so
klto_ld=$build/bin/ld.lld
for f in "$plugin" "$klto_ld"; do
  [ -e "$f" ] || { echo "run.sh: $f is missing: build klto first (ninja -C $build)" >&2; exit 1; }
done

pkgs="linux-source-6.1 qemu-system-arm flex bison bc libelf-dev libssl-dev perl python3"
missing=$(for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
  echo "installing: $missing"
  DEBIAN_FRONTEND=noninteractive apt-get install -y $missing >/dev/null
fi

mkdir -p "$work"
src=$work/linux-source-6.1
if [ ! -f "$src/Makefile" ]; then
  echo "unpacking /usr/src/linux-source-6.1.tar.xz into $work"
  tar -C "$work" -xf /usr/src/linux-source-6.1.tar.xz
fi
summary=$work/summary.md
: >"$summary"
log() { echo "$*" | tee -a "$summary"; }

make_k() { # make_k <out> <make args...>
  local out=$1; shift
  make -C "$src" O="$out" ARCH=arm64 LLVM=-19 -j"$(nproc)" "$@"
}

# configure <out> <pci:0|1> <lto: none|thin|full>
configure() {
  local out=$1 pci=$2 lto=$3
  mkdir -p "$out"
  make_k "$out" tinyconfig >/dev/null
  local c="$src/scripts/config --file $out/.config"
  $c -e PRINTK -e TTY -e SERIAL_AMBA_PL011 -e SERIAL_AMBA_PL011_CONSOLE \
     -e KALLSYMS -e PRINTK_TIME
  [ "$pci" = 1 ] && $c -e PCI -e PCI_HOST_GENERIC -e PCIEPORTBUS
  case $lto in
    none) $c -e LTO_NONE -d LTO_CLANG_THIN -d LTO_CLANG_FULL ;;
    thin) $c -d LTO_NONE -e LTO_CLANG_THIN -d LTO_CLANG_FULL ;;
    full) $c -d LTO_NONE -d LTO_CLANG_THIN -e LTO_CLANG_FULL ;;
  esac
  make_k "$out" olddefconfig >/dev/null
  local want
  for want in CONFIG_SERIAL_AMBA_PL011_CONSOLE=y CONFIG_KALLSYMS=y; do
    grep -qx "$want" "$out/.config" || { echo "$out/.config lacks $want" >&2; return 1; }
  done
  case $lto in
    thin) grep -qx CONFIG_LTO_CLANG_THIN=y "$out/.config" ;;
    full) grep -qx CONFIG_LTO_CLANG_FULL=y "$out/.config" ;;
    none) grep -qx CONFIG_LTO_NONE=y "$out/.config" ;;
  esac || { echo "$out/.config: Kconfig refused LTO=$lto" >&2; return 1; }
}

# build <name> <pci> <lto> <make args...>: configures and builds Image,
# recording the build time. A kernel already built with the same arguments
# and the same klto binaries is kept (delete <dir>/out to rebuild all).
build() {
  local name=$1 pci=$2 lto=$3; shift 3
  local out=$work/out/$name
  local stamp="$pci $lto $*"
  case "$*" in
    *"$build"*) stamp="$stamp $(cksum <"$plugin") $(cksum <"$klto_ld")" ;;
  esac
  if [ -f "$out/arch/arm64/boot/Image" ] && [ "$(cat "$out/build-args" 2>/dev/null)" = "$stamp" ]; then
    echo "$name: up to date"
    return 0
  fi
  rm -rf "$out"
  configure "$out" "$pci" "$lto"
  local t0=$SECONDS
  if ! make_k "$out" "$@" Image >"$out/build.log" 2>&1; then
    echo "$name: build failed, see $out/build.log" >&2
    tail -20 "$out/build.log" >&2
    return 1
  fi
  echo $((SECONDS - t0)) >"$out/build-seconds"
  echo "$stamp" >"$out/build-args"
}

# boot <name>: boots under QEMU until the root-mount panic, keeps the log.
boot() {
  local out=$work/out/$1
  timeout 120 qemu-system-aarch64 -M virt -cpu cortex-a57 -m 256 -nographic \
    -no-reboot -kernel "$out/arch/arm64/boot/Image" \
    -append "console=ttyAMA0 initcall_debug loglevel=8 panic=-1" \
    >"$out/boot.log" 2>&1 || true
}

# check <name> <reference name>: compares the boot log and the tables.
check() {
  local out=$work/out/$1 ref=$work/out/$2 ok=0
  # Stubs may have swallowed their function: read their names with the
  # reference's function names.
  python3 "$here/kernel_tables.py" bootlog "$out/boot.log" --known "$ref/vmlinux" >"$out/initcalls.txt"
  python3 "$here/kernel_tables.py" tables "$out/vmlinux" --known "$ref/vmlinux" >"$out/tables.txt"
  local n_run n_tab n_fix
  n_run=$(grep -c . "$out/initcalls.txt" || true)
  n_tab=$(grep -c '^initcall' "$out/tables.txt" || true)
  n_fix=$(grep -c '^pci_fixup' "$out/tables.txt" || true)
  local verdict="same as reference"
  if ! python3 "$here/kernel_tables.py" compare "$ref/initcalls.txt" "$out/initcalls.txt" >"$out/compare.txt" 2>&1 ||
     ! python3 "$here/kernel_tables.py" compare "$ref/tables.txt" "$out/tables.txt" >>"$out/compare.txt" 2>&1; then
    verdict="DIFFERENT: $(head -1 "$out/compare.txt")"
    ok=1
  fi
  log "| $1 | $(cat "$out/build-seconds") s | $n_run | $n_tab | $n_fix | $verdict |"
  return $ok
}

failures=0
expect_same() { check "$@" || failures=$((failures + 1)); }
expect_different() {
  if check "$@"; then
    log "  ^ expected a difference here: the check cannot fail"
    failures=$((failures + 1))
  fi
}

for pci in 0 1; do
  sfx=$([ $pci = 1 ] && echo -pci || true)
  log ""
  log "### config: arm64 tinyconfig + PL011 console$([ $pci = 1 ] && echo ' + PCI, PCI_HOST_GENERIC, PCIEPORTBUS')"
  log ""
  log "| kernel | build | initcalls run | initcall entries | PCI fixups | result |"
  log "|---|---|---|---|---|---|"
  build ref$sfx $pci none
  boot ref$sfx
  python3 "$here/kernel_tables.py" bootlog "$work/out/ref$sfx/boot.log" >"$work/out/ref$sfx/initcalls.txt"
  python3 "$here/kernel_tables.py" tables "$work/out/ref$sfx/vmlinux" >"$work/out/ref$sfx/tables.txt"
  [ -s "$work/out/ref$sfx/initcalls.txt" ] || { echo "reference kernel ran no initcalls: see $work/out/ref$sfx/boot.log" >&2; exit 1; }
  log "| ref$sfx (no LTO, stock tools) | $(cat "$work/out/ref$sfx/build-seconds") s | $(wc -l <"$work/out/ref$sfx/initcalls.txt") | $(grep -c '^initcall' "$work/out/ref$sfx/tables.txt") | $(grep -c '^pci_fixup' "$work/out/ref$sfx/tables.txt" || true) | reference |"

  if [ "$part" = 1 ] || [ "$part" = all ]; then
    # Part 1: the kernel's own LTO, its ordering script replaced by klto.
    for lto in thin full; do
      build "$lto$sfx" $pci $lto KCFLAGS="-fplugin=$plugin" \
        LD="$klto_ld --kinit-order" initcalls-lds=
      boot "$lto$sfx"
      expect_same "$lto$sfx" "ref$sfx"
    done
  fi
  if [ "$part" = 2 ] || [ "$part" = all ]; then
    # Part 2: Kconfig LTO off (no unique-name macros, no stubs, no script):
    # every C file compiled as LTO bitcode with the plugin, klto links.
    # CC_FLAGS_LTO lets the kernel's own per-file LTO opt-outs (the vDSO,
    # scripts/mod/empty.o) take the flag back out. Without Kconfig LTO the
    # final links run LTO again, as executables: --kmerge-sections lets
    # vmlinux.lds take the per-function sections LTO emits, and
    # main_extable_sort_needed, which only scripts/sorttable reads after
    # the link, must survive internalization (the kernel's own LTO never
    # internalizes: it runs LTO in the -r link of vmlinux.o).
    for lto in thin full; do
      flag=$([ $lto = thin ] && echo -flto=thin || echo -flto)
      build "nomacros-$lto$sfx" $pci none CC_FLAGS_LTO="$flag" \
        KCFLAGS="$flag -fplugin=$plugin" \
        LD="$klto_ld --kinit-order --kmerge-sections --kused-symbol=main_extable_sort_needed"
      boot "nomacros-$lto$sfx"
      expect_same "nomacros-$lto$sfx" "ref$sfx"
    done
  fi
done

if [ "$part" = 1 ] || [ "$part" = all ]; then
  log ""
  log "### the check can fail"
  log ""
  log "| kernel | build | initcalls run | initcall entries | PCI fixups | result |"
  log "|---|---|---|---|---|---|"
  # LTO with the plugin but no ordering at all: the entries' own sections
  # are orphans outside the tables.
  build unordered 0 thin KCFLAGS="-fplugin=$plugin" LD="$klto_ld" initcalls-lds=
  boot unordered
  expect_different unordered ref
  # The part-1 ThinLTO kernel with two level-6 initcalls swapped in its
  # table, rebuilt into an Image the way arm64's boot Makefile does: it
  # boots and runs them swapped, so both the log and the table must differ.
  mkdir -p "$work/out/perturbed/arch/arm64/boot"
  python3 "$here/kernel_tables.py" perturb "$work/out/thin/vmlinux" "$work/out/perturbed/vmlinux"
  $llvm/llvm-objcopy -O binary -R .note -R .note.gnu.build-id -R .comment -S \
    "$work/out/perturbed/vmlinux" "$work/out/perturbed/arch/arm64/boot/Image"
  cp "$work/out/thin/build-seconds" "$work/out/perturbed/"
  boot perturbed
  expect_different perturbed ref
fi

if [ "$part" = 1 ] || [ "$part" = all ]; then
  log ""
  log "### vmlinux.o link: the kernel's ordering script against klto (thin)"
  log ""
  "$root/bench/kernel/vmlinux_o.sh" "$work/out/thin" "$build" 1 | tee -a "$summary"
fi

log ""
log "failures: $failures"
exit $((failures > 0))
