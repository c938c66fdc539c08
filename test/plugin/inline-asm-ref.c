// A global function defined in one file and named only inside another
// file's function-level asm (as arm64's ALTERNATIVE_CB names
// alt_cb_patch_nops): LTO does not see the reference, drops the definition,
// and the link fails. The plugin records the reference for LTO.
// RUN: rm -rf %t && split-file %s %t && cd %t
// RUN: %clang -O2 cb.c user.c --ld-path=%stock_ld -o nolto && ./nolto | FileCheck %s
// RUN: not %clang -O2 -flto cb.c user.c --ld-path=%stock_ld -o full 2>&1 | FileCheck %s --check-prefix=BROKEN
// RUN: not %clang -O2 -flto=thin cb.c user.c --ld-path=%stock_ld -o thin 2>&1 | FileCheck %s --check-prefix=BROKEN
// RUN: %clang -O2 -flto -fplugin=%plugin cb.c user.c --ld-path=%stock_ld -o full && ./full | FileCheck %s
// RUN: %clang -O2 -flto=thin -fplugin=%plugin cb.c user.c --ld-path=%stock_ld -o thin && ./thin | FileCheck %s
// RUN: %clang -O2 -flto=thin -fplugin=%plugin -Rpass=klto -c user.c -o user.o 2>&1 | FileCheck %s --check-prefix=REMARK
// BROKEN: undefined symbol: alt_cb_patch_nops
// CHECK: patched
// REMARK: remark: 'alt_cb_patch_nops' is named only in inline asm; kept visible to LTO [-Rpass=klto]

//--- cb.h
void alt_cb_patch_nops(void);
//--- cb.c
#include <stdio.h>
#include "cb.h"
void alt_cb_patch_nops(void) { puts("patched"); }
//--- user.c
#include "cb.h"
int main(void) {
  // %%rax is a register and %0 an operand: neither is a symbol.
  __asm__ volatile("call alt_cb_patch_nops\n\tmov %%rax, %%rax\n\tmov %0, %%rcx" ::"r"(0L) : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "memory");
  return 0;
}
