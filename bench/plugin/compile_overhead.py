#!/usr/bin/env python3
"""Compile-time overhead of kltoplugin.so over plain clang (of the LLVM klto was built for).

    bench/plugin/compile_overhead.py <build-dir> [--files N] [--rounds R]
                                     [--kernel <built linux tree> [--objs a.o,b.o]]
                                     [--generated typical,dense|none]
                                     [--instructions] [--commands FILE]

Compiles the same translation units with and without -fplugin, alternating
A B A B ... for R rounds, and compares the CPU time (user + sys of the
compiler processes, from getrusage), which is steadier than wall time on a
shared machine. Inputs:
  * a generated tree of N files, each with initcalls at every level as
    function-pointer variables and as PREL32 asm, PCI-fixup-like asm
    entries, and ordinary code;
  * with --kernel, real Linux files compiled with the exact command lines
    kbuild used (read from their .<obj>.cmd files).
With --commands FILE, the compile commands are FILE's lines instead (a
directory, a tab, and the clang command line, shell-quoted; e.g. the
largest file of a real package, bench/plugin/real-code.sh).
With --instructions, each compile runs once under valgrind's callgrind and
the figure is the number of instructions executed (per kernel file): the same for the same
binary and input whatever else the machine does (slow: about 50x).
"""
import argparse
import os
import resource
import shlex
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from llvm_env import llvm_bindir  # noqa: E402
import tempfile

# The clang of the LLVM klto was built for (main() sets it from llvm.env).
CLANG = None
LEVELS = ["early", "0", "1", "2", "3", "4", "4s", "5", "rootfs", "6", "7", "7s"]




def generate(root, files, initcalls, fixups, functions):
    os.makedirs(root, exist_ok=True)
    demo_inc = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "demo", "include")
    for i in range(files):
        lines = ['#include "demo.h"', "#include <string.h>", ""]
        for k in range(initcalls):
            lines.append(f"static int __init v{k}(void) {{ return demo_log(__FILE__, \"v{k}\"); }}")
            lines.append(f"__define_initcall(v{k}, {LEVELS[k % len(LEVELS)]});")
        for k in range(fixups):
            lines.append(f"static void q{k}(struct pci_dev *d) {{ demo_log(__FILE__, d->name); }}")
            lines.append(f"DECLARE_PCI_FIXUP_FINAL(0x{0x1000 + k:x}, 0x{i:x}, q{k});")
        # Ordinary code, so the entries are not the whole translation unit.
        for k in range(functions):
            lines.append(f"int work{i}_{k}(const char *s, int n) {{")
            lines.append("  int h = n; for (int j = 0; s[j]; ++j) h = h * 31 + s[j] * (j + 1);")
            lines.append(f"  char buf[64]; memcpy(buf, s, n < 64 ? n : 64); return h ^ buf[{k} % 64];")
            lines.append("}")
        with open(os.path.join(root, f"m{i}.c"), "w") as f:
            f.write("\n".join(lines) + "\n")
    cmds = []
    for prel32 in (False, True):
        for i in range(files):
            cmd = [CLANG, "-O2", "-c", "-I", demo_inc]
            if prel32:
                cmd.append("-DCONFIG_HAVE_ARCH_PREL32_RELOCATIONS")
            cmd += [os.path.join(root, f"m{i}.c"), "-o", "/dev/null"]
            cmds.append((root, cmd))
    return cmds


def kernel_commands(tree, objs):
    """The clang command lines kbuild recorded for objs, run with the clang
    of the LLVM klto was built for (kbuild's may be another major's)."""
    cmds = []
    for obj in objs:
        d, b = os.path.split(obj)
        path = os.path.join(tree, d, f".{b}.cmd")
        with open(path) as f:
            first = f.readline()
        cmd = first.split(":=", 1)[1].strip()
        # kbuild may chain extra steps with ';' after the compile.
        argv = shlex.split(cmd.split(";")[0])
        out = argv.index("-o")
        argv[out + 1] = "/dev/null"
        argv = [a for a in argv if not a.startswith("-Wp,-MMD")]
        if os.path.realpath(argv[0]) != os.path.realpath(CLANG):
            # Another major than kbuild's: the warnings kbuild found that
            # clang to have may be unknown to this one, and are ignored.
            argv = [a for a in argv if a != "-Werror=unknown-warning-option"]
        argv[0] = CLANG
        cmds.append((tree, argv))
    return cmds


KERNEL_OBJS = [
    "init/main.o", "kernel/sched/core.o", "kernel/printk/printk.o", "kernel/fork.o",
    "mm/slub.o", "mm/page_alloc.o", "fs/namei.o", "fs/super.o",
    "drivers/tty/tty_io.o", "drivers/pci/quirks.o", "drivers/base/core.o", "net/core/dev.o",
]


# Linux averages about one initcall per object file; "dense" is a stress
# case where entries are a third of all functions.
GENERATED = (("typical", 2, 1, 40), ("dense", 20, 5, 30))


def run_all(cmds, extra):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for cwd, cmd in cmds:
        subprocess.run(cmd[:1] + extra + cmd[1:], cwd=cwd, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def instructions(cwd, cmd):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + cmd,
                       cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out) as f:
            for line in f:
                if line.startswith("summary:"):
                    return int(line.split()[1])
    raise RuntimeError("callgrind wrote no summary")


def measure_instructions(name, cmds, plugin):
    plain = klto = 0
    for cwd, cmd in cmds:
        plain += instructions(cwd, cmd)
        klto += instructions(cwd, cmd[:1] + [f"-fplugin={plugin}"] + cmd[1:])
    print(f"| {name} | {len(cmds)} | {plain / 1e9:.3f} G | {klto / 1e9:.3f} G | "
          f"{(klto / plain - 1) * 100:+.3f}% |")
    sys.stdout.flush()


def kernel_release(tree):
    """The tree's kernel version (include/config/kernel.release), for labels."""
    try:
        with open(os.path.join(tree, "include", "config", "kernel.release")) as f:
            return "Linux " + f.read().strip()
    except OSError:
        return "Linux"


def measure_kernel_instructions(tree, objs, plugin):
    release = kernel_release(tree)
    for obj, cmd in zip(objs, kernel_commands(tree, objs)):
        measure_instructions(f"{release} `{obj}` (kbuild's command line)", [cmd], plugin)


def file_commands(path):
    """(cwd, argv) of each line 'cwd<TAB>command' of path."""
    cmds = []
    with open(path) as f:
        for line in f:
            if line.strip():
                cwd, cmd = line.rstrip("\n").split("\t", 1)
                cmds.append((cwd, shlex.split(cmd)))
    return cmds


def source_name(cmd):
    srcs = [a for a in cmd if a.endswith((".c", ".cc", ".cpp"))]
    return os.path.basename(srcs[-1]) if srcs else " ".join(cmd[:2])


def measure(name, cmds, plugin, rounds):
    run_all(cmds[:4], [])  # warm the page cache and the plugin's .so
    run_all(cmds[:4], [f"-fplugin={plugin}"])
    plain, klto, ratios = [], [], []
    for _ in range(rounds):
        a = run_all(cmds, [])
        b = run_all(cmds, [f"-fplugin={plugin}"])
        plain.append(a)
        klto.append(b)
        ratios.append(b / a)
    med = statistics.median
    print(f"| {name} | {len(cmds)} | {min(plain):.2f} / {med(plain):.2f} | "
          f"{min(klto):.2f} / {med(klto):.2f} | "
          f"{(med(ratios) - 1) * 100:+.2f}% ({(min(ratios) - 1) * 100:+.2f}% .. {(max(ratios) - 1) * 100:+.2f}%) |")
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--files", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--kernel", help="a built Linux tree (its O= directory)")
    ap.add_argument("--objs", default=",".join(KERNEL_OBJS),
                    help="comma-separated objects of the kernel tree to compile")
    ap.add_argument("--instructions", action="store_true")
    ap.add_argument("--commands", help="a file of compile commands, one 'cwd<TAB>command' a line")
    ap.add_argument("--generated", default="typical,dense",
                    help="generated inputs to measure (typical, dense, or none)")
    args = ap.parse_args()
    global CLANG
    CLANG = os.path.join(llvm_bindir(args.build), "clang")
    plugin = os.path.abspath(os.path.join(args.build, "lib", "kltoplugin.so"))
    if not os.path.exists(plugin):
        sys.exit(f"{plugin} not found: build klto first (ninja -C {args.build})")
    if args.instructions:
        print(f"clang: {CLANG}; plugin: {plugin}; instructions executed (callgrind)")
        print("| input | compiles | plain | with plugin | overhead |")
        print("|---|---|---|---|---|")
        if args.kernel:
            measure_kernel_instructions(args.kernel, args.objs.split(","), plugin)
        if args.commands:
            for cwd, cmd in file_commands(args.commands):
                measure_instructions(f"`{source_name(cmd)}`", [(cwd, cmd)], plugin)
        for name, initcalls, fixups, functions in GENERATED:
            if name not in args.generated.split(","):
                continue
            with tempfile.TemporaryDirectory() as tmp:
                measure_instructions(f"generated {name}: {args.files} files",
                                     generate(tmp, args.files, initcalls, fixups, functions), plugin)
        return
    print(f"clang: {CLANG}; plugin: {plugin}; rounds: {args.rounds} (A B alternating)")
    print("| input | compiles | plain CPU s (min / median) | with plugin CPU s (min / median) | overhead, median of pairs (min .. max) |")
    print("|---|---|---|---|---|")
    for name, initcalls, fixups, functions in GENERATED:
        if name not in args.generated.split(","):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            measure(f"generated {name}: {args.files} files, each {initcalls} initcalls + "
                    f"{fixups} fixups + {functions} functions, as pointers and as PREL32 asm",
                    generate(tmp, args.files, initcalls, fixups, functions), plugin, args.rounds)
    if args.commands:
        measure(f"commands of {args.commands}", file_commands(args.commands), plugin, args.rounds)
    if args.kernel:
        measure(f"{kernel_release(args.kernel)} files (kbuild's command lines)",
                kernel_commands(args.kernel, args.objs.split(",")), plugin, args.rounds)


if __name__ == "__main__":
    main()
