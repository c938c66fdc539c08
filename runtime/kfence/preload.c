// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * LD_PRELOAD build only: the C library's allocator behind our malloc & co,
 * and the sigaction()/signal() interposers that keep SIGSEGV ours.
 */
#define _GNU_SOURCE
#include "kfence_internal.h"

#include <dlfcn.h>
#include <link.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

/* The arena only has to outlive dlsym()'s few small requests. */
#define ARENA_SIZE KFENCE_ARENA_SIZE
#define ARENA_HEADER 16
_Alignas(16) char kfence_bootstrap_arena[ARENA_SIZE];
#define arena kfence_bootstrap_arena
static atomic_size_t arena_used;
/* Set while this thread is inside dlsym(). */
static __thread bool resolving __attribute__((tls_model("initial-exec")));

static void *arena_alloc(size_t size) {
  size_t need = ARENA_HEADER + ((size + 15) & ~(size_t)15);
  size_t at = atomic_fetch_add(&arena_used, need);
  if (size > ARENA_SIZE || at + need > ARENA_SIZE) {
    static const char msg[] = "kfence: bootstrap arena exhausted\n";
    write(STDERR_FILENO, msg, sizeof(msg) - 1);
    abort();
  }
  /* Static storage is zeroed and never reused: calloc is free. */
  memcpy(arena + at, &size, sizeof(size));
  return arena + at + ARENA_HEADER;
}

size_t kfence_bootstrap_size(const void *ptr) {
  uintptr_t off = (uintptr_t)ptr - (uintptr_t)arena;
  if (off >= ARENA_SIZE)
    return 0;
  size_t size;
  memcpy(&size, arena + off - ARENA_HEADER, sizeof(size));
  return size ? size : 1;
}

static void *next(const char *name) {
  void *fn = dlsym(RTLD_NEXT, name);
  if (!fn) {
    static const char msg[] = "kfence: the C library does not define ";
    write(STDERR_FILENO, msg, sizeof(msg) - 1);
    write(STDERR_FILENO, name, strlen(name));
    write(STDERR_FILENO, "\n", 1);
    abort();
  }
  return fn;
}

#define RESOLVE(fn) (kfence_libc.fn = (__typeof__(fn) *)next(#fn))

/* Runs once, in the process's first call of an allocation function, before
 * any second thread can exist (struct kfence_libc): no lock needed. */
static void resolve(void) {
  resolving = true;
  RESOLVE(sigaction);
#define KFENCE_ALLOC(ret, name, params, args) RESOLVE(name);
#define KFENCE_FREE(name, params, args) RESOLVE(name);
#include "kfence_malloc.def"
  resolving = false;
}

/* The stubs the table starts with: resolve, then forward. */
static void *boot_malloc(size_t size) {
  if (resolving)
    return arena_alloc(size);
  resolve();
  return kfence_libc.malloc(size);
}
static void *boot_calloc(size_t nmemb, size_t size) {
  if (resolving)
    return arena_alloc(nmemb * size);
  resolve();
  return kfence_libc.calloc(nmemb, size);
}
static void *boot_realloc(void *ptr, size_t size) {
  resolve();
  return kfence_libc.realloc(ptr, size);
}
static void *boot_reallocarray(void *ptr, size_t nmemb, size_t size) {
  resolve();
  return kfence_libc.reallocarray(ptr, nmemb, size);
}
static void boot_free(void *ptr) {
  resolve();
  kfence_libc.free(ptr);
}
static void *boot_aligned_alloc(size_t align, size_t size) {
  resolve();
  return kfence_libc.aligned_alloc(align, size);
}
static int boot_posix_memalign(void **memptr, size_t align, size_t size) {
  resolve();
  return kfence_libc.posix_memalign(memptr, align, size);
}
static void *boot_memalign(size_t align, size_t size) {
  resolve();
  return kfence_libc.memalign(align, size);
}
static void *boot_valloc(size_t size) {
  resolve();
  return kfence_libc.valloc(size);
}
static void *boot_pvalloc(size_t size) {
  resolve();
  return kfence_libc.pvalloc(size);
}
static size_t boot_malloc_usable_size(void *ptr) {
  resolve();
  return kfence_libc.malloc_usable_size(ptr);
}
static int boot_sigaction(int signum, const struct sigaction *act,
                          struct sigaction *oldact) {
  resolve();
  return kfence_libc.sigaction(signum, act, oldact);
}

/* One stub above for each function of kfence_malloc.def. */
struct kfence_libc kfence_libc = {
#define KFENCE_ALLOC(ret, name, params, args) .name = boot_##name,
#define KFENCE_FREE(name, params, args) .name = boot_##name,
#include "kfence_malloc.def"
    .sigaction = boot_sigaction,
};

/* sigaction() and signal(): SIGSEGV's action stays behind KFENCE's handler. */
#define KFENCE_SIGNAL(ret, name, params, args)                                 \
  ret name params { return kfence_##name args; }
#include "kfence_signal.def"

/*
 * Whether a call of malloc() by name reaches ours: its fast path takes the
 * countdown from 1 to 0, another allocator's leaves it at 1. A call from
 * this library resolves as the program's calls do (to the first definition
 * in the process), unless the program defines malloc itself, which then
 * takes this call too. dlsym(RTLD_DEFAULT, "malloc") would not do: for a
 * non-PIE program that takes malloc's address it returns the program's PLT
 * entry. Through volatile pointers, or the compiler drops the pair.
 */
static bool malloc_is_ours(void) {
  void *(*volatile call_malloc)(size_t) = malloc;
  void (*volatile call_free)(void *) = free;
  uint32_t saved = __kfence_countdown;
  __kfence_countdown = 1;
  call_free(call_malloc(1));
  bool ours = __kfence_countdown == 0;
  __kfence_countdown = saved;
  return ours;
}

/*
 * Another allocator preloaded before us (LD_PRELOAD="libjemalloc.so.2
 * libkfence.so"), or the program's own malloc, takes every allocation: the
 * sampler sees none and KFENCE guards nothing. It is turned off, with one
 * line saying why, before its pool exists (a guarded object would reach
 * that allocator's free()). The allocator is named by dladdr1() of what
 * dlsym() finds, if a function is defined there (not a PLT entry, see
 * above). dlsym() allocates only for an error, through the functions the
 * probe above resolved.
 */
static void check_malloc(void) {
  if (malloc_is_ours() || !kfence_disable())
    return;
  Dl_info found, program;
  const ElfW(Sym) *sym = NULL;
  void *fn = dlsym(RTLD_DEFAULT, "malloc");
  bool named = fn && dladdr1(fn, &found, (void **)&sym, RTLD_DL_SYMENT) &&
               sym && sym->st_shndx != SHN_UNDEF && found.dli_saddr == fn &&
               found.dli_fname && found.dli_fname[0];
  if (named && dladdr((void *)getauxval(AT_PHDR), &program) &&
      program.dli_fbase == found.dli_fbase) {
    kfence_log_printf("kfence: the process's malloc() is the program's own, "
                      "not libkfence.so's: no allocation reaches KFENCE, "
                      "which is off.\n");
  } else if (named) {
    const char *name = kfence_module_basename(found.dli_fname);
    kfence_log_printf("kfence: the process's malloc() is %s's, not "
                      "libkfence.so's: no allocation reaches KFENCE, which "
                      "is off. Preload libkfence.so first "
                      "(LD_PRELOAD=\"libkfence.so %s\"): it then guards its "
                      "samples and hands every other allocation to %s.\n",
                      name, name, name);
  } else {
    kfence_log_printf("kfence: the process's malloc() is not libkfence.so's: "
                      "no allocation reaches KFENCE, which is off. Preload "
                      "libkfence.so before any other allocator.\n");
  }
}

/*
 * Before this, malloc() runs for the dynamic loader and the C library's
 * start-up, which must not set KFENCE up; after it, the first guarded
 * allocation maps the pool, as in the hooks build, so that a process that
 * guards nothing (most short-lived ones) never pays for mapping it.
 */
__attribute__((constructor)) static void kfence_preload_ctor(void) {
  kfence_start_sampling();
  check_malloc();
  atomic_store_explicit(&kfence_preload_started, true, memory_order_release);
}
