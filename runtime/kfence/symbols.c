// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * Frames of a report: the module a PC lies in, that module's GNU build id,
 * the PC's offset in it, and the function symbol covering it.
 *
 * The module, its bias and its build id come from dl_iterate_phdr() and the
 * module's PT_NOTE segments, which are mapped: no file is read. The symbol
 * comes from dladdr1() (glibc's lookup of .dynsym: no heap, under the
 * loader's lock, which is recursive, so a fault raised inside the loader on
 * the same thread does not deadlock) and, where that finds none, from the
 * module's ELF file mapped for the lookup and its .symtab (open, mmap,
 * munmap: system calls, no heap), which also names the static functions
 * dladdr() cannot see. The module, build id and offset are what a stripped
 * production binary's report needs to be symbolized later, elsewhere
 * (tools/klto-kfence-symbolize).
 */
#define _GNU_SOURCE
#include "kfence_internal.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct module {
  uintptr_t pc, bias;
  const char *path;
  const struct dl_phdr_info *info;
  char build_id[KFENCE_BUILD_ID_MAX * 2 + 1];
};

/* The NT_GNU_BUILD_ID note of the module, in hex, if it has one. */
static void read_build_id(const struct dl_phdr_info *info, char *hex) {
  hex[0] = '\0';
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE)
      continue;
    /* Notes are padded to the segment's alignment: 8 for GNU property
     * notes, 4 for the build id's. */
    const unsigned align = ph->p_align == 8 ? 8 : 4;
    const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
    const char *end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
      const char *name = p + sizeof(*n);
      const unsigned char *desc =
          (const unsigned char *)name + ((n->n_namesz + align - 1) & ~(align - 1));
      const char *next =
          (const char *)desc + ((n->n_descsz + align - 1) & ~(align - 1));
      if (next > end)
        break;
      if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
          !memcmp(name, "GNU", 4) && n->n_descsz <= KFENCE_BUILD_ID_MAX) {
        static const char digits[] = "0123456789abcdef";
        for (unsigned b = 0; b < n->n_descsz; b++) {
          hex[2 * b] = digits[desc[b] >> 4];
          hex[2 * b + 1] = digits[desc[b] & 15];
        }
        hex[2 * n->n_descsz] = '\0';
        return;
      }
      p = next;
    }
  }
}

static int find_module(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct module *m = data;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_LOAD &&
        m->pc - (info->dlpi_addr + ph->p_vaddr) < ph->p_memsz) {
      m->bias = info->dlpi_addr;
      m->path = info->dlpi_name;
      read_build_id(info, m->build_id);
      return 1;
    }
  }
  return 0;
}

/* The function symbol covering @vaddr in the ELF file @path: .symtab if the
 * file has one, else .dynsym. */
static bool elf_symbol(const char *path, uintptr_t vaddr,
                       struct kfence_frame *sym) {
  int fd = kfence_sys_open(path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0)
    return false;
  struct stat st;
  void *map = MAP_FAILED;
  if (fstat(fd, &st) == 0 && (size_t)st.st_size >= sizeof(ElfW(Ehdr)))
    map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  kfence_sys_close(fd);
  if (map == MAP_FAILED)
    return false;
  const char *file = map;
  size_t file_size = (size_t)st.st_size;
  const ElfW(Ehdr) *eh = map;
  bool found = false;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
      eh->e_ident[EI_CLASS] !=
          (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
      eh->e_shentsize != sizeof(ElfW(Shdr)) ||
      eh->e_shoff + (size_t)eh->e_shnum * sizeof(ElfW(Shdr)) > file_size)
    goto out;
  const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(file + eh->e_shoff);
  const ElfW(Shdr) *table = NULL;
  for (int i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type == SHT_SYMTAB)
      table = &sh[i];
    else if (sh[i].sh_type == SHT_DYNSYM && !table)
      table = &sh[i];
  }
  if (!table || table->sh_link >= eh->e_shnum ||
      table->sh_offset + table->sh_size > file_size)
    goto out;
  const ElfW(Shdr) *strtab = &sh[table->sh_link];
  if (strtab->sh_offset + strtab->sh_size > file_size)
    goto out;
  const ElfW(Sym) *syms = (const ElfW(Sym) *)(file + table->sh_offset);
  size_t nr = table->sh_size / sizeof(ElfW(Sym));
  for (size_t i = 0; i < nr; i++) {
    const ElfW(Sym) *s = &syms[i];
    int type = ELF64_ST_TYPE(s->st_info);
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
        s->st_shndx == SHN_UNDEF || !s->st_size ||
        vaddr - s->st_value >= s->st_size || s->st_name >= strtab->sh_size)
      continue;
    const char *name = file + strtab->sh_offset + s->st_name;
    size_t max = strtab->sh_size - s->st_name;
    size_t len = strnlen(
        name, max < sizeof(sym->function) ? max : sizeof(sym->function) - 1);
    memcpy(sym->function, name, len);
    sym->function[len] = '\0';
    sym->function_offset = vaddr - s->st_value;
    sym->function_size = s->st_size;
    found = true;
    break;
  }
out:
  munmap(map, file_size);
  return found;
}

void kfence_resolve_frame(uintptr_t pc, struct kfence_frame *f) {
  memset(f, 0, sizeof(*f));
  f->pc = pc;
  struct module m = {.pc = pc};
  if (dl_iterate_phdr(find_module, &m)) {
    /* The main program's dlpi_name is "". */
    f->module = m.path && *m.path ? m.path : program_invocation_name;
    f->offset = pc - m.bias;
    memcpy(f->build_id, m.build_id, sizeof(f->build_id));
  }
  Dl_info info;
  const ElfW(Sym) *es = NULL;
  if (dladdr1((void *)pc, &info, (void **)&es, RTLD_DL_SYMENT) && es &&
      info.dli_sname && pc - (uintptr_t)info.dli_saddr < es->st_size) {
    size_t len = strnlen(info.dli_sname, sizeof(f->function) - 1);
    memcpy(f->function, info.dli_sname, len);
    f->function_offset = pc - (uintptr_t)info.dli_saddr;
    f->function_size = es->st_size;
    return;
  }
  if (f->module)
    elf_symbol(m.path && *m.path ? m.path : "/proc/self/exe", f->offset, f);
}

const char *kfence_module_basename(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}
