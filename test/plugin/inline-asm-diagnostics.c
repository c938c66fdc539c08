// What the plugin does to function-level asm, said at the asm statement's
// file:line under -Rpass=klto, and what it cannot make safe, as warnings.
// A static named in the asm is renamed there to a stable alias (with
// no-stubs, a warning instead); no-keep-asm-refs turns all of it off.
// REQUIRES: host-x86_64
// RUN: %clang -O2 -c -fplugin=%plugin -fplugin-arg-klto-modname=kmod_d -Rpass=klto %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %clang -O2 -S -emit-llvm -fplugin=%plugin -fplugin-arg-klto-modname=kmod_d %s -o - | FileCheck %s --check-prefix=IR
// RUN: %clang -O2 -c -fplugin=%plugin -fplugin-arg-klto-no-stubs %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSTUBS
// RUN: %clang -O2 -S -emit-llvm -fplugin=%plugin -fplugin-arg-klto-no-keep-asm-refs %s -o - | FileCheck %s --check-prefix=OFF

static int local_counter;
int read_counter(void) {
  int v;
  __asm__ volatile("movl local_counter(%%rip), %0" : "=r"(v));
  // CHECK-DAG: inline-asm-diagnostics.c:[[@LINE-1]]:20: remark: static 'local_counter' named in inline asm is reached through alias '__kltostub__kmod_d__local_counter' [-Rpass=klto]
  // NOSTUBS: inline-asm-diagnostics.c:[[@LINE-2]]:20: warning: klto: inline asm names static 'local_counter': under full LTO it may bind to another file's 'local_counter' (no-stubs)
  return v + local_counter;
}

void host(void) {
  __asm__(".globl entry_a\nentry_a: ret");
  // CHECK-DAG: inline-asm-diagnostics.c:[[@LINE-1]]:11: remark: 'host' defines 'entry_a' in inline asm; kept, never inlined or duplicated [-Rpass=klto]
}

static inline __attribute__((always_inline)) void forced(void) {
  __asm__ volatile("forced_label: nop");
  // CHECK-DAG: inline-asm-diagnostics.c:[[@LINE-1]]:20: warning: klto: 'forced' is always_inline and its asm defines 'forced_label': each inlined copy defines them again
}
void use_forced(void) { forced(); }

void caller(void) { __asm__ volatile("call external_fn"); }
// CHECK-DAG: inline-asm-diagnostics.c:[[@LINE-1]]:38: remark: 'external_fn' is named only in inline asm; kept visible to LTO [-Rpass=klto]

// IR-DAG: @external_fn = external global i8
// GlobalOpt may give the static its only alias's name.
// IR-DAG: @__kltostub__kmod_d__local_counter = hidden {{alias i32, ptr @local_counter|global i32 0}}
// IR-DAG: asm sideeffect "movl __kltostub__kmod_d__local_counter(%rip), $0"
// IR-DAG: @llvm.compiler.used = appending global [3 x ptr] [ptr @__kltostub__kmod_d__local_counter, ptr @external_fn, ptr @host]
// IR-DAG: define dso_local void @host() {{.*}}#[[HOST:[0-9]+]]
// IR-DAG: call void asm sideeffect ".globl entry_a{{.*}} #[[CALL:[0-9]+]]
// IR-DAG: attributes #[[HOST]] = { noinline
// IR-DAG: attributes #[[CALL]] = { noduplicate

// OFF-NOT: llvm.compiler.used
// OFF-NOT: noinline
// OFF-NOT: noduplicate
