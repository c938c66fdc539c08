/* main.c - runs every registered init function in table order. */
#include "init.h"
#include <stdio.h>

static void main_early(void) { puts("main: early"); }
register_init(main_early);

int main(void) {
  for (init_fn *fn = __start_inits; fn < __stop_inits; ++fn)
    (*fn)();
  return 0;
}
