#!/bin/bash
# Fetches lld/test/ELF of the LLVM release liblld-N-dev was built from, out
# of Debian's llvm-toolchain-N source package, into DIR/lld, which
# test/debian-source.sh downloads (a private apt configuration; the
# system's sources are never touched, and nothing of the package is kept
# in the project).
#   test/lld-suite/fetch.sh DIR N
set -euo pipefail
dir=${1:?usage: fetch.sh DIR N}
major=${2:?usage: fetch.sh DIR N}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

here=$(cd "$(dirname "$0")" && pwd)
# The source package's version: a binNMU's binaries (1:17.0.6-22+b2) come
# from the source 1:17.0.6-22.
version=$(dpkg-query -W -f='${source:Version}' "liblld-$major-dev")
stamp=$dir/lld/debian-version
# The second line says llvm/utils/dtlto was taken too (an older fetch did not).
want="llvm-toolchain-$major=$version
lld/test, llvm/utils/dtlto"
if [ -d "$dir/lld/test/ELF" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  exit 0
fi
rm -rf "$dir/lld" "$dir/llvm"
# Only the upstream tarball is used. apt checks each file against the
# archive's Sources index before it keeps it, so a tarball that is there is
# whole even when another file of the source package (some mirrors lack a
# stable update's .dsc) failed.
if ! "$here/../debian-source.sh" "$dir" "llvm-toolchain-$major=$version" \
     >"$dir/source.log" 2>&1; then
  if ! ls "$dir/llvm-toolchain-${major}_"*.orig.tar.* >/dev/null 2>&1; then
    cat "$dir/source.log" >&2
    exit 1
  fi
  echo "note: part of llvm-toolchain-$major=$version failed to download (see $dir/source.log); its upstream tarball, all that is used, was fetched" >&2
fi
cd "$dir"
orig=$(ls "llvm-toolchain-${major}_"*.orig.tar.* | head -n 1)
# Only lld/ is needed (the tarball holds all of LLVM), and from LLVM 21 on
# the distributed ThinLTO tests' helpers in llvm/utils/dtlto
# (%llvm_src_root/utils/dtlto/mock.py), which earlier releases do not
# have: tar then says that member is not in the archive.
rc=0
tar -xf "$orig" --wildcards --strip-components=1 '*/lld/test' '*/lld/ELF/Options.td' '*/lld/ELF/Driver.cpp' '*/lld/ELF/DriverUtils.cpp' '*/lld/ELF/LinkerScript.cpp' '*/lld/ELF/ScriptParser.cpp' '*/lld/ELF/Writer.cpp' '*/lld/ELF/LTO.cpp' '*/lld/ELF/MarkLive.cpp' \
  '*/llvm/utils/dtlto' 2>"$dir/tar.log" || rc=$?
if [ ! -f "$dir/lld/test/lit.cfg.py" ] || grep -v 'llvm/utils/dtlto: Not found in archive\|Exiting with failure status' "$dir/tar.log" >&2; then
  echo "fetch.sh: tar -x of $orig failed (status $rc)" >&2
  exit 1
fi
rm -f "llvm-toolchain-${major}_"* "$dir/tar.log"
echo "$want" >"$stamp"
echo "lld/test/ELF of $version in $dir/lld"
