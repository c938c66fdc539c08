// A report callback may call the runtime back: a one-shot crash reporter
// unregisters itself, reads the stats, prints them and the object listing,
// forks a helper, and frees a guarded object twice; that report comes out
// after the first, with no callback. Once from a free (double free), once
// from the SIGSEGV handler (use-after-free).
// RUN: %clang -g -O0 %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: env KFENCE_OPTIONS=sample_rate=1:num_objects=4 timeout 20 %t free 2>&1 | FileCheck %s
// RUN: env KFENCE_OPTIONS=sample_rate=1:num_objects=4 timeout 20 %t fault 2>&1 | FileCheck %s
// The LD_PRELOAD build: the program finds the API with dlsym().
// RUN: %clang -g -O0 %s -DPLAIN -I%kfence_include -ldl -o %t.plain
// RUN: env KFENCE_OPTIONS=sample_rate=1:num_objects=4 timeout 20 env LD_PRELOAD=%klto_libdir/libkfence.so %t.plain free 2>&1 | FileCheck %s
// RUN: env KFENCE_OPTIONS=sample_rate=1:num_objects=4 timeout 20 env LD_PRELOAD=%klto_libdir/libkfence.so %t.plain fault 2>&1 | FileCheck %s
#ifdef PLAIN
#include <dlfcn.h>
#include <kfence.h>
#include <stdlib.h>
#define LOOKUP(fn) ((__typeof__(&fn))dlsym(RTLD_DEFAULT, #fn))
#define kfence_set_report_callback(fn, arg)                                    \
  LOOKUP(kfence_set_report_callback)(fn, arg)
#define kfence_get_stats(s) LOOKUP(kfence_get_stats)(s)
#define kfence_print_stats(f) LOOKUP(kfence_print_stats)(f)
#define kfence_print_objects(f) LOOKUP(kfence_print_objects)(f)
#else
#include "redirect.h"
#endif
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char *volatile spare;
static int calls;

__attribute__((noinline)) static void free_twice(char *p) {
  free(p);
  free(p);
}

static void once(const struct kfence_bug *bug, void *arg) {
  (void)arg;
  calls++;
  kfence_set_report_callback(NULL, NULL);
  struct kfence_stats s;
  kfence_get_stats(&s);
  fprintf(stderr, "callback %d: kind=%d bugs=%lu\n", calls, bug->kind, s.bugs);
  kfence_print_stats(stderr);
  kfence_print_objects(stderr);
  pid_t pid = fork();
  if (pid == 0)
    _exit(0);
  int status;
  waitpid(pid, &status, 0);
  fprintf(stderr, "callback %d: helper exited %d\n", calls,
          WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  free_twice(spare);
  fprintf(stderr, "callback %d: done\n", calls);
}

__attribute__((noinline)) static void use(volatile char *p) { p[0] = 1; }

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  spare = malloc(16);
  kfence_set_report_callback(once, NULL);
  char *p = malloc(32);
  if (!strcmp(argv[1], "free")) {
    free_twice(p);
  } else {
    free(p);
    use(p);
  }
  fprintf(stderr, "main: calls=%d\n", calls);
  return 0;
}
// CHECK: BUG: KFENCE:
// CHECK: callback 1: kind={{[14]}} bugs=1
// CHECK-NEXT: enabled: 1
// CHECK: total bugs: 1
// CHECK: kfence-#0 [
// CHECK: ---------------------------------
// CHECK: callback 1: helper exited 0
// CHECK-NEXT: callback 1: done
// CHECK-NEXT: ==================================================================
// CHECK-NEXT: BUG: KFENCE: invalid free in free_twice+0x
// CHECK-NOT: callback {{[0-9]}}
// CHECK: main: calls=1
