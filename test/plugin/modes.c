// The pass runs at PipelineStart: at -O0 and -O2, without LTO and before
// -flto / -flto=thin write bitcode, for x86_64 and aarch64 objects.
// Each build mode on its own line, so a failure names it.
// DEFINE: %{cc} = %clang -c -fplugin=%plugin -fplugin-arg-klto-modname=kmod_m %s
// REQUIRES: x86-registered-target, aarch64-registered-target
// RUN: rm -rf %t && mkdir %t && cd %t
// RUN: %{cc} --target=x86_64-linux-gnu -O0 -o x86-O0.o
// RUN: llvm-readelf -S x86-O0.o | FileCheck %s --check-prefix=SECT
// RUN: llvm-nm x86-O0.o | FileCheck %s --check-prefix=STUB
// RUN: %{cc} --target=x86_64-linux-gnu -O2 -o x86-O2.o
// RUN: llvm-readelf -S x86-O2.o | FileCheck %s --check-prefix=SECT
// RUN: llvm-nm x86-O2.o | FileCheck %s --check-prefix=STUB
// RUN: %{cc} --target=aarch64-linux-gnu -O0 -o arm-O0.o
// RUN: llvm-readelf -S arm-O0.o | FileCheck %s --check-prefix=SECT
// RUN: llvm-nm arm-O0.o | FileCheck %s --check-prefix=STUB
// RUN: %{cc} --target=aarch64-linux-gnu -O2 -o arm-O2.o
// RUN: llvm-readelf -S arm-O2.o | FileCheck %s --check-prefix=SECT
// RUN: llvm-nm arm-O2.o | FileCheck %s --check-prefix=STUB
// SECT-DAG: .initcall4.init..kmod_m__1_{{[0-9]+}}_asm_init
// SECT-DAG: .initcall6.init..kmod_m__0_{{[0-9]+}}_var_init
// STUB: T __initstub__kmod_m__1_{{[0-9]+}}_asm_init4

// Before -flto and -flto=thin write bitcode.
// RUN: %{cc} --target=x86_64-linux-gnu -O0 -flto -o x86-O0-full.bc && llvm-dis x86-O0-full.bc -o - | FileCheck %s
// RUN: %{cc} --target=x86_64-linux-gnu -O2 -flto -o x86-O2-full.bc && llvm-dis x86-O2-full.bc -o - | FileCheck %s
// RUN: %{cc} --target=x86_64-linux-gnu -O0 -flto=thin -o x86-O0-thin.bc && llvm-dis x86-O0-thin.bc -o - | FileCheck %s
// RUN: %{cc} --target=x86_64-linux-gnu -O2 -flto=thin -o x86-O2-thin.bc && llvm-dis x86-O2-thin.bc -o - | FileCheck %s
// RUN: %{cc} --target=aarch64-linux-gnu -O0 -flto -o arm-O0-full.bc && llvm-dis arm-O0-full.bc -o - | FileCheck %s
// RUN: %{cc} --target=aarch64-linux-gnu -O2 -flto -o arm-O2-full.bc && llvm-dis arm-O2-full.bc -o - | FileCheck %s
// RUN: %{cc} --target=aarch64-linux-gnu -O0 -flto=thin -o arm-O0-thin.bc && llvm-dis arm-O0-thin.bc -o - | FileCheck %s
// RUN: %{cc} --target=aarch64-linux-gnu -O2 -flto=thin -o arm-O2-thin.bc && llvm-dis arm-O2-thin.bc -o - | FileCheck %s
// CHECK: module asm {{.*}}.initcall4.init..kmod_m__1_{{[0-9]+}}_asm_init
// CHECK: @__initcall__kmod_m__0_{{[0-9]+}}_var_init6 = {{.*}}section ".initcall6.init..kmod_m__0_{{[0-9]+}}_var_init"
// CHECK: @__initstub__kmod_m__1_{{[0-9]+}}_asm_init4 = hidden alias {{.*}}@asm_init
// CHECK: !klto.done

static int var_init(void) { return 0; }
static int (*entry)(void) __attribute__((used, section(".initcall6.init"))) = var_init;

static __attribute__((used)) int asm_init(void) { return 0; }
__asm__(".section \".initcall4.init\", \"a\"\n__initcall_asm_init4:\n.long asm_init - .\n.previous\n");
