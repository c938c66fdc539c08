// dlopen()/dlclose() cycles of a library built with the plugin while other
// threads allocate and free. One thread loads the library (RTLD_LOCAL),
// has it allocate patterned blocks, unloads it and leaves the blocks to
// the churning threads, which free them after the library is gone, through
// a second plugin-built library that stays loaded (and with free() itself
// in a program built with the plugin). Now and then the cycling thread
// plants a use-after-free of the cycled library's object, the others
// waiting (stress_plant_lock): each is reported, once. At the end the process holds at most one pool's
// mappings more than after the first cycle, and the SIGSEGV handler is in
// a loaded module. From a plain program, a plugin-built one, and a plain
// one under LD_PRELOAD=libkfence.so.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -g -O1 -fPIC -shared -fplugin=%plugin -fplugin-arg-klto-kfence \
// RUN:   -I%kfence_include -I%S/Inputs --ld-path=%stock_ld -DLIB %s -o %t/cycled.so
// RUN: cp %t/cycled.so %t/kept.so
// RUN: %clang -g -O1 -I%kfence_include -I%S/Inputs %s -lpthread -ldl -o %t/plain
// RUN: %clang -g -O1 -fplugin=%plugin -fplugin-arg-klto-kfence -I%kfence_include \
// RUN:   -I%S/Inputs --ld-path=%stock_ld %s -lpthread -DKLTO -o %t/klto
// RUN: env KFENCE_OPTIONS=sample_rate=1 %timeout %t/plain %t \
// RUN:   %klto_libdir/libkfence-hooks.so > %t/out.plain 2> %t/err.plain
// RUN: FileCheck %s < %t/out.plain
// RUN: grep 'BUG: KFENCE' %t/err.plain | not grep -v 'use-after-free read in plant'
// RUN: env KFENCE_OPTIONS=sample_rate=1 %timeout %t/klto %t \
// RUN:   %klto_libdir/libkfence-hooks.so > %t/out.klto 2> %t/err.klto
// RUN: FileCheck %s < %t/out.klto
// RUN: grep 'BUG: KFENCE' %t/err.klto | not grep -v 'use-after-free read in plant'
// RUN: env KFENCE_OPTIONS=sample_rate=1 LD_PRELOAD=%klto_libdir/libkfence.so \
// RUN:   %timeout %t/plain %t %klto_libdir/libkfence-hooks.so > %t/out.preload 2> %t/err.preload
// RUN: FileCheck %s < %t/out.preload
// RUN: grep 'BUG: KFENCE' %t/err.preload | not grep -v 'use-after-free read in plant'
#ifdef LIB
#include <stdlib.h>
void *lib_alloc(size_t n) { return malloc(n); }
void lib_release(void *p) { free(p); }
#else
#include "stress.h"
#include <pthread.h>
#include <signal.h>

struct lib {
  void *handle;
  void *(*alloc)(size_t);
  void (*release)(void *);
};

static struct lib load(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  struct lib l;
  l.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!l.handle) {
    printf("dlopen: %s\n", dlerror());
    exit(1);
  }
  *(void **)&l.alloc = dlsym(l.handle, "lib_alloc");
  *(void **)&l.release = dlsym(l.handle, "lib_release");
  return l;
}

static long mappings(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  long lines = 0;
  for (int c; (c = fgetc(f)) != EOF;)
    lines += c == '\n';
  fclose(f);
  return lines;
}

/* Few: the pool never fills (a full pool hands a freed slot out at once,
 * stress_plant_lock or not). */
#define MAILBOXES 32
static _Atomic(unsigned char *) mailbox[MAILBOXES];
static struct lib kept;
static atomic_ulong ops, bad;
static atomic_int done;

/* Blocks are 64 bytes and more, tagged with their size and seed. */
static void drop(unsigned char *p, uint64_t *x) {
  if (!stress_check_tagged(p))
    bad++;
#ifdef KLTO
  if (stress_rand(x) & 1) {
    free(p);
    return;
  }
#else
  (void)x;
#endif
  kept.release(p);
}

static void *churner(void *arg) {
  uint64_t x = stress_seed((uintptr_t)arg);
  while (!done) {
    pthread_rwlock_rdlock(&stress_plant_lock);
    unsigned char *p = atomic_exchange(&mailbox[stress_rand(&x) % MAILBOXES], NULL);
    if (p)
      drop(p, &x);
    size_t n = 64 + stress_rand(&x) % 2000;
    unsigned char *q = kept.alloc(n);
    stress_fill_tagged(q, n, (uint32_t)stress_rand(&x));
    if ((p = atomic_exchange(&mailbox[stress_rand(&x) % MAILBOXES], q)))
      drop(p, &x);
    ops++;
    pthread_rwlock_unlock(&stress_plant_lock);
  }
  return NULL;
}

/* The cycled library's guarded object, freed there, read here after the
 * library is gone. 1: reported; 0: not; -1: nothing guarded. */
__attribute__((noinline)) static int plant(const char *dir) {
  struct lib l = load(dir, "cycled.so");
  char *p = NULL;
  for (double end = stress_now() + 1; !p && stress_now() < end;) {
    p = l.alloc(48);
    if (!stress_guarded(p)) {
      l.release(p);
      p = NULL;
    }
  }
  if (p)
    l.release(p);
  dlclose(l.handle);
  if (!p)
    return -1;
  unsigned long before = stress_stats().bugs;
  volatile char c = p[3];
  (void)c;
  return stress_stats().bugs == before + 1;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  const char *dir = argv[1];
  unsigned long cycles = 0, planted = 0, reported = 0, unguarded = 0;
  kept = load(dir, "kept.so");
  /* A plain program sees the runtime its libraries loaded once it is
   * global; in the other builds it already is. */
  dlopen(argv[2], RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
  stress_find_kfence();
  struct lib l = load(dir, "cycled.so");
  l.release(l.alloc(16));
  dlclose(l.handle);
  long maps = mappings();
  stress_start();

  pthread_t t[4];
  for (long i = 0; i < 4; i++)
    pthread_create(&t[i], NULL, churner, (void *)i);
  uint64_t x = stress_seed(99);
  while (stress_running()) {
    l = load(dir, "cycled.so");
    for (int k = 0; k < 16; k++) {
      size_t n = 64 + stress_rand(&x) % 2000;
      unsigned char *p = l.alloc(n);
      stress_fill_tagged(p, n, (uint32_t)stress_rand(&x));
      if ((p = atomic_exchange(&mailbox[stress_rand(&x) % MAILBOXES], p))) {
        if (!stress_check_tagged(p))
          bad++;
        l.release(p);
      }
    }
    dlclose(l.handle);
    /* A planted use-after-free retires its slot: 16 of the pool's 255. */
    if (cycles++ % 64 == 0 && planted < 16 && stress_kf.present) {
      pthread_rwlock_wrlock(&stress_plant_lock);
      int r = plant(dir);
      pthread_rwlock_unlock(&stress_plant_lock);
      planted += r >= 0;
      reported += r == 1;
      unguarded += r < 0;
    }
  }
  done = 1;
  for (int i = 0; i < 4; i++)
    pthread_join(t[i], NULL);
  for (int i = 0; i < MAILBOXES; i++)
    if (mailbox[i])
      drop(mailbox[i], &x);
  long grown = mappings() - maps;

  struct sigaction now;
  Dl_info info;
  sigaction(SIGSEGV, NULL, &now);
  /* SIG_DFL: what libkfence.so's sigaction() tells a program that set
   * none. */
  int handler_mapped = !stress_kf.present || now.sa_handler == SIG_DFL ||
                       dladdr((void *)now.sa_sigaction, &info) != 0;
  struct kfence_stats s = stress_stats();
  /* One pool is (num_objects + 1) * 2 = 512 mappings, taken as its slots
   * are first used; the threads' arenas take a few. */
  int ok = !bad && planted == reported && !unguarded && s.bugs == reported &&
           handler_mapped && grown <= 512 + 64 && (!stress_kf.present || planted);
#ifdef KLTO
  const char *program = "plugin";
#else
  const char *program = "plain";
#endif
  return stress_summary("dlopen", ok,
                        "program=%s cycles=%lu ops=%lu planted=%lu reported=%lu "
                        "unguarded=%lu mappings_grown=%ld handler_mapped=%d bad=%lu",
                        program, cycles, (unsigned long)ops, planted, reported,
                        unguarded, grown, handler_mapped, (unsigned long)bad);
}
#endif
// CHECK: stress dlopen [{{.*}}]: program={{plain|plugin}} cycles={{[1-9][0-9]*}} ops={{[1-9][0-9]*}} planted=[[N:[1-9][0-9]*]] reported=[[N]] unguarded=0 mappings_grown={{-?[0-9]+}} handler_mapped=1 bad=0 kfence=yes guarded={{[1-9][0-9]*}} reports=[[N]] {{.*}} result=ok
