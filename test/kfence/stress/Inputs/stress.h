/* Shared by the stressors of test/kfence/stress/: how long to run, a
 * per-thread PRNG, the pattern every block carries between its allocation
 * and its free, KFENCE's API found at run time, and the one-line summary.
 *
 * One program serves every build: built with the klto plugin (the runtime
 * is libkfence-hooks.so), plain under LD_PRELOAD=libkfence.so, plain under
 * another allocator (scudo) or none. The KFENCE API is looked up with
 * dlsym(RTLD_DEFAULT), so a plain build needs no KFENCE library to link;
 * where it is missing the summary says kfence=no and guarded=-1.
 *
 * Environment: STRESS_DURATION (seconds, default 2: the short form that
 * `check` runs; lit.local.cfg sets it from --param stress_duration) and
 * STRESS_SUMMARY (a file the summary line is appended to as well, for the
 * long-form driver, bench/kfence/stress/run.sh).
 */
#ifndef KFENCE_STRESS_H
#define KFENCE_STRESS_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <kfence.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- time --------------------------------------------------------------- */

static inline double stress_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds to run: STRESS_DURATION, else 2. */
static inline double stress_duration(void) {
  const char *s = getenv("STRESS_DURATION");
  double d = s ? atof(s) : 0;
  return d > 0 ? d : 2;
}

static double stress_deadline_;

static inline void stress_start(void) {
  stress_deadline_ = stress_now() + stress_duration();
}

static inline int stress_running(void) {
  return stress_now() < stress_deadline_;
}

/* ---- numbers ------------------------------------------------------------ */

static inline uint64_t stress_rand(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

static inline uint64_t stress_seed(uint64_t salt) {
  uint64_t x = ((uint64_t)getpid() << 32) ^ (uint64_t)stress_now() ^
               (salt + 1) * 0x9e3779b97f4a7c15ull;
  return x ? x : 1;
}

/* Where a block goes that nothing reads, so that the compiler keeps its
 * malloc and free (it may drop a pair whose memory does not escape). */
static void *volatile stress_sink;

static inline void stress_malloc_free(size_t n) {
  stress_sink = malloc(n);
  free(stress_sink);
}

/* ---- block contents ------------------------------------------------------ */

/*
 * A block is filled from a seed; stress_check() tells whether all of it is
 * still what was written. Blocks of 16 bytes or more carry their own size
 * and seed in their first 16 bytes, so any thread can check one it did not
 * allocate (stress_check_tagged()).
 */
static inline unsigned char stress_byte(uint32_t seed, size_t k) {
  return (unsigned char)(seed + k * 131 + (k >> 8));
}

static inline void stress_fill(void *p, size_t n, uint32_t seed) {
  unsigned char *c = (unsigned char *)p;
  for (size_t k = 0; k < n; k++)
    c[k] = stress_byte(seed, k);
}

static inline int stress_check(const void *p, size_t n, uint32_t seed) {
  const unsigned char *c = (const unsigned char *)p;
  for (size_t k = 0; k < n; k++)
    if (c[k] != stress_byte(seed, k))
      return 0;
  return 1;
}

struct stress_tag {
  uint64_t size;
  uint32_t seed;
  uint32_t check; /* ~seed: a tag that is not one reads as damaged */
};

static inline void stress_fill_tagged(void *p, size_t n, uint32_t seed) {
  struct stress_tag t = {n, seed, ~seed};
  memcpy(p, &t, sizeof(t));
  stress_fill((char *)p + sizeof(t), n - sizeof(t), seed);
}

/* The block's size if its tag and contents are intact, 0 otherwise. */
static inline size_t stress_check_tagged(const void *p) {
  struct stress_tag t;
  memcpy(&t, p, sizeof(t));
  if (t.check != ~t.seed || t.size < sizeof(t) || t.size > (1u << 30))
    return 0;
  return stress_check((const char *)p + sizeof(t), t.size - sizeof(t), t.seed)
             ? t.size
             : 0;
}

/* ---- KFENCE, found at run time ---------------------------------------------- */

struct stress_kfence {
  int present;
  void (*get_stats)(struct kfence_stats *);
  void (*set_report_callback)(kfence_report_fn, void *);
  char **pool;
  size_t *pool_size;
};
static struct stress_kfence stress_kf;

static inline void stress_find_kfence(void) {
  *(void **)&stress_kf.get_stats = dlsym(RTLD_DEFAULT, "kfence_get_stats");
  *(void **)&stress_kf.set_report_callback =
      dlsym(RTLD_DEFAULT, "kfence_set_report_callback");
  stress_kf.pool = (char **)dlsym(RTLD_DEFAULT, "__kfence_pool");
  stress_kf.pool_size = (size_t *)dlsym(RTLD_DEFAULT, "__kfence_pool_size");
  stress_kf.present = stress_kf.get_stats && stress_kf.pool &&
                      stress_kf.pool_size && stress_kf.set_report_callback;
}

static inline int stress_guarded(const void *p) {
  return stress_kf.present &&
         (uintptr_t)p - (uintptr_t)*stress_kf.pool < *stress_kf.pool_size;
}

static inline struct kfence_stats stress_stats(void) {
  struct kfence_stats s;
  memset(&s, 0, sizeof(s));
  if (stress_kf.present)
    stress_kf.get_stats(&s);
  return s;
}

/*
 * A planted use-after-free is seen only if its object's slot is not handed
 * out again between the free and the read; threads allocating at
 * sample_rate=1 go through the whole pool in milliseconds, about as long
 * as a loaded machine may leave the planting thread off the CPU. Threads
 * that allocate while others plant hold this lock shared around their
 * work, a planting thread holds it exclusively. Writers first: readers
 * that take it again at once would starve it.
 */
static pthread_rwlock_t stress_plant_lock =
    PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;

/*
 * A planted use-after-free: allocate until an object is guarded (for at
 * most a second; sample_interval=1 guards one a millisecond), free it and
 * read it. Returns 1 if KFENCE counted a report meanwhile (with other
 * threads planting, theirs count too: check the total), 0 if not, -1 if
 * nothing was guarded in time. noinline: reports name this function.
 */
__attribute__((noinline)) static int stress_plant_uaf(void) {
  if (!stress_kf.present)
    return -1;
  double end = stress_now() + 1;
  char *p = NULL;
  while (stress_now() < end) {
    p = (char *)malloc(48);
    if (stress_guarded(p))
      break;
    free(p);
    p = NULL;
  }
  if (!p)
    return -1;
  unsigned long before = stress_stats().bugs;
  free(p);
  volatile char c = p[5];
  (void)c;
  return stress_stats().bugs > before;
}

/* ---- the summary line ---------------------------------------------------- */

/*
 * One line, `stress NAME [SETUP]: k=v ... result=ok|FAIL`, on stdout and,
 * if STRESS_SUMMARY names a file, appended there in one write(). SETUP is
 * what the line cannot tell otherwise: KFENCE_OPTIONS and the preloaded
 * libraries' base names. Returns the exit status: 0 if @ok.
 */
__attribute__((format(printf, 3, 4))) static inline int
stress_summary(const char *name, int ok, const char *fmt, ...) {
  char line[1024], setup[512] = "", body[640];
  const char *opts = getenv("KFENCE_OPTIONS");
  const char *pre = getenv("LD_PRELOAD");
  const char *scudo = getenv("SCUDO_OPTIONS");
  size_t len = 0;
  if (opts)
    len += (size_t)snprintf(setup + len, sizeof(setup) - len, " %s", opts);
  /* Each preloaded library by its base name. */
  for (const char *s = pre; s && *s && len < sizeof(setup);) {
    size_t n = strcspn(s, ": "), base = n;
    while (base && s[base - 1] != '/')
      base--;
    if (n)
      len += (size_t)snprintf(setup + len, sizeof(setup) - len, " preload=%.*s",
                              (int)(n - base), s + base);
    s += n + (s[n] != 0);
  }
  if (scudo && len < sizeof(setup))
    snprintf(setup + len, sizeof(setup) - len, " %s", scudo);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(body, sizeof(body), fmt, ap);
  va_end(ap);
  struct kfence_stats s = stress_stats();
  snprintf(line, sizeof(line),
           "stress %s [%s]: %s kfence=%s guarded=%ld reports=%ld "
           "duration=%gs result=%s\n",
           name, setup[0] ? setup + 1 : "", body,
           stress_kf.present ? "yes" : "no",
           stress_kf.present ? (long)s.allocs : -1L,
           stress_kf.present ? (long)s.bugs : -1L, stress_duration(),
           ok ? "ok" : "FAIL");
  fputs(line, stdout);
  fflush(stdout);
  const char *file = getenv("STRESS_SUMMARY");
  if (file) {
    int fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ssize_t w = write(fd, line, strlen(line));
      (void)w;
      close(fd);
    }
  }
  return ok ? 0 : 1;
}

#endif
