// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * The SIGSEGV handler. Faults in the pool are KFENCE's; every other SIGSEGV
 * behaves as if KFENCE were not there: it reaches the program's action, with
 * that action's semantics, whether the program installed it before KFENCE
 * started or after, and whether that action, for a fault it does not own,
 * calls the action it replaced (chains) or installs it back (restores).
 *
 * KFENCE stands in front of the program's action by installing one of its
 * entries instead: its handler under 32 names, entry j for slot j, which
 * holds the program's action entry j displaced. Where the program sees an
 * entry, as the action its own sigaction() replaced (the hooks build),
 * entry j stands for slot j's action: calling it runs that action,
 * installing it back makes that action the program's again. So a handler
 * that chains to or restores what it replaced reaches the action it would
 * have reached without KFENCE, never itself.
 *  - LD_PRELOAD build: sigaction() and signal() are interposed; the program
 *    sees and sets slot actions, KFENCE installs their entries.
 *  - hooks build: each guarded allocation looks at the installed action and,
 *    if the program replaced KFENCE's, gives it a slot and installs that
 *    slot's entry (the re-check).
 */
#define _GNU_SOURCE
#include "kfence_internal.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__aarch64__)
#include <asm/sigcontext.h>
#endif

/*
 * Serialises the slots' growth and the entries KFENCE installs outside the
 * handler (the re-check; the program's sigaction() calls in the LD_PRELOAD
 * build). Held with the asynchronous signals blocked (sigaction_lock): a
 * signal handler may call sigaction(), which the LD_PRELOAD build routes
 * here, so none may run on a thread holding it. Taken under
 * kfence_report_lock (a report callback may call sigaction()), never the
 * other way round. fork() takes it (core.c's before_fork), so no child
 * starts with it held; nothing under it is a cancellation point, so a
 * cancelled thread never holds it. The SIGSEGV handler never takes it: it
 * reads slots already published and installs with single sigaction()
 * calls, racing with the holder as any thread calling sigaction() would.
 */
static pthread_mutex_t kfence_sigaction_lock = PTHREAD_MUTEX_INITIALIZER;
static sigset_t fork_saved_mask; /* the forking thread's, under the lock */

static void handle_sigsegv(int sig, siginfo_t *info, void *uc, unsigned slot,
                           const void *ret);

/* The entries: handle_sigsegv() for slot j under the name entry_j, told
 * where the entry returns to. */
#define KFENCE_FAULT_ENTRIES(X)                                                \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13)    \
  X(14) X(15) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25)      \
  X(26) X(27) X(28) X(29) X(30) X(31)
#define ENTRY(j)                                                               \
  static void entry_##j(int sig, siginfo_t *info, void *uc) {                  \
    handle_sigsegv(sig, info, uc, j, __builtin_return_address(0));            \
  }
KFENCE_FAULT_ENTRIES(ENTRY)
#undef ENTRY
#define ENTRY(j) entry_##j,
static void (*const entries[])(int, siginfo_t *, void *) = {
    KFENCE_FAULT_ENTRIES(ENTRY)};
#undef ENTRY
#define KFENCE_FAULT_SLOTS (sizeof(entries) / sizeof(entries[0]))

/*
 * The program's actions KFENCE has stood in front of, in the order it met
 * them; slot 0 holds the one installed when KFENCE started. Append-only: a
 * slot never changes once counted in nr_slots (release), so the handler
 * reads published slots without the lock. An action met again gets its slot
 * back, so a program switching between a few actions uses a few slots.
 */
static struct sigaction slots[KFENCE_FAULT_SLOTS];
static atomic_uint nr_slots;

/*
 * Code built without the plugin can install its handler over one of our
 * entries, and then, calling sigaction() again to install itself anew, get
 * the entry standing for itself as the action it replaced (the re-check
 * put that entry in front of it). Installing that entry back for a fault
 * it does not own would bring the fault back to it for ever. The slots the
 * re-check gave such an action are in met_over_entry; while one of their
 * actions runs (run_watching()), their entry is installed marked, without
 * SA_RESTART (which a SIGSEGV handler already running cannot notice), so
 * that the action installing the entry back shows: it is installed
 * unmarked when the action returns. watchers[j] counts the threads running
 * slot j's action so (install_entry() installs entry j marked while there
 * are any); watch_gen[j] changes whenever entry j is unmarked by KFENCE
 * meanwhile, so that only an install by the program counts.
 */
static atomic_uint met_over_entry;
static atomic_uint watchers[KFENCE_FAULT_SLOTS];
static atomic_uint watch_gen[KFENCE_FAULT_SLOTS];

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

/* The slot whose entry @sa installs; -1 if @sa is not one of ours. */
static int entry_slot(const struct sigaction *sa) {
  if (sa->sa_flags & SA_SIGINFO)
    for (unsigned j = 0; j < KFENCE_FAULT_SLOTS; j++)
      if (sa->sa_sigaction == entries[j])
        return (int)j;
  return -1;
}

/* SA_ONSTACK: a program that catches stack overflows on an alternate stack
 * still gets them there. Marked: without SA_RESTART (see met_over_entry). */
static void entry_action(unsigned j, bool marked, struct sigaction *sa) {
  memset(sa, 0, sizeof(*sa));
  sa->sa_sigaction = entries[j];
  sa->sa_flags = SA_SIGINFO | SA_ONSTACK | (marked ? 0 : SA_RESTART);
  sigemptyset(&sa->sa_mask);
}

static int install_entry(unsigned j, struct sigaction *replaced) {
  struct sigaction sa;
  entry_action(j, atomic_load(&watchers[j]) != 0, &sa);
  return kfence_libc_sigaction(SIGSEGV, &sa, replaced);
}

static void default_action(struct sigaction *dfl) {
  memset(dfl, 0, sizeof(*dfl));
  dfl->sa_handler = SIG_DFL;
  sigemptyset(&dfl->sa_mask);
}

static void install_default(void) {
  struct sigaction dfl;
  default_action(&dfl);
  kfence_libc_sigaction(SIGSEGV, &dfl, NULL);
}

/* The flags that make an action what it is (the C library adds
 * SA_RESTORER to what it installs). */
#define ACTION_FLAGS                                                           \
  (SA_SIGINFO | SA_ONSTACK | SA_RESTART | SA_NODEFER | SA_RESETHAND |          \
   SA_NOCLDSTOP | SA_NOCLDWAIT)

static bool same_action(const struct sigaction *a, const struct sigaction *b) {
  if (a->sa_handler != b->sa_handler ||
      ((a->sa_flags ^ b->sa_flags) & ACTION_FLAGS))
    return false;
  for (int s = 1; s < NSIG; s++)
    if (sigismember(&a->sa_mask, s) != sigismember(&b->sa_mask, s))
      return false;
  return true;
}

/* Under kfence_sigaction_lock: the slot holding @act, given one if it has
 * none; -1 if every slot is taken. */
static int slot_for(const struct sigaction *act) {
  unsigned n = atomic_load_explicit(&nr_slots, memory_order_relaxed);
  for (unsigned j = 0; j < n; j++)
    if (same_action(&slots[j], act))
      return (int)j;
  if (n == KFENCE_FAULT_SLOTS)
    return -1;
  slots[n] = *act;
  atomic_store_explicit(&nr_slots, n + 1, memory_order_release);
  return (int)n;
}

/* Under kfence_sigaction_lock: slot_for(), and for an action with
 * SA_RESETHAND a slot holding SIG_DFL first, which reset_to_default()
 * installs from the handler, where it cannot take a slot. */
static int take_slot(const struct sigaction *act) {
  if (act->sa_flags & SA_RESETHAND) {
    struct sigaction dfl;
    default_action(&dfl);
    if (slot_for(&dfl) < 0)
      return -1;
  }
  return slot_for(act);
}

/*
 * The default action, which kills. Installed, so that returning re-executes
 * the faulting access and the program dies of the original fault, with its
 * siginfo. A signal that was sent (si_code <= 0) does not come back by
 * itself: it is sent again, with its siginfo, to this thread, and delivered
 * when the handler returns and unblocks it.
 */
static void die_by_default(int sig, siginfo_t *info) {
  install_default();
  if (info->si_code <= 0 &&
      syscall(SYS_rt_tgsigqueueinfo, getpid(), (pid_t)syscall(SYS_gettid),
              sig, info) != 0)
    raise(sig);
}

/*
 * SA_RESETHAND: the kernel delivered the signal to slot @j's action, which
 * is reset to SIG_DFL: install the entry of a slot holding SIG_DFL
 * (take_slot() made one). Not if entry @j is not what is installed: a
 * handler of the program's called it, and the reset already happened to
 * that handler's action.
 */
static void reset_to_default(unsigned j) {
  struct sigaction now;
  if (kfence_libc_sigaction(SIGSEGV, NULL, &now) != 0 ||
      entry_slot(&now) != (int)j)
    return;
  unsigned n = atomic_load_explicit(&nr_slots, memory_order_acquire);
  for (unsigned k = 0; k < n; k++)
    if (slots[k].sa_handler == SIG_DFL) {
      install_entry(k, NULL);
      return;
    }
}

/*
 * Hand a signal that is not KFENCE's to slot @j's action, as the kernel
 * would have: SIG_IGN discards what was sent and, like SIG_DFL, kills for a
 * fault (which cannot be ignored); a handler runs under the mask its own
 * sigaction() asked for, and is reset if it asked for SA_RESETHAND and the
 * kernel @delivered the signal through entry @j.
 */
static void run_action(int sig, siginfo_t *info, void *uc, unsigned j,
                       bool delivered) {
  /* Entry j was installed after slot j was published: this load sees it
   * and orders the read of the slot after it. */
  if (j >= atomic_load_explicit(&nr_slots, memory_order_acquire)) {
    die_by_default(sig, info);
    return;
  }
  const struct sigaction *act = &slots[j];
  if (act->sa_handler == SIG_IGN && info->si_code <= 0)
    return;
  if (act->sa_handler == SIG_DFL || act->sa_handler == SIG_IGN) {
    die_by_default(sig, info);
    return;
  }
  if (delivered && (act->sa_flags & SA_RESETHAND))
    reset_to_default(j);
  sigset_t mask, old;
  pthread_sigmask(SIG_BLOCK, &act->sa_mask, &old);
  pthread_sigmask(SIG_BLOCK, NULL, &mask);
  if (act->sa_flags & SA_NODEFER)
    sigdelset(&mask, sig);
  pthread_sigmask(SIG_SETMASK, &mask, NULL);
  if (act->sa_flags & SA_SIGINFO)
    act->sa_sigaction(sig, info, uc);
  else
    act->sa_handler(sig);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Installs @to if @from is installed; else leaves (or puts back) what is. */
static bool swap_entry(const struct sigaction *from,
                       const struct sigaction *to) {
  struct sigaction old;
  if (kfence_libc_sigaction(SIGSEGV, to, &old) != 0)
    return false;
  if (same_action(&old, from))
    return true;
  kfence_libc_sigaction(SIGSEGV, &old, NULL);
  return false;
}

/*
 * The watches this thread has open (run_watching()), innermost last. A
 * handler that jumps out of one (siglongjmp) leaves it open: the next
 * signal the kernel delivers to this thread no deeper on the stack closes
 * it (close_abandoned_watches()).
 */
#define MAX_WATCHES 4
struct watch {
  unsigned slot;
  uintptr_t frame; /* handle_sigsegv()'s */
};
static __thread struct watch open_watches[MAX_WATCHES]
    __attribute__((tls_model("initial-exec")));
static __thread unsigned nr_open_watches
    __attribute__((tls_model("initial-exec")));

static void end_watch(unsigned j) {
  unsigned n = atomic_load(&watchers[j]);
  while (n && !atomic_compare_exchange_weak(&watchers[j], &n, n - 1))
    ;
}

/* An abandoned watch ends without its check; changing watch_gen keeps any
 * other watch of the slot from reading the entry as the program's. */
static void close_abandoned_watches(uintptr_t frame) {
  while (nr_open_watches && open_watches[nr_open_watches - 1].frame <= frame) {
    unsigned j = open_watches[--nr_open_watches].slot;
    atomic_fetch_add(&watch_gen[j], 1);
    end_watch(j);
  }
}

/*
 * run_action() for slot @j; for a slot in met_over_entry, watching whether
 * the action installs entry @j back (see met_over_entry): then it restored
 * the entry standing for itself, and the default action takes its place,
 * as for an action that already ran. The last watcher unmarks the entry
 * again (and marks it once more if a watcher came meanwhile). Three
 * sigaction() calls more per signal, for these slots only.
 */
static void run_watching(int sig, siginfo_t *info, void *uc, unsigned j,
                         bool delivered, uintptr_t frame) {
  if (!(atomic_load_explicit(&met_over_entry, memory_order_relaxed) &
        (1u << j)) ||
      nr_open_watches == MAX_WATCHES) {
    run_action(sig, info, uc, j, delivered);
    return;
  }
  struct sigaction now, marked, unmarked;
  entry_action(j, true, &marked);
  entry_action(j, false, &unmarked);
  atomic_fetch_add(&watchers[j], 1);
  unsigned gen = atomic_load(&watch_gen[j]);
  bool watching = kfence_libc_sigaction(SIGSEGV, NULL, &now) == 0 &&
                  (same_action(&now, &marked) ||
                   (same_action(&now, &unmarked) &&
                    swap_entry(&unmarked, &marked)));
  open_watches[nr_open_watches++] = (struct watch){j, frame};
  run_action(sig, info, uc, j, delivered);
  nr_open_watches--;
  bool last = atomic_load(&watchers[j]) == 1;
  end_watch(j);
  if (!watching || kfence_libc_sigaction(SIGSEGV, NULL, &now) != 0)
    return;
  if (same_action(&now, &unmarked)) {
    /* A fault comes back to the default action; a signal that was sent is
     * not sent again: the default action awaits the next. */
    if (atomic_load(&watch_gen[j]) != gen)
      return;
    if (info->si_code > 0)
      die_by_default(sig, info);
    else
      install_default();
  } else if (last && same_action(&now, &marked)) {
    atomic_fetch_add(&watch_gen[j], 1);
    if (swap_entry(&marked, &unmarked) && atomic_load(&watchers[j]))
      swap_entry(&unmarked, &marked);
  }
}

/*
 * The signal this thread's handler is handing to the program's actions,
 * while it does. An action that chains to the one it replaced calls one of
 * our entries with the same siginfo or context, on the same stack, below
 * the frame of the handler that called it: that call continues the chain.
 * The signal is not looked at again, and an action this chain already ran
 * is not run again (a handler that installs itself anew sees an entry
 * standing for itself as the action it replaced): the default action runs
 * instead. Any other entry into the handler is a new signal, with its own
 * siginfo and context. If the program jumped out of a chain (siglongjmp)
 * and a signal comes at the same depth, its siginfo and context lie where
 * the stale ones did, but the handler's frame is no deeper than the one
 * recorded; if a handler of the program's gets it first and calls an
 * entry, the frame is deeper, but the siginfo (code, address) differs
 * unless it is the same fault again.
 */
struct chain {
  const siginfo_t *info;
  const void *uc;
  uintptr_t frame;
  int code;
  void *addr;
  uint32_t ran; /* slots whose actions it has run */
};
_Static_assert(KFENCE_FAULT_SLOTS <= 32, "a bit of chain.ran per slot");
static __thread struct chain chain_now
    __attribute__((tls_model("initial-exec")));

/*
 * Whether an entry returning to @ret was called by the kernel: a handler the
 * kernel delivers to returns into the signal trampoline, whose code calls
 * rt_sigreturn (the code libgcc's unwinder knows signal frames by); an
 * entry a handler of the program's called returns into that handler. Read
 * a byte at a time, up to the first that differs: past a call's return
 * address there is at least one instruction. Elsewhere every entry counts
 * as delivered.
 */
static bool called_by_kernel(const void *ret) {
#if defined(__x86_64__)
  /* mov $15, %rax; syscall */
  static const unsigned char sigreturn[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00,
                                            0x00, 0x00, 0x0f, 0x05};
#elif defined(__aarch64__)
  /* mov x8, #139; svc #0 */
  static const unsigned char sigreturn[] = {0x68, 0x11, 0x80, 0xd2,
                                            0x01, 0x00, 0x00, 0xd4};
#endif
#if defined(__x86_64__) || defined(__aarch64__)
  const volatile unsigned char *code = ret;
  for (size_t i = 0; i < sizeof(sigreturn); i++)
    if (code[i] != sigreturn[i])
      return false;
#else
  (void)ret;
#endif
  return true;
}

/*
 * A handler of the program's, installed directly when the kernel delivered
 * the signal to it, calls entry @slot as the action it replaced, and a new
 * chain starts: if slot @slot holds that very handler (it saved an entry
 * standing for itself, as a handler that re-installs itself over the entry
 * KFENCE's re-check put in front of it does), it has run already. The
 * kernel delivered to what is installed unless the program installed
 * another since: then the handler runs once more, and the chain ends when
 * it calls the entry again.
 */
static bool slot_ran_directly(unsigned slot) {
  struct sigaction now;
  return slot < atomic_load_explicit(&nr_slots, memory_order_acquire) &&
         kfence_libc_sigaction(SIGSEGV, NULL, &now) == 0 &&
         entry_slot(&now) < 0 && same_action(&now, &slots[slot]);
}

/* noinline: one copy behind all the entries. */
__attribute__((noinline)) static void
handle_sigsegv(int sig, siginfo_t *info, void *uc, unsigned slot,
               const void *ret) {
  int saved_errno = errno;
  uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
  struct chain outer = chain_now;
  bool delivered = called_by_kernel(ret);
  if (delivered)
    close_abandoned_watches(frame);
  bool chained = !delivered && outer.ran &&
                 (info == outer.info || uc == outer.uc) &&
                 frame < outer.frame && info->si_code == outer.code &&
                 info->si_addr == outer.addr;
  if (!chained) {
    /* si_code > 0: a fault the kernel raised, not a kill() or raise(). */
    if (info->si_code > 0) {
      if (kfence_handle_page_fault((uintptr_t)info->si_addr,
                                   fault_is_write(uc), uc)) {
        errno = saved_errno;
        return;
      }
      kfence_report_libc_crash(uc);
    }
    chain_now = (struct chain){.info = info,
                               .uc = uc,
                               .frame = frame,
                               .code = info->si_code,
                               .addr = info->si_addr};
    if (!delivered && slot_ran_directly(slot))
      chain_now.ran = 1u << slot;
  }
  if (chain_now.ran & (1u << slot)) {
    die_by_default(sig, info);
  } else {
    chain_now.ran |= 1u << slot;
    run_watching(sig, info, uc, slot, delivered, frame);
  }
  chain_now = outer;
  errno = saved_errno;
}

/*
 * Under kfence_sigaction_lock: stand in front of the action installed now,
 * installing the entry of its slot. A program's sigaction() between the
 * look and the install shows as the action the install replaced, which is
 * taken in turn. With every slot taken, the program's action stays
 * installed and reaches KFENCE's handler only by chaining to it.
 */
static uint32_t take_sigsegv(void) {
  struct sigaction now, replaced;
  uint32_t taken = 0;
  if (kfence_libc_sigaction(SIGSEGV, NULL, &now) != 0)
    return 0;
  while (entry_slot(&now) < 0) {
    int j = take_slot(&now);
    if (j < 0 || install_entry(j, &replaced) != 0)
      return taken;
    taken |= 1u << j;
    if (same_action(&replaced, &now))
      return taken;
    now = replaced;
  }
  return taken;
}

void kfence_fault_lock_for_fork(void) { sigaction_lock(&fork_saved_mask); }

void kfence_fault_unlock_after_fork(void) {
  sigset_t saved = fork_saved_mask;
  sigaction_unlock(&saved);
}

static uint32_t take_sigsegv_locked(void) {
  sigset_t saved;
  sigaction_lock(&saved);
  uint32_t taken = take_sigsegv();
  sigaction_unlock(&saved);
  return taken;
}

void kfence_fault_install(void) { take_sigsegv_locked(); }

void kfence_fault_recheck(void) {
  struct sigaction now;
  if (kfence_libc_sigaction(SIGSEGV, NULL, &now) != 0 || entry_slot(&now) >= 0)
    return;
  atomic_fetch_or(&met_over_entry, take_sigsegv_locked());
}

int kfence_sigaction(int signum, const struct sigaction *act,
                     struct sigaction *oldact) {
  if (signum == SIGSEGV)
    return kfence_fault_sigaction(act, oldact);
  return kfence_libc_sigaction(signum, act, oldact);
}

/* glibc's signal(): BSD semantics, through kfence_sigaction(). */
__sighandler_t kfence_signal(int signum, __sighandler_t handler) {
  struct sigaction act, old;
  memset(&act, 0, sizeof(act));
  act.sa_handler = handler;
  act.sa_flags = SA_RESTART;
  sigemptyset(&act.sa_mask);
  sigaddset(&act.sa_mask, signum);
  if (kfence_sigaction(signum, &act, &old) < 0)
    return SIG_ERR;
  return old.sa_handler;
}

int kfence_fault_sigaction(const struct sigaction *act,
                           struct sigaction *oldact) {
  sigset_t saved;
  sigaction_lock(&saved);
  struct sigaction now;
  int ret = kfence_libc_sigaction(SIGSEGV, NULL, &now);
  int j = ret == 0 ? entry_slot(&now) : -1;
  if (j < 0) {
    ret = kfence_libc_sigaction(SIGSEGV, act, oldact);
  } else {
    struct sigaction old = slots[j];
    if (act) {
      int k = take_slot(act);
      ret = k >= 0 ? install_entry(k, NULL)
                   : kfence_libc_sigaction(SIGSEGV, act, NULL);
    }
    if (oldact && ret == 0)
      *oldact = old;
  }
  sigaction_unlock(&saved);
  return ret;
}
