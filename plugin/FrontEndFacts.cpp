//===- FrontEndFacts.cpp - what only the front end knows ------------------===//
//
// The AST side of the plugin: KBUILD_MODNAME, the source order and
// expansion lines of entry variables and file-scope asm, collected into
// SourceFacts for the pass (FrontEndFacts.h).
//
//===----------------------------------------------------------------------===//
#include "FrontEndFacts.h"
#include "LLVMCompat.h"

#include "klto/LLVMAdapter.h"
#include "klto/naming.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Mangle.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/Function.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace klto {

namespace {

class KltoConsumer : public ASTConsumer {
public:
  KltoConsumer(CompilerInstance &CI, std::shared_ptr<SourceFacts> Facts,
               std::shared_ptr<ClangReporter> Diags)
      : CI(CI), Facts(std::move(Facts)), Diags(std::move(Diags)) {}

  bool HandleTopLevelDecl(DeclGroupRef DG) override {
    for (Decl *D : DG)
      record(D);
    return true;
  }

  void HandleTranslationUnit(ASTContext &Ctx) override {
    Facts->KbuildModName = kbuildModName();
    SourceManager &SM = CI.getSourceManager();
    if (OptionalFileEntryRef F = SM.getFileEntryRefForID(SM.getMainFileID()))
      Facts->MainFile = F->getName().str();
    if (Diags->wantsRemarks())
      recordFunctionLocations(Ctx.getTranslationUnitDecl());
  }

private:
  void record(Decl *D) {
    if (auto *LS = dyn_cast<LinkageSpecDecl>(D)) {
      for (Decl *Sub : LS->decls())
        record(Sub);
      return;
    }
    SourceManager &SM = CI.getSourceManager();
    if (auto *AD = dyn_cast<FileScopeAsmDecl>(D)) {
      add({SourceDecl::AsmStatement, "", compat::fileScopeAsmString(*AD),
           SM.getExpansionLineNumber(AD->getAsmLoc())},
          AD->getAsmLoc());
      return;
    }
    auto *VD = dyn_cast<VarDecl>(D);
    if (!VD || !VD->hasAttr<SectionAttr>() || !VD->hasGlobalStorage())
      return;
    add({SourceDecl::Variable, nameGenerator().getName(VD), "",
         SM.getExpansionLineNumber(VD->getLocation())},
        VD->getLocation());
  }

  void recordFunctionLocations(DeclContext *DC) {
    for (Decl *D : DC->decls()) {
      if (auto *LS = dyn_cast<LinkageSpecDecl>(D))
        recordFunctionLocations(LS);
      else if (auto *FD = dyn_cast<FunctionDecl>(D))
        if (FD->doesThisDeclarationHaveABody() && !FD->isDependentContext())
          Diags->FunctionLocs[nameGenerator().getName(FD)] = FD->getLocation();
    }
  }

  ASTNameGenerator &nameGenerator() {
    if (!Names)
      Names = std::make_unique<ASTNameGenerator>(CI.getASTContext());
    return *Names;
  }

  void add(SourceDecl D, SourceLocation Loc) {
    Facts->Decls.push_back(std::move(D));
    Diags->DeclLocs.push_back(Loc);
  }

  /// __KBUILD_MODNAME (Linux 5.12+, already "kmod_..."), else
  /// KBUILD_MODNAME ("\"foo\"", or KBUILD_STR(foo) in barebox and U-Boot)
  /// through Linux's name-fix.
  std::string kbuildModName() {
    Preprocessor &PP = CI.getPreprocessor();
    for (const char *Macro : {"__KBUILD_MODNAME", "KBUILD_MODNAME"}) {
      const MacroInfo *MI = PP.getMacroInfo(PP.getIdentifierInfo(Macro));
      if (!MI || MI->getNumTokens() == 0 ||
          (Macro[0] == '_' && MI->getNumTokens() != 1))
        continue;
      std::string Spelling;
      for (const Token &T : MI->tokens())
        Spelling += PP.getSpelling(T);
      if (Macro[0] == '_' && klto_is_symbol_name(toKStr(Spelling)))
        return Spelling;
      char Buf[512];
      size_t N = klto_kbuild_modname(Buf, sizeof(Buf), toKStr(Spelling));
      return std::string(Buf, std::min(N, sizeof(Buf) - 1));
    }
    return "";
  }

  CompilerInstance &CI;
  std::shared_ptr<SourceFacts> Facts;
  std::shared_ptr<ClangReporter> Diags;
  std::unique_ptr<ASTNameGenerator> Names;
};

} // namespace

std::unique_ptr<ASTConsumer>
makeFrontEndFactsConsumer(CompilerInstance &CI,
                          std::shared_ptr<SourceFacts> Facts,
                          std::shared_ptr<ClangReporter> Diags) {
  return std::make_unique<KltoConsumer>(CI, std::move(Facts), std::move(Diags));
}

} // namespace klto
