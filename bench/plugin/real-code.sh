#!/bin/bash
# real-code.sh - the plugin and klto's linker on real code: Debian source
# packages built by the clang of the LLVM klto was built for, with and
# without -fplugin=kltoplugin.so,
# without LTO, with -flto and with -flto=thin, linked by stock ld.lld and by
# klto's ld.lld; every object and every linked file compared with cmp, the
# package's tests run in each configuration, and the plugin's compile cost
# on the package's largest source file counted in instructions (callgrind).
#
#   bench/plugin/real-code.sh [--build DIR] [--work DIR]
#       [--packages "zlib lua5.4 sqlite3 libsodium"] [--lto "none full thin"]
#       [--cflags "-O2 -g"] [--tests all|distinct] [--sqlite-tests TARGET]
#       [--cost yes|no] [-j N] [--report]
#
# DIR (--work, default /var/tmp/klto-real-code) is outside the repository:
# src/ holds the source packages, downloaded by test/debian-source.sh (a
# private apt configuration) and unpacked by dpkg-source (Debian's patches
# applied); nothing of them is kept in the project. Each configuration is
# built in turn in the same directory, tree/<package>, so the paths that
# -g and __FILE__ embed are the same in every build and the default flags
# keep -g: debug information is compared too. What each build leaves
# (every object: ELF relocatable or bitcode; every linked file: executable,
# shared library, archive) is copied to out/<package>/<cc>.<lto>.<ld>/ with
# its test log. The klto-linker build is not compiled again: the link
# commands of the stock-linker build, logged by the compiler wrapper, are
# run again in order with klto's ld.lld, on the same objects.
#
# How each package is built (CC is a wrapper, DIR/bin/clang, that adds
# -fplugin= and, to link commands only, --ld-path=, so that libtool cannot
# drop them; CFLAGS are --cflags plus the LTO flag):
#   zlib       its own configure and Makefile (libz.a, libz.so, the
#              example and minigzip programs, static, shared and 64-bit
#              offsets; libz.so linked with --undefined-version, which LLD
#              needs for zlib.map); tests: make test (3 programs' runs).
#   lua5.4     compiled directly, an explicit list (src/Makefile's CORE_O and
#              LIB_O, lua.c, luac.c): Debian's build goes through libtool
#              and a generated configure.ac of its own. liblua5.4.so.0, lua
#              (static), lua-dyn (against the .so), luac. The package has no
#              test suite: bench/plugin/real-code-checks.lua (assertions on
#              strings, patterns, tables, integers and floats, closures,
#              coroutines, metatables, utf8, string.pack, io, the GC) run by
#              lua, by lua-dyn, and as luac's bytecode.
#   sqlite3    its configure with Debian's flags (debian/rules: the -D list,
#              --disable-amalgamation, FTS, JSON, ...), the shell's
#              SHELL_OPT features in the library too, and --disable-static;
#              libsqlite3.so, the sqlite3 shell, libtclsqlite3.so, and
#              testfixture (from the amalgamation, sqlite3.c); tests: make
#              --sqlite-tests' target as nobody (the suite refuses root):
#              default quicktest (test/extraquick.test, about 305,000
#              tests), or tcltest (test/veryquick.test, longer); "N errors
#              out of M tests".
#   libsodium  autoreconf, its configure (--disable-static), make, make check
#              (automake's test suite, "# PASS:" and "# FAIL:").
# The compile cost is counted once per DIR: delete out/<package>/cost to
# count it again.
# Tests run in every configuration (--tests all), or only where the files
# the tests run differ from those of a configuration already tested
# (--tests distinct: results of byte-identical files are copied, marked =).
#
# --report prints the table of the builds out/ holds and builds nothing.
# Prints one table (also DIR/results.md) and a summary line. Exit status 0
# if every comparison is identical and every configuration's test results
# equal those of stock clang with stock ld.lld in its LTO mode, 1 if not,
# 2 if the run failed.
# Needs root: it installs dpkg-dev, autoconf, automake, libtool, tcl-dev
# and valgrind if missing, and runs sqlite3's tests as nobody.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build
work=/var/tmp/klto-real-code
packages="zlib lua5.4 sqlite3 libsodium"
ltos="none full thin"
cflags="-O2 -g"
tests=all
sqlite_tests=quicktest
cost=yes
jobs=2
report=
usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
die() { echo "real-code.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$(cd "${2:?}" && pwd); shift 2 ;;
    --work) work=${2:?}; shift 2 ;;
    --packages) packages=${2:?}; shift 2 ;;
    --lto) ltos=${2:?}; shift 2 ;;
    --cflags) cflags=${2?}; shift 2 ;;
    --tests) tests=${2:?}; shift 2 ;;
    --sqlite-tests) sqlite_tests=${2:?}; shift 2 ;;
    --cost) cost=${2:?}; shift 2 ;;
    --report) report=1; shift ;;
    -j) jobs=${2:?}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
for p in $packages; do
  case $p in zlib|lua5.4|sqlite3|libsodium) ;; *) die "unknown package '$p' (zlib lua5.4 sqlite3 libsodium)" ;; esac
done
for l in $ltos; do
  case $l in none|full|thin) ;; *) die "unknown --lto '$l' (none full thin)" ;; esac
done
case $tests in all|distinct) ;; *) die "--tests all or distinct" ;; esac
case $cost in yes|no) ;; *) die "--cost yes or no" ;; esac

# The LLVM klto was built for (the build's llvm.env).
# shellcheck source=/dev/null
. "$build/llvm.env"
llvm=$KLTO_LLVM_BINDIR
clang=$llvm/clang
stock_ld=$llvm/ld.lld
klto_ld=$build/bin/ld.lld
plugin=$build/lib/kltoplugin.so
for f in "$clang" "$stock_ld" "$klto_ld" "$plugin" "$llvm/llvm-ar"; do
  [ -e "$f" ] || die "$f is missing (build klto first: ninja -C $build)"
done
need="dpkg-dev autoconf automake libtool tcl-dev valgrind"
missing=$(for p in $need; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
  echo "installing: $missing"
  DEBIAN_FRONTEND=noninteractive apt-get install -y $missing >/dev/null || die "apt-get install $missing failed"
fi

mkdir -p "$work"
work=$(cd "$work" && pwd)
case $work/ in "$root"/*) die "--work must be outside the repository" ;; esac
mkdir -p "$work/src" "$work/tree" "$work/out" "$work/bin"

# The sources: downloaded once, unpacked once into src/<package> (libsodium
# also autoreconf'ed there: its tarball has no configure).
fetch=
for p in $packages; do ls "$work/src/${p}_"*.dsc >/dev/null 2>&1 || fetch="$fetch $p"; done
if [ -n "$fetch" ]; then
  echo "downloading the source packages:$fetch"
  "$root/test/debian-source.sh" "$work/src" $fetch || die "could not download$fetch"
fi
for p in $packages; do
  [ -d "$work/src/$p" ] && continue
  dsc=$(ls "$work/src/${p}_"*.dsc | sort -V | tail -n 1)
  dpkg-source --no-check -x "$dsc" "$work/src/$p.tmp" >/dev/null || die "dpkg-source -x $dsc failed"
  if [ "$p" = libsodium ]; then
    (cd "$work/src/$p.tmp" && autoreconf -fi >/dev/null 2>&1) || die "autoreconf in libsodium failed"
  fi
  mv "$work/src/$p.tmp" "$work/src/$p"
done

# The compiler wrapper. KLTO_RC_PLUGIN: the plugin, or empty; KLTO_RC_LD:
# the linker, given to link commands only (an unused --ld-path would
# warn in configure's -Werror checks); KLTO_RC_LOG: a file that gets one
# line per link command (one that compiles too included), 'cd DIR &&
# wrapper ARGS', shell-quoted, to be run again; KLTO_RC_LOG.compiles gets
# one 'DIR<TAB>clang ARGS' line per compile command.
# Named clang: zlib's configure knows a compiler by its name.
wrap=$work/bin/clang
cat >"$wrap" <<EOF
#!/bin/bash
link=1
for a; do
  case \$a in -c|-S|-E|-M|-MM|-fsyntax-only|--version|-v|-dumpversion|-dumpmachine|-print-*) link= ;; esac
done
extra=()
[ -z "\${KLTO_RC_PLUGIN:-}" ] || extra+=("-fplugin=\$KLTO_RC_PLUGIN")
[ -z "\$link" ] || extra+=("--ld-path=\${KLTO_RC_LD:?}")
if [ -n "\${KLTO_RC_LOG:-}" ]; then
  { flock 9
    if [ -n "\$link" ]; then printf 'cd %q && %s\n' "\$PWD" "\$(printf '%q ' "\$0" "\$@")" >>"\$KLTO_RC_LOG"
    else printf '%s\t%s\n' "\$PWD" "\$(printf '%q ' $clang "\$@")" >>"\$KLTO_RC_LOG.compiles"; fi
  } 9>>"\$KLTO_RC_LOG.lock"
fi
exec $clang "\${extra[@]}" "\$@"
EOF
chmod +x "$wrap"
export CC=$wrap AR=$llvm/llvm-ar RANLIB=$llvm/llvm-ranlib NM=$llvm/llvm-nm

# collect TREE OUT: copies every object and linked file of TREE into OUT
# (relative paths kept) and writes OUT/manifest: 'kind sha256 path' lines,
# kind o (ELF relocatable, bitcode) or bin (ELF executable or shared
# library, ar archive).
collect() {
  python3 - "$1" "$2" <<'PY'
import hashlib, os, shutil, sys
tree, out = sys.argv[1:]
rows = []
for d, dirs, files in os.walk(tree):
    for f in files:
        p = os.path.join(d, f)
        if os.path.islink(p) or not os.path.isfile(p):
            continue
        with open(p, "rb") as fh:
            head = fh.read(18)
        if head[:4] == b"\x7fELF":
            kind = "o" if head[16] == 1 else "bin"
        elif head[:4] == b"BC\xc0\xde":
            kind = "o"
        elif head[:8] == b"!<arch>\n":
            kind = "bin"
        else:
            continue
        rel = os.path.relpath(p, tree)
        dst = os.path.join(out, "files", rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(p, dst)
        with open(p, "rb") as fh:
            rows.append((kind, hashlib.sha256(fh.read()).hexdigest(), rel))
with open(os.path.join(out, "manifest"), "w") as m:
    for r in sorted(rows, key=lambda r: r[2]):
        m.write(" ".join(r) + "\n")
PY
}

# compare A B KIND: cmp of every KIND file of configuration dirs A and B;
# prints 'same total' and appends the differing files to A/../differ.
compare() {
  local a=$1 b=$2 kind=$3 same=0 total=0 rel
  while read -r k _ rel; do
    [ "$k" = "$kind" ] || continue
    total=$((total + 1))
    if [ -f "$b/files/$rel" ] && cmp -s "$a/files/$rel" "$b/files/$rel"; then
      same=$((same + 1))
    else
      echo "$(basename "$a") $(basename "$b") $rel" >>"$(dirname "$a")/differ"
    fi
  done <"$a/manifest"
  # A file only B has counts as a difference too.
  while read -r rel; do
    total=$((total + 1))
    echo "$(basename "$a") $(basename "$b") $rel (only in $(basename "$b"))" >>"$(dirname "$a")/differ"
  done < <(comm -13 <(awk -v k="$kind" '$1 == k { print $3 }' "$a/manifest" | sort) \
                    <(awk -v k="$kind" '$1 == k { print $3 }' "$b/manifest" | sort))
  echo "$same $total"
}

lto_flag() { case $1 in none) ;; full) echo -flto ;; thin) echo -flto=thin ;; esac; }

# --- the packages (lua5.4's functions are lua54_*): <pkg>_build runs in the tree (configure, then make with
# the log on); <pkg>_test runs the tests and prints 'passed failed';
# <pkg>_tested lists the files the tests run (for --tests distinct).
logged() { KLTO_RC_LOG=$log "$@"; }

zlib_build() {
  # LLD errors on zlib.map's versions for symbols the configure test's
  # library lacks (GNU ld does not): --undefined-version, or no libz.so.
  CFLAGS="$cflags $(lto_flag "$lto")" \
    LDSHARED="$CC -shared -Wl,-soname,libz.so.1,--version-script,zlib.map,--undefined-version" \
    ./configure >/dev/null
  logged make -j"$jobs" all
}
zlib_test() {
  make test >"$1" 2>&1 || true
  echo "$(grep -c '\*\*\* zlib.*test OK' "$1") $(grep -c 'FAILED' "$1")"
}
zlib_tested() { echo "example minigzip examplesh minigzipsh example64 minigzip64 libz.so.*"; }

lua_core="lapi lcode lctype ldebug ldo ldump lfunc lgc llex lmem lobject lopcodes lparser lstate lstring ltable ltm lundump lvm lzio"
lua_lib="lauxlib lbaselib lcorolib ldblib liolib lmathlib loadlib loslib lstrlib ltablib lutf8lib linit"
lua54_build() {
  local f o objs=
  # debian/rules writes this header (luaconf.h includes it).
  printf '#ifndef _LUA_DEB_MULTIARCH_\n#define _LUA_DEB_MULTIARCH_\n#define DEB_HOST_MULTIARCH "%s"\n#endif\n' \
    "$(dpkg-architecture -qDEB_HOST_MULTIARCH)" >src/lua5.4-deb-multiarch.h
  # src/Makefile's flags (Debian's patch): the compiler modules at -Os.
  for f in $lua_core $lua_lib lua luac; do
    o=
    case $f in llex|lparser|lcode) o=-Os ;; esac
    logged "$CC" -std=gnu99 $cflags $(lto_flag "$lto") -fPIC -Wall -Wextra -DLUA_COMPAT_5_3 -DLUA_USE_LINUX $o \
      -c "src/$f.c" -o "src/$f.o" || return 1
  done
  for f in $lua_core $lua_lib; do objs="$objs src/$f.o"; done
  logged "$CC" $cflags $(lto_flag "$lto") -shared -Wl,-soname,liblua5.4.so.0 -o src/liblua5.4.so.0 $objs -lm -ldl &&
    logged "$CC" $cflags $(lto_flag "$lto") -Wl,-E -o src/lua src/lua.o $objs -lm -ldl &&
    logged "$CC" $cflags $(lto_flag "$lto") -o src/lua-dyn src/lua.o src/liblua5.4.so.0 -Wl,-rpath,'$ORIGIN' -lm -ldl &&
    logged "$CC" $cflags $(lto_flag "$lto") -o src/luac src/luac.o $objs -lm -ldl
}
lua54_test() {
  local checks=$here/real-code-checks.lua
  { src/lua "$checks" && src/lua-dyn "$checks" &&
    src/luac -o checks.luac "$checks" && src/lua checks.luac; } >"$1" 2>&1 || true
  echo "$(grep -c '^ok ' "$1") $(grep -c '^not ok ' "$1")"
}
lua54_tested() { echo "src/lua src/lua-dyn src/luac src/liblua5.4.so.0"; }

sqlite3_build() {
  # debian/rules' CFLAGS and configure options (less --prefix and the like).
  local d
  d=$(sed -n '/^export CFLAGS += -O2/,/^$/p' debian/rules | tr -d '\\\n' | grep -o -- '-D[^ ]*' | tr '\n' ' ')
  [ -n "$d" ] || { echo "no -D flags found in debian/rules" >&2; return 1; }
  # The shell links the shared library (Debian's 32-dynamic_link.patch),
  # so the library gets the features of the shell's SHELL_OPT too: without
  # the dbpage table the shell's .recover fails and recover.test stops
  # the whole test run.
  d="$d -DSQLITE_ENABLE_DBPAGE_VTAB -DSQLITE_ENABLE_BYTECODE_VTAB -DSQLITE_ENABLE_EXPLAIN_COMMENTS"
  d="$d -DSQLITE_ENABLE_UNKNOWN_SQL_FUNCTION -DSQLITE_ENABLE_OFFSET_SQL_FUNC"
  CFLAGS="$cflags $(lto_flag "$lto") -fno-strict-aliasing $d" LDFLAGS=-Wl,--as-needed \
    ./configure --disable-static --enable-threadsafe --enable-load-extension --enable-json \
      --enable-fts4 --enable-fts5 --disable-amalgamation \
      --with-tcl=/usr/lib/x86_64-linux-gnu/tcl8.6 >/dev/null
  logged make -j"$jobs" all
  # testfixture from the amalgamation, as upstream builds it: 3.40.1's
  # non-amalgamation testfixture compiles fts3_term.c twice (duplicate
  # symbol sqlite3Fts3InitTerm).
  logged make USE_AMALGAMATION=1 testfixture
}
sqlite3_test() {
  # "Tests do not work when run as root": as nobody, in a tree it owns.
  chown -R nobody: . && runuser -u nobody -- make "$sqlite_tests" >"$1" 2>&1 || true
  # "N errors out of M tests on ..."
  sed -n 's/^\([0-9]\+\) errors out of \([0-9]\+\) tests.*/\1 \2/p' "$1" | tail -n 1 |
    awk '{ print $2 - $1, $1 } END { if (NR == 0) print "0 1" }'
}
sqlite3_tested() { echo "testfixture sqlite3 .libs/*"; }

libsodium_build() {
  CFLAGS="$cflags $(lto_flag "$lto")" ./configure --disable-static >/dev/null
  logged make -j"$jobs"
  logged make -j"$jobs" check TESTS=
}
libsodium_test() {
  make -j"$jobs" check >"$1" 2>&1 || true
  local p f
  p=$(sed -n 's/^# PASS: *//p' "$1" | tail -n 1)
  f=$(sed -n 's/^# FAIL: *//p' "$1" | tail -n 1)
  echo "${p:-0} ${f:-1}"
}
libsodium_tested() { echo "src/libsodium/.libs/libsodium.so.* test/default/.libs/*"; }

# compile_cost PKG: the plugin's compile cost on the largest file the
# build in the tree compiled, with that build's command line (the object
# to /dev/null), one compile each way under callgrind (compile_overhead.py);
# writes $out/cost.
compile_cost() {
  python3 - "$log.compiles" "$out/cost.commands" <<'PY'
import os, shlex, sys
best = None
for line in open(sys.argv[1]):
    cwd, cmd = line.rstrip("\n").split("\t", 1)
    argv = shlex.split(cmd)
    srcs = [a for a in argv if a.endswith(".c") and os.path.isfile(os.path.join(cwd, a))]
    if "-c" not in argv or "-o" not in argv or len(srcs) != 1:
        continue
    size = os.path.getsize(os.path.join(cwd, srcs[0]))
    if best is None or size > best[0]:
        argv[argv.index("-o") + 1] = "/dev/null"
        best = (size, cwd, argv)
with open(sys.argv[2], "w") as f:
    f.write(best[1] + "\t" + shlex.join(best[2]) + "\n")
PY
  python3 "$here/compile_overhead.py" "$build" --instructions --generated none \
    --commands "$out/cost.commands" >"$out/cost.txt" 2>&1 || true
  # "| `file.c` | 1 | 1.234 G | 1.240 G | +0.486% |" -> "+0.486% (file.c, 1.234 G)"
  awk -F'|' '/^\| `/ { for (i = 2; i <= 6; i++) gsub(/^ +| +$|`/, "", $i); print $6 " (" $2 ", " $4 ")" }' \
    "$out/cost.txt" >"$out/cost"
  [ -s "$out/cost" ] || echo "n/a (see $out/cost.txt)" >"$out/cost"
}

# run_tests PKG CFGDIR: the tests of the configuration whose files are in
# the tree now; writes CFGDIR/tests ('passed failed', plus ' =' if copied).
declare -A tested
run_tests() {
  local p=$1 d=$2 key=
  if [ "$tests" = distinct ]; then
    key=$(cd "$tree" && sha256sum $(${p//./}_tested) 2>/dev/null | sha256sum | cut -c1-16)
    if [ -n "${tested[$p.$key]:-}" ]; then
      echo "$(cat "${tested[$p.$key]}/tests") =" >"$d/tests"
      return
    fi
  fi
  (cd "$tree" && ${p//./}_test "$d/test.log") >"$d/tests"
  [ -z "$key" ] || tested[$p.$key]=$d
}

packages_built=$packages
results=$work/results.md
status=0
rows=()
summary_same=0 summary_total=0 summary_runs=0 summary_testdiff=0 not_built=0 summary_copied=0
[ -z "$report" ] || packages_built=
for p in $packages_built; do
  tree=$work/tree/$p
  out=$work/out/$p
  # The compile cost of an earlier run is kept (callgrind is slow).
  mkdir -p "$out" && find "$out" -mindepth 1 -maxdepth 1 ! -name 'cost*' -exec rm -rf {} +
  for lto in $ltos; do
    for cc in stock plugin; do
      cfg=$cc.$lto
      echo "== $p: $cc clang, LTO $lto"
      rm -rf "$tree" && cp -a "$work/src/$p" "$tree"
      mkdir -p "$out/$cfg.stock" "$out/$cfg.klto"
      log=$out/$cfg.commands
      : >"$log"
      : >"$log.compiles"
      export KLTO_RC_PLUGIN=
      [ "$cc" = stock ] || KLTO_RC_PLUGIN=$plugin
      export KLTO_RC_LD=$stock_ld
      (cd "$tree" && ${p//./}_build) >"$out/$cfg.build.log" 2>&1 ||
        { tail -n 30 "$out/$cfg.build.log" >&2; die "$p: the $cfg build failed: $out/$cfg.build.log"; }
      collect "$tree" "$out/$cfg.stock"
      if [ "$cost" = yes ] && [ ! -f "$out/cost" ]; then
        echo "   compile cost (callgrind) ..."
        compile_cost
      fi
      run_tests "$p" "$out/$cfg.stock"
      # The same link commands, in order, with klto's linker.
      export KLTO_RC_LD=$klto_ld
      while IFS= read -r line; do
        (eval "$line") >>"$out/$cfg.relink.log" 2>&1 ||
          { tail -n 30 "$out/$cfg.relink.log" >&2; die "$p: relinking $cfg with klto's ld.lld failed"; }
      done <"$log"
      collect "$tree" "$out/$cfg.klto"
      run_tests "$p" "$out/$cfg.klto"
    done
  done
  rm -rf "$tree"
done

# The table, from what out/ holds.
for p in $packages; do
  out=$work/out/$p
  c=
  [ ! -f "$out/cost" ] || c=$(cat "$out/cost")
  : >"$out/differ"
  for lto in $ltos; do
    for ld in stock klto; do
      # A run cut short: what was not built (or not tested) is left out.
      if [ ! -f "$out/stock.$lto.$ld/tests" ] || [ ! -f "$out/plugin.$lto.$ld/tests" ]; then
        rows+=("| $p | $lto | $ld | not built | | | | | $c |")
        c=
        not_built=$((not_built + 1))
        status=1
        continue
      fi
      o=$(compare "$out/stock.$lto.$ld" "$out/plugin.$lto.$ld" o)
      b=$(compare "$out/stock.$lto.$ld" "$out/plugin.$lto.$ld" bin)
      l="—"
      if [ $ld = klto ]; then
        l1=$(compare "$out/stock.$lto.stock" "$out/stock.$lto.klto" bin)
        l2=$(compare "$out/plugin.$lto.stock" "$out/plugin.$lto.klto" bin)
        set -- $l1 $l2
        l="$(($1 + $3))/$(($2 + $4))"
        summary_same=$((summary_same + $1 + $3)); summary_total=$((summary_total + $2 + $4))
        [ $(($1 + $3)) -eq $(($2 + $4)) ] && l="yes ($l)" || { l="**no** ($l)"; status=1; }
      fi
      set -- $o; os="$1/$2"; [ "$1" -eq "$2" ] && os="yes ($os)" || { os="**no** ($os)"; status=1; }
      summary_same=$((summary_same + $1)); summary_total=$((summary_total + $2))
      set -- $b; bs="$1/$2"; [ "$1" -eq "$2" ] && bs="yes ($bs)" || { bs="**no** ($bs)"; status=1; }
      summary_same=$((summary_same + $1)); summary_total=$((summary_total + $2))
      ts=$(cat "$out/stock.$lto.$ld/tests") tp=$(cat "$out/plugin.$lto.$ld/tests")
      # Against stock clang with stock ld.lld in the same LTO mode (the
      # number of tests a suite runs may differ between modes).
      base=$(cut -d' ' -f1-2 "$out/stock.$lto.stock/tests")
      for t in "$ts" "$tp"; do
        summary_runs=$((summary_runs + 1))
        case $t in *=) summary_copied=$((summary_copied + 1)) ;; esac
        [ "$(echo "$t" | cut -d' ' -f1-2)" = "$base" ] || { summary_testdiff=$((summary_testdiff + 1)); status=1; }
      done
      fmt() { set -- $1; echo "$1 passed, $2 failed${3:+ (=)}"; }
      rows+=("| $p | $lto | $ld | $os | $bs | $l | $(fmt "$ts") | $(fmt "$tp") | $c |")
      c=
    done
  done
done

{
  echo "clang: $clang; plugin: $plugin; klto ld.lld: $klto_ld; CFLAGS: $cflags (+ -flto / -flto=thin)"
  echo "objects, linked files: identical files / files compared (cmp); '+plugin = stock': clang -fplugin against stock clang, the same linker;"
  echo "'= stock ld.lld': klto's ld.lld against stock's, both compilers; tests: passed, failed ((=): copied from a byte-identical configuration)"
  echo
  echo "| package | LTO | linker | objects: +plugin = stock | linked files: +plugin = stock | = stock ld.lld | tests, stock clang | tests, clang+plugin | compile cost, largest file (instructions) |"
  echo "|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  [ $not_built -eq 0 ] || echo "not built or not tested: $not_built configurations"
  if [ $summary_same -eq $summary_total ] && [ $summary_testdiff -eq 0 ]; then
    echo "summary: $packages: all $summary_total file comparisons identical; test results the same in all $summary_runs configurations ($((summary_runs - summary_copied)) test runs, $summary_copied copied from byte-identical files)"
  else
    echo "summary: $packages: $((summary_total - summary_same)) of $summary_total file comparisons differ (listed in $work/out/*/differ); $summary_testdiff of $summary_runs configurations' test results differ from stock's"
  fi
} | tee "$results"
exit $status
