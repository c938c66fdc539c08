//===- InlineAsmRefs.cpp - keep inline-asm-only symbols alive -------------===//
//
// A name inside a function's asm string is invisible to LTO: neither the IR
// nor the bitcode symbol table records the reference. When it is the only
// use (Linux arm64's ALTERNATIVE_CB names alt_cb_patch_nops this way), LTO
// internalizes and deletes the definition in the other file and the link
// fails with "undefined symbol". A declaration in llvm.compiler.used here is
// an IR-level reference: LTO keeps the definition, and it costs nothing in
// the object file.
//
// Names come from the front end (identifiers the asm uses that the
// translation unit declares with external linkage, so registers and
// mnemonics never qualify) and, without Clang, from the IR's own globals.
//
//===----------------------------------------------------------------------===//
#include "InlineAsmRefs.h"

#include "klto/asmrewrite.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace klto {

static void collectName(void *P, klto_str Name) {
  static_cast<StringSet<> *>(P)->insert(fromKStr(Name));
}

/// Names of non-local globals the IR has that inline asm strings mention.
static StringSet<> namesFromIR(Module &M) {
  StringSet<> Mentioned;
  klto_asm_dialect Dialect =
      klto_asm_dialect_for_triple(M.getTargetTriple().c_str());
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (auto *IA = dyn_cast<InlineAsm>(CB->getCalledOperand())) {
          const std::string &S = IA->getAsmString();
          klto_asm_operand_names(S.data(), S.size(), Dialect, true, collectName,
                                 &Mentioned);
        }
  StringSet<> Names;
  for (const auto &E : Mentioned)
    if (GlobalValue *GV = M.getNamedValue(E.getKey()))
      if (!GV->hasLocalLinkage())
        Names.insert(E.getKey());
  return Names;
}

void keepInlineAsmRefs(NamingContext &Ctx, const SourceFacts *Facts) {
  Module &M = Ctx.M;
  StringSet<> Names = namesFromIR(M);
  StringSet<> Functions;
  if (Facts)
    for (const SourceFacts::AsmRef &R : Facts->InlineAsmRefs) {
      Names.insert(R.Name);
      if (R.IsFunction)
        Functions.insert(R.Name);
    }

  std::vector<std::string> Sorted;
  for (const auto &E : Names)
    Sorted.push_back(E.getKey().str());
  llvm::sort(Sorted);

  SmallVector<GlobalValue *, 8> Keep;
  for (const std::string &Name : Sorted) {
    GlobalValue *GV = M.getNamedValue(Name);
    if (GV && GV->hasLocalLinkage())
      continue;
    if (!GV) {
      // Only the symbol matters, not its type: the linker and LTO resolve it
      // by name against the real definition.
      if (Functions.count(Name))
        GV = Function::Create(
            FunctionType::get(Type::getVoidTy(M.getContext()), false),
            GlobalValue::ExternalLinkage, Name, M);
      else
        GV = new GlobalVariable(M, Type::getInt8Ty(M.getContext()), false,
                                GlobalValue::ExternalLinkage, nullptr, Name);
    }
    Keep.push_back(GV);
    Site Where;
    Ctx.remark(Where, "'" + Name +
                          "' is named only in inline asm; kept visible to LTO");
  }
  if (!Keep.empty())
    appendToCompilerUsed(M, Keep);
}

} // namespace klto
