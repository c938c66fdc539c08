#include "demo.h"

DEMO_INIT(pci_arch_init)
arch_initcall(pci_arch_init);

DEMO_INIT(init)
postcore_initcall(init);

DEMO_FIXUP(quirk)
DECLARE_PCI_FIXUP_FINAL(0x1af4, 0x1000, quirk);
