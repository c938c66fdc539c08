// The pool takes one memory mapping per page, and a process may have
// vm.max_map_count of them (65,530 by default). A pool that does not fit
// half of that budget is refused at start with a message saying what fits;
// one that cannot be laid out because the program already holds most of
// the budget is unmapped again. Either way KFENCE is off and every
// allocation succeeds.
// RUN: %clang -g -O1 -DHOOKS %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: %clang -g -O1 %s -I%kfence_include -o %t.plain
// REQUIRES: default-max-map-count
// RUN: env KFENCE_OPTIONS=sample_rate=1:num_objects=65535 %t 40000 2>&1 | FileCheck %s --check-prefixes=REFUSED,OFF
// RUN: env KFENCE_OPTIONS=sample_rate=1:num_objects=65535 LD_PRELOAD=%klto_libdir/libkfence.so %t.plain 40000 2>&1 | FileCheck %s --check-prefixes=REFUSED,ALL
// What fits is taken.
// RUN: env KFENCE_OPTIONS=sample_rate=1:num_objects=16381:skip_covered_thresh=100 %t 40000 2>&1 | FileCheck %s --check-prefixes=ON --implicit-check-not=kfence:
// The program holds 40,000 mappings before its first allocation: the pool
// (32,764 mappings) no longer fits, and is given back.
// RUN: env KFENCE_OPTIONS=sample_rate=1:num_objects=16381 %t 40000 hold-mappings 2>&1 | FileCheck %s --check-prefixes=LAYOUT,OFF
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef HOOKS
#include "redirect.h"
#endif

/* Single pages of alternating protection never merge into one mapping. */
static void hold_mappings(int n) {
  long page = sysconf(_SC_PAGESIZE);
  for (int i = 0; i < n; i++)
    mmap(NULL, (size_t)page, i & 1 ? PROT_READ : PROT_NONE,
         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 0, got = 0;
  if (argc > 2 && !strcmp(argv[2], "hold-mappings"))
    hold_mappings(40000);
  for (int i = 0; i < n; i++)
    got += malloc(64) != NULL;
  printf("%d of %d allocations succeeded\n", got, n);
#ifdef HOOKS
  struct kfence_stats s;
  kfence_get_stats(&s);
  printf("enabled: %d, guarded: %lu\n", s.enabled, s.allocated);
#endif
  return 0;
}
// REFUSED: kfence: num_objects=65535 needs 131072 memory mappings, more than half of the process's limit of 65530 (vm.max_map_count): KFENCE is off; use num_objects=16381 or fewer, or raise vm.max_map_count
// LAYOUT: kfence: cannot lay out the pool's 32764 memory mappings: {{.+}} (vm.max_map_count: 65530); KFENCE is off
// ALL: 40000 of 40000 allocations succeeded
// OFF: 40000 of 40000 allocations succeeded
// OFF-NEXT: enabled: 0, guarded: 0
// ON: 40000 of 40000 allocations succeeded
// ON-NEXT: enabled: 1, guarded: 16381
