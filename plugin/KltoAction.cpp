//===- KltoAction.cpp - the Clang side of the klto plugin -----------------===//
//
// Loaded with -fplugin=kltoplugin.so. Runs before code generation, collects
// what only the front end knows (KBUILD_MODNAME, the source order and
// expansion lines of entry variables and file-scope asm, the declarations
// function-level asm names) and registers the IR pass with this compiler
// instance's pass builder, so the pass runs in process with those facts and
// reports through Clang's diagnostics with real source locations.
//
//===----------------------------------------------------------------------===//
#include "KltoPass.h"
#include "NamingContext.h"

#include "klto/asmrewrite.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/TargetInfo.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Function.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace klto {

namespace {

class ClangReporter : public Reporter {
public:
  ClangReporter(CompilerInstance &CI, bool Verbose)
      : CI(CI), Verbose(Verbose),
        RemarksOn(
            CI.getCodeGenOpts().OptimizationRemark.patternMatches("klto")) {}

  void report(Level L, Site Where, const llvm::Twine &Msg) override {
    if (L == Level::Remark && !wantsRemarks())
      return;
    DiagnosticsEngine &D = CI.getDiagnostics();
    SourceLocation Loc = locate(Where);
    std::string Text = Msg.str();
    if (L == Level::Remark) {
      if (Verbose)
        llvm::errs() << "klto: " << describe(Loc) << Text << "\n";
      if (RemarksOn)
        D.Report(Loc, D.getCustomDiagID(DiagnosticsEngine::Remark,
                                        "%0 [-Rpass=klto]"))
            << Text;
      return;
    }
    if (L == Level::Error)
      HadError = true;
    D.Report(Loc,
             L == Level::Error
                 ? D.getCustomDiagID(DiagnosticsEngine::Error, "klto: %0")
                 : D.getCustomDiagID(DiagnosticsEngine::Warning, "klto: %0"))
        << Text;
  }

  bool wantsRemarks() const { return Verbose || RemarksOn; }

  /// Locations of the recorded declarations, by SourceDecl index.
  std::vector<SourceLocation> DeclLocs;
  /// Locations of defined functions by IR name. Filled only when remarks
  /// are wanted; the AST is gone by the time the pass reports
  /// (-clear-ast-before-backend), so it cannot be searched then.
  llvm::StringMap<SourceLocation> FunctionLocs;

private:
  SourceLocation locate(Site Where) {
    if (Where.Decl >= 0 && static_cast<size_t>(Where.Decl) < DeclLocs.size())
      return DeclLocs[Where.Decl];
    if (Where.Fn)
      return FunctionLocs.lookup(Where.Fn->getName());
    return SourceLocation();
  }

  std::string describe(SourceLocation Loc) {
    if (Loc.isInvalid())
      return "";
    PresumedLoc P = CI.getSourceManager().getPresumedLoc(
        CI.getSourceManager().getExpansionLoc(Loc));
    if (P.isInvalid())
      return "";
    return (llvm::Twine(P.getFilename()) + ":" + llvm::Twine(P.getLine()) +
            ": ")
        .str();
  }

  CompilerInstance &CI;
  bool Verbose;
  bool RemarksOn;
};

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
  /// KBUILD_MODNAME ("\"foo\"") through Linux's name-fix.
  std::string kbuildModName() {
    Preprocessor &PP = CI.getPreprocessor();
    for (const char *Macro : {"__KBUILD_MODNAME", "KBUILD_MODNAME"}) {
      const MacroInfo *MI = PP.getMacroInfo(PP.getIdentifierInfo(Macro));
      if (!MI || MI->getNumTokens() != 1)
        continue;
      std::string Spelling = PP.getSpelling(MI->getReplacementToken(0));
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

class KltoAction : public PluginASTAction {
protected:
  bool ParseArgs(const CompilerInstance &CI,
                 const std::vector<std::string> &Args) override {
    DiagnosticsEngine &D = CI.getDiagnostics();
    for (const std::string &Arg : Args) {
      std::string Error;
      if (!Opts.parse(Arg, Error)) {
        D.Report(D.getCustomDiagID(DiagnosticsEngine::Error, "klto: %0"))
            << Error;
        return false;
      }
    }
    Opts.finish();
    return true;
  }

  ActionType getActionType() override { return AddBeforeMainAction; }

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef) override {
    auto Facts = std::make_shared<SourceFacts>();
    auto Diags = std::make_shared<ClangReporter>(CI, Opts.Verbose);
    CI.getCodeGenOpts().PassBuilderCallbacks.push_back(
        [Opts = Opts, Facts, Diags](llvm::PassBuilder &PB) {
          registerKltoPass(PB, Opts, Facts, Diags);
        });
    return std::make_unique<KltoConsumer>(CI, Facts, Diags, Opts.KeepAsmRefs);
  }

private:
  Options Opts;
};

} // namespace

} // namespace klto

static clang::FrontendPluginRegistry::Add<klto::KltoAction>
    X("klto", "LTO-safe linker-section tables and KFENCE hooks");
