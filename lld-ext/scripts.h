/*===- scripts.h - the linker scripts klto's ld.lld hands to LLD ---------===*
 *
 * When no user script lays out the tables, a small script with one rule
 * per table creates the table sections and their boundary symbols; with
 * --kmerge-sections, -r links get Linux's module.lds.S merge rules, and
 * user scripts (scriptpatch.h) the split-section patterns.
 *===----------------------------------------------------------------------===*/
#ifndef KLTO_LD_SCRIPTS_H
#define KLTO_LD_SCRIPTS_H

#include "klto/naming.h"

#include <stdbool.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

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

#endif /* KLTO_LD_SCRIPTS_H */
