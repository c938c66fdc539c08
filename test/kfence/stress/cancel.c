// Thread cancellation: the main thread keeps four workers running and
// cancels one at a random moment, again and again, then starts another.
// Workers use deferred cancellation: they allocate, resize and free
// patterned blocks and pass cancellation points (pthread_testcancel,
// write, nanosleep) between operations; they fill and check blocks with
// asynchronous cancellation enabled, code that calls nothing. A cleanup
// handler checks and frees what the worker held, while it unwinds. Nothing
// may be reported, no block damaged, and the run ends on time. `report`
// (cancel-report.test): workers also plant invalid frees, so that they are
// cancelled inside KFENCE's reports (write() is a cancellation point), and
// every report must still come out whole, and the run end.
// RUN: %clang -g -O1 -fplugin=%plugin -fplugin-arg-klto-kfence \
// RUN:   -I%kfence_include -I%S/Inputs --ld-path=%stock_ld %s -lpthread -o %t.klto
// RUN: %clang -g -O1 -I%kfence_include -I%S/Inputs %s -lpthread -ldl -o %t.plain
// RUN: env KFENCE_OPTIONS=sample_rate=1 %timeout %t.klto alloc 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='BUG: KFENCE'
// RUN: env KFENCE_OPTIONS=sample_rate=1 LD_PRELOAD=%klto_libdir/libkfence.so \
// RUN:   %timeout %t.plain alloc 2>&1 | FileCheck %s --implicit-check-not='BUG: KFENCE'
#include "stress.h"
#include <pthread.h>

#define WORKERS 4
#define HELD 16
/* Reports are about 450 bytes of stderr each: enough for the long form. */
#define MAX_PLANTED 20000

static int plant_reports;
static int devnull;
static atomic_ulong ops, bad, planted;

struct held {
  unsigned char *p[HELD];
  size_t n[HELD];
  uint32_t seed;
  /* The block being filled when asynchronous cancellation may strike: its
   * pattern may be half written. */
  volatile int filling;
};

static void cleanup(void *arg) {
  struct held *h = arg;
  for (int i = 0; i < HELD; i++) {
    if (!h->p[i])
      continue;
    if (i != h->filling && !stress_check(h->p[i], h->n[i], h->seed + (uint32_t)i))
      bad++;
    free(h->p[i]);
    h->p[i] = NULL;
  }
}

/* Fill a block with asynchronous cancellation on: no calls in between. */
static void fill_async(struct held *h, int i) {
  int old;
  h->filling = i;
  pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old);
  unsigned char *c = h->p[i];
  for (size_t k = 0; k < h->n[i]; k++)
    c[k] = stress_byte(h->seed + (uint32_t)i, k);
  pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &old);
  h->filling = -1;
}

/* A guarded object freed at the wrong address: reported, then freed. */
__attribute__((noinline)) static void plant_invalid_free(void) {
  char *p = malloc(48);
  if (stress_guarded(p) && planted < MAX_PLANTED) {
    planted++;
    free(p + 1);
  }
  free(p);
}

static void *worker(void *arg) {
  struct held h;
  memset(&h, 0, sizeof(h));
  h.filling = -1;
  uint64_t x = stress_seed((uintptr_t)arg);
  h.seed = (uint32_t)stress_rand(&x);
  pthread_cleanup_push(cleanup, &h);
  for (;;) {
    int i = (int)(stress_rand(&x) % HELD);
    /* Not a cancellation point from here to fill_async(). */
    if (h.p[i] && !stress_check(h.p[i], h.n[i], h.seed + (uint32_t)i))
      bad++;
    size_t n = 16 + stress_rand(&x) % 3000;
    switch (stress_rand(&x) % 3) {
    case 0:
      free(h.p[i]);
      h.p[i] = malloc(n);
      break;
    case 1:
      h.p[i] = realloc(h.p[i], n);
      break;
    default:
      free(h.p[i]);
      h.p[i] = calloc(1, n);
    }
    h.n[i] = n;
    fill_async(&h, i);
    ops++;
    if (plant_reports && stress_rand(&x) % 16 == 0)
      plant_invalid_free();
    switch (stress_rand(&x) % 4) {
    case 0: {
      ssize_t w = write(devnull, "x", 1);
      (void)w;
      break;
    }
    case 1: {
      struct timespec ts = {0, 0};
      nanosleep(&ts, NULL);
      break;
    }
    default:
      pthread_testcancel();
    }
  }
  pthread_cleanup_pop(1);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  plant_reports = !strcmp(argv[1], "report");
  devnull = open("/dev/null", O_WRONLY);
  stress_find_kfence();
  stress_start();
  pthread_t t[WORKERS];
  unsigned long cancels = 0, not_cancelled = 0;
  uint64_t x = stress_seed(1000);
  for (long i = 0; i < WORKERS; i++)
    pthread_create(&t[i], NULL, worker, (void *)i);
  while (stress_running()) {
    int i = (int)(stress_rand(&x) % WORKERS);
    struct timespec ts = {0, (long)(stress_rand(&x) % 200000)};
    nanosleep(&ts, NULL);
    pthread_cancel(t[i]);
    void *ret;
    pthread_join(t[i], &ret);
    cancels++;
    not_cancelled += ret != PTHREAD_CANCELED;
    pthread_create(&t[i], NULL, worker, (void *)(cancels + WORKERS));
  }
  for (int i = 0; i < WORKERS; i++) {
    pthread_cancel(t[i]);
    pthread_join(t[i], NULL);
  }
  struct kfence_stats s = stress_stats();
  /* In `report`, every planted invalid free is reported, once: the
   * worker may be cancelled inside the report, but only after counting. */
  int ok = !bad && !not_cancelled && cancels &&
           s.bugs == (plant_reports ? planted : 0);
  return stress_summary(plant_reports ? "cancel-report" : "cancel", ok,
                        "cancels=%lu ops=%lu planted=%lu not_cancelled=%lu bad=%lu",
                        cancels, (unsigned long)ops, (unsigned long)planted,
                        not_cancelled, (unsigned long)bad);
}
// CHECK: stress cancel{{(-report)?}} [{{.*}}]: cancels={{[1-9][0-9]*}} ops={{[1-9][0-9]*}} planted=[[N:[0-9]+]] not_cancelled=0 bad=0 kfence=yes guarded={{[1-9][0-9]*}} reports=[[N]] {{.*}} result=ok
