/* Case 4: a static named by name in function-level asm, and another file
 * with a static of the same name: full LTO renames one of them. */
static int __attribute__((used)) counter = 5;
int get_other(void) {
  int v;
#if defined(__x86_64__)
  __asm__ volatile("movl counter(%%rip), %0" : "=r"(v));
#else
  __asm__ volatile("adrp x9, counter\n\tldr %w0, [x9, :lo12:counter]"
                   : "=r"(v)
                   :
                   : "x9");
#endif
  return v;
}
