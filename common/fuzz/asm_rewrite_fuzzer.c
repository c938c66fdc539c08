/*===- asm_rewrite_fuzzer.c - libFuzzer target for the asm lexer/rewriter ===*
 *
 * Feeds arbitrary bytes to the lexer, the rewriter (split into chunks at
 * blank lines, with names classified by a hash so every kind of name
 * occurs), the operand-name finder and renamer, the module-asm outline,
 * and the naming parsers. Beyond memory errors (run it under ASan)
 * it checks the rewriter's promise: no edits means the output is the input.
 *===----------------------------------------------------------------------===*/
#include "klto/asmrewrite.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static enum klto_sym_class classify(void *ctx, struct klto_str name) {
  (void)ctx;
  unsigned h = 0;
  for (size_t i = 0; i < name.n; ++i)
    h = h * 31 + (unsigned char)name.p[i];
  return (enum klto_sym_class)(h % 5);
}

static void ignore_name(void *ctx, struct klto_str name) {
  (void)ctx;
  (void)name;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  enum klto_asm_dialect dialect = (enum klto_asm_dialect)(data[0] % 4);
  const char *text = (const char *)data + 1;
  size_t len = size - 1;

  struct klto_lexer lx;
  klto_lex_init(&lx, text, len, dialect);
  size_t last = 0;
  for (struct klto_token t; (t = klto_lex_next(&lx)).kind != KLTO_TOK_EOF;) {
    if (t.begin != last || t.end <= t.begin || t.end > len)
      abort(); /* tokens must tile the input */
    last = t.end;
  }
  if (last != len)
    abort();

  const char *tables[] = {"fuzz_table"};
  struct klto_tables tabs = {tables, 1};
  struct klto_asm_options opts = {dialect, klto_str_c("kmod_fuzz"), &tabs,
                                  (data[0] & 4) != 0};
  struct klto_asm_hooks hooks = {NULL, classify, NULL, NULL, NULL, NULL};
  struct klto_asm_rewriter *rw = klto_asm_rewriter_new(&opts, &hooks);
  if (!rw)
    return 0;
  unsigned long long counter = 0;
  size_t begin = 0;
  for (size_t i = 0; i + 1 < len; ++i)
    if (text[i] == '\n' && text[i + 1] == '\n') {
      klto_asm_rewriter_add_chunk(rw, text + begin, i + 2 - begin, i, &counter);
      begin = i + 2;
    }
  klto_asm_rewriter_add_chunk(rw, text + begin, len - begin, len, &counter);
  struct klto_buf out = {0};
  long edits = klto_asm_rewriter_finish(rw, &out);
  if (edits == 0 && (out.n != len || memcmp(out.p, text, len)))
    abort();
  klto_buf_free(&out);
  klto_asm_rewriter_free(rw);

  klto_asm_operand_names(text, len, dialect, true, ignore_name, NULL);

  /* Renaming a name the text uses must leave the rest byte for byte. */
  struct klto_buf renamed = {0};
  long n = klto_asm_rename_symbol(text, len, dialect, true, klto_str_c("x"),
                                  klto_str_c("renamed_x"), &renamed);
  if (n == 0 && (renamed.n != len || memcmp(renamed.p, text, len)))
    abort();
  if (n > 0 && renamed.n != len + (size_t)n * 8)
    abort();
  klto_buf_free(&renamed);

  /* The outline copies whole statements of .macro blocks: never more. */
  struct klto_buf macros = {0};
  if (klto_asm_outline(text, len, dialect, ignore_name, NULL, &macros) &&
      macros.n > 2 * len + 1)
    abort();
  klto_buf_free(&macros);

  struct klto_str s = {text, len};
  struct klto_id id;
  struct klto_str level, table, rest;
  if (klto_parse_initcall_symbol(s, &id, &level) &&
      (id.fn.n == 0 || level.n == 0))
    abort();
  klto_split_entry_section(&tabs, s, &table, &rest);
  klto_parse_id(s, &id);
  char buf[64];
  klto_default_modname(buf, sizeof(buf), s);
  klto_kbuild_modname(buf, sizeof(buf), s);
  return 0;
}
