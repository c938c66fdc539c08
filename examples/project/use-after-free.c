/* use-after-free.c - writes to a heap object after freeing it. Built with
 * the plugin's kfence option, the write faults on the freed KFENCE page and
 * the report names the function; with KFENCE_OPTIONS=sample_rate=1 every
 * allocation is guarded, so the first run catches it. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void touch(volatile char *p) { p[3] = 1; }

int main(void) {
  char *p = malloc(32);
  free(p);
  touch(p);
  puts("use-after-free: not caught");
  return 0;
}
