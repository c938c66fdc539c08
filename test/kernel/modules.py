#!/usr/bin/env python3
"""Loadable modules in the kernel checks: the initramfs that loads them, what
the boot log says they did, and how their sections were merged.

    modules.py initramfs <out.cpio> <busybox> <module.ko>...
        a newc initramfs whose /init loads the modules in the order given
        (busybox insmod), prints /proc/modules between two markers and exits
        (the kernel then panics and, with panic=-1 and QEMU's -no-reboot,
        QEMU stops)
    modules.py bootlog <boot.log>
        what the init and then the loaded modules printed between the
        markers, one line each, with everything that differs between two correct
        kernels taken out (timestamps, addresses, sizes, durations,
        process ids, other drivers' messages, test_printf's note that the
        random number generator is not seeded yet)
    modules.py sections [--none-left] <tree> <module name>...
        one Markdown row per module: sections of <name>.o (what the compiler
        or LTO gave the module link) and of <name>.ko, and the split
        sections left in <name>.ko that 6.1's scripts/module.lds.S merges
        under CONFIG_LTO_CLANG (.data.*, .rodata.*, .bss.*; not .text.*);
        with --none-left, exits 1 naming the modules that keep any

The initramfs is written here rather than with cpio(1) so that device nodes
need no root and the archive is the same bytes on every run.
"""
import os
import re
import stat
import sys

from kernel_tables import Elf

BEGIN, END = "klto-modules-begin", "klto-modules-end"

INIT = f"""#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
echo {BEGIN}
for m in $(/bin/busybox cat /modules.list); do
  if /bin/busybox insmod /lib/modules/$m.ko; then echo "insmod $m: ok"; else echo "insmod $m: failed"; fi
done
while read name rest; do echo "loaded $name"; done < /proc/modules
echo {END}
"""


def newc_entry(name, mode, data=b"", rdev=(0, 0), ino=0):
    fields = [ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1],
              len(name) + 1, 0]
    head = b"070701" + b"".join(b"%08X" % f for f in fields)
    body = head + name.encode() + b"\0"
    body += b"\0" * (-len(body) % 4)
    return body + data + b"\0" * (-len(data) % 4)


def initramfs(out, busybox, modules):
    with open(busybox, "rb") as f:
        bb = f.read()
    names = [os.path.basename(m)[:-3] for m in modules]
    entries = [("bin", stat.S_IFDIR | 0o755, b""), ("bin/busybox", stat.S_IFREG | 0o755, bb),
               ("dev", stat.S_IFDIR | 0o755, b""), ("proc", stat.S_IFDIR | 0o755, b""),
               ("lib", stat.S_IFDIR | 0o755, b""), ("lib/modules", stat.S_IFDIR | 0o755, b""),
               ("init", stat.S_IFREG | 0o755, INIT.encode()),
               ("modules.list", stat.S_IFREG | 0o644, ("\n".join(names) + "\n").encode())]
    for m, n in zip(modules, names):
        with open(m, "rb") as f:
            entries.append((f"lib/modules/{n}.ko", stat.S_IFREG | 0o644, f.read()))
    blob = b"".join(newc_entry(n, mode, data, ino=i + 1)
                    for i, (n, mode, data) in enumerate(entries))
    blob += newc_entry("dev/console", stat.S_IFCHR | 0o600, rdev=(5, 1), ino=len(entries) + 1)
    blob += newc_entry("TRAILER!!!", 0)
    with open(out, "wb") as f:
        f.write(blob + b"\0" * (-len(blob) % 512))


# What two correct kernels may print differently about the same module.
NOISE = [(re.compile(r"^\[ *[0-9.]+\] "), ""),
         (re.compile(r"\+0x[0-9a-f]+/0x[0-9a-f]+"), ""),
         (re.compile(r" @ [0-9]+$"), ""),
         (re.compile(r" after [0-9]+ usecs$"), ""),
         # math/test_div64 (the 7.3 test modules) times itself.
         (re.compile(r", [0-9]+\.[0-9]+s elapsed$"), ""),
         (re.compile(r"\b0x[0-9a-f]+\b"), "0x?")]
KERNEL_LINE = re.compile(r"\[ *[0-9]+\.[0-9]+\] ")
# test_printf says this once per %p test run before the kernel's random
# number generator is seeded, which depends on the boot's timing.
UNSEEDED = "crng possibly not yet initialized"


def bootlog(path):
    """The init's own lines and the kernel's lines about the modules it
    loaded (prefixed with a module's name, or an initcall_debug line naming
    it): other drivers may probe and print at the same time."""
    with open(path, errors="replace") as f:
        text = f.read().replace("\r", "")
    if BEGIN not in text or END not in text.split(BEGIN, 1)[1]:
        sys.exit(f"{path}: the initramfs did not run to its end marker")
    # The init's output and the kernel's reach the console each on its own
    # way, so they interleave differently from boot to boot, a kernel line
    # even landing inside one of the init's (7.3: "insmod x: failed[
    # 0.628015] initcall ..."). A kernel line (PRINTK_TIME) runs from its
    # timestamp to the end of its line; what is left is the init's. The
    # init's lines come first, then the kernel's, each in its own order.
    user, kernel = [], []
    for line in text.split(BEGIN, 1)[1].split(END, 1)[0].split("\n"):
        m = KERNEL_LINE.search(line)
        if m:
            user.append(line[:m.start()])
            kernel.append(line[m.start():])
        else:
            user.append(line + "\n")
    lines = []
    for line in "".join(user).splitlines() + kernel:
        for pattern, repl in NOISE:
            line = pattern.sub(repl, line)
        lines.append(line.strip())
    # A module's name is its file's with "-" made "_" (kbuild's name-fix:
    # test-kstrtox.ko is test_kstrtox).
    mods = {m.group(1).replace("-", "_")
            for m in map(re.compile(r"^insmod (\S+): ").match, lines) if m}
    return [line for line in lines
            if re.match(r"(insmod|loaded) ", line)
            or (re.match(r"(calling|initcall) +\S+ \[(\S+)\]", line)
                and line.split("[", 1)[1].split("]")[0] in mods)
            or (line.split(":", 1)[0] in mods and UNSEEDED not in line)]


# What Linux 6.1's scripts/module.lds.S merges under CONFIG_LTO_CLANG:
# .bss, .data and .rodata with their ".<name>" and "..L<name>" splits (not
# .text: 6.1 leaves a module's functions in their own sections).
SPLIT = re.compile(r"^\.(data|rodata|bss)\.([0-9a-zA-Z_]|\.L)")


def section_names(path):
    """The allocated sections of an ELF relocatable file, by name; None for
    a file that is not ELF (a module's bitcode .o)."""
    with open(path, "rb") as f:
        if f.read(4) != b"\x7fELF":
            return None
    return Elf(path).alloc_names


def sections(tree, names):
    """The rows, and the modules whose .ko keeps a split section."""
    rows, left = [], []
    for n in names:
        obj, ko = [os.path.join(tree, p) for p in (f"{n}.o", f"{n}.ko")]
        before = section_names(obj)
        after = section_names(ko)
        # .discard.* (6.14's .discard.gendwarfksyms) never reaches a .ko.
        before = before and [s for s in before if not s.startswith(".discard.")]
        split = [s for s in after if SPLIT.match(s)]
        rows.append(f"| {os.path.basename(n)} | {'bitcode' if before is None else len(before)}"
                    f" | {len(after)} | {len(split)} |")
        if split:
            left.append(f"{os.path.basename(n)} ({', '.join(split)})")
    return rows, left


def main():
    cmd, args = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 2 else (None, [])
    if cmd == "initramfs" and len(args) >= 2:
        initramfs(args[0], args[1], args[2:])
    elif cmd == "bootlog" and len(args) == 1:
        print("\n".join(bootlog(args[0])))
    elif cmd == "sections" and len(args) >= 2:
        none_left = args[0] == "--none-left"
        rows, left = sections(args[none_left], args[none_left + 1:])
        print("\n".join(rows))
        if none_left and left:
            sys.exit("split sections left in a .ko: " + "; ".join(left))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
