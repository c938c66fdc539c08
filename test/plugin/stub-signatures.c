// A static of any signature named in asm gets an alias: struct returns,
// many arguments, varargs. The program calls each through the asm table
// and checks the results, with full LTO.
// RUN: %clang -O0 -S -emit-llvm -fplugin=%plugin -fplugin-arg-klto-modname=kmod_s %s -o - | FileCheck %s
// RUN: %clang -O2 -flto -fplugin=%plugin --ld-path=%stock_ld %s -o %t && %t | FileCheck %s --check-prefix=EXEC
#include <stdarg.h>
#include <stdio.h>

struct big { long a, b, c, d; };
static __attribute__((used)) struct big make(long x) { struct big r = {x, x + 1, x + 2, x + 3}; return r; }
static __attribute__((used)) long sum8(long a, long b, long c, long d, long e, long f, long g, long h) {
  return a + b + c + d + e + f + g + h;
}
static __attribute__((used)) long vsum(int n, ...) {
  va_list ap; long s = 0;
  va_start(ap, n);
  while (n--) s += va_arg(ap, long);
  va_end(ap);
  return s;
}
__asm__(".pushsection fns, \"aw\"\n.quad make, sum8, vsum\n.popsection\n");
extern void *const __start_fns[];

int main(void) {
  struct big b = ((struct big (*)(long))__start_fns[0])(10);
  long s = ((long (*)(long, long, long, long, long, long, long, long))__start_fns[1])(1, 2, 3, 4, 5, 6, 7, 8);
  long v = ((long (*)(int, ...))__start_fns[2])(3, 100L, 20L, 3L);
  printf("%ld %ld %ld\n", b.a + b.d, s, v);
  return 0;
}
// CHECK: module asm ".quad __kltostub__kmod_s__make, __kltostub__kmod_s__sum8, __kltostub__kmod_s__vsum"
// CHECK-DAG: @__kltostub__kmod_s__make = hidden alias void (ptr, i64), ptr @make
// CHECK-DAG: @__kltostub__kmod_s__sum8 = hidden alias i64 (i64, i64, i64, i64, i64, i64, i64, i64), ptr @sum8
// CHECK-DAG: @__kltostub__kmod_s__vsum = hidden alias i64 (i32, ...), ptr @vsum
// EXEC: 23 36 123
