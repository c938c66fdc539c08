// A SIGSEGV handler that installs itself again (keeping the action it
// replaced unless that is itself) and, for a fault it does not own,
// installs that action back and returns, so that the fault comes again
// under it (Breakpad and Crashpad restore this way). Built with the plugin,
// between its two installs KFENCE's re-check stands in front of it, so its
// second sigaction() would return KFENCE's entry standing for the handler
// itself: restoring that entry ran the handler again on every return, at
// 100% CPU forever. The plugin sends the program's sigaction() and signal()
// to KFENCE's hooks, which answer with the program's own actions, as the
// LD_PRELOAD build does: the handler runs once and the program dies of
// SIGSEGV, as without KFENCE. A pool fault is still reported.
// RUN: %clang -g -O1 %s -o %t.none
// RUN: (ulimit -c 0; timeout 20 %t.none 2>&1; echo status=$?) 2>/dev/null | FileCheck %s --check-prefixes=CHECK,NONE
// RUN: %clang -g -O1 -fplugin=%plugin -fplugin-arg-klto-kfence --ld-path=%stock_ld %s -o %t.klto
// RUN: (ulimit -c 0; env KFENCE_OPTIONS=sample_rate=1 timeout 20 %t.klto 2>&1; echo status=$?) 2>/dev/null | FileCheck %s --check-prefixes=CHECK,KFENCE
// RUN: %clang -g -O1 -fplugin=%plugin -fplugin-arg-klto-kfence -fplugin-arg-klto-kfence-runtime=static --ld-path=%stock_ld %s -o %t.static
// RUN: (ulimit -c 0; env KFENCE_OPTIONS=sample_rate=1 timeout 20 %t.static 2>&1; echo status=$?) 2>/dev/null | FileCheck %s --check-prefixes=CHECK,KFENCE
// RUN: (ulimit -c 0; env KFENCE_OPTIONS=sample_rate=1 LD_PRELOAD=%klto_libdir/libkfence.so timeout 20 %t.none 2>&1; echo status=$?) 2>/dev/null | FileCheck %s --check-prefixes=CHECK,KFENCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static struct sigaction previous;
static int calls;
static char *nobody;

static void handler(int sig, siginfo_t *info, void *ctx) {
  (void)sig, (void)ctx;
  if ((char *)info->si_addr != nobody)
    return; /* KFENCE's pool fault, handed on by KFENCE's handler */
  char line[32];
  int n = snprintf(line, sizeof(line), "handler call %d\n", ++calls);
  if (write(2, line, (size_t)n) < 0 || calls > 3)
    _exit(3); /* it would run forever */
  sigaction(SIGSEGV, &previous, NULL);
}

static void install(void) {
  struct sigaction sa, old;
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &old);
  if (!((old.sa_flags & SA_SIGINFO) && old.sa_sigaction == handler))
    previous = old;
}

__attribute__((noinline)) static void churn(void) {
  for (int i = 0; i < 100; i++)
    free(malloc(16));
}

__attribute__((noinline)) static void use_after_free(void) {
  char *volatile p = malloc(16);
  free(p);
  fprintf(stderr, "read %d\n", p[0]);
}

int main(void) {
  install();
  churn();
  install();
  churn();
  use_after_free();
  nobody = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  *(volatile char *)nobody = 1;
  puts("survived");
  return 0;
}
// KFENCE: BUG: KFENCE: use-after-free read in use_after_free
// NONE-NOT: BUG: KFENCE
// CHECK:      handler call 1
// CHECK-NOT:  {{handler call|survived}}
// CHECK:      status=139
