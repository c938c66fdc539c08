// What function-level asm holds besides symbols stays untouched: registers,
// operands (%0, %[x], %c1, %w0), relocation specifiers (@PLT, :lo12:,
// :got:), numeric and .L labels, AArch64 system registers, barriers,
// shifts and conditions. Only real symbols get declarations in
// llvm.compiler.used, which the object file never shows: its symbol table
// is the same with and without the plugin, and a name that no file defines
// adds no undefined symbol to an LTO link whose asm went away.
// REQUIRES: x86-registered-target, aarch64-registered-target
// RUN: %clang --target=x86_64-linux-gnu -O2 -S -emit-llvm -fplugin=%plugin %s -o - | FileCheck %s --check-prefixes=IR,X86
// RUN: %clang --target=aarch64-linux-gnu -O2 -S -emit-llvm -fplugin=%plugin %s -o - | FileCheck %s --check-prefixes=IR,A64
// RUN: %clang --target=x86_64-linux-gnu -O2 -c %s -o %t.stock.o
// RUN: %clang --target=x86_64-linux-gnu -O2 -c -fplugin=%plugin %s -o %t.klto.o
// RUN: llvm-nm %t.stock.o > %t.stock.nm && llvm-nm %t.klto.o | diff %t.stock.nm -
// RUN: %clang --target=aarch64-linux-gnu -O2 -c %s -o %t.stock.o
// RUN: %clang --target=aarch64-linux-gnu -O2 -c -fplugin=%plugin %s -o %t.klto.o
// RUN: llvm-nm %t.stock.o > %t.stock.nm && llvm-nm %t.klto.o | diff %t.stock.nm -
// RUN: %clang -O2 -flto -fplugin=%plugin -DMAIN -c %s -o %t.lto.o
// RUN: %clang -flto --ld-path=%stock_ld %t.lto.o -o %t.exe
// RUN: llvm-nm %t.exe | FileCheck %s --check-prefix=LINKED

// Every name the asm below names that is a symbol, and nothing else; the
// .set defines a symbol but may be repeated, so regs() is not kept:
// X86-NOT: @{{(rax|eax|rbx|rip|ecx|Lskip|PLT|GOTPCREL|k|out|set_here|modasm_sym|target)}} =
// A64-NOT: @{{(x0|w1|xzr|sp|lr|tpidr_el0|ish|lsl|ne|eq|lo12|got|got_lo12|modasm_sym|target)}} =
// IR:      @llvm.compiler.used = appending global [4 x ptr] [ptr @macro_target, ptr @nowhere_defined, ptr @shared_counter, ptr @shared_fn]
// X86-NOT: @{{(rax|eax|rbx|rip|ecx|Lskip|PLT|GOTPCREL|k|out|set_here|modasm_sym|target)}} =
// A64-NOT: @{{(x0|w1|xzr|sp|lr|tpidr_el0|ish|lsl|ne|eq|lo12|got|got_lo12|modasm_sym|target)}} =

#ifdef MAIN
int main(void) { return 0; }
#endif

static int counter;

// A macro of the module asm expands in function-level asm (macro_target is
// named), and a symbol the module asm defines needs no declaration.
#if defined(__x86_64__)
__asm__(".macro call_it target\n\tcall \\target\n.endm\n"
        ".globl modasm_sym\nmodasm_sym: ret");
void via_macro(void) { __asm__ volatile("call_it macro_target\n\tcall modasm_sym"); }
#else
__asm__(".macro call_it target\n\tbl \\target\n.endm\n"
        ".globl modasm_sym\nmodasm_sym: ret");
void via_macro(void) { __asm__ volatile("call_it macro_target\n\tbl modasm_sym"); }
#endif

#if defined(__x86_64__)
// The only user of nowhere_defined is dead once LTO sees main is all.
void dead_user(void) { __asm__ volatile("call nowhere_defined"); }

int regs(int x) {
  int r;
  __asm__(".set set_here, 8\n\t"
          "mov %1, %%eax\n\t"
          "1: dec %%eax\n\t"
          "jnz 1b\n\t"
          "jmp .Lskip%=\n"
          ".Lskip%=:\n\t"
          "call shared_fn@PLT\n\t"
          "movq shared_counter@GOTPCREL(%%rip), %%rbx\n\t"
          "mov %c[k], %%ecx\n\t"
          "mov %%eax, %[out]"
          : [out] "=r"(r)
          : "r"(x), [k] "i"(8)
          : "rax", "rbx", "rcx", "memory");
  return r + counter;
}
#else
void dead_user(void) { __asm__ volatile("bl nowhere_defined"); }

long regs(long x) {
  long r;
  __asm__("mov x0, %1\n\t"
          "1: subs x0, x0, #1\n\t"
          "b.ne 1b\n\t"
          "csel %0, x0, xzr, eq\n\t"
          "mrs x1, tpidr_el0\n\t"
          "dmb ish\n\t"
          "add %0, %0, x1, lsl #2\n\t"
          "mov %w0, w1\n\t"
          "bl shared_fn\n\t"
          "adrp x1, :got:shared_counter\n\t"
          "ldr x1, [x1, :got_lo12:shared_counter]\n\t"
          "add sp, sp, #0\n\t"
          "mov x30, lr"
          : "=&r"(r)
          : "r"(x)
          : "x0", "x1", "x30", "memory", "cc");
  return r + counter;
}
#endif

// LINKED-NOT: nowhere_defined
