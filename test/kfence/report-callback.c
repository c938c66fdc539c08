// kfence_set_report_callback(): after each report the callback gets it as
// data (kind, address, object, stacks) with the text and JSON forms; NULL
// removes it.
// RUN: %clang -g -O0 %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: env KFENCE_OPTIONS=sample_rate=1:side=right %t 2>/dev/null | FileCheck %s
#include "redirect.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char seen[512];

/* Runs in the SIGSEGV handler: formats into a static buffer, no heap. */
static void collect(const struct kfence_bug *bug, void *arg) {
  snprintf(seen, sizeof(seen),
           "%s kind=%d write=%d object=#%ld size=%zu offset=%ld frames=%d "
           "alloc_frames=%s freed=%d text=%s json=%s\n",
           (const char *)arg, bug->kind, bug->is_write, bug->object_index,
           bug->object_size, (long)(bug->address - bug->object_start),
           bug->stack.nr_frames > 0, bug->allocated_by.nr_frames > 0 ? "yes" : "no",
           bug->freed_by.nr_frames, strstr(bug->text, "BUG: KFENCE: ") ? "kernel" : "?",
           !strncmp(bug->json, "{\"kfence\":1,", 12) ? "object" : "?");
  write(STDOUT_FILENO, seen, strlen(seen));
}

__attribute__((noinline)) static void read_right(volatile char *p) { (void)p[40]; }
__attribute__((noinline)) static void use(volatile char *p) { p[0] = 1; }

int main(void) {
  kfence_set_report_callback(collect, "oob");
  char *p = malloc(32);
  read_right(p);
  free(p);
  kfence_set_report_callback(collect, "uaf");
  use(p);
  kfence_set_report_callback(NULL, NULL);
  char *q = malloc(32);
  free(q);
  use(q);
  puts("done");
  return 0;
}
// CHECK: oob kind=0 write=0 object=#0 size=32 offset=40 frames=1 alloc_frames=yes freed=0 text=kernel json=object
// CHECK-NEXT: uaf kind=1 write=1 object=#0 size=32 offset=0 frames=1 alloc_frames=yes freed={{[1-9][0-9]*}} text=kernel json=object
// CHECK-NEXT: done
