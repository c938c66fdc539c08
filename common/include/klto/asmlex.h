/*===- klto/asmlex.h - a lexer for GNU as syntax, as LLVM MC reads it ------===*
 *
 * Module asm must be rewritten token by token, never with regexes: strings
 * may hold quotes and comment characters, comments may hold anything, and
 * ';' separates statements. Tokens carry byte offsets into the input so a
 * rewriter can copy everything it does not change byte for byte.
 *===----------------------------------------------------------------------===*/
#ifndef KLTO_ASMLEX_H
#define KLTO_ASMLEX_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Comment syntax differs per target, as in LLVM's MCAsmInfo CommentString:
 * '#' on x86 and RISC-V, '//' on AArch64, '@' on 32-bit Arm. '/ * * /' and a
 * '#' that starts a line (cpp line markers) are comments on every target. */
enum klto_asm_dialect {
  KLTO_ASM_X86,
  KLTO_ASM_AARCH64,
  KLTO_ASM_ARM,
  KLTO_ASM_RISCV,
};

enum klto_tok_kind {
  KLTO_TOK_EOF,
  KLTO_TOK_IDENT,   /* [A-Za-z_.][A-Za-z0-9_.$]*, directives included */
  KLTO_TOK_NUMBER,  /* [0-9][A-Za-z0-9_]*: 42, 0x10, 1f */
  KLTO_TOK_STRING,  /* "...", escapes honoured; may be unterminated */
  KLTO_TOK_PUNCT,   /* any other single byte */
  KLTO_TOK_SPACE,   /* blanks, never newlines */
  KLTO_TOK_COMMENT, /* line or block comment, newline excluded */
  KLTO_TOK_EOS,     /* end of statement: '\n' or ';' */
};

struct klto_token {
  enum klto_tok_kind kind;
  size_t begin, end; /* byte offsets, end exclusive */
};

struct klto_lexer {
  const char *text;
  size_t len, pos;
  enum klto_asm_dialect dialect;
  bool at_line_start;
};

void klto_lex_init(struct klto_lexer *lx, const char *text, size_t len,
                   enum klto_asm_dialect dialect);

/* Returns the next token; KLTO_TOK_EOF forever once the input is consumed.
 * Never reads outside [text, text + len). */
struct klto_token klto_lex_next(struct klto_lexer *lx);

/* Dialect for a target triple's architecture ("x86_64-...", "aarch64-..."). */
enum klto_asm_dialect klto_asm_dialect_for_triple(const char *triple);

#ifdef __cplusplus
}
#endif

#endif /* KLTO_ASMLEX_H */
