#!/usr/bin/env python3
"""Checks docs/kfence.md's option table against runtime/kfence/options.inc,
the one list of KFENCE_OPTIONS: the same options in the same order, with
the same default, range and description. Prints each difference."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "Inputs"))
from option_lists import c_strings, entries, fields

inc, doc = sys.argv[1], sys.argv[2]

options = []
for _, body in entries(inc):
    kind, name, default, lo, hi, desc = fields(body)
    options.append((kind, name, default, lo, hi, "".join(c_strings(desc))))

def shown(kind, default, lo, hi):
    if kind == "bool":
        return default, "0, 1"
    if kind == "path":
        return "none", "a file name prefix, up to %s bytes" % hi
    if kind == "side":
        return "`%s`" % default.split("_")[-1].lower(), "`random`, `left`, `right`"
    shift = re.fullmatch(r"1ul << (\d+)", hi)
    return default, "%s .. %s" % (lo, "2^" + shift.group(1) if shift else hi)

text = open(doc).read()
table = text[text.index("## Options"):]
rows = re.findall(r"^\| `(\w+)` \| (.*?) \| (.*?) \| (.*?) \|$", table, re.M)
errors = []
if [r[0] for r in rows] != [o[1] for o in options]:
    errors.append("options differ: docs %s, options.inc %s" %
                  ([r[0] for r in rows], [o[1] for o in options]))
for (kind, name, default, lo, hi, desc), row in zip(options, rows):
    want = (name,) + shown(kind, default, lo, hi) + (desc,)
    if tuple(row) != want:
        errors.append("%s: docs say %s, options.inc %s" % (name, row, want))
for e in errors:
    print(e)
print("%d options, %d differences" % (len(options), len(errors)))
sys.exit(1 if errors else 0)
