/*===- orderfiles.h - the computed order as LLD and people read it -------===*
 *
 * The computed order reaches LLD as a --symbol-ordering-file (final links:
 * near-linear, and it still orders sections a user script places), and
 * people as --kinit-order-map. Relocatable links ignore symbol ordering;
 * sectsort.h handles them.
 *===----------------------------------------------------------------------===*/
#ifndef KLTO_LD_ORDERFILES_H
#define KLTO_LD_ORDERFILES_H

#include "order.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Human-readable order: one line per entry with table, level, input, id. */
void klto_write_order_map(FILE *out, const struct klto_order *o);

/* One symbol per line, in order, for --symbol-ordering-file. */
void klto_write_symbol_order(FILE *out, const struct klto_order *o);

#ifdef __cplusplus
}
#endif

#endif /* KLTO_LD_ORDERFILES_H */
