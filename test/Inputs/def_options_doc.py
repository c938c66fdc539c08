#!/usr/bin/env python3
"""Checks a doc's option table against the .def file that is the one list of
those options (plugin/Options.def, lld-ext/KltoOptions.def): the same
options in the same order, each spelled as the tool takes it. The table is
the first one after the doc's "## Options" heading; its first column holds
the spellings. Prints each difference."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from option_lists import c_strings as strings, entries

definition, doc = sys.argv[1], sys.argv[2]

def spellings(kind, args):
    """What the first column must say for one line of the .def."""
    s = strings(args)
    if kind == "KLTO_PLUGIN_FLAG":
        return "`%s`, `no-%s`" % (s[0], s[0])
    if kind == "KLTO_PLUGIN_VALUE":
        return "`%s=%s`" % (s[0], s[1])
    if kind == "KLTO_PLUGIN_LIST":
        return "`%s=%s[,…]`" % (s[0], s[1])
    if kind == "KLTO_FLAG":
        return "`--%s`" % s[0]
    if kind == "KLTO_VALUE":
        return "`--%s=%s`" % (s[0], s[1])
    raise SystemExit("unknown option kind " + kind)

want = [spellings(macro, args) for macro, args in entries(definition)]

section = open(doc).read().split("\n## Options\n", 1)[1]
table = re.search(r"^\|.*?(?=\n[^|]|\Z)", section, re.S | re.M).group(0)
# A "|" inside a cell is written "\|" in Markdown.
rows = [line.split(" | ")[0][2:].replace("\\|", "|")
        for line in table.splitlines()[2:]]
errors = ["%s: docs have %s" % (w, r) for w, r in zip(want, rows) if w != r]
errors += ["%s: not in the docs" % w for w in want[len(rows):]]
errors += ["%s: not in %s" % (r, definition) for r in rows[len(want):]]
for e in errors:
    print(e)
print("%d options, %d differences" % (len(want), len(errors)))
sys.exit(1 if errors else 0)
