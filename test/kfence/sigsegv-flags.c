// The program's SIGSEGV action keeps its own semantics behind KFENCE's
// handler, installed before it (in a constructor) or after it (followed by
// a guarded allocation, where the hooks build takes SIGSEGV back):
//  - SIG_IGN: a raise()d or kill()ed SIGSEGV is discarded; a fault, which
//    cannot be ignored, kills the program with SIGSEGV;
//  - SA_RESETHAND: the handler runs once, the next fault kills; a pool
//    fault in between, with no guarded allocation since the handler ran,
//    is still KFENCE's;
//  - SA_NODEFER: a fault in the handler reaches the handler again;
//  - sa_mask, without SA_SIGINFO: the handler runs with the signals it
//    asked for blocked, and SIGSEGV too.
// A bounded run (timeout) and the exit status printed: death by SIGSEGV
// shows as status=139.
// RUN: %clang -g -O0 %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: (ulimit -c 0; env KFENCE_OPTIONS=sample_rate=1 timeout 20 %t after ign 2>&1; echo status=$?) 2>/dev/null | FileCheck %s --check-prefix=IGN
// RUN: (ulimit -c 0; env KFENCE_OPTIONS=sample_rate=1 timeout 20 %t before ign 2>&1; echo status=$?) 2>/dev/null | FileCheck %s --check-prefix=IGN
// RUN: (ulimit -c 0; env KFENCE_OPTIONS=sample_rate=1 timeout 20 %t after resethand 2>&1; echo status=$?) 2>/dev/null | FileCheck %s --check-prefix=RESETHAND
// RUN: (ulimit -c 0; env KFENCE_OPTIONS=sample_rate=1 timeout 20 %t before resethand 2>&1; echo status=$?) 2>/dev/null | FileCheck %s --check-prefix=RESETHAND
// RUN: (ulimit -c 0; env KFENCE_OPTIONS=sample_rate=1 timeout 20 %t after nodefer 2>&1; echo status=$?) 2>/dev/null | FileCheck %s --check-prefix=NODEFER
// RUN: (ulimit -c 0; env KFENCE_OPTIONS=sample_rate=1 timeout 20 %t after mask 2>&1; echo status=$?) 2>/dev/null | FileCheck %s --check-prefix=MASK
// The LD_PRELOAD build.
// RUN: %clang -g -O0 %s -DPLAIN -o %t.plain
// RUN: (ulimit -c 0; env KFENCE_OPTIONS=sample_rate=1 timeout 20 env LD_PRELOAD=%klto_libdir/libkfence.so %t.plain after ign 2>&1; echo status=$?) 2>/dev/null | FileCheck %s --check-prefix=IGN
// RUN: (ulimit -c 0; env KFENCE_OPTIONS=sample_rate=1 timeout 20 env LD_PRELOAD=%klto_libdir/libkfence.so %t.plain before ign 2>&1; echo status=$?) 2>/dev/null | FileCheck %s --check-prefix=IGN
// RUN: (ulimit -c 0; env KFENCE_OPTIONS=sample_rate=1 timeout 20 env LD_PRELOAD=%klto_libdir/libkfence.so %t.plain after resethand 2>&1; echo status=$?) 2>/dev/null | FileCheck %s --check-prefix=RESETHAND
// RUN: (ulimit -c 0; env KFENCE_OPTIONS=sample_rate=1 timeout 20 env LD_PRELOAD=%klto_libdir/libkfence.so %t.plain before resethand 2>&1; echo status=$?) 2>/dev/null | FileCheck %s --check-prefix=RESETHAND
// RUN: (ulimit -c 0; env KFENCE_OPTIONS=sample_rate=1 timeout 20 env LD_PRELOAD=%klto_libdir/libkfence.so %t.plain after nodefer 2>&1; echo status=$?) 2>/dev/null | FileCheck %s --check-prefix=NODEFER
// RUN: (ulimit -c 0; env KFENCE_OPTIONS=sample_rate=1 timeout 20 env LD_PRELOAD=%klto_libdir/libkfence.so %t.plain after mask 2>&1; echo status=$?) 2>/dev/null | FileCheck %s --check-prefix=MASK
#ifdef PLAIN
#include <stdlib.h>
#else
#include "redirect.h"
#endif
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char *page;
static sigjmp_buf env;
static volatile int calls;

static void say(const char *s) { write(STDOUT_FILENO, s, strlen(s)); }

static void count_call(void) {
  char line[] = "handler: call 1\n";
  if (++calls > 10) {
    say("runaway\n");
    _exit(3);
  }
  line[14] = '0' + calls;
  say(line);
}

static void jump_out(int sig, siginfo_t *info, void *uc) {
  (void)sig, (void)info, (void)uc;
  count_call();
  siglongjmp(env, 1);
}

static void nested(int sig, siginfo_t *info, void *uc) {
  (void)sig, (void)info, (void)uc;
  count_call();
  if (calls == 1)
    *(volatile char *)page = 1; /* SIGSEGV is not blocked: in again */
  siglongjmp(env, 1);
}

static void check_mask(int sig) {
  (void)sig;
  count_call();
  sigset_t now;
  pthread_sigmask(SIG_BLOCK, NULL, &now);
  say(sigismember(&now, SIGUSR1) ? "mask: SIGUSR1 blocked\n" : "mask: SIGUSR1 open\n");
  say(sigismember(&now, SIGSEGV) ? "mask: SIGSEGV blocked\n" : "mask: SIGSEGV open\n");
  siglongjmp(env, 1);
}

static void install(const char *mode) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_SIGINFO;
  if (!strcmp(mode, "ign")) {
    sa.sa_handler = SIG_IGN;
    sa.sa_flags = 0;
  } else if (!strcmp(mode, "resethand")) {
    sa.sa_sigaction = jump_out;
    sa.sa_flags |= SA_RESETHAND;
  } else if (!strcmp(mode, "nodefer")) {
    sa.sa_sigaction = nested;
    sa.sa_flags |= SA_NODEFER;
  } else if (!strcmp(mode, "mask")) {
    sa.sa_handler = check_mask;
    sa.sa_flags = 0;
    sigaddset(&sa.sa_mask, SIGUSR1);
  } else {
    _exit(2);
  }
  if (sigaction(SIGSEGV, &sa, NULL) != 0)
    _exit(4);
}

/* glibc passes constructors main's arguments. */
__attribute__((constructor(101))) static void early(int argc, char **argv) {
  if (argc > 2 && !strcmp(argv[1], "before"))
    install(argv[2]);
}

static void fault(void) {
  if (!sigsetjmp(env, 1))
    *(volatile char *)page = 1;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  const char *mode = argv[2];
  page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED)
    return 2;
  /* KFENCE's handler is installed at the first guarded allocation; the
   * hooks build takes SIGSEGV back at the next. */
  free(malloc(16));
  if (!strcmp(argv[1], "after")) {
    install(mode);
    free(malloc(16));
  }

  if (!strcmp(mode, "ign")) {
    raise(SIGSEGV);
    say("raise: ignored\n");
    kill(getpid(), SIGSEGV);
    say("kill: ignored\n");
    *(volatile char *)page = 1;
    say("fault: survived\n");
    return 0;
  }
  /* Freed before the handler runs: no guarded allocation (and so no
   * re-check) comes between the reset and the pool fault. */
  char *p = malloc(32);
  free(p);
  fault();
  if (!strcmp(mode, "nodefer") || !strcmp(mode, "mask")) {
    say("back in main\n");
    return 0;
  }
  /* resethand: the handler is gone, KFENCE is not. */
  volatile char c = p[1];
  (void)c;
  say(calls == 1 ? "pool fault: no handler ran\n" : "pool fault: reached the handler\n");
  fault();
  say("second fault: survived\n");
  return 0;
}

// IGN:      raise: ignored
// IGN-NEXT: kill: ignored
// IGN-NOT:  survived
// IGN:      status=139

// RESETHAND:      handler: call 1
// RESETHAND:      BUG: KFENCE: use-after-free read
// RESETHAND:      pool fault: no handler ran
// RESETHAND-NOT:  {{call|survived}}
// RESETHAND:      status=139

// NODEFER:      handler: call 1
// NODEFER-NEXT: handler: call 2
// NODEFER-NEXT: back in main
// NODEFER-NEXT: status=0

// MASK:      handler: call 1
// MASK-NEXT: mask: SIGUSR1 blocked
// MASK-NEXT: mask: SIGSEGV blocked
// MASK-NEXT: back in main
// MASK-NEXT: status=0
