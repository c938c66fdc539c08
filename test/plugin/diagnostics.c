// What the plugin cannot rewrite safely is an error at the asm statement's
// file:line; what it did is a remark under -Rpass=klto, at the statement or
// at the function it concerns.
// RUN: not %clang -c -fplugin=%plugin %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: %clang -c -fplugin=%plugin -DGOOD -Rpass=klto %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %clang -c -fplugin=%plugin -DGOOD %s -o /dev/null 2>&1 | count 0

#ifndef GOOD
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
