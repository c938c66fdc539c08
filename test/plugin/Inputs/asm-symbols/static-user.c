#include <stdio.h>
#include "read-counter.h"
static int __attribute__((used)) counter = 7;
int get_other(void);
int main(void) {
  int v;
  READ_COUNTER(v);
  printf("statics=%d,%d\n", v, get_other());
  return 0;
}
