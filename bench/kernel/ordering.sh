#!/bin/bash
# ordering.sh - the ordering step of a Linux CONFIG_LTO_CLANG vmlinux.o
# link on its own, the kernel's against klto's, and what bounds klto's.
#
#   bench/kernel/ordering.sh <kernel build dir> <klto build dir> [rounds] [--instructions]
#
# Times, taking turns, min and median of the rounds, wall and CPU (user +
# system, children included):
#   perl    the kernel's ordering: NM=llvm-nm scripts/generate_initcall_order.pl
#           over the archives of kbuild's vmlinux.o command
#   klto    klto's scan and order alone: ld.lld --kinit-order
#           --kinit-order-map=... -r <the same inputs> --version
#   start   klto's ld.lld --version: the process start every link pays
#   members opening each member of the thin archives and reading its
#           first 4 KiB (open_members.c): the least a scan of them can do
# and prints a Markdown table with the ratio perl / klto. --instructions
# adds instruction counts (valgrind's callgrind) of klto and of the Perl
# script's llvm-nm (that one takes minutes).
set -euo pipefail
# shellcheck source=bench/kernel/lib.sh
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
out=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
rounds=${3:-5}
instructions=${4:-}
# shellcheck source=/dev/null
. "$build/llvm.env"
llvm=$KLTO_LLVM_BINDIR
perl_script=$(kernel_source "$out")/scripts/generate_initcall_order.pl
[ -f "$perl_script" ] || { echo "ordering.sh: cannot find the kernel source of $out" >&2; exit 1; }
cd "$out"
read -ra inputs <<<"$(vmlinux_o_inputs .)"
mapfile -t archives < <(printf '%s\n' "${inputs[@]}" | grep '\.a$')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/open_members" "$here/open_members.c"
for a in "${archives[@]}"; do "$llvm/llvm-ar" t "$a"; done >"$tmp/members"

perl_cmd=(env NM="$llvm/llvm-nm" objtree=. perl "$perl_script" "${archives[@]}")
klto_cmd=("$build/bin/ld.lld" --kinit-order --kinit-order-map="$tmp/map" -r "${inputs[@]}" --version)
for _ in $(seq "$rounds"); do
  secs "${perl_cmd[@]}" >>"$tmp/perl.t" || { echo "the Perl script failed" >&2; exit 1; }
  secs "${klto_cmd[@]}" >>"$tmp/klto.t"
  secs "$build/bin/ld.lld" --version >>"$tmp/start.t"
  secs sh -c "exec '$tmp/open_members' <'$tmp/members'" >>"$tmp/members.t"
done

echo "$(wc -l <"$tmp/members") archive members, $(grep -c . "$tmp/map" || true) lines of klto's order map."
echo
echo "| step (seconds, min / median of $rounds) | wall | CPU |"
echo "|---|---|---|"
for row in "kernel's Perl script + llvm-nm:perl" "klto --kinit-order, scan and order:klto" \
           "klto's ld.lld --version (process start):start" "open and read 4 KiB of each member:members"; do
  IFS=: read -r what f <<<"$row"
  echo "| $what | $(stats 1 <"$tmp/$f.t") | $(stats 2 <"$tmp/$f.t") |"
done
echo
awk -v pw="$(median 1 <"$tmp/perl.t")" -v pc="$(median 2 <"$tmp/perl.t")" \
    -v kw="$(median 1 <"$tmp/klto.t")" -v kc="$(median 2 <"$tmp/klto.t")" \
    'BEGIN {printf "Perl / klto, medians: %.0fx wall, %.0fx CPU; 1/100 of the Perl script: %.3f s wall, %.3f s CPU.\n", pw / kw, pc / kc, pw / 100, pc / 100}'

if [ "$instructions" = --instructions ]; then
  # count <cmd...>: instructions of one process (callgrind). The Perl
  # script's own instructions are left out: callgrind's file of a child
  # Perl forks holds the parent's counts too. Its llvm-nm, one process over
  # the archives, is most of its cost.
  count() {
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$@" >/dev/null 2>&1
    awk '/^summary:/ {print $2}' "$tmp/cg.out"
  }
  ni=$(count "$llvm/llvm-nm" --defined-only "${archives[@]}")
  ki=$(count "${klto_cmd[@]}")
  si=$(count "$build/bin/ld.lld" --version)
  awk -v n="$ni" -v k="$ki" -v s="$si" 'BEGIN {
    printf "\nInstructions (callgrind): the Perl script'"'"'s llvm-nm %.0f M; klto %.1f M (%.0fx fewer), of which process start %.1f M.\n", n / 1e6, k / 1e6, n / k, s / 1e6 }'
fi
