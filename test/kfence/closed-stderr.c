// Programs close stderr before they exit (coreutils' close_stdout does):
// the runtime writes to a descriptor of its own, so the exit-time stats and
// a report raised after the close still appear. A program that closes every
// descriptor and opens a file under the runtime's old number does not find
// reports in that file; they go to stderr.
// RUN: %clang -g -O0 -DHOOKS %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: env KFENCE_OPTIONS=sample_rate=1:print_stats_at_exit=1 %t stats 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t late-report 2>&1 | FileCheck %s --check-prefix=LATE
// RUN: env KFENCE_OPTIONS=sample_rate=1 %t reused-fd %t.file 2>%t.err | FileCheck %s --check-prefix=REUSED
// RUN: FileCheck %s --check-prefix=LATE < %t.err
// The same under LD_PRELOAD, in an unmodified program.
// RUN: %clang -g -O0 %s -I%kfence_include -o %t.plain
// RUN: env KFENCE_OPTIONS=sample_rate=1:print_stats_at_exit=1 LD_PRELOAD=%klto_libdir/libkfence.so %t.plain stats 2>&1 | FileCheck %s --check-prefix=PRELOAD
// RUN: env KFENCE_OPTIONS=sample_rate=1 LD_PRELOAD=%klto_libdir/libkfence.so %t.plain late-report 2>&1 | FileCheck %s --check-prefix=LATE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef HOOKS
#include "redirect.h"
#endif

__attribute__((noinline)) static void touch(volatile char *p) { p[1] = 1; }

static void use_after_free(void) {
  char *p = malloc(16);
  free(p);
  touch(p);
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  if (!strcmp(argv[1], "stats")) {
    free(malloc(16));
    fclose(stderr);
    return 0;
  }
  if (!strcmp(argv[1], "late-report")) {
    fclose(stderr);
    use_after_free();
    return 0;
  }
  if (!strcmp(argv[1], "reused-fd") && argc == 3) {
    for (int fd = 3; fd < 1024; fd++)
      close(fd);
    int fd = open(argv[2], O_CREAT | O_TRUNC | O_WRONLY, 0600);
    use_after_free();
    struct stat st;
    fstat(fd, &st);
    printf("fd %d holds %lld bytes\n", fd, (long long)st.st_size);
    return 0;
  }
  return 2;
}
// STATS: enabled: 1
// STATS-NEXT: currently allocated: 0
// STATS-NEXT: total allocations: 1
// PRELOAD: enabled: 1
// PRELOAD-NEXT: currently allocated:
// LATE: BUG: KFENCE: use-after-free write in touch
// REUSED: fd 3 holds 0 bytes
