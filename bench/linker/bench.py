#!/usr/bin/env python3
"""Linker benchmark for klto's ld.lld (docs/performance.md, "Linker").

Generates N objects x 10 initcall entries (N = 500, 1000, 2000, 5000 by
default), as ELF objects and as LLVM bitcode, and measures in one run:

  * the order computation: klto's ld.lld (whole process, stopped by
    --version right after klto's part, and the in-process time from its
    --verbose line) against one `llvm-nm --defined-only` per input
    (what Linux's script spends its time on) and, when given, Linux's own
    scripts/generate_initcall_order.pl, whose order is checked to be the
    one klto computes;
  * whole links with and without --kinit-order, final and -r (ELF inputs),
    and stock ld.lld given klto's --symbol-ordering-file: LLD's own share
    of the overhead;
  * --kmerge-sections on a -ffunction-sections -fdata-sections module.

Each klto/link figure is the min and median of --runs runs; the slow
baselines (one nm per file, the Perl script) run once. Prints Markdown.

  bench.py --build BUILD [--sizes 500,1000] [--runs 5] [--work DIR]
           [--linux-script PATH/generate_initcall_order.pl]
"""
import argparse
import math
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from llvm_env import llvm_bindir  # noqa: E402
import tarfile
import time
from concurrent.futures import ThreadPoolExecutor

# The bin/ of the LLVM klto was built for (main() sets it from llvm.env).
LLVM = None
LEVELS = ["1", "4", "6", "6", "7", "6", "4s", "6", "2", "6"]




def run(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, **kw)


def entry(i, j):
    """The j-th entry of object i; counters are scrambled against the order
    the sections appear in the file, so the counter sort is exercised."""
    counter = (j * 7) % 10
    level = LEVELS[j]
    ident = f"kmod_o{i}__{counter}_{100 + j}_fn_{i}_{j}"
    return level, ident, f"fn_{i}_{j}"


def gen_asm(i):
    out = ["  .text"]
    for j in range(10):
        _, _, fn = entry(i, j)
        out += [f"  .section .text.{fn},\"ax\",@progbits", f"{fn}:",
                f"  movl ${j}, %eax", "  ret"]
    out += [f"  .section .data.d{i},\"aw\",@progbits", f"d{i}: .quad {i}",
            f"  .section .rodata.r{i},\"a\",@progbits", f"r{i}: .quad {i}"]
    for j in range(10):
        level, ident, fn = entry(i, j)
        out += [f"  .section \".initcall{level}.init..{ident}\",\"aw\",@progbits",
                "  .p2align 3", f"__initcall__{ident}{level}:", f"  .quad {fn}"]
    return "\n".join(out) + "\n"


def gen_ll(i):
    out = ['target triple = "x86_64-unknown-linux-gnu"', f"@d{i} = global i64 {i}"]
    used = []
    for j in range(10):
        level, ident, fn = entry(i, j)
        out.append(f"define internal i32 @{fn}() {{\n  ret i32 {j}\n}}")
        sym = f"__initcall__{ident}{level}"
        out.append(f'@{sym} = internal global ptr @{fn}, section '
                   f'".initcall{level}.init..{ident}", align 8')
        used.append(f"ptr @{sym}")
    out.append(f"@llvm.compiler.used = appending global [10 x ptr] "
               f"[{', '.join(used)}], section \"llvm.metadata\"")
    return "\n".join(out) + "\n"


def generate(work, n, kind):
    d = os.path.join(work, f"{kind}-{n}")
    objs = [os.path.join(d, f"o{i}.o") for i in range(n)]
    if os.path.exists(os.path.join(d, "done")):
        return objs
    os.makedirs(d, exist_ok=True)

    def one(i):
        if kind == "elf":
            src = os.path.join(d, f"o{i}.s")
            with open(src, "w") as f:
                f.write(gen_asm(i))
            run([f"{LLVM}/llvm-mc", "-filetype=obj", "-triple=x86_64-linux-gnu",
                 src, "-o", objs[i]])
        else:
            src = os.path.join(d, f"o{i}.ll")
            with open(src, "w") as f:
                f.write(gen_ll(i))
            run([f"{LLVM}/llvm-as", src, "-o", objs[i]])
        os.remove(src)

    with ThreadPoolExecutor(2) as ex:
        list(ex.map(one, range(n)))
    start = os.path.join(d, "start.s")
    with open(start, "w") as f:
        f.write("  .globl _start\n_start:\n  ret\n")
    run([f"{LLVM}/llvm-mc", "-filetype=obj", "-triple=x86_64-linux-gnu", start,
         "-o", os.path.join(d, "start.o")])
    with open(os.path.join(d, "tables.lds"), "w") as f:
        f.write("SECTIONS {\n  .init.data : {\n")
        for lvl in ["1", "2", "4", "6", "7"]:
            for s in ["", "s"]:
                t = f".initcall{lvl}{s}.init"
                f.write(f"    KEEP(*({t} {t}..*))\n")
        f.write("  }\n}\nINSERT AFTER .data;\n")
    open(os.path.join(d, "done"), "w").close()
    return objs


def timed_round_robin(cmds, runs, cwd=None):
    """min, median wall seconds of each command over `runs` rounds, the
    commands taking turns so that a machine whose speed drifts affects
    them alike (one warm-up round first)."""
    times = [[] for _ in cmds]
    for k in range(runs + 1):
        for i, cmd in enumerate(cmds):
            t = time.perf_counter()
            run(cmd, cwd=cwd)
            if k:
                times[i].append(time.perf_counter() - t)
    return [(min(t), statistics.median(t)) for t in times]


def klto_order(ld, objs, runs, d):
    """Whole-process and in-process (from --verbose) seconds of computing
    the order, min and median. --version makes LLD stop right after klto
    has written its files, so no link (and no LTO) is timed."""
    walls, inproc = [], []
    for k in range(runs + 1):
        t = time.perf_counter()
        p = run([ld, "--version", "--verbose", "--kinit-order",
                 "--kinit-order-map=order.map", "-o", "order.out"] + objs, cwd=d)
        wall = time.perf_counter() - t
        m = re.search(r"order computed and written in ([0-9.]+) ms", p.stderr)
        if k:
            walls.append(wall)
            inproc.append(float(m.group(1)) / 1000)
    return ((min(walls), statistics.median(walls)),
            (min(inproc), statistics.median(inproc)))


def nm_each(objs):
    t = time.perf_counter()
    for o in objs:
        run([f"{LLVM}/llvm-nm", "--defined-only", o])
    return time.perf_counter() - t


def perl_order(script, objs, d):
    env = dict(os.environ, NM=f"{LLVM}/llvm-nm", objtree=d)
    t = time.perf_counter()
    p = subprocess.run(["perl", script] + [os.path.basename(o) for o in objs],
                       check=True, stdout=subprocess.PIPE, text=True, env=env,
                       cwd=d)
    return time.perf_counter() - t, p.stdout


def sections_from_perl(text):
    return re.findall(r"\*\(([^)]*)\)", text)


def sections_from_map(path):
    out = []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 4 and not line.startswith("#") and line.startswith("  "):
                out.append(fields[-1])
    return out


def fmt(pair):
    return f"{pair[0]:.3f} / {pair[1]:.3f}"


def pct(a, b):
    """Overhead of a over b, of the medians and of the minimums."""
    return f"{100 * (a[1] / b[1] - 1):+.1f}% ({100 * (a[0] / b[0] - 1):+.1f}%)"


def fit_exponent(ns, ts):
    xs = [math.log(n) for n in ns]
    ys = [math.log(t) for t in ts]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / \
        sum((x - mx) ** 2 for x in xs)


def merge_bench(ld, work):
    d = os.path.join(work, "merge")
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, "mod.c")
    with open(src, "w") as f:
        for i in range(300):
            f.write(f"int v{i} = {i}; const int c{i}[4] = {{{i}}}; char b{i}[16];\n"
                    f"int f{i}(int x) {{ return x * {i} + v{i} + c{i}[0] + b{i}[1]; }}\n")
    obj = os.path.join(d, "mod.o")
    run([f"{LLVM}/clang", "-O2", "-ffunction-sections", "-fdata-sections",
         "-c", src, "-o", obj])
    res = {}
    for name, extra in [("plain", []), ("merged", ["--kmerge-sections"])]:
        out = os.path.join(d, name + ".ko")
        run([ld, "-r"] + extra + [obj, "-o", out])
        h = run([f"{LLVM}/llvm-readelf", "-h", out]).stdout
        n = int(re.search(r"Number of section headers:\s+(\d+)", h).group(1))
        res[name] = (n, os.path.getsize(out))
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--sizes", default="500,1000,2000,5000")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--work", default="/tmp/klto-linker-bench")
    ap.add_argument("--linux-script")
    ap.add_argument("--skip-nm", action="store_true")
    ap.add_argument("--links-only", action="store_true",
                    help="only the whole-link table")
    args = ap.parse_args()
    global LLVM
    LLVM = llvm_bindir(args.build)
    ld = os.path.join(os.path.abspath(args.build), "bin", "ld.lld")
    sizes = [int(s) for s in args.sizes.split(",")]
    os.makedirs(args.work, exist_ok=True)

    order_times = {}
    if not args.links_only:
        order_table(args, ld, sizes, order_times)
    whole_links(args, ld, sizes, order_times)


def order_table(args, ld, sizes, order_times):
    print("### Order computation (seconds, min / median)\n")
    print("| inputs | N | entries | klto, whole process | klto, in process | "
          "one llvm-nm per file | nm / klto | generate_initcall_order.pl | "
          "same order as the script |")
    print("|---|---|---|---|---|---|---|---|---|")
    for kind in ["elf", "bitcode"]:
        for n in sizes:
            objs = generate(args.work, n, kind)
            d = os.path.dirname(objs[0])
            wall, inproc = klto_order(ld, objs, args.runs, d)
            order_times[(kind, n)] = wall[1]
            nm = nm_each(objs) if not args.skip_nm else float("nan")
            perl, same = "n/a", "n/a"
            if args.linux_script:
                t, text = perl_order(args.linux_script, objs, d)
                perl = f"{t:.3f}"
                same = "yes" if sections_from_perl(text) == \
                    sections_from_map(os.path.join(d, "order.map")) else "NO"
            print(f"| {kind} | {n} | {10 * n} | {fmt(wall)} | {fmt(inproc)} | "
                  f"{nm:.3f} | {nm / wall[1]:.0f}x | {perl} | {same} |",
                  flush=True)


def klto_order_file(ld, tail, d):
    """The --symbol-ordering-file klto hands LLD for this link, taken from
    an LLD --reproduce archive, so that LLD applying it can be timed on its
    own."""
    tar = os.path.join(d, "repro.tar")
    run([ld] + tail + ["-T", "tables.lds", "--kinit-order",
                       f"--reproduce={tar}"], cwd=d)
    path = os.path.join(d, "klto.order")
    with tarfile.open(tar) as t:
        member = next(m for m in t.getmembers() if m.name.endswith(".order"))
        with open(path, "wb") as f:
            f.write(t.extractfile(member).read())
    os.remove(tar)
    return path


def whole_links(args, ld, sizes, order_times):
    print("\n### Whole links, ELF inputs (seconds, min / median)\n")
    print("| N | stock ld.lld, user -T | klto ld.lld, user -T | + --kinit-order | "
          "overhead, median (min) | stock ld.lld, user -T, klto's ordering file "
          "| LLD's own share, median (min) | --kinit-order, no -T | stock -r | "
          "klto -r | -r --kinit-order | overhead, median (min) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    link = {}
    stock = f"{LLVM}/ld.lld"
    for n in sizes:
        objs = generate(args.work, n, "elf")
        d = os.path.dirname(objs[0])
        tail = ["-static", "-e", "_start", "start.o", "-o", "out"] + objs
        order = klto_order_file(ld, tail, d)
        fs, f0, f1, fo, f2, rs, r0, r1 = timed_round_robin([
            [stock] + tail + ["-T", "tables.lds"],
            [ld] + tail + ["-T", "tables.lds"],
            [ld] + tail + ["-T", "tables.lds", "--kinit-order"],
            [stock] + tail + ["-T", "tables.lds", "--symbol-ordering-file",
                              order, "--no-warn-symbol-ordering"],
            [ld] + tail + ["--kinit-order"],
            [stock, "-r", "-o", "out.o"] + objs,
            [ld, "-r", "-o", "out.o"] + objs,
            [ld, "-r", "--kinit-order", "-o", "out.o"] + objs], args.runs, d)
        link[n] = (f1[1], r1[1])
        print(f"| {n} | {fmt(fs)} | {fmt(f0)} | {fmt(f1)} | "
              f"{pct(f1, f0)} | {fmt(fo)} | {pct(fo, fs)} | {fmt(f2)} | "
              f"{fmt(rs)} | {fmt(r0)} | {fmt(r1)} | {pct(r1, r0)} |",
              flush=True)

    if len(sizes) > 1:
        print("\n### Growth (exponent of a log-log fit of the median over N)\n")
        for kind in ["elf", "bitcode"] if order_times else []:
            e = fit_exponent(sizes, [order_times[(kind, n)] for n in sizes])
            print(f"* order computation, {kind}: {e:.2f}")
        print(f"* final link with --kinit-order: "
              f"{fit_exponent(sizes, [link[n][0] for n in sizes]):.2f}")
        print(f"* -r link with --kinit-order: "
              f"{fit_exponent(sizes, [link[n][1] for n in sizes]):.2f}")

    m = merge_bench(ld, args.work)
    print("\n### --kmerge-sections (300 functions, -ffunction-sections "
          "-fdata-sections, -r)\n")
    print("| | sections | bytes |\n|---|---|---|")
    for name in ["plain", "merged"]:
        print(f"| {name} | {m[name][0]} | {m[name][1]} |")


if __name__ == "__main__":
    sys.exit(main())
