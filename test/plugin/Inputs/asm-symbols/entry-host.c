/* Case 2: a global function whose asm defines a global entry point; nothing
 * calls the function itself. */
void host(void) {
#if defined(__x86_64__)
  __asm__(".globl asm_entry\n\t.type asm_entry, @function\n"
          "asm_entry:\n\tmovl $42, %eax\n\tret");
#else
  __asm__(".globl asm_entry\n\t.type asm_entry, %function\n"
          "asm_entry:\n\tmov w0, #42\n\tret");
#endif
}
