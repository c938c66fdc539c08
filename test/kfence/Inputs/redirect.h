/* What the klto plugin does to allocation calls, done by asm labels: test
 * programs include this instead of being built with the plugin. Each
 * malloc-family function of kfence_malloc.def is declared again under its
 * hook's symbol, so a call to malloc links to __kfence_malloc. */
#ifndef KFENCE_TEST_REDIRECT_H
#define KFENCE_TEST_REDIRECT_H
#include <kfence.h>
#include <malloc.h>
#include <stdlib.h>
#define KFENCE_ALLOC(ret, name, params, args)                                  \
  ret name params __asm__("__kfence_" #name);
#define KFENCE_FREE(name, params, args)                                        \
  void name params __asm__("__kfence_" #name);
#include <kfence_malloc.def>
#endif
