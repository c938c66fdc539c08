//===- ModuleAsm.cpp - rewrite module asm for LTO -------------------------===//
//
// See ModuleAsm.h and klto/asmrewrite.h. The rewriter's callbacks run while
// it decides names; the module is only changed after it has finished, so its
// questions are always answered from the module as the front end made it.
//
//===----------------------------------------------------------------------===//
#include "ModuleAsm.h"
#include "LLVMCompat.h"
#include "Stubs.h"

#include "llvm/Transforms/Utils/ModuleUtils.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"

#include <stdexcept>

using namespace llvm;

namespace klto {

ModuleAsmRewriter::ModuleAsmRewriter(NamingContext &Ctx) : Ctx(Ctx) {
  Opts.dialect = klto_asm_dialect_for_triple(targetTriple(Ctx.M).c_str());
  Opts.modname = toKStr(Ctx.ModName);
  Opts.tables = Ctx.tables();
  Opts.stubs = Ctx.Opts.Stubs;
  Hooks = {this, classify, needStub, entry, labelRenamed, diag};
  RW = klto_asm_rewriter_new(&Opts, &Hooks);
  if (!RW)
    throw std::bad_alloc();
}

ModuleAsmRewriter::~ModuleAsmRewriter() { klto_asm_rewriter_free(RW); }

void ModuleAsmRewriter::addChunk(StringRef Text, unsigned Line, int Decl,
                                 unsigned long long &Counter) {
  ChunkDecls.push_back(Decl);
  klto_asm_rewriter_add_chunk(RW, Text.data(), Text.size(), Line, &Counter);
}

enum klto_sym_class ModuleAsmRewriter::classify(void *P, klto_str Name) {
  auto *Self = static_cast<ModuleAsmRewriter *>(P);
  const GlobalValue *GV = Self->Ctx.M.getNamedValue(fromKStr(Name));
  if (!GV)
    return KLTO_SYM_UNKNOWN;
  const GlobalValue *Base = GV;
  if (const auto *A = dyn_cast<GlobalAlias>(GV))
    if (const GlobalObject *Obj = A->getAliaseeObject())
      Base = Obj;
  bool IsFunc = isa<Function>(Base);
  if (!GV->hasLocalLinkage())
    return IsFunc ? KLTO_SYM_GLOBAL_FUNC : KLTO_SYM_GLOBAL_DATA;
  return IsFunc ? KLTO_SYM_LOCAL_FUNC : KLTO_SYM_LOCAL_DATA;
}

void ModuleAsmRewriter::needStub(void *P, klto_str Target, const char *Stub,
                                 bool IsData) {
  auto *Self = static_cast<ModuleAsmRewriter *>(P);
  Self->Stubs.push_back({fromKStr(Target).str(), Stub, IsData});
}

void ModuleAsmRewriter::entry(void *P, const klto_asm_entry *E) {
  auto *Self = static_cast<ModuleAsmRewriter *>(P);
  StringRef Fn = fromKStr(E->fn);
  Site Where;
  Where.Fn = Self->Ctx.M.getFunction(Fn);
  if (E->chunk < Self->ChunkDecls.size())
    Where.Decl = Self->ChunkDecls[E->chunk];
  Self->Ctx.remark(
      Where,
      "asm entry registering '" + Fn + "' now in section '" + E->section + "'" +
          (E->label ? Twine(" as '") + E->label + "'" : Twine("")) +
          (E->stub ? Twine(" through stub '") + E->stub + "'" : Twine("")));
}

void ModuleAsmRewriter::labelRenamed(void *P, klto_str Old, const char *New,
                                     unsigned long long Line) {
  auto *Self = static_cast<ModuleAsmRewriter *>(P);
  (void)Line;
  Self->Ctx.remark(Site(), "asm label '" + fromKStr(Old) + "' renamed to '" +
                               New + "' so it stays unique under full LTO");
}

void ModuleAsmRewriter::diag(void *P, klto_diag_level Level, size_t Chunk,
                             const char *Msg) {
  auto *Self = static_cast<ModuleAsmRewriter *>(P);
  Site Where;
  if (Chunk < Self->ChunkDecls.size())
    Where.Decl = Self->ChunkDecls[Chunk];
  Reporter::Level L = Level == KLTO_DIAG_ERROR     ? Reporter::Level::Error
                      : Level == KLTO_DIAG_WARNING ? Reporter::Level::Warning
                                                   : Reporter::Level::Remark;
  Self->Ctx.Diags.report(L, Where, Msg);
}

bool ModuleAsmRewriter::finish() {
  klto_buf Out = {nullptr, 0, 0};
  long Edits = klto_asm_rewriter_finish(RW, &Out);
  if (Edits < 0) {
    klto_buf_free(&Out);
    throw std::bad_alloc();
  }
  if (Edits > 0)
    Ctx.M.setModuleInlineAsm(StringRef(Out.p, Out.n));
  klto_buf_free(&Out);

  SmallVector<GlobalValue *, 16> Keep;
  for (const StubRequest &R : Stubs) {
    GlobalValue *Target = Ctx.M.getNamedValue(R.Target);
    if (!Target)
      continue;
    Keep.push_back(getOrCreateStableName(*Target, R.Stub));
    Site Where;
    Where.Fn = dyn_cast<Function>(Target);
    Ctx.remark(Where, Twine("static ") + (Where.Fn ? "function " : "") + "'" +
                          R.Target +
                          "' named in asm is reached through alias '" + R.Stub +
                          "'");
  }
  if (!Keep.empty())
    appendToCompilerUsed(Ctx.M, Keep);
  return Edits > 0 || !Keep.empty();
}

} // namespace klto
