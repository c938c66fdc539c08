/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * klto KFENCE: a sampling heap-error detector for user space.
 *
 * A small fraction of heap allocations is placed on its own page of a
 * dedicated pool, flush against a protected guard page; out-of-bounds
 * accesses, use-after-free and invalid frees of those objects are reported in
 * the Linux KFENCE format. Everything else goes to the C library's allocator.
 * See docs/kfence.md.
 */
#ifndef KFENCE_H
#define KFENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The runtime a program built with the klto plugin links, by the plugin's
 * kfence-runtime option: libkfence-hooks.so (shared, the default), the one
 * copy that every module of a process binds to, or libkfence.a (static),
 * linked into an executable that is the only module built with kfence.
 */
#define KFENCE_RUNTIME_SHARED "libkfence-hooks.so"
#define KFENCE_RUNTIME_STATIC "libkfence.a"

/*
 * Every object the klto plugin redirects references this symbol, made with
 * the runtime's file name, which only that runtime defines: LLD fetches
 * the runtime through the object's dependent-library entry, and a linker
 * that ignores those entries (GNU ld, gold) fails with an undefined
 * reference whose name says what to add.
 */
#define KFENCE_RUNTIME_MARKER(runtime)                                         \
  "klto: the KFENCE runtime is missing from this link: link with "             \
  "-fuse-ld=lld, or add klto's " runtime

/*
 * The pool, published once by initialisation and never moved. The size is 0
 * until then (and stays 0 when KFENCE is disabled), so is_kfence_address()
 * needs no "initialised?" test of its own.
 */
extern char *__kfence_pool;
extern size_t __kfence_pool_size;

/*
 * UINTPTR_MAX until the pool exists, then its start. The free() fast path
 * the plugin inlines is one compare against it: pointers below go to the C
 * library, the rest to __kfence_free(), which tests is_kfence_address().
 * The pool's address space is reserved at program start and mmap() works
 * from the top down, so heap memory mapped later lies below it.
 */
extern uintptr_t __kfence_free_threshold;

/*
 * Is @addr inside the KFENCE pool (object, guard page or metadata-free page)?
 * Cost: two loads from one cache line, a subtraction and a compare.
 */
static inline bool is_kfence_address(const void *addr) {
  return (uintptr_t)addr - (uintptr_t)__kfence_pool < __kfence_pool_size;
}

/*
 * Initialise from KFENCE_OPTIONS and map the pool if that has not happened
 * yet (options are read at program start; the pool is mapped at the first
 * guarded allocation). Safe to call
 * from racing threads; returns whether KFENCE is enabled.
 */
bool kfence_init(void);

/* The requested size of the live KFENCE object at @addr, 0 if there is none. */
size_t kfence_ksize(const void *addr);

/*
 * The start of the live KFENCE object whose page contains @addr, NULL if
 * @addr is not on the page of a live object.
 */
void *kfence_object_start(const void *addr);

/* Counters, the twin of the kernel's debugfs "stats" file. */
struct kfence_stats {
  bool enabled;
  unsigned long allocated;          /* objects live right now */
  unsigned long allocs;             /* guarded allocations since start */
  unsigned long frees;              /* guarded frees since start */
  unsigned long zombies;            /* objects retired after use-after-free */
  unsigned long bugs;               /* reports printed */
  unsigned long skipped_incompat;   /* sampled but too big or too aligned */
  unsigned long skipped_capacity;   /* sampled but the pool was full */
  unsigned long skipped_covered;    /* sampled, but the pool was mostly in use
                                       and the stack already had an object */
};
void kfence_get_stats(struct kfence_stats *stats);
void kfence_print_stats(FILE *out);

/*
 * Every object of the pool with its allocation and free stacks, the twin of
 * the kernel's debugfs "objects" file.
 */
void kfence_print_objects(FILE *out);

/*
 * A report as data, for a crash reporter: what kfence_set_report_callback()
 * hands over after each report is written. Frames are return addresses
 * (the first is the faulting instruction, or the caller of free()); the
 * text and JSON forms are those the report was written in (docs/kfence.md
 * documents the JSON fields). Everything points into the runtime's own
 * buffers, valid until the callback returns.
 */
enum kfence_bug_kind {
  KFENCE_BUG_OUT_OF_BOUNDS,
  KFENCE_BUG_USE_AFTER_FREE,
  KFENCE_BUG_MEMORY_CORRUPTION,
  KFENCE_BUG_INVALID_ACCESS,
  KFENCE_BUG_INVALID_FREE,
};

struct kfence_bug_stack {
  int tid;       /* thread id ("task" in the text form) */
  int nr_frames; /* 0: none (an object never freed has no free stack) */
  const uintptr_t *frames;
};

struct kfence_bug {
  enum kfence_bug_kind kind;
  bool is_write; /* accesses; false for frees */
  uintptr_t address;
  struct kfence_bug_stack stack;
  long object_index; /* kfence-#index, -1 when no object */
  uintptr_t object_start;
  size_t object_size;
  unsigned long slot_objects; /* objects the slot has held */
  struct kfence_bug_stack allocated_by, freed_by;
  const char *text; /* the kernel-format report */
  const char *json; /* one JSON object, no newline */
};

/*
 * Called after each report, from the SIGSEGV handler for accesses: do not
 * allocate or take locks the program may hold; copy what you need. One
 * callback per process; NULL removes it. The callback may call this (to
 * unregister itself), kfence_get_stats(), kfence_print_stats() and
 * kfence_print_objects(); a report it causes is written after it returns.
 */
typedef void (*kfence_report_fn)(const struct kfence_bug *bug, void *arg);
void kfence_set_report_callback(kfence_report_fn fn, void *arg);

/*
 * Allocations that stay on the fast path before this thread leaves it, to
 * draw the next sample point or look at the clock. The plugin inlines
 * malloc's fast path into the program: decrement this, and when that
 * borrows (it was 0) call __kfence_malloc_sampled() instead of malloc().
 * Testing the borrow, not the new value, lets x86 do the whole test as
 * `subl $1, %fs:...; jb` (one read-modify-write and a fused branch).
 * initial-exec: no __tls_get_addr call (which could allocate) on the fast
 * path, also in the shared library. Not for use by hand.
 */
extern __thread uint32_t __kfence_countdown
    __attribute__((tls_model("initial-exec")));

/* malloc() for a caller whose __kfence_countdown just borrowed. */
void *__kfence_malloc_sampled(size_t size);

/*
 * The hooks that the klto compiler plugin redirects allocation calls to.
 * Same contracts as the C library functions of the same name without the
 * __kfence_ prefix.
 */
#define KFENCE_ALLOC(ret, name, params, args) ret __kfence_##name params;
#define KFENCE_FREE(name, params, args) void __kfence_##name params;
#include "kfence_malloc.def"

/* The hooks the plugin redirects calls that set a signal's action to. */
#define KFENCE_SIGNAL(ret, name, params, args) ret __kfence_##name params;
#include "kfence_signal.def"

#ifdef __cplusplus
}
#endif

#endif /* KFENCE_H */
