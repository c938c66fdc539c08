/* Case 4: a static named by name in function-level asm, and another file
 * with a static of the same name: full LTO renames one of them. */
#include "read-counter.h"
static int __attribute__((used)) counter = 5;
int get_other(void) {
  int v;
  READ_COUNTER(v);
  return v;
}
