/*===- order.h - initcall order computation for klto's ld.lld -------------===*
 *
 * The scanner reports every table section it finds; this part decides the
 * order a non-LTO link would have given them (input order, then the counter
 * of the id within a file, as Linux's generate_initcall_order.pl does; a
 * file holding several modules' entries, the output of a -r link, keeps
 * its own section order),
 * finds duplicate or unparseable ids, and picks for each entry the symbol
 * that --symbol-ordering-file can name. Plain C over counted strings owned
 * by the caller.
 *===----------------------------------------------------------------------===*/
#ifndef KLTO_LD_ORDER_H
#define KLTO_LD_ORDER_H

#include "klto/naming.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One table section of one input: an entry "<table>..<id>" or a plain
 * "<table>" section from code built without ids. */
struct klto_entry {
  /* Filled by the scanner. */
  struct klto_str section;
  struct klto_str symbol; /* a symbol defined in it; n == 0 if none */
  bool symbol_unique;     /* no other symbol of that name in the same file */
  unsigned input;         /* link-order index of the file or archive */
  unsigned member;        /* archive member ordinal, 0 for plain files */
  unsigned seq;           /* position inside its file */
  unsigned origin;        /* index into klto_order.origins, for messages */
  bool lazy;              /* in an archive member LLD may leave unloaded */
  /* Filled by klto_parse_entry, from `section` alone. */
  bool parsed;
  struct klto_str table, id, level; /* level: n == 0 for other tables */
  unsigned long long counter;
  struct klto_str modname;
  bool has_id;
  /* Linux's level order (early, 0, 0s, ... 5s, rootfs, 6 ... 7s, con),
   * then the extra tables in the order they were given. */
  unsigned table_rank;
  /* Filled by klto_order_compute. */
  bool by_position; /* its file holds several modules' entries */
  bool orderable;   /* `symbol` names this entry alone in the link */
  bool shadowed;    /* a later archive member's copy of an ordered entry */
};

struct klto_order {
  /* Sorted into link order by klto_order_compute: pointers, so the sort
   * moves 8 bytes per entry and the entries stay where the scanner made
   * them. */
  struct klto_entry **entries;
  size_t n;
  const char *const *origins; /* "dir/a.o", "lib.a(m.o)" */
  const struct klto_tables *tables;
  /* A -r link: sorting the output's section headers applies the order, so
   * entry symbols play no part and every entry that stays is orderable. */
  bool relocatable;
};


enum klto_parse_result {
  KLTO_NOT_A_TABLE, /* the section belongs to no table */
  KLTO_PARSED,      /* a plain table section, or an entry with a valid id */
  KLTO_BAD_ID,      /* "<table>..<id>" with an id that does not parse */
};

/* Fills the fields an entry's section name determines and sets `parsed`
 * when it returns KLTO_PARSED. The strings point into `section`. The scanner
 * calls it on its threads as it finds each entry; klto_order_compute parses
 * the entries that are not `parsed` and reports those with bad ids. */
enum klto_parse_result klto_parse_entry(const struct klto_tables *tables,
                                    struct klto_entry *e);

/* Parses ids, sorts the entries into the order of a non-LTO link, rejects
 * unparseable and duplicate ids, decides which entries the symbol ordering
 * can place. Returns the number of errors reported. */
size_t klto_order_compute(struct klto_order *o, klto_diag_fn diag, void *ctx);

/* For a -r link, where the section sort (sectsort.h) applies the order:
 * fills `ranks` with each output section's place in it, by name. An entry
 * with an id is a section of its own; a table's entries without ids, which
 * LLD merges into one "<table>" section, take the place of the first of
 * them, so no entry with an id may belong between two of them (reported).
 * Keys point into the entries' strings. False after reporting an error. */
struct klto_strmap;
bool klto_order_rank_sections(const struct klto_order *o,
                            struct klto_strmap *ranks, klto_diag_fn diag,
                            void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* KLTO_LD_ORDER_H */
