/*===- sectsort.c - put a relocatable object's entry sections in order ----===*
 *
 * See sectsort.h. Its own ELF reader, not llvm::object::ELFFile (which
 * Scanner.cpp reads inputs with): this rewrites the file in place, which
 * that read-only view does not, and is C, as the rest of the ordering is.
 * Reads and writes every field through the file's own class and byte
 * order, and checks every offset it follows: the file comes from LLD, but
 * this code must not trust that.
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

/* A relocatable file's section header table and section name table. */
struct headers {
  struct elf e;
  const struct layout *l;
  uint64_t shoff, shnum, shstrndx;
  uint64_t stroff, strsize; /* the section name table's bytes */
};

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
static const char *rename_to_tables(struct headers *h,
                                    const struct entry *ents, size_t n) {
  struct elf *e = &h->e;
  const struct layout *l = h->l;
  uint64_t shoff = h->shoff, shnum = h->shnum;
  uint64_t stroff = h->stroff, strsize = h->strsize;
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

/* The section header table and the section name table, checked. */
static const char *read_headers(unsigned char *buf, size_t size,
                                struct headers *h) {
  if (size < sizeof(Elf32_Ehdr) || memcmp(buf, "\x7f" "ELF", 4) != 0)
    return "not an ELF file";
  unsigned char cls = buf[EI_CLASS], data = buf[EI_DATA];
  if ((cls != ELFCLASS32 && cls != ELFCLASS64) ||
      (data != ELFDATA2LSB && data != ELFDATA2MSB))
    return "unknown ELF class or byte order";
  struct elf *e = &h->e;
  *e = (struct elf){
      buf, size, cls == ELFCLASS64, data == ELFDATA2MSB,
      (data == ELFDATA2LSB) == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)};
  const struct layout *l = h->l = e->is64 ? &L64 : &L32;
  if (e->is64 && size < sizeof(Elf64_Ehdr))
    return "truncated ELF header";
  if (rd(e, offsetof(Elf64_Ehdr, e_type), 2) != ET_REL)
    return "not a relocatable object";
#define EHDR(field)                                                            \
  (e->is64 ? offsetof(Elf64_Ehdr, field) : offsetof(Elf32_Ehdr, field))
  uint64_t shoff = h->shoff = rd(e, EHDR(e_shoff), l->w);
  unsigned shentsize = (unsigned)rd(e, EHDR(e_shentsize), 2);
  h->shnum = rd(e, EHDR(e_shnum), 2);
  h->shstrndx = rd(e, EHDR(e_shstrndx), 2);
#undef EHDR
  if (shentsize != l->shentsize || !in_bounds(e, shoff, l->shentsize))
    return "bad section header table";
  /* Past 0xff00 sections the real counts live in section header 0. */
  if (h->shnum == 0)
    h->shnum = rd(e, shoff + l->size, l->w);
  if (h->shstrndx == SHN_XINDEX)
    h->shstrndx = rd(e, shoff + l->link, 4);
  if (h->shnum > (e->size - shoff) / l->shentsize || h->shstrndx >= h->shnum)
    return "bad section header table";
  h->stroff = rd(e, SH(h->shstrndx, offset, l->w));
  h->strsize = rd(e, SH(h->shstrndx, size, l->w));
  if (!in_bounds(e, h->stroff, h->strsize))
    return "bad section name table";
  return NULL;
}

/* What sorting one file takes: the first five arrays hold up to shnum
 * items; the counting sorts' are sized once the entries are known. */
struct sort {
  struct entry *found;   /* entry and relocation sections, header order */
  struct entry *by_slot; /* the same by group: the slots each group holds */
  struct entry *by_rank; /* by group, each group in the order it gets */
  size_t n;              /* entries in each of the three */
  size_t *perm;          /* new header index of each section */
  unsigned char *copy;   /* the section headers before the move */
  struct klto_strmap table_ids; /* each table's name, numbered */
  size_t *group_start, *rank_head, *next; /* the counting sorts' */
};

static void sort_free(struct sort *s) {
  klto_strmap_free(&s->table_ids);
  free(s->group_start);
  free(s->rank_head);
  free(s->next);
  free(s->found);
  free(s->by_slot);
  free(s->by_rank);
  free(s->perm);
  free(s->copy);
}

/* Section `i` as an entry into *x; *is_entry false if it is no entry
 * section, nor an entry's relocations. Relocations follow the entry found
 * last, which LLD puts right before them. */
static const char *entry_of(const struct headers *h,
                            const struct klto_tables *tables,
                            const struct klto_strmap *ranks, struct sort *s,
                            size_t i, struct entry *x, bool *is_entry) {
  const struct elf *e = &h->e;
  const struct layout *l = h->l;
  uint64_t shoff = h->shoff;
  *is_entry = false;
  /* A relocation section takes the place of its section's: LLD wants each
   * after the section it relocates. */
  uint64_t type = rd(e, SH(i, type, 4));
  bool rela = type == SHT_REL || type == SHT_RELA;
  uint64_t target = rela ? rd(e, SH(i, info, 4)) : i;
  if (target >= h->shnum)
    return NULL;
  const struct entry *prev = s->n ? &s->found[s->n - 1] : NULL;
  if (rela && prev && !prev->rela && prev->index == target) {
    /* LLD puts a section's relocations right after it: what its name says
     * is known already. */
    x->section = prev->section;
    x->table = prev->table;
    x->rank = prev->rank;
    x->group = prev->group + 1;
  } else {
    uint64_t name = rd(e, SH(target, name, 4));
    if (name >= h->strsize)
      return NULL;
    const char *str = (const char *)e->p + h->stroff + name;
    x->section = (struct klto_str){str, strnlen(str, h->strsize - name)};
    struct klto_str id;
    if (x->section.n == h->strsize - name ||
        !klto_may_be_table(tables, x->section))
      return NULL;
    if (!klto_split_entry_section(tables, x->section, &x->table, &id)) {
      /* Entries built without ids, which LLD merged into one section. */
      if (!klto_is_table(tables, x->section))
        return NULL;
      x->table = x->section;
    }
    bool inserted;
    struct klto_strmap_slot *table_id = klto_strmap_insert(
        &s->table_ids, x->table, (long)s->table_ids.size, &inserted);
    if (!table_id)
      return "out of memory";
    x->rank = rank_of(ranks, x->section);
    x->group = 2 * (size_t)table_id->value + rela;
  }
  x->index = i;
  x->name = rd(e, SH(i, name, 4));
  x->prefix = 0;
  if (rela) {
    /* LLD names it ".rela<name>"; anything else keeps its name. */
    const char *pre = type == SHT_RELA ? ".rela" : ".rel";
    size_t np = strlen(pre), rn = x->name, len = x->section.n;
    const unsigned char *str = e->p + h->stroff;
    bool twin = rn < h->strsize && h->strsize - rn > np + len &&
                memcmp(str + rn, pre, np) == 0 &&
                memcmp(str + rn + np, x->section.p, len + 1) == 0;
    x->prefix = twin ? np : SIZE_MAX;
  }
  x->rela = rela;
  *is_entry = true;
  return NULL;
}

/* Every entry section and its relocations, in header order. */
static const char *collect_entries(const struct headers *h,
                                   const struct klto_tables *tables,
                                   const struct klto_strmap *ranks,
                                   struct sort *s) {
  for (size_t i = 0; i < h->shnum; ++i) {
    struct entry x;
    bool is_entry;
    const char *err = entry_of(h, tables, ranks, s, i, &x, &is_entry);
    if (err)
      return err;
    if (is_entry)
      s->found[s->n++] = x;
  }
  return NULL;
}

/*
 * perm: the header index each section moves to. Each group (a table's
 * entries, or their relocations) keeps the header slots it has; its
 * sections take them ranked ones by rank, then the unranked in header
 * order. Both orders are counting sorts: the sections were found in header
 * order, so a stable sort by group gives each group's slots (by_slot);
 * ranks are places in the computed order, so sorting by rank (a rank two
 * sections share keeps their header order), then stably by group, gives
 * the order the sections take them in (by_rank).
 */
static const char *build_permutation(const struct headers *h,
                                     struct sort *s) {
  size_t n = s->n, groups = 2 * s->table_ids.size;
  long max_rank = -1;
  for (size_t k = 0; k < n; ++k)
    if (s->found[k].rank > max_rank)
      max_rank = s->found[k].rank;
  s->group_start = calloc(groups + 1, sizeof(*s->group_start));
  /* One list head per rank; at least one, as malloc(0) may give NULL. */
  s->rank_head = malloc(((size_t)max_rank + 2) * sizeof(*s->rank_head));
  s->next = malloc(n * sizeof(*s->next));
  if (!s->group_start || !s->rank_head || !s->next)
    return "out of memory";
  size_t *group_start = s->group_start;
  for (size_t k = 0; k < n; ++k)
    ++group_start[s->found[k].group + 1];
  for (size_t g = 0; g < groups; ++g)
    group_start[g + 1] += group_start[g];
  size_t *fill = s->perm; /* free until the permutation is built */
  memcpy(fill, group_start, groups * sizeof(*fill));
  for (size_t k = 0; k < n; ++k)
    s->by_slot[fill[s->found[k].group]++] = s->found[k];
  for (long r = 0; r <= max_rank; ++r)
    s->rank_head[r] = SIZE_MAX;
  for (size_t k = n; k-- > 0;)
    if (s->found[k].rank >= 0) {
      s->next[k] = s->rank_head[s->found[k].rank];
      s->rank_head[s->found[k].rank] = k;
    }
  memcpy(fill, group_start, groups * sizeof(*fill));
  for (long r = 0; r <= max_rank; ++r)
    for (size_t k = s->rank_head[r]; k != SIZE_MAX; k = s->next[k])
      s->by_rank[fill[s->found[k].group]++] = s->found[k];
  for (size_t k = 0; k < n; ++k)
    if (s->found[k].rank < 0)
      s->by_rank[fill[s->found[k].group]++] = s->found[k];
  for (size_t i = 0; i < h->shnum; ++i)
    s->perm[i] = i;
  /* Both arrays group the tables alike, so position k pairs an entry with
   * the slot it takes. */
  for (size_t k = 0; k < n; ++k)
    s->perm[s->by_rank[k].index] = s->by_slot[k].index;
  return NULL;
}

/* LLD's input reader wants each relocation section after the section it
 * relocates: the permutation must keep that. */
static const char *check_relocations_follow(const struct headers *h,
                                            const struct sort *s) {
  const struct layout *l = h->l;
  uint64_t shoff = h->shoff;
  for (size_t k = 0; k < s->n; ++k) {
    if (!s->by_slot[k].rela)
      continue;
    size_t r = s->by_slot[k].index;
    if (s->perm[r] < s->perm[rd(&h->e, SH(r, info, 4))])
      return "its entry sections are not each followed by their relocations";
  }
  return NULL;
}

/* The section indices an extended index table or a group holds, in
 * [off, off + sz): each renumbered through perm. */
static const char *renumber_table(struct headers *h, const size_t *perm,
                                  uint64_t type, uint64_t off, uint64_t sz) {
  struct elf *e = &h->e;
  if (!in_bounds(e, off, sz))
    return "bad section index table";
  /* A group's first word is its flags. */
  for (uint64_t s = type == SHT_GROUP ? 4 : 0; s + 4 <= sz; s += 4) {
    uint64_t ndx = rd(e, off + s, 4);
    if (ndx != 0 && ndx < h->shnum)
      wr(e, off + s, 4, perm[ndx]);
  }
  return NULL;
}

/* The extended index table of the symbol table at header `symtab`, or
 * SIZE_MAX: the SHT_SYMTAB_SHNDX section linked to it. */
static size_t shndx_table_of(const struct headers *h, size_t symtab) {
  const struct elf *e = &h->e;
  const struct layout *l = h->l;
  uint64_t shoff = h->shoff;
  for (size_t i = 1; i < h->shnum; ++i)
    if (rd(e, SH(i, type, 4)) == SHT_SYMTAB_SHNDX &&
        rd(e, SH(i, link, 4)) == symtab)
      return i;
  return SIZE_MAX;
}

/* Renumbers the st_shndx of the symbol table at header `symtab` through
 * perm. Symbols with SHN_XINDEX were renumbered with their extended index
 * table; one whose section moves to SHN_LORESERVE or past it gets
 * SHN_XINDEX and its index in that table (which a file with that many
 * sections has). */
static const char *renumber_symbols(struct headers *h, const size_t *perm,
                                    size_t symtab) {
  struct elf *e = &h->e;
  const struct layout *l = h->l;
  uint64_t shoff = h->shoff;
  uint64_t off = rd(e, SH(symtab, offset, l->w));
  uint64_t sz = rd(e, SH(symtab, size, l->w));
  if (!in_bounds(e, off, sz))
    return "bad symbol table";
  size_t shndx = SIZE_MAX;
  uint64_t xoff = 0, xsz = 0;
  for (uint64_t s = 0; s + l->symsize <= sz; s += l->symsize) {
    uint64_t ndx = rd(e, off + s + l->st_shndx, 2);
    if (ndx == SHN_UNDEF || ndx >= SHN_LORESERVE || ndx >= h->shnum)
      continue;
    if (perm[ndx] < SHN_LORESERVE) {
      wr(e, off + s + l->st_shndx, 2, perm[ndx]);
      continue;
    }
    if (shndx == SIZE_MAX) {
      shndx = shndx_table_of(h, symtab);
      if (shndx == SIZE_MAX)
        return "a symbol's section moves past index 0xff00 and the symbol "
               "table has no extended index table";
      xoff = rd(e, SH(shndx, offset, l->w));
      xsz = rd(e, SH(shndx, size, l->w));
      if (!in_bounds(e, xoff, xsz))
        return "bad section index table";
    }
    uint64_t at = s / l->symsize * 4;
    if (at + 4 > xsz)
      return "the extended index table is shorter than the symbol table";
    wr(e, off + s + l->st_shndx, 2, SHN_XINDEX);
    wr(e, xoff + at, 4, perm[ndx]);
  }
  return NULL;
}

/* Moves every header to its new index, then renumbers each reference to a
 * section: sh_link, sh_info of relocations (and SHF_INFO_LINK), extended
 * index tables and groups, then symbols' st_shndx (which may move a
 * symbol into its extended index table, so after that table). */
static const char *move_headers(struct headers *h, struct sort *s) {
  struct elf *e = &h->e;
  const struct layout *l = h->l;
  uint64_t shoff = h->shoff, shnum = h->shnum;
  const size_t *perm = s->perm;
  memcpy(s->copy, e->p + shoff, shnum * l->shentsize);
  for (size_t i = 0; i < shnum; ++i)
    memcpy(e->p + shoff + perm[i] * l->shentsize, s->copy + i * l->shentsize,
           l->shentsize);
  for (size_t i = 0; i < shnum; ++i) {
    uint64_t type = rd(e, SH(i, type, 4));
    uint64_t link = rd(e, SH(i, link, 4));
    if (i != 0 && link != 0 && link < shnum)
      wr(e, SH(i, link, 4), perm[link]);
    uint64_t info = rd(e, SH(i, info, 4));
    bool info_link = rd(e, SH(i, flags, l->w)) & SHF_INFO_LINK;
    if ((type == SHT_REL || type == SHT_RELA || info_link) && info != 0 &&
        info < shnum)
      wr(e, SH(i, info, 4), perm[info]);
    if (type != SHT_SYMTAB_SHNDX && type != SHT_GROUP)
      continue;
    const char *err = renumber_table(h, perm, type, rd(e, SH(i, offset, l->w)),
                                     rd(e, SH(i, size, l->w)));
    if (err)
      return err;
  }
  for (size_t i = 1; i < shnum; ++i) {
    if (rd(e, SH(i, type, 4)) != SHT_SYMTAB)
      continue;
    const char *err = renumber_symbols(h, perm, i);
    if (err)
      return err;
  }
  if (perm[h->shstrndx] != h->shstrndx)
    return "the section name table moved";
  return NULL;
}

const char *klto_sort_relocatable(unsigned char *buf, size_t size,
                                  const struct klto_tables *tables,
                                  const struct klto_strmap *ranks) {
  struct headers h;
  const char *err = read_headers(buf, size, &h);
  if (err)
    return err;
  size_t shnum = h.shnum;
  struct sort s = {0};
  s.found = malloc(shnum * sizeof(*s.found));
  s.by_slot = malloc(shnum * sizeof(*s.by_slot));
  s.by_rank = malloc(shnum * sizeof(*s.by_rank));
  s.perm = malloc(shnum * sizeof(*s.perm));
  s.copy = malloc(shnum * h.l->shentsize);
  if (!s.found || !s.by_slot || !s.by_rank || !s.perm || !s.copy)
    err = "out of memory";
  if (!err)
    err = collect_entries(&h, tables, ranks, &s);
  if (!err && s.n) {
    err = build_permutation(&h, &s);
    if (!err)
      err = check_relocations_follow(&h, &s);
    if (!err)
      err = move_headers(&h, &s);
    if (!err)
      err = rename_to_tables(&h, s.by_slot, s.n);
  }
  sort_free(&s);
  return err;
}

#undef SH
