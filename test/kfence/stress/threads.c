// Threads churn every allocation function of kfence_malloc.def for
// STRESS_DURATION seconds and hand their blocks to each other through
// shared mailboxes: a block is allocated in one thread, checked, resized
// or freed in another. Every block carries a pattern from its allocation
// to its free (realloc keeps the common prefix), calloc's are zero,
// aligned ones aligned, malloc_usable_size covers the size. Nothing may be
// reported. Both builds: the plugin's (libkfence-hooks.so) and a plain
// build under LD_PRELOAD=libkfence.so; pool full (num_objects=8), every
// allocation sampled, and the interval trigger.
// RUN: %clang -g -O2 -Werror=switch -fplugin=%plugin -fplugin-arg-klto-kfence \
// RUN:   -I%kfence_include -I%S/Inputs --ld-path=%stock_ld %s -lpthread -o %t.klto
// RUN: %clang -g -O2 -Werror=switch -I%kfence_include -I%S/Inputs %s -lpthread -ldl -o %t.plain
// RUN: env KFENCE_OPTIONS=sample_rate=1 %timeout %t.klto 16 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='BUG: KFENCE'
// RUN: env KFENCE_OPTIONS=sample_rate=1:num_objects=8 %timeout %t.klto 32 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='BUG: KFENCE'
// RUN: env KFENCE_OPTIONS=sample_interval=1 %timeout %t.klto 8 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='BUG: KFENCE'
// RUN: env KFENCE_OPTIONS=sample_rate=1 LD_PRELOAD=%klto_libdir/libkfence.so \
// RUN:   %timeout %t.plain 16 2>&1 | FileCheck %s --implicit-check-not='BUG: KFENCE'
// RUN: env KFENCE_OPTIONS=sample_rate=3:num_objects=8 LD_PRELOAD=%klto_libdir/libkfence.so \
// RUN:   %timeout %t.plain 32 2>&1 | FileCheck %s --implicit-check-not='BUG: KFENCE'
#include "stress.h"
#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>

/* One operation per function of the malloc family: a function added to
 * kfence_malloc.def breaks the build (-Werror=switch) until it is here. */
enum op {
#define KFENCE_ALLOC(ret, name, params, args) OP_##name,
#define KFENCE_FREE(name, params, args) OP_##name,
#include <kfence_malloc.def>
  OP_COUNT
};
static const char *const op_name[] = {
#define KFENCE_ALLOC(ret, name, params, args) #name,
#define KFENCE_FREE(name, params, args) #name,
#include <kfence_malloc.def>
};
/* Functions left out (argv[2], comma-separated): an allocator in front of
 * the C library that lacks one (jemalloc has no pvalloc or reallocarray)
 * leaves the C library's, which must not see its blocks. */
static bool skipped[OP_COUNT];

#define MAILBOXES 1024
static _Atomic(void *) mailbox[MAILBOXES];
static atomic_ulong ops, bad, guarded_seen;
static size_t page;

#define FAIL(what)                                                             \
  do {                                                                         \
    if (atomic_fetch_add(&bad, 1) < 10)                                        \
      fprintf(stderr, "FAILED line %d: %s\n", __LINE__, what);                \
  } while (0)

/* Mostly sizes KFENCE can guard; one in 16 above a page, which it cannot. */
static size_t pick_size(uint64_t *x) {
  uint64_t r = stress_rand(x);
  if (r % 16 == 0)
    return page + 1 + (r >> 8) % (16 * page);
  return 16 + (r >> 8) % (page - 15);
}

/* 16 .. a page, one in 32 twice a page. */
static size_t pick_align(uint64_t *x) {
  uint64_t r = stress_rand(x);
  if (r % 32 == 0)
    return 2 * page;
  size_t a = (size_t)16 << (r >> 8) % 9;
  return a > page ? page : a;
}

static void *take(uint64_t *x) {
  return atomic_exchange(&mailbox[stress_rand(x) % MAILBOXES], NULL);
}

static void release(void *p) {
  if (!stress_check_tagged(p))
    FAIL("block damaged before free");
  free(p);
}

/* A new block: tag it and leave it for any thread; free what it displaced. */
static void put(void *p, size_t n, uint64_t *x) {
  if (!p) {
    FAIL("allocation failed");
    return;
  }
  if (stress_guarded(p))
    guarded_seen++;
  stress_fill_tagged(p, n, (uint32_t)stress_rand(x));
  void *old = atomic_exchange(&mailbox[stress_rand(x) % MAILBOXES], p);
  if (old)
    release(old);
}

/* realloc and reallocarray: the old block's prefix must survive. */
static void resized(void *old, size_t old_size, void *p, size_t n,
                    uint64_t *x) {
  struct stress_tag t;
  if (!p) {
    FAIL("resize failed");
    if (old)
      free(old);
    return;
  }
  if (old) {
    memcpy(&t, p, sizeof(t));
    size_t keep = old_size < n ? old_size : n;
    if (!stress_check((char *)p + sizeof(t), keep - sizeof(t), t.seed))
      FAIL("resize lost the contents");
  }
  put(p, n, x);
}

static int aligned(const void *p, size_t align) {
  return p && ((uintptr_t)p & (align - 1)) == 0;
}

static void one_op(uint64_t *x) {
  enum op op = (enum op)(stress_rand(x) % OP_COUNT);
  if (skipped[op])
    return;
  size_t n = pick_size(x), align, old_size;
  void *p, *old;
  switch (op) {
  case OP_malloc:
    if (stress_rand(x) % 64 == 0)
      stress_malloc_free(0);
    put(malloc(n), n, x);
    break;
  case OP_calloc: {
    size_t count = 1 + stress_rand(x) % 8, each = (n + count - 1) / count;
    p = calloc(count, each);
    for (size_t k = 0; p && k < count * each; k++)
      if (((unsigned char *)p)[k]) {
        FAIL("calloc not zeroed");
        break;
      }
    put(p, count * each, x);
    break;
  }
  case OP_realloc:
    old = take(x);
    old_size = old ? stress_check_tagged(old) : 0;
    if (old && !old_size)
      FAIL("block damaged before realloc");
    resized(old, old_size, realloc(old, n), n, x);
    break;
  case OP_reallocarray: {
    size_t each = 1 + stress_rand(x) % 16, count = (n + each - 1) / each;
    old = take(x);
    old_size = old ? stress_check_tagged(old) : 0;
    if (old && !old_size)
      FAIL("block damaged before reallocarray");
    resized(old, old_size, reallocarray(old, count, each), count * each, x);
    break;
  }
  case OP_free:
    if ((p = take(x)))
      release(p);
    break;
  case OP_aligned_alloc:
    align = pick_align(x);
    n = (n + align - 1) & ~(align - 1);
    p = aligned_alloc(align, n);
    if (!aligned(p, align))
      FAIL("aligned_alloc misaligned");
    put(p, n, x);
    break;
  case OP_posix_memalign:
    align = pick_align(x);
    p = NULL;
    if (posix_memalign(&p, align, n) || !aligned(p, align))
      FAIL("posix_memalign");
    put(p, n, x);
    break;
  case OP_memalign:
    align = pick_align(x);
    p = memalign(align, n);
    if (!aligned(p, align))
      FAIL("memalign misaligned");
    put(p, n, x);
    break;
  case OP_valloc:
    p = valloc(n);
    if (!aligned(p, page))
      FAIL("valloc misaligned");
    put(p, n, x);
    break;
  case OP_pvalloc:
    p = pvalloc(n);
    if (!aligned(p, page) || malloc_usable_size(p) < ((n + page - 1) & ~(page - 1)))
      FAIL("pvalloc");
    put(p, n, x);
    break;
  case OP_malloc_usable_size:
    if (!(p = take(x)))
      break;
    if (malloc_usable_size(p) < stress_check_tagged(p))
      FAIL("malloc_usable_size below the size");
    void *displaced = atomic_exchange(&mailbox[stress_rand(x) % MAILBOXES], p);
    if (displaced)
      release(displaced);
    break;
  case OP_COUNT:
    break;
  }
  ops++;
}

static void *worker(void *arg) {
  uint64_t x = stress_seed((uintptr_t)arg);
  while (stress_running())
    for (int i = 0; i < 256; i++)
      one_op(&x);
  return NULL;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 16;
  page = (size_t)sysconf(_SC_PAGESIZE);
  stress_find_kfence();
  stress_start();
  pthread_t t[64];
  if (threads < 1 || threads > 64)
    return 2;
  for (int i = 0; argc > 2 && i < OP_COUNT; i++) {
    size_t len = strlen(op_name[i]);
    for (const char *s = argv[2]; s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
      if (!strncmp(s, op_name[i], len) && (s[len] == ',' || !s[len]))
        skipped[i] = true;
  }
  for (long i = 0; i < threads; i++)
    pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < threads; i++)
    pthread_join(t[i], NULL);
  for (int i = 0; i < MAILBOXES; i++)
    if (mailbox[i])
      release(mailbox[i]);
  struct kfence_stats s = stress_stats();
  /* KFENCE off (preloaded behind another allocator, which it says):
   * nothing guarded is right. */
  int ok = !bad && !s.bugs &&
           (!stress_kf.present || !s.enabled || guarded_seen > 0);
  return stress_summary("threads", ok, "threads=%d ops=%lu seen_guarded=%lu bad=%lu",
                        threads, (unsigned long)ops,
                        (unsigned long)guarded_seen, (unsigned long)bad);
}
// CHECK: stress threads [{{.*}}]: threads={{[0-9]+}} ops={{[0-9]+}} seen_guarded={{[1-9][0-9]*}} bad=0 kfence=yes guarded={{[1-9][0-9]*}} reports=0 {{.*}} result=ok
