#!/usr/bin/env python3
"""Checks docs/kfence.md's option table against runtime/kfence/options.inc,
the one list of KFENCE_OPTIONS: the same options in the same order, with
the same default, range, what secure mode honours, and description; and,
given the man page too, that each of its OPTIONS entries says what secure
mode honours ("In secure mode: honoured." and so on). Prints each
difference.

    options_doc.py options.inc kfence.md [klto-kfence.7]
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "Inputs"))
from option_lists import c_strings, entries, fields
from man_options import roff_text

inc, doc, man = sys.argv[1], sys.argv[2], sys.argv[3:]

options = []
for _, body in entries(inc):
    kind, name, default, lo, hi, secure, desc = fields(body)
    options.append((kind, name, default, lo, hi, secure,
                    "".join(c_strings(desc))))

def shown(kind, default, lo, hi):
    if kind == "bool":
        return default, "0, 1"
    if kind == "path":
        return "none", "a file name prefix, up to %s bytes" % hi
    if kind == "side":
        return "`%s`" % default.split("_")[-1].lower(), "`random`, `left`, `right`"
    shift = re.fullmatch(r"1ul << (\d+)", hi)
    return default, "%s .. %s" % (lo, "2^" + shift.group(1) if shift else hi)

def shown_secure(kind, lo, hi, secure):
    """What the secure mode column says of options.inc's bound."""
    if secure == hi:
        return "yes"
    if kind in ("bool", "path") and secure == "0":
        return "no"
    if secure == lo:
        return "only %s" % lo
    return "up to %s" % secure

text = open(doc).read()
table = text[text.index("## Options"):]
rows = re.findall(r"^\| `(\w+)` \| (.*?) \| (.*?) \| (.*?) \| (.*?) \|$", table, re.M)
errors = []
if [r[0] for r in rows] != [o[1] for o in options]:
    errors.append("options differ: docs %s, options.inc %s" %
                  ([r[0] for r in rows], [o[1] for o in options]))
for (kind, name, default, lo, hi, secure, desc), row in zip(options, rows):
    want = ((name,) + shown(kind, default, lo, hi) +
            (shown_secure(kind, lo, hi, secure), desc))
    if tuple(row) != want:
        errors.append("%s: docs say %s, options.inc %s" % (name, row, want))

def man_entries(path):
    """{name: the entry's text} for the OPTIONS section's .TP entries."""
    found, name, in_options, after_tp = {}, None, False, False
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith(".SH"):
            in_options, name = line.split(None, 1)[1:] == ["OPTIONS"], None
            continue
        if not in_options:
            continue
        if line.startswith(".TP") or line.startswith(".PP"):
            after_tp, name = line.startswith(".TP"), None
            continue
        if after_tp:
            after_tp = False
            name = re.split(r"[=\[ ]", roff_text(line).strip())[0]
            found[name] = ""
        elif name:
            found[name] += " " + roff_text(line)
    return found

if man:
    said = man_entries(man[0])
    for kind, name, default, lo, hi, secure, desc in options:
        want = shown_secure(kind, lo, hi, secure)
        want = {"yes": "honoured", "no": "ignored"}.get(want, want)
        if "In secure mode: %s." % want not in " ".join(said.get(name, "").split()):
            errors.append("%s: %s does not say 'In secure mode: %s.'" %
                          (name, man[0], want))
for e in errors:
    print(e)
print("%d options, %d differences" % (len(options), len(errors)))
sys.exit(1 if errors else 0)
