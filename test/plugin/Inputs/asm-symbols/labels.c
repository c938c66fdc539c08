/* Case 3: a function whose asm defines a named label (as FFmpeg's jump
 * table targets), called twice from another file. */
int next(int x) {
  int r;
#if defined(__x86_64__)
  __asm__("lbl_one:\n\tlea 1(%1), %0" : "=r"(r) : "r"(x));
#else
  __asm__("lbl_one:\n\tadd %w0, %w1, #1" : "=r"(r) : "r"(x));
#endif
  return r;
}
