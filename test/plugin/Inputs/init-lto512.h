/* init-lto512.h - initcalls the way Linux 5.12+ writes them for LTO, by hand:
 * __KBUILD_MODNAME + __COUNTER__ + __LINE__ ids, one section per entry, and
 * a global stub per PREL32 entry. klto must leave these exactly as they are. */
#ifndef TEST_INIT_LTO512_H
#define TEST_INIT_LTO512_H

typedef int (*initcall_t)(void);
#define __PASTE_1(a, b) a##b
#define __PASTE(a, b) __PASTE_1(a, b)
#define __stringify_1(...) #__VA_ARGS__
#define __stringify(...) __stringify_1(__VA_ARGS__)

#define __initcall_id(fn)                                                      \
  __PASTE(__KBUILD_MODNAME,                                                    \
          __PASTE(__, __PASTE(__COUNTER__, __PASTE(_, __PASTE(__LINE__, __PASTE(_, fn))))))
#define __initcall_name(prefix, __iid, id)                                     \
  __PASTE(__, __PASTE(prefix, __PASTE(__, __PASTE(__iid, id))))
#define __initcall_section(__sec, __iid) #__sec ".init.." #__iid
#define __initcall_stub(fn, __iid, id) __initcall_name(initstub, __iid, id)
#define __define_initcall_stub(__stub, fn)                                     \
  int __stub(void);                                                            \
  int __stub(void) { return fn(); }                                            \
  static void *__attribute__((section(".discard.addressable"), used))          \
      __PASTE(__addressable_, __stub) = (void *)&__stub;

#ifdef CONFIG_HAVE_ARCH_PREL32_RELOCATIONS
#define ____define_initcall(fn, __stub, __name, __sec)                         \
  __define_initcall_stub(__stub, fn)                                           \
  __asm__(".section \"" __sec "\", \"a\"\n" __stringify(__name) ":\n"          \
          ".long " __stringify(__stub) " - .\n"                                \
          ".previous\n");
#else
#define ____define_initcall(fn, __unused, __name, __sec)                       \
  static initcall_t __name __attribute__((used, section(__sec))) = fn;
#endif

#define __unique_initcall(fn, id, __sec, __iid)                                \
  ____define_initcall(fn, __initcall_stub(fn, __iid, id),                      \
                      __initcall_name(initcall, __iid, id),                    \
                      __initcall_section(__sec, __iid))
#define ___define_initcall(fn, id, __sec)                                      \
  __unique_initcall(fn, id, __sec, __initcall_id(fn))
#define __define_initcall(fn, id) ___define_initcall(fn, id, .initcall##id)

#define core_initcall(fn) __define_initcall(fn, 1)
#define device_initcall(fn) __define_initcall(fn, 6)
#define late_initcall_sync(fn) __define_initcall(fn, 7s)
#define console_initcall(fn) ___define_initcall(fn, con, .con_initcall)

#endif
