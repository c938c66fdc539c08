// 8 threads, 1.6M allocation operations on a shared pool: no report, no
// lost object, every block keeps its contents.
// RUN: %clang -g -O2 %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: env KFENCE_OPTIONS=sample_rate=50:num_objects=64 %t 2>&1 | FileCheck %s --implicit-check-not=KFENCE
// RUN: env KFENCE_OPTIONS=sample_rate=1:num_objects=16 %t 2>&1 | FileCheck %s --implicit-check-not=KFENCE
// RUN: env KFENCE_OPTIONS=sample_interval=1 %t 2>&1 | FileCheck %s --implicit-check-not=KFENCE
#include "redirect.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define THREADS 8
#define OPS 200000
#define SLOTS 64

static atomic_long bad;

static void *worker(void *arg) {
  uint64_t x = (uintptr_t)arg * 0x9e3779b97f4a7c15ull + 1;
  unsigned char *slot[SLOTS] = {0};
  size_t len[SLOTS] = {0};
  for (int i = 0; i < OPS; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    int s = (int)(x % SLOTS);
    if (slot[s]) {
      for (size_t k = 0; k < len[s]; k++)
        if (slot[s][k] != (unsigned char)(s + k))
          bad++;
      if (x & 0x100) {
        free(slot[s]);
        slot[s] = NULL;
        continue;
      }
      size_t n = 1 + (x >> 20) % 2048;
      slot[s] = realloc(slot[s], n);
      len[s] = n;
    } else {
      len[s] = 1 + (x >> 20) % 4096;
      slot[s] = (x & 0x200) ? calloc(1, len[s]) : malloc(len[s]);
    }
    if (!slot[s])
      bad++;
    else
      for (size_t k = 0; k < len[s]; k++)
        slot[s][k] = (unsigned char)(s + k);
  }
  for (int s = 0; s < SLOTS; s++)
    free(slot[s]);
  return NULL;
}

int main(void) {
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++)
    pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < THREADS; i++)
    pthread_join(t[i], NULL);
  struct kfence_stats s;
  kfence_get_stats(&s);
  printf("bad=%ld allocated=%lu bugs=%lu balanced=%d guarded>0=%d\n", (long)bad,
         s.allocated, s.bugs, s.allocs == s.frees, s.allocs > 0);
  return 0;
}
// CHECK: bad=0 allocated=0 bugs=0 balanced=1 guarded>0=1
