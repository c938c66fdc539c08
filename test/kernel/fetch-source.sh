#!/bin/bash
# fetch-source.sh - Debian's linux-source-<version> package, downloaded (not
# installed) and unpacked into DIR; prints the source tree's path.
#
#   test/kernel/fetch-source.sh DIR 6.1|6.12|7.3
#
# linux-source-<v> is a binary package of architecture all holding
# /usr/src/linux-source-<v>.tar.xz. 6.1 is in bookworm, 6.12 in
# bookworm-backports, 7.3 in trixie-backports. apt runs with a private
# configuration in DIR/apt-<v>: the system's Debian mirror (the URI of its
# deb lines that serve a suite named like the system's codename) with
# that package's suite only (Debian lists architecture all packages in
# binary-<arch> too: binary-all is not fetched). The system's apt sources
# are not touched and
# nothing is installed: `apt-get download`, `dpkg-deb -x`, `tar -x`.
set -euo pipefail
dir=${1:?usage: fetch-source.sh DIR 6.1|6.12|7.3}
v=${2:?usage: fetch-source.sh DIR 6.1|6.12|7.3}
case $v in
  6.1) suite=bookworm ;;
  6.12) suite=bookworm-backports ;;
  7.3) suite=trixie-backports ;;
  *) echo "fetch-source.sh: version 6.1, 6.12 or 7.3" >&2; exit 2 ;;
esac
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
src=$dir/linux-source-$v
if [ -f "$src/Makefile" ]; then echo "$src"; exit 0; fi

# The system's Debian mirror: a deb URI serving the system's own codename.
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
mirror=$(
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    sed -n "s/^[[:space:]]*deb[[:space:]]\+\(\[[^]]*\][[:space:]]*\)\{0,1\}\([^ ]*\)[[:space:]]\+${codename}[[:space:]].*/\2/p" "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v c="$codename" '
      function flush() { if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " c " ")) print uri
        types = uri = suites = "" }
      /^[[:space:]]*$/ { flush(); next }
      /^Types:/ { types = substr($0, 8) }
      /^URIs:/ { uri = $2 }
      /^Suites:/ { suites = substr($0, 9) }
      END { flush() }' "$f"
  done | head -1)
mirror=${mirror:-http://deb.debian.org/debian}

apt_dir=$dir/apt-$v
mkdir -p "$apt_dir/lists/partial" "$apt_dir/parts" "$apt_dir/cache/archives/partial"
echo "deb [arch=$(dpkg --print-architecture)] $mirror $suite main" >"$apt_dir/sources.list"
opts=(-o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o "Dir::Etc::sourceparts=$apt_dir/parts"
      -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
      -o "APT::Get::List-Cleanup=0" -o "APT::Sandbox::User=root")
if ! ls "$apt_dir/lists/"*Packages* >/dev/null 2>&1; then
  apt-get -q "${opts[@]}" update >"$apt_dir/apt.log" 2>&1 ||
    { cat "$apt_dir/apt.log" >&2; exit 1; }
fi
rm -f "$apt_dir"/linux-source-"$v"_*.deb
(cd "$apt_dir" && apt-get "${opts[@]}" download "linux-source-$v" >>"$apt_dir/apt.log" 2>&1) ||
  { cat "$apt_dir/apt.log" >&2; echo "fetch-source.sh: could not download linux-source-$v from $mirror $suite" >&2; exit 1; }
deb=$(ls "$apt_dir"/linux-source-"$v"_*.deb)
rm -rf "$apt_dir/pkg"
dpkg-deb -x "$deb" "$apt_dir/pkg"
tar -C "$dir" -xf "$apt_dir/pkg/usr/src/linux-source-$v.tar.xz"
rm -rf "$apt_dir/pkg"
# The package's version, for the record.
basename "$deb" .deb >"$src/.klto-debian-package"
[ -f "$src/Makefile" ] || { echo "fetch-source.sh: $deb did not give $src/Makefile" >&2; exit 1; }
echo "$src"
