// A C-variable table entry whose value names no function cannot be given
// an id (the id names the registered function): it is an error at the
// variable's file:line, as for asm entries, not an entry named after the
// variable and ordered under a function nobody registered.
// RUN: not %clang -c -fplugin=%plugin %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %clang -c -flto -fplugin=%plugin %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %clang -c -fplugin=%plugin -DGOOD %s -o /dev/null 2>&1 | count 0

typedef int (*initcall_t)(void);
#ifndef GOOD
static int data;
static initcall_t __initcall_zero6 __attribute__((used, section(".initcall6.init"))) = 0;
// CHECK: var-entry-no-function.c:[[@LINE-1]]:19: error: klto: entry '__initcall_zero6' in table '.initcall6.init' references no function, so it cannot be given a unique name; it was left unchanged and will not be ordered
static initcall_t __initcall_data6 __attribute__((used, section(".initcall6.init"))) = (initcall_t)&data;
// CHECK: var-entry-no-function.c:[[@LINE-1]]:19: error: klto: entry '__initcall_data6' in table '.initcall6.init' references no function
#endif
// A struct entry names its function in any field (PCI-fixup style).
struct fixup { unsigned short vendor; int *counter; int (*hook)(void); };
static int hook(void) { return 0; }
static int hits;
static struct fixup __fixup_hook __attribute__((used, section(".initcall6.init"))) = {0x8086, &hits, hook};
