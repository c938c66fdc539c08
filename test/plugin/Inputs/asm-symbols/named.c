/* Case 1: a function and a variable of counter.c named only in this asm,
 * with no C declaration here. */
#include <stdio.h>

int main(void) {
  int v;
#if defined(__x86_64__)
  __asm__ volatile("call bump\n\tmovl hits(%%rip), %0"
                   : "=r"(v)
                   :
                   : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10",
                     "r11", "memory");
#else
  __asm__ volatile("bl bump\n\tadrp x9, hits\n\tldr %w0, [x9, :lo12:hits]"
                   : "=r"(v)
                   :
                   : "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8",
                     "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16",
                     "x17", "x30", "memory");
#endif
  printf("hits=%d\n", v);
  return 0;
}
