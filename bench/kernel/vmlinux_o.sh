#!/bin/bash
# vmlinux_o.sh - the vmlinux.o link of a Linux CONFIG_LTO_CLANG build, with
# the kernel's own ordering (scripts/generate_initcall_order.pl, one llvm-nm
# per file it is given, here as in kbuild vmlinux.a: one llvm-nm over every
# member; writing .tmp_initcalls.lds, then stock ld.lld -r -T it)
# against klto's ld.lld -r --kinit-order, side by side, in one run.
#
#   bench/kernel/vmlinux_o.sh <kernel build dir> <klto build dir> [rounds]
#
# The build dir is one test/kernel/run.sh made (its .vmlinux.o.cmd names
# the inputs). Prints a Markdown table: ordering alone, and the whole link
# (which includes LTO code generation), min and median of the rounds, in
# wall time and in CPU time (user + system, the Perl script's llvm-nm
# processes and LLD's threads included: on a shared machine the wall time
# is mostly waiting), and whether the two vmlinux.o have their initcall
# entries in the same order.
set -euo pipefail
# shellcheck source=bench/kernel/lib.sh
. "$(dirname "$0")/lib.sh"
out=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
rounds=${3:-3}
# The LLVM klto was built for (the build's llvm.env): its ld.lld and llvm-nm.
# shellcheck source=/dev/null
. "$build/llvm.env"
llvm=$KLTO_LLVM_BINDIR
src=$(kernel_source "$out")
perl_script=$src/scripts/generate_initcall_order.pl
[ -f "$perl_script" ] || { echo "vmlinux_o.sh: cannot find the kernel source of $out" >&2; exit 1; }
cd "$out"
cmd=$(vmlinux_o_cmd .)
inputs=$(vmlinux_o_inputs .)
case $cmd in
  *elf_x86_64*) flags="-m elf_x86_64 -z noexecstack" ;;
  *) flags="-EL -maarch64elf -z norelro -z noexecstack" ;;
esac
archives=$(echo "$inputs" | tr ' ' '\n' | grep '\.a$')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for r in $(seq "$rounds"); do
  secs env NM=$llvm/llvm-nm objtree=. perl "$perl_script" $archives >>"$tmp/perl.t" \
    || { echo "the Perl script failed" >&2; exit 1; }
  NM=$llvm/llvm-nm objtree=. perl "$perl_script" $archives >"$tmp/initcalls.lds"
  # klto's scan and order alone: --kinit-order-map, stopped by --version.
  secs "$build/bin/ld.lld" --kinit-order --kinit-order-map="$tmp/map" -r $inputs --version >>"$tmp/scan.t"
  secs $llvm/ld.lld $flags -r -o "$tmp/stock.o" -T "$tmp/initcalls.lds" $inputs >>"$tmp/stock.t"
  secs "$build/bin/ld.lld" --kinit-order $flags -r -o "$tmp/klto.o" $inputs >>"$tmp/klto.t"
done

# Entries in layout order: by section name (the table), section index,
# then offset, so a merged table and klto's renamed sections compare alike.
order() {
  python3 - "$1" "$llvm" <<'PY'
import subprocess, sys
out = subprocess.run([sys.argv[2] + "/llvm-readelf", "-SsW", sys.argv[1]],
                     capture_output=True, text=True, check=True).stdout
names, syms = {}, []
for line in out.splitlines():
    f = line.replace("[ ", "[").split()
    if f and f[0].startswith("[") and f[0].endswith("]") and len(f) > 2:
        names[f[0][1:-1]] = f[1]
    elif len(f) == 8 and f[7].startswith("__initcall__") and f[6].isdigit():
        syms.append((names.get(f[6], ""), int(f[6]), int(f[1], 16), f[7]))
for s in sorted(syms):
    print(s[0], s[3])
PY
}
order "$tmp/stock.o" >"$tmp/stock.order"
order "$tmp/klto.o" >"$tmp/klto.order"
same=$(cmp -s "$tmp/stock.order" "$tmp/klto.order" && echo yes || echo NO)
n=$(wc -l <"$tmp/klto.order")
paste "$tmp/perl.t" "$tmp/stock.t" | awk '{print $1 + $3, $2 + $4}' >"$tmp/total.t"

echo "| step (seconds, min / median of $rounds) | kernel's Perl script + linker script: wall | CPU | klto \`--kinit-order\`: wall | CPU |"
echo "|---|---|---|---|---|"
for row in "ordering only:perl:scan" "vmlinux.o link (LTO code generation included):stock:klto" "both:total:klto"; do
  IFS=: read -r what a b <<<"$row"
  echo "| $what | $(stats 1 <"$tmp/$a.t") | $(stats 2 <"$tmp/$a.t") | $(stats 1 <"$tmp/$b.t") | $(stats 2 <"$tmp/$b.t") |"
done
echo
echo "Initcall entries in the same order in both vmlinux.o: $same ($n entries)."
