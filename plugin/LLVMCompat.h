//===- LLVMCompat.h - the LLVM API the plugin uses, LLVM 17 to 22 -*- C++ -*-===//
//
// klto builds against one LLVM major at a time, any of 17 to 22 (the
// top-level CMakeLists.txt says which). Where LLVM's API the plugin uses
// differs between them, the difference is adapted here, once; the rest of
// the plugin is written against what this header provides. What both
// halves need, the module's triple, is in klto/LLVMAdapter.h; the linker
// needs nothing else adapted.
//
//===----------------------------------------------------------------------===//
#ifndef KLTO_PLUGIN_LLVMCOMPAT_H
#define KLTO_PLUGIN_LLVMCOMPAT_H

#include "llvm/Config/llvm-config.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

// The pass plugin entry point moved from Passes/ to Plugins/ in LLVM 22.
#if LLVM_VERSION_MAJOR >= 22
#include "llvm/Plugins/PassPlugin.h"
#else
#include "llvm/Passes/PassPlugin.h"
#endif

#include <string>

namespace llvm {
class MCSymbol;
}

namespace klto::compat {

/// Sets the module's target triple from its text.
inline void setTargetTriple(llvm::Module &M, llvm::StringRef Triple) {
#if LLVM_VERSION_MAJOR >= 21
  M.setTargetTriple(llvm::Triple(Triple));
#else
  M.setTargetTriple(Triple);
#endif
}

/// The text of a file-scope asm statement (clang::FileScopeAsmDecl): a
/// StringLiteral up to Clang 20, a std::string (the statement may be a
/// constant expression) from 21 on. A template, so that the pass's files
/// need no Clang header.
template <typename FileScopeAsmDecl>
std::string fileScopeAsmString(const FileScopeAsmDecl &D) {
#if LLVM_VERSION_MAJOR >= 21
  return D.getAsmString();
#else
  return D.getAsmString()->getString().str();
#endif
}

/// The symbol an entry of MCContext::getSymbols() names, or null: the
/// entry's value up to LLVM 18, its MCSymbolTableEntry's Symbol from 19 on.
/// A template, so that this header needs no MC header.
template <typename SymbolTableEntry>
const llvm::MCSymbol *symbolOf(const SymbolTableEntry &E) {
#if LLVM_VERSION_MAJOR >= 19
  return E.getValue().Symbol;
#else
  return E.getValue();
#endif
}

/// Branch weights for a condition that is rarely true: MDBuilder has them
/// from LLVM 19 on; before, the same weights (BranchProbabilityInfo's
/// unreachable-not-taken weight, 2^20 - 1 to 1) are spelled out.
inline llvm::MDNode *unlikelyBranchWeights(llvm::LLVMContext &Ctx) {
#if LLVM_VERSION_MAJOR >= 19
  return llvm::MDBuilder(Ctx).createUnlikelyBranchWeights();
#else
  return llvm::MDBuilder(Ctx).createBranchWeights(1, (1U << 20) - 1);
#endif
}

} // namespace klto::compat

#endif // KLTO_PLUGIN_LLVMCOMPAT_H
