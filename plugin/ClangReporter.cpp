//===- ClangReporter.cpp - the pass's diagnostics as Clang's --------------===//
#include "ClangReporter.h"

#include "clang/Frontend/CompilerInstance.h"
#include "llvm/IR/Function.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace klto {

ClangReporter::ClangReporter(CompilerInstance &CI, bool Verbose)
    : CI(CI), Verbose(Verbose),
      RemarksOn(CI.getCodeGenOpts().OptimizationRemark.patternMatches("klto")) {
}

void ClangReporter::report(Level L, Site Where, const llvm::Twine &Msg) {
  if (L == Level::Remark && !wantsRemarks())
    return;
  DiagnosticsEngine &D = CI.getDiagnostics();
  SourceLocation Loc = locate(Where);
  std::string Text = Msg.str();
  if (L == Level::Remark) {
    if (Verbose)
      llvm::errs() << "klto: " << describe(Loc) << Text << "\n";
    if (RemarksOn)
      D.Report(Loc,
               D.getCustomDiagID(DiagnosticsEngine::Remark, "%0 [-Rpass=klto]"))
          << Text;
    return;
  }
  D.Report(Loc, L == Level::Error
                    ? D.getCustomDiagID(DiagnosticsEngine::Error, "klto: %0")
                    : D.getCustomDiagID(DiagnosticsEngine::Warning, "klto: %0"))
      << Text;
}

SourceLocation ClangReporter::locate(Site Where) {
  if (Where.Decl >= 0 && static_cast<size_t>(Where.Decl) < DeclLocs.size())
    return DeclLocs[Where.Decl];
  if (Where.AsmLoc)
    return SourceLocation::getFromRawEncoding(
        static_cast<SourceLocation::UIntTy>(Where.AsmLoc));
  if (Where.Fn)
    return FunctionLocs.lookup(Where.Fn->getName());
  return SourceLocation();
}

std::string ClangReporter::describe(SourceLocation Loc) {
  if (Loc.isInvalid())
    return "";
  PresumedLoc P = CI.getSourceManager().getPresumedLoc(
      CI.getSourceManager().getExpansionLoc(Loc));
  if (P.isInvalid())
    return "";
  return (llvm::Twine(P.getFilename()) + ":" + llvm::Twine(P.getLine()) + ": ")
      .str();
}

} // namespace klto
