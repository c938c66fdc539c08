/*===- scripts.c - the linker scripts klto's ld.lld hands to LLD ---------===*
 *
 * See scripts.h.
 *===----------------------------------------------------------------------===*/
#include "scripts.h"

#include <stdio.h>
#include <string.h>

/* Linux's INIT_CALLS: each level's start symbol comes before the level and
 * its sync variant, in klto_initcall_levels' order; "con" is a table of its
 * own. */
static bool is_sync_or_console(size_t l) {
  const char *level = klto_initcall_levels[l];
  return strcmp(level, "con") == 0 ||
         (l > 0 && strlen(level) == strlen(klto_initcall_levels[l - 1]) + 1 &&
          level[strlen(level) - 1] == 's');
}

/* A boundary symbol's name as a C identifier: "__start_" +
 * ".pci_fixup_final" gives "__start_pci_fixup_final". */
static void symbol_name(char *sym, size_t size, const char *prefix,
                        const char *name, const char *suffix) {
  int n = snprintf(sym, size, "%s", prefix);
  for (const char *c = name[0] == '.' ? name + 1 : name;
       *c && n < (int)size - 1; ++c)
    sym[n++] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                       (*c >= '0' && *c <= '9') || *c == '_'
                   ? *c
                   : '_';
  snprintf(sym + n, size - (size_t)n, "%s", suffix);
}

/* What the script writes of each symbol: inside the output section its
 * value, at the top level the assignment that declares it early (see
 * klto_write_table_script). */
struct symbols {
  FILE *out;
  bool top;
  const char *anchor; /* an absent table's symbols: here, an empty range */
};

static void symbol(const struct symbols *w, bool present, const char *prefix,
                   const char *name, const char *suffix) {
  char sym[256];
  symbol_name(sym, sizeof(sym), prefix, name, suffix);
  if (!w->top && present)
    fprintf(w->out, "    %s = .;\n", sym);
  else if (w->top)
    fprintf(w->out, "%s = %s;\n", sym, present ? sym : w->anchor);
}

static void open_section(const struct symbols *w, bool present,
                         const char *name) {
  if (!w->top && present)
    fprintf(w->out, "  %s : {\n", name);
}

static void close_section(const struct symbols *w, bool present) {
  if (!w->top && present)
    fprintf(w->out, "  }\n");
}

static void rule(const struct symbols *w, bool present, const char *section) {
  if (!w->top && present)
    fprintf(w->out, "    KEEP(*(%s %s..*))\n", section, section);
}

/* Every table's section and boundary symbols, in output order. */
static void tables_in_order(const struct symbols *w,
                            const struct klto_tables *tables,
                            const bool *present) {
  bool p = present[KLTO_TABLE_INITCALLS];
  open_section(w, p, ".initcall.init");
  symbol(w, p, "__initcall_start", "", "");
  for (size_t l = 0; l < klto_n_initcall_levels; ++l) {
    if (is_sync_or_console(l))
      continue;
    const char *level = klto_initcall_levels[l];
    char sec[64];
    symbol(w, p, "__initcall", level, "_start");
    klto_format_initcall_section(sec, sizeof(sec), level, false);
    rule(w, p, sec);
    klto_format_initcall_section(sec, sizeof(sec), level, true);
    rule(w, p, sec);
    symbol(w, p, "__initcall", level, "_end");
  }
  symbol(w, p, "__initcall_end", "", "");
  close_section(w, p);
  p = present[KLTO_TABLE_CONSOLE];
  open_section(w, p, ".con_initcall.init");
  symbol(w, p, "__con_initcall_start", "", "");
  rule(w, p, ".con_initcall.init");
  symbol(w, p, "__con_initcall_end", "", "");
  close_section(w, p);
  for (size_t i = 0; tables && i < tables->n_extra; ++i) {
    p = present[KLTO_TABLE_EXTRA + i];
    open_section(w, p, tables->extra[i]);
    symbol(w, p, "__start_", tables->extra[i], "");
    rule(w, p, tables->extra[i]);
    symbol(w, p, "__stop_", tables->extra[i], "");
    close_section(w, p);
  }
}

void klto_write_table_script(FILE *out, const struct klto_tables *tables,
                           const bool *present) {
  /* The first table's start: an absent table's bounds point there. */
  char anchor[256] = "";
  if (present[KLTO_TABLE_INITCALLS])
    snprintf(anchor, sizeof(anchor), "__initcall_start");
  else if (present[KLTO_TABLE_CONSOLE])
    snprintf(anchor, sizeof(anchor), "__con_initcall_start");
  for (size_t i = 0; !anchor[0] && tables && i < tables->n_extra; ++i)
    if (present[KLTO_TABLE_EXTRA + i])
      symbol_name(anchor, sizeof(anchor), "__start_", tables->extra[i], "");
  fprintf(out, "/* klto: the tables of this link, in level order */\n"
               "OVERWRITE_SECTIONS {\n");
  struct symbols in_sections = {out, false, anchor};
  tables_in_order(&in_sections, tables, present);
  fprintf(out, "}\n");
  /* LLD 19 declares the symbols of OVERWRITE_SECTIONS too late for the
   * relocation scan (a -pie program's references became GLOB_DAT
   * relocations against symbol 0). A top-level assignment is declared
   * early, and LLD evaluates it after the output sections, so "x = x"
   * keeps the value set inside. */
  struct symbols top = {out, true, anchor};
  tables_in_order(&top, tables, present);
}

const char *const klto_split_bases[KLTO_N_SPLIT_BASES] = {".bss", ".data",
                                                       ".rodata", ".text"};

void klto_write_split_patterns(FILE *out, const char *base) {
  fprintf(out, " %s.[0-9a-zA-Z_]*", base);
  /* Local objects: ".data..L.str", and Clang's file-scope compound
   * literals, ".data..compoundliteral.7". */
  if (strcmp(base, ".text") != 0)
    fprintf(out, " %s..L* %s..compoundliteral*", base, base);
}

void klto_write_merge_script(FILE *out) {
  fprintf(out, "/* klto: split sections merged back, as Linux's "
               "module.lds.S */\nSECTIONS {\n");
  for (size_t i = 0; i < KLTO_N_SPLIT_BASES; ++i) {
    const char *b = klto_split_bases[i];
    fprintf(out, "  %s : {\n    *(%s", b, b);
    klto_write_split_patterns(out, b);
    fprintf(out, ")\n  }\n");
  }
  fprintf(out, "}\n");
}
