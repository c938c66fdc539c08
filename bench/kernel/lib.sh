# shellcheck shell=bash
# lib.sh - what the kernel benchmarks share, sourced by them.

# vmlinux_o_cmd <kernel build dir>: kbuild's vmlinux.o command, from
# .vmlinux.o.cmd (6.3 on names it savedcmd_vmlinux.o; on x86_64 objtool
# follows the link, after a ";").
vmlinux_o_cmd() {
  sed -n 's/^\(saved\)\{0,1\}cmd_vmlinux.o := //p' "$1/.vmlinux.o.cmd"
}
# vmlinux_o_inputs <kernel build dir>: the inputs of that link
# ("--whole-archive vmlinux.a ... --end-group"), its linker script left out.
vmlinux_o_inputs() {
  vmlinux_o_cmd "$1" | sed -n 's/^.* -r -o vmlinux.o *\([^;]*\).*$/\1/p' | sed 's/-T [^ ]*//'
}

# kernel_source <kernel build dir>: the source tree kbuild built it from.
kernel_source() {
  sed -n 's/^include \(.*\)\/Makefile$/\1/p' "$1/Makefile"
}

# secs <cmd...>: "<wall> <cpu>" seconds of the command and its children.
secs() {
  local TIMEFORMAT='%R %U %S' t
  t=$( { time "$@" >/dev/null 2>&1; } 2>&1 ) || return 1
  echo "$t" | awk '{printf "%.3f %.3f\n", $1, $2 + $3}'
}

# sorted_column <n>: column n of secs lines (1: wall, 2: CPU), sorted.
sorted_column() { awk -v c="$1" '{print $c}' | sort -n; }
# stats <n>: min / median of column n.
stats() { sorted_column "$1" | awk '{a[NR]=$1} END {printf "%.3f / %.3f", a[1], a[int((NR+1)/2)]}'; }
# median <n>: the median of column n.
median() { sorted_column "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
