//===- KltoPass.h - the klto module pass ------------------------*- C++ -*-===//
//
// One module pass, registered at the PipelineStart extension point so that it
// runs at every optimisation level and before -flto/-flto=thin write bitcode:
//   1. table entries get unique names and sections (C variables and asm),
//   2. asm references to statics go through stable stubs and aliases,
//   3. symbols only function-level inline asm names are kept alive,
//   4. (opt-in) allocation calls go to the KFENCE runtime.
// The module is marked when done, so the pass never runs twice on it.
//
//===----------------------------------------------------------------------===//
#ifndef KLTO_PLUGIN_KLTOPASS_H
#define KLTO_PLUGIN_KLTOPASS_H

#include "Options.h"
#include "Reporter.h"
#include "SourceFacts.h"

#include "llvm/IR/PassManager.h"

#include <memory>

namespace llvm {
class PassBuilder;
}

namespace klto {

class KltoPass : public llvm::PassInfoMixin<KltoPass> {
public:
  /// Facts and Diags are null when the pass runs without Clang.
  KltoPass(Options Opts, std::shared_ptr<const SourceFacts> Facts,
           std::shared_ptr<Reporter> Diags)
      : Opts(std::move(Opts)), Facts(std::move(Facts)),
        Diags(std::move(Diags)) {}

  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }

private:
  Options Opts;
  std::shared_ptr<const SourceFacts> Facts;
  std::shared_ptr<Reporter> Diags;
};

/// Adds the pass at PipelineStart.
void registerKltoPass(llvm::PassBuilder &PB, const Options &Opts,
                      std::shared_ptr<const SourceFacts> Facts,
                      std::shared_ptr<Reporter> Diags);

/// The named metadata that marks a module the pass changed, so that it
/// never runs on it again; the one thing the pass records.
inline constexpr const char *DoneMetadata = "klto.done";

} // namespace klto

#endif // KLTO_PLUGIN_KLTOPASS_H
