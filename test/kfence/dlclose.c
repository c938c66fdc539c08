// dlclose() of a library built with -fplugin-arg-klto-kfence leaves nothing
// of KFENCE's behind to fail later, and takes nothing with it that is
// still needed: after 500 dlopen/dlclose cycles at sample_rate=1 the
// process holds the mappings and address space one cycle left it (one
// pool, not one per cycle), the SIGSEGV handler is in mapped code, the
// program's own handler still recovers the program's own fault, and a
// use-after-free of the library's object is still reported. With
// kfence-runtime=static each cycle maps a pool of its own and leaves the
// handler in unmapped code: the program's own fault kills it.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -g -O1 -fPIC -shared -fplugin=%plugin -fplugin-arg-klto-kfence \
// RUN:   --ld-path=%stock_ld -DLIB %s -o %t/lib.so
// RUN: %clang -g -O1 --ld-path=%stock_ld %s -o %t/main
// RUN: env KFENCE_OPTIONS=sample_rate=1:num_objects=16 %t/main %t/lib.so 500 2>&1 \
// RUN:   | FileCheck %s
// RUN: %clang -g -O1 -fPIC -shared -fplugin=%plugin -fplugin-arg-klto-kfence-runtime=static \
// RUN:   --ld-path=%stock_ld -DLIB %s -o %t/lib-static.so
// RUN: env KFENCE_OPTIONS=sample_rate=1:num_objects=16 not --crash %t/main \
// RUN:   %t/lib-static.so 50 2>&1 | FileCheck %s --check-prefix=STATIC
#ifdef LIB
#include <stdlib.h>
void *lib_alloc(size_t n) { return malloc(n); }
void lib_release(void *p) { free(p); }
#else
#define _GNU_SOURCE
#include <dlfcn.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static sigjmp_buf env;
static volatile int caught;

static void handler(int sig) {
  (void)sig;
  caught++;
  siglongjmp(env, 1);
}

static long mappings(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  long lines = 0;
  for (int c; (c = fgetc(f)) != EOF;)
    lines += c == '\n';
  fclose(f);
  return lines;
}

static long vm_size_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (fgets(line, sizeof(line), f))
    if (sscanf(line, "VmSize: %ld kB", &kb) == 1)
      break;
  fclose(f);
  return kb;
}

/* One cycle; returns the library's last object, freed, if @keep. */
static char *cycle(const char *path, int keep) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    printf("dlopen: %s\n", dlerror());
    exit(1);
  }
  void *(*alloc)(size_t) = (void *(*)(size_t))dlsym(h, "lib_alloc");
  void (*release)(void *) = (void (*)(void *))dlsym(h, "lib_release");
  char *p = alloc(32);
  release(p);
  dlclose(h);
  return keep ? p : NULL;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  int cycles = atoi(argv[2]);
  signal(SIGSEGV, handler);
  char *no_access =
      mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  cycle(argv[1], 0);
  long maps = mappings(), vm = vm_size_kb();
  for (int i = 1; i < cycles; i++)
    cycle(argv[1], 0);
  /* num_objects=16: the pool's own layout takes at most 34 mappings. */
  printf("mappings grew by at most 34: %d\n", mappings() - maps <= 34);
  printf("address space grew by under 1 MiB: %d\n", vm_size_kb() - vm < 1024);

  struct sigaction now;
  Dl_info info;
  sigaction(SIGSEGV, NULL, &now);
  printf("handler in a loaded module: %d\n",
         dladdr((void *)now.sa_sigaction, &info) != 0);
  fflush(stdout);
  if (!sigsetjmp(env, 1))
    *(volatile char *)no_access = 1;
  printf("own fault caught: %d\n", caught);
  fflush(stdout);

  char *p = cycle(argv[1], 1);
  fprintf(stderr, "touching\n");
  volatile char c = p[0];
  (void)c;
  printf("after the use-after-free caught: %d\n", caught);
  return 0;
}
#endif

// CHECK: mappings grew by at most 34: 1
// CHECK-NEXT: address space grew by under 1 MiB: 1
// CHECK-NEXT: handler in a loaded module: 1
// CHECK-NEXT: own fault caught: 1
// CHECK: touching
// CHECK-NEXT: ==================================================================
// CHECK-NEXT: BUG: KFENCE: use-after-free read in main+0x
// CHECK: after the use-after-free caught: 1

// STATIC: mappings grew by at most 34: 0
// STATIC-NEXT: address space grew by under 1 MiB: 0
// STATIC-NEXT: handler in a loaded module: 0
// STATIC-NOT: own fault caught
