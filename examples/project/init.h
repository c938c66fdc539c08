/* init.h - a table of init functions in the linker section "inits", the
 * pattern firmware and plugin registries use: every file registers its
 * functions where it defines them, and main() runs the table in link
 * order. Under LTO that order is lost; the klto plugin (with
 * table=inits) and klto's ld.lld (with --kinit-order --kinit-table=inits)
 * keep it. */
#ifndef INIT_H
#define INIT_H

typedef void (*init_fn)(void);

#define register_init(fn)                                                      \
  static init_fn __init_##fn __attribute__((used, section("inits"))) = fn

/* The linker defines these for a section whose name is a C identifier. */
extern init_fn __start_inits[], __stop_inits[];

#endif
