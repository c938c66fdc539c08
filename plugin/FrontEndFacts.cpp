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

#include <optional>

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

  /// The modname the kernel's own ids carry, "kmod_<mod>": __KBUILD_MODNAME
  /// (Linux 5.12 to 6.18: "kmod_<mod>"; from 6.19 "<mod>", which
  /// __initcall_id() pastes after kmod_), else KBUILD_MODNAME ("\"foo\"", or
  /// KBUILD_STR(foo) in barebox and U-Boot) through Linux's name-fix.
  std::string kbuildModName() {
    std::string Fixed;
    if (std::optional<std::string> S = macroSpelling("KBUILD_MODNAME")) {
      char Buf[512];
      size_t N = klto_kbuild_modname(Buf, sizeof(Buf), toKStr(*S));
      Fixed.assign(Buf, std::min(N, sizeof(Buf) - 1));
    }
    std::optional<std::string> Mod = macroSpelling("__KBUILD_MODNAME");
    if (!Mod || !klto_is_symbol_name(toKStr(*Mod)))
      return Fixed;
    // 6.19 on: init.h's __initcall_id() starts with __PASTE(kmod_, ...).
    // A file without init.h tells by KBUILD_MODNAME, which is "<mod>" in
    // every version (a module named kmod_foo is then kmod_kmod_foo).
    if (std::optional<bool> Adds = initcallIdAddsKmod())
      return *Adds ? "kmod_" + *Mod : *Mod;
    if (!Fixed.empty() && Fixed == "kmod_" + *Mod)
      return Fixed;
    return *Mod;
  }

  /// The spelling of a one-token (__KBUILD_MODNAME) or any (KBUILD_MODNAME)
  /// object-like macro, if defined and not empty.
  std::optional<std::string> macroSpelling(const char *Macro) {
    Preprocessor &PP = CI.getPreprocessor();
    const MacroInfo *MI = PP.getMacroInfo(PP.getIdentifierInfo(Macro));
    if (!MI || MI->getNumTokens() == 0 ||
        (Macro[0] == '_' && MI->getNumTokens() != 1))
      return std::nullopt;
    std::string Spelling;
    for (const Token &T : MI->tokens())
      Spelling += PP.getSpelling(T);
    return Spelling;
  }

  /// Whether the kernel's __initcall_id() pastes kmod_ itself (6.19 on);
  /// nothing if the file has no __initcall_id().
  std::optional<bool> initcallIdAddsKmod() {
    Preprocessor &PP = CI.getPreprocessor();
    const MacroInfo *MI = PP.getMacroInfo(PP.getIdentifierInfo("__initcall_id"));
    if (!MI)
      return std::nullopt;
    for (const Token &T : MI->tokens())
      if (T.is(tok::identifier) && T.getIdentifierInfo()->getName() == "kmod_")
        return true;
    return false;
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
