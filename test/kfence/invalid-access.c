// Faults in the pool that belong to no live object: the guard page before
// the first object and the page of an object never allocated.
// RUN: %clang -g -O0 %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: env KFENCE_OPTIONS=sample_rate=1:num_objects=4 %t 2>&1 | FileCheck %s
#include "redirect.h"
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) static char peek(volatile char *p) { return *p; }
__attribute__((noinline)) static void poke(volatile char *p) { *p = 1; }

int main(void) {
  /* The pool is mapped at the first guarded allocation, or here. */
  if (__kfence_pool || !kfence_init())
    return 2;
  fprintf(stderr, "pool=%p pid=%d\n", (void *)__kfence_pool, getpid());
  long page = sysconf(_SC_PAGESIZE);
  peek(__kfence_pool + 10);
  poke(__kfence_pool + 6 * page + 5); /* object #2's page, never used */
  fprintf(stderr, "continued\n");
  return 0;
}

// CHECK: pool=0x[[#%x,POOL:]] pid=[[PID:[0-9]+]]
// CHECK-NEXT: ==================================================================
// CHECK-NEXT: BUG: KFENCE: invalid read in peek+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK-EMPTY:
// CHECK-NEXT: Invalid read at 0x[[#%x,POOL+10]]:
// CHECK-NEXT: {{^}} peek+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK-NEXT: {{^}} main+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK: {{^}} _start+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK-EMPTY:
// CHECK-NEXT: CPU: {{[0-9]+}} PID: [[PID]] Comm: {{.+}}
// CHECK-NEXT: ==================================================================
// CHECK-NEXT: ==================================================================
// CHECK-NEXT: BUG: KFENCE: invalid write in poke+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK-EMPTY:
// CHECK-NEXT: Invalid write at 0x[[#%x,POOL+0x6005]]:
// CHECK-NEXT: {{^}} poke+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK: CPU: {{[0-9]+}} PID: [[PID]] Comm: {{.+}}
// CHECK-NEXT: ==================================================================
// CHECK-NEXT: continued
