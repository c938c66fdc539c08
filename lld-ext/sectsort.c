/*===- sectsort.c - put a relocatable object's entry sections in order ----===*
 *
 * See sectsort.h. Reads and writes every field through the file's own
 * class and byte order, and checks every offset it follows: the file comes
 * from LLD, but this code must not trust that.
 *===----------------------------------------------------------------------===*/
#include "sectsort.h"

#include "klto/strmap.h"

#include <elf.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct elf {
  unsigned char *p;
  size_t size;
  bool is64, be;
  bool native; /* the host's byte order: fields load as they are */
};

/* Hundreds of thousands of fields in a large object: a plain load when
 * the byte order allows, byte by byte otherwise. */
static uint64_t rd(const struct elf *e, size_t off, unsigned n) {
  if (e->native) {
    if (n == 2) {
      uint16_t v;
      memcpy(&v, e->p + off, 2);
      return v;
    }
    if (n == 4) {
      uint32_t v;
      memcpy(&v, e->p + off, 4);
      return v;
    }
    if (n == 8) {
      uint64_t v;
      memcpy(&v, e->p + off, 8);
      return v;
    }
  }
  uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i)
    v |= (uint64_t)e->p[off + i] << (8 * (e->be ? n - 1 - i : i));
  return v;
}

static void wr(struct elf *e, size_t off, unsigned n, uint64_t v) {
  if (e->native && n == 4) {
    uint32_t w = (uint32_t)v;
    memcpy(e->p + off, &w, 4);
    return;
  }
  for (unsigned i = 0; i < n; ++i)
    e->p[off + i] = (unsigned char)(v >> (8 * (e->be ? n - 1 - i : i)));
}

/* Field offsets of Elf32/64_Shdr and Elf32/64_Sym, and the width of the
 * class's address-sized fields (sh_flags, sh_offset, sh_size). */
struct layout {
  unsigned shentsize, name, type, flags, offset, size, link, info, w;
  unsigned symsize, st_shndx;
};

#define LAYOUT(Shdr, Sym, Addr)                                                \
  {sizeof(Shdr),                                                               \
   offsetof(Shdr, sh_name),                                                    \
   offsetof(Shdr, sh_type),                                                    \
   offsetof(Shdr, sh_flags),                                                   \
   offsetof(Shdr, sh_offset),                                                  \
   offsetof(Shdr, sh_size),                                                    \
   offsetof(Shdr, sh_link),                                                    \
   offsetof(Shdr, sh_info),                                                    \
   sizeof(Addr),                                                               \
   sizeof(Sym),                                                                \
   offsetof(Sym, st_shndx)}
static const struct layout L64 = LAYOUT(Elf64_Shdr, Elf64_Sym, Elf64_Addr);
static const struct layout L32 = LAYOUT(Elf32_Shdr, Elf32_Sym, Elf32_Addr);
#undef LAYOUT

struct entry {
  size_t index;
  long rank;
  struct klto_str section; /* the entry's name, for a relocation section
                              the name of the section it relocates */
  struct klto_str table;
  size_t name;   /* sh_name: where its name string starts */
  size_t prefix; /* ".rela"/".rel" before the entry's name, or 0;
                    SIZE_MAX: a relocation section named otherwise */
  bool rela;     /* an entry's relocations: they move with it */
  size_t group;  /* its table, and whether it is relocations */
};

static bool in_bounds(const struct elf *e, uint64_t off, uint64_t len) {
  return off <= e->size && len <= e->size - off;
}

/* The offset and size of a section header field, as rd()/wr() take them;
 * needs `shoff` and the layout `l` in scope. */
#define SH(i, field, n) (shoff + (uint64_t)(i) * l->shentsize + l->field), (n)

/* Whether any of bits [from, to) of `bits` is set: a byte at a time. */
static bool any_bit(const unsigned char *bits, size_t from, size_t to) {
  for (; from < to && from % 8; ++from)
    if (bits[from / 8] & (1u << (from % 8)))
      return true;
  for (; from + 8 <= to; from += 8)
    if (bits[from / 8])
      return true;
  for (; from < to; ++from)
    if (bits[from / 8] & (1u << (from % 8)))
      return true;
  return false;
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
  /* Where each section's name starts, one bit per byte of the table. */
  unsigned char *starts = calloc(strsize / 8 + 1, 1);
  if (!starts)
    return "out of memory";
  for (size_t i = 0; i < shnum; ++i) {
    uint64_t name = rd(e, SH(i, name, 4));
    if (name < strsize)
      starts[name / 8] |= (unsigned char)(1u << (name % 8));
    if (rd(e, SH(i, type, 4)) != SHT_SYMTAB)
      continue;
    uint64_t link = rd(e, SH(i, link, 4));
    if (link >= shnum) {
      free(starts);
      return "bad symbol table";
    }
    if (stroff == rd(e, SH(link, offset, l->w))) {
      free(starts);
      return "its symbols and sections share one string table";
    }
  }
  const char *err = NULL;
  for (size_t k = 0; k < n && !err; ++k) {
    const struct entry *x = &ents[k];
    if (x->prefix == SIZE_MAX)
      continue;
    size_t cut = x->name + x->prefix + x->table.n;
    if (cut >= strsize || e->p[stroff + cut] == 0)
      continue; /* already just "<table>" */
    /* No other name may start inside the part that is cut off. */
    size_t end = x->name + strnlen((const char *)e->p + stroff + x->name,
                                   strsize - x->name);
    if (any_bit(starts, x->name + 1, end))
      err = "another section's name shares an entry section's name string";
    else
      e->p[stroff + cut] = 0;
  }
  free(starts);
  return err;
}

/* An entry section's place in the order; -1 if klto did not order it. */
static long rank_of(const struct klto_strmap *ranks, struct klto_str section) {
  const struct klto_strmap_slot *slot = klto_strmap_find(ranks, section);
  return slot ? slot->value : -1;
}

const char *klto_sort_relocatable(unsigned char *buf, size_t size,
                                const struct klto_tables *tables,
                                const struct klto_strmap *ranks) {
  if (size < sizeof(Elf32_Ehdr) || memcmp(buf, "\x7f"
                               "ELF",
                          4) != 0)
    return "not an ELF file";
  unsigned char cls = buf[EI_CLASS], data = buf[EI_DATA];
  struct elf e = {
      buf, size, cls == ELFCLASS64, data == ELFDATA2MSB,
      (data == ELFDATA2LSB) == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)};
  if ((cls != ELFCLASS32 && cls != ELFCLASS64) ||
      (data != ELFDATA2LSB && data != ELFDATA2MSB))
    return "unknown ELF class or byte order";
  const struct layout *l = e.is64 ? &L64 : &L32;
  if (e.is64 && size < sizeof(Elf64_Ehdr))
    return "truncated ELF header";
  if (rd(&e, offsetof(Elf64_Ehdr, e_type), 2) != ET_REL)
    return "not a relocatable object";
#define EHDR(field)                                                            \
  (e.is64 ? offsetof(Elf64_Ehdr, field) : offsetof(Elf32_Ehdr, field))
  uint64_t shoff = rd(&e, EHDR(e_shoff), l->w);
  unsigned shentsize = (unsigned)rd(&e, EHDR(e_shentsize), 2);
  uint64_t shnum = rd(&e, EHDR(e_shnum), 2);
  uint64_t shstrndx = rd(&e, EHDR(e_shstrndx), 2);
#undef EHDR
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

  struct entry *found = malloc(shnum * sizeof(*found));
  struct entry *by_slot = malloc(shnum * sizeof(*by_slot));
  struct entry *by_rank = malloc(shnum * sizeof(*by_rank));
  size_t *perm = malloc(shnum * sizeof(*perm));
  unsigned char *copy = malloc(shnum * l->shentsize);
  /* A small number for each table: the tables' names, numbered. */
  struct klto_strmap table_ids = {0};
  size_t *group_start = NULL, *rank_head = NULL, *next = NULL;
  const char *err = NULL;
  if (!found || !by_slot || !by_rank || !perm || !copy) {
    err = "out of memory";
    goto out;
  }
  size_t n = 0;
  for (size_t i = 0; i < shnum; ++i) {
    /* A relocation section takes the place of its section's: LLD wants
     * each after the section it relocates. */
    uint64_t type = rd(&e, SH(i, type, 4));
    bool rela = type == SHT_REL || type == SHT_RELA;
    uint64_t target = rela ? rd(&e, SH(i, info, 4)) : i;
    if (target >= shnum)
      continue;
    struct entry x;
    const struct entry *prev = n ? &found[n - 1] : NULL;
    if (rela && prev && !prev->rela && prev->index == target) {
      /* LLD puts a section's relocations right after it: what its name
       * says is known already. */
      x.section = prev->section;
      x.table = prev->table;
      x.rank = prev->rank;
      x.group = prev->group + 1;
    } else {
      uint64_t name = rd(&e, SH(target, name, 4));
      if (name >= strsize)
        continue;
      const char *str = (const char *)e.p + stroff + name;
      x.section = (struct klto_str){str, strnlen(str, strsize - name)};
      struct klto_str id;
      if (x.section.n == strsize - name ||
          !klto_may_be_table(tables, x.section))
        continue;
      if (!klto_split_entry_section(tables, x.section, &x.table, &id)) {
        /* Entries built without ids, which LLD merged into one section. */
        if (!klto_is_table(tables, x.section))
          continue;
        x.table = x.section;
      }
      bool inserted;
      struct klto_strmap_slot *table_id = klto_strmap_insert(
          &table_ids, x.table, (long)table_ids.size, &inserted);
      if (!table_id) {
        err = "out of memory";
        goto out;
      }
      x.rank = rank_of(ranks, x.section);
      x.group = 2 * (size_t)table_id->value + rela;
    }
    x.index = i;
    x.name = rd(&e, SH(i, name, 4));
    x.prefix = 0;
    if (rela) {
      /* LLD names it ".rela<name>"; anything else keeps its name. */
      const char *pre = type == SHT_RELA ? ".rela" : ".rel";
      size_t np = strlen(pre), rn = x.name, len = x.section.n;
      bool twin = rn < strsize && strsize - rn > np + len &&
                  memcmp(e.p + stroff + rn, pre, np) == 0 &&
                  memcmp(e.p + stroff + rn + np, x.section.p, len + 1) == 0;
      x.prefix = twin ? np : SIZE_MAX;
    }
    x.rela = rela;
    found[n++] = x;
  }
  if (n == 0)
    goto out;
  /* A group's slots: its sections' header positions, ascending. The
   * sections were found in header order, so a stable counting sort by
   * group gives them. */
  size_t groups = 2 * table_ids.size;
  long max_rank = -1;
  for (size_t k = 0; k < n; ++k)
    if (found[k].rank > max_rank)
      max_rank = found[k].rank;
  group_start = calloc(groups + 1, sizeof(*group_start));
  /* One list head per rank; at least one, as malloc(0) may give NULL. */
  rank_head = malloc(((size_t)max_rank + 2) * sizeof(*rank_head));
  next = malloc(n * sizeof(*next));
  if (!group_start || !rank_head || !next) {
    err = "out of memory";
    goto out;
  }
  for (size_t k = 0; k < n; ++k)
    ++group_start[found[k].group + 1];
  for (size_t g = 0; g < groups; ++g)
    group_start[g + 1] += group_start[g];
  size_t *fill = perm; /* free until the permutation is built */
  memcpy(fill, group_start, groups * sizeof(*fill));
  for (size_t k = 0; k < n; ++k)
    by_slot[fill[found[k].group]++] = found[k];
  /* The order the entries take their group's slots in: ranked ones by
   * rank, then the unranked in header order. Ranks are places in the
   * computed order, so this is a counting sort too: by rank (a rank two
   * sections share keeps their header order), then stably by group. */
  for (long r = 0; r <= max_rank; ++r)
    rank_head[r] = SIZE_MAX;
  for (size_t k = n; k-- > 0;)
    if (found[k].rank >= 0) {
      next[k] = rank_head[found[k].rank];
      rank_head[found[k].rank] = k;
    }
  memcpy(fill, group_start, groups * sizeof(*fill));
  for (long r = 0; r <= max_rank; ++r)
    for (size_t k = rank_head[r]; k != SIZE_MAX; k = next[k])
      by_rank[fill[found[k].group]++] = found[k];
  for (size_t k = 0; k < n; ++k)
    if (found[k].rank < 0)
      by_rank[fill[found[k].group]++] = found[k];
  for (size_t i = 0; i < shnum; ++i)
    perm[i] = i;
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
  klto_strmap_free(&table_ids);
  free(group_start);
  free(rank_head);
  free(next);
  free(found);
  free(by_slot);
  free(by_rank);
  free(perm);
  free(copy);
  return err;
}

#undef SH
