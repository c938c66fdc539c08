// The inline free() test is one compare against __kfence_free_threshold, the
// pool's start. The pool's address space is reserved at program start, so
// heap memory mapped later lies below it; memory that does not (here glibc's
// mmapped blocks under the legacy bottom-up layout of `setarch -L`) takes
// __kfence_free(), which hands it to the C library. Either way every block
// is freed exactly once and nothing is reported.
// RUN: %clang -g -O1 -fplugin=%plugin -fplugin-arg-klto-kfence --ld-path=%stock_ld \
// RUN:   -L%klto_libdir -I%kfence_include %s -o %t
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,TOPDOWN --implicit-check-not=KFENCE
// RUN: env KFENCE_OPTIONS=sample_rate=1 setarch -L %t 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,BOTTOMUP --implicit-check-not=KFENCE
// Without KFENCE the threshold stays at the top: no free leaves the fast path.
// RUN: env KFENCE_OPTIONS=sample_rate=0:sample_interval=0 %t off 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OFF --implicit-check-not=KFENCE
//
// A pool that cannot be reserved leaves KFENCE off, with a message, and the
// program runs as without it.
// RUN: env KFENCE_OPTIONS=sample_rate=1:num_objects=16381 sh -c 'ulimit -v 100000; exec %t off' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOPOOL
#include <kfence.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BIG = 1 << 20, BLOCKS = 32 };

int main(int argc, char **argv) {
  /* Sampled, so the pool exists from here on. */
  char *guarded = malloc(64);
  if (argc > 1 && !strcmp(argv[1], "off")) {
    printf("threshold at top: %d\n", __kfence_free_threshold == UINTPTR_MAX);
    printf("first object guarded: %d\n", is_kfence_address(guarded));
    free(guarded);
    return 0;
  }
  printf("first object guarded: %d\n", is_kfence_address(guarded));
  /* Too big to guard: glibc maps each block of its own. */
  void *big[BLOCKS];
  int above = 0;
  for (int i = 0; i < BLOCKS; i++) {
    big[i] = malloc(BIG);
    memset(big[i], i, BIG);
    above += (uintptr_t)big[i] >= __kfence_free_threshold;
  }
  printf("blocks above the pool: %s\n", !above           ? "none"
                                        : above == BLOCKS ? "all"
                                                          : "some");
  for (int i = 0; i < BLOCKS; i++)
    free(big[i]);
  free(guarded);
  kfence_print_stats(stdout);
  return 0;
}
// CHECK: first object guarded: 1
// TOPDOWN: blocks above the pool: none
// BOTTOMUP: blocks above the pool: all
// CHECK: currently allocated: 0
// CHECK: total frees: 1
// CHECK: total bugs: 0
// OFF: threshold at top: 1
// OFF: first object guarded: 0
// NOPOOL: kfence: cannot map the pool ({{[0-9]+}} bytes): Cannot allocate memory; disabled
// NOPOOL: threshold at top: 1
// NOPOOL: first object guarded: 0
