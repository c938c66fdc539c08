/*===- sectsort.h - put a relocatable object's entry sections in order ----===*
 *
 * LLD ignores --symbol-ordering-file with -r, and a linker script with one
 * rule per entry costs rules x input sections, which grows with the square
 * of a vmlinux.o link's entries. With -r, LLD keeps
 * every "<table>..<id>" section as a section of its own, so the order can
 * be applied afterwards instead, in linear time: the entry sections of each
 * table trade places in the section header table, and each is renamed to
 * its table ("<table>", by ending its name string early), so that every
 * later link, which takes a file's sections in header order, sees them in
 * order under the name Linux's vmlinux.lds asks for. No section data
 * moves; section indices in symbols, relocation and group sections and
 * sh_link are renumbered.
 *===----------------------------------------------------------------------===*/
#ifndef KLTO_LD_SECTSORT_H
#define KLTO_LD_SECTSORT_H

#include "klto/naming.h"
#include "klto/strmap.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Reorders `buf` (a whole ELF relocatable file) in place, each entry
 * section by its place in `ranks` (klto_order_rank_sections); one klto did
 * not order keeps its place relative to other such. Memory follows the
 * largest place. Returns NULL on success, or what is wrong with the
 * file. */
const char *klto_sort_relocatable(unsigned char *buf, size_t size,
                                const struct klto_tables *tables,
                                const struct klto_strmap *ranks);

#ifdef __cplusplus
}
#endif

#endif /* KLTO_LD_SECTSORT_H */
