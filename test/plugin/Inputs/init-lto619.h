/* init-lto619.h - Linux 6.19's initcall ids: __KBUILD_MODNAME is "<mod>"
 * (kbuild no longer prefixes it) and __initcall_id() pastes kmod_ in front,
 * so the ids are kmod_<mod>__<counter>_<line>_<fn> as before. */
#include "init-lto512.h"
#undef __initcall_id
#define __initcall_id(fn)                                                      \
  __PASTE(kmod_, __PASTE(__KBUILD_MODNAME,                                     \
          __PASTE(__, __PASTE(__COUNTER__, __PASTE(_, __PASTE(__LINE__, __PASTE(_, fn)))))))
