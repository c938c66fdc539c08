/* Allocates through the hooks once and prints KFENCE's state. */
#include <kfence.h>
#include <stdio.h>

int main(void) {
  __kfence_free(__kfence_malloc(8));
  struct kfence_stats s;
  kfence_get_stats(&s);
  printf("enabled=%d\n", s.enabled);
  return 0;
}
