// Reports from many threads at once while the report callback changes.
// Four threads plant invalid frees (free at the object's second byte:
// reported, the object stays live and is then freed properly) and churn;
// another thread sets the callback and removes it, again and again. Every
// planted bug is reported once, whole (the report text's first and last
// lines are in the callback's copy), the callback sees only planted kinds,
// and the run ends. `unregister` (reports-unregister.test): the callback
// removes itself when it runs, as a one-shot crash reporter would.
// RUN: %clang -g -O1 -fplugin=%plugin -fplugin-arg-klto-kfence \
// RUN:   -I%kfence_include -I%S/Inputs --ld-path=%stock_ld %s -lpthread -o %t.klto
// RUN: %clang -g -O1 -I%kfence_include -I%S/Inputs %s -lpthread -ldl -o %t.plain
// RUN: env KFENCE_OPTIONS=sample_rate=1 %timeout %t.klto toggle > %t.out 2> %t.err
// RUN: FileCheck %s < %t.out
// RUN: grep 'BUG: KFENCE' %t.err | not grep -v 'invalid free in plant'
// RUN: env KFENCE_OPTIONS=sample_rate=1 LD_PRELOAD=%klto_libdir/libkfence.so \
// RUN:   %timeout %t.plain toggle > %t.out 2> %t.err
// RUN: FileCheck %s < %t.out
// RUN: grep 'BUG: KFENCE' %t.err | not grep -v 'invalid free in plant'
#include "stress.h"
#include <pthread.h>

#define PLANTERS 4
/* Reports are about 450 bytes of stderr each: enough for the long form. */
#define MAX_PLANTED 20000

static int unregister;
static atomic_ulong planted, calls, wrong_kind, torn, sets, ops, bad;
static atomic_int done;

static void callback(const struct kfence_bug *bug, void *arg) {
  (void)arg;
  calls++;
  if (bug->kind != KFENCE_BUG_INVALID_FREE)
    wrong_kind++;
  /* The text is whole: it starts and ends with the kernel's rule. */
  const char *rule = "==================================================================";
  size_t len = strlen(bug->text), rlen = strlen(rule);
  if (strncmp(bug->text, rule, rlen) || len < rlen + 1 ||
      !strstr(bug->text + len - rlen - 1, rule))
    torn++;
  if (unregister)
    stress_kf.set_report_callback(NULL, NULL);
}

__attribute__((noinline)) static void plant(void) {
  char *p = malloc(40);
  if (stress_guarded(p) && planted < MAX_PLANTED) {
    planted++;
    free(p + 1);
  }
  free(p);
}

static void *planter(void *arg) {
  uint64_t x = stress_seed((uintptr_t)arg);
  while (stress_running()) {
    for (int k = 0; k < 32; k++) {
      size_t n = 16 + stress_rand(&x) % 2000;
      unsigned char *p = malloc(n);
      stress_fill(p, n, (uint32_t)k);
      if (!stress_check(p, n, (uint32_t)k))
        bad++;
      free(p);
      ops++;
    }
    plant();
  }
  return NULL;
}

static void *setter(void *arg) {
  (void)arg;
  while (!done) {
    stress_kf.set_report_callback(callback, NULL);
    sets++;
    struct timespec ts = {0, 200000};
    nanosleep(&ts, NULL);
    if (!unregister)
      stress_kf.set_report_callback(NULL, NULL);
    nanosleep(&ts, NULL);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  unregister = !strcmp(argv[1], "unregister");
  stress_find_kfence();
  if (!stress_kf.present)
    return stress_summary("reports", 0, "no KFENCE");
  stress_start();
  pthread_t set, t[PLANTERS];
  pthread_create(&set, NULL, setter, NULL);
  for (long i = 0; i < PLANTERS; i++)
    pthread_create(&t[i], NULL, planter, (void *)i);
  for (int i = 0; i < PLANTERS; i++)
    pthread_join(t[i], NULL);
  done = 1;
  pthread_join(set, NULL);
  struct kfence_stats s = stress_stats();
  int ok = !bad && planted && s.bugs == planted && calls <= planted &&
           calls && !wrong_kind && !torn;
  return stress_summary(unregister ? "reports-unregister" : "reports", ok,
                        "ops=%lu planted=%lu callback_sets=%lu callback_calls=%lu "
                        "wrong_kind=%lu torn=%lu bad=%lu",
                        (unsigned long)ops, (unsigned long)planted,
                        (unsigned long)sets, (unsigned long)calls,
                        (unsigned long)wrong_kind, (unsigned long)torn,
                        (unsigned long)bad);
}
// CHECK: stress reports{{(-unregister)?}} [{{.*}}]: ops={{[1-9][0-9]*}} planted=[[N:[1-9][0-9]*]] callback_sets={{[1-9][0-9]*}} callback_calls={{[1-9][0-9]*}} wrong_kind=0 torn=0 bad=0 kfence=yes guarded={{[1-9][0-9]*}} reports=[[N]] {{.*}} result=ok
