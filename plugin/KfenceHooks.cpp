//===- KfenceHooks.cpp - send allocations to the KFENCE runtime -----------===//
//
// Every use of a C library allocation function becomes a use of the
// runtime's hook of the same signature, so that sampled allocations come
// from the guarded pool and every free reaches the runtime that must
// recognise them. So does every use of sigaction() and signal(), so that
// the program's SIGSEGV handlers stay behind KFENCE's and never see it.
// Replacing the declaration's uses (not just direct calls) also catches
// function pointers such as `void *(*alloc)(size_t) = malloc`.
// The runtime is requested through llvm.dependent-libraries, which LLD
// honours, as the path of the runtime installed beside the plugin:
// libkfence-hooks.so, which every module of a process shares, or with
// kfence-runtime=static libkfence.a, linked into the executable.
// -fuse-ld=lld alone links it. Other linkers ignore the entry; a reference
// to KFENCE_RUNTIME_MARKER makes them fail with a message saying what to add.
//
//===----------------------------------------------------------------------===//
#include "KfenceHooks.h"
#include "LLVMCompat.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include "kfence.h"

#include <dlfcn.h>

using namespace llvm;

namespace klto {

/// The runtime's file beside this plugin (the build tree's lib/, or the
/// installed lib/klto/), which LLD opens as a path; the bare file name, for
/// LLD's -L search, if there is none. Named as a file, not as "kfence": LLD
/// looks a bare name up as -lkfence, which prefers libkfence.so, the
/// LD_PRELOAD build that replaces malloc for the whole process. A shared
/// object named by its absolute path is recorded so in DT_NEEDED, which
/// is how programs find libkfence-hooks.so without a run path.
static std::string runtimeLibrary(StringRef File) {
  Dl_info Info;
  if (!dladdr(reinterpret_cast<void *>(&redirectAllocations), &Info) ||
      !Info.dli_fname)
    return File.str();
  SmallString<256> P(sys::path::parent_path(Info.dli_fname));
  sys::path::append(P, File);
  if (sys::fs::make_absolute(P) || !sys::fs::exists(P))
    return File.str();
  return std::string(P);
}

static bool staticRuntime(const NamingContext &Ctx) {
  return Ctx.Opts.KfenceRuntime == "static";
}

static const char *runtimeFile(const NamingContext &Ctx) {
  return staticRuntime(Ctx) ? KFENCE_RUNTIME_STATIC : KFENCE_RUNTIME_SHARED;
}

/// Keeps a reference to KFENCE_RUNTIME_MARKER in the object, retained
/// through --gc-sections (8 bytes per module).
static void referenceRuntimeMarker(Module &M, StringRef MarkerName) {
  LLVMContext &C = M.getContext();
  if (M.getNamedValue(MarkerName))
    return;
  Type *I8 = Type::getInt8Ty(C);
  auto *Marker = new GlobalVariable(M, I8, /*isConstant=*/true,
                                    GlobalValue::ExternalLinkage, nullptr,
                                    MarkerName);
  auto *Ref = new GlobalVariable(M, Marker->getType(), /*isConstant=*/true,
                                 GlobalValue::PrivateLinkage, Marker,
                                 "klto.kfence.runtime");
  // llvm.used, not llvm.compiler.used: ELF gives it SHF_GNU_RETAIN.
  appendToUsed(M, {Ref});
}

/// The runtime's list: each has a __kfence_ hook of the same signature.
static const char *const LibcAllocators[] = {
#define KFENCE_ALLOC(ret, name, params, args) #name,
#define KFENCE_FREE(name, params, args) #name,
#include "kfence_malloc.def"
};

/// operator new and delete of the Itanium ABI on 64-bit targets, each with
/// a hook in the runtime's hooks_cxx.c.
static const char *const CxxOperators[] = {
#define KFENCE_NEW(op, params, size, align, args) "_" #op,
#define KFENCE_DELETE(op, params, ptr, args) "_" #op,
#include "kfence_cxx.def"
};

/// The C library's functions that set a signal's action, each with a hook
/// that keeps SIGSEGV's action behind KFENCE's handler: a handler the
/// program installs then never sees KFENCE's as the action it replaced.
static const char *const SignalFunctions[] = {
#define KFENCE_SIGNAL(ret, name, params, args) #name,
#include "kfence_signal.def"
};

/// The hook each name goes to, without its "__kfence_" prefix: libc names
/// (allocation and signal functions) map to themselves, C++ operators to
/// their name without the leading underscore, and "fn:libcfn" pairs from
/// -fplugin-arg-klto-kfence-alloc to the libc function they mirror (a bare
/// "fn" mirrors malloc).
static StringMap<std::string> redirections(NamingContext &Ctx) {
  StringMap<std::string> Map;
  for (const char *Name : LibcAllocators)
    Map[Name] = Name;
  for (const char *Name : SignalFunctions)
    Map[Name] = Name;
  if (Ctx.Opts.KfenceCxx)
    for (StringRef Name : CxxOperators)
      Map[Name] = Name.drop_front().str();
  // Options::finish has checked each with checkKfenceAllocator.
  for (const std::string &Spec : Ctx.Opts.KfenceAllocators) {
    auto [Fn, Libc] = StringRef(Spec).split(':');
    Map[Fn] = Libc.empty() ? "malloc" : Libc.str();
  }
  return Map;
}

std::string checkKfenceAllocator(StringRef Spec) {
  auto [Fn, Libc] = Spec.split(':');
  if (!klto_is_symbol_name(toKStr(Fn)) || Libc.contains(':'))
    return ("kfence-alloc='" + Spec +
            "': expected <fn>[:<libc fn>], <fn> a function name")
        .str();
  if (Libc.empty() || is_contained(LibcAllocators, Libc))
    return "";
  std::string Family;
  for (const char *Name : LibcAllocators)
    Family += (Family.empty() ? "" : ", ") + std::string(Name);
  return ("kfence-alloc='" + Spec + "': '" + Libc +
          "' is not a C library allocation function; <libc fn> is one of " +
          Family)
      .str();
}

/// Direct calls of `F` that can take an inline fast path: plain calls (not
/// invokes, not musttail) with F's own type.
static SmallVector<CallInst *, 16> inlinableCalls(Function &F) {
  SmallVector<CallInst *, 16> Calls;
  for (User *U : F.users())
    if (auto *CI = dyn_cast<CallInst>(U))
      if (CI->getCalledOperand() == &F && !CI->isMustTailCall() &&
          CI->getFunctionType() == F.getFunctionType())
        Calls.push_back(CI);
  return Calls;
}

/// Splits at `CI` on `Slow` (unlikely): the slow block calls `SlowFn`, the
/// fast one `Fast`, both with CI's arguments; CI's uses take the result.
/// Returns the fast call.
static CallInst *splitCall(CallInst *CI, Value *Slow, FunctionCallee SlowFn,
                           Function &Fast) {
  Instruction *SlowTerm, *FastTerm;
  SplitBlockAndInsertIfThenElse(
      Slow, CI, &SlowTerm, &FastTerm,
      compat::unlikelyBranchWeights(CI->getContext()));
  SmallVector<Value *, 2> Args(CI->args());
  IRBuilder<> SB(SlowTerm), FB(FastTerm);
  CallInst *SlowCall = SB.CreateCall(SlowFn, Args);
  SlowCall->setAttributes(CI->getAttributes());
  CallInst *FastCall = cast<CallInst>(CI->clone());
  FastCall->setCalledFunction(&Fast);
  FB.Insert(FastCall);
  SlowCall->setDebugLoc(CI->getDebugLoc());
  if (!CI->getType()->isVoidTy()) {
    IRBuilder<> TB(CI);
    PHINode *Phi = TB.CreatePHI(CI->getType(), 2);
    Phi->addIncoming(SlowCall, SlowTerm->getParent());
    Phi->addIncoming(FastCall, FastTerm->getParent());
    CI->replaceAllUsesWith(Phi);
  }
  CI->eraseFromParent();
  return FastCall;
}

/// malloc and free are the hot ones: their fast paths go inline into the
/// program, so that an unsampled malloc or a free of C library memory costs
/// the same call as without KFENCE plus two instructions (a thread-local
/// decrement and a branch on its borrow; a compare against the pool's start
/// and a branch), instead of a second call level through the hook.
/// Returns the fast calls, which stay calls of F.
static SmallPtrSet<User *, 16> inlineFastPaths(Module &M, Function &F,
                                               bool StaticRuntime) {
  SmallPtrSet<User *, 16> FastCalls;
  bool IsMalloc = F.getName() == "malloc";
  if ((!IsMalloc && F.getName() != "free") || F.arg_size() != 1)
    return FastCalls;
  SmallVector<CallInst *, 16> Calls = inlinableCalls(F);
  LLVMContext &C = M.getContext();
  const DataLayout &DL = M.getDataLayout();
  Type *I32 = Type::getInt32Ty(C);
  Type *IntPtr = DL.getIntPtrType(C);
  // The runtime's variables are reached through the GOT (the countdown's
  // thread-pointer offset, the threshold's address), so that every module
  // of a process binds to the one libkfence-hooks.so. An executable that
  // links libkfence.a in (kfence-runtime=static) addresses them directly
  // instead: the countdown at a fixed offset from the thread pointer, the
  // threshold PC-relative, which keeps a load, and the register holding
  // its result, out of every loop that allocates.
  bool InExecutable = StaticRuntime && (M.getPICLevel() == PICLevel::NotPIC ||
                                        M.getPIELevel() != PIELevel::Default);
  auto Global = [&](StringRef Name, Type *Ty, bool TLS) {
    if (GlobalVariable *G = M.getGlobalVariable(Name))
      return G;
    GlobalValue::ThreadLocalMode TLSModel = GlobalValue::NotThreadLocal;
    if (TLS)
      TLSModel = InExecutable ? GlobalValue::LocalExecTLSModel
                              : GlobalValue::InitialExecTLSModel;
    auto *G = new GlobalVariable(M, Ty, /*isConstant=*/false,
                                 GlobalValue::ExternalLinkage, nullptr, Name,
                                 nullptr, TLSModel);
    G->setDSOLocal(InExecutable);
    return G;
  };
  for (CallInst *CI : Calls) {
    IRBuilder<> B(CI);
    Value *Slow;
    FunctionCallee SlowFn;
    if (IsMalloc) {
      // Branch on the borrow, not on the new value: the x86 backend then
      // folds load, decrement, store and test into `subl $1, %fs:..; jb`.
      GlobalVariable *Countdown = Global("__kfence_countdown", I32, true);
      Value *Sub =
          B.CreateBinaryIntrinsic(Intrinsic::usub_with_overflow,
                                  B.CreateLoad(I32, Countdown), B.getInt32(1));
      B.CreateStore(B.CreateExtractValue(Sub, 0), Countdown);
      Slow = B.CreateExtractValue(Sub, 1);
      SlowFn =
          M.getOrInsertFunction("__kfence_malloc_sampled", F.getFunctionType());
    } else {
      // One compare, not a range check: the runtime reserves the pool
      // above the heap, so nearly every pointer lies below the threshold;
      // __kfence_free tests the rest exactly.
      Value *Threshold = B.CreateLoad(
          IntPtr, Global("__kfence_free_threshold", IntPtr, false));
      Slow = B.CreateICmpUGE(B.CreatePtrToInt(CI->getArgOperand(0), IntPtr),
                             Threshold);
      SlowFn = M.getOrInsertFunction("__kfence_free", F.getFunctionType());
    }
    FastCalls.insert(splitCall(CI, Slow, SlowFn, F));
  }
  return FastCalls;
}

bool redirectAllocations(NamingContext &Ctx) {
  Module &M = Ctx.M;
  StringMap<std::string> Map = redirections(Ctx);
  bool Changed = false;
  for (Function &F : make_early_inc_range(M)) {
    auto It = Map.find(F.getName());
    // A module that defines the function is an allocator, not a user of one.
    if (It == Map.end() || !F.isDeclaration() || F.use_empty())
      continue;
    std::string HookName = "__kfence_" + It->second;
    // Inline fast paths first: their own fast calls stay calls of F; every
    // other use (other calls, function pointers) goes to the hook.
    SmallPtrSet<User *, 16> FastCalls =
        inlineFastPaths(M, F, staticRuntime(Ctx));
    if (F.getNumUses() > FastCalls.size()) {
      FunctionCallee Hook = M.getOrInsertFunction(HookName, F.getFunctionType(),
                                                  F.getAttributes());
      F.replaceUsesWithIf(Hook.getCallee(), [&FastCalls](Use &U) {
        return !FastCalls.count(U.getUser());
      });
    }
    Changed = true;
    std::string Msg =
        ("calls to '" + F.getName() + "' go to '" + HookName + "'").str();
    if (!FastCalls.empty())
      Msg += " (" + std::to_string(FastCalls.size()) +
             " with the fast path inline)";
    Site Where;
    Ctx.remark(Where, Msg);
  }
  if (!Changed)
    return false;
  referenceRuntimeMarker(M, staticRuntime(Ctx)
                                ? KFENCE_RUNTIME_MARKER(KFENCE_RUNTIME_STATIC)
                                : KFENCE_RUNTIME_MARKER(KFENCE_RUNTIME_SHARED));
  std::string Runtime = runtimeLibrary(runtimeFile(Ctx));
  LLVMContext &C = M.getContext();
  NamedMDNode *Libs = M.getOrInsertNamedMetadata("llvm.dependent-libraries");
  for (const MDNode *N : Libs->operands())
    if (N->getNumOperands() == 1)
      if (auto *S = dyn_cast<MDString>(N->getOperand(0)))
        if (S->getString() == Runtime)
          return true;
  Libs->addOperand(MDNode::get(C, MDString::get(C, Runtime)));
  return true;
}

} // namespace klto
