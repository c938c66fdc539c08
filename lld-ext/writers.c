/*===- writers.c - the files klto's ld.lld hands to LLD and to people -----===*
 *
 * See writers.h.
 *===----------------------------------------------------------------------===*/
#include "writers.h"

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

/* "__start_" + the table name as a C identifier: ".pci_fixup_final" gives
 * "__start_pci_fixup_final". */
static void boundary(FILE *out, const char *prefix, const char *table) {
  fprintf(out, "    PROVIDE(%s", prefix);
  for (const char *c = table[0] == '.' ? table + 1 : table; *c; ++c)
    fputc((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                  (*c >= '0' && *c <= '9') || *c == '_'
              ? *c
              : '_',
          out);
  fprintf(out, " = .);\n");
}

void kl_write_table_script(FILE *out, const struct klto_tables *tables,
                           const char *insert_after) {
  fprintf(out, "/* klto: initcall tables in level order */\nSECTIONS {\n");
  fprintf(out, "  .initcall.init : {\n    PROVIDE(__initcall_start = .);\n");
  for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]); ++l) {
    char sec[64];
    fprintf(out, "    PROVIDE(__initcall%s_start = .);\n", levels[l]);
    snprintf(sec, sizeof(sec), ".initcall%s.init", levels[l]);
    table_rule(out, sec);
    snprintf(sec, sizeof(sec), ".initcall%ss.init", levels[l]);
    table_rule(out, sec);
    fprintf(out, "    PROVIDE(__initcall%s_end = .);\n", levels[l]);
  }
  fprintf(out, "    PROVIDE(__initcall_end = .);\n  }\n");
  fprintf(out, "  .con_initcall.init : {\n"
               "    PROVIDE(__con_initcall_start = .);\n");
  table_rule(out, ".con_initcall.init");
  fprintf(out, "    PROVIDE(__con_initcall_end = .);\n  }\n");
  for (size_t i = 0; tables && i < tables->n_extra; ++i) {
    fprintf(out, "  %s : {\n", tables->extra[i]);
    boundary(out, "__start_", tables->extra[i]);
    table_rule(out, tables->extra[i]);
    boundary(out, "__stop_", tables->extra[i]);
    fprintf(out, "  }\n");
  }
  fprintf(out, "}\nINSERT AFTER %s;\n", insert_after);
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
