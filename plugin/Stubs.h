//===- Stubs.h - stable global names for statics that asm names -*- C++ -*-===//
#ifndef KLTO_PLUGIN_STUBS_H
#define KLTO_PLUGIN_STUBS_H

#include "llvm/ADT/StringRef.h"

namespace llvm {
class GlobalAlias;
class GlobalValue;
} // namespace llvm

namespace klto {

/// A hidden global alias `Name` for a static function or variable that asm
/// names; the caller keeps it alive through llvm.compiler.used (one append
/// for all of them: each append copies the whole list). Returns the
/// existing one if a previous run made it.
llvm::GlobalValue *getOrCreateStableName(llvm::GlobalValue &Target,
                                         llvm::StringRef Name);

} // namespace klto

#endif // KLTO_PLUGIN_STUBS_H
