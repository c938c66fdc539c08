// Linux 6.19 dropped kbuild's kmod_ from __KBUILD_MODNAME ("-D__KBUILD_MODNAME=x",
// before "=kmod_x") and __initcall_id() pastes it in front: the plugin's ids
// carry kmod_x with either kbuild, as the kernel's own do.
//
// The plugin naming pre-5.12 entries gives the objects 6.19's own LTO macros
// give without it (the 5.12 shape: shape-vs-linux512.c): with 6.19's
// kbuild flags, KBUILD_MODNAME tells the prefix is missing.
// RUN: rm -rf %t && mkdir %t
// RUN: %clang -O2 -c -DCONFIG_HAVE_ARCH_PREL32_RELOCATIONS -include %demo/include/init.h \
// RUN:   -fplugin=%plugin -D__KBUILD_MODNAME=x '-DKBUILD_MODNAME="x"' \
// RUN:   %S/Inputs/entries.c -o %t/klto.o
// RUN: %clang -O2 -c -DCONFIG_HAVE_ARCH_PREL32_RELOCATIONS -include %S/Inputs/init-lto619.h \
// RUN:   -D__KBUILD_MODNAME=x '-DKBUILD_MODNAME="x"' %S/Inputs/entries.c -o %t/linux.o
// RUN: llvm-readelf -S %t/klto.o | grep -o '\.[a-z_]*initcall[^ ]*' | sort > %t/klto.sec
// RUN: llvm-readelf -S %t/linux.o | grep -o '\.[a-z_]*initcall[^ ]*' | sort > %t/linux.sec
// RUN: diff %t/klto.sec %t/linux.sec
// RUN: FileCheck %s --check-prefix=SEC < %t/klto.sec
// RUN: llvm-nm %t/klto.o | awk '{print $NF}' | grep '^__init[a-z]*__' | sort > %t/klto.sym
// RUN: llvm-nm %t/linux.o | awk '{print $NF}' | grep '^__init[a-z]*__' | sort > %t/linux.sym
// RUN: diff %t/klto.sym %t/linux.sym
//
// In a file that has init.h, its __initcall_id() decides, KBUILD_MODNAME or
// not: an entry the plugin names itself (this file's) next to the kernel's.
// RUN: %clang -S -emit-llvm -include %S/Inputs/init-lto619.h -fplugin=%plugin \
// RUN:   -D__KBUILD_MODNAME=x %s -o - | FileCheck %s --check-prefix=ID
// RUN: %clang -S -emit-llvm -include %S/Inputs/init-lto512.h -fplugin=%plugin \
// RUN:   -D__KBUILD_MODNAME=kmod_x %s -o - | FileCheck %s --check-prefix=ID
// A module named kmod_y: kmod_kmod_y in both kbuilds.
// RUN: %clang -S -emit-llvm -include %S/Inputs/init-lto619.h -fplugin=%plugin \
// RUN:   -D__KBUILD_MODNAME=kmod_y %s -o - | FileCheck %s --check-prefix=KMOD
// RUN: %clang -S -emit-llvm -include %S/Inputs/init-lto512.h -fplugin=%plugin \
// RUN:   -D__KBUILD_MODNAME=kmod_kmod_y %s -o - | FileCheck %s --check-prefix=KMOD
// Without init.h: KBUILD_MODNAME tells, the same for both.
// RUN: %clang -S -emit-llvm -fplugin=%plugin -D__KBUILD_MODNAME=kmod_y \
// RUN:   '-DKBUILD_MODNAME="kmod_y"' %s -o - | FileCheck %s --check-prefix=KMOD
// RUN: %clang -S -emit-llvm -fplugin=%plugin -D__KBUILD_MODNAME=kmod_kmod_y \
// RUN:   '-DKBUILD_MODNAME="kmod_y"' %s -o - | FileCheck %s --check-prefix=KMOD
// RUN: %clang -S -emit-llvm -fplugin=%plugin -D__KBUILD_MODNAME=x \
// RUN:   '-DKBUILD_MODNAME="x"' %s -o - | FileCheck %s --check-prefix=ID

static int init(void) { return 0; }
static int (*__initcall_init6)(void) __attribute__((used, section(".initcall6.init"))) = init;

// SEC: .con_initcall.init..kmod_x__3_9_con
// SEC: .initcall1.init..kmod_x__0_6_first
// SEC: .initcall6.init..kmod_x__1_7_second
// SEC: .initcall7s.init..kmod_x__2_8_second
// ID: @__initcall__kmod_x__0_{{[0-9]+}}_init6
// KMOD: @__initcall__kmod_kmod_y__0_{{[0-9]+}}_init6
