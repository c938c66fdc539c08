#include <stdio.h>
extern int asm_entry(void);
int main(void) {
  printf("entry=%d\n", asm_entry());
  return 0;
}
