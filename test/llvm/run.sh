#!/bin/bash
# Builds and tests klto against Debian's LLVM N in a Debian 13 (trixie) root
# of its own, for the majors klto supports: 17, 18, 19 and 22 from trixie,
# 21 from trixie-backports.
#
#   test/llvm/run.sh N [--root DIR] [--demo] [--lld-suite [--lld-filter REGEX]] [--package]
#                      [--plugin-cost KTREE] [--kernel] [--no-check]
#                      [--shell] [-j JOBS]
#
# The root is made with debootstrap from Debian's packages alone (the
# archive this machine's apt already uses), LLVM N and what the tests need
# are installed in it with apt-get, and this source tree is mounted
# read-only at /klto inside it. Then, inside the root:
#   cmake -S /klto -B /build -G Ninja -DKLTO_LLVM_PREFIX=/usr/lib/llvm-N
#   ninja -C /build && ninja -C /build check      (the whole lit suite)
# and on request:
#   --demo       examples/demo/run.sh /build
#   --lld-suite  test/lld-suite/run.sh --build /build: LLD N's own
#                lld/test/ELF, from Debian's llvm-toolchain-N source
#                package, through klto's ld.lld N, plain and --kinit-order
#                (--lld-filter REGEX: only the tests whose path matches)
#   --package    cpack -G DEB, dpkg -i of the package in the root, and
#                test/install/check.sh on the installed files
#   --plugin-cost KTREE
#                the plugin's compile cost in instructions (callgrind) on
#                the kernel files docs/performance.md measures, compiled
#                with kbuild's command lines by clang N, with and without
#                the plugin (bench/plugin/compile_overhead.py
#                --instructions); KTREE is a built Linux x86_64 tree (its
#                O= directory, e.g. test/kernel/run.sh's ref-pci), mounted
#                read-only at the same path in the root with its source
#                tree. Fails when a file costs 2% or more.
#   --kernel     test/kernel/run.sh --arch arm64 --part 1 --lto thin: Linux 6.1's arm64
#                tinyconfig built with klto's ld.lld --kinit-order under
#                ThinLTO and booted under QEMU, against its reference built
#                without LTO (work directory /build/kernel)
#   --no-check   leaves out the lit suite (for a second run of other steps)
#   --shell      an interactive shell in the root once the steps are done
# DIR (default /var/tmp/klto-llvm/trixie-llvm-N) is kept between runs: a
# second run reuses the root, its packages and the build. The root's build
# tree is DIR/build. Needs root (debootstrap, chroot, mount).
#
# Exit status: 0 if every step passed, 1 if a step failed, 2 if the root
# could not be made. Ends with one line per step ("llvm-N build: ok", ...).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
die() { echo "run.sh: $*" >&2; exit 2; }

major=
root=
steps="build check"
jobs=2
shell=0
ktree=
lld_filter=
while [ $# -gt 0 ]; do
  case $1 in
    --root) root=${2:?--root needs a directory}; shift 2 ;;
    --demo) steps="$steps demo"; shift ;;
    --lld-suite) steps="$steps lld-suite"; shift ;;
    --lld-filter) lld_filter=${2:?--lld-filter needs a regex}; shift 2 ;;
    --package) steps="$steps package"; shift ;;
    --plugin-cost) ktree=${2:?--plugin-cost needs a built kernel tree}; steps="$steps plugin-cost"; shift 2 ;;
    --kernel) steps="$steps kernel"; shift ;;
    --no-check) steps=${steps/ check/}; shift ;;
    --shell) shell=1; shift ;;
    -j) jobs=${2:?-j needs a number}; shift 2 ;;
    -j*) jobs=${1#-j}; shift ;;
    -h|--help) usage; exit 0 ;;
    [0-9]*) major=$1; shift ;;
    *) usage >&2; exit 2 ;;
  esac
done
case $major in
  17|18|19|22) suites="trixie trixie-updates" ;;
  21) suites="trixie trixie-updates trixie-backports" ;;
  "") usage >&2; exit 2 ;;
  *) die "LLVM $major: klto is built and tested for 17, 18, 19, 21 and 22" ;;
esac
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mount)"
if [ -n "$ktree" ]; then
  [ -f "$ktree/include/config/kernel.release" ] && [ -d "$ktree/source/" ] ||
    die "$ktree is not a built kernel tree (an O= directory with include/config and source)"
  ktree=$(cd "$ktree" && pwd)
  ksrc=$(readlink -f "$ktree/source")
fi
: "${root:=/var/tmp/klto-llvm/trixie-llvm-$major}"
mkdir -p "$root"
root=$(cd "$root" && pwd)

# Debian's archive as this machine's apt reaches it: the first deb URI of a
# Debian suite with main, from one-line or deb822 sources.
mirror() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk '$1 == "deb" && $0 ~ / main/ && $0 !~ /security/ {
           for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /=/) { print $i; exit } }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk 'BEGIN { RS = "" } /Types:[^\n]*deb/ && /Components:[^\n]* main/ &&
         /Signed-By: \/usr\/share\/keyrings\/debian-archive-keyring.gpg/ &&
         !/Suites:[^\n]*security/ {
           match($0, /URIs: [^ \n]+/); print substr($0, RSTART + 6, RLENGTH - 6) }' "$f"
  done
}

mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" || true
  done
}
trap cleanup EXIT
bind() { # bind SRC DEST [ro]
  mkdir -p "$2"
  mount --bind "$1" "$2"
  mounted+=("$2")
  if [ "${3-}" = ro ]; then mount -o remount,bind,ro "$2"; fi
}

log=$root/klto-run.log
if [ ! -x "$root/usr/bin/apt-get" ]; then
  command -v debootstrap >/dev/null ||
    DEBIAN_FRONTEND=noninteractive apt-get install -y debootstrap >/dev/null ||
    die "debootstrap is not installed and cannot be"
  url=$(mirror | head -n 1)
  [ -n "$url" ] || die "no Debian archive in this machine's apt sources"
  echo "llvm-$major: debootstrap trixie into $root"
  debootstrap --variant=minbase trixie "$root" "$url" >"$root.debootstrap.log" 2>&1 ||
    { tail -n 20 "$root.debootstrap.log" >&2; die "debootstrap failed (log: $root.debootstrap.log)"; }
  rm -f "$root/etc/apt/sources.list"
  cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $url
Suites: $suites
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
# The root is a mount point of its own, so that unshare --mount works in it
# (test/lld-suite/run.sh gives lit a private /dev/null that way), and has a
# /dev of its own: nothing a test does to a device node reaches this
# machine's /dev.
bind "$root" "$root"
mount -t proc proc "$root/proc"
mounted+=("$root/proc")
mount -t tmpfs -o mode=755,size=64m klto-dev "$root/dev"
mounted+=("$root/dev")
for node in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
  IFS=: read -r name maj min <<<"$node"
  mknod -m 666 "$root/dev/$name" c "$maj" "$min"
done
ln -s /proc/self/fd "$root/dev/fd"
ln -s /proc/self/fd/0 "$root/dev/stdin"
ln -s /proc/self/fd/1 "$root/dev/stdout"
ln -s /proc/self/fd/2 "$root/dev/stderr"
mkdir -p "$root/dev/shm" "$root/dev/pts"
mount -t tmpfs -o mode=1777 klto-shm "$root/dev/shm"
mounted+=("$root/dev/shm")
bind "$src" "$root/klto" ro
if [ -n "$ktree" ]; then
  # kbuild's command lines name both trees by their absolute paths.
  bind "$ktree" "$root$ktree" ro
  case $ksrc/ in "$ktree"/*) ;; *) bind "$ksrc" "$root$ksrc" ro ;; esac
fi
mkdir -p "$root/build"
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
  LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }

# LLVM N and the tools and libraries the lit suite uses (as the README's
# first command installs them on Debian 12, with Debian 13's names).
pkgs="cmake ninja-build python3 make file man-db strace libc6-dev xz-utils
  clang-$major lld-$major llvm-$major-dev llvm-$major-tools libclang-$major-dev
  liblld-$major-dev libclang-rt-$major-dev
  qemu-user libc6-dev-arm64-cross libgcc-14-dev-arm64-cross
  libjemalloc2 libtcmalloc-minimal4t64 libmimalloc3"
[ -z "$ktree" ] || pkgs="$pkgs valgrind"
if ! in_root dpkg -s $pkgs >/dev/null 2>&1; then
  echo "llvm-$major: apt-get install clang-$major lld-$major ... in the root"
  { in_root apt-get update && in_root apt-get install -y --no-install-recommends $pkgs; } \
    >"$root.apt.log" 2>&1 ||
    { tail -n 20 "$root.apt.log" >&2; die "apt-get failed in the root (log: $root.apt.log)"; }
fi
version=$(in_root dpkg-query -W -f='${Version}' "clang-$major")
echo "llvm-$major: clang-$major $version"

declare -A result
status=0
step() { # step NAME COMMAND...: runs COMMAND in the root, logs to /build/NAME.log
  local name=$1 rc=0
  shift
  echo "llvm-$major $name: $* (log: $root/build/$name.log)"
  in_root bash -c "$*" >"$root/build/$name.log" 2>&1 || rc=$?
  if [ $rc = 0 ]; then result[$name]=ok; else result[$name]="FAILED (status $rc)"; status=1; fi
}

for s in $steps; do
  case $s in
    build)
      step build "cmake -S /klto -B /build -G Ninja -DKLTO_LLVM_PREFIX=/usr/lib/llvm-$major \
        && ninja -C /build -j$jobs"
      # Of the files this run compiled: a deprecation here is next major's
      # build error.
      warnings=$(grep -c ' warning: ' "$root/build/build.log" || true)
      [ "$warnings" = 0 ] || result[build]="${result[build]} ($warnings compiler warnings)" ;;
    check)
      [[ ${result[build]:-} == ok* ]] || { result[check]="not run"; continue; }
      step check "ninja -C /build -j$jobs check"
      counts=$(grep -E '^ *(Passed|Failed|Unsupported|Expectedly Failed|Unresolved) *:' \
               "$root/build/check.log" | tr -s ' ' | paste -sd, - || true)
      result[check]="${result[check]}${counts:+ ($counts)}" ;;
    demo)
      step demo "/klto/examples/demo/run.sh /build" ;;
    lld-suite)
      step lld-suite "/klto/test/lld-suite/run.sh --build /build --work /build/lld-suite -j $jobs \
        ${lld_filter:+--filter '$lld_filter'} \
        && rm -rf /build/lld-suite/{stock,klto,kinit}/test"
      summary=$(grep -E '^regressions:' "$root/build/lld-suite.log" || true)
      result[lld-suite]="${result[lld-suite]}${summary:+ ($summary)}" ;;
    plugin-cost)
      [[ ${result[build]:-} == ok* ]] || { result[plugin-cost]="not run"; continue; }
      step plugin-cost "python3 /klto/bench/plugin/compile_overhead.py /build --instructions \
        --generated none --kernel $ktree --objs drivers/pci/quirks.o,init/main.o,kernel/printk/printk.o"
      # | Linux 7.3.4 `init/main.o` (kbuild's command line) | 1 | 2.862 G | 2.867 G | +0.178% |
      costs=$(sed -n 's/^| Linux [^`]*`\([^`]*\)`.* | \([-+][0-9.]*%\) |$/\1 \2/p' \
              "$root/build/plugin-cost.log" | paste -sd, - | sed 's/,/, /g')
      if [ "${result[plugin-cost]}" = ok ] && [ -n "$costs" ] &&
         awk -v c="$costs" 'BEGIN { n = split(c, a, /[ ,%]+/); for (i = 2; i <= n; i += 2)
                              if (a[i] + 0 >= 2) exit 1 }'; then :
      elif [ "${result[plugin-cost]}" = ok ]; then
        result[plugin-cost]="FAILED (a file costs 2% or more, or no figures)"; status=1
      fi
      result[plugin-cost]="${result[plugin-cost]}${costs:+ ($costs)}" ;;
    kernel)
      [[ ${result[build]:-} == ok* ]] || { result[kernel]="not run"; continue; }
      step kernel "/klto/test/kernel/run.sh --build /build --work /build/kernel --arch arm64 --part 1 --lto thin"
      # Its last line, "failures: N"; the tables are in the summary.
      summary=$(grep -E '^failures:' "$root/build/kernel/summary-arm64.md" 2>/dev/null || true)
      result[kernel]="${result[kernel]}${summary:+ ($summary)}" ;;
    package)
      step package "cd /build && rm -f klto*.deb && cpack -G DEB && dpkg -i /build/klto*.deb \
        && /klto/test/install/check.sh /usr /build/deb-check" ;;
  esac
done

if [ $shell = 1 ]; then
  in_root env TERM="${TERM:-dumb}" bash -i || true
fi
for s in $steps; do
  echo "llvm-$major $s: ${result[$s]:-not run}"
done | tee "$log"
exit $status
