/*===- strmap.c - a small string-keyed hash map for libkltocore ------------===*
 *
 * Open addressing with linear probing, at most half full.
 *===----------------------------------------------------------------------===*/
#include "klto/strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a over 8-byte words, then a final mix: keys are long names with
 * long common prefixes (".initcall6.init..kmod_..."), hashed by the tens of
 * thousands in a link. */
static size_t hash_str(struct klto_str s) {
  uint64_t h = 14695981039346656037ull ^ s.n;
  size_t i = 0;
  for (; i + 8 <= s.n; i += 8) {
    uint64_t w;
    memcpy(&w, s.p + i, 8);
    h = (h ^ w) * 1099511628211ull;
  }
  for (; i < s.n; ++i)
    h = (h ^ (unsigned char)s.p[i]) * 1099511628211ull;
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 32;
  return (size_t)h;
}

static bool key_eq(struct klto_str a, struct klto_str b) {
  return a.n == b.n && memcmp(a.p, b.p, a.n) == 0;
}

static struct klto_strmap_slot *probe(struct klto_strmap_slot *slots,
                                      size_t cap, struct klto_str key) {
  size_t mask = cap - 1;
  for (size_t i = hash_str(key) & mask;; i = (i + 1) & mask)
    if (!slots[i].key.p || key_eq(slots[i].key, key))
      return &slots[i];
}

static bool rehash(struct klto_strmap *m, size_t cap) {
  struct klto_strmap_slot *slots = calloc(cap, sizeof(*slots));
  if (!slots)
    return false;
  for (size_t i = 0; i < m->cap; ++i)
    if (m->slots[i].key.p)
      *probe(slots, cap, m->slots[i].key) = m->slots[i];
  free(m->slots);
  m->slots = slots;
  m->cap = cap;
  return true;
}

static bool grow(struct klto_strmap *m) {
  return rehash(m, m->cap ? m->cap * 2 : 16);
}

bool klto_strmap_reserve(struct klto_strmap *m, size_t n) {
  size_t cap = m->cap ? m->cap : 16;
  while (cap < 2 * n)
    cap *= 2;
  return cap == m->cap || rehash(m, cap);
}

struct klto_strmap_slot *klto_strmap_insert(struct klto_strmap *m,
                                            struct klto_str key, long value,
                                            bool *inserted) {
  if ((m->size + 1) * 2 > m->cap && !grow(m))
    return NULL;
  struct klto_strmap_slot *s = probe(m->slots, m->cap, key);
  *inserted = !s->key.p;
  if (*inserted) {
    s->key = key;
    s->value = value;
    ++m->size;
  }
  return s;
}

struct klto_strmap_slot *klto_strmap_find(const struct klto_strmap *m,
                                          struct klto_str key) {
  if (!m->cap)
    return NULL;
  struct klto_strmap_slot *s = probe(m->slots, m->cap, key);
  return s->key.p ? s : NULL;
}

void klto_strmap_clear(struct klto_strmap *m) {
  if (m->cap)
    memset(m->slots, 0, m->cap * sizeof(*m->slots));
  m->size = 0;
}

void klto_strmap_free(struct klto_strmap *m) {
  free(m->slots);
  memset(m, 0, sizeof(*m));
}
