// Where the module name in ids comes from: the option, Linux 5.12's
// __KBUILD_MODNAME, kbuild's KBUILD_MODNAME (through name-fix), or a default
// that differs for two files with the same name in different folders.
// RUN: rm -rf %t && mkdir -p %t/a %t/b && cp %s %t/a/foo.c && cp %s %t/b/foo.c
// RUN: %clang -S -emit-llvm -fplugin=%plugin -fplugin-arg-klto-modname=kmod_opt \
// RUN:   '-DKBUILD_MODNAME="ignored"' %s -o - | FileCheck %s --check-prefix=OPT
// RUN: %clang -S -emit-llvm -fplugin=%plugin '-DKBUILD_MODNAME="snd-hda,intel"' %s -o - \
// RUN:   | FileCheck %s --check-prefix=KBUILD
// Old kbuild (barebox, U-Boot) spells it KBUILD_STR(name), a macro that
// stringifies its argument.
// RUN: %clang -S -emit-llvm -fplugin=%plugin '-DKBUILD_STR(s)=#s' '-DKBUILD_MODNAME=KBUILD_STR(fs-ext)' \
// RUN:   %s -o - | FileCheck %s --check-prefix=STR
// RUN: %clang -S -emit-llvm -fplugin=%plugin -D__KBUILD_MODNAME=kmod_new \
// RUN:   '-DKBUILD_MODNAME="old"' %s -o - | FileCheck %s --check-prefix=NEW
// RUN: cd %t && %clang -S -emit-llvm -fplugin=%plugin a/foo.c -o a.ll
// RUN: cd %t && %clang -S -emit-llvm -fplugin=%plugin b/foo.c -o b.ll
// RUN: grep -o '__initcall__kmod_foo_[0-9a-f]*__0' %t/a.ll | sort -u > %t/a.id
// RUN: grep -o '__initcall__kmod_foo_[0-9a-f]*__0' %t/b.ll | sort -u > %t/b.id
// RUN: count 1 < %t/a.id
// RUN: count 1 < %t/b.id
// RUN: not diff %t/a.id %t/b.id

static int init(void) { return 0; }
static int (*__initcall_init6)(void) __attribute__((used, section(".initcall6.init"))) = init;

// OPT: @__initcall__kmod_opt__0_24_init6
// KBUILD: @__initcall__kmod_snd_hda_intel__0_24_init6
// STR: @__initcall__kmod_fs_ext__0_24_init6
// NEW: @__initcall__kmod_new__0_24_init6
