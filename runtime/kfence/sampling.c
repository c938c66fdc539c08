// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * Which allocations are guarded.
 *
 * Two independent triggers, both only ever looked at on the slow path:
 *  - sample_rate=N (GWP-ASan's model): a per-thread countdown of allocations,
 *    refilled with a uniform draw from [1, 2N-1], mean N. A thread's first
 *    countdown is drawn from the stationary ("equilibrium") distribution
 *    instead, so every single allocation, the first ones included, is
 *    guarded with probability exactly 1/N: this is what makes the detection
 *    rate of a one-off bug predictable (bench/kfence/detection.sh).
 *  - sample_interval=T ms (KFENCE's model): a timer thread arms a global flag
 *    every T ms and the next allocation of any thread consumes it.
 */
#define _GNU_SOURCE
#include "kfence_internal.h"

#include <stdint.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

__thread int32_t kfence_countdown __attribute__((tls_model("initial-exec")));
atomic_int kfence_timer_armed;

/* splitmix64: 8 bytes per thread, plenty to pick sample points and sides. */
static __thread uint64_t prng_state __attribute__((tls_model("initial-exec")));
static __thread bool prng_seeded __attribute__((tls_model("initial-exec")));
static __thread pid_t cached_tid __attribute__((tls_model("initial-exec")));
/* From getrandom() at init: differs between processes started together. */
static uint64_t process_seed;

/* Serialises starting the timer thread, so that one runs at a time. */
static pthread_mutex_t kfence_timer_lock = PTHREAD_MUTEX_INITIALIZER;
/* Written under kfence_timer_lock; read without it on the slow path. */
static atomic_bool timer_running;

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

pid_t kfence_gettid(void) {
  if (!cached_tid)
    cached_tid = gettid();
  return cached_tid;
}

uint64_t kfence_random(void) {
  if (!prng_seeded) {
    prng_state = process_seed ^ ((uint64_t)kfence_gettid() << 32);
    prng_seeded = true;
  }
  return splitmix64(&prng_state);
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
  /* sample_rate <= 2^30 (options.c): 2N - 1 fits the int32_t countdown. */
  return (uint32_t)(2 * kfence_opts.sample_rate - 1);
}

static void *timer_main(void *arg) {
  (void)arg;
  struct timespec ts = {
      .tv_sec = (time_t)(kfence_opts.sample_interval / 1000),
      .tv_nsec = (long)(kfence_opts.sample_interval % 1000) * 1000000L,
  };
  for (;;) {
    while (nanosleep(&ts, NULL) != 0)
      ;
    atomic_store_explicit(&kfence_timer_armed, 1, memory_order_relaxed);
  }
  return NULL;
}

/* The timer must not take the program's signals, nor die with a fork. */
static void start_timer(void) {
  pthread_mutex_lock(&kfence_timer_lock);
  if (!atomic_load(&timer_running)) {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    pthread_t thread;
    bool started = pthread_create(&thread, &attr, timer_main, NULL) == 0;
    atomic_store(&timer_running, started);
    if (started)
      pthread_setname_np(thread, "kfence-timer");
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
  }
  pthread_mutex_unlock(&kfence_timer_lock);
}

void kfence_sampling_init(void) {
  if (getrandom(&process_seed, sizeof(process_seed), GRND_NONBLOCK) !=
      (ssize_t)sizeof(process_seed)) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    process_seed = (uint64_t)now.tv_nsec ^ ((uint64_t)now.tv_sec << 30) ^
                   ((uint64_t)getpid() << 48);
  }
  if (kfence_opts.sample_interval)
    start_timer();
}

unsigned kfence_sample_slow(void) {
  unsigned fired = 0;
  if (kfence_countdown <= 0) {
    if (!kfence_opts.sample_rate) {
      kfence_countdown = INT32_MAX;
    } else {
      /* Sample this allocation: the first one of a thread only if the
       * stationary delay says so (it counts this allocation as 1). */
      uint32_t delay = prng_seeded ? 1 : first_delay(rate_span());
      if (delay == 1) {
        kfence_countdown = (int32_t)random_upto(rate_span());
        fired |= KFENCE_SAMPLE_RATE;
      } else {
        kfence_countdown = (int32_t)(delay - 1);
      }
    }
  }
  if (atomic_load_explicit(&kfence_timer_armed, memory_order_relaxed) &&
      atomic_exchange_explicit(&kfence_timer_armed, 0, memory_order_relaxed)) {
    fired |= KFENCE_SAMPLE_TIMER;
    /* The forking thread's child has no timer until one is needed. */
    if (!atomic_load_explicit(&timer_running, memory_order_relaxed))
      start_timer();
  }
  return fired;
}

/*
 * After fork the child's PRNG and countdown are copies of the parent's: both
 * would guard the same allocations. Draw afresh, as for a new thread. The
 * timer thread is gone; arming the flag makes the child's next allocation
 * start a new one.
 */
void kfence_sampling_after_fork_child(void) {
  pthread_mutex_init(&kfence_timer_lock, NULL);
  atomic_store(&timer_running, false);
  uint64_t fresh;
  if (getrandom(&fresh, sizeof(fresh), GRND_NONBLOCK) == (ssize_t)sizeof(fresh))
    process_seed ^= fresh;
  process_seed ^= (uint64_t)getpid() << 40;
  prng_seeded = false;
  cached_tid = 0;
  kfence_countdown = 0;
  if (kfence_opts.sample_interval)
    atomic_store_explicit(&kfence_timer_armed, 1, memory_order_relaxed);
}
