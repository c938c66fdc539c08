/* pci.h - PCI fixup tables as Linux declared them before 5.12.
 *
 * A fixup names a (usually static) hook; with PREL32 relocations the entry
 * is emitted by file-scope asm, which LTO's renaming of statics breaks. */
#ifndef DEMO_PCI_H
#define DEMO_PCI_H

#include "init.h"

struct pci_dev {
  unsigned short vendor, device;
  const char *name;
};

#ifdef CONFIG_HAVE_ARCH_PREL32_RELOCATIONS
struct pci_fixup {
  unsigned short vendor, device;
  unsigned int class_, class_shift;
  int hook_offset;
};
static inline void (*pci_fixup_hook(const struct pci_fixup *f))(struct pci_dev *) {
  return (void (*)(struct pci_dev *))((const char *)&f->hook_offset +
                                      f->hook_offset);
}
#define DECLARE_PCI_FIXUP_SECTION(sec, name, vendor, device, hook)             \
  __ADDRESSABLE(hook)                                                          \
  __asm__(".section " #sec ", \"a\"\n"                                         \
          ".balign 16\n"                                                       \
          ".short " #vendor ", " #device "\n"                                  \
          ".long 0, 0\n"                                                       \
          ".long " #hook " - .\n"                                              \
          ".previous\n");
#else
struct pci_fixup {
  unsigned short vendor, device;
  unsigned int class_, class_shift;
  void (*hook)(struct pci_dev *);
};
static inline void (*pci_fixup_hook(const struct pci_fixup *f))(struct pci_dev *) {
  return f->hook;
}
#define DECLARE_PCI_FIXUP_SECTION(sec, name, vendor, device, hook)             \
  static const struct pci_fixup __PASTE(__pci_fixup_##name, __LINE__) __used  \
      __attribute__((__section__(#sec), __aligned__(sizeof(void *)))) = {      \
          vendor, device, 0, 0, hook};
#endif

#define DECLARE_PCI_FIXUP_FINAL(vendor, device, hook)                          \
  DECLARE_PCI_FIXUP_SECTION(.pci_fixup_final, hook##vendor##device, vendor,    \
                            device, hook)

#endif
