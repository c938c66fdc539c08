#!/bin/bash
# Downloads Debian source packages (.dsc and its tarballs, not unpacked)
# into DIR. apt runs with a private configuration in DIR/apt whose deb-src
# lines are derived from the system's deb lines; the system's sources are
# never touched, and nothing of the packages is kept in the project.
#   test/debian-source.sh DIR PACKAGE[=VERSION]...
# Used by test/lld-suite/fetch.sh and bench/plugin/real-code.sh.
set -euo pipefail
dir=${1:?usage: debian-source.sh DIR PACKAGE[=VERSION]...}
shift
[ $# -gt 0 ] || { echo "usage: debian-source.sh DIR PACKAGE[=VERSION]..." >&2; exit 2; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

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
      -o "APT::Get::List-Cleanup=0" -o "APT::Sandbox::User=root")
# The lists are fetched once per DIR (delete DIR/apt/lists to refresh).
if ! ls "$apt_dir/lists/"*Sources* >/dev/null 2>&1; then
  apt-get "${opts[@]}" update >"$apt_dir/update.log" 2>&1 ||
    { cat "$apt_dir/update.log" >&2; exit 1; }
fi
cd "$dir"
# A package without =VERSION is the newest version the lists name that can
# be downloaded: a mirror may list a version (a security update, say) whose
# files it does not serve.
for want in "$@"; do
  case $want in
    *=*) versions=${want#*=} ;;
    *) versions=$(apt-cache "${opts[@]}" showsrc "$want" 2>/dev/null |
         sed -n 's/^Version: //p' | sort -u | sort -r -V) ;;
  esac
  ok=
  for v in $versions; do
    if apt-get "${opts[@]}" source --download-only "${want%%=*}=$v" \
         >>"$apt_dir/source.log" 2>&1; then ok=1; break; fi
  done
  [ -n "$ok" ] || { cat "$apt_dir/source.log" >&2
    echo "debian-source.sh: could not download ${want%%=*} (${versions:-no version listed})" >&2; exit 1; }
done
