/*===- writers.c - the files klto's ld.lld hands to LLD and to people -----===*
 *
 * See writers.h.
 *===----------------------------------------------------------------------===*/
#include "writers.h"

#include <stdbool.h>
#include <string.h>

static bool same(struct klto_str a, struct klto_str b) {
  return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
}

void kl_write_order_map(FILE *out, const struct kl_order *o) {
  fprintf(out, "# klto initcall order: level (or table), input, id, "
               "section; '-' marks entries LLD cannot order\n");
  struct klto_str table = {NULL, 0};
  for (size_t i = 0; i < o->n; ++i) {
    const struct kl_entry *e = o->entries[i];
    if (e->shadowed)
      continue;
    if (!same(table, e->table)) {
      table = e->table;
      fprintf(out, "%.*s\n", (int)table.n, table.p);
    }
    struct klto_str what = e->level.n ? e->level : e->table;
    fprintf(out, "  %c %-6.*s %s %.*s %.*s\n", e->orderable ? ' ' : '-',
            (int)what.n, what.p, o->origins[e->origin],
            e->has_id ? (int)e->id.n : 1, e->has_id ? e->id.p : "-",
            (int)e->section.n, e->section.p);
  }
}

void kl_write_symbol_order(FILE *out, const struct kl_order *o) {
  for (size_t i = 0; i < o->n; ++i) {
    const struct kl_entry *e = o->entries[i];
    if (e->orderable) {
      fwrite(e->symbol.p, 1, e->symbol.n, out);
      fputc('\n', out);
    }
  }
}

/* Linux's INIT_CALLS: each level's start symbol comes before the level and
 * its sync variant; rootfs sits between 5s and 6. */
static const char *const levels[] = {"early", "0", "1",      "2", "3",
                                     "4",     "5", "rootfs", "6", "7"};

static void table_rule(FILE *out, const char *section) {
  fprintf(out, "    KEEP(*(%s %s..*))\n", section, section);
}

/* The boundary symbols, as C identifiers: "__start_" + ".pci_fixup_final"
 * gives "__start_pci_fixup_final". `at` is "." inside the output section
 * and the symbol itself at the top level (see kl_write_table_script). */
static void symbol(FILE *out, const char *indent, const char *prefix,
                   const char *name, const char *suffix, bool top) {
  char sym[256];
  int n = snprintf(sym, sizeof(sym), "%s", prefix);
  for (const char *c = name[0] == '.' ? name + 1 : name;
       *c && n < (int)sizeof(sym) - 1; ++c)
    sym[n++] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                       (*c >= '0' && *c <= '9') || *c == '_'
                   ? *c
                   : '_';
  snprintf(sym + n, sizeof(sym) - (size_t)n, "%s", suffix);
  fprintf(out, "%s%s = %s;\n", indent, sym, top ? sym : ".");
}

/* Every boundary symbol in the script, in output order. */
static void symbols(FILE *out, const struct klto_tables *tables, bool top,
                    const char *indent) {
  if (!top)
    fprintf(out, "  .initcall.init : {\n");
  symbol(out, indent, "__initcall_start", "", "", top);
  for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]); ++l) {
    symbol(out, indent, "__initcall", levels[l], "_start", top);
    if (!top) {
      char sec[64];
      snprintf(sec, sizeof(sec), ".initcall%s.init", levels[l]);
      table_rule(out, sec);
      snprintf(sec, sizeof(sec), ".initcall%ss.init", levels[l]);
      table_rule(out, sec);
    }
    symbol(out, indent, "__initcall", levels[l], "_end", top);
  }
  symbol(out, indent, "__initcall_end", "", "", top);
  if (!top)
    fprintf(out, "  }\n  .con_initcall.init : {\n");
  symbol(out, indent, "__con_initcall_start", "", "", top);
  if (!top)
    table_rule(out, ".con_initcall.init");
  symbol(out, indent, "__con_initcall_end", "", "", top);
  if (!top)
    fprintf(out, "  }\n");
  for (size_t i = 0; tables && i < tables->n_extra; ++i) {
    if (!top)
      fprintf(out, "  %s : {\n", tables->extra[i]);
    symbol(out, indent, "__start_", tables->extra[i], "", top);
    if (!top)
      table_rule(out, tables->extra[i]);
    symbol(out, indent, "__stop_", tables->extra[i], "", top);
    if (!top)
      fprintf(out, "  }\n");
  }
}

void kl_write_table_script(FILE *out, const struct klto_tables *tables) {
  fprintf(out, "/* klto: initcall tables in level order */\n"
               "OVERWRITE_SECTIONS {\n");
  symbols(out, tables, false, "    ");
  fprintf(out, "}\n");
  /* LLD 19 declares the symbols of OVERWRITE_SECTIONS too late for the
   * relocation scan (a -pie program's references became GLOB_DAT
   * relocations against symbol 0); an assignment at the top level is
   * declared early, and LLD evaluates it after the output sections, so
   * "x = x" keeps the value set inside. */
  symbols(out, tables, true, "");
}

const char *const kl_split_bases[KL_N_SPLIT_BASES] = {".bss", ".data",
                                                       ".rodata", ".text"};

void kl_write_split_patterns(FILE *out, const char *base) {
  fprintf(out, " %s.[0-9a-zA-Z_]*", base);
  /* Local objects: ".data..L.str", and Clang's file-scope compound
   * literals, ".data..compoundliteral.7". */
  if (strcmp(base, ".text") != 0)
    fprintf(out, " %s..L* %s..compoundliteral*", base, base);
}

void kl_write_merge_script(FILE *out) {
  fprintf(out, "/* klto: split sections merged back, as Linux's "
               "module.lds.S */\nSECTIONS {\n");
  for (size_t i = 0; i < KL_N_SPLIT_BASES; ++i) {
    const char *b = kl_split_bases[i];
    fprintf(out, "  %s : {\n    *(%s", b, b);
    kl_write_split_patterns(out, b);
    fprintf(out, ")\n  }\n");
  }
  fprintf(out, "}\n");
}
