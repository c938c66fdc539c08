# lit configuration for klto. Every RUN line sees the tools of the LLVM klto
# was built for first on PATH, so `FileCheck`, `llvm-readelf` and friends are
# never another version's (Debian's plain clang is 14).
import os
import re
import shutil
import subprocess
import lit.formats

config.name = "klto"
config.test_format = lit.formats.ShTest(not lit_config.useValgrind)
config.suffixes = [".c", ".ll", ".s", ".test", ".cpp"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.klto_obj_root, "test")

config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.klto_bin_dir, config.environment.get("PATH", "/usr/bin:/bin")])
# klto-kfence-symbolize and the scripts take LLVM's tools from here.
config.environment["KLTO_LLVM_BINDIR"] = config.llvm_tools_dir
for var in ("HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

plugin = os.path.join(config.klto_lib_dir, "kltoplugin.so")
pass_plugin = os.path.join(config.klto_lib_dir, "kltopass.so")
klto_ld = os.path.join(config.klto_bin_dir, "ld.lld")
stock_ld = os.path.join(config.llvm_tools_dir, "ld.lld")
inputs = os.path.join(config.test_source_root, "Inputs")

# %clangxx first: %clang is a prefix of it.
config.substitutions.append(("%clangxx", config.klto_clang + "++"))
config.substitutions.append(("%clang", config.klto_clang))
# %passplugin first: %plugin is a prefix of it.
config.substitutions.append(("%passplugin", pass_plugin))
config.substitutions.append(("%plugin", plugin))
config.substitutions.append(("%kfence_include",
                             os.path.join(config.klto_src_root, "runtime", "kfence", "include")))
config.substitutions.append(("%klto_libdir", config.klto_lib_dir))
config.substitutions.append(("%klto_ld", klto_ld))
config.substitutions.append(("%stock_ld", stock_ld))
config.substitutions.append(("%inputs", inputs))
config.substitutions.append(("%klto_build", config.klto_obj_root))
config.substitutions.append(("%klto_src", config.klto_src_root))
config.substitutions.append(("%demo", os.path.join(config.klto_src_root, "examples", "demo")))
config.substitutions.append(("%python", "python3"))
# The LLVM major klto was built for (17 to 22), for FileCheck -D.
config.substitutions.append(("%llvm_major", config.llvm_major))
config.available_features.add("llvm-" + config.llvm_major)

# Tests that run or disassemble host code of one architecture need that
# host; tests that compile for one (--target=) need its backend.
import platform
import subprocess
config.available_features.add("host-" + platform.machine())
try:
    llc = subprocess.run([os.path.join(config.llvm_tools_dir, "llc"), "--version"],
                         capture_output=True, text=True).stdout
except OSError:
    llc = ""
for backend, feature in (("x86-64", "x86"), ("aarch64", "aarch64"), ("arm", "arm")):
    if re.search(r"^\s+%s\s+-" % re.escape(backend), llc, re.M):
        config.available_features.add(feature + "-registered-target")
# LLD's options that not every supported major has: --default-script (-dT)
# came with LLD 19.
try:
    lld_help = subprocess.run([stock_ld, "--help"], capture_output=True,
                              text=True).stdout
except OSError:
    lld_help = ""
if "--default-script" in lld_help:
    config.available_features.add("lld-default-script")
if hasattr(os, "geteuid") and os.geteuid() == 0:
    config.available_features.add("root")
if os.path.exists(klto_ld):
    config.available_features.add("klto-ld")
if config.klto_fuzzers:
    config.available_features.add("fuzzers")
if shutil.which("qemu-aarch64") or shutil.which("qemu-aarch64-static"):
    config.available_features.add("qemu-aarch64")
if os.path.exists("/usr/aarch64-linux-gnu/lib/libc.so.6"):
    config.available_features.add("aarch64-sysroot")
# The KFENCE mapping-budget test's figures assume Linux's default limit.
try:
    with open("/proc/sys/vm/max_map_count") as f:
        if f.read().strip() == "65530":
            config.available_features.add("default-max-map-count")
except OSError:
    pass
# Allocators KFENCE's LD_PRELOAD build is put in front of
# (test/kfence/other-allocators.c): Debian's libjemalloc2,
# libtcmalloc-minimal4 and libmimalloc2.0 (Debian 13: libtcmalloc-minimal4t64
# and libmimalloc3, whose soname is libmimalloc.so.3), which the README's
# first command installs. A feature, a substitution for its path
# (%libjemalloc, ...) and one for its file name (%soname_jemalloc, ...) for
# each library the dynamic loader's cache knows.
try:
    ld_cache = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True,
                              text=True).stdout
except OSError:
    ld_cache = ""
for feature, sonames in (("jemalloc", ("libjemalloc.so.2",)),
                         ("tcmalloc", ("libtcmalloc_minimal.so.4",)),
                         ("mimalloc", ("libmimalloc.so.2", "libmimalloc.so.3"))):
    paths = [line.split(" => ")[1].strip() for line in ld_cache.splitlines()
             if line.strip().split(" ")[0] in sonames and " => " in line]
    paths = [p for p in paths if os.path.exists(p)]
    if paths:
        config.available_features.add(feature)
        config.substitutions.append(("%soname_" + feature, os.path.basename(paths[0])))
        config.substitutions.append(("%lib" + feature, paths[0]))
