//===- Reporter.h - the plugin's diagnostics and their sites ----*- C++ -*-===//
//
// The pass reports through this interface: under Clang (KltoAction.cpp) as
// Clang diagnostics with the file:line of the declaration the front end
// recorded, without Clang (LLVMReporter.cpp) as LLVM diagnostics and
// remarks.
//
//===----------------------------------------------------------------------===//
#ifndef KLTO_PLUGIN_REPORTER_H
#define KLTO_PLUGIN_REPORTER_H

#include "llvm/ADT/Twine.h"

#include <cstdint>
#include <memory>
#include <string>

namespace llvm {
class Function;
class LLVMContext;
} // namespace llvm

namespace klto {

/// Where a diagnostic points: a recorded declaration, else an asm
/// statement's !srcloc (Clang's raw source location), else a function.
struct Site {
  int Decl = -1;
  const llvm::Function *Fn = nullptr;
  uint64_t AsmLoc = 0;
};

class Reporter {
public:
  enum class Level { Remark, Warning, Error };
  virtual ~Reporter() = default;
  virtual void report(Level L, Site Where, const llvm::Twine &Msg) = 0;
};

/// A reporter for runs without Clang: LLVM diagnostics and remarks.
std::unique_ptr<Reporter> makeLLVMReporter(llvm::LLVMContext &Ctx,
                                           std::string File, bool Verbose);

} // namespace klto

#endif // KLTO_PLUGIN_REPORTER_H
