//===- ClangReporter.h - the pass's diagnostics as Clang's -------*- C++
//-*-===//
//
// Under Clang, the pass reports through the compiler instance's
// DiagnosticsEngine, at the file:line of the declaration the front end
// recorded (SourceFacts), and prints remarks under -Rpass=klto.
//
//===----------------------------------------------------------------------===//
#ifndef KLTO_PLUGIN_CLANGREPORTER_H
#define KLTO_PLUGIN_CLANGREPORTER_H

#include "Reporter.h"
#include "SourceFacts.h"

#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/StringMap.h"

namespace clang {
class CompilerInstance;
} // namespace clang

#include <string>
#include <vector>

namespace klto {

class ClangReporter : public Reporter {
public:
  ClangReporter(clang::CompilerInstance &CI, bool Verbose);

  void report(Level L, Site Where, const llvm::Twine &Msg) override;

  bool wantsRemarks() const { return Verbose || RemarksOn; }

  /// Locations of the recorded declarations, by SourceDecl index.
  std::vector<clang::SourceLocation> DeclLocs;
  /// Locations of defined functions by IR name. Filled only when remarks
  /// are wanted; the AST is gone by the time the pass reports
  /// (-clear-ast-before-backend), so it cannot be searched then.
  llvm::StringMap<clang::SourceLocation> FunctionLocs;

private:
  clang::SourceLocation locate(Site Where);
  std::string describe(clang::SourceLocation Loc);

  clang::CompilerInstance &CI;
  bool Verbose;
  bool RemarksOn;
};

} // namespace klto

#endif // KLTO_PLUGIN_CLANGREPORTER_H
