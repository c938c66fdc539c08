// PREL32 entries written in file-scope asm (pre-5.12 Linux on x86_64 and
// arm64): the section gets its unique name, the label becomes the entry
// symbol, and the static function is reached through a hidden global alias
// (Linux's stub name), kept alive with llvm.compiler.used.
// RUN: %clang -O0 -S -emit-llvm -fplugin=%plugin -fplugin-arg-klto-modname=kmod_a %s -o - | FileCheck %s
// RUN: %clang -O2 -c -fplugin=%plugin -fplugin-arg-klto-modname=kmod_a %s -o %t.o
// RUN: llvm-readelf -sS %t.o | FileCheck %s --check-prefix=ELF

#define __init __attribute__((section(".init.text")))
#define ENTRY(fn, id)                                                          \
  __asm__(".section \".initcall" #id ".init\", \"a\"\n"                        \
          "__initcall_" #fn #id ":\n"                                          \
          ".long " #fn " - .\n"                                                \
          ".previous\n");

static int __init __attribute__((used)) setup(int unused) { return unused; }
ENTRY(setup, 6)

// CHECK: module asm ".section \22.initcall6.init..kmod_a__0_17_setup\22, \22a\22"
// CHECK-NEXT: module asm "__initcall__kmod_a__0_17_setup6:"
// CHECK-NEXT: module asm ".long __initstub__kmod_a__0_17_setup6 - ."
// CHECK-NEXT: module asm ".previous"
// CHECK: @llvm.compiler.used = {{.*}}ptr @__initstub__kmod_a__0_17_setup6
// CHECK: @__initstub__kmod_a__0_17_setup6 = hidden alias i32 (i32), ptr @setup
// CHECK: define internal {{.*}}i32 @setup(i32 {{.*}}) {{.*}}section ".init.text"

// ELF: .initcall6.init..kmod_a__0_17_setup
// ELF-DAG: FUNC GLOBAL HIDDEN {{.*}} __initstub__kmod_a__0_17_setup6
// ELF-DAG: NOTYPE LOCAL DEFAULT {{.*}} __initcall__kmod_a__0_17_setup6
