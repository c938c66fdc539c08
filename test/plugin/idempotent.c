// Code that already uses Linux 5.12's LTO macros (unique sections, global
// __initstub__ stubs) passes through unchanged, and running the pass on its
// own output changes nothing.
// RUN: rm -rf %t && mkdir %t
// RUN: for d in "" -DCONFIG_HAVE_ARCH_PREL32_RELOCATIONS; do \
// RUN:   %clang -O0 -S -emit-llvm $d -include %S/Inputs/init-lto512.h -D__KBUILD_MODNAME=kmod_x \
// RUN:     %S/Inputs/entries.c -o %t/plain.ll && \
// RUN:   %clang -O0 -S -emit-llvm $d -include %S/Inputs/init-lto512.h -D__KBUILD_MODNAME=kmod_x \
// RUN:     -fplugin=%plugin %S/Inputs/entries.c -o %t/klto.ll && \
// RUN:   grep -v -e '^!klto' -e '^; ModuleID' %t/plain.ll > %t/plain.cmp && \
// RUN:   grep -v -e '^!klto' -e '^; ModuleID' -e '^![0-9]* = !{!"kmod_x"}' %t/klto.ll > %t/klto.cmp && \
// RUN:   diff %t/plain.cmp %t/klto.cmp || exit 1; \
// RUN: done
// Twice: the pass on pre-5.12 code, then again (without the done marker) on its output.
// RUN: %clang -O0 -S -emit-llvm -DCONFIG_HAVE_ARCH_PREL32_RELOCATIONS -include %demo/include/init.h \
// RUN:   -fplugin=%plugin -fplugin-arg-klto-modname=kmod_x %S/Inputs/entries.c -o %t/once.ll
// RUN: grep -v '^!klto.done' %t/once.ll > %t/undone.ll
// RUN: opt -load-pass-plugin=%passplugin -passes=klto -klto-modname=kmod_x -S %t/undone.ll -o %t/twice.ll
// RUN: opt -S %t/undone.ll -o %t/once-norm.ll
// RUN: grep -v '^!klto' %t/once-norm.ll > %t/a
// RUN: grep -v '^!klto' %t/twice.ll > %t/b
// RUN: diff %t/a %t/b
