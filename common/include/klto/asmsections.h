/*===- klto/asmsections.h - GNU as's current section, tracked once --------===*
 *
 * Which section a statement of module asm emits into decides what an entry
 * is (the plugin's rewriter) and which tables an object's asm fills (the
 * linker's scanner). GNU as keeps a current and a previous section and a
 * stack for .pushsection/.popsection; this file owns that state machine,
 * the directive names and how a statement names its section, for both.
 * Directives match exactly: module asm is assembled by LLVM MC, which
 * rejects ".SECTION" and ".PushSection" (GNU as would take them), so an
 * entry written that way never reaches an object. The caller
 * gives each section a statement names a value of its own (an entry's
 * index, an interned name), and .popsection and .previous bring values
 * back. It also splits module asm into statements, blanks and comments
 * dropped, for every reader of module asm.
 *===----------------------------------------------------------------------===*/
#ifndef KLTO_ASMSECTIONS_H
#define KLTO_ASMSECTIONS_H

#include "klto/asmlex.h"
#include "klto/naming.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One statement's tokens, blanks and comments dropped. */
struct klto_asm_stmt {
  struct klto_token *toks;
  size_t n, cap;
};

/* Lexes `text` and calls `fn` with each statement. False when out of
 * memory. */
bool klto_asm_statements(const char *text, size_t len,
                         enum klto_asm_dialect dialect,
                         void (*fn)(void *ctx, const struct klto_asm_stmt *st),
                         void *ctx);

/* Index of the token after the statement's labels ("name:", "1:",
 * "\"quoted\":"), calling `label` (if set) with each named one. */
size_t klto_asm_labels(const char *text, const struct klto_asm_stmt *st,
                       void (*label)(void *ctx, const struct klto_token *t),
                       void *ctx);

enum klto_section_directive {
  KLTO_SECT_NONE,     /* not a section directive */
  KLTO_SECT_SECTION,  /* .section name, ... */
  KLTO_SECT_PUSH,     /* .pushsection name, ... */
  KLTO_SECT_POP,      /* .popsection */
  KLTO_SECT_PREVIOUS, /* .previous */
  KLTO_SECT_TEXT,     /* .text, .data, .bss: that section */
  KLTO_SECT_DATA,
  KLTO_SECT_BSS,
};

enum klto_section_directive klto_section_directive(struct klto_str word);

/* The section a directive names: for .section/.pushsection, operands from
 * toks[from], the text from the first token to the last before a ',' (or
 * a string literal's contents, escapes undecoded: `*quoted`), with the
 * tokens' range in `*first`/`*last`; for .text/.data/.bss, that name.
 * False if it names none (".section" alone). */
bool klto_section_name(const char *text, const struct klto_asm_stmt *st,
                       size_t from, enum klto_section_directive d,
                       struct klto_str *name, size_t *first, size_t *last,
                       bool *quoted);

/* GNU as keeps this many .pushsection levels here; a pop below that
 * restores the `unknown` section. */
#define KLTO_SECTION_STACK_MAX 64

struct klto_sections {
  long cur, prev, unknown;
  struct {
    long cur, prev;
  } stack[KLTO_SECTION_STACK_MAX];
  size_t depth; /* may exceed KLTO_SECTION_STACK_MAX */
};

void klto_sections_init(struct klto_sections *s, long initial, long unknown);

/* Runs directive `d`; `named` is the caller's value for the section a
 * .section, .pushsection, .text, .data or .bss statement names. */
void klto_sections_apply(struct klto_sections *s,
                         enum klto_section_directive d, long named);

#ifdef __cplusplus
}
#endif

#endif /* KLTO_ASMSECTIONS_H */
