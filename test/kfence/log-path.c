// log_path=<prefix>: reports and the exit-time listings go to
// <prefix>.<pid>, not to stderr; a child of fork() writes a file of its own;
// a prefix that cannot be opened, or names something other than a regular
// file, stops the program at start.
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: %clang -g -O0 %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: env KFENCE_OPTIONS=sample_rate=1:print_stats_at_exit=1:log_path=%t.dir/kfence %t > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=STDERR --allow-empty < %t.err
// RUN: cat %t.dir/kfence.$(sed -n 's/^parent=//p' %t.out) | FileCheck %s --check-prefixes=PARENT
// RUN: cat %t.dir/kfence.$(sed -n 's/^child=//p' %t.out) | FileCheck %s --check-prefixes=CHILD
// RUN: ls %t.dir | count 2
// RUN: env KFENCE_OPTIONS=sample_rate=1:log_path=%t.dir/missing/kfence not %t 2>&1 | FileCheck %s --check-prefix=BAD
//
// The file is the process's own: a symbolic link or a FIFO in its place is
// not followed (sh -c '... exec env ...' runs the program under the shell's
// pid). The link's target keeps its one line; the FIFO, with no reader,
// would block the program in open() (hence the timeout).
// RUN: echo kept > %t.dir/target
// RUN: not sh -c 'ln -s %t.dir/target %t.dir/link.$$ && exec env KFENCE_OPTIONS=sample_rate=1:log_path=%t.dir/link %t' 2>&1 | FileCheck %s --check-prefix=LINK
// RUN: test "$(cat %t.dir/target)" = kept
// RUN: not timeout 20 sh -c 'mkfifo %t.dir/fifo.$$ && exec env KFENCE_OPTIONS=sample_rate=1:log_path=%t.dir/fifo %t' 2>&1 | FileCheck %s --check-prefix=FIFO
// STDERR-NOT: KFENCE
// STDERR-NOT: enabled
#include "redirect.h"
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static void parent_touch(volatile char *p) { p[0] = 1; }
__attribute__((noinline)) static void child_touch(volatile char *p) { p[0] = 2; }

int main(void) {
  char *p = malloc(8);
  free(p);
  printf("parent=%d\n", getpid());
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    printf("child=%d\n", getpid());
    fflush(stdout);
    child_touch(p);
    _exit(0);
  }
  waitpid(child, NULL, 0);
  parent_touch(p);
  return 0;
}
// PARENT: BUG: KFENCE: use-after-free write in parent_touch
// PARENT: enabled: 1
// CHILD: BUG: KFENCE: use-after-free write in child_touch
// CHILD-NOT: parent_touch
// BAD: kfence: KFENCE_OPTIONS: cannot open log_path {{.*}}/missing/kfence.{{[0-9]+}}: No such file or directory
// LINK: kfence: KFENCE_OPTIONS: cannot open log_path {{.*}}/link.{{[0-9]+}}: it is a symbolic link, FIFO or device, not a regular file: remove it or choose another log_path
// LINK-NOT: parent=
// FIFO: kfence: KFENCE_OPTIONS: cannot open log_path {{.*}}/fifo.{{[0-9]+}}: it is a symbolic link, FIFO or device, not a regular file
