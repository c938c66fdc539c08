//===- LLVMReporter.cpp - diagnostics when the pass runs without Clang ----===//
//
// Under opt or -fpass-plugin there is no source manager: errors and warnings
// go through the LLVMContext (so opt fails on an error), remarks through the
// optimization-remark machinery (-pass-remarks=klto), named after the
// module's source file.
//
//===----------------------------------------------------------------------===//
#include "Reporter.h"

#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace klto {

namespace {

class LLVMReporter : public Reporter {
public:
  LLVMReporter(LLVMContext &Ctx, std::string File, bool Verbose)
      : Ctx(Ctx), File(std::move(File)), Verbose(Verbose) {}

  void report(Level L, Site Where, const Twine &Msg) override {
    std::string Text = (File + ": " + Msg).str();
    if (L == Level::Remark) {
      if (Verbose)
        errs() << "klto: " << Text << "\n";
      if (Where.Fn) {
        OptimizationRemarkEmitter ORE(Where.Fn);
        ORE.emit(OptimizationRemark("klto", "Rewrite", Where.Fn) << Msg.str());
      }
      return;
    }
    // The problems are all about asm, and LLVM before 20 has no generic
    // diagnostic class: the inline-asm one prints the message as given.
    // Location cookie 0 is "no source line", the only form of its
    // constructor every LLVM from 17 to 22 has.
    Twine T(Text);
    Ctx.diagnose(DiagnosticInfoInlineAsm(
        0, T, L == Level::Error ? DS_Error : DS_Warning));
  }

private:
  LLVMContext &Ctx;
  std::string File;
  bool Verbose;
};

} // namespace

std::unique_ptr<Reporter> makeLLVMReporter(LLVMContext &Ctx, std::string File,
                                           bool Verbose) {
  return std::make_unique<LLVMReporter>(Ctx, std::move(File), Verbose);
}

} // namespace klto
