// A program in secure mode (AT_SECURE: setuid, setgid or file
// capabilities; here setuid-root or setgid-root copies run by nobody)
// honours only the safe subset of KFENCE_OPTIONS (options.inc's secure
// column), names what it ignored once on stderr, and reports to stderr:
// log_path is ignored, so root creates no file in a directory nobody
// cannot write, and the variable leaves the environment, so that a child
// started as root does not honour it. The safe options still work: print_stats_at_exit prints,
// sample_interval=0 turns KFENCE off. Both builds: libkfence.a through the
// hooks, and libkfence.so linked in (LD_PRELOAD itself is not honoured in
// secure mode).
// REQUIRES: root
// RUN: rm -rf %t.dir && mkdir -m 755 %t.dir
// RUN: %clang -g -O0 -DHOOKS %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t.dir/hooks
// RUN: %clang -g -O0 %s -I%kfence_include %klto_libdir/libkfence.so -Wl,-rpath,%klto_libdir -o %t.dir/linked
// RUN: cp %t.dir/hooks %t.dir/hooks-setgid
// RUN: chmod u+s %t.dir/hooks %t.dir/linked && chmod g+s %t.dir/hooks-setgid
//
// RUN: env KFENCE_OPTIONS=sample_interval=1:sample_rate=1:num_objects=1000:debug=1:print_stats_at_exit=1:print_objects_at_exit=1:json=1:log_path=%t.dir/kfence \
// RUN:   setpriv --reuid=nobody --regid=nogroup --clear-groups timeout 20 %t.dir/hooks > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: env KFENCE_OPTIONS=sample_interval=1:sample_rate=1:num_objects=1000:debug=1:print_stats_at_exit=1:print_objects_at_exit=1:json=1:log_path=%t.dir/kfence \
// RUN:   setpriv --reuid=nobody --regid=nogroup --clear-groups timeout 20 %t.dir/linked > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: env KFENCE_OPTIONS=sample_interval=1:print_stats_at_exit=1:log_path=%t.dir/kfence \
// RUN:   setpriv --reuid=nobody --regid=nogroup --clear-groups timeout 20 %t.dir/hooks-setgid > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// RUN: FileCheck %s --check-prefix=SETGID < %t.err
//
// sample_interval=0 (with sample_rate at its default, 0) turns KFENCE off.
// RUN: env KFENCE_OPTIONS=sample_interval=0:log_path=%t.dir/kfence \
// RUN:   setpriv --reuid=nobody --regid=nogroup --clear-groups timeout 20 %t.dir/hooks off 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: env KFENCE_OPTIONS=sample_interval=0:sample_rate=0 \
// RUN:   setpriv --reuid=nobody --regid=nogroup --clear-groups timeout 20 %t.dir/linked off 2>&1 | FileCheck %s --check-prefix=OFF-QUIET
//
// No file was created in the directory, which only root may write.
// RUN: ls %t.dir | FileCheck %s --check-prefix=FILES --implicit-check-not=kfence
// Run by root, the same program is not in secure mode and writes its log.
// RUN: env KFENCE_OPTIONS=sample_interval=1:log_path=%t.dir/control timeout 20 %t.dir/hooks > %t.out
// RUN: FileCheck %s --check-prefix=CONTROL < %t.out
// RUN: cat %t.dir/control.* | FileCheck %s --check-prefix=CONTROL-LOG
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#ifdef HOOKS
#include "redirect.h"
#else
#include <kfence.h>
#endif

__attribute__((noinline)) static void touch(volatile char *p) { p[0] = 1; }

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  printf("secure=%lu\n", getauxval(AT_SECURE));
  printf("in the environment=%d\n", getenv("KFENCE_OPTIONS") != NULL);
  struct kfence_stats s;
  if (argc > 1 && !strcmp(argv[1], "off")) {
    free(malloc(16));
    kfence_get_stats(&s);
    printf("enabled=%d\n", s.enabled);
    return 0;
  }
  /* Allocate until one allocation is guarded, for at most 10 s. */
  double start = seconds();
  while (seconds() - start < 10) {
    char *p = malloc(16);
    free(p);
    if (is_kfence_address(p)) {
      touch(p);
      printf("guarded\n");
      return 0;
    }
  }
  printf("nothing guarded\n");
  return 0;
}
// OUT:      secure=1
// OUT-NEXT: in the environment=0
// OUT-NEXT: guarded
// ERR:      kfence: KFENCE_OPTIONS: ignored in secure mode (setuid, setgid or file capabilities): sample_rate num_objects debug print_objects_at_exit json log_path
// ERR-NOT:  kfence: KFENCE_OPTIONS
// ERR:      BUG: KFENCE: use-after-free write in touch
// ERR-NOT:  {"kfence"
// ERR:      enabled: 1
// ERR-NOT:  kfence-#
// SETGID:      kfence: KFENCE_OPTIONS: ignored in secure mode (setuid, setgid or file capabilities): log_path
// SETGID-NEXT: =====
// SETGID-NEXT: BUG: KFENCE: use-after-free write in touch
// SETGID:      enabled: 1
// OFF:      kfence: KFENCE_OPTIONS: ignored in secure mode (setuid, setgid or file capabilities): log_path
// OFF-NEXT: secure=1
// OFF-NEXT: in the environment=0
// OFF-NEXT: enabled=0
// OFF-QUIET-NOT: kfence:
// OFF-QUIET:     secure=1
// OFF-QUIET-NEXT: in the environment=0
// OFF-QUIET-NEXT: enabled=0
// FILES: hooks
// CONTROL:      secure=0
// CONTROL-NEXT: in the environment=1
// CONTROL-NEXT: guarded
// CONTROL-LOG:  BUG: KFENCE: use-after-free write in touch
