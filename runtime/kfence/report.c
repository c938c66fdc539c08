// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * Stacks and the KFENCE-format reports, stats and object listing.
 *
 * Reports are printed from the SIGSEGV handler, so this file takes no heap
 * memory: a report is formatted into a static buffer (one write() keeps
 * concurrent reports from interleaving), and frames are named by
 * symbols.c, which reads mapped ELF headers and files but allocates
 * nothing. Not async-signal-safe by POSIX's list, but safe here: the
 * handler reports a fault in program code that touched a KFENCE object,
 * and neither path takes a lock malloc holds.
 */
#define _GNU_SOURCE
#include "kfence_internal.h"

#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Where reports and the exit-time listings go: a descriptor of our own, a
 * duplicate of stderr made at program start. Programs close stderr before
 * they exit (every coreutils program does, in close_stdout), and a report
 * raised then, or print_stats_at_exit, went nowhere. The file's identity is
 * kept with it: a program that closes every descriptor and opens another
 * file under the same number must not find reports in that file; stderr is
 * used then. Set at start-up, and again at a forked child's first report
 * when log_path names a file per process.
 */
static int log_fd = -1;
static dev_t log_dev;
static ino_t log_ino;
/* With log_path: the process the file is named after. A child of fork()
 * gets a file of its own at its first report. */
static pid_t log_pid;

/*
 * The file is the process's own, so anything there but a regular file is a
 * mistake or a trap: a symbolic link planted in a shared directory would
 * have a root process append to whatever it names, and opening a FIFO
 * blocks the program until someone reads it. Neither is followed.
 */
#define LOG_FILE_FLAGS                                                         \
  (O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)

/* log_open_for()'s result for something other than a regular file. */
#define LOG_NOT_REGULAR (-1)

/* Opens <log_path>.<pid>, or duplicates stderr, as the descriptor above.
 * Returns 0, LOG_NOT_REGULAR or an errno value; reports call it too, so it
 * formats nothing (strerror() may take the locale's lock). */
static int log_open_for(pid_t pid) {
  struct stat st;
  int fd;
  bool own_file = kfence_opts.log_path[0] != 0;
  if (own_file) {
    char path[sizeof(kfence_opts.log_path) + 16];
    snprintf(path, sizeof(path), "%s.%d", kfence_opts.log_path, (int)pid);
    fd = kfence_sys_open(path, LOG_FILE_FLAGS, 0644);
    /* O_NOFOLLOW fails on a link with ELOOP; O_NONBLOCK makes a FIFO
     * without a reader (and a socket) fail with ENXIO. */
    if (fd < 0 && (errno == ELOOP || errno == ENXIO))
      return LOG_NOT_REGULAR;
  } else {
    fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
  }
  if (fd < 0)
    return errno;
  if (fstat(fd, &st) != 0) {
    int err = errno;
    kfence_sys_close(fd);
    return err;
  }
  if (own_file && !S_ISREG(st.st_mode)) {
    kfence_sys_close(fd);
    return LOG_NOT_REGULAR;
  }
  if (log_fd >= 0)
    kfence_sys_close(log_fd);
  log_dev = st.st_dev;
  log_ino = st.st_ino;
  log_pid = pid;
  log_fd = fd;
  return 0;
}

/* A log_path that cannot be written is a configuration error, as a bad
 * option value is (options.c): refuse to start rather than lose reports. */
void kfence_log_open(void) {
  int err = log_open_for(getpid());
  if (!err || !kfence_opts.log_path[0])
    return;
  fprintf(stderr, "kfence: KFENCE_OPTIONS: cannot open log_path %s.%d: %s\n",
          kfence_opts.log_path, (int)getpid(),
          err == LOG_NOT_REGULAR
              ? "it is a symbolic link, FIFO or device, not a regular file: "
                "remove it or choose another log_path"
              : strerror(err));
  exit(1);
}

static void write_all(int fd, const char *buf, size_t len) {
  while (len) {
    ssize_t n = kfence_sys_write(fd, buf, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return;
    buf += n;
    len -= (size_t)n;
  }
}

/* One fstat(): reports are rare, and a wrong file is worse than a call. */
static int log_target(void) {
  struct stat st;
  if (kfence_opts.log_path[0] && log_pid != getpid())
    log_open_for(getpid());
  if (log_fd >= 0 && fstat(log_fd, &st) == 0 && st.st_dev == log_dev &&
      st.st_ino == log_ino)
    return log_fd;
  return STDERR_FILENO;
}

void kfence_log_printf(const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof(line), fmt, ap);
  va_end(ap);
  if (n > 0)
    write_all(log_target(), line,
              (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/*
 * Protects report_buf, json_buf, report_frames, the queue below and the
 * callback, and keeps reports whole when threads race. Held while a report
 * is formatted, written and handed to the callback. A cancelled thread
 * cannot hold it: cancellation is disabled while it is held (kfence_lock),
 * what the report calls is no cancellation point (kfence_sys_*), and a
 * callback left by unwinding releases it (call_back). A fork child
 * never finds it held (core.c's before_fork takes it). Code that runs on
 * the thread holding it never waits for it (KFENCE_LOCK_REPORT): the
 * callback, which may unregister itself, read the stats and print the
 * objects, and cause a report of its own; a signal handler that interrupted
 * the report and causes one (a use-after-free in the handler).
 */
static pthread_mutex_t kfence_report_lock = PTHREAD_MUTEX_INITIALIZER;
static char report_buf[32768];
static char json_buf[32768];
static kfence_report_fn report_fn;
static void *report_arg;
/* The holder's cancellation state from before it took the lock. */
static int report_lock_cancel;
atomic_ulong kfence_stat_bugs;

#define RULE "=================================================================="

struct out {
  FILE *file; /* when NULL, append to buf */
  char *buf;
  size_t len, cap;
};

__attribute__((format(printf, 2, 3))) static void out_printf(struct out *o,
                                                             const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (o->file) {
    vfprintf(o->file, fmt, ap);
  } else if (o->len < o->cap) {
    int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
    if (n > 0)
      o->len = o->len + (size_t)n < o->cap ? o->len + (size_t)n : o->cap - 1;
  }
  va_end(ap);
}

void kfence_save_stack(struct kfence_track *track, uintptr_t first) {
  void *frames[KFENCE_STACK_DEPTH + 32];
  int n = backtrace(frames, (int)(sizeof(frames) / sizeof(frames[0])));
  int skip = 0;
  for (int i = 0; i < n; i++) {
    if ((uintptr_t)frames[i] == first) {
      skip = i;
      break;
    }
  }
  track->nr_frames = n - skip < KFENCE_STACK_DEPTH ? n - skip : KFENCE_STACK_DEPTH;
  for (int i = 0; i < track->nr_frames; i++)
    track->frames[i] = (uintptr_t)frames[skip + i];
  track->tid = kfence_gettid();
}

void kfence_report_init(void) {
  void *frame;
  backtrace(&frame, 1);
}

/*
 * Frames resolved during the report being written, under kfence_report_lock:
 * a report names each frame up to three times (headline, text, JSON), and
 * resolving one may open and map an ELF file. Outside a report (the object
 * listing) nothing is kept.
 */
static struct kfence_frame report_frames[3 * KFENCE_STACK_DEPTH];
static int nr_report_frames = -1; /* -1: not inside a report */

static void resolve_frame(uintptr_t pc, struct kfence_frame *f) {
  for (int i = 0; i < nr_report_frames; i++)
    if (report_frames[i].pc == pc) {
      *f = report_frames[i];
      return;
    }
  kfence_resolve_frame(pc, f);
  if (nr_report_frames >= 0 &&
      nr_report_frames < (int)(sizeof(report_frames) / sizeof(*report_frames)))
    report_frames[nr_report_frames++] = *f;
}

/* " func+0xoff/0xsize", or " 0xpc (module+0xoff)" when no symbol covers it. */
static void print_frame(struct out *o, uintptr_t pc) {
  struct kfence_frame f;
  resolve_frame(pc, &f);
  if (f.function[0])
    out_printf(o, " %s+0x%lx/0x%lx\n", f.function,
               (unsigned long)f.function_offset,
               (unsigned long)f.function_size);
  else if (f.module)
    out_printf(o, " 0x%lx (%s+0x%lx)\n", (unsigned long)pc,
               kfence_module_basename(f.module), (unsigned long)f.offset);
  else
    out_printf(o, " 0x%lx\n", (unsigned long)pc);
}

static void print_stack(struct out *o, const struct kfence_track *t) {
  for (int i = 0; i < t->nr_frames; i++)
    print_frame(o, t->frames[i]);
}

static void print_object(struct out *o, const struct kfence_metadata *m, long i) {
  if (m->state == KFENCE_OBJECT_UNUSED) {
    out_printf(o, "kfence-#%ld unused\n", i);
    return;
  }
  out_printf(o,
             "kfence-#%ld [0x%lx-0x%lx, size=%zu, cache=malloc] allocated by "
             "task %d:\n",
             i, (unsigned long)m->addr, (unsigned long)(m->addr + m->size - 1),
             m->size, (int)m->alloc_track.tid);
  print_stack(o, &m->alloc_track);
  if (m->state == KFENCE_OBJECT_FREED) {
    out_printf(o, "\nfreed by task %d:\n", (int)m->free_track.tid);
    print_stack(o, &m->free_track);
  }
}

/*
 * Not in the kernel's format: its objects come from a slab of many, ours
 * from a slot that is handed out again. A use-after-free or double free
 * found on a slot that held more than one object shows the last object's
 * stacks, and the dangling pointer may be to an earlier object.
 */
static void print_reuse_note(struct out *o, const struct kfence_report *r) {
  const struct kfence_metadata *m = r->meta;
  bool dangling =
      r->type == KFENCE_BUG_USE_AFTER_FREE ||
      (r->type == KFENCE_BUG_INVALID_FREE && m->state == KFENCE_OBJECT_FREED);
  if (!dangling || m->owners < 2)
    return;
  bool outside = r->addr < m->addr || r->addr >= m->addr + m->size;
  out_printf(o,
             "\nkfence-#%ld has held %lu objects; the stacks above are the "
             "last one's.\n%s\n",
             r->index, m->owners,
             outside ? "The address is outside that object: the pointer is "
                       "to an earlier object of this slot."
                     : "The pointer may be to an earlier object of this slot.");
}

/* The kernel's measure (mm/kfence/report.c), GWP-ASan's too: right of the
 * object counts from its start, so p[32] of 32 bytes is "32B right". */
static size_t oob_distance(const struct kfence_report *r, bool *left) {
  const struct kfence_metadata *m = r->meta;
  *left = r->addr < m->addr;
  return *left ? m->addr - r->addr : r->addr - m->addr;
}

/* The kind's name in JSON; the text headlines spell it the kernel's way. */
static const char *const json_kind[] = {
    [KFENCE_BUG_OUT_OF_BOUNDS] = "out-of-bounds",
    [KFENCE_BUG_USE_AFTER_FREE] = "use-after-free",
    [KFENCE_BUG_MEMORY_CORRUPTION] = "memory-corruption",
    [KFENCE_BUG_INVALID_ACCESS] = "invalid-access",
    [KFENCE_BUG_INVALID_FREE] = "invalid-free",
};

/* A JSON string: quotes, backslashes and control bytes escaped. */
static void json_string(struct out *o, const char *s) {
  out_printf(o, "\"");
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      out_printf(o, "\\%c", c);
    else if (c < 0x20)
      out_printf(o, "\\u%04x", c);
    else
      out_printf(o, "%c", c);
  }
  out_printf(o, "\"");
}

static void json_frame(struct out *o, uintptr_t pc) {
  struct kfence_frame f;
  resolve_frame(pc, &f);
  out_printf(o, "{\"pc\":\"0x%lx\"", (unsigned long)pc);
  if (f.module) {
    out_printf(o, ",\"module\":");
    json_string(o, f.module);
    out_printf(o, ",\"build_id\":\"%s\",\"offset\":\"0x%lx\"", f.build_id,
               (unsigned long)f.offset);
  }
  if (f.function[0]) {
    out_printf(o, ",\"function\":");
    json_string(o, f.function);
    out_printf(o, ",\"function_offset\":\"0x%lx\",\"function_size\":\"0x%lx\"",
               (unsigned long)f.function_offset,
               (unsigned long)f.function_size);
  }
  out_printf(o, "}");
}

static void json_stack(struct out *o, const char *key,
                       const struct kfence_track *t) {
  out_printf(o, "\"%s\":{\"task\":%d,\"frames\":[", key, (int)t->tid);
  for (int i = 0; i < t->nr_frames; i++) {
    if (i)
      out_printf(o, ",");
    json_frame(o, t->frames[i]);
  }
  out_printf(o, "]}");
}

/* The report as one JSON object on one line (fields: docs/kfence.md). */
static void format_json(struct out *o, const struct kfence_report *r, int cpu,
                        const char *comm) {
  out_printf(o, "{\"kfence\":1,\"kind\":\"%s\"", json_kind[r->type]);
  if (r->type != KFENCE_BUG_MEMORY_CORRUPTION &&
      r->type != KFENCE_BUG_INVALID_FREE)
    out_printf(o, ",\"access\":\"%s\"", r->is_write ? "write" : "read");
  out_printf(o, ",\"address\":\"0x%lx\"", (unsigned long)r->addr);
  if (r->type == KFENCE_BUG_OUT_OF_BOUNDS) {
    bool left;
    size_t distance = oob_distance(r, &left);
    out_printf(o, ",\"distance\":%zu,\"side\":\"%s\"", distance,
               left ? "left" : "right");
  }
  out_printf(o, ",");
  json_stack(o, "stack", r->stack);
  const struct kfence_metadata *m = r->meta;
  if (m) {
    out_printf(o,
               ",\"object\":{\"index\":%ld,\"start\":\"0x%lx\",\"size\":%zu,"
               "\"cache\":\"malloc\",\"state\":\"%s\",\"slot_objects\":%lu,",
               r->index, (unsigned long)m->addr, m->size,
               m->state == KFENCE_OBJECT_FREED ? "freed" : "allocated",
               m->owners);
    json_stack(o, "allocated_by", &m->alloc_track);
    if (m->state == KFENCE_OBJECT_FREED) {
      out_printf(o, ",");
      json_stack(o, "freed_by", &m->free_track);
    }
    out_printf(o, "}");
  }
  out_printf(o, ",\"cpu\":%d,\"pid\":%d,\"comm\":", cpu, (int)getpid());
  json_string(o, comm);
  out_printf(o, "}");
}

void kfence_set_report_callback(kfence_report_fn fn, void *arg) {
  /* From the callback: this thread holds the lock already. */
  if (kfence_locks_held & KFENCE_LOCK_REPORT) {
    report_fn = fn;
    report_arg = arg;
    return;
  }
  kfence_report_lock_acquire();
  report_fn = fn;
  report_arg = arg;
  kfence_report_lock_release();
}

static struct kfence_bug_stack bug_stack(const struct kfence_track *t) {
  return (struct kfence_bug_stack){t->tid, t->nr_frames, t->frames};
}

/*
 * The callback is the program's code: it may leave by unwinding (a
 * cancellation it let act, pthread_exit(), a C++ exception), and then the
 * report lock is released on the way out, as the lock's holder would have
 * after the report. This file is built with -fexceptions for this cleanup.
 */
static void release_if_unwound(const bool *returned) {
  if (*returned)
    return;
  nr_report_frames = -1;
  kfence_unlock(&kfence_report_lock, KFENCE_LOCK_REPORT, report_lock_cancel);
}

static void call_back(const struct kfence_report *r, const char *text,
                      const char *json) {
  const struct kfence_metadata *m = r->meta;
  struct kfence_bug bug = {
      .kind = r->type,
      .is_write = r->is_write,
      .address = r->addr,
      .stack = bug_stack(r->stack),
      .object_index = m ? r->index : -1,
      .text = text,
      .json = json,
  };
  if (m) {
    bug.object_start = m->addr;
    bug.object_size = m->size;
    bug.slot_objects = m->owners;
    bug.allocated_by = bug_stack(&m->alloc_track);
    if (m->state == KFENCE_OBJECT_FREED)
      bug.freed_by = bug_stack(&m->free_track);
  }
  __attribute__((cleanup(release_if_unwound))) bool returned = false;
  report_fn(&bug, report_arg);
  returned = true;
}

/* Raw values leak memory contents into logs: only in debug mode. */
static void print_bytes(struct out *o, const struct kfence_report *r) {
  out_printf(o, "[");
  for (int i = 0; i < r->nr_bytes; i++) {
    if (r->bytes[i] == r->expected[i])
      out_printf(o, " .");
    else if (kfence_opts.debug)
      out_printf(o, " 0x%02x", r->bytes[i]);
    else
      out_printf(o, " !");
  }
  out_printf(o, " ]");
}

/* Formats, writes and hands on one report. Under kfence_report_lock. */
static void write_report(const struct kfence_report *r) {
  nr_report_frames = 0;
  struct out o = {.buf = report_buf, .cap = sizeof(report_buf)};
  const char *access = r->is_write ? "write" : "read";

  /* The headline names the first frame: print it into a scratch buffer. */
  char where[192] = "";
  if (r->stack->nr_frames) {
    struct out w = {.buf = where, .cap = sizeof(where)};
    print_frame(&w, r->stack->frames[0]);
    if (w.len && where[w.len - 1] == '\n')
      where[w.len - 1] = '\0';
  }
  const char *in = where[0] ? where + 1 : "(unknown)";

  out_printf(&o, RULE "\n");
  switch (r->type) {
  case KFENCE_BUG_OUT_OF_BOUNDS: {
    bool left;
    size_t distance = oob_distance(r, &left);
    out_printf(&o, "BUG: KFENCE: out-of-bounds %s in %s\n\n", access, in);
    out_printf(&o, "Out-of-bounds %s at 0x%lx (%zuB %s of kfence-#%ld):\n",
               access, (unsigned long)r->addr, distance, left ? "left" : "right",
               r->index);
    break;
  }
  case KFENCE_BUG_USE_AFTER_FREE:
    out_printf(&o, "BUG: KFENCE: use-after-free %s in %s\n\n", access, in);
    out_printf(&o, "Use-after-free %s at 0x%lx (in kfence-#%ld):\n", access,
               (unsigned long)r->addr, r->index);
    break;
  case KFENCE_BUG_MEMORY_CORRUPTION:
    out_printf(&o, "BUG: KFENCE: memory corruption in %s\n\n", in);
    out_printf(&o, "Corrupted memory at 0x%lx ", (unsigned long)r->addr);
    print_bytes(&o, r);
    out_printf(&o, " (in kfence-#%ld):\n", r->index);
    break;
  case KFENCE_BUG_INVALID_ACCESS:
    out_printf(&o, "BUG: KFENCE: invalid %s in %s\n\n", access, in);
    out_printf(&o, "Invalid %s at 0x%lx:\n", access, (unsigned long)r->addr);
    break;
  case KFENCE_BUG_INVALID_FREE:
    out_printf(&o, "BUG: KFENCE: invalid free in %s\n\n", in);
    out_printf(&o, "Invalid free of 0x%lx:\n", (unsigned long)r->addr);
    break;
  }
  print_stack(&o, r->stack);
  if (r->meta) {
    out_printf(&o, "\n");
    print_object(&o, r->meta, r->index);
    print_reuse_note(&o, r);
  }
  /* Not in the kernel's format, which has no such case. */
  const char *libc_fn =
      r->stack->nr_frames ? kfence_libc_function_at(r->stack->frames[0]) : NULL;
  /* Found in a register, the object may have been the caller's, not the
   * C library's argument: say how sure the report is. Under LD_PRELOAD the
   * program's calls of free() & co by name reach ours: the code took the
   * C library's own, and rebuilding it or preloading us again changes
   * nothing. */
  if (libc_fn && kfence_preloaded && r->from_register)
    out_printf(&o,
               "\nThe C library's %s() crashed holding this KFENCE object: "
               "most likely the code\nthat called it took the C library's "
               "own %s() (through dlsym() or a handle of\nlibc.so.6, say), "
               "not the one LD_PRELOAD=libkfence.so puts in front of it.\n",
               libc_fn, libc_fn);
  else if (libc_fn && kfence_preloaded)
    out_printf(&o,
               "\nThe C library's %s() was given this KFENCE object: the "
               "code that called it\ntook the C library's own %s() (through "
               "dlsym() or a handle of libc.so.6,\nsay), not the one "
               "LD_PRELOAD=libkfence.so puts in front of it.\n",
               libc_fn, libc_fn);
  else if (libc_fn && r->from_register)
    out_printf(&o,
               "\nThe C library's %s() crashed holding this KFENCE object: "
               "most likely the code\nthat called it was not built with "
               "-fplugin-arg-klto-kfence. Build it with the\nplugin, or run "
               "the program under LD_PRELOAD=libkfence.so.\n",
               libc_fn);
  else if (libc_fn)
    out_printf(&o,
               "\nThe C library's %s() was given this KFENCE object: the "
               "code that called it\nwas not built with "
               "-fplugin-arg-klto-kfence. Build it with the plugin, or run\n"
               "the program under LD_PRELOAD=libkfence.so.\n",
               libc_fn);
  char comm[17] = "";
  prctl(PR_GET_NAME, comm);
  int cpu = sched_getcpu();
  out_printf(&o, "\nCPU: %d PID: %d Comm: %s\n" RULE "\n", cpu, (int)getpid(),
             comm);
  write_all(log_target(), o.buf, o.len);
  if (kfence_opts.json || report_fn) {
    struct out j = {.buf = json_buf, .cap = sizeof(json_buf) - 1};
    format_json(&j, r, cpu, comm);
    if (kfence_opts.json) {
      json_buf[j.len] = '\n';
      write_all(log_target(), json_buf, j.len + 1);
    }
    json_buf[j.len] = '\0';
  }
  atomic_fetch_add_explicit(&kfence_stat_bugs, 1, memory_order_relaxed);
  if (report_fn)
    call_back(r, report_buf, json_buf);
  nr_report_frames = -1;
}

static void panic(void) {
  static const char msg[] = "kfence: panic_on_warn set, aborting\n";
  write_all(log_target(), msg, sizeof(msg) - 1);
  abort();
}

/*
 * Reports raised on the thread that holds kfence_report_lock (see there),
 * with copies of what they point to, until that thread writes them, after
 * the report it was writing and before it releases the lock. Only that
 * thread, and the handlers that interrupt it, use them: they are under the
 * lock too. nr_queued counts the entries claimed, and past QUEUED_REPORTS
 * the reports lost; atomic, as a handler may claim one at any instruction.
 */
#define QUEUED_REPORTS 4
static struct queued_report {
  struct kfence_report r;
  struct kfence_track stack;
  struct kfence_metadata meta;
  uint8_t bytes[KFENCE_REPORT_BYTES], expected[KFENCE_REPORT_BYTES];
} queued[QUEUED_REPORTS];
static atomic_int nr_queued;

static void queue_report(const struct kfence_report *r) {
  int n = atomic_fetch_add(&nr_queued, 1);
  if (n >= QUEUED_REPORTS)
    return;
  struct queued_report *q = &queued[n];
  q->r = *r;
  q->stack = *r->stack;
  q->r.stack = &q->stack;
  if (r->meta) {
    q->meta = *r->meta;
    q->r.meta = &q->meta;
  }
  if (r->nr_bytes) {
    memcpy(q->bytes, r->bytes, (size_t)r->nr_bytes);
    memcpy(q->expected, r->expected, (size_t)r->nr_bytes);
    q->r.bytes = q->bytes;
    q->r.expected = q->expected;
  }
}

/* Writes the queued reports, those their own callbacks raise too. Returns
 * whether there were any. */
static bool write_queued(void) {
  int done = 0;
  for (;;) {
    int n = atomic_load(&nr_queued);
    for (; done < n && done < QUEUED_REPORTS; done++)
      write_report(&queued[done].r);
    if (atomic_compare_exchange_strong(&nr_queued, &n, 0)) {
      if (n > QUEUED_REPORTS)
        kfence_log_printf("kfence: %d reports raised while another was "
                          "being written were lost\n",
                          n - QUEUED_REPORTS);
      return n > 0;
    }
  }
}

void kfence_report_lock_acquire(void) {
  int cancel = kfence_lock(&kfence_report_lock, KFENCE_LOCK_REPORT);
  report_lock_cancel = cancel;
}

void kfence_report_lock_release(void) {
  bool reported = write_queued();
  kfence_unlock(&kfence_report_lock, KFENCE_LOCK_REPORT, report_lock_cancel);
  if (reported && kfence_opts.panic_on_warn)
    panic();
}

void kfence_report_error(const struct kfence_report *r) {
  if (kfence_locks_held & KFENCE_LOCK_REPORT) {
    queue_report(r);
    return;
  }
  int saved_errno = errno;
  kfence_report_lock_acquire();
  write_report(r);
  kfence_report_lock_release();
  if (kfence_opts.panic_on_warn)
    panic();
  errno = saved_errno;
}

void kfence_print_stats(FILE *out) {
  struct kfence_stats s;
  kfence_get_stats(&s);
  fprintf(out,
          "enabled: %d\n"
          "currently allocated: %lu\n"
          "total allocations: %lu\n"
          "total frees: %lu\n"
          "zombie allocations: %lu\n"
          "total bugs: %lu\n"
          "skipped allocations (incompatible): %lu\n"
          "skipped allocations (capacity): %lu\n"
          "skipped allocations (covered): %lu\n",
          s.enabled, s.allocated, s.allocs, s.frees, s.zombies, s.bugs,
          s.skipped_incompat, s.skipped_capacity, s.skipped_covered);
}

void kfence_print_objects(FILE *out) {
  struct out o = {.file = out};
  struct kfence_metadata m;
  for (long i = 0; kfence_snapshot_object(i, &m); i++) {
    print_object(&o, &m, i);
    out_printf(&o, "---------------------------------\n");
  }
}

void kfence_print_at_exit(bool stats, bool objects) {
  /* fdopen()'s FILE is the runtime's, not the program's: never sample it. */
  bool saved = kfence_in_runtime;
  kfence_in_runtime = true;
  int fd = dup(log_target());
  FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (out) {
    if (stats)
      kfence_print_stats(out);
    if (objects)
      kfence_print_objects(out);
    fclose(out);
  } else if (fd >= 0) {
    close(fd);
  }
  kfence_in_runtime = saved;
}
