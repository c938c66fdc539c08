// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * Which allocation stacks already hold a guarded object, as Linux 5.18+'s
 * KFENCE keeps it (mm/kfence/core.c, "alloc_covered"): a counting Bloom
 * filter of allocation-stack hashes, incremented when an object is
 * allocated and decremented when it is freed. When the pool is more than
 * skip_covered_thresh percent full, a sampled allocation whose stack is
 * already covered is skipped, so that one hot site with long-lived objects
 * cannot fill the pool and the remaining slots go to sites not yet seen.
 *
 * False positives (a stack taken for covered) only skip a sample; there
 * are no false negatives. The counters are atomic and need no lock: the
 * filter is a heuristic read before the pool lock is taken.
 */
#define _GNU_SOURCE
#include "kfence_internal.h"

#include <sys/mman.h>

/* Linux's sizes: two hash functions over 4 counters per pool object. */
#define COVERED_HASHES 2
#define COVERED_STACK_DEPTH 8

static atomic_int *covered;
static unsigned covered_order;

bool kfence_covered_init(size_t num_objects) {
  covered_order = 2;
  while ((1ul << covered_order) < num_objects * 4)
    covered_order++;
  void *p = mmap(NULL, sizeof(atomic_int) << covered_order,
                 PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return false;
  covered = p;
  return true;
}

/* Knuth's multiplicative hash, to the filter's width: Linux's hash_32. */
static uint32_t next_index(uint32_t h) {
  return (h * 0x61C88647u) >> (32 - covered_order);
}

uint32_t kfence_stack_hash(const struct kfence_track *t) {
  /* FNV-1a over the innermost frames: the site and its nearest callers. */
  uint64_t h = 0xcbf29ce484222325ull;
  for (int i = 0; i < t->nr_frames && i < COVERED_STACK_DEPTH; i++) {
    h ^= t->frames[i];
    h *= 0x100000001b3ull;
  }
  return (uint32_t)(h ^ (h >> 32));
}

void kfence_covered_add(uint32_t hash, int delta) {
  uint32_t mask = (1u << covered_order) - 1;
  for (int i = 0; i < COVERED_HASHES; i++) {
    atomic_fetch_add_explicit(&covered[hash & mask], delta,
                              memory_order_relaxed);
    hash = next_index(hash);
  }
}

bool kfence_covered_contains(uint32_t hash) {
  uint32_t mask = (1u << covered_order) - 1;
  for (int i = 0; i < COVERED_HASHES; i++) {
    if (atomic_load_explicit(&covered[hash & mask], memory_order_relaxed) <= 0)
      return false;
    hash = next_index(hash);
  }
  return true;
}
