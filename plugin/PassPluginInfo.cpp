//===- PassPluginInfo.cpp - entry point for opt and -fpass-plugin ---------===//
//
// `opt -load-pass-plugin=kltoplugin.so -passes=klto` runs the pass on .ll
// input; `clang -fpass-plugin=kltoplugin.so` and `ld.lld
// --load-pass-plugin=` add it at PipelineStart. Options come from -klto-*
// flags (-mllvm under clang). The pass marks modules it has done, so a
// PipelineStart run at LTO time after a compile-time run changes nothing.
//
//===----------------------------------------------------------------------===//
#include "KltoPass.h"

#include "llvm/Passes/PassBuilder.h"
#include "LLVMCompat.h" // PassPlugin.h

using namespace llvm;

extern "C" LLVM_ATTRIBUTE_VISIBILITY_DEFAULT PassPluginLibraryInfo
llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "klto", "0.1", [](PassBuilder &PB) {
            // Loaded by Clang 17 for the Clang plugin (LLVMCompat.h).
            if (klto::compat::runDeferredPassBuilderCallbacks(PB))
              return;
            klto::Options Opts = klto::optionsFromCommandLine();
            klto::registerKltoPass(PB, Opts, nullptr, nullptr);
            PB.registerPipelineParsingCallback(
                [](StringRef Name, ModulePassManager &MPM,
                   ArrayRef<PassBuilder::PipelineElement>) {
                  if (Name != "klto")
                    return false;
                  MPM.addPass(klto::KltoPass(klto::optionsFromCommandLine(),
                                             nullptr, nullptr));
                  return true;
                });
          }};
}
