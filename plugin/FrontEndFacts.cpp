//===- FrontEndFacts.cpp - what only the front end knows ------------------===//
//
// The AST side of the plugin: KBUILD_MODNAME, the source order and
// expansion lines of entry variables and file-scope asm, and the
// declarations function-level asm names, collected into SourceFacts for
// the pass (FrontEndFacts.h).
//
//===----------------------------------------------------------------------===//
#include "FrontEndFacts.h"

#include "klto/LLVMAdapter.h"
#include "klto/asmrewrite.h"
#include "klto/naming.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/TargetInfo.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Function.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace klto {

namespace {

/// Finds the names function-level asm uses that the translation unit
/// declares with external linkage.
class InlineAsmVisitor : public RecursiveASTVisitor<InlineAsmVisitor> {
public:
  InlineAsmVisitor(ASTContext &Ctx, SourceFacts &Facts)
      : Ctx(Ctx), Facts(Facts),
        Dialect(klto_asm_dialect_for_triple(
            Ctx.getTargetInfo().getTriple().str().c_str())) {}

  bool VisitGCCAsmStmt(GCCAsmStmt *S) {
    StringRef Asm = S->getAsmString()->getString();
    klto_asm_operand_names(Asm.data(), Asm.size(), Dialect, true, onName, this);
    return true;
  }

private:
  static void onName(void *P, klto_str Name) {
    auto *Self = static_cast<InlineAsmVisitor *>(P);
    StringRef N(Name.p, Name.n);
    if (!Self->Seen.insert(N).second)
      return;
    for (NamedDecl *ND :
         Self->Ctx.getTranslationUnitDecl()->lookup(&Self->Ctx.Idents.get(N))) {
      const auto *VD = dyn_cast<ValueDecl>(ND);
      if (!VD || !VD->isExternallyVisible() ||
          !(isa<FunctionDecl>(VD) || isa<VarDecl>(VD)))
        continue;
      Self->Facts.InlineAsmRefs.push_back({N.str(), isa<FunctionDecl>(VD)});
      return;
    }
  }

  ASTContext &Ctx;
  SourceFacts &Facts;
  klto_asm_dialect Dialect;
  llvm::StringSet<> Seen;
};

class KltoConsumer : public ASTConsumer {
public:
  KltoConsumer(CompilerInstance &CI, std::shared_ptr<SourceFacts> Facts,
               std::shared_ptr<ClangReporter> Diags, bool KeepAsmRefs)
      : CI(CI), Facts(std::move(Facts)), Diags(std::move(Diags)),
        KeepAsmRefs(KeepAsmRefs) {}

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
    if (KeepAsmRefs)
      InlineAsmVisitor(Ctx, *Facts).TraverseDecl(Ctx.getTranslationUnitDecl());
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
      add({SourceDecl::AsmStatement, "", AD->getAsmString()->getString().str(),
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
  bool KeepAsmRefs;
  std::unique_ptr<ASTNameGenerator> Names;
};

} // namespace

std::unique_ptr<ASTConsumer> makeFrontEndFactsConsumer(
    CompilerInstance &CI, std::shared_ptr<SourceFacts> Facts,
    std::shared_ptr<ClangReporter> Diags, bool KeepAsmRefs) {
  return std::make_unique<KltoConsumer>(CI, std::move(Facts), std::move(Diags),
                                        KeepAsmRefs);
}

} // namespace klto
