//===- LLVMCompat.h - LLVM API differences, LLVM 17 to 22 ------*- C++ -*-===//
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

#include "llvm/ADT/StringRef.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

// The pass plugin entry point moved from Passes/ to Plugins/ in LLVM 22.
#if LLVM_VERSION_MAJOR >= 22
#include "llvm/Plugins/PassPlugin.h"
#else
#include "llvm/Passes/PassPlugin.h"
#endif

#include <algorithm>
#include <dlfcn.h>
#include <functional>
#include <string>
#include <vector>

namespace llvm {
class MCSymbol;
class PassBuilder;
} // namespace llvm

namespace klto::compat {

/// Sets the module's target triple from its text.
inline void setTargetTriple(llvm::Module &M, llvm::StringRef Triple) {
#if LLVM_VERSION_MAJOR >= 21
  M.setTargetTriple(llvm::Triple(Triple));
#else
  M.setTargetTriple(Triple);
#endif
}

/// The target triple as TargetRegistry's lookup and factories take it: a
/// Triple from LLVM 22 on (their text overloads are deprecated there), its
/// text before (the Triple overloads are not all there).
#if LLVM_VERSION_MAJOR >= 22
inline const llvm::Triple &registryTriple(const llvm::Triple &TT) { return TT; }
#else
inline std::string registryTriple(const llvm::Triple &TT) { return TT.str(); }
#endif

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

/// What the Clang plugin adds to this compile's PassBuilder.
using PassBuilderCallback = std::function<void(llvm::PassBuilder &)>;

/// The callbacks set aside for the pass plugin entry point to run (LLVM 17;
/// always empty from 18 on). One compile per process, so one list.
inline std::vector<PassBuilderCallback> &deferredPassBuilderCallbacks() {
  static std::vector<PassBuilderCallback> Callbacks;
  return Callbacks;
}

/// Has `CB` called with the PassBuilder that runs this compile's
/// optimization pipeline. Clang 18 on keep such callbacks in CodeGenOptions
/// (PassBuilderCallbacks). Clang 17 has no such list, only the paths of
/// -fpass-plugin=: this shared object adds its own path there, and Clang
/// loads it again as a pass plugin (dlopen hands back the loaded object, so
/// the callbacks set aside here are still there) and calls its
/// llvmGetPassPluginInfo, which runs them (runDeferredPassBuilderCallbacks).
/// A template, so that this header needs no Clang header.
template <typename CodeGenOptions>
void addPassBuilderCallback(CodeGenOptions &CGO, PassBuilderCallback CB) {
#if LLVM_VERSION_MAJOR >= 18
  CGO.PassBuilderCallbacks.push_back(std::move(CB));
#else
  Dl_info Info;
  if (!dladdr(reinterpret_cast<void *>(&deferredPassBuilderCallbacks), &Info) ||
      !Info.dli_fname)
    return;
  std::string Self = Info.dli_fname;
  if (std::find(CGO.PassPlugins.begin(), CGO.PassPlugins.end(), Self) ==
      CGO.PassPlugins.end())
    CGO.PassPlugins.push_back(Self);
  deferredPassBuilderCallbacks().push_back(std::move(CB));
#endif
}

/// Run by the pass plugin entry point: calls the callbacks the Clang plugin
/// set aside for this compile (LLVM 17) and returns whether there were any,
/// in which case they, not the -klto-* command line, say what the pass does.
inline bool runDeferredPassBuilderCallbacks(llvm::PassBuilder &PB) {
  std::vector<PassBuilderCallback> &Callbacks = deferredPassBuilderCallbacks();
  for (const PassBuilderCallback &CB : Callbacks)
    CB(PB);
  return !Callbacks.empty();
}

} // namespace klto::compat

#endif // KLTO_PLUGIN_LLVMCOMPAT_H
