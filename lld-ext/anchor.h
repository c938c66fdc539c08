/*===- anchor.h - an empty .data section for INSERT AFTER to find ---------===*
 *
 * LLD rejects "INSERT AFTER .data" when no input has a .data section (a
 * -nostdlib program, or an LTO link whose code generator has not run yet
 * when the script is read). A relocatable object with one empty .data
 * section, for the same ELF class, byte order, machine and flags as the
 * link, makes the anchor exist without adding a byte to the output.
 *===----------------------------------------------------------------------===*/
#ifndef KLTO_LD_ANCHOR_H
#define KLTO_LD_ANCHOR_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct kl_elf_target {
  bool is64, big_endian;
  uint16_t machine;
  uint32_t flags;
};

/* Writes the object to `path`; false (errno set) if it cannot. */
bool kl_write_anchor(const char *path, const struct kl_elf_target *t);

#ifdef __cplusplus
}
#endif

#endif /* KLTO_LD_ANCHOR_H */
