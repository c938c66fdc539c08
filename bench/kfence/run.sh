#!/bin/sh
# KFENCE runtime benchmarks: allocation throughput next to glibc and scudo
# (GWP-ASan off and on), the cost of one guarded allocation, memory, and the
# detection rate of a one-off use-after-free against the sampling theory.
#
#   bench/kfence/run.sh [BUILD_DIR]     (default: build; needs ninja there)
#
# Environment: ROUNDS (churn rounds, default 8), OPS (pairs per round,
# default 5000000), LAYOUTS (code layouts the churn rounds rotate through,
# default 8), PROCS (processes per detection rate, default 400), CONFIGS
# (churn configurations, default all eight), ONLY=churn (stop after the
# churn table and the instruction counts, e.g. for a long glibc-against-klto
# comparison), CPU (a taskset CPU list the timed churn runs are pinned to:
# on a VM whose vCPUs run at different speeds, pairs that land on different
# ones add that difference to the spread).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
# The LLVM klto was built for (the build's llvm.env): its clang, ld.lld and
# scudo.
# shellcheck source=/dev/null
. "$build/llvm.env"
clang=$KLTO_LLVM_BINDIR/clang
scudo=$("$clang" -print-file-name=libclang_rt.scudo_standalone-x86_64.so)
rounds=${ROUNDS:-8}
layouts=${LAYOUTS:-8}
ops=${OPS:-5000000}
procs=${PROCS:-400}
out=$build/bench/kfence
mkdir -p "$out"

# Each program is built $layouts times, its code shifted by 16 bytes more
# each time (BENCH_CODE_OFFSET, see malloc_bench.c): the same code runs up to
# 2% faster or slower depending on where its loops fall, so one build of
# each would compare layouts as much as allocators. Layout 0 is the
# ordinary build, used by everything after the churn table.
# "hooks": as the plugin builds programs (inline fast paths for malloc and
# free reaching the runtime's variables through the GOT, LLD links
# libkfence-hooks.so); "hooks-static": with kfence-runtime=static
# (libkfence.a linked in, the variables addressed directly); "hooks-call":
# every call through the out-of-line hooks.
for l in $(seq 0 $((layouts - 1))); do
  shift_code="-DBENCH_CODE_OFFSET=$((16 * l))"
  $clang -O2 -g $shift_code "$here/malloc_bench.c" -o "$out/plain.$l"
  $clang -O2 -g $shift_code -fplugin="$build/lib/kltoplugin.so" \
    -fplugin-arg-klto-kfence --ld-path="$KLTO_LLVM_BINDIR/ld.lld" \
    -L"$build/lib" "$here/malloc_bench.c" -lpthread -o "$out/hooks.$l"
  $clang -O2 -g $shift_code -fplugin="$build/lib/kltoplugin.so" \
    -fplugin-arg-klto-kfence-runtime=static --ld-path="$KLTO_LLVM_BINDIR/ld.lld" \
    "$here/malloc_bench.c" -lpthread -o "$out/hooks-static.$l"
  $clang -O2 -g $shift_code -DKLTO_HOOKS -I"$here/../../runtime/kfence/include" \
    "$here/malloc_bench.c" "$build/lib/libkfence.a" -lpthread -o "$out/hooks-call.$l"
done
ln -sf plain.0 "$out/plain"
ln -sf hooks.0 "$out/hooks"

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

# Runs configuration $1, layout $2, as `PROGRAM churn $churn_args`; the
# words after $2 go in front of PROGRAM (a tool such as valgrind).
run_config() {
  local c=$1 l=$2
  shift 2
  case $c in
  glibc) "$@" "$out/plain.$l" churn $churn_args ;;
  klto-off) KFENCE_OPTIONS=sample_interval=0:sample_rate=0 "$@" "$out/hooks.$l" churn $churn_args ;;
  klto-default) env -u KFENCE_OPTIONS "$@" "$out/hooks.$l" churn $churn_args ;;
  klto-static) env -u KFENCE_OPTIONS "$@" "$out/hooks-static.$l" churn $churn_args ;;
  klto-call) env -u KFENCE_OPTIONS "$@" "$out/hooks-call.$l" churn $churn_args ;;
  klto-preload) env -u KFENCE_OPTIONS LD_PRELOAD="$build/lib/libkfence.so" "$@" "$out/plain.$l" churn $churn_args ;;
  scudo) LD_PRELOAD=$scudo SCUDO_OPTIONS=GWP_ASAN_Enabled=false "$@" "$out/plain.$l" churn $churn_args ;;
  scudo-gwp) LD_PRELOAD=$scudo SCUDO_OPTIONS=GWP_ASAN_Enabled=true "$@" "$out/plain.$l" churn $churn_args ;;
  esac
}

# One churn figure (ns per malloc+free) for configuration $1, layout $2.
churn() {
  churn_args=$ops
  run_config "$1" "$2" ${CPU:+taskset -c "$CPU"} | awk '{print $2}'
}

configs=${CONFIGS:-glibc klto-off klto-default klto-static klto-call klto-preload scudo scudo-gwp}
echo "== churn: $rounds rounds of $ops malloc+free pairs, 1024 live, 16..4096 B (interleaved; round r runs layout r mod $layouts)"
for r in $(seq 0 $((rounds - 1))); do
  for c in $(printf '%s\n' $configs | shuf); do
    echo "$r $c $(churn "$c" $((r % layouts)))"
  done
done >"$out/churn.txt"
base=$(awk '$2 == "glibc" {print $3}' "$out/churn.txt" | median)
for c in $configs; do
  m=$(awk -v c="$c" '$2 == c {print $3}' "$out/churn.txt" | median)
  awk -v c="$c" -v m="$m" -v b="$base" \
    'BEGIN {printf "%-13s median %6.2f ns/pair  %+6.2f%% vs glibc\n", c, m, (m / b - 1) * 100}'
done
# The same comparison round by round (paired.py): each configuration ran in
# the same round as glibc, in random order and the same layout, so the
# ratio of the two cancels the machine's drift; the mean of the ratios is
# the cost averaged over layouts.
python3 "$here/paired.py" "$out/churn.txt" glibc $configs

# Instructions are what the fast paths add, counted exactly (callgrind
# counts them whatever else the machine does, unlike the times above): the
# difference between runs of 2N and N pairs, so start-up and exit cancel.
if command -v valgrind >/dev/null; then
  echo "== instructions per malloc+free pair (callgrind, runs of 1 M and 500 k pairs)"
  # Instructions of configuration $1 (layout 0) for $2 pairs, no warm-up.
  instructions() {
    churn_args="$2 0"
    run_config "$1" 0 valgrind --tool=callgrind --callgrind-out-file=/dev/null 2>&1 >/dev/null |
      sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
  }
  per_pair() {
    awk -v a="$(instructions "$1" 1000000)" -v b="$(instructions "$1" 500000)" \
      'BEGIN {printf "%.1f", (a - b) / 500000}'
  }
  g=$(per_pair glibc)
  for c in $configs; do
    case $c in
    # scudo: Debian 12's valgrind does not count a program it is preloaded
    # into. klto-preload is counted (valgrind passes LD_PRELOAD on).
    scudo*) continue ;;
    esac
    n=$(per_pair "$c")
    awk -v c="$c" -v n="$n" -v g="$g" \
      'BEGIN {printf "%-13s %6.1f instructions per pair  %+5.1f vs glibc (%+.1f%%)\n", c, n, n - g, (n / g - 1) * 100}'
  done
fi
[ "${ONLY:-}" = churn ] && exit 0

# Whole processes, start-up and exit included: CPU time (user + system,
# from getrusage) of the plain and the hooks binary, interleaved; a long
# run (the churn above) and a short one, where start-up weighs most.
echo "== whole process: CPU ms, median of $rounds interleaved runs each"
python3 - "$out" "$ops" "$rounds" <<'PY'
import os, resource, statistics, subprocess, sys
out, ops, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
env = {k: v for k, v in os.environ.items() if k != "KFENCE_OPTIONS"}
def cpu_ms(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return 1000 * (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
# No warm-up (churn's third argument): KFENCE's pool setup counts here.
for label, n in (("churn " + ops, ops), ("short, churn 20000", "20000")):
    t = {"glibc": [], "klto default": []}
    for _ in range(rounds):
        t["glibc"].append(cpu_ms([out + "/plain", "churn", n, "0"]))
        t["klto default"].append(cpu_ms([out + "/hooks", "churn", n, "0"]))
    g, k = statistics.median(t["glibc"]), statistics.median(t["klto default"])
    print(f"{label:20} glibc {g:8.2f} ms  klto {k:8.2f} ms  {100 * (k / g - 1):+6.2f}%")
PY

echo "== one guarded malloc+free (sample_rate=1), median of 5 runs of 200000"
for r in 1 2 3 4 5; do
  KFENCE_OPTIONS=sample_rate=1:sample_interval=0 "$out/hooks" guarded | awk '{print $2}'
done | median | awk '{printf "klto          %s ns\n", $1}'
for r in 1 2 3 4 5; do
  LD_PRELOAD=$scudo SCUDO_OPTIONS=GWP_ASAN_Enabled=true:GWP_ASAN_SampleRate=1 \
    "$out/plain" guarded | awk '{print $2}'
done | median | awk '{printf "scudo GWP-ASan %s ns\n", $1}'

echo "== memory (default pool, 255 objects)"
echo "KFENCE off:"
KFENCE_OPTIONS=sample_interval=0:sample_rate=0 "$out/hooks" memory
echo "KFENCE on, every allocation guarded:"
KFENCE_OPTIONS=sample_rate=1 "$out/hooks" memory

echo "== detection of one use-after-free after 1000 allocations, $procs processes per rate"
for rate in 4 10 50; do
  hits=0
  for p in $(seq "$procs"); do
    if KFENCE_OPTIONS=sample_interval=0:sample_rate=$rate "$out/hooks" uaf 1000 2>&1 |
      grep -q 'BUG: KFENCE: use-after-free'; then
      hits=$((hits + 1))
    fi
  done
  # Theory: every allocation is guarded with probability 1/rate (the first
  # countdown of a thread is drawn from the stationary distribution).
  awk -v h="$hits" -v n="$procs" -v r="$rate" 'BEGIN {
    p = h / n; z = 1.959964; d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    w = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    printf "sample_rate=%-3d detected %3d/%d = %5.1f%%  95%% Wilson CI [%5.1f%%, %5.1f%%]  theory %5.1f%%  %s\n",
      r, h, n, 100 * p, 100 * (c - w), 100 * (c + w), 100 / r,
      (1 / r >= c - w && 1 / r <= c + w) ? "(theory inside)" : "(theory OUTSIDE)"
  }'
done
