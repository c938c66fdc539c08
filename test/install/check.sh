#!/bin/bash
# check.sh - checks an installed klto from its installed files alone: the
# tree `cmake --install` writes, or /usr after `dpkg -i` of the Debian
# package (.ci/run). Used by test/install.test and by CI.
#
#   test/install/check.sh <prefix> [<work-dir>] [<llvm-major>]
#
# <llvm-major> picks one of several kltos installed side by side
# (lib/klto/llvm-N); without it the prefix must hold exactly one. That
# klto's llvm.env names the clang everything is built with (clang-N, as a
# user types it).
#
# Builds and runs the demo and the example project (examples/project) with
# its Makefile, its CMakeLists.txt (find_package(klto)) and klto.cfg, with
# nothing but the compiler and the installed paths: no -L, no path into a
# build tree; checks that every relative link of the installed docs
# resolves (doc_links.py). Prints "PASS: <what>" or "FAIL: <what>: <why>"
# per check, the demo's output to <work-dir>/demo.out, and exits non-zero
# if any failed.
set -u
prefix=$(cd "${1:?usage: $0 <prefix> [<work-dir>] [<llvm-major>]}" && pwd)
work=${2:-$(mktemp -d "${TMPDIR:-/tmp}/klto-check.XXXXXX")}
mkdir -p "$work"
failed=0

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1: $2"; failed=1; }

major_glob=${3:-*}
# shellcheck disable=SC2012,SC2086
plugins=$(ls "$prefix"/lib/klto/llvm-$major_glob/kltoplugin.so "$prefix"/lib/*/klto/llvm-$major_glob/kltoplugin.so 2>/dev/null)
[ -n "$plugins" ] || { fail layout "no lib/klto/llvm-${3:-N}/kltoplugin.so under $prefix"; exit 1; }
[ "$(echo "$plugins" | wc -l)" = 1 ] ||
  { fail layout "several kltos under $prefix: name the LLVM major (${plugins//$'\n'/ })"; exit 1; }
pkglib=$(dirname "$plugins")
examples=$prefix/share/doc/klto/examples
# shellcheck source=/dev/null
. "$pkglib/llvm.env"
major=$KLTO_LLVM_MAJOR
clang=clang-$major
pass "layout: plugin, runtime and linker in ${pkglib#$prefix/}"

# Nothing of the system is shadowed: klto's linker is on PATH only under its
# own name (in /usr/bin, ld and ld.lld are binutils' and LLD's).
shadowing=
for ld in ld ld.lld; do
  if [ -x "$prefix/bin/$ld" ] && "$prefix/bin/$ld" --version 2>/dev/null | grep -q "^klto's ld.lld"; then
    shadowing="$shadowing $ld"
  fi
done
if [ -n "$shadowing" ]; then
  fail layout "klto's linker is installed as$shadowing in $prefix/bin"
elif ! "$prefix/bin/klto-ld.lld-$major" --version | grep -q "^klto's ld.lld: .*LLD $major\."; then
  fail klto-ld.lld "$prefix/bin/klto-ld.lld-$major --version does not name klto and LLD $major"
else
  pass "bin/klto-ld.lld-$major is klto's linker for LLD $major; bin/ shadows no ld"
fi

if MANPATH=$prefix/share/man man -w klto-ld.lld klto-plugin klto-kfence >/dev/null 2>&1; then
  pass "man finds klto-ld.lld(1), klto-plugin(7), klto-kfence(7)"
else
  fail man "man -w finds no klto page under $prefix/share/man"
fi

# The documentation links only to what is installed with it: the docs
# link the results files under bench/, which install beside them.
if links=$(python3 "$(dirname "$0")/doc_links.py" "$prefix/share/doc/klto" 2>&1); then
  pass "docs: ${links##*$'\n'} resolve in share/doc/klto"
else
  fail docs "links that resolve to nothing in $prefix/share/doc/klto: $(echo "$links" | head -n -1 | tr '\n' ' ')"
fi

# The demo: every build with klto must behave like the no-LTO reference.
"$examples/demo/run.sh" "$prefix" "$major" >"$work/demo.out" 2>&1
klto_runs=$(grep -cE '^  .*(klto plugin|klto ld) ' "$work/demo.out")
klto_ok=$(grep -E '^  .*(klto plugin|klto ld) ' "$work/demo.out" | grep -c ' ok: ')
if [ "$klto_runs" -gt 0 ] && [ "$klto_runs" = "$klto_ok" ]; then
  pass "demo: $klto_ok of $klto_runs builds with klto same as the reference"
else
  fail demo "$klto_ok of $klto_runs builds with klto same as the reference (see $work/demo.out)"
fi

# The example project: the reference order is a plain build's, without LTO.
cp -r "$examples/project" "$work/ref"
(cd "$work/ref" && $clang -O2 main.c net.c storage.c -o inits) || fail reference "plain build failed"
"$work/ref/inits" >"$work/expected"

# check_project <label> <dir>: the dir holds inits and use-after-free.
check_project() {
  local label=$1 dir=$2
  if [ ! -x "$dir/inits" ] || [ ! -x "$dir/use-after-free" ]; then
    fail "$label" "did not build (see $work/$label.log)"
    return
  fi
  if ! "$dir/inits" | cmp -s - "$work/expected"; then
    fail "$label" "inits runs its table in another order than the no-LTO build"
  elif ! KFENCE_OPTIONS=sample_rate=1 "$dir/use-after-free" 2>&1 |
         grep -q '^BUG: KFENCE: use-after-free write in touch'; then
    fail "$label" "use-after-free was not reported by KFENCE"
  else
    pass "$label: table in link order under LTO, KFENCE report"
  fi
}

cp -r "$examples/project" "$work/make"
make -C "$work/make" KLTO="$pkglib" >"$work/make.log" 2>&1
check_project make "$work/make"

cp -r "$examples/project" "$work/cmake-src"
cmake -S "$work/cmake-src" -B "$work/cmake" -DCMAKE_C_COMPILER=$clang \
  -DCMAKE_PREFIX_PATH="$prefix" >"$work/cmake.log" 2>&1 &&
  cmake --build "$work/cmake" >>"$work/cmake.log" 2>&1
check_project cmake "$work/cmake"

# klto.cfg: one --config gives the plugin and the linker.
cp -r "$examples/project" "$work/cfg"
(cd "$work/cfg" &&
 $clang --config="$pkglib/klto.cfg" -O2 -flto -fplugin-arg-klto-table=inits \
   -Wl,--kinit-order,--kinit-table=inits main.c net.c storage.c -o inits &&
 $clang --config="$pkglib/klto.cfg" -g -O2 -flto -fplugin-arg-klto-kfence \
   use-after-free.c -o use-after-free) >"$work/cfg.log" 2>&1
check_project klto.cfg "$work/cfg"

exit $failed
