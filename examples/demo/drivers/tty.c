#include "demo.h"

DEMO_INIT(init)
console_initcall(init);

DEMO_INIT(tty_init)
device_initcall(tty_init);

DEMO_INIT(tty_late)
late_initcall(tty_late);

DEMO_FIXUP(quirk)
DECLARE_PCI_FIXUP_FINAL(0x8086, 0x1234, quirk);
