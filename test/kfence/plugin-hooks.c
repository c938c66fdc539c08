// The plugin redirects an ordinary program's malloc family to the runtime
// and names, for LLD, the runtime beside the plugin by its path, so the
// program links with no -L and catches its use-after-free: by default
// libkfence-hooks.so, which the program then names by its path in
// DT_NEEDED, with kfence-runtime=static libkfence.a, linked in. Built
// without the plugin it reports nothing.
// RUN: %clang -g -O1 -fplugin=%plugin -fplugin-arg-klto-kfence --ld-path=%stock_ld \
// RUN:   %s -o %t.klto
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t.klto 2>&1 | FileCheck %s
// RUN: %clang -g -O1 --ld-path=%stock_ld %s -o %t.plain
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t.plain 2>&1 | FileCheck %s --check-prefix=PLAIN
// RUN: llvm-nm %t.klto | FileCheck %s --check-prefix=SYMS-SHARED
// RUN: llvm-readelf -d %t.klto | FileCheck %s --check-prefix=NEEDED -DLIBDIR=%klto_libdir
// RUN: %clang -g -O1 -fplugin=%plugin -fplugin-arg-klto-kfence-runtime=static --ld-path=%stock_ld \
// RUN:   %s -o %t.static
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t.static 2>&1 | FileCheck %s
// RUN: llvm-nm %t.static | FileCheck %s --check-prefix=SYMS-STATIC
// RUN: llvm-readelf -d %t.static | FileCheck %s --check-prefix=NOT-NEEDED
// GNU ld ignores the dependent-library entry; the link fails, and the
// undefined reference's name says what to do.
// RUN: not %clang -g -O1 -fplugin=%plugin -fplugin-arg-klto-kfence -fuse-ld=bfd \
// RUN:   %s -o %t.bfd 2>&1 | FileCheck %s --check-prefix=BFD
// BFD: undefined reference to `klto: the KFENCE runtime is missing from this link: link with -fuse-ld=lld, or add klto's libkfence-hooks.so'
// RUN: %clang -g -O1 -fplugin=%plugin -fplugin-arg-klto-kfence -fuse-ld=bfd \
// RUN:   %s %klto_libdir/libkfence-hooks.so -o %t.bfd
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t.bfd 2>&1 | FileCheck %s
// RUN: not %clang -g -O1 -fplugin=%plugin -fplugin-arg-klto-kfence-runtime=static -fuse-ld=bfd \
// RUN:   %s -o %t.bfd-static 2>&1 | FileCheck %s --check-prefix=BFD-STATIC
// BFD-STATIC: undefined reference to `klto: the KFENCE runtime is missing from this link: link with -fuse-ld=lld, or add klto's libkfence.a'
// RUN: %clang -g -O1 -fplugin=%plugin -fplugin-arg-klto-kfence-runtime=static -fuse-ld=bfd \
// RUN:   %s %klto_libdir/libkfence.a -lpthread -o %t.bfd-static
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t.bfd-static 2>&1 | FileCheck %s
// Under full and thin LTO the hooks and the runtime's name travel in the
// bitcode, and LLD still finds the runtime.
// RUN: %clang -g -O1 -flto -fplugin=%plugin -fplugin-arg-klto-kfence --ld-path=%stock_ld \
// RUN:   %s -o %t.full
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t.full 2>&1 | FileCheck %s
// RUN: %clang -g -O1 -flto=thin -fplugin=%plugin -fplugin-arg-klto-kfence --ld-path=%stock_ld \
// RUN:   %s -o %t.thin
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t.thin 2>&1 | FileCheck %s
// RUN: %clang -g -O1 -flto=thin -fplugin=%plugin -fplugin-arg-klto-kfence-runtime=static --ld-path=%stock_ld \
// RUN:   %s -o %t.thin-static
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t.thin-static 2>&1 | FileCheck %s
// A static link needs the static runtime: LLD refuses the shared one.
// RUN: %clang -g -O1 -static -fplugin=%plugin -fplugin-arg-klto-kfence-runtime=static --ld-path=%stock_ld \
// RUN:   %s -o %t.static-link
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t.static-link 2>&1 | FileCheck %s
// RUN: not %clang -g -O1 -static -fplugin=%plugin -fplugin-arg-klto-kfence --ld-path=%stock_ld \
// RUN:   %s -o %t.static-shared 2>&1 | FileCheck %s --check-prefix=STATIC-LINK -DLIBDIR=%klto_libdir
// STATIC-LINK: error: attempted static link of dynamic object [[LIBDIR]]/libkfence-hooks.so
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void use(volatile char *p) { p[3] = 1; }

int main(void) {
  char *p = malloc(32);
  free(p);
  use(p);
  puts("after");
  return 0;
}
// CHECK: BUG: KFENCE: use-after-free write in use+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK: Use-after-free write at 0x{{[0-9a-f]+}} (in kfence-#{{[0-9]+}}):
// CHECK-NEXT: use+0x
// CHECK-NEXT: main+0x
// CHECK: allocated by task {{[0-9]+}}:
// CHECK-NEXT: main+0x
// CHECK: freed by task {{[0-9]+}}:
// CHECK-NEXT: main+0x
// CHECK: after
// PLAIN-NOT: KFENCE
// PLAIN: after
// SYMS-SHARED: U __kfence_free
// SYMS-SHARED: U __kfence_malloc
// NEEDED: (NEEDED) Shared library: [[[LIBDIR]]/libkfence-hooks.so]
// NOT-NEEDED-NOT: libkfence
// SYMS-STATIC: T __kfence_free
// SYMS-STATIC: T __kfence_malloc
