// kfence-alloc= names project allocators to redirect, so it implies kfence;
// its values are checked whether or not kfence is given: <fn>[:<libc fn>],
// <libc fn> one of the malloc family of runtime/kfence/include/kfence_malloc.def.
// RUN: %clang -O0 -S -emit-llvm -fplugin=%plugin -fplugin-arg-klto-kfence-alloc=my_alloc,my_release:free \
// RUN:   %s -o - | FileCheck %s
// RUN: not %clang -c -fplugin=%plugin -fplugin-arg-klto-kfence-alloc=my_alloc:strdup %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LIBC
// RUN: not %clang -c -fplugin=%plugin -fplugin-arg-klto-kfence-alloc=my_alloc:malloc:free %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SHAPE -DSPEC=my_alloc:malloc:free
// RUN: not %clang -c -fplugin=%plugin -fplugin-arg-klto-kfence-alloc=:malloc %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SHAPE -DSPEC=:malloc
// The pass plugin checks the same values, from opt's -klto-kfence-alloc.
// RUN: %clang -O0 -S -emit-llvm %s -o %t.ll
// RUN: not opt -load-pass-plugin=%passplugin -passes=klto -klto-kfence-alloc=my_alloc:strdup \
// RUN:   -disable-output %t.ll 2>&1 | FileCheck %s --check-prefix=LIBC
#include <stddef.h>

void *my_alloc(size_t);
void my_release(void *);

int main(void) {
  my_release(my_alloc(8));
  return 0;
}
// CHECK-LABEL: define {{.*}}@main(
// CHECK: call {{.*}}@__kfence_malloc(i64 noundef 8)
// CHECK-NEXT: call void @__kfence_free(
// CHECK: !llvm.dependent-libraries
// LIBC: klto: kfence-alloc='my_alloc:strdup': 'strdup' is not a C library allocation function; <libc fn> is one of malloc, calloc, realloc, reallocarray, free, aligned_alloc, posix_memalign, memalign, valloc, pvalloc, malloc_usable_size
// SHAPE: error: klto: kfence-alloc='[[SPEC]]': expected <fn>[:<libc fn>], <fn> a function name
