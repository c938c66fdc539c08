// Asm outside initcall tables (PCI fixups, any project's table) that names a
// static function reaches it through a global stub; static data named in asm
// gets a global alias. Module asm that names no static stays byte-identical.
// RUN: %clang -O0 -S -emit-llvm -fplugin=%plugin -fplugin-arg-klto-modname=kmod_p %s -o - | FileCheck %s
// RUN: %clang -O0 -S -emit-llvm -fplugin=%plugin -DUNTOUCHED %s -o %t.klto.ll
// RUN: %clang -O0 -S -emit-llvm -DUNTOUCHED %s -o %t.plain.ll
// RUN: grep '^module asm' %t.plain.ll > %t.plain.asm
// RUN: grep '^module asm' %t.klto.ll > %t.klto.asm
// RUN: count 3 < %t.plain.asm
// RUN: diff %t.plain.asm %t.klto.asm
// RUN: %clang -O2 -fplugin=%plugin --ld-path=%stock_ld %s -o %t.exe && %t.exe | FileCheck %s --check-prefix=EXEC

#include <stdio.h>
#ifndef UNTOUCHED
struct dev { int id; };
static __attribute__((used)) void fixup(struct dev *d) { printf("fixup %d\n", d->id); }
static int counter = 41;
__asm__(".section fixups, \"a\"\n"
        ".short 0x8086, 0x1234\n"
        ".long fixup - .\n"
        ".previous\n"
        ".pushsection .data.ptrs, \"aw\"\n"
        ".globl counter_ptr\n"
        "counter_ptr: .quad counter\n"
        ".popsection\n");
extern int *counter_ptr;
extern const char __start_fixups[];
int main(void) {
  struct dev d = {7};
  const int *off = (const int *)(__start_fixups + 4);
  ((void (*)(struct dev *))((const char *)off + *off))(&d);
  printf("counter %d\n", ++*counter_ptr);
  return counter == 42 ? 0 : 1;
}
// CHECK: module asm ".long __kltostub__kmod_p__fixup - ."
// CHECK: module asm "counter_ptr: .quad __kltostub__kmod_p__counter"
// CHECK-DAG: @__kltostub__kmod_p__counter = hidden alias i32, ptr @counter
// CHECK-DAG: @__kltostub__kmod_p__fixup = hidden alias void (ptr), ptr @fixup
// EXEC-LABEL: fixup 7
// EXEC-NEXT: counter 42
#else
__asm__(".pushsection .rodata.banner, \"a\"\n.asciz \"fixup counter\" # names nothing\n.popsection\n");
#endif
