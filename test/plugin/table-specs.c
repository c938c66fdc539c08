// table= takes what the linker's --kinit-table takes: comma lists, '*'
// patterns and presets (common/include/klto/table_presets.def), matched by
// the one matcher both share (klto_table_spec in common/naming.c).
// RUN: %clang -O0 -S -emit-llvm -fplugin=%plugin -fplugin-arg-klto-modname=kmod_t \
// RUN:   -fplugin-arg-klto-table=.initcall.*,.exitcall.* %s -o - | FileCheck %s
// RUN: %clang -O0 -S -emit-llvm -fplugin=%plugin -fplugin-arg-klto-modname=kmod_t \
// RUN:   -fplugin-arg-klto-table=barebox %s -o - | FileCheck %s
// RUN: %clang -O0 -S -emit-llvm -fplugin=%plugin -fplugin-arg-klto-modname=kmod_t \
// RUN:   -fplugin-arg-klto-table=.initcall.* %s -o - | FileCheck %s --check-prefix=INIT-ONLY
// RUN: not %clang -c -fplugin=%plugin -fplugin-arg-klto-table=.ok,*.init %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD
typedef int (*initcall_t)(void);
static int fs(void) { return 0; }
static int bye(void) { return 0; }
static __attribute__((used)) int dev(void) { return 0; }
static initcall_t __initcall_fs9 __attribute__((used, section(".initcall.9"))) = fs;
__asm__(".pushsection .initcall.10, \"a\"\n__initcall_dev10: .long dev - .\n.popsection\n");
static initcall_t __exitcall_bye1 __attribute__((used, section(".exitcall.1"))) = bye;

// CHECK-DAG: @__kltoentry__kmod_t__0_16_fs = internal global ptr @fs, section ".initcall.9..kmod_t__0_16_fs"
// CHECK-DAG: module asm ".pushsection .initcall.10..kmod_t__1_17_dev, \22a\22"
// CHECK-DAG: module asm "__kltoentry__kmod_t__1_17_dev: .long __kltostub__kmod_t__dev - ."
// CHECK-DAG: @__kltoentry__kmod_t__2_18_bye = internal global ptr @bye, section ".exitcall.1..kmod_t__2_18_bye"
// INIT-ONLY-DAG: section ".initcall.9..kmod_t__0_16_fs"
// INIT-ONLY-DAG: @__exitcall_bye1 = internal global ptr @bye, section ".exitcall.1"
// BAD: error: klto: table=*.init: '*.init' is neither a section name nor a preset: a pattern starts with a fixed part, as .initcall.*
