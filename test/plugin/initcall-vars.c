// Function-pointer entries in every Linux initcall table get the id of
// DESIGN §2: symbol __initcall__<id><level>, section <table>..<id>, with the
// counter in source order and the line of the macro use.
// RUN: %clang -O2 -S -emit-llvm -fplugin=%plugin -fplugin-arg-klto-modname=kmod_t %s -o - | FileCheck %s
// RUN: %clang -O0 -c -fplugin=%plugin -fplugin-arg-klto-modname=kmod_t %s -o %t.o
// RUN: llvm-readelf -S %t.o | FileCheck %s --check-prefix=ELF

typedef int (*initcall_t)(void);
#define ENTRY(fn, sec) \
  static initcall_t __initcall_##fn __attribute__((used, section(sec))) = fn;
#define DEF(fn) static int fn(void) { return 0; }

DEF(e) DEF(l0) DEF(l1) DEF(l2) DEF(l3) DEF(l4) DEF(l5) DEF(l6) DEF(l7)
DEF(s0) DEF(s7) DEF(rfs) DEF(cons) DEF(plain)

ENTRY(e, ".initcallearly.init")
ENTRY(l0, ".initcall0.init")
ENTRY(l1, ".initcall1.init") ENTRY(l2, ".initcall2.init")
ENTRY(l3, ".initcall3.init")
ENTRY(l4, ".initcall4.init")
ENTRY(l5, ".initcall5.init")
ENTRY(l6, ".initcall6.init")
ENTRY(l7, ".initcall7.init")
ENTRY(s0, ".initcall0s.init")
ENTRY(s7, ".initcall7s.init")
ENTRY(rfs, ".initcallrootfs.init")
ENTRY(cons, ".con_initcall.init")
// Not a table: left alone.
ENTRY(plain, ".data.mine")

// CHECK-DAG: @__initcall__kmod_t__0_16_eearly = internal global ptr @e, section ".initcallearly.init..kmod_t__0_16_e"
// CHECK-DAG: @__initcall__kmod_t__1_17_l00 = internal global ptr @l0, section ".initcall0.init..kmod_t__1_17_l0"
// CHECK-DAG: @__initcall__kmod_t__2_18_l11 = {{.*}} section ".initcall1.init..kmod_t__2_18_l1"
// CHECK-DAG: @__initcall__kmod_t__3_18_l22 = {{.*}} section ".initcall2.init..kmod_t__3_18_l2"
// CHECK-DAG: @__initcall__kmod_t__4_19_l33 = {{.*}} section ".initcall3.init..kmod_t__4_19_l3"
// CHECK-DAG: @__initcall__kmod_t__5_20_l44 = {{.*}} section ".initcall4.init..kmod_t__5_20_l4"
// CHECK-DAG: @__initcall__kmod_t__6_21_l55 = {{.*}} section ".initcall5.init..kmod_t__6_21_l5"
// CHECK-DAG: @__initcall__kmod_t__7_22_l66 = {{.*}} section ".initcall6.init..kmod_t__7_22_l6"
// CHECK-DAG: @__initcall__kmod_t__8_23_l77 = {{.*}} section ".initcall7.init..kmod_t__8_23_l7"
// CHECK-DAG: @__initcall__kmod_t__9_24_s00s = {{.*}} section ".initcall0s.init..kmod_t__9_24_s0"
// CHECK-DAG: @__initcall__kmod_t__10_25_s77s = {{.*}} section ".initcall7s.init..kmod_t__10_25_s7"
// CHECK-DAG: @__initcall__kmod_t__11_26_rfsrootfs = {{.*}} section ".initcallrootfs.init..kmod_t__11_26_rfs"
// CHECK-DAG: @__initcall__kmod_t__12_27_conscon = {{.*}} section ".con_initcall.init..kmod_t__12_27_cons"
// CHECK-DAG: @__initcall_plain = internal global ptr @plain, section ".data.mine"
// The one mark the pass leaves on a module it changed.
// CHECK-DAG: !klto.done = !{}

// ELF: .initcallearly.init..kmod_t__0_16_e
// ELF: .initcall7s.init..kmod_t__10_25_s7
// ELF: .con_initcall.init..kmod_t__12_27_cons
// ELF: .data.mine
