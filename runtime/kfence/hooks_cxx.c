// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * The C++ allocation hooks the plugin sends operator new and delete to
 * when asked (-fplugin-arg-klto-kfence-cxx). A sampled allocation comes from
 * the pool; every other one goes to the C++ library's own operator, which
 * keeps new's contract (new_handler, std::bad_alloc) that C cannot give.
 * A separate object of libkfence.a: C programs never pull it in, so they
 * need no C++ library.
 *
 * The operators are kfence_cxx.def's, which the plugin's redirection is
 * made from too: the hook of operator X is __kfence + X without its
 * leading underscore ("_Znwm" -> "__kfence_Znwm").
 *
 * Fast path: kfence_sample_hit() (one decrement and a predictable branch)
 * then the C++ library's operator; delete: kfence_free_if_guarded() (one
 * compare against the free threshold) then the C++ library's operator.
 */
#include "kfence_internal.h"

#include <stddef.h>

#define CALLER __builtin_return_address(0)

static inline void *sampled(size_t size, size_t align, const void *caller) {
  if (kfence_sample_hit())
    return kfence_alloc_sampled(size, align, false, caller, true);
  return NULL;
}

/* "const std::nothrow_t &" and "std::align_val_t" as C sees them. */
typedef const void *nothrow_ref;
typedef size_t align_val;

/*
 * libkfence-hooks.so is loaded into C programs too: its references to the
 * C++ library are weak there, so that they need no C++ library to load
 * (also with LD_BIND_NOW). Only C++ code calls these hooks, and a module
 * that does has the C++ library.
 */
#ifdef KFENCE_HOOKS_SHARED
#define CXX_LIBRARY __attribute__((weak))
#else
#define CXX_LIBRARY
#endif

#define KFENCE_NEW(op, params, size, align, args)                             \
  CXX_LIBRARY void *_##op params;                                              \
  void *__kfence_##op params;                                                  \
  void *__kfence_##op params {                                                 \
    void *p = sampled(size, align, CALLER);                                    \
    return p ? p : _##op args;                                                 \
  }

#define KFENCE_DELETE(op, params, ptr, args)                                  \
  CXX_LIBRARY void _##op params;                                               \
  void __kfence_##op params;                                                   \
  void __kfence_##op params {                                                  \
    if (!kfence_free_if_guarded(ptr, CALLER))                                  \
      _##op args;                                                              \
  }

#include "kfence_cxx.def"
