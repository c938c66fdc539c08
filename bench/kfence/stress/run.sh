#!/bin/sh
# The stress suite's long form. First test/kfence/stress/ as `check` runs
# it, but each stressor for DURATION seconds instead of 2 (lit --param
# stress_duration): lit builds every program, runs both builds, and prints
# PASS, XFAIL (a known bug, named in the test) or FAIL per test; every
# stressor's one-line summary is collected. Then the plain builds lit made
# run RUNS times each under libkfence.so, scudo with GWP-ASan on every
# allocation, scudo alone and glibc alone, and the table says in how many
# runs each ended well, hung (killed at its timeout), crashed or failed its
# own checks.
#
#   bench/kfence/stress/run.sh [BUILD_DIR]   (default: build)
#
# BUILD_DIR needs kltoplugin, kfence, kfence_shared and kfence_hooks_shared
# built. Environment: DURATION (seconds per stressor run in the lit pass,
# default 60), RUNS (runs per allocator and stressor in the comparison,
# default 10), CMP_DURATION (seconds per comparison run, default 2),
# ONLY=lit or ONLY=compare (one half). Everything printed is also in
# BUILD_DIR/bench/kfence/stress/: lit.txt, summary.txt (the summary
# lines), compare.txt (each comparison run's status and summary).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
build=$(cd "${1:-build}" && pwd)
duration=${DURATION:-60}
runs=${RUNS:-10}
cmp_duration=${CMP_DURATION:-2}
only=${ONLY:-}
# The lit CMake found and scudo of the LLVM klto was built for.
lit=$(sed -n 's/^KLTO_LIT:FILEPATH=//p' "$build/CMakeCache.txt")
# shellcheck source=/dev/null
. "$build/llvm.env"
scudo=$("$KLTO_LLVM_BINDIR/clang" -print-file-name=libclang_rt.scudo_standalone-x86_64.so)
for f in "$lit" "$scudo"; do
  [ -e "$f" ] || { echo "run.sh: ${f:-lit (KLTO_LIT in $build/CMakeCache.txt)} is missing" >&2; exit 1; }
done
out=$build/bench/kfence/stress
bin=$build/test/kfence/stress/Output
mkdir -p "$out"

if [ "$only" != compare ]; then
  : > "$out/summary.txt"
  echo "== lit, $duration s per stressor run"
  python3 "$lit" -v --param stress_duration="$duration" \
    --param stress_summary="$out/summary.txt" "$build/test/kfence/stress" \
    > "$out/lit.txt" 2>&1 || true
  grep -E '^(PASS|FAIL|XFAIL|XPASS|UNSUPPORTED|UNRESOLVED): ' "$out/lit.txt"
  echo
  echo "== summaries"
  cat "$out/summary.txt"
fi
[ "$only" = lit ] && exit 0

# A stressor as the comparison runs it: name, then the command after the
# program's path ($bin/NAME.tmp.plain). Planted bugs need KFENCE's API, so
# under the other allocators the stressors plant nothing.
stressors='threads.c 16
fork.c storm 8
signal.c own
signal.c keep
cancel.c alloc
segv.c
bad-alloc.cpp'

# Runs one comparison: allocator $1, program $2, arguments after.
# Prints ok, hang, crash or fail.
run_under() {
  alloc=$1
  shift
  set -- env STRESS_DURATION="$cmp_duration" STRESS_SUMMARY="$out/summary.txt" \
    timeout -k 5 $((cmp_duration * 2 + 10)) "$@"
  case $alloc in
  kfence) env KFENCE_OPTIONS=sample_rate=1 LD_PRELOAD="$build/lib/libkfence.so" "$@" ;;
  scudo+gwp) env SCUDO_OPTIONS=GWP_ASAN_Enabled=true:GWP_ASAN_SampleRate=1 LD_PRELOAD="$scudo" "$@" ;;
  scudo) env SCUDO_OPTIONS=GWP_ASAN_Enabled=false LD_PRELOAD="$scudo" "$@" ;;
  glibc) "$@" ;;
  esac > "$out/run.out" 2> "$out/run.err" && status=0 || status=$?
  case $status in
  0) echo ok ;;
  124 | 137) echo hang ;;
  1) echo fail ;;
  *) echo crash ;;
  esac
}

: > "$out/compare.txt"
echo
echo "== under other allocators: runs that ended ok / hung / crashed / failed, of $runs, $cmp_duration s each"
echo
echo "| stressor | libkfence.so sample_rate=1 | scudo + GWP-ASan SampleRate=1 | scudo | glibc |"
echo "| --- | --- | --- | --- | --- |"
echo "$stressors" | while read -r prog args; do
  row="| \`$prog $args\` |"
  for alloc in kfence scudo+gwp scudo glibc; do
    extra=
    # Scudo has no reallocarray: the C library's would get its blocks.
    case $alloc in scudo*) [ "$prog" = threads.c ] && extra=reallocarray ;; esac
    ok=0 hang=0 crash=0 fail=0
    for i in $(seq "$runs"); do
      # shellcheck disable=SC2086
      r=$(run_under $alloc "$bin/$prog.tmp.plain" $args $extra)
      eval "$r=\$(($r + 1))"
      printf '%s %s %s: %s %s\n' "$alloc" "$prog" "$args" "$r" \
        "$(grep '^stress ' "$out/run.out" | tail -1)" >> "$out/compare.txt"
    done
    row="$row $ok / $hang / $crash / $fail |"
  done
  echo "$row"
done
echo
echo "bad-alloc.cpp, throwing new[] of a huge size that returned NULL instead of throwing (first run of each):"
for alloc in kfence scudo+gwp scudo glibc; do
  printf '  %-10s %s\n' "$alloc" \
    "$(grep "^$alloc bad-alloc.cpp" "$out/compare.txt" | head -1 | grep -o 'attempts=[0-9]* thrown=[0-9]* nothrow_nulls=[0-9]* null_returned=[0-9]*')"
done
