/*===- asmlex.c - a lexer for GNU as syntax, as LLVM MC reads it -----------===*
 *
 * Follows LLVM's AsmLexer where the two differ from GNU as, since LLVM's
 * integrated assembler is what finally reads the rewritten module asm.
 *===----------------------------------------------------------------------===*/
#include "klto/asmlex.h"

#include <string.h>

void klto_lex_init(struct klto_lexer *lx, const char *text, size_t len,
                   enum klto_asm_dialect dialect) {
  lx->text = text;
  lx->len = len;
  lx->pos = 0;
  lx->dialect = dialect;
  lx->at_line_start = true;
}

/* '$' may continue a name but not start one: "$sym" is an x86 immediate. */
static bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         c == '.';
}

static bool is_ident_char(char c) {
  return is_ident_start(c) || (c >= '0' && c <= '9') || c == '$';
}

static bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static char peek(const struct klto_lexer *lx, size_t ahead) {
  size_t i = lx->pos + ahead;
  return i < lx->len ? lx->text[i] : '\0';
}

static void skip_to_newline(struct klto_lexer *lx) {
  while (lx->pos < lx->len && lx->text[lx->pos] != '\n')
    ++lx->pos;
}

static bool starts_line_comment(const struct klto_lexer *lx, bool line_start) {
  char c = peek(lx, 0);
  if (c == '/' && peek(lx, 1) == '/')
    return true;
  if (c == '#')
    return line_start || lx->dialect == KLTO_ASM_X86 ||
           lx->dialect == KLTO_ASM_RISCV;
  if (c == '@')
    return lx->dialect == KLTO_ASM_ARM;
  return false;
}

struct klto_token klto_lex_next(struct klto_lexer *lx) {
  struct klto_token t = {KLTO_TOK_EOF, lx->pos, lx->pos};
  if (lx->pos >= lx->len)
    return t;
  char c = lx->text[lx->pos];
  bool line_start = lx->at_line_start;
  lx->at_line_start = false;

  if (c == '\n' || c == ';') {
    ++lx->pos;
    t.kind = KLTO_TOK_EOS;
    /* After ';' a '#' is an operand prefix again (AArch64 immediates). */
    lx->at_line_start = c == '\n';
  } else if (is_blank(c)) {
    while (lx->pos < lx->len && is_blank(lx->text[lx->pos]))
      ++lx->pos;
    t.kind = KLTO_TOK_SPACE;
    lx->at_line_start = line_start; /* leading blanks keep '#' a comment */
  } else if (c == '/' && peek(lx, 1) == '*') {
    const char *end = NULL;
    for (size_t i = lx->pos + 2; i + 1 < lx->len; ++i)
      if (lx->text[i] == '*' && lx->text[i + 1] == '/') {
        end = lx->text + i + 2;
        break;
      }
    lx->pos = end ? (size_t)(end - lx->text) : lx->len;
    t.kind = KLTO_TOK_COMMENT;
    lx->at_line_start = line_start;
  } else if (starts_line_comment(lx, line_start)) {
    skip_to_newline(lx);
    t.kind = KLTO_TOK_COMMENT;
  } else if (c == '"') {
    size_t i = lx->pos + 1;
    while (i < lx->len && lx->text[i] != '"' && lx->text[i] != '\n') {
      if (lx->text[i] == '\\' && i + 1 < lx->len)
        ++i;
      ++i;
    }
    if (i < lx->len && lx->text[i] == '"')
      ++i;
    lx->pos = i;
    t.kind = KLTO_TOK_STRING;
  } else if (is_ident_start(c)) {
    while (lx->pos < lx->len && is_ident_char(lx->text[lx->pos]))
      ++lx->pos;
    t.kind = KLTO_TOK_IDENT;
  } else if (c >= '0' && c <= '9') {
    while (lx->pos < lx->len && (is_ident_char(lx->text[lx->pos]) &&
                                 lx->text[lx->pos] != '.' &&
                                 lx->text[lx->pos] != '$'))
      ++lx->pos;
    t.kind = KLTO_TOK_NUMBER;
  } else {
    ++lx->pos;
    t.kind = KLTO_TOK_PUNCT;
  }
  t.end = lx->pos;
  return t;
}

enum klto_asm_dialect klto_asm_dialect_for_triple(const char *triple) {
  if (!strncmp(triple, "aarch64", 7) || !strncmp(triple, "arm64", 5))
    return KLTO_ASM_AARCH64;
  if (!strncmp(triple, "arm", 3) || !strncmp(triple, "thumb", 5))
    return KLTO_ASM_ARM;
  if (!strncmp(triple, "riscv", 5))
    return KLTO_ASM_RISCV;
  return KLTO_ASM_X86;
}
