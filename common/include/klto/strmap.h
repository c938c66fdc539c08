/*===- strmap.h - a small string-keyed hash map for libkltocore -----------===*
 *
 * Keys are counted strings that point into text the caller keeps alive (the
 * module asm, the linker's section and symbol names), so the map never
 * copies them.
 *===----------------------------------------------------------------------===*/
#ifndef KLTO_STRMAP_H
#define KLTO_STRMAP_H

#include "klto/naming.h"

#ifdef __cplusplus
extern "C" {
#endif

struct klto_strmap_slot {
  struct klto_str key; /* key.p == NULL: empty slot */
  long value;
};

struct klto_strmap {
  struct klto_strmap_slot *slots;
  size_t cap, size; /* cap is 0 or a power of two */
};

/* Returns the slot for `key`, inserting it with `value` if absent; NULL when
 * out of memory. `*inserted` tells which happened. */
struct klto_strmap_slot *klto_strmap_insert(struct klto_strmap *m,
                                            struct klto_str key, long value,
                                            bool *inserted);
/* Makes room for `n` keys at once; false when out of memory. */
bool klto_strmap_reserve(struct klto_strmap *m, size_t n);
struct klto_strmap_slot *klto_strmap_find(const struct klto_strmap *m,
                                          struct klto_str key);
/* Empties the map and keeps its slots for the next use. */
void klto_strmap_clear(struct klto_strmap *m);
void klto_strmap_free(struct klto_strmap *m);

#ifdef __cplusplus
}
#endif

#endif /* KLTO_STRMAP_H */
