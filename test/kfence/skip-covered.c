// skip_covered_thresh (Linux 5.18+): once the pool is mostly in use, a
// sampled allocation whose stack already holds a guarded object is
// skipped. A hot site with long-lived objects then no longer fills the
// pool, and the sites after it get guarded objects too.
// RUN: %clang -g -O0 %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: env KFENCE_OPTIONS=sample_rate=1:num_objects=16 %t | FileCheck %s --check-prefix=DEFAULT
// RUN: env KFENCE_OPTIONS=sample_rate=1:num_objects=16:skip_covered_thresh=100 %t | FileCheck %s --check-prefix=NEVER
// RUN: env KFENCE_OPTIONS=sample_rate=1:num_objects=16:skip_covered_thresh=0 %t | FileCheck %s --check-prefix=ALWAYS
#include "redirect.h"
#include <stdio.h>

__attribute__((noinline)) static void *hot_site(void) { return malloc(64); }

#define COLD_SITE(n)                                                           \
  __attribute__((noinline)) static void *cold_site_##n(void) { return malloc(64); }
COLD_SITE(0) COLD_SITE(1) COLD_SITE(2) COLD_SITE(3) COLD_SITE(4)
COLD_SITE(5) COLD_SITE(6) COLD_SITE(7) COLD_SITE(8) COLD_SITE(9)

int main(void) {
  void *(*const cold[])(void) = {cold_site_0, cold_site_1, cold_site_2,
                                 cold_site_3, cold_site_4, cold_site_5,
                                 cold_site_6, cold_site_7, cold_site_8,
                                 cold_site_9};
  int hot_guarded = 0, cold_guarded = 0;
  for (int i = 0; i < 100; i++)
    hot_guarded += is_kfence_address(hot_site());
  for (int i = 0; i < 10; i++)
    cold_guarded += is_kfence_address(cold[i]());
  struct kfence_stats s;
  kfence_get_stats(&s);
  printf("hot guarded: %d, cold sites guarded: %d, skipped as covered: %lu\n",
         hot_guarded, cold_guarded, s.skipped_covered);
  return 0;
}
// 16 objects at 75%: skipping starts once more than 12 are in use, so the
// hot site gets 13 and the cold sites the other 3. At 0% it starts after
// the first object: the hot site gets one, the cold sites one each. The
// filter may take a cold site for covered (a Bloom filter's false
// positive, which depends on the addresses): such a site is skipped, so
// cold counts are ranges.
// DEFAULT: hot guarded: 13, cold sites guarded: {{[1-3]}}, skipped as covered: {{[0-9]+}}
// NEVER: hot guarded: 16, cold sites guarded: 0, skipped as covered: 0
// ALWAYS: hot guarded: 1, cold sites guarded: {{[5-9]|10}}, skipped as covered: {{[0-9]+}}
