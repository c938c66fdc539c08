//===- AsmSymbolsFuzzer.cpp - libFuzzer target for the asm symbol reader --===//
//
// Feeds arbitrary text to AsmTemplate and AsmSymbols as the plugin would:
// the first byte picks the target (x86_64 AT&T, x86_64 Intel, AArch64) and
// one of a set of operand lists; the rest, split at the first NUL, is the
// module asm and the function-level asm template. Beyond crashes (MC's
// included) it checks what the plugin relies on: a template without '$'
// reaches the assembler unchanged, and no reference is a temporary, a
// stand-in or a symbol the asm itself defines.
//
//===----------------------------------------------------------------------===//
#include "../AsmSymbols.h"
#include "../AsmTemplate.h"
#include "../LLVMCompat.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/TargetSelect.h"

#include <cstdlib>

using namespace llvm;

namespace {

struct OperandList {
  const char *Constraints;
  int Result; // 0 void, 32 i32, 64 i64
  int Args;   // i64 register arguments before the immediate
  bool Imm;   // an i64 immediate follows
  bool Sym;   // a global's address follows (symbolic immediate)
};

const OperandList Lists[] = {
    {"", 0, 0, false, false},       {"=r,r", 32, 1, false, false},
    {"=r,r,i", 64, 1, true, false}, {"=&r,r,r,~{memory}", 64, 2, false, false},
    {"=r,0,n", 64, 1, true, false}, {"r,i", 0, 1, false, true},
    {"=r,i,i", 64, 0, true, true},
};

const char *const Triples[] = {"x86_64-unknown-linux-gnu",
                               "x86_64-unknown-linux-gnu",
                               "aarch64-unknown-linux-gnu"};

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  InitializeAllTargetInfos();
  InitializeAllTargetMCs();
  InitializeAllAsmParsers();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size < 1)
    return 0;
  unsigned Target = Data[0] % 3;
  const OperandList &L = Lists[(Data[0] / 3) % std::size(Lists)];
  StringRef Rest(reinterpret_cast<const char *>(Data) + 1, Size - 1);
  auto [ModuleAsm, Template] = Rest.split('\0');
  if (Template.empty())
    std::swap(ModuleAsm, Template);

  LLVMContext Ctx;
  Module M("fuzz", Ctx);
  klto::compat::setTargetTriple(M, Triples[Target]);
  M.setModuleInlineAsm(ModuleAsm);
  Type *I64 = Type::getInt64Ty(Ctx);
  auto *G = new GlobalVariable(M, I64, false, GlobalValue::ExternalLinkage,
                               nullptr, "g");
  Function *F = Function::Create(FunctionType::get(Type::getVoidTy(Ctx), false),
                                 GlobalValue::ExternalLinkage, "f", M);
  IRBuilder<> B(BasicBlock::Create(Ctx, "", F));
  SmallVector<Type *, 4> ArgTys;
  SmallVector<Value *, 4> Args;
  for (int I = 0; I < L.Args; ++I) {
    ArgTys.push_back(I64);
    Args.push_back(ConstantInt::get(I64, I));
  }
  if (L.Imm) {
    ArgTys.push_back(I64);
    Args.push_back(ConstantInt::get(I64, Size));
  }
  if (L.Sym) {
    ArgTys.push_back(G->getType());
    Args.push_back(G);
  }
  Type *Ret = L.Result ? Type::getIntNTy(Ctx, L.Result) : Type::getVoidTy(Ctx);
  auto *FTy = FunctionType::get(Ret, ArgTys, false);
  if (errorToBool(InlineAsm::verify(FTy, L.Constraints)))
    abort(); // the table above is wrong
  InlineAsm::AsmDialect Dialect =
      Target == 1 ? InlineAsm::AD_Intel : InlineAsm::AD_ATT;
  auto *IA = InlineAsm::get(FTy, Template, L.Constraints, true, false, Dialect);
  CallInst *Call = B.CreateCall(FTy, IA, Args);
  B.CreateRetVoid();

  Triple TT(M.getTargetTriple());
  if (!Template.contains('$') &&
      klto::expandAsmTemplate(*Call, TT, "#") != Template)
    abort();

  std::unique_ptr<klto::AsmSymbolReader> Reader =
      klto::AsmSymbolReader::create(M);
  if (!Reader)
    abort(); // both targets are linked in
  StringSet<> Defined;
  for (const std::string &D : Reader->read(*Call))
    Defined.insert(D);
  for (const auto &R : Reader->references())
    if (R.Name.empty() || StringRef(R.Name).starts_with(".L") ||
        Defined.contains(R.Name) || !R.FirstUse) {
      if (getenv("KLTO_FUZZ_DEBUG"))
        fprintf(stderr, "bad reference '%s' first use %p\n", R.Name.c_str(),
                static_cast<const void *>(R.FirstUse));
      abort();
    }
  return 0;
}
