/*===- scriptpatch.h - let a user's linker script find klto's entries -----===*
 *
 * Scripts written for non-LTO links place a table with its own name only:
 * Linux's vmlinux.lds has "KEEP(*(.initcall6.init))", Zephyr and U-Boot
 * have the like. Entries built by klto's plugin live in "<table>..<id>"
 * sections, which such a script leaves as orphans outside the table (the
 * kernel then boots with no initcalls). For final links klto hands LLD a
 * copy of each user script in which every input section pattern that is
 * exactly a table name also names "<table>..*" (unless its description
 * names that already); --symbol-ordering-file
 * then orders the entries inside. With --kmerge-sections the base sections
 * get their split sections too ("*(.text)" also takes ".text.[0-9a-zA-Z_]*",
 * the sections LTO's code generator gives every function), as Linux's
 * vmlinux.lds does under CONFIG_LTO_CLANG. One pass over the text, nothing
 * else in the script changes.
 *===----------------------------------------------------------------------===*/
#ifndef KLTO_LD_SCRIPTPATCH_H
#define KLTO_LD_SCRIPTPATCH_H

#include "klto/naming.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes `text` (a linker script of `n` bytes) to `out`, extended as above:
 * table patterns when `tables` is not NULL, base sections when
 * `merge_split`. Returns how many patterns were extended. */
size_t klto_patch_script(FILE *out, const char *text, size_t n,
                       const struct klto_tables *tables, bool merge_split);

/* Whether an input section pattern of the script could take a table
 * section: names a table or an entry of one, or has a wildcard where it
 * could. Comments, output section names and symbol names do not count. */
bool klto_script_places_tables(const char *text, size_t n,
                             const struct klto_tables *tables);

#ifdef __cplusplus
}
#endif

#endif /* KLTO_LD_SCRIPTPATCH_H */
