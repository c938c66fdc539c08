// The program's own SIGSEGV handler, installed before KFENCE starts (in a
// constructor) or after (in main), still gets the faults outside the pool;
// pool faults are still reported and never reach it. Without a handler, a
// fault outside the pool kills the program with SIGSEGV as usual.
// RUN: %clang -g -O0 %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t before 2>&1 | FileCheck %s
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t after 2>&1 | FileCheck %s
// RUN: env KFENCE_OPTIONS=sample_rate=1 not --crash %t none 2>&1 | FileCheck %s --check-prefix=NONE
// The LD_PRELOAD build: sigaction() is interposed instead.
// RUN: %clang -g -O0 %s -DPLAIN -o %t.plain
// RUN: env KFENCE_OPTIONS=sample_rate=1 LD_PRELOAD=%klto_libdir/libkfence.so %t.plain before 2>&1 | FileCheck %s
// RUN: env KFENCE_OPTIONS=sample_rate=1 LD_PRELOAD=%klto_libdir/libkfence.so %t.plain after 2>&1 | FileCheck %s
// RUN: env KFENCE_OPTIONS=sample_rate=1 not --crash env LD_PRELOAD=%klto_libdir/libkfence.so %t.plain none 2>&1 | FileCheck %s --check-prefix=NONE
#ifdef PLAIN
#include <stdlib.h>
/* Unmodified: the report below is what shows the object was guarded. */
#define is_kfence_address(p) ((void)(p), 1)
#else
#include "redirect.h"
#endif
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static sigjmp_buf env;
static volatile int caught;
static volatile void *caught_addr;

static void handler(int sig, siginfo_t *info, void *ctx) {
  (void)sig, (void)ctx;
  caught++;
  caught_addr = info->si_addr;
  siglongjmp(env, 1);
}

static void install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, NULL);
}

/* glibc passes constructors main's arguments. */
__attribute__((constructor(101))) static void ctor(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "before"))
    install();
}

static char *no_access;

static void own_fault(void) {
  if (!sigsetjmp(env, 1))
    *(volatile char *)no_access = 1;
  printf("caught=%d at_own_page=%d\n", caught, caught_addr == no_access);
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  no_access = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char *warmup = malloc(16);
  free(warmup);
  if (!strcmp(argv[1], "after"))
    install();
  if (!strcmp(argv[1], "none")) {
    fflush(stdout);
    fprintf(stderr, "faulting\n");
    *(volatile char *)no_access = 1;
    fprintf(stderr, "survived\n");
    return 0;
  }
  own_fault();
  char *p = malloc(32);
  printf("guarded=%d\n", is_kfence_address(p));
  fflush(stdout);
  free(p);
  volatile char c = p[1];
  (void)c;
  printf("after uaf caught=%d\n", caught);
  own_fault();
  return 0;
}
// CHECK: caught=1 at_own_page=1
// CHECK-NEXT: guarded=1
// CHECK: BUG: KFENCE: use-after-free read in main+
// CHECK: after uaf caught=1
// CHECK-NEXT: caught=2 at_own_page=1

// NONE: faulting
// NONE-NOT: survived
