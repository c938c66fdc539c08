// realloc() grows and shrinks across guarded and C-library memory with the
// contents kept; reallocarray() and calloc() refuse overflowing sizes.
// RUN: %clang -g -O0 %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t 2>&1 | FileCheck %s --implicit-check-not=KFENCE
// RUN: env KFENCE_OPTIONS=sample_rate=3 %t 2>&1 | FileCheck %s --implicit-check-not=KFENCE
// The same through the LD_PRELOAD build's entry points, whose fast paths
// are their own (hooks.c): a plain build, linked against libkfence.so for
// is_kfence_address() and the stats.
// RUN: %clang -g -O0 -DPLAIN %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.so -o %t.plain
// RUN: env KFENCE_OPTIONS=sample_rate=1 LD_PRELOAD=%klto_libdir/libkfence.so %t.plain 2>&1 | FileCheck %s --implicit-check-not=KFENCE
// RUN: env KFENCE_OPTIONS=sample_rate=3 LD_PRELOAD=%klto_libdir/libkfence.so %t.plain 2>&1 | FileCheck %s --implicit-check-not=KFENCE
#ifdef PLAIN
#include <kfence.h>
#include <malloc.h>
#include <stdlib.h>
#else
#include "redirect.h"
#endif
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "expect.h"

static void fill(unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++)
    p[i] = (unsigned char)(seed + i * 7);
}
static int same(const unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != (unsigned char)(seed + i * 7))
      return 0;
  return 1;
}

int main(void) {
  /* 10 -> 4000 (guarded to guarded), -> 100000 (too big: C library),
   * -> 50 (back into the pool if sampled), -> 8, -> 0 (freed). */
  static const size_t sizes[] = {10, 4000, 100000, 50, 8, 3000, 1};
  int guarded = 0, unguarded = 0;
  for (int round = 0; round < 20; round++) {
    unsigned char *p = malloc(sizes[0]);
    fill(p, sizes[0], round);
    size_t kept = sizes[0];
    for (size_t i = 1; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
      p = realloc(p, sizes[i]);
      EXPECT(p != NULL);
      size_t common = kept < sizes[i] ? kept : sizes[i];
      EXPECT(same(p, common, round));
      fill(p, sizes[i], round);
      kept = sizes[i];
      if (is_kfence_address(p)) {
        guarded++;
        EXPECT(kfence_ksize(p) == sizes[i]);
      } else {
        unguarded++;
      }
    }
    EXPECT(realloc(p, 0) == NULL);
  }
  EXPECT(guarded > 0 && unguarded > 0);

  unsigned char *q = reallocarray(NULL, 10, 10);
  EXPECT(q != NULL);
  errno = 0;
  EXPECT(reallocarray(q, SIZE_MAX / 2, 3) == NULL && errno == ENOMEM);
  free(q);
  errno = 0;
  EXPECT(calloc(SIZE_MAX / 2, 3) == NULL && errno == ENOMEM);
  errno = 0;
  EXPECT(calloc(1ul << 40, 1ul << 40) == NULL && errno == ENOMEM);
  unsigned char *z = calloc(30, 3);
  EXPECT(z != NULL);
  for (int i = 0; i < 90; i++)
    EXPECT(z[i] == 0);
  memset(z, 0xff, 90);
  free(z);
  z = calloc(90, 1); /* may reuse the same page: must be zeroed again */
  for (int i = 0; i < 90; i++)
    EXPECT(z[i] == 0);
  free(z);

  /* With every allocation sampled, calls that take no guarded block (a
   * realloc that frees, a pvalloc too big to guard) must leave the sample
   * for the next allocation, not use it up. */
  if (strcmp(getenv("KFENCE_OPTIONS"), "sample_rate=1") == 0) {
    unsigned char *big = malloc(100000);
    EXPECT(big != NULL && !is_kfence_address(big));
    EXPECT(realloc(big, 0) == NULL);
    unsigned char *g = malloc(16);
    EXPECT(is_kfence_address(g));
    free(g);
    big = pvalloc(3 * 4096 + 1);
    EXPECT(big != NULL && !is_kfence_address(big));
    free(big);
    g = malloc(16);
    EXPECT(is_kfence_address(g));
    free(g);
  }

  struct kfence_stats s;
  kfence_get_stats(&s);
  EXPECT(s.allocated == 0 && s.bugs == 0 && s.allocs == s.frees);
  printf("failures: %d guarded>0: %d\n", failures, guarded > 0);
  return failures != 0;
}
// CHECK: failures: 0 guarded>0: 1
