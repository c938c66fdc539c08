#!/bin/bash
# Measures whether klto's ld.lld is a drop-in for the LLD it was built on
# (LLD N, N the build's LLVM major): runs LLD's own ELF test suite
# (lld/test/ELF of the release liblld-N-dev was built from, fetched by
# fetch.sh) once per mode and lists every test that passes with the stock
# linker but fails with klto's.
#
#   test/lld-suite/run.sh [--build BUILD] [--work DIR] [--modes "stock klto kinit"]
#                         [--filter REGEX] [-j N]
#
# Modes, each a separate lit run over lld/test/ELF:
#   stock  /usr/lib/llvm-N/bin/ld.lld, the baseline
#   klto   BUILD/bin/ld.lld as is
#   kinit  BUILD/bin/ld.lld with --kinit-order as its first argument
# BUILD is a klto CMake build directory (default: build), whose llvm.env
# names the LLVM (its ld.lld, lit and source package); DIR holds the
# fetched sources, one directory per mode (tools, site config, lit's
# outputs, lit.log, results.json, failures/) and defaults to
# BUILD/lld-suite. --filter is lit's (a regex on the test path, e.g.
# 'ELF/lto/'). Without stock in --modes, the stock results of an earlier run
# in DIR are the baseline.
#
# Exit status: 0 if no test regresses, 1 if some do, 2 if the run itself
# could not be done. About 3 minutes and 1.8 GB of lit outputs per mode
# on two cores.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
die() { echo "run.sh: $*" >&2; exit 2; }

build=build
work=
modes="stock klto kinit"
filter=
jobs=$(nproc)
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=${2:?--build needs a directory}; shift 2 ;;
    --work) work=${2:?--work needs a directory}; shift 2 ;;
    --modes) modes=${2:?--modes needs a list}; shift 2 ;;
    --filter) filter=${2:?--filter needs a regex}; shift 2 ;;
    -j) jobs=${2:?-j needs a number}; shift 2 ;;
    -j*) jobs=${1#-j}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
for m in $modes; do
  case $m in stock|klto|kinit) ;; *) die "unknown mode '$m' (stock, klto, kinit)" ;; esac
done
[ -n "$modes" ] || die "no modes"
[ -f "$build/llvm.env" ] || die "$build/llvm.env not found: configure klto (cmake) first, or pass --build"
# shellcheck source=/dev/null
. "$build/llvm.env"
major=$KLTO_LLVM_MAJOR
llvm=$(dirname "$KLTO_LLVM_BINDIR")
[ -x "$llvm/bin/ld.lld" ] || die "$llvm/bin/ld.lld not found (install lld-$major)"
# lit's package: in build/utils/lit up to LLVM 19's Debian packages, in
# utils/lit from 20 on.
lit_dir=
for d in "$llvm/build/utils/lit" "$llvm/utils/lit"; do
  if [ -f "$d/lit/main.py" ]; then lit_dir=$d; break; fi
done
[ -n "$lit_dir" ] || die "lit not found under $llvm (install llvm-$major-tools)"

case " $modes " in
  *" klto "*|*" kinit "*)
    [ -x "$build/bin/ld.lld" ] || die "$build/bin/ld.lld not found: build klto first, or pass --build"
    build=$(cd "$build" && pwd)
    # The build may be rebuilt while the suite runs; a changed binary makes
    # the modes' results incomparable, which the end of the run reports.
    klto_sum=$(sha256sum <"$build/bin/ld.lld") ;;
esac
[ -n "$work" ] || work=$build/lld-suite
mkdir -p "$work"
work=$(cd "$work" && pwd)

"$here/fetch.sh" "$work" "$major"
src=$work/lld/test
if [ ! -f "$src/lit.cfg.py" ] || [ ! -d "$src/ELF" ]; then die "fetch.sh left no $src/ELF"; fi

# What the installed LLVM was configured with, as LLD's CMake would have
# put it into lit.site.cfg.py: the suite's REQUIRES: zlib/zstd/... lines
# must match what the linker under test (always linked to this libLLVM)
# can do, or stock tests fail instead of being unsupported.
llvm_cmake=$llvm/lib/cmake/llvm/LLVMConfig.cmake
cmake_bool() {
  local v
  v=$(sed -n "s/^set($1 \(.*\))\$/\1/p" "$llvm_cmake" | tr -d '"' | head -n 1)
  case ${v^^} in 1|ON|TRUE|YES) echo True ;; *) echo False ;; esac
}
[ -f "$llvm_cmake" ] || die "$llvm_cmake not found (install llvm-$major-dev)"
host_triple=$("$llvm/bin/llvm-config" --host-target)
target_triple=$(sed -n 's/^set(LLVM_TARGET_TRIPLE "\(.*\)")$/\1/p' "$llvm_cmake")
: "${target_triple:=$host_triple}"
have_zlib=$(cmake_bool LLVM_ENABLE_ZLIB)
have_zstd=$(cmake_bool LLVM_ENABLE_ZSTD)
have_libxml2=$(cmake_bool LLVM_ENABLE_LIBXML2)
have_dia_sdk=$(cmake_bool LLVM_ENABLE_DIA_SDK)
has_plugins=$(cmake_bool LLVM_ENABLE_PLUGINS)
enable_threads=$(cmake_bool LLVM_ENABLE_THREADS)

# The tools the suite runs as ld.lld. Every mode goes through the same kind
# of wrapper, so stock also shows whether the wrapping itself breaks a test.
# exec -a keeps the wrapper's path as argv[0]: LLD names itself after its
# basename in messages (ld.lld: error: ...) and picks its flavor by it.
write_tools() {
  local dir=$1 real=$2 extra=$3 name
  rm -rf "$dir"
  mkdir -p "$dir"
  cat >"$dir/ld.lld" <<EOF
#!/bin/bash
exec -a "\$0" $real $extra "\$@"
EOF
  # use_lld() insists on lld-link, ld64.lld and wasm-ld too, and puts this
  # directory first on PATH, so lld also resolves here. Links of other
  # formats go to LLVM's own; only -flavor gnu (ELF/amdgpu-duplicate-sym.s
  # links through lld-link on purpose) is an ELF link for the linker
  # under test.
  for name in lld lld-link ld64.lld wasm-ld; do
    cat >"$dir/$name" <<EOF
#!/bin/bash
if [ "\${1-}" = -flavor ] && [ "\${2-}" = gnu ]; then
  exec -a "\$0" $real $extra "\$@"
fi
exec -a "\$0" $llvm/bin/$name "\$@"
EOF
  done
  chmod +x "$dir"/*
}

# Our own lit.site.cfg.py, modelled on lld/test/lit.site.cfg.py.in; lld's
# lit.cfg.py does the rest. The mode directory is lld's "build": lit's
# outputs go to MODE/test/ELF/Output.
write_site_cfg() {
  local dir=$1
  cat >"$dir/lit.site.cfg.py" <<EOF
# Generated by test/lld-suite/run.sh.
import os
import sys

config.have_dia_sdk = $have_dia_sdk
# LLVM's own sources: only utils/dtlto, which fetch.sh takes from LLVM 21
# on (ELF/dtlto's tests run its mock distributor).
config.llvm_src_root = r"$work/llvm"
config.llvm_obj_root = r"$llvm"
config.llvm_tools_dir = r"$llvm/bin"
config.llvm_libs_dir = r"$llvm/lib"
config.llvm_shlib_dir = r"$llvm/lib"
config.llvm_shlib_ext = ".so"
config.lit_tools_dir = ""
# Debian builds LLVM with ENABLE_BACKTRACES (CMake's default); nothing
# installed records it. ELF/crash-report.test needs it.
config.enable_backtrace = True
# Empty: lit takes the messages from Python's strerror, as on Linux hosts.
config.errc_messages = ""
config.lld_obj_root = r"$dir"
config.lld_libs_dir = r"$llvm/lib"
config.lld_tools_dir = r"$dir/bin"
config.host_triple = "$host_triple"
config.target_triple = "$target_triple"
config.python_executable = sys.executable
config.have_zlib = $have_zlib
config.have_zstd = $have_zstd
config.have_libxml2 = $have_libxml2
config.sizeof_void_p = 8
config.ld_lld_default_mingw = False
# LLVM's examples (the Bye pass plugin) are not packaged.
config.build_examples = False
config.has_plugins = $has_plugins
config.linked_bye_extension = False
# Read by LLD 22's lit.cfg.py (REQUIRES: thread_support).
config.enable_threads = $enable_threads

import lit.llvm
lit.llvm.initialize(lit_config, config)

lit_config.load_config(config, r"$src/lit.cfg.py")
config.suffixes = [".test", ".s", ".ll", ".bat"]
EOF
}

# LLD's tests write -o /dev/null, and a broken linker running as root could
# replace or chmod it for the whole machine. Each lit runs in a mount
# namespace of its own where /dev/null is a fresh device node on a private
# tmpfs: whatever happens to it stays there (and renaming or unlinking onto
# a mount point fails with EBUSY anyway).
devnull_dir=$work/.devnull
mkdir -p "$devnull_dir"
# Both run by the namespace's bash, which expands them.
# shellcheck disable=SC2016
protect_script='mount -t tmpfs -o size=64k,mode=755 klto-devnull "$1" &&
  mknod -m 666 "$1/null" c 1 3 && mount --bind "$1/null" /dev/null &&
  shift && exec "$@"'
# shellcheck disable=SC2016
probe_script='echo x >/dev/null && [ "$(stat -c %t:%T /dev/null)" = 1:3 ] &&
  grep -q " /dev/null .* klto-devnull " /proc/self/mountinfo'
protect=(unshare --mount --propagation private -- bash -c "$protect_script" bash "$devnull_dir")
if [ "$(id -u)" != 0 ]; then
  echo "note: not root: /dev/null cannot be replaced, running lit without a private /dev/null"
  protect=()
elif ! "${protect[@]}" bash -c "$probe_script" 2>/dev/null; then
  protect=()
  echo "WARNING: cannot give lit a private /dev/null (unshare/mount/mknod not permitted here);" >&2
  echo "WARNING: running unprotected: a linker that replaces -o /dev/null breaks it for the machine" >&2
fi

# lit.py alone would load lld/test/lit.cfg.py without a site config; the
# config_map parameter (what LLVM's generated llvm-lit passes) makes lit
# load ours in its place.
run_lit() {
  local dir=$1
  shift
  KLTO_LIT_DIR=$lit_dir KLTO_LIT_CFG=$src/lit.cfg.py KLTO_LIT_SITE=$dir/lit.site.cfg.py \
    "${protect[@]}" python3 -c '
import os, sys
sys.argv[0] = "lit"
sys.path.insert(0, os.environ["KLTO_LIT_DIR"])
from lit.main import main
cfg = os.path.normcase(os.path.realpath(os.environ["KLTO_LIT_CFG"]))
main({"config_map": {cfg: os.environ["KLTO_LIT_SITE"]}})' "$@"
}

check_devnull() {
  if [ ! -c /dev/null ] || [ "$(stat -c %t:%T:%a /dev/null)" != 1:3:666 ]; then
    echo "WARNING: /dev/null is no longer the null device (mode $1 ran unprotected?):" >&2
    ls -l /dev/null >&2
  fi
  # Only /dev/null itself is private: a linker writing beside its output
  # (a temporary to rename over it) writes into the real /dev.
  local left
  left=$(find /dev -maxdepth 1 -name 'null?*' 2>/dev/null)
  [ -z "$left" ] || echo "WARNING: mode $1 left files in /dev: ${left//$'\n'/ }" >&2
}

declare -A secs
for m in $modes; do
  dir=$work/$m
  case $m in
    stock) real=$llvm/bin/ld.lld extra= ;;
    klto) real=$build/bin/ld.lld extra= ;;
    kinit) real=$build/bin/ld.lld extra=--kinit-order ;;
  esac
  mkdir -p "$dir"
  # Earlier outputs and results of this mode must not mix into this run.
  rm -rf "$dir/test" "$dir/failures" "$dir/results.json" "$dir/lit.log"
  write_tools "$dir/bin" "$real" "$extra"
  write_site_cfg "$dir"
  args=(-v -j "$jobs" --output "$dir/results.json")
  [ -z "$filter" ] || args+=(--filter "$filter")
  echo "$m: lit over $src/ELF with $real $extra (log: $dir/lit.log)"
  start=$(date +%s)
  rc=0
  run_lit "$dir" "${args[@]}" "$src/ELF" >"$dir/lit.log" 2>&1 || rc=$?
  secs[$m]=$(($(date +%s) - start))
  check_devnull "$m"
  # lit exits 1 when tests fail; anything else, or no results, means lit
  # itself could not run them (a config error, say).
  if [ "$rc" -gt 1 ] || [ ! -s "$dir/results.json" ]; then
    tail -n 30 "$dir/lit.log" >&2
    die "$m: lit failed (status $rc), see $dir/lit.log"
  fi
  echo "$m: ${secs[$m]} s"
done

if [ -n "${klto_sum-}" ] && [ "$(sha256sum <"$build/bin/ld.lld")" != "$klto_sum" ]; then
  echo "WARNING: $build/bin/ld.lld changed during the run: klto and kinit results may be of different binaries" >&2
fi

# Counts, regressions against stock, and each failing test's output in
# MODE/failures/<test>.log.
KLTO_WORK=$work KLTO_MODES=$modes python3 - <<'EOF'
import json, os, sys

work = os.environ["KLTO_WORK"]
modes = os.environ["KLTO_MODES"].split()
PASS = {"PASS", "XFAIL", "FLAKYPASS"}
FAIL = {"FAIL", "XPASS", "UNRESOLVED", "TIMEOUT"}

def load(mode):
    with open(os.path.join(work, mode, "results.json")) as f:
        tests = json.load(f)["tests"]
    # "lld :: ELF/foo.s" -> "ELF/foo.s"
    return {t["name"].split(" :: ", 1)[-1]: t for t in tests}

results = {m: load(m) for m in modes}
baseline = "stock"
if "stock" not in results:
    if not os.path.exists(os.path.join(work, "stock", "results.json")):
        print("run.sh: no stock results in %s to compare with: add stock to --modes" % work,
              file=sys.stderr)
        sys.exit(2)
    print("note: baseline is the stock results of an earlier run in %s/stock" % work)
    stock = load("stock")
else:
    stock = results["stock"]

for m in modes:
    res = results[m]
    fdir = os.path.join(work, m, "failures")
    for name, t in res.items():
        if t["code"] in FAIL:
            path = os.path.join(fdir, name + ".log")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(t["output"])
    n = lambda codes: sum(t["code"] in codes for t in res.values())
    other = len(res) - n(PASS) - n(FAIL) - n({"UNSUPPORTED"})
    print("%-6s pass %d, fail %d, unsupported %d%s  (failure logs: %s/)" % (
        m, n(PASS), n(FAIL), n({"UNSUPPORTED"}),
        ", other %d" % other if other else "", fdir))

def code(res, name):
    return res[name]["code"] if name in res else "MISSING"

stock_fail = sorted(k for k, t in stock.items() if t["code"] in FAIL)
if stock_fail:
    print("failing with stock too (not counted as regressions):")
    for k in stock_fail:
        print("  stock %s %s" % (code(stock, k), k))

regressions = {}
for m in modes:
    if m == "stock":
        continue
    res = results[m]
    ran = [k for k in res if k in stock]
    regressions[m] = sorted(k for k in ran
                            if stock[k]["code"] in PASS and res[k]["code"] not in PASS)
    unknown = len(res) - len(ran)
    if unknown:
        print("note: %d %s tests have no stock result to compare with: "
              "run stock over them too" % (unknown, m))
    for k in regressions[m]:
        print("REGRESSION %s %s %s" % (m, res[k]["code"], k))
    for k in sorted(k for k in ran
                    if stock[k]["code"] in FAIL and res[k]["code"] in PASS):
        print("note: %s passes %s, which fails with stock" % (m, k))

ran = {k for m in results for k in results[m]
       if k in stock and stock[k]["code"] != "UNSUPPORTED"}
print("regressions: %s (of %d tests run)" % (
    ", ".join("%s %d" % (m, len(r)) for m, r in regressions.items())
    or "no klto mode run", len(ran)))
sys.exit(1 if any(regressions.values()) else 0)
EOF
