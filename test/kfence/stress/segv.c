// SIGSEGV shared with the program's own handler, under churn. Four threads
// fault on their own PROT_NONE page, which the program's handler recovers
// with siglongjmp() (or, with `return`, by making the page accessible and
// returning), allocate, and now and then plant a use-after-free (the
// others waiting: stress_plant_lock); another thread installs the
// program's handler again and again, as a runtime does that re-arms its
// handler (JVM style: it keeps the action it replaced, unless that is
// itself, and calls it for faults it does not own). Every own fault
// reaches the program's handler, every planted use-after-free is reported
// once (by KFENCE's handler directly, or through the program's, which
// hands pool faults on), and the run ends. `unowned` then installs the
// program's handler once more and makes a fault no one owns: the program
// dies of SIGSEGV, its handler having run once for it (segv-unowned.test
// builds the handler's code without the plugin).
// RUN: %clang -g -O1 -fplugin=%plugin -fplugin-arg-klto-kfence \
// RUN:   -I%kfence_include -I%S/Inputs --ld-path=%stock_ld %s -lpthread -o %t.klto
// RUN: %clang -g -O1 -I%kfence_include -I%S/Inputs %s -lpthread -ldl -o %t.plain
// RUN: env KFENCE_OPTIONS=sample_rate=1 %timeout %t.klto > %t.out 2> %t.err
// RUN: FileCheck %s < %t.out
// RUN: grep 'BUG: KFENCE' %t.err | not grep -v 'use-after-free read in stress_plant_uaf'
// RUN: env KFENCE_OPTIONS=sample_rate=1 LD_PRELOAD=%klto_libdir/libkfence.so \
// RUN:   %timeout %t.plain > %t.out 2> %t.err
// RUN: FileCheck %s < %t.out
// RUN: grep 'BUG: KFENCE' %t.err | not grep -v 'use-after-free read in stress_plant_uaf'
// RUN: env KFENCE_OPTIONS=sample_rate=1 %timeout %t.klto return > %t.out 2> %t.err
// RUN: FileCheck %s < %t.out
// RUN: env KFENCE_OPTIONS=sample_rate=1 LD_PRELOAD=%klto_libdir/libkfence.so \
// RUN:   %timeout %t.plain return > %t.out 2> %t.err
// RUN: FileCheck %s < %t.out
// RUN: env KFENCE_OPTIONS=sample_rate=1 LD_PRELOAD=%klto_libdir/libkfence.so \
// RUN:   not --crash %timeout %t.plain unowned > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=UNOWNED < %t.err
// RUN: not grep survived %t.out
#include "stress.h"
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>

#define FAULTERS 4
/* Each retires a slot of the pool's 255. */
#define MAX_PLANTED 100

static __thread char *own_page;
static __thread sigjmp_buf *own_env;
/* `return`: the handler recovers an own fault by making the page
 * accessible and returning, as a concurrent garbage collector's write
 * barrier or the JVM's safepoint poll does, instead of siglongjmp(). */
static int recover_by_return;
static atomic_ulong own_faults, recovered, planted, reported, installs, bad;
static atomic_int done;
static atomic_ulong unowned_calls, chained_returns;
static char *volatile nobody_page;

/* The action the program's handler replaced, never itself; under the
 * lock, read without it by the handler (as a runtime would). */
static struct sigaction previous;
static pthread_mutex_t previous_lock = PTHREAD_MUTEX_INITIALIZER;

static void handler(int sig, siginfo_t *info, void *ctx) {
  if (own_page && (char *)info->si_addr == own_page) {
    recovered++;
    if (recover_by_return) {
      mprotect(own_page, 4096, PROT_READ | PROT_WRITE);
      return;
    }
    siglongjmp(*own_env, 1);
  }
  /* A fault no one owns: the program dies of it, its handler having run
   * once (`unowned`). */
  if ((char *)info->si_addr == nobody_page) {
    char line[64];
    int len = snprintf(line, sizeof(line), "unowned fault: call %lu\n",
                       (unsigned long)++unowned_calls);
    ssize_t w = write(2, line, (size_t)len);
    (void)w;
  }
  struct sigaction prev = previous;
  if (prev.sa_flags & SA_SIGINFO)
    prev.sa_sigaction(sig, info, ctx);
  else if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN)
    prev.sa_handler(sig);
  else
    signal(SIGSEGV, SIG_DFL); /* not ours, no one else's: die of it */
  /* As the JVM's does, the handler goes on after the chained call. */
  chained_returns++;
}

static void install(void) {
  struct sigaction sa, old;
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  pthread_mutex_lock(&previous_lock);
  sigaction(SIGSEGV, &sa, &old);
  if (!((old.sa_flags & SA_SIGINFO) && old.sa_sigaction == handler))
    previous = old;
  pthread_mutex_unlock(&previous_lock);
  installs++;
}

static void *installer(void *arg) {
  (void)arg;
  while (!done) {
    install();
    struct timespec ts = {0, 100000};
    nanosleep(&ts, NULL);
  }
  return NULL;
}

static void *faulter(void *arg) {
  uint64_t x = stress_seed((uintptr_t)arg);
  sigjmp_buf env;
  own_env = &env;
  own_page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  while (stress_running()) {
    pthread_rwlock_rdlock(&stress_plant_lock);
    for (int k = 0; k < 64; k++) {
      size_t n = 16 + stress_rand(&x) % 2000;
      unsigned char *p = malloc(n);
      stress_fill(p, n, (uint32_t)k);
      if (!stress_check(p, n, (uint32_t)k))
        bad++;
      free(p);
    }
    pthread_rwlock_unlock(&stress_plant_lock);
    own_faults++;
    if (recover_by_return) {
      *(volatile char *)own_page = 1;
      mprotect(own_page, 4096, PROT_NONE);
    } else if (!sigsetjmp(env, 1)) {
      *(volatile char *)own_page = 1;
    }
    if (stress_rand(&x) % 8 == 0 && atomic_fetch_add(&planted, 1) < MAX_PLANTED) {
      pthread_rwlock_wrlock(&stress_plant_lock);
      reported += stress_plant_uaf() == 1;
      pthread_rwlock_unlock(&stress_plant_lock);
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  recover_by_return = argc > 1 && !strcmp(argv[1], "return");
  stress_find_kfence();
  stress_start();
  install();
  pthread_t inst, t[FAULTERS];
  pthread_create(&inst, NULL, installer, NULL);
  for (long i = 0; i < FAULTERS; i++)
    pthread_create(&t[i], NULL, faulter, (void *)i);
  for (int i = 0; i < FAULTERS; i++)
    pthread_join(t[i], NULL);
  done = 1;
  pthread_join(inst, NULL);
  if (argc > 1 && !strcmp(argv[1], "unowned")) {
    fflush(stdout);
    nobody_page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    install();
    *nobody_page = 1;
    printf("survived\n");
  }
  unsigned long plants = planted < MAX_PLANTED ? planted : MAX_PLANTED;
  if (!stress_kf.present)
    plants = reported;
  struct kfence_stats s = stress_stats();
  int ok = !bad && own_faults == recovered && reported == plants &&
           s.bugs == plants;
  return stress_summary("segv", ok,
                        "installs=%lu own_faults=%lu recovered=%lu planted=%lu "
                        "reported=%lu bad=%lu",
                        (unsigned long)installs, (unsigned long)own_faults,
                        (unsigned long)recovered, plants,
                        (unsigned long)reported, (unsigned long)bad);
}
// CHECK: stress segv [{{.*}}]: installs={{[1-9][0-9]*}} own_faults=[[F:[1-9][0-9]*]] recovered=[[F]] planted=[[P:[1-9][0-9]*]] reported=[[P]] bad=0 kfence=yes guarded={{[1-9][0-9]*}} reports=[[P]] {{.*}} result=ok
// UNOWNED: unowned fault: call 1
// UNOWNED-NOT: unowned fault: call
