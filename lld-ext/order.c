/*===- order.c - initcall order computation for klto's ld.lld -------------===*
 *
 * See order.h. The order must not depend on anything LTO can change: only
 * on where an input sits on the command line and on the counter the
 * compiler wrote into the id.
 *===----------------------------------------------------------------------===*/
#include "order.h"

#include "klto/strmap.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool str_eq(struct klto_str a, struct klto_str b) {
  return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
}

static unsigned extra_table_rank(const struct klto_tables *tables,
                                 struct klto_str table) {
  long spec = klto_table_spec(tables, table);
  return spec < 0 ? UINT32_MAX : (unsigned)(klto_n_initcall_levels + 1 + spec);
}

enum klto_parse_result klto_parse_entry(const struct klto_tables *tables,
                                    struct klto_entry *e) {
  static const struct klto_str none = {NULL, 0};
  e->parsed = false;
  e->has_id = klto_split_entry_section(tables, e->section, &e->table, &e->id);
  if (!e->has_id) {
    e->table = e->section;
    e->id = none;
  }
  if (klto_initcall_level(e->table, &e->level)) {
    e->table_rank = klto_initcall_level_rank(e->level);
  } else {
    e->level = none;
    e->table_rank = extra_table_rank(tables, e->table);
  }
  e->counter = 0;
  e->modname = none;
  if (!e->has_id) {
    e->parsed = true;
    return e->level.n || e->table_rank != UINT32_MAX ? KLTO_PARSED
                                                     : KLTO_NOT_A_TABLE;
  }
  struct klto_id id;
  if (!klto_parse_id(e->id, &id))
    return KLTO_BAD_ID;
  e->counter = id.counter;
  e->modname = id.modname;
  e->parsed = true;
  return KLTO_PARSED;
}

static void report(klto_diag_fn diag, void *ctx, bool is_error, const char *fmt,
                   ...) __attribute__((format(printf, 4, 5)));

static void report(klto_diag_fn diag, void *ctx, bool is_error, const char *fmt,
                   ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  diag(ctx, is_error ? KLTO_DIAG_ERROR : KLTO_DIAG_WARNING, 0, buf);
}

/* Link order: table, then input, archive member, then inside one file the
 * plain sections in file order before the entries by counter. */
static int cmp_link_order(const struct klto_entry *a, const struct klto_entry *b) {
  if (a->table_rank != b->table_rank)
    return a->table_rank < b->table_rank ? -1 : 1;
  if (a->input != b->input)
    return a->input < b->input ? -1 : 1;
  if (a->member != b->member)
    return a->member < b->member ? -1 : 1;
  if (a->has_id != b->has_id)
    return a->has_id ? 1 : -1;
  if (a->has_id && !a->by_position && a->counter != b->counter)
    return a->counter < b->counter ? -1 : 1;
  if (a->seq != b->seq)
    return a->seq < b->seq ? -1 : 1;
  return 0;
}

static size_t parse_entries(struct klto_order *o, klto_diag_fn diag, void *ctx) {
  size_t errors = 0;
  for (size_t i = 0; i < o->n; ++i) {
    struct klto_entry *e = o->entries[i];
    e->shadowed = false;
    e->by_position = false;
    if (e->parsed || klto_parse_entry(o->tables, e) != KLTO_BAD_ID)
      continue;
    report(diag, ctx, true,
           "%s: cannot parse the id of section '%.*s': expected "
           "<table>..<modname>__<counter>_<line>_<function>; rebuild the "
           "file with klto's plugin or Linux's initcall macros",
           o->origins[e->origin], (int)e->section.n, e->section.p);
    ++errors;
  }
  return errors;
}

static int cmp_file(const struct klto_entry *a, const struct klto_entry *b) {
  if (a->input != b->input)
    return a->input < b->input ? -1 : 1;
  if (a->member != b->member)
    return a->member < b->member ? -1 : 1;
  return 0;
}

/* Counters restart in every translation unit, so they order one unit's
 * entries only. A file with entries of several modules was linked with -r
 * (by klto, which put them in order), and its section order stands. The
 * scanner reports entries file by file, in link order. */
static void mark_multi_module_files(struct klto_order *o) {
  for (size_t i = 0; i < o->n;) {
    size_t j = i;
    bool several = false;
    struct klto_str first = {NULL, 0};
    for (; j < o->n && cmp_file(o->entries[i], o->entries[j]) == 0; ++j) {
      if (!o->entries[j]->has_id)
        continue;
      if (!first.p)
        first = o->entries[j]->modname;
      else if (!str_eq(first, o->entries[j]->modname))
        several = true;
    }
    for (size_t k = i; k < j; ++k)
      o->entries[k]->by_position = several;
    i = j;
  }
}

static bool out_of_memory(klto_diag_fn diag, void *ctx, size_t n) {
  report(diag, ctx, true, "out of memory ordering %zu entries", n);
  return true;
}

/* Two entries with one id would get one place in the order. Only entries
 * LLD certainly loads make that an error; archive members that define the
 * same entry are alternatives LLD picks between. Entries are in link
 * order, so each one is compared with the last before it of its name. */
static size_t check_duplicates(struct klto_order *o, struct klto_strmap *last,
                               klto_diag_fn diag, void *ctx) {
  size_t errors = 0;
  for (size_t i = 0; i < o->n; ++i) {
    struct klto_entry *b = o->entries[i];
    if (!b->has_id)
      continue;
    bool inserted;
    struct klto_strmap_slot *s =
        klto_strmap_insert(last, b->section, (long)i, &inserted);
    if (!s) {
      errors += out_of_memory(diag, ctx, o->n);
      break;
    }
    if (inserted)
      continue;
    const struct klto_entry *a = o->entries[s->value];
    s->value = (long)i;
    bool fatal = !a->lazy && !b->lazy;
    report(diag, ctx, fatal,
           "duplicate entry '%.*s' in %s and %s%s", (int)b->section.n,
           b->section.p, o->origins[a->origin], o->origins[b->origin],
           fatal ? ": two translation units share a module name; give them "
                   "distinct KBUILD_MODNAME or -fplugin-arg-klto-modname="
                 : " (archive members; the first one is ordered)");
    errors += fatal;
    b->shadowed = !fatal;
  }
  return errors;
}

/* --symbol-ordering-file gives every section holding a listed name one
 * priority; a name shared by two sections gives both the same place and
 * LLD's sort is not stable, so only names that single out one section in
 * the whole link are usable. */
static size_t mark_orderable(struct klto_order *o, struct klto_strmap *uses,
                             klto_diag_fn diag, void *ctx) {
  if (o->relocatable) {
    for (size_t i = 0; i < o->n; ++i)
      o->entries[i]->orderable = !o->entries[i]->shadowed;
    return 0;
  }
  for (size_t i = 0; i < o->n; ++i) {
    struct klto_entry *e = o->entries[i];
    e->orderable = false;
    if (!e->symbol.n || e->shadowed)
      continue;
    bool inserted;
    struct klto_strmap_slot *s =
        klto_strmap_insert(uses, e->symbol, 1, &inserted);
    if (!s)
      return out_of_memory(diag, ctx, o->n);
    s->value += !inserted;
  }
  for (size_t i = 0; i < o->n; ++i) {
    struct klto_entry *e = o->entries[i];
    if (e->shadowed)
      continue;
    if (!e->symbol.n) {
      report(diag, ctx, false,
             "%s: section '%.*s' defines no symbol and cannot be ordered; "
             "LLD places it after the ordered entries of its table",
             o->origins[e->origin], (int)e->section.n, e->section.p);
      continue;
    }
    if (klto_strmap_find(uses, e->symbol)->value == 1 && e->symbol_unique) {
      e->orderable = true;
      continue;
    }
    report(diag, ctx, false,
           "%s: section '%.*s' cannot be ordered: its symbol '%.*s' is "
           "not unique in the link; LLD places it after the ordered entries "
           "of its table",
           o->origins[e->origin], (int)e->section.n, e->section.p,
           (int)e->symbol.n, e->symbol.p);
  }
  return 0;
}

static int cmp_file_seq(const struct klto_entry *a, const struct klto_entry *b) {
  int c = cmp_file(a, b);
  if (c)
    return c;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* qsort's view of the two orders, over the array of entry pointers. */
static int qsort_file_seq(const void *pa, const void *pb) {
  return cmp_file_seq(*(struct klto_entry *const *)pa,
                      *(struct klto_entry *const *)pb);
}

static int qsort_link_order(const void *pa, const void *pb) {
  return cmp_link_order(*(struct klto_entry *const *)pa,
                        *(struct klto_entry *const *)pb);
}

static bool in_file_order(const struct klto_order *o) {
  for (size_t i = 1; i < o->n; ++i)
    if (cmp_file_seq(o->entries[i - 1], o->entries[i]) > 0)
      return false;
  return true;
}

/* Sorts file-ordered entries into cmp_link_order in linear time: a stable
 * counting sort by table keeps the file order inside each table, so only
 * each file's own run of a table, usually a few entries already nearly in
 * order, is left to sort. */
static bool sort_into_link_order(struct klto_order *o) {
  size_t n_buckets = klto_n_initcall_levels + 2 + (o->tables ? o->tables->n_extra : 0);
  size_t *start = calloc(n_buckets + 1, sizeof(*start));
  struct klto_entry **out = malloc(o->n * sizeof(*out));
  if (!start || !out) {
    free(start);
    free(out);
    return false;
  }
#define BUCKET(e) ((e)->table_rank < n_buckets - 1 ? (e)->table_rank : n_buckets - 1)
  for (size_t i = 0; i < o->n; ++i)
    ++start[BUCKET(o->entries[i]) + 1];
  for (size_t b = 0; b < n_buckets; ++b)
    start[b + 1] += start[b];
  for (size_t i = 0; i < o->n; ++i)
    out[start[BUCKET(o->entries[i])]++] = o->entries[i];
#undef BUCKET
  for (size_t i = 0; i < o->n;) {
    size_t j = i + 1;
    while (j < o->n && out[j]->table_rank == out[i]->table_rank &&
           cmp_file(out[i], out[j]) == 0)
      ++j;
    if (j - i > 32) {
      qsort(out + i, j - i, sizeof(*out), qsort_link_order);
    } else {
      for (size_t k = i + 1; k < j; ++k) {
        struct klto_entry *e = out[k];
        size_t m = k;
        for (; m > i && cmp_link_order(out[m - 1], e) > 0; --m)
          out[m] = out[m - 1];
        out[m] = e;
      }
    }
    i = j;
  }
  memcpy(o->entries, out, o->n * sizeof(*out));
  free(out);
  free(start);
  return true;
}

size_t klto_order_compute(struct klto_order *o, klto_diag_fn diag, void *ctx) {
  size_t errors = parse_entries(o, diag, ctx);
  if (o->n == 0)
    return errors;
  /* The scanner's order already; entries built by hand may not be. */
  if (!in_file_order(o))
    qsort(o->entries, o->n, sizeof(*o->entries), qsort_file_seq);
  mark_multi_module_files(o);
  /* One map for both passes: its pages are touched once. */
  struct klto_strmap names = {0};
  if (!klto_strmap_reserve(&names, o->n))
    return errors + out_of_memory(diag, ctx, o->n);
  size_t duplicates = check_duplicates(o, &names, diag, ctx);
  errors += duplicates;
  /* The link fails on the duplicates; each one's symbol is not unique
   * either, and warnings saying so would only repeat the error. */
  klto_strmap_clear(&names);
  if (!duplicates)
    errors += mark_orderable(o, &names, diag, ctx);
  else
    for (size_t i = 0; i < o->n; ++i)
      o->entries[i]->orderable = false;
  klto_strmap_free(&names);
  if (!sort_into_link_order(o))
    errors += out_of_memory(diag, ctx, o->n);
  return errors;
}

bool klto_order_rank_sections(const struct klto_order *o,
                            struct klto_strmap *ranks, klto_diag_fn diag,
                            void *ctx) {
  if (!klto_strmap_reserve(ranks, o->n))
    return !out_of_memory(diag, ctx, o->n);
  struct klto_str table = {NULL, 0};
  const struct klto_entry *plain = NULL, *id_after_plain = NULL;
  for (size_t i = 0; i < o->n; ++i) {
    const struct klto_entry *e = o->entries[i];
    if (e->shadowed)
      continue;
    if (!str_eq(e->table, table)) {
      table = e->table;
      plain = id_after_plain = NULL;
    }
    /* The merged id-less section stands where the first of them does. */
    if (e->has_id || !plain) {
      bool inserted;
      struct klto_strmap_slot *slot = klto_strmap_insert(
          ranks, e->has_id ? e->section : e->table, (long)i, &inserted);
      if (!slot)
        return !out_of_memory(diag, ctx, o->n);
      slot->value = (long)i;
    }
    if (e->has_id) {
      if (plain && !id_after_plain)
        id_after_plain = e;
    } else if (!plain) {
      plain = e;
    } else if (id_after_plain) {
      report(diag, ctx, true,
             "--kinit-order cannot order table %.*s in a -r link: LLD "
             "merges its entries without ids from %s and %s into one "
             "section, but the entry %.*s of %s belongs between them; build "
             "those files with klto's plugin, or link them in a separate -r "
             "link",
             (int)table.n, table.p, o->origins[plain->origin],
             o->origins[e->origin], (int)id_after_plain->section.n,
             id_after_plain->section.p, o->origins[id_after_plain->origin]);
      return false;
    }
  }
  return true;
}
