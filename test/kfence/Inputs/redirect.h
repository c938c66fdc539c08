/* What the klto plugin does to allocation calls, done by the preprocessor:
 * test programs include this instead of being built with the plugin. */
#ifndef KFENCE_TEST_REDIRECT_H
#define KFENCE_TEST_REDIRECT_H
#include <kfence.h>
#include <malloc.h>
#include <stdlib.h>
#define malloc __kfence_malloc
#define calloc __kfence_calloc
#define realloc __kfence_realloc
#define reallocarray __kfence_reallocarray
#define free __kfence_free
#define aligned_alloc __kfence_aligned_alloc
#define posix_memalign __kfence_posix_memalign
#define memalign __kfence_memalign
#define valloc __kfence_valloc
#define pvalloc __kfence_pvalloc
#define malloc_usable_size __kfence_malloc_usable_size
#endif
