#include "demo.h"

DEMO_FIXUP(quirk)
DECLARE_PCI_FIXUP_FINAL(0x1af4, 0x1041, quirk);

/* A firmware-style table (as U-Boot or Zephyr keep one): asm names a
 * static probe function, which the driver also calls directly. ThinLTO
 * imports virtio_hotplug into main.c and renames (promotes) the static, so
 * the table's asm reference no longer resolves. */
__attribute__((noinline)) static int virtio_probe(void) {
  return demo_log(__FILE__, "virtio_probe");
}
DEMO_DRIVER(virtio_probe);

int virtio_hotplug(void) { return virtio_probe(); }
