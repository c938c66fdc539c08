/*===- sectsort.h - put a relocatable object's entry sections in order ----===*
 *
 * LLD ignores --symbol-ordering-file with -r, and a linker script with one
 * rule per entry costs rules x input sections (12 s against 0.27 s for the
 * plain -r link of 2000 objects with 20,000 entries). With -r, LLD keeps
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

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Position of an entry section in the computed order; negative if klto
 * did not order it (it then keeps its place relative to other such). The
 * sort takes memory in proportion to the largest position. */
typedef long (*kl_rank_fn)(void *ctx, struct klto_str section);

/* Reorders `buf` (a whole ELF relocatable file) in place. Returns NULL on
 * success, or what is wrong with the file. */
const char *kl_sort_relocatable(unsigned char *buf, size_t size,
                                const struct klto_tables *tables,
                                kl_rank_fn rank, void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* KLTO_LD_SECTSORT_H */
