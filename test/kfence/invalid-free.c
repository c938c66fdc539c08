// Invalid frees: a double free (both stacks shown) and a pointer that is
// not the start of its object; neither touches the heap, the program goes on.
// RUN: %clang -g -O0 %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t double 2>&1 | FileCheck %s --check-prefixes=CHECK,DOUBLE
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t interior 2>&1 | FileCheck %s --check-prefixes=CHECK,INTERIOR
// RUN: env KFENCE_OPTIONS=sample_rate=1:panic_on_warn=1 not --crash %t double 2>&1 | FileCheck %s --check-prefixes=PANIC
#include "redirect.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) static void release(void *p) { free(p); }
__attribute__((noinline)) static void release_again(void *p) { free(p); }

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  fprintf(stderr, "pid=%d\n", getpid());
  char *p = malloc(40);
  if (!strcmp(argv[1], "double")) {
    fprintf(stderr, "object=%p\n", (void *)p);
    release(p);
    release_again(p);
  } else {
    fprintf(stderr, "object=%p\n", (void *)p);
    release_again(p + 8);
    release(p);
  }
  fprintf(stderr, "continued\n");
  kfence_print_stats(stderr);
  return 0;
}

// CHECK: pid=[[PID:[0-9]+]]
// CHECK-NEXT: object=0x[[#%x,OBJ:]]
// CHECK-NEXT: ==================================================================
// CHECK-NEXT: BUG: KFENCE: invalid free in release_again+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK-EMPTY:
// DOUBLE-NEXT: Invalid free of 0x[[#%x,OBJ]]:
// INTERIOR-NEXT: Invalid free of 0x[[#%x,OBJ+8]]:
// CHECK-NEXT: {{^}} release_again+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK-NEXT: {{^}} main+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK: {{^}} _start+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK-EMPTY:
// CHECK-NEXT: kfence-#0 [0x[[#%x,OBJ]]-0x[[#%x,OBJ+39]], size=40, cache=malloc] allocated by task [[PID]]:
// CHECK-NEXT: {{^}} main+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK: {{^}} _start+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// DOUBLE-EMPTY:
// DOUBLE-NEXT: freed by task [[PID]]:
// DOUBLE-NEXT: {{^}} release+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// DOUBLE-NEXT: {{^}} main+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// DOUBLE: {{^}} _start+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK-EMPTY:
// CHECK-NEXT: CPU: {{[0-9]+}} PID: [[PID]] Comm: {{.+}}
// CHECK-NEXT: ==================================================================
// CHECK-NEXT: continued
// CHECK-NEXT: enabled: 1
// CHECK-NEXT: currently allocated: 0
// CHECK-NEXT: total allocations: 1
// CHECK-NEXT: total frees: 1
// CHECK-NEXT: zombie allocations: 0
// CHECK-NEXT: total bugs: 1

// PANIC: BUG: KFENCE: invalid free in release_again
// PANIC: kfence: panic_on_warn set, aborting
// PANIC-NOT: continued
