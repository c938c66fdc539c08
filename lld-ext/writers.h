/*===- writers.h - the files klto's ld.lld hands to LLD and to people -----===*
 *
 * The computed order reaches LLD as a --symbol-ordering-file (final links:
 * near-linear, and it still orders sections a user script places) and, when
 * no user script lays out the tables, as a small script with one rule per
 * table that creates the table sections and their boundary symbols.
 * Relocatable links ignore symbol ordering; sectsort.h handles them.
 *===----------------------------------------------------------------------===*/
#ifndef KLTO_LD_WRITERS_H
#define KLTO_LD_WRITERS_H

#include "order.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Human-readable order: one line per entry with table, level, input, id. */
void klto_write_order_map(FILE *out, const struct klto_order *o);

/* One symbol per line, in order, for --symbol-ordering-file. */
void klto_write_symbol_order(FILE *out, const struct klto_order *o);

/* OVERWRITE_SECTIONS script for final links: every Linux initcall table
 * in level order between __initcall_start and __initcall_end with
 * __initcall<L>_start and _end per level, the console table, and each
 * extra table with __start_<name>/__stop_<name>. LLD places the sections
 * as orphans (beside .data), so no input section has to exist for them,
 * and --gc-sections drops nothing they depend on. */
enum { KLTO_TABLE_INITCALLS, KLTO_TABLE_CONSOLE, KLTO_TABLE_EXTRA };
/* `present[t]` says whether the link has entries of table t (the initcall
 * levels together, the console table, then each extra table): only those
 * get an output section, so the script adds no empty one; the bounds of
 * the others make an empty range at the first table present. */
void klto_write_table_script(FILE *out, const struct klto_tables *tables,
                           const bool *present);

/* The sections --kmerge-sections merges split sections back into, and the
 * patterns of those split sections (".data.[0-9a-zA-Z_]*", ".data..L*",
 * ".data..compoundliteral*"), each written with a space before it. */
#define KLTO_N_SPLIT_BASES 4
extern const char *const klto_split_bases[KLTO_N_SPLIT_BASES];
void klto_write_split_patterns(FILE *out, const char *base);

/* SECTIONS script for --kmerge-sections, as Linux's scripts/module.lds.S:
 * split .text.*, .data.*, .rodata.*, .bss.* (and their "..L" local
 * variants) back into their base sections. */
void klto_write_merge_script(FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* KLTO_LD_WRITERS_H */
