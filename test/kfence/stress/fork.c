// Fork storms. `storm`: threads churn and each forks now and then, while
// the others allocate; the main thread starts the program again with
// posix_spawn() and with system(). Every child, forked or started, checks
// blocks it inherited or allocates, plants a use-after-free, which must be
// reported (exactly once, in that child), and exits 0 within 10 s; the
// parent reports nothing. Forking starts once the pool is set up; `first`
// (fork-first.test) forks while it is: processes started one after
// another each fork from the main thread while another thread makes the
// process's first guarded allocation, and every child must still guard
// and report.
// RUN: %clang -g -O1 -fplugin=%plugin -fplugin-arg-klto-kfence \
// RUN:   -I%kfence_include -I%S/Inputs --ld-path=%stock_ld %s -lpthread -o %t.klto
// RUN: %clang -g -O1 -I%kfence_include -I%S/Inputs %s -lpthread -ldl -o %t.plain
// RUN: env KFENCE_OPTIONS=sample_rate=1 %timeout %t.klto storm 8 > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=STORM < %t.out
// RUN: grep 'BUG: KFENCE' %t.err | not grep -v 'use-after-free read in stress_plant_uaf'
// RUN: env KFENCE_OPTIONS=sample_interval=1 %timeout %t.klto storm 8 > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=STORM < %t.out
// RUN: grep 'BUG: KFENCE' %t.err | not grep -v 'use-after-free read in stress_plant_uaf'
// RUN: env KFENCE_OPTIONS=sample_rate=1 LD_PRELOAD=%klto_libdir/libkfence.so \
// RUN:   %timeout %t.plain storm 8 > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=STORM < %t.out
// RUN: grep 'BUG: KFENCE' %t.err | not grep -v 'use-after-free read in stress_plant_uaf'
#include "stress.h"
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

static atomic_ulong ops, forks, spawns, systems, ok_children, bad_children,
    stuck, bad;

enum child_exit { OK = 0, NOT_REPORTED = 3, NOTHING_GUARDED = 4, DAMAGED = 5 };

/* A child's work: churn, check what it inherited, plant, exit. */
static int child_work(unsigned char **held, int nheld, uint32_t seed) {
  for (int i = 0; i < nheld; i++)
    if (held[i] && !stress_check(held[i], 64, seed + (uint32_t)i))
      return DAMAGED;
  for (int i = 0; i < 200; i++) {
    size_t n = 16 + (size_t)i * 7 % 2000;
    unsigned char *p = malloc(n);
    stress_fill(p, n, (uint32_t)i);
    if (!stress_check(p, n, (uint32_t)i))
      return DAMAGED;
    free(p);
  }
  switch (stress_plant_uaf()) {
  case 1:
    return OK;
  case 0:
    return NOT_REPORTED;
  default:
    if (!stress_kf.present)
      return OK;
    struct kfence_stats s = stress_stats();
    /* dprintf: stdio's locks may have been held by a thread at the fork. */
    dprintf(2, "pid %d: nothing guarded in 1 s: enabled=%d allocs=%lu "
               "allocated=%lu zombies=%lu skipped=%lu/%lu/%lu\n",
            (int)getpid(), s.enabled, s.allocs, s.allocated, s.zombies,
            s.skipped_incompat, s.skipped_capacity, s.skipped_covered);
    return NOTHING_GUARDED;
  }
}

/* Wait for @pid for up to 10 s, then kill it: a child stuck in KFENCE. */
static void reap(pid_t pid) {
  if (pid <= 0)
    return;
  double end = stress_now() + 10;
  int status;
  pid_t got;
  while ((got = waitpid(pid, &status, WNOHANG)) == 0 && stress_now() < end) {
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  if (got == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    stuck++;
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == OK) {
    ok_children++;
  } else {
    if (atomic_fetch_add(&bad_children, 1) < 10)
      fprintf(stderr, "child %d: %s %d\n", (int)pid,
              WIFEXITED(status) ? "exit" : "signal",
              WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
  }
}

#define HELD 32

static void *churner(void *arg) {
  uint64_t x = stress_seed((uintptr_t)arg);
  uint32_t seed = (uint32_t)stress_rand(&x);
  unsigned char *held[HELD] = {0};
  while (stress_running()) {
    for (int k = 0; k < 512; k++) {
      int i = (int)(stress_rand(&x) % HELD);
      if (held[i]) {
        if (!stress_check(held[i], 64, seed + (uint32_t)i))
          bad++;
        free(held[i]);
      }
      held[i] = malloc(64 + stress_rand(&x) % 1024);
      stress_fill(held[i], 64, seed + (uint32_t)i);
      ops++;
    }
    /* Every thread forks, while the others go on allocating. */
    pid_t pid = fork();
    if (pid == 0)
      _exit(child_work(held, HELD, seed));
    forks++;
    reap(pid);
  }
  for (int i = 0; i < HELD; i++)
    free(held[i]);
  return NULL;
}

static int storm(int threads) {
  pthread_t t[64];
  /* The steady state: forks during the pool's set-up are `first`'s. */
  if (stress_kf.present)
    for (double end = stress_now() + 1; !*stress_kf.pool_size && stress_now() < end;)
      stress_malloc_free(32);
  stress_start();
  for (long i = 0; i < threads; i++)
    pthread_create(&t[i], NULL, churner, (void *)i);
  char *argv[] = {"/proc/self/exe", "child", NULL};
  char self[4096], cmd[4200];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  self[n > 0 ? n : 0] = '\0';
  snprintf(cmd, sizeof(cmd), "exec '%s' child", self);
  while (stress_running()) {
    pid_t pid;
    if (posix_spawn(&pid, self, NULL, NULL, argv, environ) == 0) {
      spawns++;
      reap(pid);
    }
    int status = system(cmd);
    systems++;
    if (WIFEXITED(status) && WEXITSTATUS(status) == OK)
      ok_children++;
    else
      bad_children++;
  }
  for (int i = 0; i < threads; i++)
    pthread_join(t[i], NULL);
  struct kfence_stats s = stress_stats();
  int ok = !bad && !bad_children && !stuck && !s.bugs && forks && spawns &&
           systems;
  return stress_summary("fork-storm", ok,
                        "threads=%d ops=%lu forks=%lu spawns=%lu systems=%lu "
                        "children_ok=%lu children_failed=%lu stuck=%lu bad=%lu",
                        threads, (unsigned long)ops, (unsigned long)forks,
                        (unsigned long)spawns, (unsigned long)systems,
                        (unsigned long)ok_children, (unsigned long)bad_children,
                        (unsigned long)stuck, (unsigned long)bad);
}

/* ---- first: fork while the pool is being set up ------------------------- */

static atomic_int go;

static void *first_allocator(void *arg) {
  (void)arg;
  while (!go)
    ;
  for (int i = 0; i < 100; i++)
    stress_malloc_free(32);
  return NULL;
}

#define FIRST_FORKS 8

/* One process: returns how many of its children failed, 100 + those
 * stuck. */
static int first_round(void) {
  pthread_t t;
  pthread_create(&t, NULL, first_allocator, NULL);
  pid_t pids[FIRST_FORKS];
  go = 1;
  for (int i = 0; i < FIRST_FORKS; i++) {
    pids[i] = fork();
    if (pids[i] == 0)
      _exit(child_work(NULL, 0, 0));
  }
  pthread_join(t, NULL);
  for (int i = 0; i < FIRST_FORKS; i++)
    reap(pids[i]);
  return stuck ? 100 + (int)stuck : (int)bad_children;
}

static int first(void) {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  self[n > 0 ? n : 0] = '\0';
  char *argv[] = {self, "first-round", NULL};
  unsigned long rounds = 0, failed = 0, stuck_rounds = 0;
  while (stress_running()) {
    pid_t pid;
    if (posix_spawn(&pid, self, NULL, NULL, argv, environ))
      break;
    int status;
    /* A round waits 10 s for each stuck child: allow for all of them. */
    double end = stress_now() + 10 * FIRST_FORKS + 5;
    pid_t got;
    while ((got = waitpid(pid, &status, WNOHANG)) == 0 && stress_now() < end) {
      struct timespec ms = {0, 1000000};
      nanosleep(&ms, NULL);
    }
    rounds++;
    if (got == 0) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      stuck_rounds++;
    } else if (!WIFEXITED(status)) {
      failed++;
    } else if (WEXITSTATUS(status) >= 100) {
      stuck_rounds++;
      failed += WEXITSTATUS(status) - 100;
    } else {
      failed += WEXITSTATUS(status);
    }
  }
  int ok = rounds && !failed && !stuck_rounds;
  return stress_summary("fork-first", ok,
                        "rounds=%lu forks=%lu children_failed=%lu "
                        "rounds_with_stuck_children=%lu",
                        rounds, rounds * FIRST_FORKS, failed, stuck_rounds);
}

int main(int argc, char **argv) {
  stress_find_kfence();
  stress_start();
  if (argc > 1 && !strcmp(argv[1], "child"))
    return child_work(NULL, 0, 0);
  if (argc > 1 && !strcmp(argv[1], "first-round"))
    return first_round();
  if (argc > 1 && !strcmp(argv[1], "first"))
    return first();
  int threads = argc > 2 ? atoi(argv[2]) : 8;
  return threads >= 1 && threads <= 64 ? storm(threads) : 2;
}
// STORM: stress fork-storm [{{.*}}]: threads={{[0-9]+}} ops={{[0-9]+}} forks={{[1-9][0-9]*}} spawns={{[1-9][0-9]*}} systems={{[1-9][0-9]*}} children_ok={{[1-9][0-9]*}} children_failed=0 stuck=0 bad=0 kfence=yes guarded={{[1-9][0-9]*}} reports=0 {{.*}} result=ok
// FIRST: stress fork-first [{{.*}}]: rounds={{[1-9][0-9]*}} {{.*}} children_failed=0 rounds_with_stuck_children=0 kfence=yes {{.*}} result=ok
