// A full pool falls back to the C library without a word; freed objects are
// reused least recently freed first.
// RUN: %clang -g -O0 %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: env KFENCE_OPTIONS=sample_rate=1:num_objects=4 %t 2>&1 | FileCheck %s --implicit-check-not=KFENCE
// With the pool full, a sampled allocation costs no stack trace and no
// system call: 10,000 of them make no rt_sigaction call beyond start-up's.
// RUN: env KFENCE_OPTIONS=sample_rate=1:num_objects=4 strace -o %t.strace -e trace=rt_sigaction %t full-loop
// RUN: %python -c "import sys; n = sum('rt_sigaction' in l for l in open(sys.argv[1])); print('sigactions:', 'few' if n < 100 else n)" %t.strace | FileCheck %s --check-prefix=FULL
// FULL: sigactions: few
#include "redirect.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int same_page(void *a, void *b) {
  uintptr_t mask = ~(uintptr_t)(sysconf(_SC_PAGESIZE) - 1);
  return ((uintptr_t)a & mask) == ((uintptr_t)b & mask);
}

static int full_loop(void) {
  void *kept[4];
  for (int i = 0; i < 4; i++)
    kept[i] = malloc(64);
  for (int i = 0; i < 10000; i++)
    free(malloc(64));
  for (int i = 0; i < 4; i++)
    free(kept[i]);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "full-loop"))
    return full_loop();
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
