// A thread cancelled while it writes a report (write() is a cancellation
// point) finishes the report before it goes: the report is whole, and the
// next report and the next fork() do not wait for a lock the cancelled thread
// kept. The report's write() blocks on a full pipe (reports go to stderr),
// the thread is cancelled there, then the pipe is drained.
// `async`: the request comes as glibc delivers one it sent while the thread
// had asynchronous cancellation on (a thread that fills a buffer with it on,
// then frees: test/kfence/stress/cancel.c): SIGCANCEL, which glibc 2.36's
// handler acts on inside any cancellation point, whatever the thread's
// cancellation state. KFENCE's report calls none; the request acts at the
// thread's next one, after the report. glibc 2.41's handler (Debian 13)
// ignores a SIGCANCEL that pthread_cancel() did not send (the raw signal
// leaves the thread running), so there the line sends pthread_cancel()'s own
// into the report's write(), as the first line does.
// RUN: %clang -g -O0 %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: env KFENCE_OPTIONS=sample_rate=1 timeout 30 %t | FileCheck %s
// RUN: env KFENCE_OPTIONS=sample_rate=1 timeout 30 %t async | FileCheck %s
// RUN: %clang -g -O0 %s -DPLAIN -lpthread -o %t.plain
// RUN: env KFENCE_OPTIONS=sample_rate=1 timeout 30 %t.plain cancel %klto_libdir/libkfence.so | FileCheck %s
// RUN: env KFENCE_OPTIONS=sample_rate=1 timeout 30 %t.plain async %klto_libdir/libkfence.so | FileCheck %s
#define _GNU_SOURCE
#ifdef PLAIN
#include <stdlib.h>
#else
#include "redirect.h"
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* The read end of the pipe that stderr, and so KFENCE's reports, go to. */
#define PIPE_IN 3
/* glibc's cancellation signal. */
#define SIGCANCEL __SIGRTMIN

__attribute__((noinline)) static void double_free(void) {
  char *p = malloc(32);
  free(p);
  free(p);
}

static pid_t reporter_tid;

static void *reporter(void *arg) {
  (void)arg;
  reporter_tid = (pid_t)syscall(SYS_gettid);
  double_free();
  for (;;)
    pause();
}

static void *sleeper(void *arg) {
  (void)arg;
  for (;;)
    pause();
}

/* The system call thread @tid is in, -1 if none or unknown. */
static long in_syscall(pid_t tid) {
  char path[64], text[64] = "";
  snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  long nr = -1;
  if (fgets(text, sizeof(text), f))
    nr = strtol(text, NULL, 10);
  fclose(f);
  return nr;
}

/* Moves what the pipe holds to stdout, for FileCheck, without the filler
 * (NUL bytes); stops when nothing came for @timeout_ms. */
static void drain(int timeout_ms) {
  char buf[4096];
  struct pollfd pfd = {PIPE_IN, POLLIN, 0};
  while (poll(&pfd, 1, timeout_ms) > 0) {
    ssize_t n = read(PIPE_IN, buf, sizeof(buf));
    if (n <= 0)
      break;
    for (ssize_t i = 0; i < n; i++)
      if (buf[i])
        putchar(buf[i]);
  }
  fflush(stdout);
}

/* As pthread_cancel() requests it, or as glibc delivers a request it sent
 * while @t had asynchronous cancellation on. */
static void cancel(pthread_t t, const char *mode) {
  if (strcmp(mode, "async") || __GLIBC_PREREQ(2, 41)) {
    pthread_cancel(t);
    return;
  }
  /* glibc installs its SIGCANCEL handler at the first pthread_cancel(). */
  pthread_t other;
  pthread_create(&other, NULL, sleeper, NULL);
  pthread_cancel(other);
  pthread_join(other, NULL);
  syscall(SYS_tgkill, getpid(), reporter_tid, SIGCANCEL);
}

static int victim(const char *mode) {
  /* Fill the pipe: the next write to stderr blocks. */
  char filler[4096] = {0};
  int flags = fcntl(STDERR_FILENO, F_GETFL);
  fcntl(STDERR_FILENO, F_SETFL, flags | O_NONBLOCK);
  while (write(STDERR_FILENO, filler, sizeof(filler)) > 0 || errno == EINTR)
    ;
  fcntl(STDERR_FILENO, F_SETFL, flags);

  pthread_t t;
  pthread_create(&t, NULL, reporter, NULL);
  time_t end = time(NULL) + 10;
  while ((!reporter_tid || in_syscall(reporter_tid) != SYS_write) &&
         time(NULL) < end)
    sched_yield();
  printf("reporter blocked in write: %d\n",
         reporter_tid && in_syscall(reporter_tid) == SYS_write);
  fflush(stdout);
  cancel(t, mode);
  /* Empty the pipe until the thread is gone: it may have to finish its
   * report first. */
  void *ret = NULL;
  end = time(NULL) + 10;
  while (pthread_tryjoin_np(t, &ret) && time(NULL) < end)
    drain(10);
  drain(100);
  printf("reporter cancelled: %d\n", ret == PTHREAD_CANCELED);
  fflush(stdout);

  double_free();
  drain(100);
  pid_t pid = fork();
  if (pid == 0)
    _exit(0);
  int status;
  waitpid(pid, &status, 0);
  printf("fork: %d\n", WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 2 && !strcmp(argv[1], "victim"))
    return victim(argv[2]);
  /* Run again with stderr a pipe whose read end the victim holds. */
  int fds[2];
  if (pipe(fds))
    return 1;
  char *mode = argc > 1 ? argv[1] : "cancel";
  if (argc > 2)
    setenv("LD_PRELOAD", argv[2], 1);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], STDERR_FILENO);
  posix_spawn_file_actions_adddup2(&fa, fds[0], PIPE_IN);
  char *victim_argv[] = {argv[0], "victim", mode, NULL};
  pid_t pid;
  if (posix_spawn(&pid, "/proc/self/exe", &fa, NULL, victim_argv, environ))
    return 1;
  close(fds[0]);
  close(fds[1]);
  int status;
  waitpid(pid, &status, 0);
  printf("victim exit: %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}
// CHECK: reporter blocked in write: 1
// CHECK-NEXT: ==================================================================
// CHECK-NEXT: BUG: KFENCE: invalid free in double_free+0x
// CHECK: freed by task
// CHECK: CPU: {{[0-9]+}} PID: {{[0-9]+}} Comm:
// CHECK-NEXT: ==================================================================
// CHECK-NEXT: reporter cancelled: 1
// CHECK-NEXT: ==================================================================
// CHECK-NEXT: BUG: KFENCE: invalid free in double_free+0x
// CHECK: CPU: {{[0-9]+}} PID: {{[0-9]+}} Comm:
// CHECK-NEXT: ==================================================================
// CHECK-NEXT: fork: 1
// CHECK-NEXT: victim exit: 0
