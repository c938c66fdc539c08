// KFENCE with another allocator: jemalloc, tcmalloc and mimalloc.
// Preloaded in front of one (LD_PRELOAD="libkfence.so liballoc.so"),
// libkfence.so guards its samples and hands every other allocation to that
// allocator: the C library's heap does not grow (glibc's mallinfo2(), from
// a handle of libc.so.6), and a use-after-free is reported. Preloaded
// behind one, no allocation reaches KFENCE: it says so at start and is
// off, and its stats say enabled: 0, not enabled: 1 with nothing guarded.
// A program built with the hooks calls the C library's malloc by name,
// which LD_PRELOAD=liballoc.so makes that allocator's: it guards and
// reports, and frees the rest there.
// REQUIRES: jemalloc, tcmalloc, mimalloc
// RUN: %clang -g -O0 %s -ldl -o %t.plain
// RUN: %clang -g -O0 -DHOOKS %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -ldl -o %t.hooks
// RUN: env KFENCE_OPTIONS=sample_rate=2:print_stats_at_exit=1 timeout 20 env LD_PRELOAD="%klto_libdir/libkfence.so %libjemalloc" %t.plain 2>&1 | FileCheck %s --check-prefix=FRONT
// RUN: env KFENCE_OPTIONS=sample_rate=2:print_stats_at_exit=1 timeout 20 env LD_PRELOAD="%klto_libdir/libkfence.so %libtcmalloc" %t.plain 2>&1 | FileCheck %s --check-prefix=FRONT
// RUN: env KFENCE_OPTIONS=sample_rate=2:print_stats_at_exit=1 timeout 20 env LD_PRELOAD="%klto_libdir/libkfence.so %libmimalloc" %t.plain 2>&1 | FileCheck %s --check-prefix=FRONT
// RUN: env KFENCE_OPTIONS=sample_rate=2:print_stats_at_exit=1 timeout 20 env LD_PRELOAD="%libjemalloc %klto_libdir/libkfence.so" %t.plain 2>&1 | FileCheck %s --check-prefix=BEHIND -DALLOC=libjemalloc.so.2
// RUN: env KFENCE_OPTIONS=sample_rate=2:print_stats_at_exit=1 timeout 20 env LD_PRELOAD="%libtcmalloc %klto_libdir/libkfence.so" %t.plain 2>&1 | FileCheck %s --check-prefix=BEHIND -DALLOC=libtcmalloc_minimal.so.4
// RUN: env KFENCE_OPTIONS=sample_rate=2:print_stats_at_exit=1 timeout 20 env LD_PRELOAD="%libmimalloc %klto_libdir/libkfence.so" %t.plain 2>&1 | FileCheck %s --check-prefix=BEHIND -DALLOC=%soname_mimalloc
// RUN: env KFENCE_OPTIONS=sample_rate=2:print_stats_at_exit=1 timeout 20 env LD_PRELOAD=%libjemalloc %t.hooks 2>&1 | FileCheck %s --check-prefix=FRONT
// The C library's heap does grow without another allocator (the check
// above can fail).
// RUN: env KFENCE_OPTIONS=sample_rate=2 timeout 20 %t.hooks 2>&1 | FileCheck %s --check-prefix=GLIBC
#include <dlfcn.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef HOOKS
#include "redirect.h"
#define guarded(p) is_kfence_address(p)
#else
/* libkfence.so's pool, if it is loaded. */
static bool guarded(const void *p) {
  char **pool = dlsym(RTLD_DEFAULT, "__kfence_pool");
  size_t *size = dlsym(RTLD_DEFAULT, "__kfence_pool_size");
  return pool && size && (uintptr_t)p - (uintptr_t)*pool < *size;
}
#endif

#define BLOCKS 2000
#define BLOCK_SIZE 512

__attribute__((noinline)) static char read_byte(volatile char *p) { return p[3]; }

/* Bytes glibc's allocator holds for the program: its own mallinfo2(). */
static size_t libc_in_use(void) {
  void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  struct mallinfo2 (*info)(void) =
      libc ? (struct mallinfo2 (*)(void))dlsym(libc, "mallinfo2") : NULL;
  if (!info)
    return 0;
  struct mallinfo2 m = info();
  return m.uordblks + m.hblkhd;
}

int main(void) {
  static char *blocks[BLOCKS];
  setvbuf(stdout, NULL, _IONBF, 0); /* before the stats printed at exit */
  size_t before = libc_in_use();
  int nr_guarded = 0, last = -1;
  for (int i = 0; i < BLOCKS; i++) {
    blocks[i] = malloc(BLOCK_SIZE);
    if (guarded(blocks[i])) {
      nr_guarded++;
      last = i;
    }
  }
  /* At least half of the blocks are not guarded (the pool holds 255). */
  size_t grown = libc_in_use() - before;
  printf("guarded: %d\n", nr_guarded);
  printf("C library's heap grew by the rest: %s\n",
         grown >= BLOCKS / 2 * BLOCK_SIZE ? "yes" : "no");
  if (last >= 0) {
    free(blocks[last]);
    printf("stale: %d\n", read_byte(blocks[last]));
    blocks[last] = NULL;
  }
  for (int i = 0; i < BLOCKS; i++)
    free(blocks[i]);
  printf("done\n");
  return 0;
}
// FRONT-NOT:  kfence:
// FRONT:      guarded: {{[1-9][0-9]*}}
// FRONT-NEXT: C library's heap grew by the rest: no
// FRONT:      BUG: KFENCE: use-after-free read in read_byte
// FRONT:      stale:
// FRONT-NEXT: done
// FRONT-NEXT: enabled: 1
// FRONT-NEXT: currently allocated: {{[0-9]+}}
// FRONT-NEXT: total allocations: {{[1-9][0-9]*}}
// BEHIND:      kfence: the process's malloc() is [[ALLOC]]'s, not libkfence.so's: no allocation reaches KFENCE, which is off. Preload libkfence.so first (LD_PRELOAD="libkfence.so [[ALLOC]]"): it then guards its samples and hands every other allocation to [[ALLOC]].
// BEHIND-NEXT: guarded: 0
// BEHIND-NEXT: C library's heap grew by the rest: no
// BEHIND-NEXT: done
// BEHIND-NEXT: enabled: 0
// BEHIND-NEXT: currently allocated: 0
// BEHIND-NEXT: total allocations: 0
// GLIBC:      guarded: {{[1-9][0-9]*}}
// GLIBC-NEXT: C library's heap grew by the rest: yes
// GLIBC:      BUG: KFENCE: use-after-free read in read_byte
