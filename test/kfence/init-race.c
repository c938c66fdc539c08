// Threads race on the first hooked allocation before KFENCE's constructor
// has run (this constructor runs first): exactly one initialises, the
// others fall back or wait, and every pointer is usable and freed cleanly.
// RUN: %clang -g -O0 %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t | FileCheck %s --implicit-check-not=KFENCE
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t | FileCheck %s --implicit-check-not=KFENCE
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t | FileCheck %s --implicit-check-not=KFENCE
#include "redirect.h"
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define THREADS 8
static pthread_barrier_t barrier;
static char *ptrs[THREADS][50];
static int state_before;

static void *racer(void *arg) {
  char **mine = arg;
  pthread_barrier_wait(&barrier);
  for (int i = 0; i < 50; i++) {
    mine[i] = malloc(24);
    memset(mine[i], i, 24);
  }
  return NULL;
}

__attribute__((constructor(101))) static void early(void) {
  state_before = (int)__kfence_pool_size;
  pthread_t t[THREADS];
  pthread_barrier_init(&barrier, NULL, THREADS);
  for (int i = 0; i < THREADS; i++)
    pthread_create(&t[i], NULL, racer, ptrs[i]);
  for (int i = 0; i < THREADS; i++)
    pthread_join(t[i], NULL);
}

int main(void) {
  int guarded = 0, intact = 1;
  for (int t = 0; t < THREADS; t++)
    for (int i = 0; i < 50; i++) {
      guarded += is_kfence_address(ptrs[t][i]);
      for (int k = 0; k < 24; k++)
        intact &= ptrs[t][i][k] == i;
      free(ptrs[t][i]);
    }
  struct kfence_stats s;
  kfence_get_stats(&s);
  printf("before=%d intact=%d guarded>0=%d counted=%d allocated=%lu\n",
         state_before, intact, guarded > 0, s.allocs == (unsigned long)guarded,
         s.allocated);
  return 0;
}
// CHECK: before=0 intact=1 guarded>0=1 counted=1 allocated=0
