"""The LLVM a klto build was made for, as its llvm.env names it: the one
reader of that file for the Python benchmarks (bench/*/)."""
import os
import sys


def llvm_bindir(build):
    """The bin/ of the LLVM the klto build was made for (its llvm.env)."""
    path = os.path.join(build, "llvm.env")
    if not os.path.exists(path):
        sys.exit(f"{path} not found: configure klto first (cmake -B {build})")
    with open(path) as f:
        env = dict(line.strip().split("=", 1) for line in f
                   if "=" in line and not line.startswith("#"))
    return env["KLTO_LLVM_BINDIR"]
