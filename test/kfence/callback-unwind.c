// A report callback may leave by unwinding: a thread that calls
// pthread_exit() from it, or lets a pending cancellation act in it, goes,
// and the report lock goes with it; the next report, from another thread,
// comes out, as does fork(). (The callback runs under the report lock:
// without the cleanup that releases it, the main thread's report waits for
// it forever.)
// RUN: %clang -g -O0 %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: env KFENCE_OPTIONS=sample_rate=1 timeout 20 %t exit 2>&1 | FileCheck %s
// RUN: env KFENCE_OPTIONS=sample_rate=1 timeout 20 %t cancel 2>&1 | FileCheck %s
// The LD_PRELOAD build: the program finds the API with dlsym().
// RUN: %clang -g -O0 %s -DPLAIN -I%kfence_include -ldl -lpthread -o %t.plain
// RUN: env KFENCE_OPTIONS=sample_rate=1 LD_PRELOAD=%klto_libdir/libkfence.so timeout 20 %t.plain exit 2>&1 | FileCheck %s
// RUN: env KFENCE_OPTIONS=sample_rate=1 LD_PRELOAD=%klto_libdir/libkfence.so timeout 20 %t.plain cancel 2>&1 | FileCheck %s
#ifdef PLAIN
#include <dlfcn.h>
#include <kfence.h>
#include <stdlib.h>
#define kfence_set_report_callback(fn, arg)                                    \
  ((__typeof__(&kfence_set_report_callback))dlsym(                            \
      RTLD_DEFAULT, "kfence_set_report_callback"))(fn, arg)
#else
#include "redirect.h"
#endif
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *mode;
static pthread_t main_thread;

__attribute__((noinline)) static void double_free(void) {
  char *p = malloc(32);
  free(p);
  free(p);
}

static void leave(const struct kfence_bug *bug, void *arg) {
  (void)bug;
  (void)arg;
  if (pthread_equal(pthread_self(), main_thread))
    return;
  fprintf(stderr, "callback: leaving by %s\n", mode);
  if (!strcmp(mode, "exit"))
    pthread_exit(NULL);
  /* The request came before the report; let it act here. */
  pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
  pthread_testcancel();
  fprintf(stderr, "callback: not cancelled\n");
}

static void *reporter(void *arg) {
  (void)arg;
  if (!strcmp(mode, "cancel")) {
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
    pthread_cancel(pthread_self());
  }
  double_free();
  fprintf(stderr, "reporter: still here\n");
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  mode = argv[1];
  main_thread = pthread_self();
  kfence_set_report_callback(leave, NULL);
  pthread_t t;
  void *ret;
  pthread_create(&t, NULL, reporter, NULL);
  pthread_join(t, &ret);
  fprintf(stderr, "main: reporter gone, cancelled %d\n", ret == PTHREAD_CANCELED);
  double_free();
  fprintf(stderr, "main: report done\n");
  pid_t pid = fork();
  if (pid == 0)
    _exit(0);
  int status;
  waitpid(pid, &status, 0);
  fprintf(stderr, "main: fork %d\n", WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return 0;
}
// CHECK: BUG: KFENCE: invalid free in double_free
// CHECK: callback: leaving by
// CHECK-NOT: still here
// CHECK-NOT: not cancelled
// CHECK: main: reporter gone
// CHECK-NEXT: ==================================================================
// CHECK-NEXT: BUG: KFENCE: invalid free in double_free
// CHECK: main: report done
// CHECK-NEXT: main: fork 1
