// A full pool falls back to the C library without a word; freed objects are
// reused least recently freed first.
// RUN: %clang -g -O0 %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: env KFENCE_OPTIONS=sample_rate=1:num_objects=4 %t 2>&1 | FileCheck %s --implicit-check-not=KFENCE
#include "redirect.h"
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static int same_page(void *a, void *b) {
  uintptr_t mask = ~(uintptr_t)(sysconf(_SC_PAGESIZE) - 1);
  return ((uintptr_t)a & mask) == ((uintptr_t)b & mask);
}

int main(void) {
  void *p[100];
  int guarded = 0;
  for (int i = 0; i < 100; i++) {
    p[i] = malloc(64);
    if (!p[i])
      return 1;
    guarded += is_kfence_address(p[i]);
  }
  struct kfence_stats s;
  kfence_get_stats(&s);
  printf("guarded=%d capacity=%lu\n", guarded, s.skipped_capacity);
  /* Free 2, 0, 3 in that order; new objects come back in that order. */
  free(p[2]);
  free(p[0]);
  free(p[3]);
  void *a = malloc(8), *b = malloc(8), *c = malloc(8);
  printf("reuse: %d %d %d\n", same_page(a, p[2]), same_page(b, p[0]),
         same_page(c, p[3]));
  for (int i = 4; i < 100; i++)
    free(p[i]);
  free(a);
  free(b);
  free(c);
  free(p[1]);
  kfence_print_stats(stdout);
  return 0;
}
// CHECK: guarded=4 capacity=96
// CHECK-NEXT: reuse: 1 1 1
// CHECK-NEXT: enabled: 1
// CHECK-NEXT: currently allocated: 0
// CHECK-NEXT: total allocations: 7
// CHECK-NEXT: total frees: 7
// CHECK-NEXT: zombie allocations: 0
// CHECK-NEXT: total bugs: 0
// CHECK-NEXT: skipped allocations (incompatible): 0
// CHECK-NEXT: skipped allocations (capacity): 96
