//===- InlineAsmRefs.h - keep inline-asm-only symbols alive -----*- C++ -*-===//
#ifndef KLTO_PLUGIN_INLINEASMREFS_H
#define KLTO_PLUGIN_INLINEASMREFS_H

#include "NamingContext.h"

namespace klto {

/// Makes every global that function-level inline asm in this module names a
/// visible reference (llvm.compiler.used), declaring it if the IR does not.
void keepInlineAsmRefs(NamingContext &Ctx, const SourceFacts *Facts);

} // namespace klto

#endif // KLTO_PLUGIN_INLINEASMREFS_H
