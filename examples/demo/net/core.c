#include "demo.h"

DEMO_INIT(init)
subsys_initcall(init);

DEMO_INIT(net_sync)
subsys_initcall_sync(net_sync);

DEMO_INIT(net_dev_init)
device_initcall(net_dev_init);

DEMO_FIXUP(quirk)
DECLARE_PCI_FIXUP_FINAL(0x10ec, 0x8139, quirk);
