/*===- klto/asmrewrite.h - makes module asm safe for LTO ------------------===*
 *
 * Full LTO concatenates every translation unit's module asm into one file and
 * renames statics it merges; ThinLTO promotes statics to new names. Module
 * asm cannot follow either. The rewriter takes a translation unit's module
 * asm, chunk by chunk (one chunk per file-scope asm statement, each with its
 * source line), and
 *   - gives each entry of a table section its own "<table>..<id>" section and
 *     a unique label (__initcall__<id><level> for Linux initcalls),
 *   - makes every other label it defines unique to the translation unit
 *     (but for the names klto_label_keeps_name() lists),
 *   - points every reference to an internal-linkage function at a stub with a
 *     stable global name, and every reference to internal data at an alias,
 *   - copies everything else byte for byte; asm that needs nothing is
 *     returned unchanged.
 * The caller (the compiler plugin) creates the stubs and aliases it is told
 * about, since only it sees the IR.
 *===----------------------------------------------------------------------===*/
#ifndef KLTO_ASMREWRITE_H
#define KLTO_ASMREWRITE_H

#include "klto/asmlex.h"
#include "klto/naming.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the IR knows about a name the asm uses. */
enum klto_sym_class {
  KLTO_SYM_UNKNOWN,     /* not in the IR: asm-only, or outside this TU */
  KLTO_SYM_GLOBAL_FUNC, /* a function the IR declares or defines globally */
  KLTO_SYM_GLOBAL_DATA, /* a variable the IR declares or defines globally */
  KLTO_SYM_LOCAL_FUNC,  /* internal/private function: referenced via a stub */
  KLTO_SYM_LOCAL_DATA,  /* internal/private variable: referenced via an alias */
};

struct klto_asm_entry {
  struct klto_str table;    /* e.g. ".initcall6.init" */
  struct klto_str level;    /* "6"; empty for tables added by option */
  struct klto_str fn;       /* the function the entry registers */
  const char *section;      /* the entry's new section */
  const char *label;        /* the entry's new label, NULL if it had none */
  const char *stub;         /* the stub `fn` is reached through, or NULL */
  unsigned long long counter, line;
  size_t chunk;             /* the chunk its .section is in */
};

struct klto_asm_hooks {
  void *ctx;
  enum klto_sym_class (*classify)(void *ctx, struct klto_str name);
  /* `fn` needs a stub (or, for data, an alias) named `stub`; called once per
   * distinct stub name. */
  void (*need_stub)(void *ctx, struct klto_str target, const char *stub,
                    bool is_data);
  void (*entry)(void *ctx, const struct klto_asm_entry *entry);
  void (*label_renamed)(void *ctx, struct klto_str old_name,
                        const char *new_name, unsigned long long line);
  /* `where` is the chunk: the index passed to klto_asm_rewriter_add_chunk. */
  klto_diag_fn diag;
};

struct klto_asm_options {
  enum klto_asm_dialect dialect;
  struct klto_str modname;
  const struct klto_tables *tables;
  bool stubs; /* false: leave references to statics as they are */
};

/* A growable output buffer; `p` is malloc'd and NUL-terminated. */
struct klto_buf {
  char *p;
  size_t n, cap;
};
void klto_buf_free(struct klto_buf *b);

struct klto_asm_rewriter;

/* NULL only when out of memory. `opts` and `hooks` must outlive the rewriter. */
struct klto_asm_rewriter *
klto_asm_rewriter_new(const struct klto_asm_options *opts,
                      const struct klto_asm_hooks *hooks);

/* Analyses one chunk; its entries are numbered from *counter on, which is
 * advanced. `text` must stay valid until klto_asm_rewriter_finish. Chunks
 * must be added in the order they appear in the module asm. */
void klto_asm_rewriter_add_chunk(struct klto_asm_rewriter *rw,
                                 const char *text, size_t len,
                                 unsigned long long line,
                                 unsigned long long *counter);

/* Writes the rewritten module asm (all chunks, in order) to `out`, calling the
 * hooks for every stub, entry and renamed label. Returns the number of edits;
 * 0 means `out` equals the input byte for byte. -1 when out of memory. */
long klto_asm_rewriter_finish(struct klto_asm_rewriter *rw,
                              struct klto_buf *out);

void klto_asm_rewriter_free(struct klto_asm_rewriter *rw);

/* Calls `fn` for every name `text` uses as an operand. Statement heads,
 * labels, registers (%rax), relocation specifiers (@PLT, :lo12:) and, in an
 * LLVM IR inline-asm template, operands ($0, ${1:w}, ${:uid}) are not
 * names. Returns false when out of memory. */
bool klto_asm_operand_names(const char *text, size_t len,
                            enum klto_asm_dialect dialect, bool ir_template,
                            void (*fn)(void *ctx, struct klto_str name),
                            void *ctx);

/* Appends `text` to `out` with every operand use of the symbol `old_name`
 * (as klto_asm_operand_names finds names) replaced by `new_name`. Returns
 * the number of replacements, -1 when out of memory. */
long klto_asm_rename_symbol(const char *text, size_t len,
                            enum klto_asm_dialect dialect, bool ir_template,
                            struct klto_str old_name, struct klto_str new_name,
                            struct klto_buf *out);

/* What module asm leaves behind for the function-level asm after it: calls
 * `defined` with every symbol it defines (labels, `name =`, .set/.equ,
 * .comm) and appends every .macro ... .endm block, verbatim, to `macros`.
 * False when out of memory. */
bool klto_asm_outline(const char *text, size_t len,
                      enum klto_asm_dialect dialect,
                      void (*defined)(void *ctx, struct klto_str name),
                      void *ctx, struct klto_buf *macros);

#ifdef __cplusplus
}
#endif

#endif /* KLTO_ASMREWRITE_H */
