/* demo.h - what every demo "module" needs. */
#ifndef DEMO_DEMO_H
#define DEMO_DEMO_H

#include "init.h"
#include "pci.h"

/* Prints which function of which file ran; returns 0 like an initcall. */
int demo_log(const char *file, const char *fn);

#define DEMO_INIT(fn)                                                          \
  static int __init fn(void) { return demo_log(__FILE__, #fn); }
#define DEMO_FIXUP(fn)                                                         \
  static void fn(struct pci_dev *dev) { demo_log(__FILE__, dev->name); }

/* A driver table without the kernel's macros: one PREL32 offset per
 * driver in section demo_drivers, walked with __start_/__stop_ symbols. */
#define DEMO_DRIVER(fn)                                                        \
  __asm__(".pushsection demo_drivers, \"a\"\n"                                \
          ".long " #fn " - .\n"                                               \
          ".popsection\n");

#endif
