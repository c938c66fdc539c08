// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * The KFENCE pool: (num_objects + 1) * 2 pages. Pages 0 and 1 are guards,
 * object i lives on page 2i + 2 with guard page 2i + 3 after it, so every
 * object page sits between two guard pages. An object is placed flush
 * against the left or the right edge of its page; the rest of the page is a
 * redzone filled with a pattern that free() checks. Free object pages are
 * PROT_NONE too, so a use-after-free faults.
 */
#define _GNU_SOURCE
#include "kfence_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

char *__kfence_pool;
size_t __kfence_pool_size;
/* __kfence_free_threshold is defined in hooks.c: its start value differs
 * between the two libraries. */
/* The pool's address space, reserved at program start (setup_sampling),
 * and why that failed if it did. */
static char *pool_reservation;
static int reservation_errno;
struct kfence_metadata *kfence_metadata;
size_t kfence_page_size;
_Atomic int kfence_state;
__thread bool kfence_in_runtime __attribute__((tls_model("initial-exec")));

__thread unsigned char kfence_locks_held
    __attribute__((tls_model("initial-exec")));

/* The bit is set before the lock is taken and cleared after it is released:
 * a handler that interrupts this thread in between takes the lock for held
 * (by its own thread), never for free. The signal fences keep the compiler
 * from moving the bit's store past the calls. */
int kfence_lock(pthread_mutex_t *lock, unsigned bit) {
  int cancel;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
  kfence_locks_held |= bit;
  atomic_signal_fence(memory_order_seq_cst);
  pthread_mutex_lock(lock);
  return cancel;
}

static atomic_int nr_deferred;
static __thread bool doing_deferred __attribute__((tls_model("initial-exec")));
static void do_deferred(void);

/* A thread that holds no lock any more does what handlers deferred. */
void kfence_unlock(pthread_mutex_t *lock, unsigned bit, int cancel) {
  pthread_mutex_unlock(lock);
  atomic_signal_fence(memory_order_seq_cst);
  kfence_locks_held &= ~bit;
  pthread_setcancelstate(cancel, NULL);
  if (!kfence_locks_held && !doing_deferred &&
      atomic_load_explicit(&nr_deferred, memory_order_relaxed))
    do_deferred();
}

/*
 * Protects kfence_metadata (states, placement, stacks, freelist links),
 * the freelist ends, guard_open and the protection of every pool page.
 * Taken by guarded allocations and frees, the fault handler and the object
 * listing; never held while printing a report or unwinding a stack.
 * A cancelled thread cannot hold it (kfence_lock); a fork child never finds
 * it held (before_fork takes it). A signal handler that interrupted its
 * thread holding it (KFENCE_LOCK_POOL) does not take it: its allocations
 * go to the C library, its frees of guarded objects are deferred
 * (deferred[]), and it reads and handles a fault without the lock
 * (pool_lock_unless_held).
 */
static pthread_mutex_t kfence_pool_lock = PTHREAD_MUTEX_INITIALIZER;

static int pool_lock(void) {
  return kfence_lock(&kfence_pool_lock, KFENCE_LOCK_POOL);
}

static void pool_unlock(int cancel) {
  kfence_unlock(&kfence_pool_lock, KFENCE_LOCK_POOL, cancel);
}

/*
 * The pool lock, but in a signal handler that interrupted its own thread
 * holding it: then NOT_LOCKED, and the handler goes on without it. The
 * interrupted thread stands still meanwhile, so the handler reads what it
 * wrote so far: whole, but for the slot it was changing, whose fields are
 * copied, never followed (indices are range-checked). What the handler
 * would change in the metadata it defers (deferred[]).
 */
#define NOT_LOCKED (-1)

static int pool_lock_unless_held(void) {
  return kfence_locks_held & KFENCE_LOCK_POOL ? NOT_LOCKED : pool_lock();
}

static void pool_unlock_if_locked(int cancel) {
  if (cancel != NOT_LOCKED)
    pool_unlock(cancel);
}

#define NO_OBJECT UINT32_MAX
static unsigned freelist_head = NO_OBJECT, freelist_tail = NO_OBJECT;
/*
 * Slots from this one up have never held an object. They are handed out in
 * index order before any freed slot, as if they stood at the freelist's
 * head, so that setting up the pool writes no slot's metadata: a slot's is
 * first written when it first holds an object. Under kfence_pool_lock.
 */
static unsigned next_unused;
/* Guard pages a report left accessible; closed again by the next allocation
 * of a neighbouring object. One byte per pool page. */
static uint8_t *guard_open;

static atomic_ulong stat_allocated, stat_allocs, stat_frees, stat_zombies,
    stat_skipped_incompat, stat_skipped_capacity, stat_skipped_covered;

/*
 * Redzone pattern. Depending on the address, a bug that writes one constant
 * over the redzone cannot restore it by accident; it is never 0x00 or 0xff.
 */
static inline uint8_t canary(uintptr_t addr) {
  return (uint8_t)(0xc5 + (addr & 7));
}

static uint64_t canary_word(void) {
  uint8_t bytes[8];
  for (int i = 0; i < 8; i++)
    bytes[i] = canary((uintptr_t)i);
  uint64_t word;
  memcpy(&word, bytes, sizeof(word));
  return word;
}

/* Word-wise: this runs over up to a page on every guarded alloc and free. */
static void canary_fill(uintptr_t from, uintptr_t to) {
  for (; from < to && (from & 7); from++)
    *(uint8_t *)from = canary(from);
  uint64_t word = canary_word();
  for (; from + 8 <= to; from += 8)
    memcpy((void *)from, &word, sizeof(word));
  for (; from < to; from++)
    *(uint8_t *)from = canary(from);
}

/* First byte in [from, to) that is not the pattern, 0 if none. */
static uintptr_t canary_check(uintptr_t from, uintptr_t to) {
  for (; from < to && (from & 7); from++)
    if (*(uint8_t *)from != canary(from))
      return from;
  uint64_t word = canary_word();
  for (; from + 8 <= to; from += 8)
    if (memcmp((void *)from, &word, sizeof(word)))
      break;
  for (; from < to; from++)
    if (*(uint8_t *)from != canary(from))
      return from;
  return 0;
}

static void freelist_remove(unsigned i) {
  struct kfence_metadata *m = &kfence_metadata[i];
  if (m->prev != NO_OBJECT)
    kfence_metadata[m->prev].next = m->next;
  else
    freelist_head = m->next;
  if (m->next != NO_OBJECT)
    kfence_metadata[m->next].prev = m->prev;
  else
    freelist_tail = m->prev;
  m->on_freelist = false;
}

/* Tail insertion: the least recently freed object is reused first, which
 * keeps a freed object protected for as long as possible. */
static void freelist_append(unsigned i) {
  struct kfence_metadata *m = &kfence_metadata[i];
  m->prev = freelist_tail;
  m->next = NO_OBJECT;
  if (freelist_tail != NO_OBJECT)
    kfence_metadata[freelist_tail].next = i;
  else
    freelist_head = i;
  freelist_tail = i;
  m->on_freelist = true;
}

/*
 * Set once a pool page's protection could not be changed (mprotect() fails
 * when the process is out of memory mappings, vm.max_map_count): no more
 * guarded allocations from then on. Objects already guarded are still
 * freed and reported as before.
 */
static atomic_bool allocations_stopped;

static bool set_protection(uintptr_t page, bool accessible) {
  if (mprotect((void *)page, kfence_page_size,
               accessible ? PROT_READ | PROT_WRITE : PROT_NONE) == 0)
    return true;
  if (!atomic_exchange(&allocations_stopped, true))
    kfence_log_printf("kfence: cannot change the protection of a pool page: "
                      "%s; no more guarded allocations\n",
                      strerror(errno));
  return false;
}

/*
 * Guard pages have other VMA flags than object pages (MADV_DONTDUMP: they
 * are useless in a core dump anyway). Then no two neighbouring pages share
 * a VMA and mprotect() of an object page changes its own VMA in place,
 * instead of splitting a VMA at every allocation and merging it back at
 * every free: that halves the cost of a guarded allocation + free. Slot @i
 * gets its right guard page marked before its first object; its left one
 * is slot i - 1's right guard (slots are first used in index order) or the
 * first two pages, marked by setup_pool(): a slot's first object pays one
 * madvise(), a process that guards one object one. Failing means the process
 * is out of memory mappings: no more guarded allocations, as when an
 * mprotect() fails. Call with kfence_pool_lock held.
 */
static unsigned long max_map_count(void);
static bool split_off(unsigned i) {
  if (madvise((void *)(kfence_object_page(i) + kfence_page_size),
              kfence_page_size, MADV_DONTDUMP) == 0)
    return true;
  if (!atomic_exchange(&allocations_stopped, true))
    kfence_log_printf("kfence: cannot lay out the pool's memory mappings: %s "
                      "(vm.max_map_count: %lu); no more guarded allocations\n",
                      strerror(errno), max_map_count());
  return false;
}

static void close_guard(size_t page_nr) {
  if (guard_open[page_nr] &&
      set_protection((uintptr_t)__kfence_pool + page_nr * kfence_page_size, false))
    guard_open[page_nr] = 0;
}

/*
 * Every object live or retired, read from the counters without the lock,
 * so that a sampled allocation finding the pool full costs two loads, not
 * a stack trace, a sigaction() call and the lock: a loop at sample_rate=1
 * with the pool full made 358,120 rt_sigaction calls without this check.
 * (The freelist, under the lock, stays the authority.)
 */
static bool pool_full(void) {
  return atomic_load_explicit(&stat_allocated, memory_order_relaxed) +
             atomic_load_explicit(&stat_zombies, memory_order_relaxed) >=
         kfence_opts.num_objects;
}

/* Linux's rule: more than skip_covered_thresh percent of the pool in use. */
static bool should_skip_covered(void) {
  return atomic_load_explicit(&stat_allocated, memory_order_relaxed) >
         kfence_opts.skip_covered_thresh * kfence_opts.num_objects / 100;
}

/*
 * malloc() must return memory aligned for any object that fits in the size;
 * smaller objects need less, and every byte of alignment slack on the right
 * is a byte an overflow can touch without faulting.
 */
static size_t default_alignment(size_t size) {
  size_t align = 16;
  while (align > 1 && align > size)
    align >>= 1;
  return align;
}

static void *guarded_alloc(size_t size, size_t align, bool zero,
                           const void *caller) {
  if (atomic_load_explicit(&allocations_stopped, memory_order_relaxed))
    return NULL;
  if (pool_full()) {
    atomic_fetch_add_explicit(&stat_skipped_capacity, 1, memory_order_relaxed);
    return NULL;
  }
  struct kfence_track track;
  kfence_save_stack(&track, (uintptr_t)caller);
  uint32_t stack_hash = kfence_stack_hash(&track);
  if (should_skip_covered() && kfence_covered_contains(stack_hash)) {
    atomic_fetch_add_explicit(&stat_skipped_covered, 1, memory_order_relaxed);
    return NULL;
  }
  kfence_fault_recheck();
  if (!align)
    align = default_alignment(size);
  bool right;
  switch (kfence_opts.side) {
  case KFENCE_SIDE_LEFT:
    right = false;
    break;
  case KFENCE_SIDE_RIGHT:
    right = true;
    break;
  default:
    right = kfence_random() & 1;
  }

  int cancel = pool_lock();
  bool first_use = next_unused < kfence_opts.num_objects;
  unsigned i = first_use ? next_unused : freelist_head;
  uintptr_t page = i == NO_OBJECT ? 0 : kfence_object_page(i);
  if (i == NO_OBJECT || (first_use && !split_off(i)) ||
      !set_protection(page, true)) {
    pool_unlock(cancel);
    atomic_fetch_add_explicit(&stat_skipped_capacity, 1, memory_order_relaxed);
    return NULL;
  }
  if (first_use)
    next_unused++;
  else
    freelist_remove(i);
  close_guard(2 * i + 1);
  close_guard(2 * i + 3);
  struct kfence_metadata *m = &kfence_metadata[i];
  uintptr_t addr = right ? (page + kfence_page_size - size) & ~(uintptr_t)(align - 1)
                         : page;
  /* free() verified the redzone of a freed page, and the page has been
   * PROT_NONE since: only the old object's bytes need the pattern back. */
  if (m->state == KFENCE_OBJECT_UNUSED)
    canary_fill(page, page + kfence_page_size);
  else
    canary_fill(m->addr, m->addr + m->size);
  m->addr = addr;
  m->size = size;
  m->owners++;
  m->alloc_stack_hash = stack_hash;
  kfence_covered_add(stack_hash, 1);
  m->state = KFENCE_OBJECT_ALLOCATED;
  m->alloc_track = track;
  m->free_track.nr_frames = 0;
  if (zero)
    memset((void *)addr, 0, size);
  pool_unlock(cancel);

  atomic_fetch_add_explicit(&stat_allocated, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&stat_allocs, 1, memory_order_relaxed);
  return (void *)addr;
}

static int init_sampling(void);
static int init_pool(void);

_Atomic bool kfence_preload_started;

void *kfence_alloc_sampled(size_t size, size_t align, bool zero,
                           const void *caller, bool may_init) {
  /* Read here, on the sampled path, not on every allocation. */
  may_init = may_init || atomic_load_explicit(&kfence_preload_started,
                                              memory_order_acquire);
  if (kfence_in_runtime || kfence_locks_held) {
    /* Leave the sample for the program's next allocation. */
    __kfence_countdown = 0;
    return NULL;
  }
  int state = atomic_load_explicit(&kfence_state, memory_order_acquire);
  if (state == KFENCE_UNINIT && may_init)
    state = init_sampling();
  if (state != KFENCE_READY && state != KFENCE_SAMPLING) {
    /* Disabled: take the slow path once per 2^32 allocations. Not ready
     * yet: look again at the next allocation. */
    __kfence_countdown = state == KFENCE_DISABLED ? UINT32_MAX : 0;
    return NULL;
  }
  kfence_in_runtime = true;
  void *addr = NULL;
  unsigned fired = kfence_sample_slow();
  if (fired && state == KFENCE_SAMPLING && may_init)
    state = init_pool();
  if (fired && state != KFENCE_READY) {
    /* No pool (yet): the sample goes to a later allocation, or nowhere. */
    if (state == KFENCE_DISABLED)
      __kfence_countdown = UINT32_MAX;
    else
      kfence_sample_pass_on(fired);
  } else if (fired) {
    if (size == 0 || size > kfence_page_size || align > kfence_page_size) {
      atomic_fetch_add_explicit(&stat_skipped_incompat, 1, memory_order_relaxed);
      kfence_sample_pass_on(fired);
    } else {
      addr = guarded_alloc(size, align, zero, caller);
    }
  }
  kfence_in_runtime = false;
  return addr;
}

static void snapshot(long i, struct kfence_metadata *out) {
  *out = kfence_metadata[i];
}

/* Frees @ptr, which is in the pool, freed at @track. */
static void free_now(void *ptr, const struct kfence_track *track) {
  struct kfence_metadata copy;
  struct kfence_report r = {.addr = (uintptr_t)ptr, .stack = track};
  uint8_t bytes[KFENCE_REPORT_BYTES], expected[KFENCE_REPORT_BYTES];
  bool bug = false;

  int cancel = pool_lock();
  long i = kfence_object_index((uintptr_t)ptr);
  struct kfence_metadata *m = i >= 0 ? &kfence_metadata[i] : NULL;
  if (!m || m->state != KFENCE_OBJECT_ALLOCATED || m->addr != (uintptr_t)ptr) {
    r.type = KFENCE_BUG_INVALID_FREE;
    if (m && m->state != KFENCE_OBJECT_UNUSED) {
      snapshot(i, &copy);
      r.meta = &copy;
      r.index = i;
    }
    bug = true;
  } else {
    uintptr_t page = kfence_object_page(i);
    uintptr_t bad = canary_check(page, m->addr);
    uintptr_t end = m->addr;
    if (!bad) {
      bad = canary_check(m->addr + m->size, page + kfence_page_size);
      end = page + kfence_page_size;
    }
    if (bad) {
      /* Show up to 16 bytes, not past the end of that redzone. */
      r.type = KFENCE_BUG_MEMORY_CORRUPTION;
      r.addr = bad;
      r.nr_bytes = (int)(end - bad < KFENCE_REPORT_BYTES ? end - bad
                                                         : KFENCE_REPORT_BYTES);
      for (int b = 0; b < r.nr_bytes; b++) {
        bytes[b] = ((uint8_t *)bad)[b];
        expected[b] = canary(bad + (uintptr_t)b);
      }
      r.bytes = bytes;
      r.expected = expected;
      /* Reported once: the next owner of the page starts clean. */
      canary_fill(page, m->addr);
      canary_fill(m->addr + m->size, page + kfence_page_size);
      snapshot(i, &copy);
      r.meta = &copy;
      r.index = i;
      bug = true;
    }
    m->free_track = *track;
    m->state = KFENCE_OBJECT_FREED;
    kfence_covered_add(m->alloc_stack_hash, -1);
    set_protection(page, false);
    freelist_append((unsigned)i);
    atomic_fetch_sub_explicit(&stat_allocated, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&stat_frees, 1, memory_order_relaxed);
  }
  pool_unlock(cancel);

  if (bug)
    kfence_report_error(&r);
}

/* A slot whose page a use-after-free opened: off the freelist, so that
 * the dangling pointer cannot corrupt a later owner unseen. Under the pool
 * lock. */
static void retire(long i) {
  freelist_remove((unsigned)i);
  atomic_fetch_add_explicit(&stat_zombies, 1, memory_order_relaxed);
}

/*
 * What a signal handler that interrupted its own thread holding the pool
 * lock leaves to be done under it (@what): free a guarded object (@ptr,
 * with the handler's stack); retire slot @index, whose freed object's page
 * the handler's use-after-free opened, if the slot still holds that object
 * (its @owners-th); mark guard page @index, which the handler's
 * out-of-bounds access opened, as open (the interrupted thread may have
 * been closing it, and would clear a mark set now). Done by the first
 * thread that holds no lock any more (kfence_unlock): the interrupted one
 * when the handler has returned, or any other. Records are claimed and
 * handed on by atomic state changes: safe from a handler, and between
 * threads. nr_deferred counts those claimed and not yet taken.
 */
#define DEFERRED 16
enum { DEFERRED_FREE_SLOT, DEFERRED_FILLING, DEFERRED_READY, DEFERRED_TAKEN };
enum deferred_work { DEFER_FREE, DEFER_RETIRE, DEFER_MARK_GUARD };
static struct deferred {
  _Atomic int state;
  enum deferred_work what;
  void *ptr;
  long index;
  unsigned long owners;
  struct kfence_track track;
} deferred[DEFERRED];

static void defer(enum deferred_work what, void *ptr, long index,
                  unsigned long owners, const struct kfence_track *track) {
  for (int k = 0; k < DEFERRED; k++) {
    struct deferred *d = &deferred[k];
    int free_slot = DEFERRED_FREE_SLOT;
    if (!atomic_compare_exchange_strong(&d->state, &free_slot,
                                        DEFERRED_FILLING))
      continue;
    atomic_fetch_add(&nr_deferred, 1);
    d->what = what;
    d->ptr = ptr;
    d->index = index;
    d->owners = owners;
    if (track)
      d->track = *track;
    atomic_store(&d->state, DEFERRED_READY);
    return;
  }
  static const char *const lost[] = {
      [DEFER_FREE] = "a guarded object it freed stays allocated",
      [DEFER_RETIRE] = "a slot it used after free may be handed out again",
      [DEFER_MARK_GUARD] = "a guard page it opened stays open",
  };
  kfence_log_printf("kfence: a signal handler interrupted KFENCE with %d "
                    "changes to the pool waiting: %s\n",
                    DEFERRED, lost[what]);
}

static void do_deferred_work(const struct deferred *d) {
  if (d->what == DEFER_FREE) {
    free_now(d->ptr, &d->track);
    return;
  }
  int cancel = pool_lock();
  if (d->what == DEFER_MARK_GUARD) {
    guard_open[d->index] = 1;
  } else {
    const struct kfence_metadata *m = &kfence_metadata[d->index];
    if (m->state == KFENCE_OBJECT_FREED && m->on_freelist &&
        m->owners == d->owners)
      retire(d->index);
  }
  pool_unlock(cancel);
}

static void do_deferred(void) {
  doing_deferred = true;
  bool saved = kfence_in_runtime;
  kfence_in_runtime = true;
  bool took;
  do {
    took = false;
    for (int k = 0; k < DEFERRED; k++) {
      struct deferred *d = &deferred[k];
      int ready = DEFERRED_READY;
      if (!atomic_compare_exchange_strong(&d->state, &ready, DEFERRED_TAKEN))
        continue;
      atomic_fetch_sub(&nr_deferred, 1);
      took = true;
      do_deferred_work(d);
      atomic_store(&d->state, DEFERRED_FREE_SLOT);
    }
  } while (took);
  kfence_in_runtime = saved;
  doing_deferred = false;
}

bool kfence_free_guarded(void *ptr, const void *caller) {
  if (atomic_load_explicit(&kfence_state, memory_order_acquire) != KFENCE_READY ||
      !is_kfence_address(ptr))
    return false;
  bool saved = kfence_in_runtime;
  kfence_in_runtime = true;
  struct kfence_track track;
  kfence_save_stack(&track, (uintptr_t)caller);
  if (kfence_locks_held & KFENCE_LOCK_POOL)
    defer(DEFER_FREE, ptr, 0, 0, &track);
  else
    free_now(ptr, &track);
  kfence_in_runtime = saved;
  return true;
}

/* The live object whose page holds @addr, or -1. Under the pool lock, or
 * as pool_lock_unless_held() allows. */
static long live_object(const void *addr) {
  if (!is_kfence_address(addr))
    return -1;
  long i = kfence_object_index((uintptr_t)addr);
  if (i < 0 || kfence_metadata[i].state != KFENCE_OBJECT_ALLOCATED)
    return -1;
  return i;
}

size_t kfence_ksize(const void *addr) {
  if (!is_kfence_address(addr))
    return 0;
  int cancel = pool_lock_unless_held();
  long i = live_object(addr);
  size_t size = i >= 0 && kfence_metadata[i].addr == (uintptr_t)addr
                    ? kfence_metadata[i].size
                    : 0;
  pool_unlock_if_locked(cancel);
  return size;
}

void *kfence_object_start(const void *addr) {
  if (!is_kfence_address(addr))
    return NULL;
  int cancel = pool_lock_unless_held();
  long i = live_object(addr);
  void *start = i >= 0 ? (void *)kfence_metadata[i].addr : NULL;
  pool_unlock_if_locked(cancel);
  return start;
}

/* Distance from @addr to object @i if it is live, SIZE_MAX otherwise. */
static size_t oob_distance(long i, uintptr_t addr) {
  if (i < 0 || (unsigned long)i >= kfence_opts.num_objects ||
      kfence_metadata[i].state != KFENCE_OBJECT_ALLOCATED)
    return SIZE_MAX;
  const struct kfence_metadata *m = &kfence_metadata[i];
  return addr < m->addr ? m->addr - addr : addr - (m->addr + m->size) + 1;
}

bool kfence_handle_page_fault(uintptr_t addr, bool is_write,
                              const ucontext_t *uc) {
  if (atomic_load_explicit(&kfence_state, memory_order_acquire) != KFENCE_READY ||
      !is_kfence_address((void *)addr))
    return false;
  bool saved = kfence_in_runtime;
  kfence_in_runtime = true;
  struct kfence_track track;
  kfence_save_stack(&track, kfence_fault_pc(uc));

  struct kfence_metadata copy;
  struct kfence_report r = {.addr = addr, .is_write = is_write, .stack = &track};
  size_t page_nr = (addr - (uintptr_t)__kfence_pool) / kfence_page_size;
  uintptr_t page = (uintptr_t)__kfence_pool + page_nr * kfence_page_size;
  bool bug = true, opened = true;

  int cancel = pool_lock_unless_held();
  long i = kfence_object_index(addr);
  if (i < 0) {
    /* A guard page: blame the closer of the live neighbours. */
    long left = page_nr >= 2 ? (long)(page_nr - 1) / 2 - 1 : -1;
    long right = (long)(page_nr + 1) / 2 - 1;
    size_t dl = oob_distance(left, addr), dr = oob_distance(right, addr);
    long blamed = dl <= dr ? left : right;
    r.type = KFENCE_BUG_INVALID_ACCESS;
    if ((dl <= dr ? dl : dr) != SIZE_MAX) {
      r.type = KFENCE_BUG_OUT_OF_BOUNDS;
      snapshot(blamed, &copy);
      r.meta = &copy;
      r.index = blamed;
    }
    opened = set_protection(page, true);
    if (opened && cancel == NOT_LOCKED)
      defer(DEFER_MARK_GUARD, NULL, (long)page_nr, 0, NULL);
    else if (opened)
      guard_open[page_nr] = 1;
  } else {
    struct kfence_metadata *m = &kfence_metadata[i];
    switch (m->state) {
    case KFENCE_OBJECT_ALLOCATED:
      /* Allocated again since the access faulted: retry it. */
      bug = false;
      break;
    case KFENCE_OBJECT_FREED:
      r.type = KFENCE_BUG_USE_AFTER_FREE;
      snapshot(i, &copy);
      r.meta = &copy;
      r.index = i;
      /* The page stays open so the program can go on. Without the lock,
       * the interrupted thread may be putting the slot on the freelist. */
      if (cancel == NOT_LOCKED)
        defer(DEFER_RETIRE, NULL, i, copy.owners, NULL);
      else if (m->on_freelist)
        retire(i);
      opened = set_protection(page, true);
      break;
    case KFENCE_OBJECT_UNUSED:
      r.type = KFENCE_BUG_INVALID_ACCESS;
      opened = set_protection(page, true);
      break;
    }
  }
  pool_unlock_if_locked(cancel);

  if (bug)
    kfence_report_error(&r);
  kfence_in_runtime = saved;
  /* A page that stays closed would fault again at once, forever: hand the
   * fault on (to the program's handler or the default action) instead. */
  return opened;
}

/* glibc's chunk header: two words left of the object it hands out. */
#define LIBC_CHUNK_HEADER (2 * sizeof(size_t))

/* The object that starts at @addr, if glibc reads its header from the
 * object's own page (a right-placed object: a left-placed one faults in
 * the guard page instead); -1 otherwise. Under the pool lock, or as
 * pool_lock_unless_held() allows. */
static long right_placed_object_at(uintptr_t addr) {
  long i = is_kfence_address((void *)addr) ? kfence_object_index(addr) : -1;
  if (i < 0 || kfence_metadata[i].state == KFENCE_OBJECT_UNUSED ||
      kfence_metadata[i].addr != addr ||
      addr < kfence_object_page(i) + LIBC_CHUNK_HEADER)
    return -1;
  return i;
}

/*
 * glibc's free(), realloc() or malloc_usable_size() given a right-placed
 * object by code built without the plugin: the chunk header it reads left
 * of the object is redzone, which it takes for a size and an arena, and it
 * crashes outside the pool, where kfence_handle_page_fault() sees nothing
 * (for a left-placed object the header is in the guard page, and that
 * fault is reported). Which object it was given is still in a register, as
 * the object's address or as glibc's chunk pointer two words before it
 * (seen in all three functions of glibc 2.36). Report it as an invalid
 * free; report.c adds which code to rebuild. The crash then goes on to the
 * program's action: glibc cannot go on from a wild pointer.
 */
void kfence_report_libc_crash(const ucontext_t *uc) {
  if (atomic_load_explicit(&kfence_state, memory_order_acquire) != KFENCE_READY)
    return;
  /* Register compares first: programs that take SIGSEGV by design (garbage
   * collectors, JITs) must not pay a dladdr() per fault. */
  uintptr_t regs[32];
  size_t n = kfence_fault_registers(uc, regs, sizeof(regs) / sizeof(regs[0]));
  size_t pointers = 0;
  for (size_t k = 0; k < n; k++)
    if (is_kfence_address((void *)regs[k]))
      regs[pointers++] = regs[k];
  uintptr_t pc = kfence_fault_pc(uc);
  if (!pointers || !kfence_libc_function_at(pc))
    return;
  struct kfence_metadata copy;
  long found = -1;
  int cancel = pool_lock_unless_held();
  /* The object's address, or glibc's chunk pointer to it. */
  for (size_t k = 0; k < pointers && found < 0; k++) {
    found = right_placed_object_at(regs[k]);
    if (found < 0)
      found = right_placed_object_at(regs[k] + LIBC_CHUNK_HEADER);
  }
  if (found >= 0)
    snapshot(found, &copy);
  pool_unlock_if_locked(cancel);
  if (found < 0)
    return;
  bool saved = kfence_in_runtime;
  kfence_in_runtime = true;
  struct kfence_track track;
  kfence_save_stack(&track, pc);
  struct kfence_report r = {.type = KFENCE_BUG_INVALID_FREE,
                            .addr = copy.addr,
                            .stack = &track,
                            .meta = &copy,
                            .index = found,
                            .from_register = true};
  kfence_report_error(&r);
  kfence_in_runtime = saved;
}

void kfence_get_stats(struct kfence_stats *s) {
  int state = atomic_load(&kfence_state);
  s->enabled = (state == KFENCE_READY || state == KFENCE_SAMPLING) &&
               !atomic_load(&allocations_stopped);
  s->allocated = atomic_load_explicit(&stat_allocated, memory_order_relaxed);
  s->allocs = atomic_load_explicit(&stat_allocs, memory_order_relaxed);
  s->frees = atomic_load_explicit(&stat_frees, memory_order_relaxed);
  s->zombies = atomic_load_explicit(&stat_zombies, memory_order_relaxed);
  s->bugs = atomic_load_explicit(&kfence_stat_bugs, memory_order_relaxed);
  s->skipped_incompat =
      atomic_load_explicit(&stat_skipped_incompat, memory_order_relaxed);
  s->skipped_capacity =
      atomic_load_explicit(&stat_skipped_capacity, memory_order_relaxed);
  s->skipped_covered =
      atomic_load_explicit(&stat_skipped_covered, memory_order_relaxed);
}

bool kfence_snapshot_object(long i, struct kfence_metadata *out) {
  if (atomic_load_explicit(&kfence_state, memory_order_acquire) != KFENCE_READY ||
      i < 0 || (unsigned long)i >= kfence_opts.num_objects)
    return false;
  int cancel = pool_lock_unless_held();
  snapshot(i, out);
  pool_unlock_if_locked(cancel);
  return true;
}

/*
 * Serialises the two set-up steps (advance) and keeps fork() out of them:
 * before_fork takes it, so a child never starts with a step half done by
 * a thread it does not have (it would never guard anything, and its
 * kfence_init() would wait forever; one forked while the pool's step loads
 * the unwinder with dlopen() would crash in its first backtrace()). The
 * steps take no other KFENCE lock but fault.c's; loading the unwinder takes
 * the dynamic loader's lock, so a thread that forks while it holds that
 * lock (from a library's constructor) while another sets the pool up waits
 * forever. A cancelled thread
 * cannot hold it (kfence_lock; the steps open and read files). Code on a
 * thread that holds any KFENCE lock never waits for it (advance): no step
 * can be in progress then, as the pool and reports exist once they are
 * over, unless it is a signal handler that interrupted a step.
 */
static pthread_mutex_t kfence_setup_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * fork() must not copy a lock mid-update: the forking thread holds them all
 * across it, but for those it holds already (a report callback may fork):
 * in the child it goes on with what it was doing and releases them there.
 * Holding another, it skips the setup lock too (see there), which keeps the
 * locks' order. What it took, and the cancellation states, are kept under
 * fault.c's lock, which every fork takes.
 */
static unsigned fork_taken;
static int fork_cancel_setup, fork_cancel_pool;

static void before_fork(void) {
  unsigned take = ~kfence_locks_held &
                  (KFENCE_LOCK_SETUP | KFENCE_LOCK_REPORT | KFENCE_LOCK_POOL);
  if (kfence_locks_held)
    take &= ~KFENCE_LOCK_SETUP;
  int setup = 0, pool = 0;
  if (take & KFENCE_LOCK_SETUP)
    setup = kfence_lock(&kfence_setup_lock, KFENCE_LOCK_SETUP);
  if (take & KFENCE_LOCK_REPORT)
    kfence_report_lock_acquire();
  if (take & KFENCE_LOCK_POOL)
    pool = pool_lock();
  kfence_fault_lock_for_fork();
  fork_taken = take;
  fork_cancel_setup = setup;
  fork_cancel_pool = pool;
}

static void after_fork(void) {
  unsigned taken = fork_taken;
  int setup = fork_cancel_setup, pool = fork_cancel_pool;
  kfence_fault_unlock_after_fork();
  if (taken & KFENCE_LOCK_POOL)
    pool_unlock(pool);
  if (taken & KFENCE_LOCK_REPORT)
    kfence_report_lock_release();
  if (taken & KFENCE_LOCK_SETUP)
    kfence_unlock(&kfence_setup_lock, KFENCE_LOCK_SETUP, setup);
}

/* Records another thread was filling or doing are its own: they went with
 * it (the object stays allocated in the child). */
static void after_fork_child(void) {
  int ready = 0;
  for (int k = 0; k < DEFERRED; k++) {
    if (atomic_load(&deferred[k].state) == DEFERRED_READY)
      ready++;
    else
      atomic_store(&deferred[k].state, DEFERRED_FREE_SLOT);
  }
  atomic_store(&nr_deferred, ready);
  after_fork();
  kfence_sampling_after_fork_child();
}

/* Memory mappings the pool takes, at most: one per page (see setup_pool). */
static size_t pool_mappings(void) { return (kfence_opts.num_objects + 1) * 2; }

/* Objects and guard pages, each a page: see docs/kfence.md, "The pool". */
static size_t pool_bytes(void) { return pool_mappings() * kfence_page_size; }

/*
 * The pool and one more guard page: an odd number of pages is never a
 * multiple of 2 MiB, and Linux aligns anonymous mappings that are to a
 * 2 MiB boundary (for transparent huge pages), leaving a hole above the
 * pool where later mappings would land.
 */
static size_t reservation_bytes(void) {
  return pool_bytes() + kfence_page_size;
}


/* vm.max_map_count: how many mappings a process may have; 0 if unknown.
 * Read without stdio, which would allocate. */
static unsigned long max_map_count(void) {
  char text[32];
  int fd =
      kfence_sys_open("/proc/sys/vm/max_map_count", O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0)
    return 0;
  ssize_t n = kfence_sys_read(fd, text, sizeof(text) - 1);
  kfence_sys_close(fd);
  if (n <= 0)
    return 0;
  text[n] = '\0';
  return strtoul(text, NULL, 10);
}

/*
 * The pool may take half of the process's mapping budget: the other half is
 * the program's (its libraries, thread stacks, the C library's mmap()ed
 * chunks), which may need most of it (Python, for one, runs out of memory
 * with a pool of 32,700 objects under the default limit of 65,530).
 */
/* Memory mappings the process holds: lines of /proc/self/maps; 0 if it
 * cannot be read. Read without stdio, which would allocate. */
static size_t mappings_held(void) {
  char text[4096];
  int fd = kfence_sys_open("/proc/self/maps", O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0)
    return 0;
  size_t lines = 0;
  ssize_t n;
  while ((n = kfence_sys_read(fd, text, sizeof(text))) > 0)
    for (ssize_t i = 0; i < n; i++)
      lines += text[i] == '\n';
  kfence_sys_close(fd);
  return lines;
}

static bool pool_fits_mapping_budget(void) {
  unsigned long limit = max_map_count();
  if (!limit || pool_mappings() <= limit / 2)
    return true;
  kfence_log_printf("kfence: num_objects=%lu needs %zu memory mappings, more "
                    "than half of the process's limit of %lu "
                    "(vm.max_map_count): KFENCE is off; use num_objects=%lu "
                    "or fewer, or raise vm.max_map_count\n",
                    kfence_opts.num_objects, pool_mappings(), limit,
                    limit / 4 - 1);
  return false;
}

static void *map_or_null(size_t size, int prot) {
  void *p = mmap(NULL, size, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

/* Phase one, at program start: options and the sampler. */
static bool setup_sampling(void) {
  if (kfence_runtime_interposed())
    return false;
  kfence_read_options();
  if (!kfence_opts.sample_interval && !kfence_opts.sample_rate)
    return false;
  kfence_page_size = (size_t)sysconf(_SC_PAGESIZE);
  kfence_log_open();
  if (!pool_fits_mapping_budget())
    return false;
  /*
   * Reserve the pool's address space now, not when it is set up: mmap()
   * hands out addresses from the top down, so the heap memory the program
   * maps later lies below the pool, where the inline free test
   * (ptr >= __kfence_free_threshold) sends it straight to the C library.
   * One mmap(); no pages, no VMA per page yet.
   */
  pool_reservation = map_or_null(reservation_bytes(), PROT_NONE);
  reservation_errno = errno;
  kfence_sampling_init();
  return true;
}

/* Phase two, at the first guarded allocation: the pool, its metadata, the
 * unwinder and the fault handler. */
static bool setup_pool(void) {
  size_t n = kfence_opts.num_objects;
  size_t pool_size = pool_bytes();
  char *pool = pool_reservation;
  size_t meta_size = n * sizeof(struct kfence_metadata) + pool_size / kfence_page_size;
  char *meta = map_or_null(meta_size, PROT_READ | PROT_WRITE);
  if (meta && !kfence_covered_init(n)) {
    munmap(meta, meta_size);
    meta = NULL;
  }
  if (!pool || !meta) {
    if (!pool)
      errno = reservation_errno;
    kfence_log_printf("kfence: cannot map the pool (%zu bytes): %s; disabled\n",
                      pool_size + meta_size, strerror(errno));
    if (pool)
      munmap(pool, reservation_bytes());
    if (meta)
      munmap(meta, meta_size);
    return false;
  }
  /* Object pages must stay page-sized: no transparent huge pages here. */
  madvise(pool, reservation_bytes(), MADV_NOHUGEPAGE);
  /*
   * The first two guard pages and the reservation's extra page (which the
   * last guard page joins) get the guard pages' VMA flags now, every other
   * guard page before its slot's first object (split_off). The pool takes
   * up to (num_objects + 1) * 2 - 1 mappings, one per page, as its slots
   * are used: refuse it now if the program already holds too many for that
   * (counting them costs a read of /proc/self/maps, not a system call per
   * slot).
   */
  unsigned long limit = max_map_count();
  bool fits = !limit || mappings_held() + pool_mappings() <= limit;
  if (!fits)
    errno = ENOMEM;
  if (!fits || madvise(pool, 2 * kfence_page_size, MADV_DONTDUMP) != 0 ||
      madvise(pool + pool_size, kfence_page_size, MADV_DONTDUMP) != 0) {
    /* Out of mappings (ENOMEM): give them all back, and the program its
     * budget, before it needs one. */
    const char *why = strerror(errno);
    kfence_log_printf("kfence: cannot lay out the pool's %zu memory mappings: "
                      "%s (vm.max_map_count: %lu); KFENCE is off\n",
                      pool_mappings(), why, max_map_count());
    munmap(pool, reservation_bytes());
    munmap(meta, meta_size);
    return false;
  }
  kfence_metadata = (struct kfence_metadata *)meta;
  guard_open = (uint8_t *)(meta + n * sizeof(struct kfence_metadata));

  kfence_report_init();
  __kfence_pool = pool;
  __kfence_pool_size = pool_size;
  /* The LD_PRELOAD build's bootstrap arena may lie below the pool: the
   * threshold stays under both. */
  if ((uintptr_t)pool < __kfence_free_threshold)
    __kfence_free_threshold = (uintptr_t)pool;
  kfence_fault_install();
  return true;
}

/*
 * Moves kfence_state from @from through @busy to @done (or DISABLED) by
 * running @setup, once, whichever thread gets there first; the others wait
 * for it, but for a thread that holds a KFENCE lock (kfence_setup_lock).
 * Returns the state reached. The busy state tells the allocations of other
 * threads not to wait (kfence_alloc_sampled).
 */
static int advance(int from, int busy, bool (*setup)(void), int done) {
  int state = atomic_load_explicit(&kfence_state, memory_order_acquire);
  if ((state != from && state != busy) || kfence_locks_held)
    return state;
  int cancel = kfence_lock(&kfence_setup_lock, KFENCE_LOCK_SETUP);
  state = atomic_load_explicit(&kfence_state, memory_order_acquire);
  if (state == from) {
    atomic_store_explicit(&kfence_state, busy, memory_order_relaxed);
    bool saved = kfence_in_runtime;
    kfence_in_runtime = true;
    state = setup() ? done : KFENCE_DISABLED;
    atomic_store_explicit(&kfence_state, state, memory_order_release);
    kfence_in_runtime = saved;
  }
  kfence_unlock(&kfence_setup_lock, KFENCE_LOCK_SETUP, cancel);
  return state;
}

/* Registered before the first step can begin, by whichever thread gets
 * there first, so that a fork() during a step waits for it. The child also
 * reseeds its sampler: it must not sample what its parent samples. */
static pthread_once_t fork_handlers_once = PTHREAD_ONCE_INIT;

static void register_fork_handlers(void) {
  bool saved = kfence_in_runtime;
  kfence_in_runtime = true;
  pthread_atfork(before_fork, after_fork, after_fork_child);
  kfence_in_runtime = saved;
}

static int init_sampling(void) {
  pthread_once(&fork_handlers_once, register_fork_handlers);
  return advance(KFENCE_UNINIT, KFENCE_INITIALISING, setup_sampling,
                 KFENCE_SAMPLING);
}

static int init_pool(void) {
  return advance(KFENCE_SAMPLING, KFENCE_MAPPING, setup_pool, KFENCE_READY);
}

void kfence_start_sampling(void) {
  if (init_sampling() == KFENCE_SAMPLING)
    kfence_report_init();
}

/* Before the pool exists only: no object to free, no handler to remove. */
bool kfence_disable(void) {
  int expected = KFENCE_SAMPLING;
  if (!atomic_compare_exchange_strong(&kfence_state, &expected,
                                      KFENCE_DISABLED))
    return false;
  /* Only setup_pool() uses it, which DISABLED never reaches. */
  if (pool_reservation)
    munmap(pool_reservation, reservation_bytes());
  pool_reservation = NULL;
  return true;
}

bool kfence_init(void) {
  init_sampling();
  return init_pool() == KFENCE_READY;
}

/* The sampler is armed before main(); the pool waits for its first
 * object, so that a process that never guards one (most short-lived ones:
 * the first interval sample is due 100 ms after start) never pays for it. */
__attribute__((constructor)) static void kfence_ctor(void) { init_sampling(); }

/* The listings are printed when asked for, KFENCE off included: its stats
 * then say enabled: 0, the runtime's message at start why. */
__attribute__((destructor)) static void kfence_dtor(void) {
  if (atomic_load(&kfence_state) == KFENCE_UNINIT)
    return;
  if (kfence_opts.print_stats_at_exit || kfence_opts.print_objects_at_exit)
    kfence_print_at_exit(kfence_opts.print_stats_at_exit,
                         kfence_opts.print_objects_at_exit);
}
