// What the plugin cannot rewrite safely is an error at the asm statement's
// file:line; what it did is a remark under -Rpass=klto, at the statement or
// at the function it concerns.
// RUN: not %clang -c -fplugin=%plugin %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: %clang -c -fplugin=%plugin -DGOOD -Rpass=klto %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %clang -c -fplugin=%plugin -DGOOD %s -o /dev/null 2>&1 | count 0
// An entry label that the asm makes global, or that C code names, keeps its
// name with a warning: renaming it would break those references.
// RUN: %clang -c -fplugin=%plugin -DLABELS %s -o %t.o 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: llvm-nm %t.o | FileCheck %s --check-prefix=KEPT

#if defined(LABELS)
static int __attribute__((used)) exported(void) { return 0; }
__asm__(".section .initcall6.init, \"a\"\n.globl __initcall_exported6\n"
        "__initcall_exported6: .long exported - .\n.previous\n");
// WARN: diagnostics.c:[[@LINE-2]]:1: warning: klto: entry label '__initcall_exported6' is also named outside the asm, so it keeps its name; two files defining it will not link under full LTO
extern const int __initcall_named6;
const int *use_named(void) { return &__initcall_named6; }
static int __attribute__((used)) named(void) { return 0; }
__asm__(".section .initcall6.init, \"a\"\n"
        "__initcall_named6: .long named - .\n.previous\n");
// WARN: diagnostics.c:[[@LINE-2]]:1: warning: klto: entry label '__initcall_named6' is also named outside the asm, so it keeps its name
// KEPT-DAG: {{^[0-9a-f]+}} {{[A-Za-z]}} __initcall_exported6
// KEPT-DAG: {{^[0-9a-f]+}} {{[A-Za-z]}} __initcall_named6
#elif !defined(GOOD)
// An initcall entry whose asm names no function cannot get an id.
__asm__(".section .initcall6.init, \"a\"\n.long 0\n.previous\n");
// ERR: diagnostics.c:[[@LINE-1]]:1: error: klto: entry in table '.initcall6.init' references no function
#else
static int __attribute__((used)) init(void) { return 0; }
// REMARK-DAG: diagnostics.c:[[@LINE-1]]:34: remark: static function 'init' named in asm is reached through alias
__asm__(".section .initcall6.init, \"a\"\n__initcall_init6: .long init - .\n.previous\n");
// REMARK-DAG: diagnostics.c:[[@LINE-1]]:1: remark: asm entry registering 'init' now in section '.initcall6.init..kmod_diagnostics_{{[0-9a-f]+}}__0_[[@LINE-1]]_init'
__asm__("helper: ret");
// REMARK-DAG: remark: asm label 'helper' renamed to 'helper.kmod_diagnostics_{{[0-9a-f]+}}'
#endif
