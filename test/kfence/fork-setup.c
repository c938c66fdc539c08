// fork() while another thread sets KFENCE up (its options and sampler at its
// first allocation, the pool at its first guarded one): every child finds
// KFENCE working, never half set up: kfence_init() returns in the child and
// the child guards allocations of its own. posix_spawn() and system(), which
// run no fork handlers, work meanwhile. Each trial is a fresh process (this
// program run again): in a constructor that runs before KFENCE's, a second
// thread allocates until it gets a guarded object (the first is due 1 ms
// after start) while the first thread forks in a loop.
// RUN: %clang -g -O0 %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: env KFENCE_OPTIONS=sample_interval=1 timeout 120 %t 40 | FileCheck %s
// The LD_PRELOAD build sets its sampler up before any constructor of the
// program: the trials race the pool's set-up only.
// RUN: %clang -g -O0 %s -DPLAIN -I%kfence_include -lpthread -ldl -o %t.plain
// RUN: env KFENCE_OPTIONS=sample_interval=1 timeout 120 %t.plain 40 %klto_libdir/libkfence.so | FileCheck %s
#ifdef PLAIN
#include <dlfcn.h>
#include <kfence.h>
#include <stdlib.h>
#else
#include "redirect.h"
#endif
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#ifdef PLAIN
/* libkfence.so defines them; a plain program looks them up. */
#define LOOKUP(fn) ((__typeof__(&fn))dlsym(RTLD_DEFAULT, #fn))
#define kfence_init() LOOKUP(kfence_init)()
#define kfence_get_stats(s) LOOKUP(kfence_get_stats)(s)
#define GUARDED(p) (LOOKUP(kfence_object_start)(p) == (p))
#else
#define GUARDED(p) is_kfence_address(p)
#endif

static atomic_int set_up;
static int forks, bad_children, spawn_failures;

/* Allocates until an object is guarded, for up to 5 seconds. */
static int guard_one(void) {
  time_t end = time(NULL) + 5;
  while (time(NULL) < end) {
    void *p = malloc(16);
    int guarded = GUARDED(p);
    free(p);
    if (guarded)
      return 1;
  }
  return 0;
}

/* In each child: KFENCE works, or is cleanly off. A kfence_init() that never
 * returns is ended by the alarm. */
static void check_child(void) {
  alarm(10);
  int on = kfence_init();
  struct kfence_stats s;
  kfence_get_stats(&s);
  int ok = on ? s.enabled && guard_one() : !s.enabled;
  _exit(ok ? 0 : 3);
}

static void *first_guarded(void *arg) {
  (void)arg;
  guard_one();
  atomic_store(&set_up, 1);
  return NULL;
}

static int run(char *const argv[]) {
  pid_t pid;
  if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ))
    return -1;
  int status;
  waitpid(pid, &status, 0);
  return status;
}

/* One trial, before main(): fork until the other thread's first guarded
 * allocation has returned. */
__attribute__((constructor(101))) static void trial(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "trial"))
    return;
  pthread_t t;
  pthread_create(&t, NULL, first_guarded, NULL);
  pid_t children[4096];
  do {
    pid_t pid = fork();
    if (pid == 0)
      check_child();
    children[forks++] = pid;
    if (forks % 8 == 1) {
      char *true_argv[] = {"/bin/true", NULL};
      spawn_failures += run(true_argv) != 0;
    }
  } while (!atomic_load(&set_up) && forks < 4096);
  spawn_failures += system("exit 0") != 0;
  pthread_join(t, NULL);
  for (int i = 0; i < forks; i++) {
    int status;
    waitpid(children[i], &status, 0);
    bad_children += !WIFEXITED(status) || WEXITSTATUS(status);
  }
  printf("%d %d %d\n", forks, bad_children, spawn_failures);
  exit(0);
}

/* The driver: runs the trials, each a fresh process, and sums them up. */
int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  int trials = atoi(argv[1]), total = 0, bad = 0, spawn_bad = 0, failed = 0;
  if (argc > 2)
    setenv("LD_PRELOAD", argv[2], 1);
  for (int i = 0; i < trials; i++) {
    int pipefd[2];
    pipe(pipefd);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, pipefd[0]);
    char *trial_argv[] = {argv[0], "trial", NULL};
    pid_t pid;
    if (posix_spawn(&pid, "/proc/self/exe", &fa, NULL, trial_argv, environ))
      return 1;
    close(pipefd[1]);
    char line[64] = "";
    ssize_t n = read(pipefd[0], line, sizeof(line) - 1);
    close(pipefd[0]);
    int status, f = 0, b = 0, s = 0;
    waitpid(pid, &status, 0);
    if (n <= 0 || sscanf(line, "%d %d %d", &f, &b, &s) != 3 ||
        !WIFEXITED(status) || WEXITSTATUS(status))
      failed++;
    total += f, bad += b, spawn_bad += s;
  }
  printf("trials=%d failed=%d forks>=trials=%d bad_children=%d "
         "spawn_failures=%d\n",
         trials, failed, total >= trials, bad, spawn_bad);
  return 0;
}
// CHECK: trials=40 failed=0 forks>=trials=1 bad_children=0 spawn_failures=0
