//===- Stubs.h - stable global names for statics that asm names -*- C++ -*-===//
#ifndef KLTO_PLUGIN_STUBS_H
#define KLTO_PLUGIN_STUBS_H

#include "llvm/ADT/StringRef.h"

namespace llvm {
class Function;
class GlobalValue;
} // namespace llvm

namespace klto {

/// A global function `Name` that tail-calls `Target` with all its arguments:
/// same type, attributes and section, kept alive through llvm.compiler.used.
/// Returns the existing one if a previous run made it.
llvm::Function *getOrCreateStub(llvm::Function &Target, llvm::StringRef Name);

/// A global alias `Name` for a static variable (or alias) named in asm.
llvm::GlobalValue *getOrCreateAlias(llvm::GlobalValue &Target,
                                    llvm::StringRef Name);

} // namespace klto

#endif // KLTO_PLUGIN_STUBS_H
