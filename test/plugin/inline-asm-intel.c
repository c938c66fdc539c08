// Intel syntax (-masm=intel, or .intel_syntax in the template): registers
// and size keywords are bare words there, and still not symbols.
// REQUIRES: x86-registered-target
// RUN: %clang --target=x86_64-linux-gnu -O2 -masm=intel -S -emit-llvm -fplugin=%plugin %s -o - | FileCheck %s
// CHECK-NOT: @{{(rip|rax|eax|dword|ptr|offset|qword)}} =
// CHECK: @llvm.compiler.used = appending global [2 x ptr] [ptr @bump, ptr @hits]
// CHECK-NOT: @{{(rip|rax|eax|dword|ptr|offset|qword)}} =
int read_hits(void) {
  int v;
  __asm__ volatile("call bump\n\t"
                   "mov %0, dword ptr [rip + hits]\n\t"
                   "lea rax, qword ptr [rax + 8]"
                   : "=r"(v)
                   :
                   : "rax", "memory");
  return v;
}
