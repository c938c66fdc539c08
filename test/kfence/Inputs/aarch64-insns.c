/* The faulting load/store of each A64 instruction form KFENCE must tell
 * reads from writes by (test/kfence/aarch64-faults.test): each hits the
 * guard page before a left-placed object. Built for armv8.1-a (LSE atomics).
 * An exclusive store with no monitor set fails without touching memory, so
 * STXR is not here; the decoder's table is in runtime/kfence/fault.c. */
#include "redirect.h"
#include <stdio.h>
#include <string.h>

#define ACCESS(name, insn)                                                     \
  __attribute__((noinline)) static void name(char *a) {                        \
    __asm__ volatile(insn ::"r"(a) : "memory", "x1", "x2", "x3", "v0", "v1"); \
  }
ACCESS(str_x, "str x1, [%0]")
ACCESS(ldr_x, "ldr x1, [%0]")
ACCESS(strb_w, "strb w1, [%0]")
ACCESS(ldrsw_x, "ldrsw x1, [%0]")
ACCESS(stur_x, "stur x1, [%0, #-1]")
ACCESS(ldur_x, "ldur x1, [%0, #-1]")
ACCESS(str_reg, "mov x2, #0\n str x1, [%0, x2]")
ACCESS(stp_x, "stp x1, x2, [%0]")
ACCESS(ldp_x, "ldp x1, x2, [%0]")
ACCESS(str_q, "str q0, [%0]")
ACCESS(ldr_q, "ldr q0, [%0]")
ACCESS(st1_v, "st1 {v0.16b}, [%0]")
ACCESS(ld1_v, "ld1 {v0.16b}, [%0]")
ACCESS(stlr_x, "stlr x1, [%0]")
ACCESS(ldar_x, "ldar x1, [%0]")
ACCESS(ldxr_x, "ldxr x1, [%0]")
ACCESS(ldadd_x, "ldadd x1, x2, [%0]")
ACCESS(swp_x, "swp x1, x2, [%0]")
ACCESS(cas_x, "cas x1, x2, [%0]")

static const struct { const char *name; void (*fn)(char *); } forms[] = {
#define F(n) {#n, n}
    F(str_x), F(ldr_x), F(strb_w), F(ldrsw_x), F(stur_x), F(ldur_x),
    F(str_reg), F(stp_x), F(ldp_x), F(str_q), F(ldr_q), F(st1_v),
    F(ld1_v), F(stlr_x), F(ldar_x), F(ldxr_x), F(ldadd_x),
    F(swp_x), F(cas_x),
};

int main(int argc, char **argv) {
  char *p = malloc(32);
  if (argc < 2 || !is_kfence_address(p))
    return 2;
  for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); ++i)
    if (!strcmp(argv[1], forms[i].name)) {
      fprintf(stderr, "form %s\n", forms[i].name);
      forms[i].fn(p - 64); /* the guard page before a left-placed object */
      return 0;
    }
  return 3;
}
