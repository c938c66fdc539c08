"""man_options.py - do a man page's OPTIONS entries match an option list?

    man_options.py <list.def|options.inc> <page> [<extra name>...]

Reads the option names of klto's X-macro lists (KLTO_FLAG/KLTO_VALUE of
lld-ext/KltoOptions.def, KLTO_PLUGIN_* of plugin/Options.def,
KFENCE_OPTION of runtime/kfence/options.inc) and the names the page's
OPTIONS section gives its .TP entries, and prints each name only one side
has, then "<n> options, <m> differences". Extra names are options the page
documents that the list does not hold (the plugin's `help`).
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import option_lists


def listed(path):
    return [option_lists.name(macro, args) for macro, args in option_lists.entries(path)]


def roff_text(line):
    line = re.sub(r'^\.[A-Z]+\s*', '', line)
    line = re.sub(r'\\f(\(..|\[[^]]*\]|.)', '', line)
    return line.replace('\\-', '-').replace('"', '')


def documented(path):
    names, in_options, after_tp = [], False, False
    for line in open(path):
        line = line.rstrip('\n')
        if line.startswith('.SH'):
            in_options = line.split(None, 1)[1:] == ['OPTIONS']
            continue
        if not in_options:
            continue
        if line.startswith('.TP'):
            after_tp = True
            continue
        if after_tp:
            after_tp = False
            first = roff_text(line).split(',')[0].split()[0]
            names.append(re.split(r'[=\[]', first)[0].lstrip('-'))
    return names


def main():
    listed_names = listed(sys.argv[1])
    page_names = documented(sys.argv[2])
    extra = set(sys.argv[3:])
    differences = 0
    for name in listed_names:
        if name not in page_names:
            print(f"not in {sys.argv[2]}: {name}")
            differences += 1
    for name in page_names:
        if name not in listed_names and name not in extra:
            print(f"not in {sys.argv[1]}: {name}")
            differences += 1
    print(f"{len(listed_names)} options, {differences} differences")


if __name__ == "__main__":
    main()
