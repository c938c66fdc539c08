// Out-of-bounds reads and writes on both sides of a guarded object, pinned
// to one side of its page with side=; the program goes on after the report.
// RUN: %clang -g -O0 %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: env KFENCE_OPTIONS=sample_rate=1:side=left %t read-left 2>&1 | FileCheck %s --check-prefixes=CHECK,READ-LEFT
// RUN: env KFENCE_OPTIONS=sample_rate=1:side=left %t write-left 2>&1 | FileCheck %s --check-prefixes=CHECK,WRITE-LEFT
// RUN: env KFENCE_OPTIONS=sample_rate=1:side=right %t read-right 2>&1 | FileCheck %s --check-prefixes=CHECK,READ-RIGHT
// RUN: env KFENCE_OPTIONS=sample_rate=1:side=right %t write-right 2>&1 | FileCheck %s --check-prefixes=CHECK,WRITE-RIGHT
// panic_on_warn: the same report, then abort.
// RUN: env KFENCE_OPTIONS=sample_rate=1:side=left:panic_on_warn=1 not --crash %t read-left 2>&1 | FileCheck %s --check-prefixes=PANIC
#include "redirect.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) static char *alloc32(void) { return malloc(32); }
__attribute__((noinline)) static char read_left(volatile char *p) { return p[-1]; }
__attribute__((noinline)) static void write_left(volatile char *p) { p[-3] = 1; }
__attribute__((noinline)) static char read_right(volatile char *p) { return p[32]; }
__attribute__((noinline)) static void write_right(volatile char *p) { p[33] = 1; }

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  fprintf(stderr, "pid=%d\n", getpid());
  char *p = alloc32();
  if (!is_kfence_address(p))
    return 3;
  if (!strcmp(argv[1], "read-left"))
    read_left(p);
  else if (!strcmp(argv[1], "write-left"))
    write_left(p);
  else if (!strcmp(argv[1], "read-right"))
    read_right(p);
  else if (!strcmp(argv[1], "write-right"))
    write_right(p);
  fprintf(stderr, "continued\n");
  free(p);
  return 0;
}

// CHECK: pid=[[PID:[0-9]+]]
// CHECK-NEXT: ==================================================================
// READ-LEFT-NEXT: BUG: KFENCE: out-of-bounds read in read_left+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// READ-LEFT-EMPTY:
// READ-LEFT-NEXT: Out-of-bounds read at 0x[[#%x,ADDR:]] (1B left of kfence-#0):
// READ-LEFT-NEXT: {{^}} read_left+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// READ-LEFT-NEXT: {{^}} main+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// READ-LEFT: {{^}}kfence-#0 [0x[[#%x,ADDR+1]]-0x[[#%x,ADDR+32]], size=32, cache=malloc] allocated by task [[PID]]:
// WRITE-LEFT-NEXT: BUG: KFENCE: out-of-bounds write in write_left+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// WRITE-LEFT-EMPTY:
// WRITE-LEFT-NEXT: Out-of-bounds write at 0x[[#%x,ADDR:]] (3B left of kfence-#0):
// WRITE-LEFT-NEXT: {{^}} write_left+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// WRITE-LEFT-NEXT: {{^}} main+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// WRITE-LEFT: {{^}}kfence-#0 [0x[[#%x,ADDR+3]]-0x[[#%x,ADDR+34]], size=32, cache=malloc] allocated by task [[PID]]:
// READ-RIGHT-NEXT: BUG: KFENCE: out-of-bounds read in read_right+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// READ-RIGHT-EMPTY:
// READ-RIGHT-NEXT: Out-of-bounds read at 0x[[#%x,ADDR:]] (32B right of kfence-#0):
// READ-RIGHT-NEXT: {{^}} read_right+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// READ-RIGHT-NEXT: {{^}} main+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// READ-RIGHT: {{^}}kfence-#0 [0x[[#%x,ADDR-32]]-0x[[#%x,ADDR-1]], size=32, cache=malloc] allocated by task [[PID]]:
// WRITE-RIGHT-NEXT: BUG: KFENCE: out-of-bounds write in write_right+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// WRITE-RIGHT-EMPTY:
// WRITE-RIGHT-NEXT: Out-of-bounds write at 0x[[#%x,ADDR:]] (33B right of kfence-#0):
// WRITE-RIGHT-NEXT: {{^}} write_right+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// WRITE-RIGHT-NEXT: {{^}} main+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// WRITE-RIGHT: {{^}}kfence-#0 [0x[[#%x,ADDR-33]]-0x[[#%x,ADDR-2]], size=32, cache=malloc] allocated by task [[PID]]:
// CHECK-NEXT: {{^}} alloc32+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK-NEXT: {{^}} main+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK-NOT: freed by task
// CHECK: {{^}} _start+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK-EMPTY:
// CHECK-NEXT: CPU: {{[0-9]+}} PID: [[PID]] Comm: {{.+}}
// CHECK-NEXT: ==================================================================
// CHECK-NEXT: continued
// CHECK-NOT: KFENCE

// PANIC: BUG: KFENCE: out-of-bounds read in read_left
// PANIC: kfence: panic_on_warn set, aborting
// PANIC-NOT: continued
