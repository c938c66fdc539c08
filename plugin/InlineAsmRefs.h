//===- InlineAsmRefs.h - symbols of function-level asm ----------*- C++ -*-===//
#ifndef KLTO_PLUGIN_INLINEASMREFS_H
#define KLTO_PLUGIN_INLINEASMREFS_H

#include "NamingContext.h"

namespace klto {

/// Makes every symbol that function-level asm in this module names a
/// reference LTO sees, and every function whose asm defines symbols one LTO
/// neither drops nor copies. Returns whether it changed the module.
bool keepInlineAsmRefs(NamingContext &Ctx);

} // namespace klto

#endif // KLTO_PLUGIN_INLINEASMREFS_H
