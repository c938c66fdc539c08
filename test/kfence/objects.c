// The debugfs twins: kfence_print_objects() lists every object with its
// stacks, and the *_at_exit options print stats and objects at exit.
// RUN: %clang -g -O0 %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: env KFENCE_OPTIONS=sample_rate=1:num_objects=3 %t | FileCheck %s
// RUN: env KFENCE_OPTIONS=sample_rate=1:num_objects=3:print_stats_at_exit=1:print_objects_at_exit=1 %t 2>&1 >/dev/null | FileCheck %s --check-prefix=EXIT
#include "redirect.h"
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) static void *first(void) { return malloc(10); }
__attribute__((noinline)) static void *second(void) { return calloc(4, 5); }

int main(void) {
  printf("pid=%d\n", getpid());
  void *a = first(), *b = second();
  free(a);
  kfence_print_objects(stdout);
  (void)b;
  return 0;
}
// CHECK: pid=[[PID:[0-9]+]]
// CHECK-NEXT: kfence-#0 [0x{{[0-9a-f]+}}-0x{{[0-9a-f]+}}, size=10, cache=malloc] allocated by task [[PID]]:
// CHECK-NEXT: {{^}} first+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK-NEXT: {{^}} main+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK: {{^}} _start+
// CHECK-EMPTY:
// CHECK-NEXT: freed by task [[PID]]:
// CHECK-NEXT: {{^}} main+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK: {{^}} _start+
// CHECK-NEXT: ---------------------------------
// CHECK-NEXT: kfence-#1 [0x{{[0-9a-f]+}}-0x{{[0-9a-f]+}}, size=20, cache=malloc] allocated by task [[PID]]:
// CHECK-NEXT: {{^}} second+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK-NOT: freed by task
// CHECK: {{^}} _start+
// CHECK-NEXT: ---------------------------------
// CHECK-NEXT: kfence-#2 unused
// CHECK-NEXT: ---------------------------------
// CHECK-NOT: kfence-#3

// EXIT: enabled: 1
// EXIT-NEXT: currently allocated: 1
// EXIT-NEXT: total allocations: 2
// EXIT-NEXT: total frees: 1
// EXIT-NEXT: zombie allocations: 0
// EXIT-NEXT: total bugs: 0
// EXIT-NEXT: skipped allocations (incompatible): 0
// EXIT-NEXT: skipped allocations (capacity): 0
// EXIT-NEXT: skipped allocations (covered): 0
// EXIT-NEXT: kfence-#0 [
// EXIT: kfence-#1 [
// EXIT: kfence-#2 unused
