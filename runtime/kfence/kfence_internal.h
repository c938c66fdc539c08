/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * Internal interfaces of the KFENCE runtime, shared by its files:
 *   core.c      pool, metadata, guarded allocation and free, stats, fork
 *   sampling.c  which allocations are guarded (countdown, clock, PRNG)
 *   covered.c   allocation stacks that already hold an object
 *   fault.c     the SIGSEGV handler, its chaining to the program's actions,
 *               and sigaction()/signal() as the program sees them
 *   report.c    stacks and the KFENCE-format reports
 *   symbols.c   what a frame's address is: module, build id, function
 *   options.c   KFENCE_OPTIONS
 *   hooks.c     __kfence_* (and malloc & co in the LD_PRELOAD build)
 *   hooks_cxx.c the C++ operators' hooks (not in the LD_PRELOAD build)
 *   preload.c   the real allocator behind the LD_PRELOAD build
 * Built three ways (CMakeLists.txt): libkfence-hooks.so, the one runtime of
 * a process whose modules the plugin built (KFENCE_HOOKS_SHARED);
 * libkfence.a, the same linked into one executable; libkfence.so, for
 * LD_PRELOAD (KFENCE_PRELOAD).
 */
#ifndef KFENCE_INTERNAL_H
#define KFENCE_INTERNAL_H

#include "kfence.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <ucontext.h>
#include <unistd.h>

#define KFENCE_HIDDEN __attribute__((visibility("hidden")))

/* The kernel keeps 64 frames per stack; so do we (2 stacks per object). */
#define KFENCE_STACK_DEPTH 64

enum kfence_side { KFENCE_SIDE_RANDOM, KFENCE_SIDE_LEFT, KFENCE_SIDE_RIGHT };

/* The option types of options.inc. */
typedef unsigned long kfence_opt_ulong;
typedef bool kfence_opt_bool;
typedef enum kfence_side kfence_opt_side;
/* Room for the longest log_path (options.inc) and ".<pid>". */
typedef char kfence_opt_path[4096];

struct kfence_options {
#define KFENCE_OPTION(type, name, def, min, max, secure, desc)                 \
  kfence_opt_##type name;
#include "options.inc"
};
extern struct kfence_options kfence_opts KFENCE_HIDDEN;
/* Reads KFENCE_OPTIONS into kfence_opts; in secure mode also removes it
 * from the environment, as the dynamic loader removes LD_PRELOAD. */
void kfence_read_options(void) KFENCE_HIDDEN;

enum kfence_object_state {
  KFENCE_OBJECT_UNUSED,
  KFENCE_OBJECT_ALLOCATED,
  KFENCE_OBJECT_FREED,
};

struct kfence_track {
  pid_t tid;
  int nr_frames;
  uintptr_t frames[KFENCE_STACK_DEPTH];
};

struct kfence_metadata {
  enum kfence_object_state state;
  /* FREED and off the freelist: retired ("zombie") after a use-after-free
   * left its page open. */
  bool on_freelist;
  unsigned prev, next; /* freelist links, indices into kfence_metadata */
  uintptr_t addr;      /* object start; meaningful once allocated */
  size_t size;
  /* Objects the slot has held: past 1, a dangling pointer found later may
   * be to an earlier one than the stacks describe, and the report says so. */
  unsigned long owners;
  uint32_t alloc_stack_hash; /* in the covered filter while allocated */
  struct kfence_track alloc_track;
  struct kfence_track free_track;
};

extern struct kfence_metadata *kfence_metadata KFENCE_HIDDEN;
extern size_t kfence_page_size KFENCE_HIDDEN;

/* Object index of the object page holding @addr, -1 for guard pages. */
static inline long kfence_object_index(uintptr_t addr) {
  size_t page = (addr - (uintptr_t)__kfence_pool) / kfence_page_size;
  /* Pages 0 and 1 are guards, then object i on page 2i+2, guard 2i+3. */
  if (page < 2 || (page & 1))
    return -1;
  return (long)(page / 2 - 1);
}

static inline uintptr_t kfence_object_page(long index) {
  return (uintptr_t)__kfence_pool + (size_t)(2 * index + 2) * kfence_page_size;
}

/* ---- sampling (sampling.c) ---------------------------------------------- */

/* __kfence_countdown (kfence.h): every thread's starts at 0, so its first
 * allocation takes the slow path. */

/*
 * Should this allocation leave the fast path? Cost: one thread-local
 * decrement that sets the flags and one branch that is almost never taken
 * (x86: `subl $1, %fs:...; jb`); no call, lock, syscall or clock read
 * (measured in docs/kfence.md). A hit must reach kfence_alloc_sampled():
 * the countdown has wrapped, and only the slow path refills it.
 */
static inline bool kfence_sample_hit(void) {
  return __builtin_expect(
      __builtin_sub_overflow(__kfence_countdown, 1u, &__kfence_countdown), 0);
}

/*
 * The slow half of the sampling decision: advance the rate's countdown, look
 * at the clock if it is time, refill. Returns which triggers fired (0: do
 * not guard).
 */
#define KFENCE_SAMPLE_RATE 1u
#define KFENCE_SAMPLE_INTERVAL 2u
unsigned kfence_sample_slow(void) KFENCE_HIDDEN;
/* A fired sample could not be used (size, alignment): give it to the next
 * allocation, so that sampling counts guardable allocations only. */
void kfence_sample_pass_on(unsigned fired) KFENCE_HIDDEN;
void kfence_sampling_init(void) KFENCE_HIDDEN;
void kfence_sampling_after_fork_child(void) KFENCE_HIDDEN;
uint64_t kfence_random(void) KFENCE_HIDDEN;
/* gettid() without a syscall per stack; fork() resets it. */
pid_t kfence_gettid(void) KFENCE_HIDDEN;

/* ---- the pool, objects and faults in it (core.c) ----------------------- */

/*
 * UNINIT -> INITIALISING -> SAMPLING (options read, sampler armed: at program
 * start, cheap) -> MAPPING -> READY (pool mapped: at the first guarded
 * allocation, so a process that never guards one never pays for the pool).
 * Any step may end in DISABLED (off by option, or no memory for the pool).
 */
enum kfence_state {
  KFENCE_UNINIT,
  KFENCE_INITIALISING,
  KFENCE_SAMPLING,
  KFENCE_MAPPING,
  KFENCE_READY,
  KFENCE_DISABLED
};
extern _Atomic int kfence_state KFENCE_HIDDEN;

/*
 * Guard an allocation when the sampler asks for it. Returns NULL when the
 * allocation is not guarded (not sampled, too big, pool full, KFENCE off);
 * the caller then uses the C library. @caller is the hook's return address:
 * stacks start at that frame. @may_init: the caller is program code, not the
 * dynamic loader, so lazy initialisation is safe.
 */
void *kfence_alloc_sampled(size_t size, size_t align, bool zero,
                           const void *caller, bool may_init) KFENCE_HIDDEN;
/*
 * Free @addr, which is_kfence_address(); reports invalid frees. Returns
 * false if @addr is not KFENCE's after all (the pool was being published).
 * In a signal handler that interrupted its thread holding the pool lock,
 * the free is done once that thread has released it.
 */
bool kfence_free_guarded(void *addr, const void *caller) KFENCE_HIDDEN;
/*
 * __kfence_free_threshold (kfence.h) as the hooks read it. The LD_PRELOAD
 * build reads it under a hidden alias (hooks.c), PC-relative instead of
 * through the GOT: one load less in every free(). That is safe there: the
 * preloaded library comes first in every lookup, so every module's
 * references bind to its variable. The other builds read the exported
 * name, as the plugin's inline fast paths do. core.c writes it.
 */
#ifdef KFENCE_PRELOAD
extern uintptr_t kfence_free_threshold KFENCE_HIDDEN;
#define KFENCE_FREE_THRESHOLD kfence_free_threshold
#else
#define KFENCE_FREE_THRESHOLD __kfence_free_threshold
#endif
/* The one test every free-like hook makes first: whether @ptr may be
 * KFENCE's (or the LD_PRELOAD build's arena's), rarely true. */
static inline bool kfence_above_free_threshold(const void *ptr) {
  return __builtin_expect((uintptr_t)ptr >= KFENCE_FREE_THRESHOLD, 0);
}
/*
 * The free fast path of the C++ hooks (hooks_cxx.c): true if KFENCE took
 * @ptr. Cost for memory that is not KFENCE's: one compare of @ptr against
 * the threshold in memory and a predictable branch; what lies above the
 * threshold gets is_kfence_address() in kfence_free_guarded. hooks.c's
 * do_free() makes the same test with its slow half out of line.
 */
static inline bool kfence_free_if_guarded(void *ptr, const void *caller) {
  return kfence_above_free_threshold(ptr) &&
         kfence_free_guarded(ptr, caller);
}
/* Copy of object @i's metadata under the pool lock; false if out of range. */
bool kfence_snapshot_object(long i, struct kfence_metadata *out) KFENCE_HIDDEN;
/* Runs in the SIGSEGV handler; false means "not KFENCE's fault", or one the
 * program cannot go on from (the page could not be opened). */
bool kfence_handle_page_fault(uintptr_t addr, bool is_write,
                              const ucontext_t *uc) KFENCE_HIDDEN;
/* Runs in the SIGSEGV handler for faults outside the pool: reports a C
 * library allocator function that crashed on a KFENCE object. */
void kfence_report_libc_crash(const ucontext_t *uc) KFENCE_HIDDEN;

/* Thread-local recursion guard: the runtime's own allocations go to libc. */
extern __thread bool kfence_in_runtime
    __attribute__((tls_model("initial-exec"))) KFENCE_HIDDEN;

/* ---- locks (core.c) ------------------------------------------------------ */

/*
 * The runtime's mutexes but fault.c's are taken with kfence_lock() and
 * released with kfence_unlock(), which give them all two guarantees:
 *  - a cancelled thread never leaves one locked: cancellation is disabled
 *    while the thread holds it (a report calls open() and write(), both
 *    cancellation points; so may a failing mprotect() under the pool lock,
 *    which logs) and restored after;
 *  - code that runs on the thread holding one, in the middle of what the
 *    lock protects (a report callback, a signal handler that interrupted
 *    it, a fork handler), never waits for it: the lock's bit is set in
 *    kfence_locks_held from before the lock is taken until after it is
 *    released, and what such code may call looks at it first:
 *    kfence_alloc_sampled() leaves the allocation to the C library, a free
 *    or a fault that needs the pool lock goes on without it and defers its
 *    changes to the metadata (core.c's deferred[]), a report waits in
 *    report.c's queue.
 * kfence_lock() returns the cancellation state for kfence_unlock().
 *
 * Disabling cancellation is not enough with glibc: its cancellation points
 * switch the thread to asynchronous cancellation around their system call,
 * and its SIGCANCEL handler tests that type, not the state (2.36's
 * sigcancel_handler; 2.41's ignores a signal pthread_cancel() did not
 * mark). A request sent while the thread last had
 * asynchronous cancellation on, delivered during such a call, unwinds the
 * thread whatever its state. So what the runtime does under a lock calls
 * no cancellation point: it uses the kfence_sys_* calls below, and the one
 * call out of the runtime made under a lock, the report callback, releases
 * the report lock if it is left by unwinding (report.c).
 */
enum {
  KFENCE_LOCK_SETUP = 1,  /* core.c's kfence_setup_lock */
  KFENCE_LOCK_REPORT = 2, /* report.c's kfence_report_lock */
  KFENCE_LOCK_POOL = 4,   /* core.c's kfence_pool_lock */
};
/* System calls straight to the kernel, past the C library's cancellation
 * wrappers: what the runtime calls under a lock (see above). */
static inline int kfence_sys_open(const char *path, int flags, int mode) {
  return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}
static inline ssize_t kfence_sys_read(int fd, void *buf, size_t len) {
  return syscall(SYS_read, fd, buf, len);
}
static inline ssize_t kfence_sys_write(int fd, const void *buf, size_t len) {
  return syscall(SYS_write, fd, buf, len);
}
static inline int kfence_sys_close(int fd) {
  return (int)syscall(SYS_close, fd);
}
extern __thread unsigned char kfence_locks_held
    __attribute__((tls_model("initial-exec"))) KFENCE_HIDDEN;
int kfence_lock(pthread_mutex_t *lock, unsigned bit) KFENCE_HIDDEN;
void kfence_unlock(pthread_mutex_t *lock, unsigned bit,
                   int cancel) KFENCE_HIDDEN;

/* ---- fault handling (fault.c) -------------------------------------------- */

/* The faulting instruction's address, from the signal context. */
uintptr_t kfence_fault_pc(const ucontext_t *uc) KFENCE_HIDDEN;
/* The general registers at the fault, from the signal context; at most
 * @max into @out. Returns how many. */
size_t kfence_fault_registers(const ucontext_t *uc, uintptr_t *out,
                              size_t max) KFENCE_HIDDEN;

void kfence_fault_install(void) KFENCE_HIDDEN;
/* fault.c's lock, held by the forking thread across fork(). */
void kfence_fault_lock_for_fork(void) KFENCE_HIDDEN;
void kfence_fault_unlock_after_fork(void) KFENCE_HIDDEN;
/*
 * Stand in front of SIGSEGV again if the program replaced KFENCE's handler
 * since the last look. Called for each guarded allocation (one syscall): a
 * handler installed later is chained from the next guarded allocation on.
 */
void kfence_fault_recheck(void) KFENCE_HIDDEN;
/*
 * sigaction(SIGSEGV) as the program sees it in the LD_PRELOAD build: while
 * KFENCE's handler is installed, the action reported and the one set are
 * the program's, which KFENCE's handler stands in front of.
 */
/* The C library's functions of kfence_signal.def, SIGSEGV kept behind
 * KFENCE's handler: what the LD_PRELOAD build's entry points and the
 * plugin's hooks call. */
#define KFENCE_SIGNAL(ret, name, params, args)                                 \
  ret kfence_##name params KFENCE_HIDDEN;
#include "kfence_signal.def"
int kfence_fault_sigaction(const struct sigaction *act,
                           struct sigaction *oldact) KFENCE_HIDDEN;

/* ---- the C library behind the hooks (hooks.c) --------------------------- */

/*
 * The name of the C library's free(), realloc() or malloc_usable_size() if
 * @pc is inside it, else NULL. A fault there on a KFENCE object means that
 * code built without the plugin handed the object to the C library, which
 * read the chunk header it expects left of the object (report.c).
 */
const char *kfence_libc_function_at(uintptr_t pc) KFENCE_HIDDEN;

/*
 * Whether another copy of the runtime is the one the process's modules
 * bind to (libkfence-hooks.so in a program run under LD_PRELOAD=
 * libkfence.so): then this copy stays off, and the process has one
 * runtime, the other.
 */
bool kfence_runtime_interposed(void) KFENCE_HIDDEN;

/* This is libkfence.so, which defines malloc & co (LD_PRELOAD), not
 * libkfence.a or libkfence-hooks.so, whose hooks only the plugin's
 * redirected calls reach. */
extern const bool kfence_preloaded KFENCE_HIDDEN;

/* sigaction() of the C library, past the LD_PRELOAD build's interposer. */
int kfence_libc_sigaction(int signum, const struct sigaction *act,
                          struct sigaction *oldact) KFENCE_HIDDEN;

/* ---- the allocator behind the LD_PRELOAD build (preload.c) --------------- */

#ifdef KFENCE_PRELOAD
/*
 * The next definitions of the allocation functions (the C library's),
 * found with dlsym(RTLD_NEXT). Each starts out pointing at a stub that
 * resolves them all. Plain pointers, not atomics: x86 then jumps through
 * the table in one instruction (`jmp *kfence_libc+N(%rip)`; an atomic load
 * is never folded into the jump), one less in every malloc() and free().
 * No thread can race on them: the first call of any of them (or of
 * sigaction) writes the table, before any second thread exists, since
 * pthread_create() allocates the new thread's TLS with calloc() first;
 * after that nothing writes it.
 */
struct kfence_libc {
#define KFENCE_ALLOC(ret, name, params, args) ret(*name) params;
#define KFENCE_FREE(name, params, args) void(*name) params;
#include "kfence_malloc.def"
  int (*sigaction)(int, const struct sigaction *, struct sigaction *);
};
extern struct kfence_libc kfence_libc KFENCE_HIDDEN;
/*
 * dlsym() itself may allocate (calloc for its error state): while resolving,
 * those requests are served from a static arena, which free() must skip.
 * Returns the size of the arena block at @ptr, 0 if @ptr is not one.
 */
size_t kfence_bootstrap_size(const void *ptr) KFENCE_HIDDEN;
/* The arena those blocks come from, for an inline range test. */
#define KFENCE_ARENA_SIZE (64 * 1024)
extern char kfence_bootstrap_arena[KFENCE_ARENA_SIZE] KFENCE_HIDDEN;
#endif

/* ---- reports (report.c) ---------------------------------------------------- */

#define KFENCE_REPORT_BYTES 16

struct kfence_report {
  enum kfence_bug_kind type;
  bool is_write;
  uintptr_t addr;
  /* Snapshot of the object, NULL when no object is involved. */
  const struct kfence_metadata *meta;
  long index; /* kfence-#index */
  /* Where it happened: the faulting code, or the caller of free(). */
  const struct kfence_track *stack;
  /* KFENCE_BUG_MEMORY_CORRUPTION: the bytes shown after the address, at
   * most KFENCE_REPORT_BYTES. */
  const uint8_t *bytes;
  const uint8_t *expected;
  int nr_bytes;
  /* The object was found in a register of a C library function that
   * crashed outside the pool, not at the faulting address. */
  bool from_register;
};

/* ---- allocation sites already guarded (covered.c) ------------------------ */

bool kfence_covered_init(size_t num_objects) KFENCE_HIDDEN;
uint32_t kfence_stack_hash(const struct kfence_track *t) KFENCE_HIDDEN;
void kfence_covered_add(uint32_t hash, int delta) KFENCE_HIDDEN;
bool kfence_covered_contains(uint32_t hash) KFENCE_HIDDEN;

/* ---- frames (symbols.c) -------------------------------------------------- */

#define KFENCE_BUILD_ID_MAX 32 /* bytes; GNU build ids are 20 (SHA-1) */

/* What is known of one PC of a stack. */
struct kfence_frame {
  uintptr_t pc;
  const char *module; /* path of the module holding pc; NULL if none */
  uintptr_t offset;   /* pc - the module's load bias: its ELF address */
  char build_id[KFENCE_BUILD_ID_MAX * 2 + 1]; /* hex; "" if none */
  char function[128];                         /* "" if no symbol covers pc */
  uintptr_t function_offset;
  size_t function_size;
};

/* No heap; see symbols.c for what it reads. */
void kfence_resolve_frame(uintptr_t pc, struct kfence_frame *f) KFENCE_HIDDEN;
const char *kfence_module_basename(const char *path) KFENCE_HIDDEN;

/* Prints the report; aborts if panic_on_warn. On the thread that holds the
 * report lock (from the report callback, or a signal handler that
 * interrupted a report), the report is queued and printed after the one
 * being written, before the lock is released. */
void kfence_report_error(const struct kfence_report *r) KFENCE_HIDDEN;
/*
 * Fills @track with the current stack, starting at the frame whose address
 * is @first (the runtime's own frames are dropped).
 */
void kfence_save_stack(struct kfence_track *track, uintptr_t first) KFENCE_HIDDEN;
/* backtrace() loads libgcc_s on first use; do it where allocating is safe. */
void kfence_report_init(void) KFENCE_HIDDEN;
/*
 * Program start, LD_PRELOAD build: arms the sampler and loads what stack
 * traces need (libgcc_s, through backtrace()), so that the pool can later
 * be set up from any malloc(), even one the dynamic loader makes: setting
 * it up is system calls only.
 */
void kfence_start_sampling(void) KFENCE_HIDDEN;
/*
 * Turns KFENCE off if it is sampling and has no pool yet; returns whether
 * it did. The LD_PRELOAD build's constructor calls it when the process's
 * malloc is another allocator's, which no allocation then leaves.
 */
bool kfence_disable(void) KFENCE_HIDDEN;
/* Set once kfence_start_sampling() has run (LD_PRELOAD build): from then
 * on, the C library's entry points may initialise KFENCE too. */
extern _Atomic bool kfence_preload_started KFENCE_HIDDEN;

/* Takes the descriptor reports go to (a duplicate of stderr), at start-up. */
void kfence_log_open(void) KFENCE_HIDDEN;
/* One line to that descriptor, with one write(): no stdio lock, so it may
 * run in the fault handler. */
void kfence_log_printf(const char *fmt, ...) KFENCE_HIDDEN
    __attribute__((format(printf, 1, 2)));
/* print_stats_at_exit and print_objects_at_exit, to that descriptor. */
void kfence_print_at_exit(bool stats, bool objects) KFENCE_HIDDEN;
/* kfence_report_lock, for fork(): the release writes the reports raised
 * on this thread while it held the lock (kfence_report_error). */
void kfence_report_lock_acquire(void) KFENCE_HIDDEN;
void kfence_report_lock_release(void) KFENCE_HIDDEN;
extern atomic_ulong kfence_stat_bugs KFENCE_HIDDEN;

#endif /* KFENCE_INTERNAL_H */
