// Linux's EXPORT_SYMBOL (6.1, PREL32) defines its __ksymtab_<sym>,
// __kstrtab_<sym> and __kstrtabns_<sym> labels in file-scope asm, and from
// 6.5 on one __export_symbol_<sym> label in .export_symbol; modpost finds
// the exports of vmlinux.o and of every module by those names. The
// plugin makes the other labels module asm defines unique for full LTO
// (<label>.<modname>), but these keep their names: they are the same in the
// IR, in each object and in the LTO -r link, with and without the plugin.
// RUN: rm -rf %t && split-file %s %t && cd %t
// RUN: %clang -O2 -S -emit-llvm -flto -fplugin=%plugin -fplugin-arg-klto-modname=kmod_a a.c -o - | FileCheck %s --check-prefix=IR
// RUN: %clang -O2 -c -flto -fplugin=%plugin -fplugin-arg-klto-modname=kmod_a a.c -o a.o
// RUN: %clang -O2 -c -flto -fplugin=%plugin -fplugin-arg-klto-modname=kmod_b b.c -o b.o
// RUN: %klto_ld -r a.o b.o -o full.o
// RUN: llvm-nm full.o | FileCheck %s --check-prefix=NM
// RUN: %clang -O2 -c -flto=thin -fplugin=%plugin -fplugin-arg-klto-modname=kmod_a a.c -o a.thin.o
// RUN: %clang -O2 -c -flto=thin -fplugin=%plugin -fplugin-arg-klto-modname=kmod_b b.c -o b.thin.o
// RUN: %klto_ld -r a.thin.o b.thin.o -o thin.o
// RUN: llvm-nm thin.o | FileCheck %s --check-prefix=NM
// RUN: %clang -O2 -c a.c -o a.native.o
// RUN: %clang -O2 -c b.c -o b.native.o
// RUN: %stock_ld -r a.native.o b.native.o -o native.o
// RUN: llvm-nm native.o | FileCheck %s --check-prefix=NATIVE

// IR-DAG: module asm "__ksymtab_foo:"
// IR-DAG: module asm "__kstrtab_foo:"
// IR-DAG: module asm "__kstrtabns_foo:"
// IR-DAG: module asm "__export_symbol_baz:"
// IR-DAG: module asm "table_start.kmod_a: .long 0"

// NM-DAG: r __kstrtab_bar
// NM-DAG: r __kstrtab_foo
// NM-DAG: r __kstrtabns_bar
// NM-DAG: r __kstrtabns_foo
// NM-DAG: r __ksymtab_bar
// NM-DAG: r __ksymtab_foo
// NM-DAG: r __export_symbol_baz
// NM-DAG: r __export_symbol_qux
// NM-DAG: table_start.kmod_a
// NM-DAG: table_start.kmod_b

// NATIVE-DAG: r __ksymtab_bar
// NATIVE-DAG: r __ksymtab_foo
// NATIVE-DAG: r __export_symbol_baz
// NATIVE-DAG: r __export_symbol_qux
// NATIVE-DAG: table_start

//--- export.h
#define EXPORT_SYMBOL(sym)                                                     \
  __asm__(".section \"__ksymtab_strings\",\"aMS\",%progbits,1\n"               \
          "__kstrtab_" #sym ":\n"                                              \
          ".asciz \"" #sym "\"\n"                                              \
          "__kstrtabns_" #sym ":\n"                                            \
          ".asciz \"\"\n"                                                      \
          ".previous\n");                                                      \
  __asm__(".section \"___ksymtab+" #sym "\", \"a\"\n"                          \
          ".balign 4\n"                                                        \
          "__ksymtab_" #sym ":\n"                                              \
          ".long " #sym " - .\n"                                               \
          ".long __kstrtab_" #sym " - .\n"                                     \
          ".long __kstrtabns_" #sym " - .\n"                                   \
          ".previous\n")
// Linux 6.5 on: license, namespace and the symbol's address.
#define EXPORT_SYMBOL_65(sym)                                                  \
  __asm__(".section \".export_symbol\",\"a\"\n"                               \
          "__export_symbol_" #sym ":\n"                                        \
          ".asciz \"\"\n"                                                      \
          ".asciz \"\"\n"                                                      \
          ".balign 8\n"                                                        \
          ".quad " #sym "\n"                                                   \
          ".previous\n")
// A label each file defines under the same name: full LTO concatenates
// the files' asm, so this one must become unique.
#define TABLE_START __asm__(".section .rodata\ntable_start: .long 0\n.previous\n")

//--- a.c
#include "export.h"
int foo(int x) { return x + 1; }
EXPORT_SYMBOL(foo);
int baz(int x) { return x + 3; }
EXPORT_SYMBOL_65(baz);
TABLE_START;

//--- b.c
#include "export.h"
int bar(int x) { return x + 2; }
EXPORT_SYMBOL(bar);
int qux(int x) { return x + 4; }
EXPORT_SYMBOL_65(qux);
TABLE_START;
