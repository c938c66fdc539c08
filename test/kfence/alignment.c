// Aligned allocations are guarded and honour the alignment on both sides of
// the page; alignments above a page, and bad ones, go to the C library.
// RUN: %clang -g -O0 %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: env KFENCE_OPTIONS=sample_rate=1:side=left %t 2>&1 | FileCheck %s --implicit-check-not=KFENCE
// RUN: env KFENCE_OPTIONS=sample_rate=1:side=right %t 2>&1 | FileCheck %s --implicit-check-not=KFENCE
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t 2>&1 | FileCheck %s --implicit-check-not=KFENCE
#include "redirect.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "expect.h"

static void check(void *p, size_t align, size_t size) {
  EXPECT(p != NULL);
  EXPECT(((uintptr_t)p & (align - 1)) == 0);
  EXPECT(is_kfence_address(p));
  EXPECT(kfence_ksize(p) == size);
  EXPECT(malloc_usable_size(p) == size);
  memset(p, 0x5a, size);
  free(p);
}

int main(void) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  for (size_t align = 16; align <= 4096; align *= 2) {
    for (size_t size = 1; size <= 4096; size = size * 3 + 1) {
      void *p = NULL;
      EXPECT(posix_memalign(&p, align, size) == 0);
      check(p, align, size);
      check(aligned_alloc(align, size), align, size);
      check(memalign(align, size), align, size);
    }
  }
  /* Plain malloc: 16-byte aligned from 16 bytes on, less only for less. */
  for (size_t size = 1; size <= 256; size++) {
    void *p = malloc(size);
    size_t need = size >= 16 ? 16 : size >= 8 ? 8 : size >= 4 ? 4 : size >= 2 ? 2 : 1;
    check(p, need, size);
  }
  check(valloc(100), page, 100);
  check(pvalloc(100), page, page);

  void *p = (void *)1;
  EXPECT(posix_memalign(&p, 24, 8) == EINVAL);
  EXPECT(posix_memalign(&p, 2, 8) == EINVAL);
  p = memalign(2 * page, 64);
  EXPECT(p && !is_kfence_address(p) && ((uintptr_t)p & (2 * page - 1)) == 0);
  free(p);
  EXPECT(posix_memalign(&p, 8192, 100) == 0 && !is_kfence_address(p));
  free(p);

  struct kfence_stats s;
  kfence_get_stats(&s);
  EXPECT(s.allocated == 0 && s.bugs == 0 && s.skipped_incompat == 2);
  printf("failures: %d\n", failures);
  return failures != 0;
}
// CHECK: failures: 0
