// Use-after-free read and write: the report has both stacks, the program
// goes on, the object is retired (a zombie) and counted as a bug.
// RUN: %clang -g -O0 %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t read 2>&1 | FileCheck %s --check-prefixes=CHECK,READ
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t write 2>&1 | FileCheck %s --check-prefixes=CHECK,WRITE
// RUN: env KFENCE_OPTIONS=sample_rate=1:panic_on_warn=1 not --crash %t write 2>&1 | FileCheck %s --check-prefixes=PANIC
// A slot handed out again since: the stacks are the last object's, and the
// report says so (for sure when the address lies outside that object).
// RUN: env KFENCE_OPTIONS=sample_rate=1:num_objects=1:side=left %t reused-inside 2>&1 | FileCheck %s --check-prefixes=REUSED,INSIDE
// RUN: env KFENCE_OPTIONS=sample_rate=1:num_objects=1:side=left %t reused-outside 2>&1 | FileCheck %s --check-prefixes=REUSED,OUTSIDE
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t read 2>&1 | FileCheck %s --check-prefix=ONCE
#include "redirect.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) static char *make(void) { return malloc(100); }
__attribute__((noinline)) static void drop(char *p) { free(p); }
__attribute__((noinline)) static char use_read(volatile char *p) { return p[10]; }
__attribute__((noinline)) static void use_write(volatile char *p) { p[99] = 7; }
__attribute__((noinline)) static char *make_small(void) { return malloc(16); }

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  fprintf(stderr, "pid=%d\n", getpid());
  char *p = make();
  drop(p);
  if (!strncmp(argv[1], "reused-", 7))
    drop(make_small());
  if (!strcmp(argv[1], "reused-inside"))
    use_read(p);
  else if (!strcmp(argv[1], "reused-outside"))
    use_write(p);
  else if (!strcmp(argv[1], "read"))
    use_read(p);
  else
    use_write(p);
  fprintf(stderr, "continued\n");
  kfence_print_stats(stderr);
  return 0;
}

// CHECK: pid=[[PID:[0-9]+]]
// CHECK-NEXT: ==================================================================
// READ-NEXT: BUG: KFENCE: use-after-free read in use_read+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// READ-EMPTY:
// READ-NEXT: Use-after-free read at 0x[[#%x,ADDR:]] (in kfence-#0):
// READ-NEXT: {{^}} use_read+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// READ-NEXT: {{^}} main+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// READ: {{^}}kfence-#0 [0x[[#%x,ADDR-10]]-0x[[#%x,ADDR+89]], size=100, cache=malloc] allocated by task [[PID]]:
// WRITE-NEXT: BUG: KFENCE: use-after-free write in use_write+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// WRITE-EMPTY:
// WRITE-NEXT: Use-after-free write at 0x[[#%x,ADDR:]] (in kfence-#0):
// WRITE-NEXT: {{^}} use_write+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// WRITE-NEXT: {{^}} main+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// WRITE: {{^}}kfence-#0 [0x[[#%x,ADDR-99]]-0x[[#%x,ADDR]], size=100, cache=malloc] allocated by task [[PID]]:
// CHECK-NEXT: {{^}} make+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK-NEXT: {{^}} main+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK: {{^}} _start+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK-EMPTY:
// CHECK-NEXT: freed by task [[PID]]:
// CHECK-NEXT: {{^}} drop+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK-NEXT: {{^}} main+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK: {{^}} _start+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK-EMPTY:
// CHECK-NEXT: CPU: {{[0-9]+}} PID: [[PID]] Comm: {{.+}}
// CHECK-NEXT: ==================================================================
// CHECK-NEXT: continued
// CHECK-NEXT: enabled: 1
// CHECK-NEXT: currently allocated: 0
// CHECK-NEXT: total allocations: 1
// CHECK-NEXT: total frees: 1
// CHECK-NEXT: zombie allocations: 1
// CHECK-NEXT: total bugs: 1

// PANIC: BUG: KFENCE: use-after-free write in use_write
// PANIC: kfence: panic_on_warn set, aborting
// PANIC-NOT: continued
// REUSED: BUG: KFENCE: use-after-free
// REUSED: kfence-#0 [0x{{[0-9a-f]+}}-0x{{[0-9a-f]+}}, size=16, cache=malloc] allocated by task
// REUSED-NEXT: {{^}} make_small+
// REUSED: freed by task
// REUSED: kfence-#0 has held 2 objects; the stacks above are the last one's.
// INSIDE-NEXT: The pointer may be to an earlier object of this slot.
// OUTSIDE-NEXT: The address is outside that object: the pointer is to an earlier object of this slot.
// ONCE-NOT: has held
