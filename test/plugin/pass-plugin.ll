; The same .so works as an LLVM pass plugin: opt on .ll input (options as
; -klto-* flags; ids use the source file's default modname and debug-info
; lines), and clang -fpass-plugin with -mllvm options. Running the pass on
; its own output changes nothing.
; REQUIRES: x86-registered-target
; RUN: opt -load-pass-plugin=%passplugin -passes=klto -klto-modname=kmod_ll -S %s -o %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: opt -load-pass-plugin=%passplugin -passes=klto -klto-modname=other -S %t.ll -o %t2.ll
; RUN: grep -v ModuleID %t.ll > %t.a && grep -v ModuleID %t2.ll > %t.b && diff %t.a %t.b
; clang parses -mllvm before it loads pass plugins: -Xclang -load makes the
; plugin's -klto-* options known in time.
; RUN: %clang -O2 -c -Wno-override-module -fpass-plugin=%passplugin -Xclang -load -Xclang %passplugin \
; RUN:   -mllvm -klto-modname=kmod_ll %s -o %t.o
; RUN: llvm-readelf -S %t.o | FileCheck %s --check-prefix=ELF
; RUN: opt -load-pass-plugin=%passplugin -passes=klto -klto-no-stubs -klto-modname=kmod_ll -S %s -o - \
; RUN:   | FileCheck %s --check-prefix=NOSTUB

; CHECK: module asm ".pushsection .initcall3.init..kmod_ll__1_0_late, \22a\22"
; CHECK: module asm ".long __initstub__kmod_ll__1_0_late3 - ."
; CHECK: @__initcall__kmod_ll__0_42_early6 = internal global ptr @early, section ".initcall6.init..kmod_ll__0_42_early"
; CHECK: @__initstub__kmod_ll__1_0_late3 = hidden alias i32 (), ptr @late
; ELF-DAG: .initcall6.init..kmod_ll__0_42_early
; ELF-DAG: .initcall3.init..kmod_ll__1_0_late
; NOSTUB: module asm ".long late - ."
; NOSTUB-NOT: __initstub__

target triple = "x86_64-unknown-linux-gnu"
module asm ".pushsection .initcall3.init, \22a\22"
module asm ".long late - ."
module asm ".popsection"

@e = internal global ptr @early, section ".initcall6.init", !dbg !0
@llvm.compiler.used = appending global [2 x ptr] [ptr @e, ptr @late], section "llvm.metadata"

define internal i32 @early() {
  ret i32 0
}
define internal i32 @late() {
  ret i32 1
}

!llvm.dbg.cu = !{!2}
!llvm.module.flags = !{!5}
!0 = !DIGlobalVariableExpression(var: !1, expr: !DIExpression())
!1 = distinct !DIGlobalVariable(name: "e", scope: !2, file: !3, line: 42, type: !4, isLocal: true, isDefinition: true)
!2 = distinct !DICompileUnit(language: DW_LANG_C11, file: !3, emissionKind: FullDebug)
!3 = !DIFile(filename: "x.c", directory: "/")
!4 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!5 = !{i32 2, !"Debug Info Version", i32 3}
