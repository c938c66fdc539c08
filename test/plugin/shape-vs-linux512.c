// The same initcalls written with pre-5.12 macros and compiled with klto, or
// written with Linux 5.12's hand-made LTO macros and compiled without it,
// give objects of the same shape: the same entry sections, entry symbols and
// stubs. Both entry styles (function pointers and PREL32 asm).
// RUN: rm -rf %t && mkdir %t
// RUN: %clang -O2 -c -include %demo/include/init.h -fplugin=%plugin \
// RUN:   -fplugin-arg-klto-modname=kmod_x %S/Inputs/entries.c -o %t/klto.o
// RUN: %clang -O2 -c -include %S/Inputs/init-lto512.h -D__KBUILD_MODNAME=kmod_x \
// RUN:   %S/Inputs/entries.c -o %t/linux.o
// RUN: llvm-readelf -S %t/klto.o | grep -o '\.[a-z_]*initcall[^ ]*' | sort > %t/klto.sec
// RUN: llvm-readelf -S %t/linux.o | grep -o '\.[a-z_]*initcall[^ ]*' | sort > %t/linux.sec
// RUN: diff %t/klto.sec %t/linux.sec
// RUN: FileCheck %s --check-prefix=SEC < %t/klto.sec
// RUN: llvm-nm %t/klto.o | awk '{print $NF}' | grep '^__init[a-z]*__' | sort > %t/klto.sym
// RUN: llvm-nm %t/linux.o | awk '{print $NF}' | grep '^__init[a-z]*__' | sort > %t/linux.sym
// RUN: diff %t/klto.sym %t/linux.sym
//
// RUN: %clang -O2 -c -DCONFIG_HAVE_ARCH_PREL32_RELOCATIONS -include %demo/include/init.h \
// RUN:   -fplugin=%plugin -fplugin-arg-klto-modname=kmod_x %S/Inputs/entries.c -o %t/klto32.o
// RUN: %clang -O2 -c -DCONFIG_HAVE_ARCH_PREL32_RELOCATIONS -include %S/Inputs/init-lto512.h \
// RUN:   -D__KBUILD_MODNAME=kmod_x %S/Inputs/entries.c -o %t/linux32.o
// RUN: llvm-readelf -S %t/klto32.o | grep -o '\.[a-z_]*initcall[^ ]*' | sort > %t/klto32.sec
// RUN: llvm-readelf -S %t/linux32.o | grep -o '\.[a-z_]*initcall[^ ]*' | sort > %t/linux32.sec
// RUN: diff %t/klto32.sec %t/linux32.sec
// RUN: llvm-nm %t/klto32.o | awk '{print $NF}' | grep '^__init[a-z]*__' | sort > %t/klto32.sym
// RUN: llvm-nm %t/linux32.o | awk '{print $NF}' | grep '^__init[a-z]*__' | sort > %t/linux32.sym
// RUN: diff %t/klto32.sym %t/linux32.sym
// RUN: FileCheck %s --check-prefix=SYM32 < %t/klto32.sym
//
// SEC: .con_initcall.init..kmod_x__3_9_con
// SEC: .initcall1.init..kmod_x__0_6_first
// SEC: .initcall6.init..kmod_x__1_7_second
// SEC: .initcall7s.init..kmod_x__2_8_second
// SYM32: __initcall__kmod_x__0_6_first1
// SYM32: __initcall__kmod_x__1_7_second6
// SYM32: __initcall__kmod_x__2_8_second7s
// SYM32: __initcall__kmod_x__3_9_concon
// SYM32: __initstub__kmod_x__0_6_first1
