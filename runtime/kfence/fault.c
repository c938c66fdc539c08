// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * The SIGSEGV handler. Faults in the pool are KFENCE's; every other SIGSEGV
 * belongs to the program and goes to the action it installed, whether it did
 * so before KFENCE started (we saved it) or after:
 *  - LD_PRELOAD build: sigaction() and signal() are interposed, SIGSEGV
 *    actions are recorded as the one to chain to instead of replacing ours;
 *  - hooks-only build: the runtime looks at the installed action whenever it
 *    allocates or frees a guarded object and takes SIGSEGV back, saving the
 *    program's action, if it was replaced.
 */
#define _GNU_SOURCE
#include "kfence_internal.h"

#include <errno.h>
#include <string.h>
#if defined(__aarch64__)
#include <asm/sigcontext.h>
#endif

/*
 * Protects prev_action against concurrent updates (sigaction() calls, the
 * re-check). The handler uses it without the lock: it cannot wait for a
 * lock that the thread it interrupted may hold. Held with the asynchronous
 * signals blocked (sigaction_lock): a signal handler may call sigaction(),
 * which is async-signal-safe and in the LD_PRELOAD build takes this lock,
 * so no handler may run on the thread that holds it. No cancellation point
 * is reached while it is held, so a cancelled thread never holds it. A
 * fork child never finds it held (core.c's before_fork takes it).
 */
static pthread_mutex_t kfence_sigaction_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction prev_action;
static atomic_bool installed;

/* Faults stay deliverable: blocked, they would kill the process outright. */
static void sigaction_lock(sigset_t *saved) {
  sigset_t async;
  sigfillset(&async);
  static const int synchronous[] = {SIGSEGV, SIGBUS,  SIGILL,
                                    SIGFPE,  SIGTRAP, SIGSYS};
  for (size_t i = 0; i < sizeof(synchronous) / sizeof(synchronous[0]); i++)
    sigdelset(&async, synchronous[i]);
  pthread_sigmask(SIG_BLOCK, &async, saved);
  pthread_mutex_lock(&kfence_sigaction_lock);
}

static void sigaction_unlock(const sigset_t *saved) {
  pthread_mutex_unlock(&kfence_sigaction_lock);
  pthread_sigmask(SIG_SETMASK, saved, NULL);
}

#if defined(__aarch64__)
/*
 * Whether the A64 instruction @insn writes memory, from the "Loads and
 * Stores" encoding group of the Arm ARM: pairs and exclusives have an L bit
 * (22); single-register forms store when opc (23:22) is 00 for general
 * registers, when opc<0> is 0 for SIMD&FP ones; atomics and compare-and-
 * swap write. Anything else counts as a read.
 */
static bool a64_insn_writes(uint32_t insn) {
  if ((insn & 0x0a000000) != 0x08000000)
    return false; /* not a load or store */
  bool simd = insn & (1u << 26);
  unsigned opc = (insn >> 22) & 3;
  bool l_bit = insn & (1u << 22);
  switch ((insn >> 27) & 7) {
  case 1: /* 0b001: exclusives, load-acquire/store-release, CAS */
    if ((insn & 0x3f000000) == 0x08000000 && (insn & 0x00a00000) == 0x00a00000)
      return true; /* CAS, CASP */
    return !l_bit;
  case 5: /* 0b101: pairs */
    return !l_bit;
  case 7: /* 0b111: single register, atomics */
    if (!(insn & (1u << 24)) && (insn & (1u << 21))) {
      unsigned op5 = (insn >> 10) & 3;
      if (op5 == 0)
        return true; /* LDADD, SWP, ...: read-modify-write */
      if (op5 & 1)
        return false; /* LDRAA/LDRAB */
    }
    return simd ? !(opc & 1) : opc == 0;
  case 3: /* 0b011: literal loads, RCpc unscaled (LDAPUR/STLUR) */
    return (insn & 0x3f200c00) == 0x19000000 && opc == 0;
  default: /* 0b000: SIMD structure loads and stores */
    return (insn & 0xbf800000) == 0x0c000000 ||
                   (insn & 0xbf800000) == 0x0c800000
               ? !l_bit
               : false;
  }
}
#endif

uintptr_t kfence_fault_pc(const ucontext_t *uc) {
#if defined(__x86_64__)
  return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
  return (uintptr_t)uc->uc_mcontext.pc;
#else
  (void)uc;
  return 0;
#endif
}

size_t kfence_fault_registers(const ucontext_t *uc, uintptr_t *out,
                              size_t max) {
  size_t n = 0;
#if defined(__x86_64__)
  static const int general[] = {REG_RAX, REG_RBX, REG_RCX, REG_RDX, REG_RSI,
                                REG_RDI, REG_RBP, REG_R8,  REG_R9,  REG_R10,
                                REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};
  for (size_t k = 0; k < sizeof(general) / sizeof(general[0]) && n < max; k++)
    out[n++] = (uintptr_t)uc->uc_mcontext.gregs[general[k]];
#elif defined(__aarch64__)
  for (size_t k = 0; k < 31 && n < max; k++)
    out[n++] = (uintptr_t)uc->uc_mcontext.regs[k];
#else
  (void)uc, (void)out, (void)max;
#endif
  return n;
}

static bool fault_is_write(const ucontext_t *uc) {
#if defined(__x86_64__)
  /* Page-fault error code: bit 1 is set for writes. */
  return uc->uc_mcontext.gregs[REG_ERR] & 2;
#elif defined(__aarch64__)
  /* ESR_EL1 is in a record of the __reserved area; WnR is ISS bit 6. */
  const struct _aarch64_ctx *head =
      (const struct _aarch64_ctx *)uc->uc_mcontext.__reserved;
  const char *end = (const char *)uc->uc_mcontext.__reserved +
                    sizeof(uc->uc_mcontext.__reserved);
  while ((const char *)head + sizeof(*head) <= end && head->magic && head->size) {
    if (head->magic == ESR_MAGIC)
      return ((const struct esr_context *)head)->esr & (1u << 6);
    head = (const struct _aarch64_ctx *)((const char *)head + head->size);
  }
  /* No ESR record (QEMU's user mode writes none): the instruction that
   * faulted says it. It is mapped, since the CPU just executed it. */
  return a64_insn_writes(*(const uint32_t *)uc->uc_mcontext.pc);
#else
  (void)uc;
  return false;
#endif
}

/* Hand a signal that is not KFENCE's to the program's action. */
static void chain(int sig, siginfo_t *info, void *ctx) {
  struct sigaction prev = prev_action;
  if (prev.sa_flags & SA_RESETHAND) {
    /* Unlocked: see kfence_sigaction_lock. A sigaction() racing with the
     * fault is ordered arbitrarily, as the kernel would do. */
    prev_action.sa_handler = SIG_DFL;
    prev_action.sa_flags &= ~SA_SIGINFO;
  }
  if (!(prev.sa_flags & SA_SIGINFO) &&
      (prev.sa_handler == SIG_DFL || prev.sa_handler == SIG_IGN)) {
    /* A kernel-made fault cannot be ignored either: die of it as if we
     * had never been there. Returning re-executes the faulting access,
     * so the core dump shows the original fault. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    kfence_libc_sigaction(sig, &dfl, NULL);
    atomic_store(&installed, false);
    if (info->si_code <= 0)
      raise(sig);
    return;
  }
  /* Run it under the mask its own sigaction() asked for. */
  sigset_t mask, old;
  pthread_sigmask(SIG_BLOCK, &prev.sa_mask, &old);
  pthread_sigmask(SIG_BLOCK, NULL, &mask);
  if (prev.sa_flags & SA_NODEFER)
    sigdelset(&mask, sig);
  pthread_sigmask(SIG_SETMASK, &mask, NULL);
  if (prev.sa_flags & SA_SIGINFO)
    prev.sa_sigaction(sig, info, ctx);
  else
    prev.sa_handler(sig);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void handle_sigsegv(int sig, siginfo_t *info, void *ctx) {
  int saved_errno = errno;
  /* si_code > 0: a fault the kernel raised, not a kill() or raise(). */
  if (info->si_code > 0) {
    if (kfence_handle_page_fault((uintptr_t)info->si_addr, fault_is_write(ctx),
                                 ctx)) {
      errno = saved_errno;
      return;
    }
    kfence_report_libc_crash(ctx);
  }
  errno = saved_errno;
  chain(sig, info, ctx);
}

static bool is_ours(const struct sigaction *sa) {
  return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == handle_sigsegv;
}

/* SA_ONSTACK: a program that catches stack overflows on an alternate stack
 * still gets them there. */
static void take_sigsegv(void) {
  struct sigaction ours, old;
  memset(&ours, 0, sizeof(ours));
  ours.sa_sigaction = handle_sigsegv;
  ours.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset(&ours.sa_mask);
  if (kfence_libc_sigaction(SIGSEGV, &ours, &old) == 0) {
    if (!is_ours(&old))
      prev_action = old;
    atomic_store(&installed, true);
  }
}

/* The mask of the thread that forks, under the lock. */
static sigset_t fork_saved_mask;

void kfence_fault_lock_for_fork(void) {
  sigset_t saved;
  sigaction_lock(&saved);
  fork_saved_mask = saved;
}

void kfence_fault_unlock_after_fork(void) {
  sigset_t saved = fork_saved_mask;
  sigaction_unlock(&saved);
}

void kfence_fault_install(void) {
  sigset_t saved;
  sigaction_lock(&saved);
  take_sigsegv();
  sigaction_unlock(&saved);
}

void kfence_fault_recheck(void) {
  struct sigaction cur;
  if (kfence_libc_sigaction(SIGSEGV, NULL, &cur) != 0 || is_ours(&cur))
    return;
  sigset_t saved;
  sigaction_lock(&saved);
  take_sigsegv();
  sigaction_unlock(&saved);
}

int kfence_fault_virtual_sigaction(int signum, const struct sigaction *act,
                                   struct sigaction *oldact) {
  if (signum != SIGSEGV || !atomic_load(&installed))
    return -1;
  sigset_t saved;
  sigaction_lock(&saved);
  if (oldact)
    *oldact = prev_action;
  if (act)
    prev_action = *act;
  sigaction_unlock(&saved);
  return 0;
}
