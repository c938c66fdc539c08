// C++ operator new and delete go to the runtime with
// -fplugin-arg-klto-kfence-cxx: a use-after-free of a new[]'d array is
// caught and reported with its allocation and free stacks, every operator
// form (plain, nothrow, aligned, sized delete) works with every allocation
// guarded, and unsampled allocations still come from the C++ library, which
// keeps new's contract: a failed new throws std::bad_alloc.
// RUN: %clangxx -g -O1 -fplugin=%plugin -fplugin-arg-klto-kfence-cxx \
// RUN:   -Rpass=klto -I%kfence_include --ld-path=%stock_ld %s -o %t.klto 2> %t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t.klto forms 2>&1 | FileCheck %s --check-prefix=FORMS
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t.klto uaf 2>&1 | FileCheck %s
// RUN: env KFENCE_OPTIONS=sample_interval=0 %t.klto bad_alloc 2>&1 | FileCheck %s --check-prefix=THROW
// RUN: llvm-nm %t.klto | FileCheck %s --check-prefix=SYMS
// The static runtime has the C++ hooks too (their own object of libkfence.a).
// RUN: %clangxx -g -O1 -fplugin=%plugin -fplugin-arg-klto-kfence-cxx -fplugin-arg-klto-kfence-runtime=static \
// RUN:   -I%kfence_include --ld-path=%stock_ld %s -o %t.static
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t.static forms 2>&1 | FileCheck %s --check-prefix=FORMS
// RUN: llvm-nm %t.static | FileCheck %s --check-prefix=SYMS-STATIC
// Without the option, new and delete are left to the C++ library.
// RUN: %clangxx -g -O1 -fplugin=%plugin -fplugin-arg-klto-kfence \
// RUN:   -I%kfence_include --ld-path=%stock_ld %s %klto_libdir/libkfence.a -lpthread -o %t.c-only
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t.c-only uaf 2>&1 | FileCheck %s --check-prefix=PLAIN
#include <cstdio>
#include <cstring>
#include <kfence.h>
#include <cstdint>
#include <new>

extern "C" __attribute__((noinline)) void use(volatile int *p) { p[3] = 1; }

static int forms() {
  int failures = 0;
  auto check = [&](void *p, size_t align, const char *what) {
    bool ok = p && is_kfence_address(p) &&
              reinterpret_cast<uintptr_t>(p) % align == 0;
    if (!ok) {
      std::printf("FAILED: %s\n", what);
      ++failures;
    }
  };
  int *a = new int(7);
  check(a, alignof(int), "new");
  delete a;
  int *b = new int[73];
  check(b, alignof(int), "new[]");
  delete[] b;
  char *c = new (std::nothrow) char[100];
  check(c, 1, "new (nothrow) []");
  delete[] c;
  struct alignas(256) Wide { char x[300]; };
  Wide *w = new Wide;
  check(w, 256, "aligned new");
  delete w;
  Wide *ws = new Wide[2];
  check(ws, 256, "aligned new[]");
  delete[] ws;
  Wide *wn = new (std::nothrow) Wide;
  check(wn, 256, "aligned nothrow new");
  delete wn;
  std::printf("forms: %d failures\n", failures);
  return failures != 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && !std::strcmp(argv[1], "forms"))
    return forms();
  if (argc > 1 && !std::strcmp(argv[1], "bad_alloc")) {
    try {
      volatile size_t huge = SIZE_MAX / 2;
      char *p = new char[huge];
      std::printf("no exception %p\n", static_cast<void *>(p));
    } catch (const std::bad_alloc &) {
      std::puts("caught bad_alloc");
    }
    return 0;
  }
  int *p = new int[10];
  delete[] p;
  use(p);
  std::puts("after");
  return 0;
}
// REMARK-DAG: remark: calls to '_Znwm' go to '__kfence_Znwm'
// REMARK-DAG: remark: calls to '_Znam' go to '__kfence_Znam'
// REMARK-DAG: remark: calls to '_ZdaPv' go to '__kfence_ZdaPv'
// REMARK-DAG: remark: calls to '_ZnwmSt11align_val_t' go to '__kfence_ZnwmSt11align_val_t'
// FORMS: forms: 0 failures
// CHECK: BUG: KFENCE: use-after-free write in use+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK: Use-after-free write at 0x{{[0-9a-f]+}} (in kfence-#{{[0-9]+}}):
// CHECK-NEXT: use+0x
// CHECK-NEXT: main+0x
// CHECK: allocated by task {{[0-9]+}}:
// CHECK-NEXT: main+0x
// CHECK: freed by task {{[0-9]+}}:
// CHECK-NEXT: main+0x
// CHECK: after
// THROW: caught bad_alloc
// SYMS: U __kfence_ZdaPv
// SYMS: U __kfence_Znam
// SYMS-STATIC: T __kfence_ZdaPv
// SYMS-STATIC: T __kfence_Znam
// PLAIN-NOT: KFENCE
// PLAIN: after
