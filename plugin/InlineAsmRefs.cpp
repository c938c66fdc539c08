//===- InlineAsmRefs.cpp - make symbols of function-level asm LTO-safe ----===//
//
// Neither the IR nor the bitcode symbol table sees inside a function's asm
// string, so under LTO:
//  - a symbol the asm names is not a reference: when nothing else uses its
//    definition in another file, LTO drops it ("undefined symbol"), or the
//    archive member holding it is fetched only after LTO;
//  - a symbol the asm defines is not a definition: LTO drops the function
//    that holds the asm when nothing calls it, and cross-module inlining or
//    cloning copies the asm ("symbol 'x' is already defined").
// Every emitted function's asm is read with the target's assembler
// (AsmSymbols.h). A named symbol gets a declaration in llvm.compiler.used:
// an IR-level reference that keeps the definition and fetches its member,
// while the object file gains nothing, so a name no file defines still
// costs nothing. A function whose asm defines symbols is kept
// (llvm.compiler.used), never inlined, and its asm call is noduplicate,
// which also stops unrolling, tail duplication and function
// specialization from copying it: each symbol is defined once, as without
// LTO.
//
//===----------------------------------------------------------------------===//
#include "InlineAsmRefs.h"
#include "LLVMCompat.h"
#include "AsmSymbols.h"
#include "Stubs.h"

#include "klto/LLVMAdapter.h"
#include "klto/asmrewrite.h"
#include "klto/naming.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace klto {

namespace {

/// Every function-level asm statement of the module, in IR order: the
/// steps below walk this list instead of every instruction again.
std::vector<CallBase *> inlineAsmCalls(Module &M) {
  std::vector<CallBase *> Calls;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (isa<InlineAsm>(CB->getCalledOperand()))
          Calls.push_back(CB);
  return Calls;
}

InlineAsm &asmOf(const CallBase &Call) {
  return *cast<InlineAsm>(Call.getCalledOperand());
}

uint64_t srcLoc(const CallBase &Call) {
  if (const MDNode *MD = Call.getMetadata("srcloc"))
    if (MD->getNumOperands())
      if (auto *C = mdconst::dyn_extract<ConstantInt>(MD->getOperand(0)))
        return C->getZExtValue();
  return 0;
}

std::string quotedList(const std::vector<std::string> &Names) {
  std::string S;
  for (const std::string &N : Names)
    S += (S.empty() ? "'" : ", '") + N + "'";
  return S;
}

/// Keeps F and its asm single: it defines Defs.
void keepHost(NamingContext &Ctx, Function &F, CallBase &Call,
              const std::vector<std::string> &Defs,
              SmallVectorImpl<GlobalValue *> &Keep) {
  Site Where;
  Where.Fn = &F;
  Where.AsmLoc = srcLoc(Call);
  if (F.hasFnAttribute(Attribute::AlwaysInline)) {
    Ctx.Diags.report(Reporter::Level::Warning, Where,
                     "'" + F.getName() +
                         "' is always_inline and its asm "
                         "defines " +
                         quotedList(Defs) +
                         ": each inlined copy defines them again");
    return;
  }
  Call.setCannotDuplicate();
  F.addFnAttr(Attribute::NoInline);
  Keep.push_back(&F);
  Ctx.remark(Where, "'" + F.getName() + "' defines " + quotedList(Defs) +
                        " in inline asm; kept, never inlined or duplicated");
}

/// Without an assembler for the target: names the IR already has, as the
/// lexer finds them.
void keepNamesTheIRHas(NamingContext &Ctx, ArrayRef<CallBase *> Calls,
                       SmallVectorImpl<GlobalValue *> &Keep) {
  Module &M = Ctx.M;
  klto_asm_dialect Dialect =
      klto_asm_dialect_for_triple(targetTriple(M).c_str());
  StringSet<> Names;
  auto Collect = [](void *P, klto_str Name) {
    static_cast<StringSet<> *>(P)->insert(StringRef(Name.p, Name.n));
  };
  for (CallBase *CB : Calls) {
    StringRef S = asmOf(*CB).getAsmString();
    klto_asm_operand_names(S.data(), S.size(), Dialect, true, Collect, &Names);
  }
  for (const auto &E : Names)
    if (GlobalValue *GV = M.getNamedValue(E.getKey()))
      if (!GV->hasLocalLinkage())
        Keep.push_back(GV);
}

/// A declaration of Name that only LTO sees: the symbol's type does not
/// matter to the linker, which resolves it by name.
GlobalValue *declare(Module &M, StringRef Name, bool Weak) {
  return new GlobalVariable(M, Type::getInt8Ty(M.getContext()), false,
                            Weak ? GlobalValue::ExternalWeakLinkage
                                 : GlobalValue::ExternalLinkage,
                            nullptr, Name);
}

Site siteOf(const CallBase *Call) {
  Site Where;
  if (Call) {
    Where.Fn = Call->getFunction();
    Where.AsmLoc = srcLoc(*Call);
  }
  return Where;
}

/// Points every function-level asm statement that names the static GV at
/// a stable global alias of it, as module asm is pointed at one
/// (Stubs.h): full LTO may rename the static when another file has a
/// global of its name, and the asm would bind to that one.
void renameStaticInAsm(NamingContext &Ctx, ArrayRef<CallBase *> Calls,
                       GlobalValue &GV, Site Where,
                       SmallVectorImpl<GlobalValue *> &Keep) {
  Module &M = Ctx.M;
  klto_str ModName = toKStr(Ctx.ModName), Name = toKStr(GV.getName());
  std::string Alias(klto_format_stub(nullptr, 0, {}, {}, ModName, Name), '\0');
  klto_format_stub(Alias.data(), Alias.size() + 1, {}, {}, ModName, Name);
  Keep.push_back(getOrCreateStableName(GV, Alias));
  klto_asm_dialect Dialect =
      klto_asm_dialect_for_triple(targetTriple(M).c_str());
  for (CallBase *CB : Calls) {
    InlineAsm *IA = &asmOf(*CB);
    StringRef S = IA->getAsmString();
    klto_buf Out = {nullptr, 0, 0};
    long N = klto_asm_rename_symbol(S.data(), S.size(), Dialect, true, Name,
                                    toKStr(Alias), &Out);
    if (N > 0)
      CB->setCalledOperand(
          InlineAsm::get(IA->getFunctionType(), StringRef(Out.p, Out.n),
                         IA->getConstraintString(), IA->hasSideEffects(),
                         IA->isAlignStack(), IA->getDialect(), IA->canThrow()));
    klto_buf_free(&Out);
    if (N < 0)
      throw std::bad_alloc();
  }
  Ctx.remark(Where, "static '" + GV.getName() +
                        "' named in inline asm is reached through alias '" +
                        Alias + "'");
}

void keepReferences(NamingContext &Ctx, const AsmSymbolReader &Reader,
                    ArrayRef<CallBase *> Calls,
                    SmallVectorImpl<GlobalValue *> &Keep) {
  Module &M = Ctx.M;
  for (const AsmSymbolReader::Reference &R : Reader.references()) {
    const std::string &Name = R.Name;
    GlobalValue *GV = M.getNamedValue(Name);
    if (GV && GV->hasLocalLinkage()) {
      if (Ctx.Opts.Stubs) {
        renameStaticInAsm(Ctx, Calls, *GV, siteOf(R.FirstUse), Keep);
        continue;
      }
      // Kept for ThinLTO, which then does not rename it.
      Keep.push_back(GV);
      Ctx.Diags.report(Reporter::Level::Warning, siteOf(R.FirstUse),
                       "inline asm names static '" + Name +
                           "': under full LTO it may bind to another "
                           "file's '" +
                           Name + "' (no-stubs)");
      continue;
    }
    if (!GV)
      GV = declare(M, Name, R.Weak);
    Keep.push_back(GV);
    Ctx.remark(siteOf(R.FirstUse),
               "'" + Name +
                   "' is named only in inline asm; kept visible to LTO");
  }
}

} // namespace

bool keepInlineAsmRefs(NamingContext &Ctx) {
  Module &M = Ctx.M;
  SmallVector<GlobalValue *, 8> Keep;
  std::vector<CallBase *> Calls = inlineAsmCalls(M);
  if (Calls.empty())
    return false;
  std::unique_ptr<AsmSymbolReader> Reader = AsmSymbolReader::create(M);
  if (!Reader) {
    keepNamesTheIRHas(Ctx, Calls, Keep);
  } else {
    for (CallBase *CB : Calls) {
      std::vector<std::string> Defs = Reader->read(*CB);
      if (!Defs.empty())
        keepHost(Ctx, *CB->getFunction(), *CB, Defs, Keep);
    }
    keepReferences(Ctx, *Reader, Calls, Keep);
  }
  // Every change of the steps above keeps what it changed.
  if (Keep.empty())
    return false;
  appendToCompilerUsed(M, Keep);
  return true;
}

} // namespace klto
