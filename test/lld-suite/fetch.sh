#!/bin/bash
# Fetches lld/test/ELF of the LLVM release liblld-N-dev was built from, out
# of Debian's llvm-toolchain-N source package, into DIR/lld. apt runs with a
# private configuration whose deb-src lines are derived from the system's
# deb lines; the system's sources are never touched, and nothing of the
# package is kept in the project.
#   test/lld-suite/fetch.sh DIR N
set -euo pipefail
dir=${1:?usage: fetch.sh DIR N}
major=${2:?usage: fetch.sh DIR N}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

version=$(dpkg-query -W -f='${Version}' "liblld-$major-dev")
stamp=$dir/lld/debian-version
if [ -d "$dir/lld/test/ELF" ] && [ "$(cat "$stamp" 2>/dev/null)" = "llvm-toolchain-$major=$version" ]; then
  exit 0
fi
rm -rf "$dir/lld"
apt_dir=$dir/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/parts" "$apt_dir/archives/partial"
list=$apt_dir/sources.list
: >"$list"
# One-line sources, then deb822 ones: every deb URI and suite gets deb-src.
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
  [ -f "$f" ] || continue
  sed -n 's/^[[:space:]]*deb[[:space:]]\+/deb-src /p' "$f" >>"$list"
done
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] || continue
  awk '
    function flush() {
      if (types ~ /(^| )deb( |$)/ && uris != "")
        print "Types: deb-src\nURIs: " uris "\nSuites: " suites \
              "\nComponents: " comps (signed != "" ? "\nSigned-By: " signed : "") "\n"
      types = uris = suites = comps = signed = ""
    }
    /^[[:space:]]*$/ { flush(); next }
    /^Types:/ { types = substr($0, 8) }
    /^URIs:/ { uris = substr($0, 7) }
    /^Suites:/ { suites = substr($0, 9) }
    /^Components:/ { comps = substr($0, 13) }
    /^Signed-By:/ { signed = substr($0, 12) }
    END { flush() }' "$f" >"$apt_dir/parts/$(basename "$f")"
done
opts=(-o "Dir::Etc::sourcelist=$list" -o "Dir::Etc::sourceparts=$apt_dir/parts"
      -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache::archives=$apt_dir/archives"
      -o "APT::Get::List-Cleanup=0")
apt-get "${opts[@]}" update >"$apt_dir/update.log" 2>&1 ||
  { cat "$apt_dir/update.log" >&2; exit 1; }
cd "$dir"
# Only the upstream tarball is used. apt checks each file against the
# archive's Sources index before it keeps it, so a tarball that is there is
# whole even when another file of the source package (some mirrors lack a
# stable update's .dsc) failed.
if ! apt-get "${opts[@]}" source --download-only "llvm-toolchain-$major=$version" \
     >"$apt_dir/source.log" 2>&1; then
  if ! ls "llvm-toolchain-${major}_"*.orig.tar.* >/dev/null 2>&1; then
    cat "$apt_dir/source.log" >&2
    exit 1
  fi
  echo "note: apt-get source failed for part of llvm-toolchain-$major=$version (see $apt_dir/source.log); its upstream tarball, all that is used, was fetched" >&2
fi
orig=$(ls "llvm-toolchain-${major}_"*.orig.tar.* | head -n 1)
# Only lld/ is needed: the tarball holds all of LLVM.
tar -xf "$orig" --wildcards --strip-components=1 '*/lld/test' '*/lld/ELF/Options.td' '*/lld/ELF/Driver.cpp' '*/lld/ELF/DriverUtils.cpp' '*/lld/ELF/LinkerScript.cpp' '*/lld/ELF/ScriptParser.cpp' '*/lld/ELF/Writer.cpp' '*/lld/ELF/LTO.cpp' '*/lld/ELF/MarkLive.cpp'
rm -f "llvm-toolchain-${major}_"*
echo "llvm-toolchain-$major=$version" >"$stamp"
echo "lld/test/ELF of $version in $dir/lld"
