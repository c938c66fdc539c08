#include <stdio.h>
static int __attribute__((used)) counter = 7;
int get_other(void);
int main(void) {
  int v;
#if defined(__x86_64__)
  __asm__ volatile("movl counter(%%rip), %0" : "=r"(v));
#else
  __asm__ volatile("adrp x9, counter\n\tldr %w0, [x9, :lo12:counter]"
                   : "=r"(v)
                   :
                   : "x9");
#endif
  printf("statics=%d,%d\n", v, get_other());
  return 0;
}
