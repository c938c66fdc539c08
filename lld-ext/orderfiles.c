/*===- orderfiles.c - the computed order as LLD and people read it -------===*
 *
 * See orderfiles.h.
 *===----------------------------------------------------------------------===*/
#include "orderfiles.h"

#include <stdbool.h>
#include <string.h>

static bool same(struct klto_str a, struct klto_str b) {
  return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
}

void klto_write_order_map(FILE *out, const struct klto_order *o) {
  fprintf(out, "# klto initcall order: level (or table), input, id, "
               "section; '-' marks entries LLD cannot order\n");
  struct klto_str table = {NULL, 0};
  for (size_t i = 0; i < o->n; ++i) {
    const struct klto_entry *e = o->entries[i];
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

void klto_write_symbol_order(FILE *out, const struct klto_order *o) {
  for (size_t i = 0; i < o->n; ++i) {
    const struct klto_entry *e = o->entries[i];
    if (e->orderable) {
      fwrite(e->symbol.p, 1, e->symbol.n, out);
      fputc('\n', out);
    }
  }
}

