"""option_lists.py - reads klto's X-macro option lists, for the checks that
docs and man pages say what the lists hold: lld-ext/KltoOptions.def
(KLTO_FLAG, KLTO_VALUE), plugin/Options.def (KLTO_PLUGIN_*) and
runtime/kfence/options.inc (KFENCE_OPTION). One reader, so every check
sees the same entries."""
import re


def c_strings(text):
    """The C string literals in text, unescaped only as far as the lists need."""
    return re.findall(r'"((?:[^"\\]|\\.)*)"', text)


def entries(path):
    """(macro, arguments) for each entry, in list order; comments ignored."""
    text = re.sub(r"//.*", "", open(path).read())
    return [(m.group(1), m.group(2)) for m in
            re.finditer(r"^((?:KLTO|KFENCE)_\w+)\((.*?)\)\s*$", text, re.S | re.M)]


def fields(args):
    """The macro's arguments, split at the commas outside string literals."""
    parts = re.findall(r'(?:"(?:[^"\\]|\\.)*"|[^,"])+', args)
    return [p.strip() for p in parts]


def name(macro, args):
    """The option's name as users write it."""
    if macro == "KFENCE_OPTION":
        return args.split(",")[1].strip()
    return c_strings(args)[0]
