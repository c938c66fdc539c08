// ThinLTO imports run_a() into main.c and must then promote (rename) the
// static init that a.c's table asm names: the link fails with an undefined
// symbol. With the plugin the asm names a stub that is never renamed.
// RUN: rm -rf %t && split-file %s %t && cd %t
// RUN: %clang -O2 a.c main.c --ld-path=%stock_ld -o nolto && ./nolto | FileCheck %s
// RUN: not %clang -O2 -flto=thin a.c main.c --ld-path=%stock_ld -o broken 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BROKEN
// RUN: %clang -O2 -flto=thin -fplugin=%plugin a.c main.c --ld-path=%stock_ld -o klto
// RUN: ./klto | FileCheck %s
// BROKEN: undefined symbol: init
// CHECK: init ran
// CHECK-NEXT: init ran

//--- a.c
#include <stdio.h>
__attribute__((noinline)) static int init(void) { return puts("init ran"); }
__asm__(".pushsection mytable, \"a\"\n.long init - .\n.popsection\n");
int run_a(void) { return init(); }
//--- main.c
extern const int __start_mytable[], __stop_mytable[];
int run_a(void);
int main(void) {
  run_a();
  for (const int *p = __start_mytable; p < __stop_mytable; ++p)
    ((int (*)(void))((const char *)p + *p))();
  return 0;
}
