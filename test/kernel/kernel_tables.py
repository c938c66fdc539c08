#!/usr/bin/env python3
"""Reads a Linux kernel's initcall, console-initcall and PCI-fixup tables
straight out of vmlinux, and the initcalls it ran out of a boot log.

    kernel_tables.py tables <vmlinux> --linux <v> [--pointers] [--known <elf>]...
                                             one line per entry: <table> <function>,
                                             then one per export: export[_gpl] <symbol>
    kernel_tables.py bootlog <log> --linux <v> [--known <elf>]...
                                             one line per initcall run: <function>
    kernel_tables.py stubs --linux <v> [--known-nm <nm output>]... <name>...
                                             what each symbol name stands for
    kernel_tables.py exports <elf> --linux <v>
                                             the symbols an object, a vmlinux.o or
                                             a vmlinux exports: export[_gpl] <symbol>
    kernel_tables.py compare <ref> <other>   entry-by-entry diff, exit 1 if they differ
    kernel_tables.py perturb <vmlinux> <out> a copy whose level-6 initcalls at
                                             1/3 and 2/3 of the table trade places

Entries are PREL32 offsets (CONFIG_HAVE_ARCH_PREL32_RELOCATIONS: arm64,
x86_64, ...) unless --pointers says they are function pointers. Functions are named after the symbol at the entry's target;
stubs (Linux 5.12+'s __initstub__*, klto's __kltostub__*, Linux's PCI
__UNIQUE_ID_*) are mapped back to the function they call, so builds with
and without LTO compare equal when they run the same code in the same
order.

--linux <major>.<minor> is the kernel's version (its Makefile's VERSION and
PATCHLEVEL), which decides how its names read; it is not guessed from the
names, since a function's own name may end in _<digits>:

  __UNIQUE_ID(hook)  before 6.19 __UNIQUE_ID_<hook><n>: a hook whose name
                     ends in digits runs into the counter, so the longest
                     function name of the --known files (the reference
                     kernel) the tail starts with wins;
                     6.19 on __UNIQUE_ID_<hook>_<n>: everything before the
                     last _<digits> is the hook.
  initcall stubs     __initstub__kmod_<mod>__<n>_<line>_<fn><level> in every
                     version: before 6.19 __KBUILD_MODNAME is kmod_<mod>
                     itself, from 6.19 it is <mod> and __initcall_id() adds
                     kmod_. klto's own stubs carry the modname as the plugin
                     read it, with or without kmod_; either reads the same.
  exports            before 6.5 each export is a __ksymtab_<sym> (and
                     __kstrtab_<sym>) symbol in a ___ksymtab[_gpl]+<sym>
                     section; from 6.5 objects and vmlinux.o carry
                     __export_symbol_<sym> in .export_symbol (license, then
                     namespace, then the address) and modpost makes the
                     __ksymtab entries of vmlinux and the .ko files. A linked
                     vmlinux has __start___ksymtab..__stop___ksymtab and
                     either __ksymtab_gpl or (7.x) a __kflagstab byte per
                     __ksymtab entry whose bit 0 is KSYM_FLAG_GPL_ONLY. 6.14's gendwarfksyms adds
                     __gendwarfksyms_ptr_<sym> in .discard.gendwarfksyms,
                     which the link drops: it is no export and is ignored.
"""
import os
import re
import struct
import subprocess
import sys

# The bin/ of the LLVM klto was built for: run.sh exports it from the
# build's llvm.env.
LLVM = os.environ.get("KLTO_LLVM_BINDIR", "")
INITCALL_LEVELS = ["early", "0", "1", "2", "3", "4", "5", "6", "7"]
PCI_PASSES = ["early", "header", "final", "enable", "resume", "suspend",
              "resume_early", "suspend_late"]


class Elf:
    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = f.read()
        if self.data[:4] != b"\x7fELF" or self.data[4] != 2:
            sys.exit(f"{path}: not a 64-bit ELF file")
        self.endian = "<" if self.data[5] == 1 else ">"
        e = self.endian
        shoff, = struct.unpack_from(e + "Q", self.data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from(e + "HHH", self.data, 0x3A)
        headers = [struct.unpack_from(e + "IIQQQQ", self.data, shoff + i * shentsize)
                   for i in range(shnum)]
        names_at = headers[shstrndx][4]
        self.sections = []
        # Every section's file offset and size, by name.
        self.by_name = {}
        # The names of the sections a linker script places (SHF_ALLOC): not
        # relocations, symbol tables or notes.
        self.alloc_names = []
        for (name, typ, flags, addr, off, size) in headers:
            if typ != 8 and addr and size:  # not NOBITS, allocated
                self.sections.append((addr, off, size))
            end = self.data.index(b"\0", names_at + name)
            section = self.data[names_at + name:end].decode()
            self.by_name.setdefault(section, (off, size))
            if flags & 2:
                self.alloc_names.append(section)

    def offset(self, addr, size):
        for base, off, length in self.sections:
            if base <= addr and addr + size <= base + length:
                return off + addr - base
        raise KeyError(f"address {addr:#x} is in no section with contents")

    def read(self, addr, size):
        at = self.offset(addr, size)
        return self.data[at:at + size]

    def string(self, addr):
        at = self.offset(addr, 1)
        return self.data[at:self.data.index(b"\0", at)].decode()


def symbols(path):
    if not LLVM:
        sys.exit("kernel_tables.py: set KLTO_LLVM_BINDIR (a klto build's llvm.env has it)")
    out = subprocess.run([f"{LLVM}/llvm-nm", "-n", "--defined-only", path],
                         check=True, capture_output=True, text=True).stdout
    by_name, funcs = {}, {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) != 3:
            continue
        addr, typ, name = int(parts[0], 16), parts[1], parts[2]
        by_name[name] = addr
        if typ in "Tt" and not name.startswith("$"):
            funcs.setdefault(addr, []).append(name)
    return by_name, funcs


# The kernel version the names are read for (--linux), as (major, minor).
LINUX = None


def parse_linux(text):
    m = re.match(r"^(\d+)\.(\d+)$", text or "")
    if not m:
        sys.exit(f"kernel_tables.py: --linux wants <major>.<minor> (the tree's Makefile), not {text!r}")
    return int(m.group(1)), int(m.group(2))


# Linux 5.12+ and klto initcall stubs: __initstub__<mod>__<n>_<line>_<fn><level>,
# <mod> being kmod_<name> (the kernel's, every version) or the plugin's
# modname.
INITSTUB = re.compile(r"^__initstub__.*?__\d+_\d+_(.+?)(?:early|rootfs|con|\d)s?$")
# klto's stub for any other static: __kltostub__<mod>__<fn>
KLTOSTUB = re.compile(r"^__kltostub__.*?__(.+)$")
# Linux's PCI fixup stubs, __UNIQUE_ID(hook): __UNIQUE_ID_<hook><counter>
# before 6.19, __UNIQUE_ID_<hook>_<counter> from 6.19 on.
UNIQUE_ID_OLD = re.compile(r"^__UNIQUE_ID_(.+?)\d+$")
UNIQUE_ID_NEW = re.compile(r"^__UNIQUE_ID_(.+)_\d+$")
# What a stub name can end in after its function's name (before 6.19).
STUB_SUFFIX = re.compile(r"^(?:\d+|(?:early|rootfs|con|\d)s?)$")


def stub_target(name, known):
    """The function a stub name stands for. Before 6.19 a function whose
    name ends in digits ("quirk_no_ata_d3") runs into the counter or level
    that follows it, so the longest known function name the stub's tail
    starts with wins; without known names, the shortest reading. From
    6.19 on __UNIQUE_ID's counter follows an underscore and the name reads
    without help."""
    if LINUX is None:
        sys.exit("kernel_tables.py: --linux <major>.<minor> is needed to read stub names")
    m = KLTOSTUB.match(name)
    if m:
        return m.group(1)
    if LINUX >= (6, 19):
        m = UNIQUE_ID_NEW.match(name)
        if m:
            return m.group(1)
        patterns = [INITSTUB]
    else:
        patterns = [INITSTUB, UNIQUE_ID_OLD]
    for pattern in patterns:
        m = pattern.match(name)
        if not m:
            continue
        start = m.start(1)
        for end in range(len(name), start, -1):
            if name[start:end] in known and STUB_SUFFIX.match(name[end:]):
                return name[start:end]
        return m.group(1)
    return None


# ThinLTO renames a static it promotes: "foo.llvm.1234567".
PROMOTED = re.compile(r"\.llvm\.\d+$")


def function_name(names, known=frozenset()):
    """The function an address stands for: prefer a real function name over
    a stub name, and map a stub back to its target."""
    names = [PROMOTED.sub("", n) for n in names]
    plain = [n for n in names if stub_target(n, known) is None]
    if plain:
        return sorted(plain)[0]
    return stub_target(names[0], known)


def read_table(elf, syms, funcs, known, start, end, stride, offset_at, prel32):
    """Entries between two symbols; each `stride` bytes, the function
    reference `offset_at` bytes in, as a PREL32 offset or a pointer."""
    entries = []
    begin, stop = syms[start], syms[end]
    for at in range(begin, stop, stride):
        if prel32:
            off, = struct.unpack(elf.endian + "i", elf.read(at + offset_at, 4))
            target = at + offset_at + off
        else:
            target, = struct.unpack(elf.endian + "Q", elf.read(at + offset_at, 8))
        names = funcs.get(target)
        entries.append(function_name(names, known) if names else f"?{target:#x}")
    return entries


def tables(path, prel32, known=frozenset()):
    elf = Elf(path)
    syms, funcs = symbols(path)
    known = set(known) | set(syms)
    stride = 4 if prel32 else 8
    lines = []
    bounds = ["__initcall_start"] + [f"__initcall{l}_start" for l in range(8)] + ["__initcall_end"]
    for level, (a, b) in zip(INITCALL_LEVELS, zip(bounds, bounds[1:])):
        for fn in read_table(elf, syms, funcs, known, a, b, stride, 0, prel32):
            lines.append(f"initcall{level} {fn}")
    for fn in read_table(elf, syms, funcs, known, "__con_initcall_start", "__con_initcall_end",
                         stride, 0, prel32):
        lines.append(f"con_initcall {fn}")
    for p in PCI_PASSES:
        a, b = f"__start_pci_fixups_{p}", f"__end_pci_fixups_{p}"
        if a in syms:
            # struct pci_fixup: u16 vendor, device; u32 class, class_shift;
            # then an int offset (PREL32) or a pointer.
            hook_at, size = (12, 16) if prel32 else (16, 24)
            for fn in read_table(elf, syms, funcs, known, a, b, size, hook_at, prel32):
                lines.append(f"pci_fixup_{p} {fn}")
    return lines


def section_symbols(path):
    """(name, value, section) of every defined symbol."""
    out = subprocess.run([f"{LLVM}/llvm-nm", "-f", "sysv", "--defined-only", path],
                         check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = [p.strip() for p in line.split("|")]
        if len(parts) == 7 and parts[1]:
            yield parts[0], int(parts[1], 16), parts[6]


def exports(path, prel32=True):
    """export <sym> / export_gpl <sym> lines: a linked kernel's __ksymtab
    tables in their order, else (an object, vmlinux.o) its export records
    by name, as the version (LINUX) writes them."""
    if LINUX is None:
        sys.exit("kernel_tables.py: --linux <major>.<minor> is needed to read exports")
    elf = Elf(path)
    syms = [s for s in section_symbols(path) if not s[2].startswith(".discard.")]
    by_name = {n: v for n, v, _ in syms}
    lines = []
    if "__start___ksymtab" in by_name:
        # struct kernel_symbol: value, name, namespace; PREL32 ints or
        # pointers.
        size = 12 if prel32 else 24
        for kind, table in (("export", "__ksymtab"), ("export_gpl", "__ksymtab_gpl")):
            a, b = by_name.get(f"__start_{table}"), by_name.get(f"__stop_{table}")
            if a is None or b is None:
                continue
            flags = by_name.get("__start___kflagstab") if kind == "export" else None
            for i, at in enumerate(range(a, b, size)):
                if prel32:
                    off, = struct.unpack(elf.endian + "i", elf.read(at + 4, 4))
                    name_at = at + 4 + off
                else:
                    name_at, = struct.unpack(elf.endian + "Q", elf.read(at + 8, 8))
                # One table with a flags byte per entry (KSYM_FLAG_GPL_ONLY)
                # where there is no __ksymtab_gpl.
                gpl = flags is not None and elf.read(flags + i, 1)[0] & 1
                lines.append(f"{'export_gpl' if gpl else kind} {elf.string(name_at)}")
        return lines
    if LINUX >= (6, 5):
        # __export_symbol_<sym>: the license ("" or "GPL"), the namespace,
        # the address.
        if ".export_symbol" not in elf.by_name:
            return lines
        base, _ = elf.by_name[".export_symbol"]
        for name, value, section in syms:
            if section == ".export_symbol" and name.startswith("__export_symbol_"):
                at = base + value
                lic = elf.data[at:elf.data.index(b"\0", at)].decode()
                lines.append(f"export{'_gpl' if lic == 'GPL' else ''} {name[len('__export_symbol_'):]}")
    else:
        # __ksymtab_<sym> in ___ksymtab+<sym> or ___ksymtab_gpl+<sym>.
        for name, _, section in syms:
            m = re.match(r"^___ksymtab(_gpl)?\+(.+)$", section)
            if m and name == f"__ksymtab_{m.group(2)}":
                lines.append(f"export{m.group(1) or ''} {m.group(2)}")
    return sorted(lines)


def perturb(path, out):
    """Swaps two level-6 PREL32 initcall entries of a vmlinux: the kernel
    made from the copy runs those two initcalls in each other's place."""
    elf = Elf(path)
    syms, _ = symbols(path)
    begin, end = syms["__initcall6_start"], syms["__initcall7_start"]
    n = (end - begin) // 4
    if n < 3:
        sys.exit(f"{path}: only {n} level-6 initcalls, nothing to swap")
    a, b = begin + 4 * (n // 3), begin + 4 * (2 * n // 3)
    data = bytearray(elf.data)
    target = {}
    for at in (a, b):
        off, = struct.unpack(elf.endian + "i", elf.read(at, 4))
        target[at] = at + off
    for at, other in ((a, b), (b, a)):
        struct.pack_into(elf.endian + "i", data, elf.offset(at, 4), target[other] - at)
    with open(out, "wb") as f:
        f.write(data)


CALLING = re.compile(r"calling  ([^+ ]+)\+0x[0-9a-f]+/0x[0-9a-f]+")


def bootlog(path, known=frozenset()):
    with open(path, errors="replace") as f:
        names = [m.group(1) for m in CALLING.finditer(f.read())]
    return [function_name([n], known) for n in names]


def known_names(args):
    """Function names of every ELF file after --known: an LTO kernel may
    have inlined a function into its stub, so the stub's name is read with
    the reference kernel's names. --known-nm reads them from a file of
    llvm-nm (or nm) output instead."""
    known = set()
    for i, a in enumerate(args):
        if a == "--known":
            known |= set(symbols(args[i + 1])[0])
        elif a == "--known-nm":
            with open(args[i + 1]) as f:
                known |= {line.split()[-1] for line in f if len(line.split()) >= 2}
    return known


def main():
    global LINUX
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cmd = sys.argv[1]
    args = sys.argv[2:]
    if "--linux" in args:
        i = args.index("--linux")
        LINUX = parse_linux(args[i + 1] if i + 1 < len(args) else None)
        del args[i:i + 2]
    if cmd in ("tables", "bootlog", "stubs", "exports") and LINUX is None:
        sys.exit("kernel_tables.py: --linux <major>.<minor> (the tree's Makefile) is needed")
    if cmd == "tables":
        prel32 = "--pointers" not in args[1:]
        lines = tables(args[0], prel32, known_names(args[1:])) + exports(args[0], prel32)
    elif cmd == "bootlog":
        lines = bootlog(args[0], known_names(args[1:]))
    elif cmd == "exports":
        lines = exports(args[0], "--pointers" not in args[1:])
    elif cmd == "stubs":
        known = known_names(args)
        skip = {i + 1 for i, a in enumerate(args) if a in ("--known", "--known-nm")}
        names = [a for i, a in enumerate(args) if i not in skip and not a.startswith("--")]
        lines = [f"{n} {function_name([n], known)}" for n in names]
    elif cmd == "compare":
        with open(sys.argv[2]) as a, open(sys.argv[3]) as b:
            ref, other = a.read().splitlines(), b.read().splitlines()
        diff = [(i, x, y) for i, (x, y) in enumerate(zip(ref, other)) if x != y]
        if len(ref) != len(other):
            print(f"{sys.argv[3]}: {len(other)} entries, reference {len(ref)}")
        for i, x, y in diff[:20]:
            print(f"entry {i}: reference {x!r}, got {y!r}")
        if diff or len(ref) != len(other):
            sys.exit(1)
        print(f"{sys.argv[3]}: all {len(ref)} entries match")
    elif cmd == "perturb" and len(sys.argv) == 4:
        perturb(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
    if cmd in ("tables", "bootlog", "exports", "stubs"):
        for line in lines:
            print(line)


if __name__ == "__main__":
    main()
