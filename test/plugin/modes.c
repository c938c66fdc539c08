// The pass runs at PipelineStart: at -O0 and -O2, without LTO and before
// -flto / -flto=thin write bitcode, for x86_64 and aarch64 objects.
// RUN: rm -rf %t && mkdir %t
// RUN: for t in x86_64-linux-gnu aarch64-linux-gnu; do \
// RUN:   for o in -O0 -O2; do \
// RUN:     %clang --target=$t $o -c -fplugin=%plugin -fplugin-arg-klto-modname=kmod_m %s -o %t/obj.o && \
// RUN:     llvm-readelf -S %t/obj.o | grep '.initcall4.init..kmod_m__1_[0-9]*_asm_init' >/dev/null && \
// RUN:     llvm-readelf -S %t/obj.o | grep '.initcall6.init..kmod_m__0_[0-9]*_var_init' >/dev/null && \
// RUN:     llvm-nm %t/obj.o | grep ' T __initstub__kmod_m__1_[0-9]*_asm_init4' >/dev/null && \
// RUN:     for l in -flto -flto=thin; do \
// RUN:       %clang --target=$t $o $l -c -fplugin=%plugin -fplugin-arg-klto-modname=kmod_m %s -o %t/bc.o && \
// RUN:       llvm-dis %t/bc.o -o - | FileCheck %s || exit 1; \
// RUN:     done || exit 1; \
// RUN:   done; \
// RUN: done
// CHECK: module asm {{.*}}.initcall4.init..kmod_m__1_{{[0-9]+}}_asm_init
// CHECK: @__initcall__kmod_m__0_{{[0-9]+}}_var_init6 = {{.*}}section ".initcall6.init..kmod_m__0_{{[0-9]+}}_var_init"
// CHECK: define hidden {{.*}}@__initstub__kmod_m__1_{{[0-9]+}}_asm_init4
// CHECK: !klto.done

static int var_init(void) { return 0; }
static int (*entry)(void) __attribute__((used, section(".initcall6.init"))) = var_init;

static __attribute__((used)) int asm_init(void) { return 0; }
__asm__(".section \".initcall4.init\", \"a\"\n__initcall_asm_init4:\n.long asm_init - .\n.previous\n");
