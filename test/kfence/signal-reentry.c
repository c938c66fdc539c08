// A signal handler that interrupts KFENCE's own slow path on the same thread
// and calls malloc, realloc and free there, on guarded objects too, does not
// deadlock, and a double free, a use-after-free and an out-of-bounds read it
// makes are still reported. "hook": the
// program's mprotect() and write() raise the signal; the runtime calls
// mprotect() while it holds the pool lock (every guarded allocation and free
// changes its page's protection) and write() while it holds the report lock,
// so every one of those is interrupted inside its lock. "timer": a 10 kHz
// timer interrupts a loop of guarded allocations wherever it lands.
// "sigaction": another thread signals one that calls sigaction(SIGSEGV) in
// a loop, which the LD_PRELOAD build interposes and answers under a lock;
// the handler calls it too (it is async-signal-safe).
// RUN: %clang -g -O0 %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: env KFENCE_OPTIONS=sample_rate=1 timeout 20 %t hook 2>&1 | FileCheck %s
// RUN: env KFENCE_OPTIONS=sample_rate=1 timeout 20 %t timer 2>&1 | FileCheck %s --check-prefix=TIMER
// The LD_PRELOAD build: libkfence.so's calls of mprotect() and write() bind
// to the program's (-rdynamic), as its calls of malloc & co bind to KFENCE's.
// RUN: %clang -g -O0 %s -DPLAIN -rdynamic -lpthread -o %t.plain
// RUN: env KFENCE_OPTIONS=sample_rate=1 timeout 20 env LD_PRELOAD=%klto_libdir/libkfence.so %t.plain hook 2>&1 | FileCheck %s
// RUN: env KFENCE_OPTIONS=sample_rate=1 timeout 20 env LD_PRELOAD=%klto_libdir/libkfence.so %t.plain timer 2>&1 | FileCheck %s --check-prefix=TIMER
// RUN: env KFENCE_OPTIONS=sample_rate=1 timeout 20 env LD_PRELOAD=%klto_libdir/libkfence.so %t.plain sigaction 2>&1 | FileCheck %s --check-prefix=SIGACTION
#ifdef PLAIN
#include <malloc.h>
#include <stdlib.h>
#else
#include "redirect.h"
#endif
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* A guarded object (sample_rate=1) the main loop leaves for the handler. */
static void *volatile handoff;
/* A guarded object already freed. */
static char *volatile stale;
static volatile sig_atomic_t armed, handled, double_free, use_after_free,
    out_of_bounds;

__attribute__((noinline)) static void handler(int sig) {
  (void)sig;
  handled++;
  struct sigaction old;
  sigaction(SIGSEGV, NULL, &old);
  /* Nested allocations: the C library's, or guarded when nothing of KFENCE's
   * is held here. */
  char *q = malloc(48);
  memset(q, 1, 48);
  q = realloc(q, 96);
  free(q);
  if (use_after_free) {
    use_after_free = 0;
    fprintf(stderr, "handler: reading a freed object\n");
    (void)*(volatile char *)stale;
  }
  void *p = handoff;
  handoff = NULL;
  if (!p)
    return;
  if (out_of_bounds) {
    out_of_bounds = 0;
    /* The guard page after the object's page. */
    fprintf(stderr, "handler: reading a guard page\n");
    (void)*(volatile char *)(((uintptr_t)p | 4095) + 1);
  }
  if (double_free) {
    double_free = 0;
    free(p);
    free(p);
    return;
  }
  /* A guarded object: realloc asks KFENCE its size, then it is freed. */
  p = realloc(p, 40);
  free(p);
}

/* The hooks: the runtime's system calls, interrupted before they run. */
int mprotect(void *addr, size_t len, int prot) {
  if (armed)
    raise(SIGUSR1);
  return (int)syscall(SYS_mprotect, addr, len, prot);
}

ssize_t write(int fd, const void *buf, size_t len) {
  if (armed && fd > 2)
    raise(SIGUSR1);
  return syscall(SYS_write, fd, buf, len);
}

static pthread_t main_thread;
static volatile int stop;

static void *signaller(void *arg) {
  (void)arg;
  while (!stop)
    pthread_kill(main_thread, SIGUSR1);
  return NULL;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &sa, NULL);
  sigaction(SIGALRM, &sa, NULL);
  /* The pool and the unwinder are set up before the signals start. */
  stale = malloc(8);
  free(stale);

  int timer = !strcmp(argv[1], "timer");
  if (!strcmp(argv[1], "sigaction")) {
    main_thread = pthread_self();
    pthread_t t;
    pthread_create(&t, NULL, signaller, NULL);
    double end = now() + 1.0;
    long calls = 0;
    for (; now() < end; calls++) {
      struct sigaction old;
      sigaction(SIGSEGV, NULL, &old);
    }
    stop = 1;
    pthread_join(t, NULL);
    fprintf(stderr, "sigaction: calls>0=%d handled>0=%d\n", calls > 0,
            handled > 0);
    return 0;
  }
  if (timer) {
    struct itimerval every = {{0, 100}, {0, 100}};
    setitimer(ITIMER_REAL, &every, NULL);
  } else {
    armed = 1;
  }
  double end = now() + 1.0;
  int rounds = 0;
  for (; timer ? now() < end : rounds < 200; rounds++) {
    char *p = malloc(32);
    memset(p, 2, 32);
    if (!handoff)
      handoff = malloc(24);
    free(p);
    /* Once each, in the handler: a double free and a use-after-free. In
     * hook mode, they are made while the pool lock is held. */
    if (rounds == 100)
      double_free = 1;
    if (rounds == 150)
      use_after_free = 1;
    if (rounds == 170)
      out_of_bounds = 1;
  }
  armed = 0;
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  fprintf(stderr, "%s: rounds>0=%d handled>0=%d\n", argv[1], rounds > 0,
          handled > 0);
  return 0;
}
// CHECK: BUG: KFENCE: invalid free in handler+0x
// CHECK: handler: reading a freed object
// CHECK-NEXT: ==================================================================
// CHECK-NEXT: BUG: KFENCE: use-after-free read in handler+0x
// CHECK: handler: reading a guard page
// CHECK-NEXT: ==================================================================
// CHECK-NEXT: BUG: KFENCE: {{out-of-bounds|invalid}} read in handler+0x
// CHECK: hook: rounds>0=1 handled>0=1

// TIMER: BUG: KFENCE: invalid free in handler+0x
// TIMER: handler: reading a freed object
// TIMER-NEXT: ==================================================================
// TIMER-NEXT: BUG: KFENCE: use-after-free read in handler+0x
// TIMER: handler: reading a guard page
// TIMER-NEXT: ==================================================================
// TIMER-NEXT: BUG: KFENCE: {{out-of-bounds|invalid}} read in handler+0x
// TIMER: timer: rounds>0=1 handled>0=1

// SIGACTION: sigaction: calls>0=1 handled>0=1
