// With -fplugin-arg-klto-kfence every use of the malloc family (calls and
// function pointers alike) goes to the runtime's __kfence_* hooks, and the
// module asks the linker for the runtime beside the plugin, by its path:
// libkfence-hooks.so, or libkfence.a with kfence-runtime=static; without
// the option nothing changes. Direct calls of malloc and free get their
// fast path inline instead: a thread-local countdown (malloc) or a compare
// against the pool's start (free) picks between the C library's function
// and the runtime's slow path.
// REQUIRES: x86-registered-target
// RUN: %clang -O0 -S -emit-llvm -fplugin=%plugin -fplugin-arg-klto-kfence \
// RUN:   -fplugin-arg-klto-kfence-alloc=my_alloc,my_release:free %s -o - \
// RUN:   | FileCheck %s --check-prefixes=CHECK,SHARED -DLIBDIR=%klto_libdir
// RUN: %clang -O0 -S -emit-llvm -fplugin=%plugin -fplugin-arg-klto-kfence-runtime=static \
// RUN:   -fplugin-arg-klto-kfence-alloc=my_alloc,my_release:free %s -o - \
// RUN:   | FileCheck %s --check-prefixes=CHECK,STATIC -DLIBDIR=%klto_libdir
// RUN: %clang -O0 -S -emit-llvm -fplugin=%plugin %s -o - | FileCheck %s --check-prefix=OFF
// The malloc test is a borrow, so that x86 needs one read-modify-write and
// a fused branch for it. With the shared runtime every module, executable
// or not, reaches the runtime's variables through the GOT, so that all
// bind to the one libkfence-hooks.so; an executable that links libkfence.a
// in (PIE or not) addresses them directly.
// RUN: %clang --target=x86_64-linux-gnu -fPIE -O2 -S -fplugin=%plugin -fplugin-arg-klto-kfence %s -o - \
// RUN:   | FileCheck %s --check-prefix=GOT-ASM
// RUN: %clang --target=x86_64-linux-gnu -fPIC -O2 -S -fplugin=%plugin -fplugin-arg-klto-kfence-runtime=static %s -o - \
// RUN:   | FileCheck %s --check-prefix=GOT-ASM
// RUN: %clang --target=x86_64-linux-gnu -fPIE -O2 -S -fplugin=%plugin -fplugin-arg-klto-kfence-runtime=static %s -o - \
// RUN:   | FileCheck %s --check-prefix=ASM
// RUN: %clang --target=x86_64-linux-gnu -fno-pic -O0 -S -emit-llvm -fplugin=%plugin -fplugin-arg-klto-kfence-runtime=static %s -o - \
// RUN:   | FileCheck %s --check-prefix=EXE
// RUN: %clang --target=x86_64-linux-gnu -fno-pic -O0 -S -emit-llvm -fplugin=%plugin -fplugin-arg-klto-kfence %s -o - \
// RUN:   | FileCheck %s --check-prefix=DSO
// RUN: %clang --target=x86_64-linux-gnu -fPIC -O0 -S -emit-llvm -fplugin=%plugin -fplugin-arg-klto-kfence-runtime=static %s -o - \
// RUN:   | FileCheck %s --check-prefix=DSO
// RUN: not %clang -O0 -c -fplugin=%plugin -fplugin-arg-klto-kfence \
// RUN:   -fplugin-arg-klto-kfence-alloc=my_alloc:strdup %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not %clang -O0 -c -fplugin=%plugin -fplugin-arg-klto-kfence-runtime=dynamic \
// RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-RUNTIME
#include <malloc.h>
#include <stdlib.h>

void *my_alloc(size_t);
void my_release(void *);
void *(*allocator)(size_t) = malloc;

int main(void) {
  void *p = malloc(10), *q = calloc(2, 8), *r = NULL, *a = aligned_alloc(64, 64);
  p = realloc(p, 20);
  posix_memalign(&r, 32, 32);
  size_t n = malloc_usable_size(p);
  free(p); free(q); free(r); free(a);
  my_release(my_alloc(n));
  return 0;
}
// CHECK: @allocator = {{.*}}global ptr @__kfence_malloc
// SHARED: @__kfence_countdown = external thread_local(initialexec) global i32
// SHARED: @__kfence_free_threshold = external global i64
// STATIC: @__kfence_countdown = external dso_local thread_local(localexec) global i32
// STATIC: @__kfence_free_threshold = external dso_local global i64
// A reference that only the runtime named resolves, for linkers that ignore
// dependent libraries.
// SHARED: @"klto: the KFENCE runtime is missing from this link: link with -fuse-ld=lld, or add klto's libkfence-hooks.so" = external constant i8
// STATIC: @"klto: the KFENCE runtime is missing from this link: link with -fuse-ld=lld, or add klto's libkfence.a" = external constant i8
// CHECK: @klto.kfence.runtime = private constant ptr @"klto: the KFENCE runtime
// CHECK: @llvm.used = appending global [1 x ptr] [ptr @klto.kfence.runtime]
// EXE: @__kfence_countdown = external dso_local thread_local(localexec) global i32
// EXE: @__kfence_free_threshold = external dso_local global i64
// DSO: @__kfence_countdown = external thread_local(initialexec) global i32
// DSO: @__kfence_free_threshold = external global i64
// CHECK-LABEL: define {{.*}}@main(
// CHECK: %[[OLD:[0-9]+]] = load i32, ptr @__kfence_countdown
// CHECK-NEXT: %[[SUB:[0-9]+]] = call { i32, i1 } @llvm.usub.with.overflow.i32(i32 %[[OLD]], i32 1)
// CHECK-NEXT: %[[LEFT:[0-9]+]] = extractvalue { i32, i1 } %[[SUB]], 0
// CHECK-NEXT: store i32 %[[LEFT]], ptr @__kfence_countdown
// CHECK-NEXT: %[[HIT:[0-9]+]] = extractvalue { i32, i1 } %[[SUB]], 1
// CHECK-NEXT: br i1 %[[HIT]], label %{{[0-9]+}}, label %{{[0-9]+}}, !prof ![[UNLIKELY:[0-9]+]]
// CHECK: call noalias ptr @__kfence_malloc_sampled(i64 noundef 10)
// CHECK: call noalias ptr @malloc(i64 noundef 10)
// CHECK: phi ptr
// CHECK: call {{.*}}@__kfence_calloc(i64 noundef 2, i64 noundef 8)
// CHECK: call {{.*}}@__kfence_aligned_alloc(
// CHECK: call {{.*}}@__kfence_realloc(
// CHECK: call {{.*}}@__kfence_posix_memalign(
// CHECK: call {{.*}}@__kfence_malloc_usable_size(
// CHECK: %[[THRESHOLD:[0-9]+]] = load i64, ptr @__kfence_free_threshold
// CHECK-NEXT: %[[P:[0-9]+]] = ptrtoint ptr %{{[0-9]+}} to i64
// CHECK-NEXT: %[[IN:[0-9]+]] = icmp uge i64 %[[P]], %[[THRESHOLD]]
// CHECK-NEXT: br i1 %[[IN]], label %{{[0-9]+}}, label %{{[0-9]+}}, !prof ![[UNLIKELY]]
// CHECK: call void @__kfence_free(
// CHECK: call void @free(
// The project's allocators, and any other use, go to the hooks.
// CHECK: call {{.*}}@__kfence_malloc(i64 noundef %
// CHECK-NEXT: call void @__kfence_free(
// CHECK-NOT: call {{.*}}@malloc(
// CHECK: !llvm.dependent-libraries = !{![[LIB:[0-9]+]]}
// SHARED: ![[LIB]] = !{!"[[LIBDIR]]/libkfence-hooks.so"}
// STATIC: ![[LIB]] = !{!"[[LIBDIR]]/libkfence.a"}
// CHECK: ![[UNLIKELY]] = !{!"branch_weights", i32 1, i32 {{[0-9]+}}}
// ASM-LABEL: main:
// ASM: subl $1, %fs:__kfence_countdown@TPOFF
// ASM-NEXT: jb
// ASM-NOT: {{^}}[a-z_]+:
// ASM: callq malloc@PLT
// ASM: cmpq %[[PTR:[a-z0-9]+]], __kfence_free_threshold(%rip)
// ASM-NEXT: jbe
// ASM-NEXT: # %bb
// ASM-NEXT: movq %[[PTR]], %rdi
// ASM-NOT: {{^}}[a-z_]+:
// ASM: callq free@PLT
// GOT-ASM-LABEL: main:
// GOT-ASM: movq __kfence_countdown@GOTTPOFF(%rip), %[[TP:[a-z0-9]+]]
// GOT-ASM-NEXT: subl $1, %fs:(%[[TP]])
// GOT-ASM-NEXT: jb
// GOT-ASM-NOT: {{^}}[a-z_]+:
// GOT-ASM: callq malloc@PLT
// GOT-ASM: movq __kfence_free_threshold@GOTPCREL(%rip), %[[T:[a-z0-9]+]]
// GOT-ASM-NEXT: cmpq %[[PTR:[a-z0-9]+]], (%[[T]])
// GOT-ASM-NEXT: jbe
// GOT-ASM-NOT: {{^}}[a-z_]+:
// GOT-ASM: callq free@PLT
// OFF-NOT: __kfence
// BAD: error: klto: kfence-alloc='my_alloc:strdup': 'strdup' is not a C library allocation function
// BAD-RUNTIME: error: klto: kfence-runtime='dynamic': expected shared or static
