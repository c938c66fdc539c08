//===- Stubs.cpp - stable global names for statics that asm names ---------===//
//
// LTO renames statics: full LTO when two files' statics collide, ThinLTO when
// it promotes one. Asm that names the static then binds to the wrong
// function or to nothing. A stub with a unique global name, defined next to
// the static, gives the asm a name no LTO mode touches (Linux 5.12 writes
// these stubs by hand in init.h and pci.h).
//
// Stubs forward with musttail, so they add one jump and no frame, and stay
// correct for any signature. They are hidden: the name only has to be found
// by the asm of the object they are defined in. Data gets an alias instead,
// since there is nothing to call.
//
//===----------------------------------------------------------------------===//
#include "Stubs.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace klto {

Function *getOrCreateStub(Function &Target, StringRef Name) {
  Module &M = *Target.getParent();
  if (Function *Existing = M.getFunction(Name))
    return Existing;
  Function *Stub = Function::Create(Target.getFunctionType(),
                                    GlobalValue::ExternalLinkage, Name, M);
  Stub->copyAttributesFrom(&Target);
  Stub->setLinkage(GlobalValue::ExternalLinkage);
  Stub->setVisibility(GlobalValue::HiddenVisibility);
  Stub->setDSOLocal(true);
  // A stub must not be merged away or folded into another symbol: its name
  // is the whole point.
  Stub->setUnnamedAddr(GlobalValue::UnnamedAddr::None);
  Stub->setComdat(nullptr);
  Stub->removeFnAttr(Attribute::AlwaysInline);
  Stub->removeFnAttr(Attribute::Naked);
  Stub->addFnAttr(Attribute::NoInline);

  BasicBlock *BB = BasicBlock::Create(M.getContext(), "", Stub);
  IRBuilder<> B(BB);
  SmallVector<Value *, 8> Args;
  for (Argument &A : Stub->args())
    Args.push_back(&A);
  CallInst *Call = B.CreateCall(Target.getFunctionType(), &Target, Args);
  Call->setCallingConv(Target.getCallingConv());
  Call->setAttributes(Target.getAttributes());
  // musttail forwards varargs and sret exactly; it needs matching prototypes,
  // which a stub of the same type always has.
  Call->setTailCallKind(CallInst::TCK_MustTail);
  // A stub is a trampoline: one jump. Inlining the static into it would
  // compile the function twice for nothing.
  Call->addFnAttr(Attribute::NoInline);
  if (Stub->getReturnType()->isVoidTy())
    B.CreateRetVoid();
  else
    B.CreateRet(Call);
  appendToCompilerUsed(M, {Stub});
  return Stub;
}

GlobalValue *getOrCreateAlias(GlobalValue &Target, StringRef Name) {
  Module &M = *Target.getParent();
  if (GlobalValue *Existing = M.getNamedValue(Name))
    return Existing;
  auto *Alias =
      GlobalAlias::create(Target.getValueType(), Target.getAddressSpace(),
                          GlobalValue::ExternalLinkage, Name, &Target, &M);
  Alias->setVisibility(GlobalValue::HiddenVisibility);
  Alias->setDSOLocal(true);
  appendToCompilerUsed(M, {Alias});
  return Alias;
}

} // namespace klto
