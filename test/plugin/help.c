// -fplugin-arg-klto-help prints every option with its meaning on stdout,
// and the compile goes on as without it.
// RUN: rm -f %t.o
// RUN: %clang -c -fplugin=%plugin -fplugin-arg-klto-help %s -o %t.o | FileCheck %s
// RUN: llvm-nm %t.o | FileCheck %s --check-prefix=OBJ
// CHECK:      klto plugin options, each given as -fplugin-arg-klto-<option>:
// CHECK-NEXT:   modname=<name> module name for entry ids
// CHECK-NEXT:   table=<table>[,...] tables beyond Linux's initcall tables: section names, '*' patterns or presets
// CHECK-NEXT:   [no-]stubs point asm references to statics at stable aliases (default on)
// CHECK-NEXT:   [no-]keep-asm-refs make the symbols function-level asm names and defines safe under LTO (default on)
// CHECK-NEXT:   [no-]verbose print every action to stderr (default off)
// CHECK-NEXT:   [no-]kfence redirect allocation calls to the KFENCE runtime (default off)
// CHECK-NEXT:   [no-]kfence-cxx with kfence (implied), C++ operator new and delete too (default off)
// CHECK-NEXT:   kfence-runtime=shared|static with kfence (implied), the runtime the program links: one libkfence-hooks.so for all modules (default), or libkfence.a in an executable that is the only module built with kfence
// CHECK-NEXT:   kfence-alloc=<fn>[:<libc fn>][,...] project allocators to redirect (implies kfence)
// CHECK-NEXT:   help print this list; the compile goes on
// OBJ: T main
int main(void) { return 0; }
