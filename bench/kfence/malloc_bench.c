// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * Allocation microbenchmarks for the KFENCE runtime. Built twice by run.sh:
 * plain (the C library, or whatever LD_PRELOAD puts in front of it) and with
 * built through klto's plugin (-fplugin-arg-klto-kfence), where malloc and
 * free take the runtime's inline fast paths and hooks, or with -DKLTO_HOOKS,
 * where every call goes to the out-of-line __kfence_* hooks.
 *
 *   churn OPS [MS] 1024 live blocks of 16..4096 bytes, OPS malloc+free pairs
 *                  timed after MS ms of the same untimed (default 200)
 *   guarded OPS    malloc(64)+free pairs; with sample_rate=1 each is guarded
 *   uaf WARMUP     WARMUP allocations, then one use-after-free
 *   memory         VmRSS and mapping count now, and with 255 objects live
 *
 * Times are printed in ns per malloc+free pair, measured inside the process
 * so that start-up (and, after churn's warm-up, KFENCE's pool setup) is not
 * part of them.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * run.sh LAYOUTS=K builds K copies of each program whose code starts
 * BENCH_CODE_OFFSET bytes further on. Where loops fall against the
 * processor's instruction-fetch boundaries moves this benchmark by about 1%
 * between two builds of the same code; averaging over layouts keeps that
 * out of the comparison.
 */
#ifdef BENCH_CODE_OFFSET
#define BENCH_STR(x) #x
#define BENCH_XSTR(x) BENCH_STR(x)
__asm__(".text\n.p2align 6\n.skip " BENCH_XSTR(BENCH_CODE_OFFSET) ", 0xcc\n");
#endif

#ifdef KLTO_HOOKS
#include <kfence.h>
#define malloc __kfence_malloc
#define free __kfence_free
#endif

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One step of the churn: free a random live block, allocate a new one. */
static inline void churn_step(void **slot, unsigned live, uint64_t *state) {
  uint64_t x = *state;
  x ^= x << 13, x ^= x >> 7, x ^= x << 17;
  *state = x;
  unsigned s = (unsigned)(x % live);
  free(slot[s]);
  /* 16..4096, log-uniform: small sizes dominate, as in real programs. */
  size_t size = (size_t)16 << ((x >> 16) % 9);
  size += (x >> 32) % size;
  if (size > 4096)
    size = 4096;
  slot[s] = malloc(size);
  *(volatile char *)slot[s] = 1;
}

/*
 * Untimed warm-up first: KFENCE's first interval sample (100 ms after
 * start by default) sets up the pool, a one-time cost of a few
 * milliseconds that is start-up, not throughput; run.sh measures start-up
 * separately, as whole-process CPU time.
 */
static void churn(long ops, long warmup_ms) {
  enum { LIVE = 1024 };
  static void *slot[LIVE];
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < LIVE; i++)
    slot[i] = malloc(16);
  double warmup_end = now() + (double)warmup_ms * 1e-3;
  while (now() < warmup_end)
    for (int i = 0; i < 4096; i++)
      churn_step(slot, LIVE, &x);
  double start = now();
  for (long i = 0; i < ops; i++)
    churn_step(slot, LIVE, &x);
  double t = now() - start;
  for (int i = 0; i < LIVE; i++)
    free(slot[i]);
  printf("churn: %.2f ns per malloc+free (%ld pairs, %.3f s)\n", t * 1e9 / (double)ops,
         ops, t);
}

static void guarded(long ops) {
  double start = now();
  for (long i = 0; i < ops; i++) {
    char *p = malloc(64);
    *(volatile char *)p = 1;
    free(p);
  }
  double t = now() - start;
  printf("guarded: %.0f ns per malloc+free (%ld pairs)\n", t * 1e9 / (double)ops, ops);
}

static void uaf(long warmup) {
  for (long i = 0; i < warmup; i++)
    free(malloc(64));
  char *p = malloc(64);
  free(p);
  volatile char c = p[7];
  (void)c;
}

static void print_memory(const char *when) {
  long rss = -1, maps = 0;
  char line[512];
  FILE *f = fopen("/proc/self/status", "r");
  while (f && fgets(line, sizeof(line), f))
    if (!strncmp(line, "VmRSS:", 6))
      rss = strtol(line + 6, NULL, 10);
  if (f)
    fclose(f);
  f = fopen("/proc/self/maps", "r");
  while (f && fgets(line, sizeof(line), f))
    maps++;
  if (f)
    fclose(f);
  printf("memory %s: VmRSS %ld kB, %ld mappings\n", when, rss, maps);
}

static void memory(void) {
  static void *live[255];
  print_memory("at start");
  for (int i = 0; i < 255; i++)
    live[i] = malloc(64);
  print_memory("with 255 objects live");
  for (int i = 0; i < 255; i++)
    free(live[i]);
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  long n = argc > 2 ? atol(argv[2]) : 0;
  if (!strcmp(argv[1], "churn"))
    churn(n ? n : 5000000, argc > 3 ? atol(argv[3]) : 200);
  else if (!strcmp(argv[1], "guarded"))
    guarded(n ? n : 200000);
  else if (!strcmp(argv[1], "uaf"))
    uaf(n);
  else if (!strcmp(argv[1], "memory"))
    memory();
  else
    return 2;
  return 0;
}
