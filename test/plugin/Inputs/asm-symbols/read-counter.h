/* The asm both static-*.c files use: it reads `counter` by name, so each
 * file's asm means that file's static. */
#if defined(__x86_64__)
#define READ_COUNTER(v) __asm__ volatile("movl counter(%%rip), %0" : "=r"(v))
#else
#define READ_COUNTER(v)                                                        \
  __asm__ volatile("adrp x9, counter\n\tldr %w0, [x9, :lo12:counter]"          \
                   : "=r"(v)                                                   \
                   :                                                           \
                   : "x9")
#endif
