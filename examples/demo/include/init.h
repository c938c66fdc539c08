/* init.h - initcall registration as Linux wrote it before 5.12.
 *
 * Written for the klto demo in the style of include/linux/init.h: every
 * entry is either a static function-pointer variable in ".initcall<N>.init"
 * or, with CONFIG_HAVE_ARCH_PREL32_RELOCATIONS, a 32-bit offset emitted by
 * file-scope asm that names the (static) function. Neither form survives
 * Clang LTO unchanged; klto's plugin fixes both without touching this file. */
#ifndef DEMO_INIT_H
#define DEMO_INIT_H

typedef int (*initcall_t)(void);
#ifdef CONFIG_HAVE_ARCH_PREL32_RELOCATIONS
typedef int initcall_entry_t;
static inline initcall_t initcall_from_entry(const initcall_entry_t *entry) {
  return (initcall_t)((const char *)entry + *entry);
}
#else
typedef initcall_t initcall_entry_t;
static inline initcall_t initcall_from_entry(const initcall_entry_t *entry) {
  return *entry;
}
#endif

#define __PASTE_1(a, b) a##b
#define __PASTE(a, b) __PASTE_1(a, b)
#define __stringify_1(...) #__VA_ARGS__
#define __stringify(...) __stringify_1(__VA_ARGS__)
#define __UNIQUE_ID(prefix) __PASTE(__PASTE(__UNIQUE_ID_, prefix), __COUNTER__)
#define __used __attribute__((__used__))
#define __init __attribute__((__section__(".init.text"), __cold__))

/* Keeps a function that only asm references from being discarded. */
#define __ADDRESSABLE(sym)                                                     \
  static void *__attribute__((__section__(".discard.addressable"), __used__)) \
      __UNIQUE_ID(__addressable_##sym) = (void *)&sym;

#ifdef CONFIG_HAVE_ARCH_PREL32_RELOCATIONS
#define ___define_initcall(fn, id, __sec)                                      \
  __ADDRESSABLE(fn)                                                            \
  __asm__(".section \"" #__sec ".init\", \"a\"\n"                              \
          "__initcall_" #fn #id ":\n"                                          \
          ".long " #fn " - .\n"                                                \
          ".previous\n");
#else
#define ___define_initcall(fn, id, __sec)                                      \
  static initcall_t __initcall_##fn##id __used                                 \
      __attribute__((__section__(#__sec ".init"))) = fn;
#endif

#define __define_initcall(fn, id) ___define_initcall(fn, id, .initcall##id)

#define early_initcall(fn) __define_initcall(fn, early)
#define pure_initcall(fn) __define_initcall(fn, 0)
#define core_initcall(fn) __define_initcall(fn, 1)
#define postcore_initcall(fn) __define_initcall(fn, 2)
#define arch_initcall(fn) __define_initcall(fn, 3)
#define subsys_initcall(fn) __define_initcall(fn, 4)
#define subsys_initcall_sync(fn) __define_initcall(fn, 4s)
#define fs_initcall(fn) __define_initcall(fn, 5)
#define rootfs_initcall(fn) __define_initcall(fn, rootfs)
#define device_initcall(fn) __define_initcall(fn, 6)
#define late_initcall(fn) __define_initcall(fn, 7)
#define late_initcall_sync(fn) __define_initcall(fn, 7s)
#define console_initcall(fn) ___define_initcall(fn, , .con_initcall)

#endif
