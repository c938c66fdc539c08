// Options: extra tables, stubs off, verbose output, and errors for unknown
// options or missing values.
// RUN: %clang -O0 -S -emit-llvm -fplugin=%plugin -fplugin-arg-klto-modname=kmod_o \
// RUN:   -fplugin-arg-klto-table=my_table,.other %s -o - | FileCheck %s --check-prefix=TABLE
// RUN: %clang -O0 -S -emit-llvm -fplugin=%plugin -fplugin-arg-klto-modname=kmod_o %s -o - \
// RUN:   | FileCheck %s --check-prefix=DEFAULT
// RUN: %clang -O0 -S -emit-llvm -fplugin=%plugin -fplugin-arg-klto-modname=kmod_o \
// RUN:   -fplugin-arg-klto-no-stubs %s -o - | FileCheck %s --check-prefix=NOSTUBS
// RUN: %clang -O0 -c -fplugin=%plugin -fplugin-arg-klto-modname=kmod_o \
// RUN:   -fplugin-arg-klto-verbose %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERBOSE
// RUN: not %clang -c -fplugin=%plugin -fplugin-arg-klto-frobnicate %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNKNOWN
// RUN: not %clang -c -fplugin=%plugin -fplugin-arg-klto-modname %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOVALUE

static int probe(void) { return 0; }
static int (*const entry)(void) __attribute__((used, section("my_table"))) = probe;
static __attribute__((used)) int handler(void) { return 1; }
__asm__(".pushsection .other, \"a\"\n.quad handler\n.popsection\n");

// TABLE-DAG: @__kltoentry__kmod_o__0_17_probe = internal constant ptr @probe, section "my_table..kmod_o__0_17_probe"
// TABLE-DAG: module asm ".pushsection .other..kmod_o__1_19_handler, \22a\22"
// TABLE-DAG: module asm ".quad __kltostub__kmod_o__handler"
// DEFAULT-DAG: @entry = internal constant ptr @probe, section "my_table"
// DEFAULT-DAG: module asm ".pushsection .other, \22a\22"
// DEFAULT-DAG: module asm ".quad __kltostub__kmod_o__handler"
// DEFAULT-DAG: @__kltostub__kmod_o__handler = hidden alias i32 (), ptr @handler
// NOSTUBS: module asm ".quad handler"
// NOSTUBS-NOT: __kltostub__
// VERBOSE: klto: {{.*}}options.c:18: static function 'handler' named in asm is reached through alias '__kltostub__kmod_o__handler'
// UNKNOWN: error: klto: unknown option 'frobnicate'; klto options (-fplugin-arg-klto-<option>): modname=<name>, table=<table>[,...], [no-]stubs, [no-]keep-asm-refs, [no-]verbose, [no-]kfence, [no-]kfence-cxx, kfence-runtime=shared|static, kfence-alloc=<fn>[:<libc fn>][,...]
// NOVALUE: error: klto: option 'modname' needs a value: -fplugin-arg-klto-modname=<name>
