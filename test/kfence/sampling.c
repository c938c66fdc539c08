// Sampling: sample_rate=N guards 1 in N allocations on average; two runs
// draw different streams; sample_interval arms about one allocation per
// interval; both at 0 guard nothing and map no pool.
// RUN: %clang -g -O2 %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: env KFENCE_OPTIONS=sample_rate=100:sample_interval=0 %t rate | FileCheck %s --check-prefix=RATE
// RUN: env KFENCE_OPTIONS=sample_rate=10:sample_interval=0 %t stream > %t.1
// RUN: env KFENCE_OPTIONS=sample_rate=10:sample_interval=0 %t stream > %t.2
// RUN: not diff %t.1 %t.2
// RUN: env KFENCE_OPTIONS=sample_interval=20 %t interval | FileCheck %s --check-prefix=INTERVAL
// RUN: env KFENCE_OPTIONS=sample_interval=0:sample_rate=0 %t off | FileCheck %s --check-prefix=OFF
#include "redirect.h"
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  if (!strcmp(argv[1], "rate")) {
    /* 200000 draws, mean 100, U[1,199] gaps: sd of the count is about 26. */
    int guarded = 0;
    for (int i = 0; i < 200000; i++) {
      void *p = malloc(64);
      guarded += is_kfence_address(p);
      free(p);
    }
    printf("rate ok=%d (%d)\n", guarded > 1800 && guarded < 2200, guarded);
  } else if (!strcmp(argv[1], "stream")) {
    for (int i = 0, n = 0; i < 100000 && n < 30; i++) {
      void *p = malloc(64);
      if (is_kfence_address(p))
        printf("%d\n", i), n++;
      free(p);
    }
  } else if (!strcmp(argv[1], "interval")) {
    /* 300 ms at 20 ms per sample: at most 16 arms; a loaded machine may
     * sleep longer, so only a loose lower bound. */
    int guarded = 0;
    double end = now() + 0.3;
    while (now() < end) {
      void *p = malloc(64);
      guarded += is_kfence_address(p);
      free(p);
    }
    printf("interval ok=%d (%d)\n", guarded >= 3 && guarded <= 16, guarded);
  } else {
    int guarded = 0;
    for (int i = 0; i < 100000; i++) {
      void *p = malloc(64);
      guarded += is_kfence_address(p);
      free(p);
    }
    struct kfence_stats s;
    kfence_get_stats(&s);
    printf("off guarded=%d enabled=%d init=%d pool=%zu\n", guarded, s.enabled,
           kfence_init(), __kfence_pool_size);
  }
  return 0;
}
// RATE: rate ok=1
// INTERVAL: interval ok=1
// OFF: off guarded=0 enabled=0 init=0 pool=0
