#!/bin/bash
# run.sh - Linux 6.1, 6.12 or 7.3 (arm64, x86_64) end to end: klto in place of the
# kernel's initcall-ordering script (part 1), and LTO with no LTO macros at
# all (part 2). Every kernel is booted under QEMU; its initcall log and its
# initcall, console-initcall and PCI-fixup tables are compared, entry by
# entry, with a kernel built without LTO by stock tools. The PCI configs
# also build loadable modules, which an initramfs (Debian's busybox-static
# of the kernel's architecture) loads at boot: what they print and the
# module list are compared the same way, and their .ko files must have no
# split section left that scripts/module.lds.S merges under LTO.
#
#   test/kernel/run.sh [--build <klto build dir>] [--work <dir>] [--part 1|2|all]
#                      [--arch arm64|x86_64|all] [--kernel 6.1|6.12|7.3|all]
#                      [--lto "thin full dist"] [--config tiny-pci|defconfig]
#
# Needs root for apt-get on a fresh machine (it installs qemu-system-arm,
# qemu-system-x86, flex, bison, bc, libelf-dev, libssl-dev). Debian's
# linux-source-<kernel> (bookworm, bookworm-backports or trixie-backports)
# and busybox-static are downloaded with private apt configurations, not
# installed (fetch-source.sh). --kernel defaults to 6.1; all runs 6.1,
# 6.12 and 7.3 in turn, each with the other options given (and, with
# --work DIR, in DIR/<kernel>). Part 1's LTO
# modes (--lto) are thin and full, and dist (CONFIG_LTO_CLANG_THIN_DIST,
# 7.2 on) too where the kernel has it. Kernels are built in <dir> (default
# /var/tmp/klto-kernel for 6.1, /var/tmp/klto-kernel-<kernel> otherwise),
# outside the repository: arm64's in <dir>/out, x86_64's in
# <dir>/out-x86_64. No kernel source is changed: everything is kbuild
# variables on make's command line. Prints a summary table and writes it to
# <dir>/summary-<arch>.md (<arch> as given to --arch; summary-<arch>-defconfig.md
# with --config defconfig), so that runs of other arches or configs in the
# same <dir> keep theirs. --arch defaults to arm64.
#
# --config tiny-pci (the default) builds the small configs: tinyconfig with
# a serial console (arm64: with and without PCI; x86_64: with PCI), and the
# negative checks. --config defconfig builds the architecture's defconfig
# instead (with KALLSYMS, PRINTK_TIME and the same test modules), in
# <dir>/out*/<name>-defconfig: a distribution-size kernel, each build an hour
# or more here; no negative checks (they test the checker, not the size).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build
work=
part=all
arches=arm64
arch_arg=arm64
kernel=6.1
lto_modes=
config=tiny-pci
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --work) work=$2; shift 2 ;;
    --part) part=$2; shift 2 ;;
    --kernel)
      case $2 in
        6.1|6.12|7.3|all) kernel=$2 ;;
        *) echo "run.sh: --kernel 6.1, 6.12, 7.3 or all" >&2; exit 2 ;;
      esac
      shift 2 ;;
    --lto) lto_modes=$2; shift 2 ;;
    --config)
      case $2 in
        tiny-pci|defconfig) config=$2 ;;
        *) echo "run.sh: --config tiny-pci or defconfig" >&2; exit 2 ;;
      esac
      shift 2 ;;
    --arch)
      arch_arg=$2
      case $2 in
        arm64|x86_64) arches=$2 ;;
        all) arches="arm64 x86_64" ;;
        *) echo "run.sh: --arch arm64, x86_64 or all" >&2; exit 2 ;;
      esac
      shift 2 ;;
    *) echo "usage: $0 [--build dir] [--work dir] [--part 1|2|all] [--arch arm64|x86_64|all] [--kernel 6.1|6.12|7.3|all] [--lto modes] [--config tiny-pci|defconfig]" >&2; exit 2 ;;
  esac
done
if [ "$kernel" = all ]; then
  status=0
  for k in 6.1 6.12 7.3; do
    args=(--build "$build" --part "$part" --arch "$arch_arg" --kernel "$k" --config "$config")
    [ -z "$work" ] || args+=(--work "$work/$k")
    [ -z "$lto_modes" ] || args+=(--lto "$lto_modes")
    "$0" "${args[@]}" || status=1
  done
  exit $status
fi
[ -f "$build/llvm.env" ] || { echo "run.sh: $build/llvm.env is missing: configure klto first (cmake -B $build)" >&2; exit 1; }
# The LLVM klto was built for: its clang, lld and tools build every kernel.
# shellcheck source=/dev/null
. "$build/llvm.env"
export KLTO_LLVM_BINDIR
llvm=$KLTO_LLVM_BINDIR
plugin=$build/lib/kltoplugin.so
klto_ld=$build/bin/ld.lld
for f in "$plugin" "$klto_ld"; do
  [ -e "$f" ] || { echo "run.sh: $f is missing: build klto first (ninja -C $build)" >&2; exit 1; }
done

pkgs="qemu-system-arm qemu-system-x86 flex bison bc libelf-dev libssl-dev perl python3"
missing=$(for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
  echo "installing: $missing"
  DEBIAN_FRONTEND=noninteractive apt-get install -y $missing >/dev/null
fi

[ -n "$work" ] || work=/var/tmp/klto-kernel$([ "$kernel" = 6.1 ] || echo "-$kernel")
mkdir -p "$work"
src=$work/linux-source-$kernel
if [ ! -f "$src/Makefile" ]; then
  if [ -f "/usr/src/linux-source-$kernel.tar.xz" ]; then
    echo "unpacking /usr/src/linux-source-$kernel.tar.xz into $work"
    tar -C "$work" -xf "/usr/src/linux-source-$kernel.tar.xz"
  else
    echo "downloading and unpacking Debian's linux-source-$kernel into $work"
    "$here/fetch-source.sh" "$work" "$kernel" >/dev/null
  fi
fi
# The tree's own version (its Makefile), which names its stubs and exports
# (kernel_tables.py --linux).
kver=$(sed -n 's/^VERSION = //p' "$src/Makefile").$(sed -n 's/^PATCHLEVEL = //p' "$src/Makefile")
[ "$kver" = "$kernel" ] || { echo "run.sh: $src/Makefile says Linux $kver, not $kernel" >&2; exit 1; }
# Part 1's LTO modes: distributed ThinLTO where Kconfig has it (7.2 on).
if [ -z "$lto_modes" ]; then
  lto_modes="thin full"
  grep -q '^config LTO_CLANG_THIN_DIST$' "$src/arch/Kconfig" && lto_modes="thin dist full"
fi
# Each --arch and --config writes its own summary, so that one run can go
# beside (or after) another in the same work directory.
summary=$work/summary-$arch_arg$([ "$config" = tiny-pci ] || echo "-$config").md
: >"$summary"
log() { echo "$*" | tee -a "$summary"; }

# arch_vars <arch>: what differs between the architectures, and nothing
# else. The PCI configs (pci=1) add $pci_syms to tinyconfig + $base_syms;
# $configs lists the configs built (0 without PCI, 1 with, d: defconfig).
arch_vars() {
  arch=$1
  case $arch in
    arm64)
      karch=arm64 image=arch/arm64/boot/Image image_target=Image deb_arch=arm64
      base_syms="SERIAL_AMBA_PL011 SERIAL_AMBA_PL011_CONSOLE"
      console_sym=SERIAL_AMBA_PL011_CONSOLE
      pci_syms="PCI PCI_HOST_GENERIC PCIEPORTBUS"
      configs="0 1"
      config_name="arm64 tinyconfig + PL011 console"
      qemu="qemu-system-aarch64 -M virt -cpu cortex-a57" console=ttyAMA0 boot_args=""
      part2_syms="" part2_lto_flags=""
      outs=$work/out ;;
    x86_64)
      karch=x86_64 image=arch/x86/boot/bzImage image_target=bzImage deb_arch=amd64
      base_syms="64BIT SERIAL_8250 SERIAL_8250_CONSOLE"
      console_sym=SERIAL_8250_CONSOLE
      pci_syms="PCI"
      configs="1"
      config_name="x86_64 tinyconfig + 64BIT, 8250 console"
      qemu="qemu-system-x86_64 -M pc" console=ttyS0
      # On a loaded host QEMU's emulated timer can miss the kernel's IO-APIC
      # timer check ("IO-APIC + timer doesn't work!", a panic before any
      # initcall); no_timer_check skips it, as for any virtual machine.
      boot_args="no_timer_check"
      # objtool reads ELF only. Kbuild runs it once, on the native
      # vmlinux.o, and links vmlinux from that vmlinux.o, under Kconfig LTO
      # or X86_KERNEL_IBT; otherwise it runs objtool on every object and
      # links vmlinux from vmlinux.a, LTO again, with objtool's work lost.
      # klto's -r link of vmlinux.o is an LTO link like the kernel's own.
      part2_syms="X86_KERNEL_IBT"
      # The kernel's own LTO compiles with -fvisibility=hidden
      # (CC_FLAGS_LTO, top Makefile): with default visibility LTO reaches
      # a __weak function another file overrides (pcibios_align_resource)
      # through the GOT, R_X86_64_GOTPCREL, and vmlinux.lds's assertion
      # fails ("Unexpected GOT entries detected!").
      part2_lto_flags="-fvisibility=hidden"
      outs=$work/out-x86_64 ;;
  esac
  # defconfig: the architecture's defconfig in place of the small configs.
  if [ "$config" = defconfig ]; then
    configs=d
    config_name="$arch defconfig"
  fi
}

# sfx <config>: the suffix of a config's kernels' names (0: none, 1: -pci,
# d: -defconfig).
sfx() {
  case $1 in 0) ;; 1) echo -pci ;; d) echo -defconfig ;; esac
}

# Kconfig symbols one kernel adds to its config (part 2's $part2_syms).
kconfig_extra=

# Loadable modules, in the PCI configs: module support, an initramfs to load
# them from, and the kernel's self-contained test modules (test_static_keys
# uses test_static_key_base's exported static keys: jump tables across
# modules). 6.15 made test_printf and 6.14 test_uuid KUnit suites, so from
# 6.15 on test_memcat_p and math/test_div64 take their places (not
# test-kstrtox: its init returns -EINVAL by design, and insmod fails).
mod_syms="MODULES BLK_DEV_INITRD BINFMT_ELF BINFMT_SCRIPT PROC_FS RUNTIME_TESTING_MENU"
if [ -f "$src/lib/test_printf.c" ] && [ -f "$src/lib/test_uuid.c" ]; then
  mod_tests="TEST_LKM TEST_STATIC_KEYS TEST_PRINTF TEST_UUID TEST_HEXDUMP"
  modules="lib/test_module lib/test_static_key_base lib/test_static_keys lib/test_printf lib/test_uuid lib/test_hexdump"
else
  mod_tests="TEST_LKM TEST_STATIC_KEYS TEST_MEMCAT_P TEST_DIV64 TEST_HEXDUMP"
  modules="lib/test_module lib/test_static_key_base lib/test_static_keys lib/test_memcat_p lib/math/test_div64 lib/test_hexdump"
fi
# Part 2's modules: kbuild's own rule for Kconfig LTO, which links a
# one-file module's bitcode into a native object right after compiling it
# (modpost and objtool read ELF only), given on make's command line as the
# tree defines it: cmd_ld_single_m (scripts/Makefile.build) up to 6.12,
# cmd_ld_single (scripts/Makefile.lib, which also links an object objtool
# is to read) in 7.3.
part2_ld_single=$(sed -n 's/^\(cmd_ld_single\(_m\)\{0,1\}\) = /\1=/p' \
  "$src/scripts/Makefile.build" "$src/scripts/Makefile.lib" | head -1)
[ -n "$part2_ld_single" ] || { echo "run.sh: no cmd_ld_single(_m) in $src/scripts" >&2; exit 1; }
part2_module_args=("$part2_ld_single")

# busybox <deb arch>: Debian's static busybox for the kernel's architecture,
# downloaded (not installed) through a private apt configuration whose deb
# lines are the system's, for that architecture only.
busybox() {
  local d=$work/busybox-$1 a
  if [ ! -x "$d/bin/busybox" ]; then
    rm -rf "$d" && mkdir -p "$d/apt/lists/partial" "$d/apt/parts" "$d/apt/cache/archives/partial" &&
      apt_sources_for "$1" >"$d/apt/sources.list" || return 1
    a=(-o Dir::Etc::sourcelist="$d/apt/sources.list" -o Dir::Etc::sourceparts="$d/apt/parts"
       -o Dir::State::Lists="$d/apt/lists" -o Dir::Cache="$d/apt/cache"
       -o APT::Architecture="$1" -o APT::Architectures::="$1" -o APT::Sandbox::User=root)
    apt-get -q "${a[@]}" update >"$d/apt.log" 2>&1 &&
      (cd "$d" && apt-get "${a[@]}" download busybox-static >>"$d/apt.log" 2>&1) &&
      dpkg-deb -x "$d"/busybox-static_*.deb "$d/pkg" &&
      mkdir -p "$d/bin" &&
      # /bin/busybox up to Debian 12, /usr/bin/busybox from 13 on.
      cp "$(ls "$d"/pkg/bin/busybox "$d"/pkg/usr/bin/busybox 2>/dev/null | head -1)" "$d/bin/busybox" ||
      { echo "run.sh: could not download Debian's busybox-static for $1: see $d/apt.log" >&2; return 1; }
  fi
  echo "$d/bin/busybox"
}

# apt_sources_for <deb arch>: the system's deb lines (one-line or deb822
# format), restricted to <deb arch>.
apt_sources_for() {
  local f one=() deb822=()
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do [ -f "$f" ] && one+=("$f"); done
  for f in /etc/apt/sources.list.d/*.sources; do [ -f "$f" ] && deb822+=("$f"); done
  [ ${#one[@]} -eq 0 ] || sed -n "s/^deb \(\[[^]]*\] \)\{0,1\}/deb [arch=$1] /p" "${one[@]}"
  [ ${#deb822[@]} -eq 0 ] || awk -v arch="$1" '
    function flush(  n, i, s) { if (deb && uri) { n = split(suites, s, " ");
      for (i = 1; i <= n; i++) print "deb [arch=" arch "] " uri " " s[i] " " comps } deb = uri = "" }
    /^Types:/ { deb = ($0 ~ /[ \t]deb([ \t]|$)/) }
    /^URIs:/ { uri = $2 }
    /^Suites:/ { suites = substr($0, 8) }
    /^Components:/ { comps = substr($0, 12) }
    /^[ \t]*$/ { flush() }
    END { flush() }' "${deb822[@]}"
}

make_k() { # make_k <out> <make args...>
  local out=$1; shift
  make -C "$src" O="$out" ARCH="$karch" LLVM="$llvm/" -j"$(nproc)" "$@"
}

# configure <out> <pci:0|1|d> <lto: none|thin|full|dist>
configure() {
  local out=$1 pci=$2 lto=$3 sym want wants=""
  mkdir -p "$out"
  make_k "$out" "$([ "$pci" = d ] && echo defconfig || echo tinyconfig)" >/dev/null
  local c="$src/scripts/config --file $out/.config"
  $c -e PRINTK -e TTY $(for sym in $base_syms; do echo "-e $sym"; done) \
     -e KALLSYMS -e PRINTK_TIME
  wants="CONFIG_$console_sym=y CONFIG_KALLSYMS=y"
  for sym in $kconfig_extra; do $c -e "$sym"; wants="$wants CONFIG_$sym=y"; done
  if [ "$pci" != 0 ]; then
    $c $(for sym in $pci_syms $mod_syms; do echo "-e $sym"; done) \
       $(for sym in $mod_tests; do echo "-m $sym"; done)
    wants="$wants $(for sym in $mod_syms; do echo "CONFIG_$sym=y"; done)"
    wants="$wants $(for sym in $mod_tests; do echo "CONFIG_$sym=m"; done)"
  fi
  $c -d LTO_NONE -d LTO_CLANG_THIN -d LTO_CLANG_FULL -d LTO_CLANG_THIN_DIST
  case $lto in
    none) $c -e LTO_NONE ;;
    thin) $c -e LTO_CLANG_THIN ;;
    full) $c -e LTO_CLANG_FULL ;;
    dist) $c -e LTO_CLANG_THIN_DIST ;;
  esac
  make_k "$out" olddefconfig >/dev/null
  for want in $wants; do
    grep -qx "$want" "$out/.config" || { echo "$out/.config lacks $want" >&2; return 1; }
  done
  case $lto in
    thin) grep -qx CONFIG_LTO_CLANG_THIN=y "$out/.config" ;;
    dist) grep -qx CONFIG_LTO_CLANG_THIN_DIST=y "$out/.config" ;;
    full) grep -qx CONFIG_LTO_CLANG_FULL=y "$out/.config" ;;
    none) grep -qx CONFIG_LTO_NONE=y "$out/.config" ;;
  esac || { echo "$out/.config: Kconfig refused LTO=$lto" >&2; return 1; }
}

has_modules() { grep -qx CONFIG_MODULES=y "$1/.config" 2>/dev/null; }

# build <name> <pci> <lto> <make args...>: configures and builds the boot
# image, recording the build time. A kernel already built with the same
# arguments and the same klto binaries is kept, and a build of them that
# was interrupted (the machine stopped, the script was killed) is resumed
# where make left it, its time then recorded as "resumed" (delete
# <dir>/out* to rebuild all).
build() {
  local name=$1 pci=$2 lto=$3; shift 3
  local out=$outs/$name
  local stamp="$pci $lto $*"
  [ "$pci" = 0 ] || stamp="$stamp modules: $mod_syms $mod_tests"
  [ -z "$kconfig_extra" ] || stamp="$stamp kconfig: $kconfig_extra"
  case "$*" in
    *"$build"*) stamp="$stamp $(cksum <"$plugin") $(cksum <"$klto_ld")" ;;
  esac
  if [ -f "$out/$image" ] && [ "$(cat "$out/build-args" 2>/dev/null)" = "$stamp" ]; then
    echo "$name: up to date"
    return 0
  fi
  local t0=$SECONDS
  if [ "$(cat "$out/build-started" 2>/dev/null)" = "$stamp" ]; then
    echo "$name: resuming an interrupted build"
    t0=resumed
  else
    rm -rf "$out"
    configure "$out" "$pci" "$lto"
    echo "$stamp" >"$out/build-started"
  fi
  if ! make_k "$out" "$@" "$image_target" $(has_modules "$out" && echo modules) >>"$out/build.log" 2>&1; then
    echo "$name: build failed, see $out/build.log" >&2
    tail -20 "$out/build.log" >&2
    return 1
  fi
  if [ "$t0" = resumed ]; then echo resumed; else echo "$((SECONDS - t0)) s"; fi >"$out/build-time"
  echo "$stamp" >"$out/build-args"
}

# boot <name>: boots under QEMU until the root-mount panic (or, with
# modules, until the initramfs's init has loaded them and exits), keeps the
# log and, with modules, what they did (modules.txt).
boot() {
  local out=$outs/$1 initrd=() bb
  if has_modules "$out"; then
    bb=$(busybox "$deb_arch")
    python3 "$here/modules.py" initramfs "$out/initramfs.cpio" "$bb" \
      $(for m in $modules; do echo "$out/$m.ko"; done)
    initrd=(-initrd "$out/initramfs.cpio")
  fi
  # defconfig: a kernel four times the size, and many more initcalls, to
  # emulate (no KVM).
  local secs=120 mem=256
  [ "$config" = defconfig ] && secs=900 mem=512
  timeout $secs $qemu -m $mem -nographic -no-reboot -kernel "$out/$image" "${initrd[@]}" \
    -append "console=$console initcall_debug loglevel=8 panic=-1${boot_args:+ $boot_args}" \
    >"$out/boot.log" 2>&1 || true
  if has_modules "$out"; then
    python3 "$here/modules.py" bootlog "$out/boot.log" >"$out/modules.txt" || true
  fi
}

# module_rows: Markdown rows of every kernel's module sections, logged after
# its config's table.
module_rows=()

# check <name> <reference name>: compares the boot log and the tables.
check() {
  local out=$outs/$1 ref=$outs/$2 ok=0
  # Stubs may have swallowed their function: read their names with the
  # reference's function names.
  python3 "$here/kernel_tables.py" bootlog "$out/boot.log" --linux "$kver" --known "$ref/vmlinux" >"$out/initcalls.txt"
  python3 "$here/kernel_tables.py" tables "$out/vmlinux" --linux "$kver" --known "$ref/vmlinux" >"$out/tables.txt"
  local n_run n_tab n_fix
  n_run=$(grep -c . "$out/initcalls.txt" || true)
  n_tab=$(grep -c '^initcall' "$out/tables.txt" || true)
  n_fix=$(grep -c '^pci_fixup' "$out/tables.txt" || true)
  local verdict="same as reference"
  if ! python3 "$here/kernel_tables.py" compare "$ref/initcalls.txt" "$out/initcalls.txt" >"$out/compare.txt" 2>&1 ||
     ! python3 "$here/kernel_tables.py" compare "$ref/tables.txt" "$out/tables.txt" >>"$out/compare.txt" 2>&1 ||
     ! check_modules "$1" "$2" >>"$out/compare.txt" 2>&1; then
    verdict="DIFFERENT: $(grep -v 'entries match$' "$out/compare.txt" | head -1)"
    ok=1
  fi
  log "| $1 | $(cat "$out/build-time") | $n_run | $n_tab | $n_fix | $(n_loaded "$out") | $verdict |"
  return $ok
}

n_loaded() {
  if [ -f "$1/modules.txt" ]; then grep -c '^loaded ' "$1/modules.txt" || true; else echo -; fi
}

# check_modules <name> <reference name>: what the modules printed and the
# module list match the reference's, and no split section that
# module.lds.S merges under LTO is left in a .ko. Kernels without modules
# (the small configs, and arm64's perturbed copy of one) pass.
check_modules() {
  local out=$outs/$1 ref=$outs/$2
  [ -f "$out/modules.txt" ] || return 0
  python3 "$here/kernel_tables.py" compare "$ref/modules.txt" "$out/modules.txt" &&
    module_sections "$1" --none-left
}

# module_sections <name> [--none-left]: the kernel's module rows, in
# <out>/module-sections.md and kept for the table; --none-left fails if a
# .ko keeps a split section (modules.py).
module_sections() {
  local row ok=0
  python3 "$here/modules.py" sections "${@:2}" "$outs/$1" $modules \
    >"$outs/$1/module-sections.md" || ok=1
  while IFS= read -r row; do module_rows+=("| $1 $row"); done <"$outs/$1/module-sections.md"
  return $ok
}

# log_module_rows: the module-sections table of the kernels checked so far.
log_module_rows() {
  [ ${#module_rows[@]} -gt 0 ] || return 0
  log ""
  log "| kernel | module | sections in .o | sections in .ko | split .data/.rodata/.bss left in .ko |"
  log "|---|---|---|---|---|"
  local row
  for row in "${module_rows[@]}"; do log "$row"; done
  module_rows=()
}

failures=0
expect_same() { check "$@" || failures=$((failures + 1)); }
expect_different() {
  if check "$@"; then
    log "  ^ expected a difference here: the check cannot fail"
    failures=$((failures + 1))
  fi
}

# perturbed_image <from> <to> <from's make args...>: <to>'s boot image
# made from its vmlinux (already written), the rest taken from kernel <from>.
perturbed_image() {
  local from=$outs/$1 to=$outs/$2; shift 2
  case $arch in
    arm64)
      # The way arm64's boot Makefile makes Image.
      mkdir -p "$to/arch/arm64/boot"
      $llvm/llvm-objcopy -O binary -R .note -R .note.gnu.build-id -R .comment -S \
        "$to/vmlinux" "$to/$image" ;;
    x86_64)
      # bzImage is vmlinux compressed behind the decompressor and the
      # setup code: the kernel's own make redoes those steps (45 s here)
      # in <from>'s tree with <to>'s vmlinux put in place, with <from>'s
      # make arguments, so nothing else is rebuilt; then again with
      # <from>'s own vmlinux, which gives back its bzImage byte for byte.
      # (A copy of the tree does not do: objtool, built with absolute
      # paths, and everything after it would be rebuilt.)
      local ok=0
      cp -p "$from/vmlinux" "$to/vmlinux.from"
      cp "$to/vmlinux" "$from/vmlinux"
      if make_k "$from" "$@" "$image_target" >"$to/build.log" 2>&1 &&
         cmp -s "$to/vmlinux" "$from/vmlinux"; then
        mkdir -p "$(dirname "$to/$image")"
        cp "$from/$image" "$to/$image"
      else
        echo "perturbed: make $image_target failed or relinked vmlinux, see $to/build.log" >&2
        ok=1
      fi
      cp "$to/vmlinux.from" "$from/vmlinux"
      rm "$to/vmlinux.from"
      make_k "$from" "$@" "$image_target" >>"$to/build.log" 2>&1 || ok=1
      return $ok ;;
  esac
}

# run_config <pci>: the reference and the LTO kernels of one config.
run_config() {
  local pci=$1 sfx lto flag
  sfx=$(sfx "$pci")
  log ""
  log "### config: Linux $kver ($(cat "$src/.klto-debian-package" 2>/dev/null || echo "$src")), $config_name$([ "$pci" = 1 ] && echo " + ${pci_syms// /, }")$([ "$pci" = 0 ] || echo ", modules")"
  log ""
  log "| kernel | build | initcalls run | initcall entries | PCI fixups | modules loaded | result |"
  log "|---|---|---|---|---|---|---|"
  build ref$sfx $pci none
  boot ref$sfx
  python3 "$here/kernel_tables.py" bootlog "$outs/ref$sfx/boot.log" --linux "$kver" >"$outs/ref$sfx/initcalls.txt"
  python3 "$here/kernel_tables.py" tables "$outs/ref$sfx/vmlinux" --linux "$kver" >"$outs/ref$sfx/tables.txt"
  [ -s "$outs/ref$sfx/initcalls.txt" ] || { echo "reference kernel ran no initcalls: see $outs/ref$sfx/boot.log" >&2; exit 1; }
  if has_modules "$outs/ref$sfx"; then
    [ "$(grep -c '^insmod .*: ok$' "$outs/ref$sfx/modules.txt")" = "$(wc -w <<<"$modules")" ] ||
      { echo "the reference kernel did not load every module: see $outs/ref$sfx/boot.log" >&2; exit 1; }
    module_sections ref$sfx
  fi
  log "| ref$sfx (no LTO, stock tools) | $(cat "$outs/ref$sfx/build-time") | $(wc -l <"$outs/ref$sfx/initcalls.txt") | $(grep -c '^initcall' "$outs/ref$sfx/tables.txt") | $(grep -c '^pci_fixup' "$outs/ref$sfx/tables.txt" || true) | $(n_loaded "$outs/ref$sfx") | reference |"

  if [ "$part" = 1 ] || [ "$part" = all ]; then
    # Part 1: the kernel's own LTO, its ordering script replaced by klto.
    for lto in $lto_modes; do
      build "$lto$sfx" $pci $lto "${part1_args[@]}"
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
    local extra=()
    [ "$pci" = 0 ] || extra+=("${part2_module_args[@]}")
    kconfig_extra=$part2_syms
    for lto in thin full; do
      flag="$([ $lto = thin ] && echo -flto=thin || echo -flto)${part2_lto_flags:+ $part2_lto_flags}"
      build "nomacros-$lto$sfx" $pci none CC_FLAGS_LTO="$flag" \
        KCFLAGS="$flag -fplugin=$plugin" \
        LD="$klto_ld --kinit-order --kmerge-sections --kused-symbol=main_extable_sort_needed" \
        "${extra[@]}"
      boot "nomacros-$lto$sfx"
      expect_same "nomacros-$lto$sfx" "ref$sfx"
    done
    kconfig_extra=
  fi
  log_module_rows
}

# negative_checks: kernels that must differ from the reference, built with
# the arch's first config.
negative_checks() {
  local pci sfx
  pci=${configs%% *}
  sfx=$(sfx "$pci")
  log ""
  log "### the check can fail"
  log ""
  log "| kernel | build | initcalls run | initcall entries | PCI fixups | modules loaded | result |"
  log "|---|---|---|---|---|---|---|"
  # LTO with the plugin but no ordering at all: the entries' own sections
  # are orphans outside the tables.
  build unordered $pci thin KCFLAGS="-fplugin=$plugin" LD="$klto_ld" initcalls-lds=
  boot unordered
  expect_different unordered ref$sfx
  # The part-1 ThinLTO kernel with two level-6 initcalls swapped in its
  # table, made into a boot image the way the kernel's boot Makefile does:
  # it boots and runs them swapped, so both the log and the table must
  # differ.
  rm -rf "$outs/perturbed"
  mkdir -p "$outs/perturbed"
  python3 "$here/kernel_tables.py" perturb "$outs/thin$sfx/vmlinux" "$outs/perturbed/vmlinux"
  perturbed_image thin$sfx perturbed "${part1_args[@]}"
  cp "$outs/thin$sfx/build-time" "$outs/perturbed/"
  # It boots with the modules of the kernel it was made from, so that the
  # swap is the only difference (without them the module inits are
  # missing from its log too).
  if has_modules "$outs/thin$sfx"; then
    cp "$outs/thin$sfx/.config" "$outs/perturbed/"
    local m
    for m in $modules; do
      mkdir -p "$outs/perturbed/$(dirname "$m")"
      cp "$outs/thin$sfx/$m.ko" "$outs/perturbed/$m.ko"
    done
  fi
  boot perturbed
  expect_different perturbed ref$sfx
  log_module_rows
}

# Part 1's make arguments: the kernel's own LTO, the plugin, klto's linker
# ordering the tables in place of the kernel's script.
part1_args=(KCFLAGS="-fplugin=$plugin" LD="$klto_ld --kinit-order" initcalls-lds=)

for a in $arches; do
  arch_vars "$a"
  for pci in $configs; do
    run_config "$pci"
  done
  if [ "$part" = 1 ] || [ "$part" = all ]; then
    [ "$config" = defconfig ] || negative_checks
    first=${configs%% *}
    if [ -f "$outs/thin$(sfx "$first")/vmlinux" ]; then
      log ""
      log "### vmlinux.o link: the kernel's ordering script against klto (thin$(sfx "$first"))"
      log ""
      "$root/bench/kernel/vmlinux_o.sh" "$outs/thin$(sfx "$first")" "$build" 1 | tee -a "$summary"
      # Its last line compares the two vmlinux.o: a difference is klto's.
      if tail -n 1 "$summary" | grep -q ' vmlinux.o: NO '; then
        echo "vmlinux.o: klto's initcall entries are not in the Perl script's order" >&2
        failures=$((failures + 1))
      fi
    fi
  fi
done

log ""
log "failures: $failures"
exit $((failures > 0))
