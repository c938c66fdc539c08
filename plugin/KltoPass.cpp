//===- KltoPass.cpp - the klto module pass --------------------------------===//
//
// Numbers every table entry of the translation unit in source order, C
// variables and asm statements alike, as __COUNTER__ numbers Linux's macros,
// so the linker can restore the order a non-LTO link gives.
//
//===----------------------------------------------------------------------===//
#include "KltoPass.h"
#include "InlineAsmRefs.h"
#include "KfenceHooks.h"
#include "ModuleAsm.h"
#include "NamingContext.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"

using namespace llvm;

namespace klto {

namespace {

/// A module-asm chunk: one file-scope asm statement.
struct Chunk {
  StringRef Text;
  unsigned Line;
  int Decl;
};

/// Splits the module asm along the front end's asm statements, the way
/// Module::appendModuleInlineAsm joined them. Empty if they do not tile it
/// (another tool appended asm), and the caller falls back to one chunk.
std::vector<Chunk> splitModuleAsm(StringRef Asm, const SourceFacts &Facts) {
  std::vector<Chunk> Chunks;
  size_t Pos = 0;
  for (size_t I = 0; I < Facts.Decls.size(); ++I) {
    const SourceDecl &D = Facts.Decls[I];
    if (D.K != SourceDecl::AsmStatement)
      continue;
    if (!Asm.substr(Pos).starts_with(D.Asm))
      return {};
    size_t End = Pos + D.Asm.size();
    if (End < Asm.size() && Asm[End] == '\n' &&
        (D.Asm.empty() || D.Asm.back() != '\n'))
      ++End;
    Chunks.push_back({Asm.slice(Pos, End), D.Line, static_cast<int>(I)});
    Pos = End;
  }
  if (Pos != Asm.size())
    return {};
  return Chunks;
}

/// Gives every table entry of the module, C variable or asm, its unique
/// name and section; returns whether it changed the module.
bool nameEntries(NamingContext &Ctx, const SourceFacts *Facts) {
  Module &M = Ctx.M;
  std::vector<GlobalVariable *> Vars = findVarEntries(Ctx);
  // The rewriter keeps views into this copy until finish().
  const std::string Asm = M.getModuleInlineAsm();
  ModuleAsmRewriter Rewriter(Ctx);
  unsigned long long Counter = 0;

  std::vector<Chunk> Chunks;
  if (Facts)
    Chunks = splitModuleAsm(Asm, *Facts);
  if (Facts && (!Chunks.empty() || Asm.empty())) {
    StringMap<GlobalVariable *> ByName;
    for (GlobalVariable *GV : Vars)
      ByName[GV->getName()] = GV;
    size_t NextChunk = 0;
    for (size_t I = 0; I < Facts->Decls.size(); ++I) {
      const SourceDecl &D = Facts->Decls[I];
      if (D.K == SourceDecl::AsmStatement) {
        const Chunk &C = Chunks[NextChunk++];
        Rewriter.addChunk(C.Text, C.Line, C.Decl, Counter);
        continue;
      }
      auto It = ByName.find(D.Name);
      if (It == ByName.end() || !It->second)
        continue;
      Site Where;
      Where.Decl = static_cast<int>(I);
      nameVarEntry(Ctx, *It->second, Counter++, D.Line, Where);
      It->second = nullptr;
    }
    // Entries the front end did not see at file scope (function-local
    // statics) follow, in IR order.
    for (GlobalVariable *GV : Vars)
      if (ByName.lookup(GV->getName()) == GV)
        nameVarEntry(Ctx, *GV, Counter++, debugLine(*GV), Site());
  } else {
    for (GlobalVariable *GV : Vars)
      nameVarEntry(Ctx, *GV, Counter++, debugLine(*GV), Site());
    if (!Asm.empty())
      Rewriter.addChunk(Asm, 0, -1, Counter);
  }
  bool AsmChanged = Rewriter.finish();
  // Each entry found still lacked a unique name, and has one now.
  return AsmChanged || !Vars.empty();
}

} // namespace

PreservedAnalyses KltoPass::run(Module &M, ModuleAnalysisManager &) {
  if (M.getNamedMetadata(DoneMetadata))
    return PreservedAnalyses::all();

  std::shared_ptr<Reporter> Diags = this->Diags;
  if (!Diags)
    Diags =
        makeLLVMReporter(M.getContext(), M.getSourceFileName(), Opts.Verbose);
  NamingContext Ctx(M, Opts, chooseModName(Opts, Facts.get(), M), *Diags);

  bool Changed = nameEntries(Ctx, Facts.get());
  if (Opts.KeepAsmRefs)
    Changed |= keepInlineAsmRefs(Ctx);
  if (Opts.Kfence)
    Changed |= redirectAllocations(Ctx);
  // A module with nothing to do stays as Clang made it, byte for byte:
  // ThinLTO derives the names of promoted locals from the module's hash.
  if (!Changed)
    return PreservedAnalyses::all();
  M.getOrInsertNamedMetadata(DoneMetadata);
  return PreservedAnalyses::none();
}

void registerKltoPass(PassBuilder &PB, const Options &Opts,
                      std::shared_ptr<const SourceFacts> Facts,
                      std::shared_ptr<Reporter> Diags) {
  PB.registerPipelineStartEPCallback(
      [Opts, Facts, Diags](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(KltoPass(Opts, Facts, Diags));
      });
}

} // namespace klto
