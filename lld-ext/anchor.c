/*===- anchor.c - an empty .data section for INSERT AFTER to find ---------===*
 *
 * See anchor.h. Written field by field so the byte order and class of the
 * target never depend on the host's.
 *===----------------------------------------------------------------------===*/
#include "anchor.h"

#include <stdio.h>
#include <string.h>

struct out {
  unsigned char buf[512];
  size_t n;
  bool be;
};

static void put(struct out *o, uint64_t v, unsigned size) {
  for (unsigned i = 0; i < size; ++i) {
    unsigned shift = 8 * (o->be ? size - 1 - i : i);
    o->buf[o->n++] = (unsigned char)(v >> shift);
  }
}

static void pad_to(struct out *o, size_t at) {
  while (o->n < at)
    o->buf[o->n++] = 0;
}

/* One section header; the address-sized fields follow the class. */
static void shdr(struct out *o, bool is64, uint32_t name, uint32_t type,
                 uint64_t flags, uint64_t offset, uint64_t size,
                 uint64_t align) {
  unsigned w = is64 ? 8 : 4;
  put(o, name, 4);
  put(o, type, 4);
  put(o, flags, w);
  put(o, 0, w); /* addr */
  put(o, offset, w);
  put(o, size, w);
  put(o, 0, 4); /* link */
  put(o, 0, 4); /* info */
  put(o, align, w);
  put(o, 0, w); /* entsize */
}

bool kl_write_anchor(const char *path, const struct kl_elf_target *t) {
  static const char shstrtab[] = "\0.data\0.shstrtab";
  struct out o = {.n = 0, .be = t->big_endian};
  unsigned ehsize = t->is64 ? 64 : 52, shentsize = t->is64 ? 64 : 40;
  size_t strtab_off = ehsize, shoff = (ehsize + sizeof(shstrtab) + 7) & ~7u;

  const unsigned char ident[16] = {0x7f, 'E', 'L', 'F', t->is64 ? 2 : 1,
                                   t->big_endian ? 2 : 1, 1};
  memcpy(o.buf, ident, sizeof(ident));
  o.n = 16;
  put(&o, 1 /* ET_REL */, 2);
  put(&o, t->machine, 2);
  put(&o, 1 /* EV_CURRENT */, 4);
  put(&o, 0, t->is64 ? 8 : 4); /* entry */
  put(&o, 0, t->is64 ? 8 : 4); /* phoff */
  put(&o, shoff, t->is64 ? 8 : 4);
  put(&o, t->flags, 4);
  put(&o, ehsize, 2);
  put(&o, 0, 2); /* phentsize */
  put(&o, 0, 2); /* phnum */
  put(&o, shentsize, 2);
  put(&o, 3, 2); /* shnum */
  put(&o, 2, 2); /* shstrndx */

  memcpy(o.buf + strtab_off, shstrtab, sizeof(shstrtab));
  o.n = strtab_off + sizeof(shstrtab);
  pad_to(&o, shoff);
  shdr(&o, t->is64, 0, 0, 0, 0, 0, 0);
  shdr(&o, t->is64, 1, 1 /* SHT_PROGBITS */, 3 /* SHF_WRITE|SHF_ALLOC */,
       strtab_off, 0, 1);
  shdr(&o, t->is64, 7, 3 /* SHT_STRTAB */, 0, strtab_off, sizeof(shstrtab),
       1);

  FILE *f = fopen(path, "wb");
  if (!f)
    return false;
  bool ok = fwrite(o.buf, 1, o.n, f) == o.n;
  return fclose(f) == 0 && ok;
}
