// Pre-5.12 PREL32 initcalls define a label per entry (__initcall_<fn><level>).
// Two files registering a static `init` at the same level link without LTO,
// but full LTO concatenates their asm and the label is defined twice. With
// the plugin the labels are unique and both entries run.
// RUN: rm -rf %t && split-file %s %t && cd %t
// RUN: %clang -O2 -DCONFIG_HAVE_ARCH_PREL32_RELOCATIONS -I%demo/include a.c b.c main.c \
// RUN:   --ld-path=%stock_ld -Wl,-T,%S/Inputs/level6.lds -o nolto
// RUN: ./nolto | FileCheck %s
// RUN: not %clang -O2 -flto -DCONFIG_HAVE_ARCH_PREL32_RELOCATIONS -I%demo/include a.c b.c main.c \
// RUN:   --ld-path=%stock_ld -Wl,-T,%S/Inputs/level6.lds -o broken 2>&1 | FileCheck %s --check-prefix=BROKEN
// RUN: %clang -O2 -flto -fplugin=%plugin -DCONFIG_HAVE_ARCH_PREL32_RELOCATIONS -I%demo/include \
// RUN:   a.c b.c main.c --ld-path=%stock_ld -Wl,-T,%S/Inputs/level6.lds -o klto
// RUN: ./klto | FileCheck %s
// BROKEN: symbol '__initcall_init6' is already defined
// CHECK: a.c
// CHECK-NEXT: b.c

//--- a.c
#include <init.h>
#include <stdio.h>
static int init(void) { return puts("a.c"); }
device_initcall(init);
//--- b.c
#include <init.h>
#include <stdio.h>
static int init(void) { return puts("b.c"); }
device_initcall(init);
//--- main.c
#include <init.h>
extern const initcall_entry_t __initcall6_start[], __initcall6_end[];
int main(void) {
  for (const initcall_entry_t *e = __initcall6_start; e < __initcall6_end; ++e)
    initcall_from_entry(e)();
  return 0;
}
