/* The program of the sigsegv-*.test files: SIGSEGV handlers of the styles
 * real programs use, installed before KFENCE's handler or after it, meet a
 * fault KFENCE does not own. Each must run once and the program die of
 * SIGSEGV, as without KFENCE.
 *
 *   sigsegv-styles ORDER EVENT STYLE [STYLE]
 *
 * ORDER   before: handler A is installed in a constructor, before KFENCE
 *         starts; after: once KFENCE's handler is installed, followed by a
 *         guarded allocation (where the hooks build takes SIGSEGV back);
 *         late: the same without that allocation (the hooks build's
 *         handler is not in front: faults reach the program's first).
 *         A second STYLE is handler B's, installed the same way after A.
 * EVENT   fault: a write to a page the program mapped PROT_NONE;
 *         kill: kill(getpid(), SIGSEGV), which nothing re-executes.
 * STYLE   restore: put back the action it replaced and return, re-raising
 *         a signal that will not recur by itself (Crashpad's
 *         RestoreHandlerAndReraiseSignalOnReturn, Breakpad's
 *         RestoreHandlersLocked);
 *         chain: call the action it replaced, under that action's mask,
 *         honouring SA_RESETHAND (the JVM's chained handler, .NET, Mono);
 *         with nothing to call (SIG_DFL, SIG_IGN) restore it and return;
 *         reinstall: install itself again on every run, keeping what it
 *         replaced unless that is itself, then chain as above.
 *
 * Before the event, a use-after-free on a guarded object must be reported
 * by KFENCE, without reaching the handlers if KFENCE's handler is in front.
 * Handlers write with write(): they run in signal context. A handler run
 * more than 10 times says "runaway" and exits 3, so a fault that loops
 * between handlers, or a recursion between them, fails at once. Built with
 * -DPLAIN for the LD_PRELOAD build.
 */
#ifdef PLAIN
#include <stdlib.h>
#else
#include "redirect.h"
#endif
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum style { RESTORE, CHAIN, REINSTALL };

static enum style styles[2];
static struct sigaction replaced[2]; /* what handler A, B replaced */
static volatile int calls[2];

static void say(const char *s) { write(STDOUT_FILENO, s, strlen(s)); }

static void handle(int who, int sig, siginfo_t *info, void *uc);
static void handler_a(int sig, siginfo_t *info, void *uc) { handle(0, sig, info, uc); }
static void handler_b(int sig, siginfo_t *info, void *uc) { handle(1, sig, info, uc); }
static void (*const handlers[2])(int, siginfo_t *, void *) = {handler_a, handler_b};

static void install(int who, struct sigaction *old) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = handlers[who];
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSEGV, &sa, old) != 0)
    _exit(4);
}

static void chain(int who, int sig, siginfo_t *info, void *uc) {
  struct sigaction *old = &replaced[who];
  if (old->sa_handler == SIG_DFL || old->sa_handler == SIG_IGN) {
    sigaction(sig, old, NULL);
    if (info->si_code <= 0)
      raise(sig);
    return;
  }
  bool with_info = old->sa_flags & SA_SIGINFO;
  void (*action)(int, siginfo_t *, void *) = old->sa_sigaction;
  void (*plain)(int) = old->sa_handler;
  sigset_t mask = old->sa_mask, saved;
  if (!(old->sa_flags & SA_NODEFER))
    sigaddset(&mask, sig);
  if (old->sa_flags & SA_RESETHAND) {
    old->sa_handler = SIG_DFL;
    old->sa_flags &= ~SA_SIGINFO;
  }
  pthread_sigmask(SIG_SETMASK, &mask, &saved);
  if (with_info)
    action(sig, info, uc);
  else
    plain(sig);
  pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

static void handle(int who, int sig, siginfo_t *info, void *uc) {
  char line[] = "A: call 1\n";
  line[0] += who;
  int n = ++calls[who];
  if (n > 10) {
    say("runaway\n");
    _exit(3);
  }
  line[8] = n < 10 ? '0' + n : '+';
  say(line);
  switch (styles[who]) {
  case RESTORE:
    if (sigaction(sig, &replaced[who], NULL) != 0)
      _exit(4);
    if (info->si_code <= 0)
      raise(sig);
    break;
  case REINSTALL: {
    struct sigaction now;
    install(who, &now);
    if (!(now.sa_flags & SA_SIGINFO) || now.sa_sigaction != handlers[who])
      replaced[who] = now;
    chain(who, sig, info, uc);
    break;
  }
  case CHAIN:
    chain(who, sig, info, uc);
    break;
  }
}

static bool parse_style(const char *s, enum style *out) {
  static const char *const names[] = {"restore", "chain", "reinstall"};
  for (int k = 0; k < 3; k++)
    if (!strcmp(s, names[k])) {
      *out = (enum style)k;
      return true;
    }
  return false;
}

/* glibc passes constructors main's arguments. */
__attribute__((constructor(101))) static void early(int argc, char **argv) {
  if (argc > 3 && !strcmp(argv[1], "before") && parse_style(argv[3], &styles[0]))
    install(0, &replaced[0]);
}

/* A guarded allocation: the hooks build takes SIGSEGV back if the program
 * replaced KFENCE's handler (installed at the first, malloc(32) in main). */
static void guarded_allocation(void) { free(malloc(16)); }

int main(int argc, char **argv) {
  if (argc < 4 || !parse_style(argv[3], &styles[0]) ||
      (argc > 4 && !parse_style(argv[4], &styles[1])))
    return 2;
  bool before = !strcmp(argv[1], "before"), late = !strcmp(argv[1], "late");
  char *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED)
    return 2;
  char *p = malloc(32);
  free(p);
  for (int who = before; who < argc - 3; who++) {
    install(who, &replaced[who]);
    if (!late)
      guarded_allocation();
  }

  volatile char c = p[1];
  (void)c;
  say(calls[0] || calls[1] ? "pool fault: reached a handler\n"
                           : "pool fault: no handler ran\n");

  say("event\n");
  if (!strcmp(argv[2], "kill"))
    kill(getpid(), SIGSEGV);
  else
    *(volatile char *)page = 1;
  say("survived\n");
  return 0;
}
