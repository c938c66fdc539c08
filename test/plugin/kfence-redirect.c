// With -fplugin-arg-klto-kfence every use of the malloc family (calls and
// function pointers alike) goes to the runtime's __kfence_* hooks, and the
// module asks the linker for libkfence; without it nothing changes.
// RUN: %clang -O0 -S -emit-llvm -fplugin=%plugin -fplugin-arg-klto-kfence \
// RUN:   -fplugin-arg-klto-kfence-alloc=my_alloc,my_release:free %s -o - | FileCheck %s
// RUN: %clang -O0 -S -emit-llvm -fplugin=%plugin %s -o - | FileCheck %s --check-prefix=OFF
// RUN: not %clang -O0 -c -fplugin=%plugin -fplugin-arg-klto-kfence \
// RUN:   -fplugin-arg-klto-kfence-alloc=my_alloc:strdup %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
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
// CHECK: call {{.*}}@__kfence_malloc(i64 noundef 10)
// CHECK: call {{.*}}@__kfence_calloc(i64 noundef 2, i64 noundef 8)
// CHECK: call {{.*}}@__kfence_aligned_alloc(
// CHECK: call {{.*}}@__kfence_realloc(
// CHECK: call {{.*}}@__kfence_posix_memalign(
// CHECK: call {{.*}}@__kfence_malloc_usable_size(
// CHECK: call void @__kfence_free(
// CHECK: call {{.*}}@__kfence_malloc(i64 noundef %
// CHECK: call void @__kfence_free(
// CHECK-NOT: @malloc(
// CHECK: !llvm.dependent-libraries = !{![[LIB:[0-9]+]]}
// CHECK: ![[LIB]] = !{!"libkfence.a"}
// OFF-NOT: __kfence
// BAD: error: klto: kfence-alloc='my_alloc:strdup': 'strdup' is not a C library allocation function
