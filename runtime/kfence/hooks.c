// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * The allocation entry points. Built three times: into libkfence-hooks.so
 * (KFENCE_HOOKS_SHARED) and libkfence.a, where only the __kfence_* hooks
 * exist and the C library's functions are called directly, and with
 * KFENCE_PRELOAD into libkfence.so, which also defines malloc & co so that
 * LD_PRELOAD covers unmodified programs.
 *
 * Fast path of an allocation: kfence_sample_hit() then the C library's
 * function. Fast path of a free: is_kfence_address() then the C library's.
 * For direct calls of malloc and free the plugin inlines cheaper versions
 * into the program (the same countdown; for free, one compare against
 * __kfence_free_threshold) and calls __kfence_malloc_sampled or
 * __kfence_free only when they fire.
 * Each hook passes its return address down so that stacks start in the
 * program, not in the runtime.
 */
#define _GNU_SOURCE
#include "kfence_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef KFENCE_PRELOAD
#define LIBC(fn) kfence_libc.fn
/* Inline range test: every free() of the program passes here. */
#define BOOTSTRAP_SIZE(ptr)                                                    \
  ((uintptr_t)(ptr) - (uintptr_t)kfence_bootstrap_arena < KFENCE_ARENA_SIZE    \
       ? kfence_bootstrap_size(ptr)                                            \
       : 0)
#else
#define LIBC(fn) fn
#define BOOTSTRAP_SIZE(ptr) ((void)(ptr), (size_t)0)
#endif

#define CALLER __builtin_return_address(0)

/*
 * Where free() and its relatives leave the fast path (kfence.h). The hooks
 * build starts at the top: nothing leaves it before there is a pool. The
 * LD_PRELOAD build starts at the bootstrap arena, in this library's .bss:
 * the heap (brk) lies below it and mmap() places later mappings below it,
 * so one compare also sends the arena's blocks (which no C library function
 * may see) to the slow path. setup_pool() (core.c) then lowers it to the
 * pool if the pool lies lower.
 */
#ifdef KFENCE_PRELOAD
uintptr_t __kfence_free_threshold = (uintptr_t)kfence_bootstrap_arena;
extern uintptr_t kfence_free_threshold
    __attribute__((alias("__kfence_free_threshold")));
#else
uintptr_t __kfence_free_threshold = UINTPTR_MAX;
#endif

/* What a program built with the plugin's redirection references. */
#if defined(KFENCE_HOOKS_SHARED)
const char kfence_runtime_marker __asm__(
    KFENCE_RUNTIME_MARKER(KFENCE_RUNTIME_SHARED)) = 0;
#elif !defined(KFENCE_PRELOAD)
const char kfence_runtime_marker __asm__(
    KFENCE_RUNTIME_MARKER(KFENCE_RUNTIME_STATIC)) = 0;
#endif

#ifdef KFENCE_HOOKS_SHARED
/* This copy's own __kfence_malloc_sampled, whatever the dynamic loader binds
 * that name to. */
extern __typeof__(__kfence_malloc_sampled) kfence_own_malloc_sampled
    __attribute__((alias("__kfence_malloc_sampled"), visibility("hidden")));

bool kfence_runtime_interposed(void) {
  void *bound = dlsym(RTLD_DEFAULT, "__kfence_malloc_sampled");
  return bound && bound != (void *)kfence_own_malloc_sampled;
}
#else
/* The preloaded library comes first in every lookup; libkfence.a is linked
 * into the executable, the only module built with it. */
bool kfence_runtime_interposed(void) { return false; }
#endif

#ifdef KFENCE_PRELOAD
const bool kfence_preloaded = true;
#else
const bool kfence_preloaded = false;
#endif

int kfence_libc_sigaction(int signum, const struct sigaction *act,
                          struct sigaction *oldact) {
  return LIBC(sigaction)(signum, act, oldact);
}

const char *kfence_libc_function_at(uintptr_t pc) {
  Dl_info info;
  if (!dladdr((void *)pc, &info) || !info.dli_saddr)
    return NULL;
  if (info.dli_saddr == (void *)LIBC(free))
    return "free";
  if (info.dli_saddr == (void *)LIBC(realloc))
    return "realloc";
  if (info.dli_saddr == (void *)LIBC(malloc_usable_size))
    return "malloc_usable_size";
  return NULL;
}

static bool is_power_of_2(size_t x) { return x && !(x & (x - 1)); }

/*
 * The slow halves of the entry points are out of line (noinline) so that
 * the fast paths save no registers and set up no frame: each is its test
 * and a tail jump to the C library. They are cold so that the common case
 * falls through every branch: otherwise clang makes the sampled tail call
 * of malloc, calloc and realloc the fall-through, a taken branch more on
 * every call (test/kfence/preload-entry.test pins both).
 */

/* malloc once the sampler has fired: guarded if the pool can take it. */
__attribute__((noinline, cold)) static void *
malloc_sampled(size_t size, const void *caller, bool may_init) {
  void *p = kfence_alloc_sampled(size, 0, false, caller, may_init);
  return p ? p : LIBC(malloc)(size);
}

/*
 * Fast path of malloc(): the countdown (kfence_sample_hit) and the jump to
 * the C library. x86, LD_PRELOAD build: 4 instructions (the countdown's
 * TLS offset from the GOT, subl, jb not taken, jmp through kfence_libc;
 * test/kfence/preload-entry.test checks the entry points' code).
 */
static inline void *do_malloc(size_t size, const void *caller, bool may_init) {
  if (kfence_sample_hit())
    return malloc_sampled(size, caller, may_init);
  return LIBC(malloc)(size);
}

void *__kfence_malloc_sampled(size_t size) {
  return malloc_sampled(size, CALLER, true);
}

/*
 * free() at or above the threshold: KFENCE's, the arena's (kept forever),
 * or the C library's after all, mapped above the pool or the arena. The
 * last is rare natively (mmap() works from the top down) but the rule under
 * the legacy bottom-up layout and under valgrind, which maps the C
 * library's large blocks above the libraries: two inline range tests send
 * it on before any call, not through kfence_free_guarded().
 */
__attribute__((noinline)) static void free_above_threshold(void *ptr,
                                                           const void *caller) {
  if (is_kfence_address(ptr)) {
    if (kfence_free_guarded(ptr, caller))
      return;
  } else if (BOOTSTRAP_SIZE(ptr)) {
    return;
  }
  LIBC(free)(ptr);
}

/*
 * Fast path of free(): one compare of @ptr against the threshold
 * in memory, a branch, and the jump to the C library (x86: cmp, jbe,
 * jmp *: the LD_PRELOAD build's free() is 3 instructions, checked by
 * test/kfence/preload-entry.test).
 */
static inline void do_free(void *ptr, const void *caller) {
  if (kfence_above_free_threshold(ptr)) {
    free_above_threshold(ptr, caller);
    return;
  }
  LIBC(free)(ptr);
}

/* calloc() once the sampler has fired. A product that overflows takes the
 * sample as a request too big to guard (it is passed on); the C library
 * then fails it with ENOMEM. */
__attribute__((noinline, cold)) static void *
calloc_sampled(size_t nmemb, size_t size, const void *caller, bool may_init) {
  size_t total;
  if (__builtin_mul_overflow(nmemb, size, &total))
    total = SIZE_MAX;
  void *p = kfence_alloc_sampled(total, 0, true, caller, may_init);
  return p ? p : LIBC(calloc)(nmemb, size);
}

/* Fast path: the countdown and the jump, as malloc; the C library checks
 * nmemb * size for overflow itself, so the fast path needs no registers
 * saved for it. */
static inline void *do_calloc(size_t nmemb, size_t size, const void *caller,
                              bool may_init) {
  if (kfence_sample_hit())
    return calloc_sampled(nmemb, size, caller, may_init);
  return LIBC(calloc)(nmemb, size);
}

/* Usable size of a block that is not KFENCE's. */
static size_t libc_usable_size(void *ptr) {
  size_t boot = BOOTSTRAP_SIZE(ptr);
  return boot ? boot : LIBC(malloc_usable_size)(ptr);
}

/*
 * Moving between guarded and C library memory is malloc + copy + free: the
 * C library cannot resize a block it does not own, nor KFENCE one that
 * needs a new page. @hit: the caller's kfence_sample_hit() fired for @ptr,
 * which is then NULL or the C library's (below the threshold) and @size
 * is not 0.
 */
__attribute__((noinline, cold)) static void *
realloc_slow(void *ptr, size_t size, const void *caller, bool may_init,
             bool hit) {
  if (hit && !ptr)
    return malloc_sampled(size, caller, may_init);
  if (hit) {
    void *p = kfence_alloc_sampled(size, 0, false, caller, may_init);
    if (!p)
      return LIBC(realloc)(ptr, size);
    size_t old_size = libc_usable_size(ptr);
    memcpy(p, ptr, old_size < size ? old_size : size);
    LIBC(free)(ptr);
    return p;
  }
  if (!ptr)
    return do_malloc(size, caller, may_init);
  /* Blocks that no LIBC(realloc) may see: KFENCE's and the arena's. */
  bool in_pool = is_kfence_address(ptr);
  bool guarded = in_pool || BOOTSTRAP_SIZE(ptr);
  /* glibc's realloc(p, 0) frees and returns NULL; it takes no sample, as
   * every sample hit must reach kfence_alloc_sampled(). */
  if (!guarded && (size == 0 || !kfence_sample_hit()))
    return LIBC(realloc)(ptr, size);
  size_t old_size = in_pool ? kfence_ksize(ptr) : libc_usable_size(ptr);
  if (guarded && (size == 0 || (in_pool && !old_size))) {
    /* Freed as glibc would; or not a live object, which free() reports as
     * an invalid free. */
    do_free(ptr, caller);
    if (size)
      errno = EINVAL;
    return NULL;
  }
  /* An unguarded block got here because it was sampled. */
  bool sampled = !guarded || kfence_sample_hit();
  void *p = sampled ? kfence_alloc_sampled(size, 0, false, caller, may_init) : NULL;
  if (!p) {
    if (!guarded)
      return LIBC(realloc)(ptr, size);
    p = LIBC(malloc)(size);
    if (!p)
      return NULL;
  }
  memcpy(p, ptr, old_size < size ? old_size : size);
  do_free(ptr, caller);
  return p;
}

/*
 * Fast path: a block below the threshold (neither KFENCE's nor the arena's;
 * NULL too, for which the C library's realloc is malloc) and no sample:
 * the C library's realloc. Size 0 takes no sample (glibc frees and returns
 * NULL). Inline, so that the fast path saves no registers: 10 instructions
 * on x86 (the return address, cmp, branch, test, branch, the countdown in
 * three, the jump in two; test/kfence/preload-entry.test).
 */
static inline void *do_realloc(void *ptr, size_t size, const void *caller,
                               bool may_init) {
  if (kfence_above_free_threshold(ptr))
    return realloc_slow(ptr, size, caller, may_init, false);
  if (size != 0 && kfence_sample_hit())
    return realloc_slow(ptr, size, caller, may_init, true);
  return LIBC(realloc)(ptr, size);
}

static inline void *do_reallocarray(void *ptr, size_t nmemb, size_t size,
                                    const void *caller, bool may_init) {
  size_t total;
  if (__builtin_mul_overflow(nmemb, size, &total)) {
    errno = ENOMEM;
    return NULL;
  }
  return do_realloc(ptr, total, caller, may_init);
}

/* A sampled allocation of a power-of-2 alignment, from the pool; NULL if
 * not sampled or not guarded: the C library decides the rest. */
static inline void *aligned_sampled(size_t align, size_t size,
                                    const void *caller, bool may_init) {
  if (!is_power_of_2(align) || !kfence_sample_hit())
    return NULL;
  return kfence_alloc_sampled(size, align, false, caller, may_init);
}

static inline void *do_memalign(size_t align, size_t size, const void *caller,
                                bool may_init) {
  void *p = aligned_sampled(align, size, caller, may_init);
  return p ? p : LIBC(memalign)(align, size);
}

static inline void *do_aligned_alloc(size_t align, size_t size,
                                     const void *caller, bool may_init) {
  void *p = aligned_sampled(align, size, caller, may_init);
  return p ? p : LIBC(aligned_alloc)(align, size);
}

static inline int do_posix_memalign(void **memptr, size_t align, size_t size,
                                    const void *caller, bool may_init) {
  if (!is_power_of_2(align) || align % sizeof(void *))
    return EINVAL;
  void *p = aligned_sampled(align, size, caller, may_init);
  if (!p)
    return LIBC(posix_memalign)(memptr, align, size);
  *memptr = p;
  return 0;
}

static inline void *do_valloc(size_t size, const void *caller, bool may_init) {
  if (kfence_sample_hit()) {
    void *p = kfence_alloc_sampled(size, kfence_page_size, false, caller, may_init);
    if (p)
      return p;
  }
  return LIBC(valloc)(size);
}

/*
 * pvalloc rounds the size up to whole pages, 0 to one page. Larger requests
 * reach kfence_alloc_sampled() too, which counts them as too big and passes
 * the sample on.
 */
static inline void *do_pvalloc(size_t size, const void *caller, bool may_init) {
  if (kfence_sample_hit()) {
    size_t page = (size_t)getpagesize();
    void *p = kfence_alloc_sampled(size > page ? size : page, page, false,
                                   caller, may_init);
    if (p)
      return p;
  }
  return LIBC(pvalloc)(size);
}

__attribute__((noinline)) static size_t usable_size_above_threshold(void *ptr) {
  if (is_kfence_address(ptr))
    return kfence_ksize(ptr);
  return libc_usable_size(ptr);
}

/* Below the threshold (NULL too, which the C library answers with 0): the
 * C library's block. */
static inline size_t do_malloc_usable_size(void *ptr, const void *caller,
                                           bool may_init) {
  (void)caller, (void)may_init; /* an object's size needs neither */
  if (kfence_above_free_threshold(ptr))
    return usable_size_above_threshold(ptr);
  return LIBC(malloc_usable_size)(ptr);
}

#define KFENCE_UNPAREN(...) __VA_ARGS__

/* The hooks run in program code only: they may initialise KFENCE. */
#define KFENCE_ALLOC(ret, name, params, args)                                 \
  ret __kfence_##name params {                                                \
    return do_##name(KFENCE_UNPAREN args, CALLER, true);                      \
  }
#define KFENCE_FREE(name, params, args)                                       \
  void __kfence_##name params { do_##name(KFENCE_UNPAREN args, CALLER); }
#include "kfence_malloc.def"

#define KFENCE_SIGNAL(ret, name, params, args)                                 \
  ret __kfence_##name params { return kfence_##name args; }
#include "kfence_signal.def"

#ifdef KFENCE_PRELOAD
/*
 * The C library's entry points, for LD_PRELOAD. The dynamic loader and the
 * C library call these too, before KFENCE's constructor has run: until it
 * has (kfence_preload_started), they never initialise KFENCE themselves.
 */
#define KFENCE_ALLOC(ret, name, params, args)                                 \
  ret name params { return do_##name(KFENCE_UNPAREN args, CALLER, false); }
#define KFENCE_FREE(name, params, args)                                       \
  void name params { do_##name(KFENCE_UNPAREN args, CALLER); }
#include "kfence_malloc.def"
#endif
