// A write past a 73-byte object on the page's unguarded side lands in the
// redzone left by 16-byte alignment and is reported at free() with the byte
// map: '!' for corrupted bytes, their values only with debug=1.
// RUN: %clang -g -O0 %s -I%kfence_include -I%S/Inputs %klto_libdir/libkfence.a -lpthread -o %t
// RUN: env KFENCE_OPTIONS=sample_rate=1:side=right %t right 2>&1 | FileCheck %s --check-prefixes=CHECK,RIGHT,NODEBUG
// RUN: env KFENCE_OPTIONS=sample_rate=1:side=right:debug=1 %t right 2>&1 | FileCheck %s --check-prefixes=CHECK,RIGHT,DEBUG
// RUN: env KFENCE_OPTIONS=sample_rate=1:side=left:debug=1 %t left 2>&1 | FileCheck %s --check-prefixes=CHECK,LEFT
// RUN: env KFENCE_OPTIONS=sample_rate=1:side=right:panic_on_warn=1 not --crash %t right 2>&1 | FileCheck %s --check-prefixes=PANIC
#include "redirect.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) static void release(void *p) { free(p); }

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  fprintf(stderr, "pid=%d\n", getpid());
  unsigned char *p = malloc(73);
  fprintf(stderr, "object=%p\n", (void *)p);
  p[73] = 0xac;
  if (!strcmp(argv[1], "left"))
    p[75] = 0x11;
  release(p);
  fprintf(stderr, "continued\n");
  return 0;
}

// CHECK: pid=[[PID:[0-9]+]]
// RIGHT-NEXT: object=0x[[#%x,OBJ:]]fb0
// LEFT-NEXT: object=0x[[#%x,OBJ:]]000
// CHECK-NEXT: ==================================================================
// CHECK-NEXT: BUG: KFENCE: memory corruption in release+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK-EMPTY:
// NODEBUG-NEXT: Corrupted memory at 0x[[#%x,OBJ]]ff9 [ ! . . . . . . ] (in kfence-#0):
// DEBUG-NEXT: Corrupted memory at 0x[[#%x,OBJ]]ff9 [ 0xac . . . . . . ] (in kfence-#0):
// LEFT-NEXT: Corrupted memory at 0x[[#%x,OBJ]]049 [ 0xac . 0x11 . . . . . . . . . . . . . ] (in kfence-#0):
// CHECK-NEXT: {{^}} release+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK-NEXT: {{^}} main+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK: {{^}} _start+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK-EMPTY:
// RIGHT-NEXT: kfence-#0 [0x[[#%x,OBJ]]fb0-0x[[#%x,OBJ]]ff8, size=73, cache=malloc] allocated by task [[PID]]:
// LEFT-NEXT: kfence-#0 [0x[[#%x,OBJ]]000-0x[[#%x,OBJ]]048, size=73, cache=malloc] allocated by task [[PID]]:
// CHECK-NEXT: {{^}} main+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK-NOT: freed by task
// CHECK: {{^}} _start+0x{{[0-9a-f]+}}/0x{{[0-9a-f]+}}
// CHECK-EMPTY:
// CHECK-NEXT: CPU: {{[0-9]+}} PID: [[PID]] Comm: {{.+}}
// CHECK-NEXT: ==================================================================
// CHECK-NEXT: continued

// PANIC: BUG: KFENCE: memory corruption in release
// PANIC: kfence: panic_on_warn set, aborting
// PANIC-NOT: continued
