/*===- sectsort.c - put a relocatable object's entry sections in order ----===*
 *
 * See sectsort.h. Reads and writes every field through the file's own
 * class and byte order, and checks every offset it follows: the file comes
 * from LLD, but this code must not trust that.
 *===----------------------------------------------------------------------===*/
#include "sectsort.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct elf {
  unsigned char *p;
  size_t size;
  bool is64, be;
};

static uint64_t rd(const struct elf *e, size_t off, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i)
    v |= (uint64_t)e->p[off + i] << (8 * (e->be ? n - 1 - i : i));
  return v;
}

static void wr(struct elf *e, size_t off, unsigned n, uint64_t v) {
  for (unsigned i = 0; i < n; ++i)
    e->p[off + i] = (unsigned char)(v >> (8 * (e->be ? n - 1 - i : i)));
}

/* Field offsets and sizes of Elf32/64_Shdr and Elf32/64_Sym. */
struct layout {
  unsigned shentsize, name, type, flags, offset, size, link, info, w;
  unsigned symsize, st_shndx;
};

static const struct layout L64 = {64, 0, 4, 8, 24, 32, 40, 44, 8, 24, 6};
static const struct layout L32 = {40, 0, 4, 8, 16, 20, 24, 28, 4, 16, 14};

struct entry {
  size_t index;
  long rank;
  struct klto_str table;
  size_t name;   /* sh_name: where its name string starts */
  size_t prefix; /* ".rela"/".rel" before the entry's name, or 0;
                    SIZE_MAX: a relocation section named otherwise */
  bool rela;     /* an entry's relocations: they move with it */
};

static int cmp_table(const struct entry *a, const struct entry *b) {
  if (a->rela != b->rela)
    return a->rela ? 1 : -1;
  size_t n = a->table.n < b->table.n ? a->table.n : b->table.n;
  int c = memcmp(a->table.p, b->table.p, n);
  if (c)
    return c;
  return a->table.n < b->table.n ? -1 : a->table.n > b->table.n;
}

/* A table's slots: its sections' header positions, ascending. */
static int cmp_slot(const void *pa, const void *pb) {
  const struct entry *a = pa, *b = pb;
  int c = cmp_table(a, b);
  if (c)
    return c;
  return a->index < b->index ? -1 : a->index > b->index;
}

/* The order the entries take those slots in: ranked ones by rank, then
 * the unranked in their old order. */
static int cmp_rank(const void *pa, const void *pb) {
  const struct entry *a = pa, *b = pb;
  int c = cmp_table(a, b);
  if (c)
    return c;
  bool ua = a->rank < 0, ub = b->rank < 0;
  if (ua != ub)
    return ua ? 1 : -1;
  if (!ua && a->rank != b->rank)
    return a->rank < b->rank ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

static bool in_bounds(const struct elf *e, uint64_t off, uint64_t len) {
  return off <= e->size && len <= e->size - off;
}

#define SHN_UNDEF 0
#define SHN_LORESERVE 0xff00
#define SHN_XINDEX 0xffff
#define SHT_SYMTAB 2
#define SHT_RELA 4
#define SHT_REL 9
#define SHT_GROUP 17
#define SHT_SYMTAB_SHNDX 18
#define SHF_INFO_LINK 0x40

/* The offset and size of a section header field, as rd()/wr() take them;
 * needs `shoff` and the layout `l` in scope. */
#define SH(i, field, n) (shoff + (uint64_t)(i) * l->shentsize + l->field), (n)

static int cmp_size(const void *pa, const void *pb) {
  size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
  return a < b ? -1 : a > b;
}

/* Renames each entry section "<table>..<id>" (and its ".rela" twin) to
 * "<table>" by ending its name string after the table name: every later
 * link then finds the entries with the pattern Linux's vmlinux.lds uses,
 * "*(.initcall6.init)", and takes them in section header order, the order
 * just given. This is what Linux's .tmp_initcalls.lds achieves by merging,
 * without moving a byte of section data. LLD gives every section name its
 * own string; a string that another header or the symbol table shares
 * would be renamed for them too, so that is refused. */
static const char *rename_to_tables(struct elf *e, const struct entry *ents,
                                    size_t n, uint64_t stroff,
                                    uint64_t strsize, uint64_t shoff,
                                    uint64_t shnum, const struct layout *l) {
  size_t *names = malloc(shnum * sizeof(*names));
  if (!names)
    return "out of memory";
  for (size_t i = 0; i < shnum; ++i) {
    names[i] = (size_t)rd(e, SH(i, name, 4));
    uint64_t type = rd(e, SH(i, type, 4));
    uint64_t link = rd(e, SH(i, link, 4));
    if (type != SHT_SYMTAB)
      continue;
    if (link >= shnum) {
      free(names);
      return "bad symbol table";
    }
    if (stroff == rd(e, SH(link, offset, l->w))) {
      free(names);
      return "its symbols and sections share one string table";
    }
  }
  qsort(names, shnum, sizeof(*names), cmp_size);
  const char *err = NULL;
  for (size_t k = 0; k < n && !err; ++k) {
    const struct entry *x = &ents[k];
    if (x->prefix == SIZE_MAX)
      continue;
    size_t cut = x->name + x->prefix + x->table.n;
    if (cut >= strsize || e->p[stroff + cut] == 0)
      continue; /* already just "<table>" */
    /* No other name may start inside the part that is cut off. */
    size_t lo = 0, hi = shnum;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (names[mid] <= x->name)
        lo = mid + 1;
      else
        hi = mid;
    }
    size_t end = x->name + strnlen((const char *)e->p + stroff + x->name,
                                   strsize - x->name);
    if (lo < shnum && names[lo] < end)
      err = "another section's name shares an entry section's name string";
    else
      e->p[stroff + cut] = 0;
  }
  free(names);
  return err;
}

const char *kl_sort_relocatable(unsigned char *buf, size_t size,
                                const struct klto_tables *tables,
                                kl_rank_fn rank, void *ctx) {
  if (size < 52 || memcmp(buf, "\x7f"
                               "ELF",
                          4) != 0)
    return "not an ELF file";
  struct elf e = {buf, size, buf[4] == 2, buf[5] == 2};
  if ((buf[4] != 1 && buf[4] != 2) || (buf[5] != 1 && buf[5] != 2))
    return "unknown ELF class or byte order";
  const struct layout *l = e.is64 ? &L64 : &L32;
  if (e.is64 && size < 64)
    return "truncated ELF header";
  if (rd(&e, 16, 2) != 1)
    return "not a relocatable object";
  uint64_t shoff = rd(&e, e.is64 ? 40 : 32, l->w);
  unsigned shentsize = (unsigned)rd(&e, e.is64 ? 58 : 46, 2);
  uint64_t shnum = rd(&e, e.is64 ? 60 : 48, 2);
  uint64_t shstrndx = rd(&e, e.is64 ? 62 : 50, 2);
  if (shentsize != l->shentsize || !in_bounds(&e, shoff, l->shentsize))
    return "bad section header table";
  /* Past 0xff00 sections the real counts live in section header 0. */
  if (shnum == 0)
    shnum = rd(&e, shoff + l->size, l->w);
  if (shstrndx == SHN_XINDEX)
    shstrndx = rd(&e, shoff + l->link, 4);
  if (shnum > (e.size - shoff) / l->shentsize || shstrndx >= shnum)
    return "bad section header table";
  uint64_t stroff = rd(&e, SH(shstrndx, offset, l->w));
  uint64_t strsize = rd(&e, SH(shstrndx, size, l->w));
  if (!in_bounds(&e, stroff, strsize))
    return "bad section name table";

  struct entry *by_slot = malloc(shnum * sizeof(*by_slot));
  struct entry *by_rank = malloc(shnum * sizeof(*by_rank));
  size_t *perm = malloc(shnum * sizeof(*perm));
  unsigned char *copy = malloc(shnum * l->shentsize);
  const char *err = NULL;
  if (!by_slot || !by_rank || !perm || !copy) {
    err = "out of memory";
    goto out;
  }
  size_t n = 0;
  for (size_t i = 0; i < shnum; ++i) {
    perm[i] = i;
    /* A relocation section takes the place of its section's: LLD wants
     * each after the section it relocates. */
    uint64_t type = rd(&e, SH(i, type, 4));
    bool rela = type == SHT_REL || type == SHT_RELA;
    uint64_t target = rela ? rd(&e, SH(i, info, 4)) : i;
    if (target >= shnum)
      continue;
    uint64_t name = rd(&e, SH(target, name, 4));
    if (name >= strsize)
      continue;
    const char *s = (const char *)e.p + stroff + name;
    size_t len = strnlen(s, strsize - name);
    struct klto_str sec = {s, len}, table, id;
    if (len == strsize - name)
      continue;
    if (!klto_split_entry_section(tables, sec, &table, &id)) {
      /* Entries built without ids, which LLD merged into one section. */
      if (!klto_is_table(tables, sec))
        continue;
      table = sec;
    }
    by_slot[n].index = i;
    by_slot[n].rank = rank(ctx, sec);
    by_slot[n].table = table;
    by_slot[n].name = rd(&e, SH(i, name, 4));
    by_slot[n].prefix = 0;
    if (rela) {
      /* LLD names it ".rela<name>"; anything else keeps its name. */
      const char *pre = type == SHT_RELA ? ".rela" : ".rel";
      size_t np = strlen(pre), rn = by_slot[n].name;
      bool twin = rn < strsize && strsize - rn > np + len &&
                  memcmp(e.p + stroff + rn, pre, np) == 0 &&
                  memcmp(e.p + stroff + rn + np, s, len + 1) == 0;
      by_slot[n].prefix = twin ? np : SIZE_MAX;
    }
    by_slot[n].rela = rela;
    ++n;
  }
  if (n == 0)
    goto out;
  memcpy(by_rank, by_slot, n * sizeof(*by_slot));
  qsort(by_slot, n, sizeof(*by_slot), cmp_slot);
  qsort(by_rank, n, sizeof(*by_rank), cmp_rank);
  /* Both arrays group the tables alike, so position k pairs an entry with
   * the slot it takes. */
  for (size_t k = 0; k < n; ++k)
    perm[by_rank[k].index] = by_slot[k].index;
  for (size_t k = 0; k < n; ++k)
    if (by_slot[k].rela) {
      size_t r = by_slot[k].index;
      if (perm[r] < perm[rd(&e, SH(r, info, 4))]) {
        err = "its entry sections are not each followed by their relocations";
        goto out;
      }
    }

  /* Move the headers, then renumber every reference to a section. */
  memcpy(copy, e.p + shoff, shnum * l->shentsize);
  for (size_t i = 0; i < shnum; ++i)
    memcpy(e.p + shoff + perm[i] * l->shentsize, copy + i * l->shentsize,
           l->shentsize);
  for (size_t i = 0; i < shnum; ++i) {
    uint64_t type = rd(&e, SH(i, type, 4));
    uint64_t link = rd(&e, SH(i, link, 4));
    if (i != 0 && link != 0 && link < shnum)
      wr(&e, SH(i, link, 4), perm[link]);
    uint64_t info = rd(&e, SH(i, info, 4));
    bool info_link = rd(&e, SH(i, flags, l->w)) & SHF_INFO_LINK;
    if ((type == SHT_REL || type == SHT_RELA || info_link) && info != 0 &&
        info < shnum)
      wr(&e, SH(i, info, 4), perm[info]);
    uint64_t off = rd(&e, SH(i, offset, l->w));
    uint64_t sz = rd(&e, SH(i, size, l->w));
    if (type == SHT_SYMTAB) {
      if (!in_bounds(&e, off, sz)) {
        err = "bad symbol table";
        goto out;
      }
      for (uint64_t s = 0; s + l->symsize <= sz; s += l->symsize) {
        uint64_t ndx = rd(&e, off + s + l->st_shndx, 2);
        if (ndx != SHN_UNDEF && ndx < SHN_LORESERVE && ndx < shnum)
          wr(&e, off + s + l->st_shndx, 2, perm[ndx]);
      }
    } else if (type == SHT_SYMTAB_SHNDX || type == SHT_GROUP) {
      if (!in_bounds(&e, off, sz)) {
        err = "bad section index table";
        goto out;
      }
      /* A group's first word is its flags. */
      for (uint64_t s = type == SHT_GROUP ? 4 : 0; s + 4 <= sz; s += 4) {
        uint64_t ndx = rd(&e, off + s, 4);
        if (ndx != 0 && ndx < shnum)
          wr(&e, off + s, 4, perm[ndx]);
      }
    }
  }
  if (perm[shstrndx] != shstrndx) {
    err = "the section name table moved";
    goto out;
  }
  err = rename_to_tables(&e, by_slot, n, stroff, strsize,
                         shoff, shnum, l);
out:
  free(by_slot);
  free(by_rank);
  free(perm);
  free(copy);
  return err;
}

#undef SH
