/* main.c - boots the demo "kernel": runs its initcalls level by level, its
 * console initcalls, then applies PCI fixups to a fixed list of devices,
 * printing each step the way initcall_debug would. */
#include "demo.h"

#include <stdio.h>

int demo_log(const char *file, const char *fn) {
  printf("  %s: %s\n", file, fn);
  return 0;
}

/* Boundaries the linker script (or klto's ld.lld) defines. */
extern const initcall_entry_t __initcall_start[], __initcall0_start[],
    __initcall1_start[], __initcall2_start[], __initcall3_start[],
    __initcall4_start[], __initcall5_start[], __initcall6_start[],
    __initcall7_start[], __initcall_end[];
extern const initcall_entry_t __con_initcall_start[], __con_initcall_end[];
extern const struct pci_fixup __start_pci_fixups_final[],
    __end_pci_fixups_final[];

static const initcall_entry_t *const levels[] = {
    __initcall_start,  __initcall0_start, __initcall1_start,
    __initcall2_start, __initcall3_start, __initcall4_start,
    __initcall5_start, __initcall6_start, __initcall7_start,
    __initcall_end,
};
static const char *const level_names[] = {"early", "0", "1", "2", "3",
                                          "4",     "5", "6", "7"};

static struct pci_dev devices[] = {
    {0x8086, 0x1234, "pci 0000:00:01.0"},
    {0x10ec, 0x8139, "pci 0000:00:02.0"},
    {0x1af4, 0x1000, "pci 0000:00:03.0"},
    {0x1af4, 0x1041, "pci 0000:00:04.0"},
};
extern const int __start_demo_drivers[], __stop_demo_drivers[];
int virtio_hotplug(void);

int main(void) {
  for (unsigned l = 0; l + 1 < sizeof(levels) / sizeof(levels[0]); ++l) {
    printf("initcall level %s\n", level_names[l]);
    for (const initcall_entry_t *e = levels[l]; e < levels[l + 1]; ++e)
      initcall_from_entry(e)();
  }
  printf("console initcalls\n");
  for (const initcall_entry_t *e = __con_initcall_start;
       e < __con_initcall_end; ++e)
    initcall_from_entry(e)();
  printf("pci fixups (final)\n");
  for (unsigned d = 0; d < sizeof(devices) / sizeof(devices[0]); ++d)
    for (const struct pci_fixup *f = __start_pci_fixups_final;
         f < __end_pci_fixups_final; ++f)
      if (f->vendor == devices[d].vendor && f->device == devices[d].device)
        pci_fixup_hook(f)(&devices[d]);
  printf("drivers\n");
  for (const int *d = __start_demo_drivers; d < __stop_demo_drivers; ++d)
    ((int (*)(void))((const char *)d + *d))();
  printf("hotplug\n");
  return virtio_hotplug();
}
