// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * Which allocations are guarded.
 *
 * The fast path only decrements a per-thread countdown (kfence_sample_hit);
 * everything else happens here, when it reaches zero. Two triggers:
 *  - sample_rate=N (GWP-ASan's model): the gaps between guarded allocations
 *    are drawn uniformly from [1, 2N-1], mean N. A thread's first gap is
 *    drawn from the stationary ("equilibrium") distribution instead, so
 *    that every single allocation, the first ones included, is guarded with
 *    probability exactly 1/N: this is what makes the detection rate of a
 *    one-off bug predictable (bench/kfence/run.sh measures it).
 *  - sample_interval=T ms (KFENCE's model): the first allocation of any
 *    thread that looks at the clock after a global deadline is guarded, and
 *    the deadline moves T ms on. Threads look at the clock (vDSO, no
 *    syscall) about 8 times per interval: the number of allocations between
 *    two looks adapts to the thread's allocation rate. No timer thread: a
 *    second thread would make glibc's malloc take its multi-threaded paths
 *    in single-threaded programs, which costs more than all of KFENCE.
 */
#define _GNU_SOURCE
#include "kfence_internal.h"

#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

__thread uint32_t __kfence_countdown __attribute__((tls_model("initial-exec")));

/* Per-thread sampler state; the countdown was last refilled with budget. */
struct sampler {
  int32_t budget;
  int32_t rate_left;  /* allocations until the rate's sample, this one = 1 */
  int32_t clock_left; /* allocations until this thread's next clock look */
  int32_t since_look; /* allocations since the last clock look */
  uint64_t last_look_ns;
  uint64_t prng;      /* splitmix64 state */
  bool seeded;
  pid_t tid;
};
static __thread struct sampler self __attribute__((tls_model("initial-exec")));
/* From getrandom() at init: differs between processes started together. */
static uint64_t process_seed;
/* CLOCK_MONOTONIC ns after which the interval's next sample is due. */
static _Atomic uint64_t next_sample_ns;

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

pid_t kfence_gettid(void) {
  if (!self.tid)
    self.tid = gettid();
  return self.tid;
}

uint64_t kfence_random(void) {
  if (!self.seeded) {
    self.prng = process_seed ^ ((uint64_t)kfence_gettid() << 32);
    self.seeded = true;
  }
  return splitmix64(&self.prng);
}

/* Uniform in [1, max]; the modulo bias is below 2^-32 for any max we allow. */
static uint32_t random_upto(uint32_t max) {
  return (uint32_t)(kfence_random() % max) + 1;
}

/*
 * The renewal process "allocations between samples ~ U[1, M]" guards each
 * allocation with probability 1/mean only once it is stationary; starting
 * with a delay D where P(D = d) is proportional to P(X >= d) = (M - d + 1)/M
 * makes it stationary from the first allocation on. Draw j = M - d + 1 with
 * P(j) proportional to j by rejection (two tries on average).
 */
static uint32_t first_delay(uint32_t max) {
  for (;;) {
    uint32_t j = random_upto(max);
    if (random_upto(max) <= j)
      return max - j + 1;
  }
}

static uint32_t rate_span(void) {
  /* sample_rate <= 2^30 (options.c): 2N - 1 fits the int32_t counters. */
  return (uint32_t)(2 * kfence_opts.sample_rate - 1);
}

static uint64_t clock_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t interval_ns(void) {
  return (uint64_t)kfence_opts.sample_interval * 1000000u;
}

/*
 * Look at the clock: is the interval's sample due? Also choose how many
 * allocations to let pass before the next look, aiming at interval / 8.
 */
static bool interval_due(void) {
  uint64_t now = clock_ns();
  uint64_t elapsed = self.last_look_ns ? now - self.last_look_ns : 0;
  uint64_t target = interval_ns() / 8;
  uint64_t period = (uint64_t)self.since_look * 2;
  if (elapsed)
    period = (uint64_t)self.since_look * target / elapsed;
  self.clock_left = period < 1 ? 1 : period > 65536 ? 65536 : (int32_t)period;
  self.since_look = 0;
  self.last_look_ns = now;

  uint64_t due = atomic_load_explicit(&next_sample_ns, memory_order_relaxed);
  return now >= due &&
         atomic_compare_exchange_strong_explicit(&next_sample_ns, &due,
                                                 now + interval_ns(),
                                                 memory_order_relaxed,
                                                 memory_order_relaxed);
}

static void refill(void) {
  int32_t budget = INT32_MAX;
  if (kfence_opts.sample_rate && self.rate_left < budget)
    budget = self.rate_left;
  if (kfence_opts.sample_interval && self.clock_left < budget)
    budget = self.clock_left;
  self.budget = budget;
  /* The budget-th decrement from here borrows. */
  __kfence_countdown = (uint32_t)budget - 1;
}

void kfence_sampling_init(void) {
  if (getrandom(&process_seed, sizeof(process_seed), GRND_NONBLOCK) !=
      (ssize_t)sizeof(process_seed)) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    process_seed = (uint64_t)now.tv_nsec ^ ((uint64_t)now.tv_sec << 30) ^
                   ((uint64_t)getpid() << 48);
  }
  next_sample_ns = clock_ns() + interval_ns();
}

unsigned kfence_sample_slow(void) {
  /* Allocations since the last refill, this one included: only a
   * kfence_sample_hit() that borrowed leads here, so the whole budget. */
  int32_t used = self.budget;
  if (used < 1)
    used = 1;
  if (!self.seeded) {
    self.rate_left = kfence_opts.sample_rate ? (int32_t)first_delay(rate_span()) : 0;
    self.clock_left = 1;
  }
  unsigned fired = 0;
  if (kfence_opts.sample_rate) {
    self.rate_left -= used;
    if (self.rate_left <= 0) {
      fired |= KFENCE_SAMPLE_RATE;
      self.rate_left = (int32_t)random_upto(rate_span());
    }
  }
  if (kfence_opts.sample_interval) {
    self.clock_left -= used;
    self.since_look += used;
    if (self.clock_left <= 0 && interval_due())
      fired |= KFENCE_SAMPLE_INTERVAL;
  }
  refill();
  return fired;
}

void kfence_sample_pass_on(unsigned fired) {
  if (fired & KFENCE_SAMPLE_RATE)
    self.rate_left = 1;
  if (fired & KFENCE_SAMPLE_INTERVAL) {
    atomic_store_explicit(&next_sample_ns, 0, memory_order_relaxed);
    self.clock_left = 1;
  }
  refill();
}

/*
 * After fork the child's PRNG and countdown are copies of the parent's: both
 * would guard the same allocations. Draw afresh, as for a new thread.
 */
void kfence_sampling_after_fork_child(void) {
  uint64_t fresh;
  if (getrandom(&fresh, sizeof(fresh), GRND_NONBLOCK) == (ssize_t)sizeof(fresh))
    process_seed ^= fresh;
  process_seed ^= (uint64_t)getpid() << 40;
  memset(&self, 0, sizeof(self));
  __kfence_countdown = 0;
}
