/* An unmodified program: plain malloc/free, no KFENCE header. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static char *make_name(const char *s) {
  char *p = malloc(strlen(s) + 1);
  strcpy(p, s);
  return p;
}

int main(void) {
  char *name = make_name("kfence");
  free(name);
  printf("stale: %c\n", name[2]);
  return 0;
}
