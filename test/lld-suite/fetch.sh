#!/bin/bash
# Fetches lld/test/ELF of the LLVM release liblld-19-dev was built from,
# out of Debian's llvm-toolchain-19 source package, into DIR/lld, which
# test/debian-source.sh downloads (a private apt configuration; the
# system's sources are never touched, and nothing of the package is kept
# in the project).
#   test/lld-suite/fetch.sh DIR
set -euo pipefail
dir=${1:?usage: fetch.sh DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
[ -d "$dir/lld/test/ELF" ] && exit 0

here=$(cd "$(dirname "$0")" && pwd)
version=$(dpkg-query -W -f='${Version}' liblld-19-dev)
"$here/../debian-source.sh" "$dir" "llvm-toolchain-19=$version"
cd "$dir"
orig=$(ls llvm-toolchain-19_*.orig.tar.* | head -n 1)
# Only lld/ is needed: the tarball holds all of LLVM.
tar -xf "$orig" --wildcards --strip-components=1 '*/lld/test' '*/lld/ELF/Options.td' '*/lld/ELF/Driver.cpp' '*/lld/ELF/DriverUtils.cpp' '*/lld/ELF/LinkerScript.cpp' '*/lld/ELF/ScriptParser.cpp' '*/lld/ELF/Writer.cpp' '*/lld/ELF/LTO.cpp' '*/lld/ELF/MarkLive.cpp'
rm -f llvm-toolchain-19_*
echo "lld/test/ELF of $version in $dir/lld"
