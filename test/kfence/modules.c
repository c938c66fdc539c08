// A process has one KFENCE runtime however many of its modules were built
// with -fplugin-arg-klto-kfence: a program and the shared libraries it
// dlopen()s (RTLD_LOCAL, in either order) or links with the documented
// line allocate from one pool and free what each other allocated, at
// sample_rate=1, with no report. Built with kfence-runtime=static each
// module carries a runtime of its own, and the first free across modules
// crashes in the C library: why shared is the default.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -g -O1 -fPIC -shared -fplugin=%plugin -fplugin-arg-klto-kfence \
// RUN:   -I%kfence_include --ld-path=%stock_ld -DLIB=a %s -o %t/liba.so
// RUN: %clang -g -O1 -fPIC -shared -fplugin=%plugin -fplugin-arg-klto-kfence \
// RUN:   -I%kfence_include --ld-path=%stock_ld -DLIB=b %s -o %t/libb.so
// A program built with the plugin, then one built without it.
// RUN: %clang -g -O1 -fplugin=%plugin -fplugin-arg-klto-kfence -I%kfence_include \
// RUN:   --ld-path=%stock_ld %s -o %t/main
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t/main %t/liba.so %t/libb.so 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,NOPLAIN --implicit-check-not=KFENCE
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t/main %t/libb.so %t/liba.so 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,NOPLAIN --implicit-check-not=KFENCE
// RUN: %clang -g -O1 -DPLAIN --ld-path=%stock_ld %s -o %t/plain
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t/plain %t/liba.so %t/libb.so 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,PLAIN --implicit-check-not=KFENCE
// Linked against both libraries, with the line docs/kfence.md gives.
// RUN: %clang -g -O1 -fplugin=%plugin -fplugin-arg-klto-kfence -I%kfence_include \
// RUN:   -fuse-ld=lld --ld-path=%stock_ld -DLINKED %s -L%t -la -lb -Wl,-rpath,%t -o %t/linked
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t/linked 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,NOPLAIN --implicit-check-not=KFENCE
// Under LD_PRELOAD=libkfence.so the preloaded runtime is the process's one:
// the modules bind to it, libkfence-hooks.so stays off, and the stats are
// printed once.
// RUN: env KFENCE_OPTIONS=sample_rate=1:print_stats_at_exit=1 \
// RUN:   LD_PRELOAD=%klto_libdir/libkfence.so %t/main %t/liba.so %t/libb.so 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,NOPLAIN,PRELOAD --implicit-check-not=KFENCE
// One runtime per module: the libraries' objects reach the C library's free().
// RUN: %clang -g -O1 -fPIC -shared -fplugin=%plugin -fplugin-arg-klto-kfence-runtime=static \
// RUN:   -I%kfence_include --ld-path=%stock_ld -DLIB=a %s -o %t/liba-static.so
// RUN: %clang -g -O1 -fPIC -shared -fplugin=%plugin -fplugin-arg-klto-kfence-runtime=static \
// RUN:   -I%kfence_include --ld-path=%stock_ld -DLIB=b %s -o %t/libb-static.so
// RUN: %clang -g -O1 -fplugin=%plugin -fplugin-arg-klto-kfence-runtime=static -I%kfence_include \
// RUN:   --ld-path=%stock_ld %s -o %t/main-static
// RUN: env KFENCE_OPTIONS=sample_rate=1 not --crash %t/main-static %t/liba-static.so \
// RUN:   %t/libb-static.so 2>&1 | FileCheck %s --check-prefix=STATIC
// and a program linked against them does not link: LLD binds its direct
// reference to the countdown to the libraries' copy.
// RUN: mkdir -p %t/static && cp %t/liba-static.so %t/static/liba.so && cp %t/libb-static.so %t/static/libb.so
// RUN: not %clang -g -O1 -fplugin=%plugin -fplugin-arg-klto-kfence-runtime=static -I%kfence_include \
// RUN:   -fuse-ld=lld --ld-path=%stock_ld -DLINKED %s -L%t/static -la -lb -o %t/linked-static 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STATIC-LINK
#include <stdio.h>
#include <stdlib.h>

#ifdef LIB
#include <kfence.h>
#define CAT2(a, b) a##_##b
#define CAT(a, b) CAT2(a, b)
#define EXPORT(name) CAT(LIB, name)

void *EXPORT(alloc)(size_t n) { return malloc(n); }
void EXPORT(release)(void *p) { free(p); }
/* The pool this module's code sees, and its runtime's counters. */
const void *EXPORT(pool)(void) { return __kfence_pool; }
unsigned long EXPORT(allocs)(void) {
  struct kfence_stats s;
  kfence_get_stats(&s);
  return s.allocs;
}
#else
#include <dlfcn.h>
#include <string.h>
#ifndef PLAIN
#include <kfence.h>
#endif

struct module {
  void *(*alloc)(size_t);
  void (*release)(void *);
  const void *(*pool)(void);
  unsigned long (*allocs)(void);
};

#ifdef LINKED
#define DECLARE(m)                                                             \
  void *m##_alloc(size_t);                                                     \
  void m##_release(void *);                                                    \
  const void *m##_pool(void);                                                  \
  unsigned long m##_allocs(void);
DECLARE(a)
DECLARE(b)
static struct module linked_a = {a_alloc, a_release, a_pool, a_allocs};
static struct module linked_b = {b_alloc, b_release, b_pool, b_allocs};
#endif

/* The library's functions are named after its file: liba.so has a_*. */
static struct module load(const char *path) {
  struct module m;
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    printf("dlopen: %s\n", dlerror());
    exit(1);
  }
  const char *base = strrchr(path, '/') + 4;
  char name[32];
#define SYM(field)                                                             \
  snprintf(name, sizeof(name), "%c_" #field, *base);                           \
  *(void **)&m.field = dlsym(h, name);
  SYM(alloc) SYM(release) SYM(pool) SYM(allocs)
  return m;
}

int main(int argc, char **argv) {
#ifdef LINKED
  (void)argc, (void)argv;
  struct module x = linked_a, y = linked_b;
#else
  if (argc < 3)
    return 2;
  struct module x = load(argv[1]), y = load(argv[2]);
#endif
  int guarded = 0;
  /* Each allocates, the other frees; a program built with the plugin frees
   * the libraries' objects too, and they free its own. */
  for (int i = 0; i < 1000; i++) {
    char *p = x.alloc(32), *q = y.alloc(48), *r = y.alloc(16);
    guarded += p && (size_t)(p - (char *)x.pool()) < 1 << 30;
    y.release(p);
    x.release(q);
#ifdef PLAIN
    x.release(r);
#else
    free(r);
    char *s = malloc(24);
    guarded += is_kfence_address(s);
    x.release(s);
#endif
  }
  /* The pool is published at the first guarded allocation. */
  const void *pool = x.pool();
  printf("one pool: %d\n", pool && pool == y.pool());
#ifndef PLAIN
  printf("the program's too: %d\n", pool == __kfence_pool);
#endif
  printf("guarded: %d\n", guarded);
  printf("counted by one runtime: %d\n", x.allocs() == y.allocs() &&
                                             x.allocs() >= 3000);
  fflush(stdout); /* before the stats printed at exit */
  return 0;
}
#endif

// CHECK: one pool: 1
// PLAIN-NOT: the program's
// CHECK-NOT: the program's too: 0
// PLAIN: guarded: 1000
// NOPLAIN: guarded: 2000
// CHECK: counted by one runtime: 1
// PRELOAD: enabled: 1
// PRELOAD-NOT: enabled:
// STATIC-NOT: one pool
// STATIC-LINK: error: relocation {{.*}} cannot be used against symbol '__kfence_countdown'; recompile with -fPIC
