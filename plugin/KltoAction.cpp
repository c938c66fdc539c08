//===- KltoAction.cpp - the Clang side of the klto plugin -----------------===//
//
// Loaded with -fplugin=kltoplugin.so: reads the plugin's options, has the
// front end collect what only it knows (FrontEndFacts.cpp), and registers
// the IR pass with this compiler instance's pass builder, so the pass runs
// in process with those facts and reports through Clang's diagnostics with
// real source locations (ClangReporter.cpp).
//
//===----------------------------------------------------------------------===//
#include "ClangReporter.h"
#include "FrontEndFacts.h"
#include "KltoPass.h"
#include "LLVMCompat.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace klto {

namespace {

class KltoAction : public PluginASTAction {
protected:
  bool ParseArgs(const CompilerInstance &CI,
                 const std::vector<std::string> &Args) override {
    DiagnosticsEngine &D = CI.getDiagnostics();
    std::string Error;
    bool OK =
        llvm::all_of(
            Args, [&](const std::string &A) { return Opts.parse(A, Error); }) &&
        Opts.finish(Error);
    if (!OK)
      D.Report(D.getCustomDiagID(DiagnosticsEngine::Error, "klto: %0"))
          << Error;
    else if (Opts.ShowHelp)
      llvm::outs() << Options::help();
    return OK;
  }

  ActionType getActionType() override { return AddBeforeMainAction; }

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef) override {
    auto Facts = std::make_shared<SourceFacts>();
    auto Diags = std::make_shared<ClangReporter>(CI, Opts.Verbose);
    compat::addPassBuilderCallback(
        CI.getCodeGenOpts(),
        [Opts = Opts, Facts, Diags](llvm::PassBuilder &PB) {
          registerKltoPass(PB, Opts, Facts, Diags);
        });
    return makeFrontEndFactsConsumer(CI, Facts, Diags);
  }

private:
  Options Opts;
};

} // namespace

} // namespace klto

static clang::FrontendPluginRegistry::Add<klto::KltoAction>
    X("klto", "LTO-safe linker-section tables and KFENCE hooks");
