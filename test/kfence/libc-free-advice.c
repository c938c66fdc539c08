// Code that hands a KFENCE object to the C library's own free() (here
// found through a handle of libc.so.6) gets a report that says how that
// came to be. Built with the hooks, that code was not built with the
// plugin: the report says to build it so or to use LD_PRELOAD. Under
// LD_PRELOAD=libkfence.so, which the program already runs under, the code
// went past the interposed free(): the report says that instead. A
// left-placed object faults in the guard page as glibc reads its header
// (then glibc aborts); for a right-placed one malloc_usable_size() crashes
// holding it.
// RUN: %clang -g -O0 -DHOOKS %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -ldl -o %t.hooks
// RUN: %clang -g -O0 %s -ldl -o %t.plain
// RUN: env KFENCE_OPTIONS=sample_rate=1:side=left not --crash timeout 20 %t.hooks free 2>&1 | FileCheck %s --check-prefixes=CHECK,HOOKS
// RUN: env KFENCE_OPTIONS=sample_rate=1:side=left LD_PRELOAD=%klto_libdir/libkfence.so not --crash timeout 20 %t.plain free 2>&1 | FileCheck %s --check-prefixes=CHECK,PRELOAD
// RUN: env KFENCE_OPTIONS=sample_rate=1:side=right not --crash timeout 20 %t.hooks usable 2>&1 | FileCheck %s --check-prefixes=REG,REG-HOOKS
// RUN: env KFENCE_OPTIONS=sample_rate=1:side=right LD_PRELOAD=%klto_libdir/libkfence.so not --crash timeout 20 %t.plain usable 2>&1 | FileCheck %s --check-prefixes=REG,REG-PRELOAD
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HOOKS
#include "redirect.h"
#endif

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  if (!libc)
    return 3;
  char *p = malloc(7);
  if (!strcmp(argv[1], "usable")) {
    size_t (*libc_usable_size)(void *) = (size_t (*)(void *))dlsym(libc, "malloc_usable_size");
    fprintf(stderr, "usable: %zu\n", libc_usable_size(p));
  } else {
    void (*libc_free)(void *) = (void (*)(void *))dlsym(libc, "free");
    libc_free(p);
    fprintf(stderr, "freed\n");
  }
  return 0;
}
// CHECK:      BUG: KFENCE: out-of-bounds read in {{.*}}free+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK:      kfence-#{{[0-9]+}} [0x{{[0-9a-f]+}}-0x{{[0-9a-f]+}}, size=7, cache=malloc] allocated by task {{[0-9]+}}:
// CHECK-NEXT: {{^}} main+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK:      {{^}}The C library's free() was given this KFENCE object: the code that called it
// HOOKS-NEXT: was not built with -fplugin-arg-klto-kfence. Build it with the plugin, or run
// HOOKS-NEXT: the program under LD_PRELOAD=libkfence.so.
// PRELOAD-NEXT: took the C library's own free() (through dlsym() or a handle of libc.so.6,
// PRELOAD-NEXT: say), not the one LD_PRELOAD=libkfence.so puts in front of it.
// CHECK-EMPTY:
// CHECK-NEXT: CPU: {{[0-9]+}} PID: {{[0-9]+}} Comm: {{.*}}
// CHECK-NEXT: ==================================================================
// CHECK-NEXT: free(): invalid pointer
// REG:          BUG: KFENCE: invalid free in {{.*}}malloc_usable_size+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// REG:          {{^}}The C library's malloc_usable_size() crashed holding this KFENCE object: most likely the code
// REG-HOOKS-NEXT: that called it was not built with -fplugin-arg-klto-kfence. Build it with the
// REG-HOOKS-NEXT: plugin, or run the program under LD_PRELOAD=libkfence.so.
// REG-PRELOAD-NEXT: that called it took the C library's own malloc_usable_size() (through dlsym() or a handle of
// REG-PRELOAD-NEXT: libc.so.6, say), not the one LD_PRELOAD=libkfence.so puts in front of it.
// REG-EMPTY:
// REG-NEXT:     CPU: {{[0-9]+}} PID: {{[0-9]+}} Comm: {{.*}}
