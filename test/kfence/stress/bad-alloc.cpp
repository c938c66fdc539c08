// C++ allocation that fails, among allocations that do not: new[] of a
// size no allocator can give (2^40, 2^47, 2^62 and SIZE_MAX / 2 bytes, and
// an element count whose byte size overflows) must throw std::bad_alloc,
// and nothrow new must return NULL, every time, with every allocation
// sampled; between them, patterned arrays are new[]ed and delete[]d. The
// plugin build with its C++ hooks, and a plain build under
// LD_PRELOAD=libkfence.so (the C++ library's operator new calls the
// preloaded malloc).
// RUN: %clangxx -g -O1 -fplugin=%plugin -fplugin-arg-klto-kfence-cxx \
// RUN:   -I%kfence_include -I%S/Inputs --ld-path=%stock_ld %s -o %t.klto
// RUN: %clangxx -g -O1 -I%kfence_include -I%S/Inputs %s -ldl -o %t.plain
// RUN: env KFENCE_OPTIONS=sample_rate=1 %timeout %t.klto 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='BUG: KFENCE'
// RUN: env KFENCE_OPTIONS=sample_rate=1 LD_PRELOAD=%klto_libdir/libkfence.so \
// RUN:   %timeout %t.plain 2>&1 | FileCheck %s --implicit-check-not='BUG: KFENCE'
#include "stress.h"
#include <new>

static const size_t huge[] = {(size_t)1 << 40, (size_t)1 << 47,
                              (size_t)1 << 62, SIZE_MAX / 2};

/* Through a volatile, so that the compiler cannot know the size. */
static volatile size_t count_of_ints = (size_t)1 << 62;
/* Where each array goes, so that the compiler keeps every new and delete
 * (it may drop a pair whose memory does not escape). */
static void *volatile sink;

int main() {
  stress_find_kfence();
  stress_start();
  /* null_returned: a throwing new that returned NULL, which a program
   * that relies on new's contract dereferences (read back from the sink:
   * the compiler takes such a new to return non-NULL). */
  unsigned long attempts = 0, thrown = 0, nulls = 0, null_returned = 0,
                ops = 0, bad = 0;
  uint64_t x = stress_seed(7);
  while (stress_running()) {
    for (size_t n : huge) {
      attempts += 2;
      try {
        char *p = new char[n];
        sink = p;
        null_returned += !sink;
        delete[] p;
      } catch (const std::bad_alloc &) {
        thrown++;
      }
      char *q = new (std::nothrow) char[n];
      sink = q;
      nulls += !q;
      delete[] q;
    }
    attempts++;
    try {
      int *p = new int[count_of_ints];
      sink = p;
      null_returned += !sink;
      delete[] p;
    } catch (const std::bad_alloc &) { /* bad_array_new_length too */
      thrown++;
    }
    for (int k = 0; k < 64; k++) {
      size_t n = 16 + stress_rand(&x) % 4000;
      unsigned char *p = new unsigned char[n];
      stress_fill(p, n, (uint32_t)k);
      sink = p;
      bad += !stress_check(p, n, (uint32_t)k);
      delete[] p;
      ops++;
    }
  }
  int ok = thrown + nulls == attempts && !bad;
  return stress_summary("bad-alloc", ok,
                        "attempts=%lu thrown=%lu nothrow_nulls=%lu "
                        "null_returned=%lu ops=%lu bad=%lu",
                        attempts, thrown, nulls, null_returned, ops, bad);
}
// CHECK: stress bad-alloc [{{.*}}]: attempts={{[1-9][0-9]*}} {{.*}} null_returned=0 ops={{[1-9][0-9]*}} bad=0 kfence=yes guarded={{[1-9][0-9]*}} reports=0 {{.*}} result=ok
