// After fork() both processes allocate, free and detect: the locks were not
// copied mid-update and the child samples with its own stream, under both
// sampling triggers.
// RUN: %clang -g -O0 %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: env KFENCE_OPTIONS=sample_rate=2 %t 2>&1 | FileCheck %s --implicit-check-not='nothing guarded'
// RUN: env KFENCE_OPTIONS=sample_interval=1 %t 2>&1 | FileCheck %s --implicit-check-not='nothing guarded'
#include "redirect.h"
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;

/* Keeps the pool lock busy while the main thread forks. */
static void *churn(void *arg) {
  (void)arg;
  while (!stop)
    free(malloc(64));
  return NULL;
}

/* Allocate until something is guarded (bounded: time, not count). */
static char *guarded_alloc(void) {
  time_t end = time(NULL) + 10;
  while (time(NULL) < end) {
    char *p = malloc(32);
    if (is_kfence_address(p))
      return p;
    free(p);
  }
  return NULL;
}

__attribute__((noinline)) static void use_after_free(const char *who) {
  char *p = guarded_alloc();
  if (!p) {
    fprintf(stderr, "%s: nothing guarded\n", who);
    return;
  }
  free(p);
  fprintf(stderr, "%s: touching\n", who);
  volatile char c = p[0];
  (void)c;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, churn, NULL);
  for (int i = 0; i < 20; i++) {
    pid_t pid = fork();
    if (pid == 0) {
      for (int k = 0; k < 1000; k++)
        free(malloc(100));
      _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status))
      return 1;
  }
  stop = 1;
  pthread_join(t, NULL);

  pid_t pid = fork();
  if (pid == 0) {
    use_after_free("child");
    _exit(0);
  }
  int status;
  waitpid(pid, &status, 0);
  use_after_free("parent");
  printf("done status=%d\n", status);
  return 0;
}
// CHECK: child: touching
// CHECK-NEXT: ==================================================================
// CHECK-NEXT: BUG: KFENCE: use-after-free read in use_after_free+0x
// CHECK: parent: touching
// CHECK-NEXT: ==================================================================
// CHECK-NEXT: BUG: KFENCE: use-after-free read in use_after_free+0x
// CHECK: done status=0
