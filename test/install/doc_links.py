#!/usr/bin/env python3
"""Checks that every relative link in the Markdown files under a directory
resolves there: the file or directory it names exists, and its #anchor,
if any, is a heading of the Markdown file it points into (GitHub's
anchors: the heading in lower case, without punctuation, spaces as
hyphens). Links with a scheme (https:, mailto:) are not followed, nor are
links inside code. test/install/check.sh runs it on the installed
documentation, where a link into the source tree has nothing to point to.

    doc_links.py <dir>

Prints each broken link as "FILE:LINE: TARGET: why", then one line
"N relative links in M documents", and exits 1 if any is broken.
"""
import os
import re
import sys

LINK = re.compile(r"\]\(([^)\s]+)\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]*(\S+)", re.M)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def prose(path):
    """The file's text with fenced code blocks and inline code spans (which
    may run over a line end) blanked, line ends kept."""
    out, fence = [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            stripped = line.lstrip()
            if fence or stripped.startswith(("```", "~~~")):
                if fence is None:
                    fence = stripped[:3]
                elif stripped.startswith(fence):
                    fence = None
                out.append("\n")
            else:
                out.append(line)
    blank = lambda m: re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r"`[^`]*`", blank, "".join(out))


def anchor(heading):
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        found = set()
        with open(path, encoding="utf-8") as f:
            fence = None
            for line in f:
                stripped = line.lstrip()
                if fence:
                    fence = None if stripped.startswith(fence) else fence
                elif stripped.startswith("```") or stripped.startswith("~~~"):
                    fence = stripped[:3]
                else:
                    m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
                    if m:
                        found.add(anchor(m.group(1)))
        cache[path] = found
    return cache[path]


def main(root):
    documents, links, broken = 0, 0, 0
    for directory, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            if not name.endswith(".md"):
                continue
            path = os.path.join(directory, name)
            documents += 1
            text = prose(path)
            found = [(m.start(1), m.group(1)) for m in LINK.finditer(text)]
            found += [(m.start(1), m.group(1))
                      for m in REFERENCE.finditer(text)]
            for offset, target in sorted(found):
                if SCHEME.match(target):
                    continue
                links += 1
                file_part, _, fragment = target.partition("#")
                dest = (os.path.normpath(os.path.join(directory, file_part))
                        if file_part else path)
                why = None
                if not os.path.exists(dest):
                    why = "no such file"
                elif fragment and dest.endswith(".md") and \
                        fragment not in anchors(dest):
                    why = "no heading with that anchor"
                if why:
                    broken += 1
                    print("%s:%d: %s: %s" % (os.path.relpath(path, root),
                                             text.count("\n", 0, offset) + 1,
                                             target, why))
    print("%d relative links in %d documents" % (links, documents))
    return 1 if broken or not documents else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
