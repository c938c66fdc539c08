// Allocation in signal handlers: a timer signal every 50 us whose handler
// allocates, checks and frees while the main thread churns with every
// allocation sampled (sample_rate=1), so that the signal often lands in
// KFENCE's slow path. The handler and the main thread keep patterned
// blocks, checked before each free; the run ends on time, with nothing
// reported. `own`: each handler frees what it allocated. `keep`
// (signal-keep.test): the handler keeps blocks from one signal to a later
// one, so it frees guarded objects while the main thread may hold the
// pool lock.
//
// The main thread keeps few blocks, so the pool never fills and every one
// of its allocations is KFENCE's: it is never inside the C library's
// malloc when the signal comes (which would make the program's own
// reentrancy a bug, as in any plain build).
// RUN: %clang -g -O1 -fplugin=%plugin -fplugin-arg-klto-kfence \
// RUN:   -I%kfence_include -I%S/Inputs --ld-path=%stock_ld %s -o %t.klto
// RUN: %clang -g -O1 -I%kfence_include -I%S/Inputs %s -ldl -o %t.plain
// RUN: env KFENCE_OPTIONS=sample_rate=1 %timeout %t.klto own 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='BUG: KFENCE'
// RUN: env KFENCE_OPTIONS=sample_rate=1 LD_PRELOAD=%klto_libdir/libkfence.so \
// RUN:   %timeout %t.plain own 2>&1 | FileCheck %s --implicit-check-not='BUG: KFENCE'
#include "stress.h"
#include <signal.h>
#include <sys/time.h>

static int keep;
static volatile sig_atomic_t stop;
static unsigned long signals, handler_allocs, handler_guarded, bad;

/* The handler's blocks, kept from one signal to the next in `keep`. */
#define KEPT 8
static unsigned char *kept[KEPT];
static size_t kept_size[KEPT];

static void handler(int sig) {
  (void)sig;
  int saved = errno;
  if (stop)
    return;
  signals++;
  uint32_t seed = (uint32_t)signals;
  size_t n = 16 + (signals * 97) % 3000;
  unsigned char *p = (signals & 1) ? malloc(n) : calloc(1, n);
  if (!p) {
    bad++;
    errno = saved;
    return;
  }
  handler_allocs++;
  handler_guarded += stress_guarded(p);
  stress_fill(p, n, seed);
  if (!keep) {
    if (!stress_check(p, n, seed))
      bad++;
    free(p);
  } else {
    int i = (int)(signals % KEPT);
    if (kept[i]) {
      if (!stress_check(kept[i], kept_size[i], (uint32_t)(signals - KEPT)))
        bad++;
      free(kept[i]);
    }
    kept[i] = p;
    kept_size[i] = n;
  }
  errno = saved;
}

#define HELD 32

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  keep = !strcmp(argv[1], "keep");
  long usec = argc > 2 ? atol(argv[2]) : 50;
  stress_find_kfence();
  stress_start();

  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = handler;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval it = {{0, usec}, {0, usec}};
  setitimer(ITIMER_REAL, &it, NULL);

  unsigned char *held[HELD] = {0};
  size_t size[HELD];
  unsigned long ops = 0;
  uint64_t x = stress_seed(0);
  while (stress_running()) {
    for (int k = 0; k < 64; k++) {
      int i = (int)(stress_rand(&x) % HELD);
      if (held[i]) {
        if (!stress_check(held[i], size[i], (uint32_t)i))
          bad++;
        free(held[i]);
      }
      size[i] = 16 + stress_rand(&x) % 4000;
      held[i] = malloc(size[i]);
      stress_fill(held[i], size[i], (uint32_t)i);
      ops++;
    }
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  stop = 1;
  for (int i = 0; i < HELD; i++)
    free(held[i]);
  for (int i = 0; i < KEPT; i++)
    free(kept[i]);
  struct kfence_stats s = stress_stats();
  int ok = !bad && !s.bugs && signals > 0;
  return stress_summary(keep ? "signal-keep" : "signal", ok,
                        "ops=%lu signals=%lu handler_allocs=%lu "
                        "handler_guarded=%lu bad=%lu",
                        ops, signals, handler_allocs, handler_guarded, bad);
}
// CHECK: stress signal{{(-keep)?}} [{{.*}}]: ops={{[0-9]+}} signals={{[1-9][0-9]*}} handler_allocs={{[1-9][0-9]*}} handler_guarded={{[1-9][0-9]*}} bad=0 kfence=yes {{.*}} reports=0 {{.*}} result=ok
