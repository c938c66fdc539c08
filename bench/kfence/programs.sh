#!/bin/bash
# programs.sh - real programs under KFENCE's LD_PRELOAD build, side by side
# with no preload and with scudo + GWP-ASan at its default rate, in one run.
#
#   bench/kfence/programs.sh [BUILD_DIR]      (default: build)
#
# Workloads: sqlite3 (100,000 inserts in one transaction, an index, a query,
# VACUUM) and perl (word counts, a regex substitution and a sort over 4 MB
# of text). Two measures:
#  - user+system CPU seconds, ROUNDS (default 31) rounds, each round running
#    every configuration once in a shuffled order; the overhead is the
#    median over rounds of (config / no preload) - 1, pairs taken in the
#    same round so that the machine's load drifts out;
#  - instructions (valgrind --tool=callgrind, one run each, Debian 12's
#    valgrind): no noise, but no cost of system calls and page faults, and
#    an upper bound for KFENCE: its default trigger, sample_interval, is
#    wall-clock time, and under valgrind's slowdown (about 50x) it guards
#    that many times more objects, each with a stack trace (about 40,000
#    instructions with glibc's backtrace()). So klto is also counted with
#    sampling off (KFENCE_OPTIONS=sample_interval=0:sample_rate=0: what
#    every allocation pays, a lower bound), and the objects guarded are
#    counted (print_stats_at_exit=1, summed over the workload's processes)
#    under callgrind and in one native run: the native cost is about the
#    lower bound plus the native objects times the cost of one.
# The timed runs are pinned to the CPUs of CPU (a taskset list), if set: on
# a VM whose vCPUs run at different speeds that keeps the difference out of
# the pairs. The comparison's last column says how many rounds would settle
# it to +-0.5 points (paired.py).
# Debian's scudo ignores GWP_ASAN_OPTIONS: GWP-ASan is switched on through
# SCUDO_OPTIONS. Prints a Markdown table (docs/kfence.md has the figures).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" && pwd)
rounds=${ROUNDS:-31}
# WORKLOADS (default "sqlite perl"): a subset, e.g. one per CPU in two
# runs side by side.
workloads=${WORKLOADS:-sqlite perl}
for w in $workloads; do
  case $w in
  sqlite | perl) ;;
  *) echo "programs.sh: unknown workload '$w' in WORKLOADS (sqlite, perl)" >&2; exit 1 ;;
  esac
done
kfence=$build/lib/libkfence.so
# scudo of the LLVM klto was built for (the build's llvm.env).
# shellcheck source=/dev/null
. "$build/llvm.env"
scudo=$("$KLTO_LLVM_BINDIR/clang" -print-file-name=libclang_rt.scudo_standalone-x86_64.so)
for f in "$kfence" "$scudo" /usr/bin/sqlite3 /usr/bin/perl; do
  [ -e "$f" ] || { echo "programs.sh: $f is missing" >&2; exit 1; }
done
# The times stay in the build tree ("round config seconds" lines, written
# as they come): paired.py reads them again, also from a run cut short.
out=$build/bench/kfence
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/klto-programs.XXXXXX")
trap 'rm -rf "$work"' EXIT

python3 - "$work" <<'PY'
import random, sys
work = sys.argv[1]
rng = random.Random(1)
word = lambda: "".join(rng.choice("abcdefghijklmnop") for _ in range(rng.randint(3, 12)))
with open(work + "/sqlite.sql", "w") as f:
    f.write("PRAGMA journal_mode=OFF;\nCREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, v REAL);\nBEGIN;\n")
    for _ in range(100000):
        f.write("INSERT INTO t(name, v) VALUES('%s', %f);\n" % (word() + word(), rng.random()))
    f.write("COMMIT;\nCREATE INDEX ti ON t(name);\n"
            "SELECT count(*), sum(v) FROM t WHERE name > 'h';\nVACUUM;\n")
with open(work + "/text", "w") as f:
    while f.tell() < 4 << 20:
        f.write(" ".join(word() for _ in range(12)) + "\n")
PY

cat > "$work/sqlite.sh" <<SH
rm -f "$work/db"
sqlite3 "$work/db" < "$work/sqlite.sql" > /dev/null
SH
# A fixed hash seed: perl otherwise draws one per process, which moves its
# instruction count by a few million between runs.
cat > "$work/perl.sh" <<'SH'
export PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0
perl -lane '$c{$_}++ for @F; END { print scalar(keys %c) }' "$1" > /dev/null
perl -pe 's/([aeiou])([a-p]+)/$2$1/g' "$1" > /dev/null
perl -e 'print sort <>' "$1" > /dev/null
SH
# Timed configurations (CONFIGS, default "none klto gwp-asan"; none is the
# baseline, klto-off is klto with sampling off).
configs=${CONFIGS:-none klto gwp-asan}
# environment <config>: what the configuration puts in front of a command.
environment() {
  case $1 in
    none) echo env ;;
    klto) echo env LD_PRELOAD=$kfence ;;
    klto-off) echo env LD_PRELOAD=$kfence KFENCE_OPTIONS=$(options klto-off) ;;
    gwp-asan) echo env LD_PRELOAD=$scudo SCUDO_OPTIONS=GWP_ASAN_Enabled=true ;;
  esac
}
# options <config>: its KFENCE_OPTIONS for the instruction counts (the
# default for klto; set but unused without the preload).
options() {
  case $1 in
    klto-off) echo sample_interval=0:sample_rate=0 ;;
    *) echo sample_interval=100 ;;
  esac
}

# cpu_seconds <config> <workload>: user+system CPU of the workload and its
# children, from getrusage() (microseconds; /usr/bin/time rounds to 10 ms,
# 2% of these runs).
cpu_seconds() {
  python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.6f" % (r.ru_utime + r.ru_stime))' ${CPU:+taskset -c "$CPU"} $(environment "$1") \
    bash "$work/$2.sh" "$work/text"
}

for workload in $workloads; do
  for r in $(seq "$rounds"); do
    for c in $(echo $configs | tr ' ' '\n' | shuf); do
      echo "$r $c $(cpu_seconds "$c" "$workload")"
    done
  done > "$out/programs-$workload.times"
  # Under Debian 12's valgrind, the scudo-preloaded program is not counted
  # (only the shell is): no instruction count for GWP-ASan.
  for c in none klto klto-off; do
    valgrind --tool=callgrind --callgrind-out-file=/dev/null --trace-children=yes \
      $(environment "$c") KFENCE_OPTIONS=$(options "$c"):print_stats_at_exit=1 \
      bash "$work/$workload.sh" "$work/text" 2>&1 |
      awk '/Collected :/ {s += $4} /total allocations:/ {g += $3}
           END {printf "%.0f %d\n", s, g}' > "$work/$workload.$c.ir"
  done
  $(environment klto) KFENCE_OPTIONS=print_stats_at_exit=1 \
    bash "$work/$workload.sh" "$work/text" 2>&1 >/dev/null |
    awk '/total allocations:/ {g += $3} END {printf "%d\n", g}' > "$work/$workload.guarded"
done

python3 - "$here" "$work" "$out" "$rounds" $workloads <<'PY'
import statistics, sys
here, work, out, rounds, workloads = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]
sys.path.insert(0, here)
import paired

print("| program | config | CPU s (median of %d rounds) | CPU vs none (median of paired ratios, 95%% bootstrap interval) | spread of the ratios | instructions (callgrind) | instructions vs none | objects guarded (callgrind / native) |" % rounds)
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for w in workloads:
    t = paired.load("%s/programs-%s.times" % (out, w))
    ir, guarded = {}, {}
    for c in ("none", "klto", "klto-off"):
        ir[c], guarded[c] = map(int, open("%s/%s.%s.ir" % (work, w, c)).read().split())
    native = int(open("%s/%s.guarded" % (work, w)).read())
    for c in ("none", "klto", "klto-off", "gwp-asan"):
        med, rel, spread = "not timed", "", ""
        if c in t:
            med = "%.3f" % statistics.median(t[c].values())
            if c != "none":
                xs = paired.ratios(t, c, "none")
                rel, spread = paired.compare(xs)
        count = "%d" % ir[c] if c in ir else "n/a"
        irel = "%+.2f%%" % (100 * (ir[c] / ir["none"] - 1)) if c in ("klto", "klto-off") else ""
        objs = "%d / %d" % (guarded[c], native) if c == "klto" else ""
        print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (w, c, med, rel, spread, count, irel, objs))
PY
