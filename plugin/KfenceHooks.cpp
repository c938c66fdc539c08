//===- KfenceHooks.cpp - send allocations to the KFENCE runtime -----------===//
//
// Every use of a C library allocation function becomes a use of the
// runtime's hook of the same signature, so that sampled allocations come
// from the guarded pool and every free reaches the runtime that must
// recognise them. Replacing the declaration's uses (not just direct calls)
// also catches function pointers such as `void *(*alloc)(size_t) = malloc`.
// The runtime library is requested through llvm.dependent-libraries, which
// LLD honours: the program needs -L<dir of libkfence.a>, not -lkfence.
//
//===----------------------------------------------------------------------===//
#include "KfenceHooks.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace klto {

/// Named as a file, not as "kfence": LLD looks a bare name up as -lkfence,
/// which prefers libkfence.so, the LD_PRELOAD build that replaces malloc for
/// the whole process. The archive holds only the hooks.
static const char *const RuntimeLibrary = "libkfence.a";

static const char *const LibcAllocators[] = {
    "malloc",        "calloc",   "realloc", "reallocarray",
    "free",          "aligned_alloc", "posix_memalign", "memalign",
    "valloc",        "pvalloc",  "malloc_usable_size",
};

/// operator new and delete of the Itanium ABI on 64-bit targets, each with
/// a hook in the runtime's hooks_cxx.c.
static const char *const CxxOperators[] = {
    "_Znwm",
    "_Znam",
    "_ZnwmRKSt9nothrow_t",
    "_ZnamRKSt9nothrow_t",
    "_ZnwmSt11align_val_t",
    "_ZnamSt11align_val_t",
    "_ZnwmSt11align_val_tRKSt9nothrow_t",
    "_ZnamSt11align_val_tRKSt9nothrow_t",
    "_ZdlPv",
    "_ZdaPv",
    "_ZdlPvm",
    "_ZdaPvm",
    "_ZdlPvRKSt9nothrow_t",
    "_ZdaPvRKSt9nothrow_t",
    "_ZdlPvSt11align_val_t",
    "_ZdaPvSt11align_val_t",
    "_ZdlPvmSt11align_val_t",
    "_ZdaPvmSt11align_val_t",
    "_ZdlPvSt11align_val_tRKSt9nothrow_t",
    "_ZdaPvSt11align_val_tRKSt9nothrow_t",
};

/// The hook each name goes to, without its "__kfence_" prefix: libc names
/// map to themselves, C++ operators to their name without the leading
/// underscore, and "fn:libcfn" pairs from -fplugin-arg-klto-kfence-alloc
/// to the libc function they mirror (a bare "fn" mirrors malloc).
static StringMap<std::string> redirections(NamingContext &Ctx) {
  StringMap<std::string> Map;
  for (const char *Name : LibcAllocators)
    Map[Name] = Name;
  if (Ctx.Opts.KfenceCxx)
    for (StringRef Name : CxxOperators)
      Map[Name] = Name.drop_front().str();
  for (const std::string &Spec : Ctx.Opts.KfenceAllocators) {
    auto [Fn, Libc] = StringRef(Spec).split(':');
    if (Libc.empty())
      Libc = "malloc";
    if (!Map.count(Libc) || Map[Libc] != Libc) {
      Ctx.Diags.report(Reporter::Level::Error, Site(),
                       "kfence-alloc='" + Spec + "': '" + Libc +
                           "' is not a C library allocation function");
      continue;
    }
    Map[Fn] = Libc.str();
  }
  return Map;
}

void redirectAllocations(NamingContext &Ctx) {
  Module &M = Ctx.M;
  StringMap<std::string> Map = redirections(Ctx);
  bool Changed = false;
  for (Function &F : make_early_inc_range(M)) {
    auto It = Map.find(F.getName());
    // A module that defines the function is an allocator, not a user of one.
    if (It == Map.end() || !F.isDeclaration() || F.use_empty())
      continue;
    std::string HookName = "__kfence_" + It->second;
    FunctionCallee Hook = M.getOrInsertFunction(HookName, F.getFunctionType(),
                                                F.getAttributes());
    F.replaceAllUsesWith(Hook.getCallee());
    Changed = true;
    Site Where;
    Ctx.remark(Where, "calls to '" + F.getName() + "' go to '" + HookName +
                          "'");
  }
  if (!Changed)
    return;
  LLVMContext &C = M.getContext();
  NamedMDNode *Libs = M.getOrInsertNamedMetadata("llvm.dependent-libraries");
  for (const MDNode *N : Libs->operands())
    if (N->getNumOperands() == 1)
      if (auto *S = dyn_cast<MDString>(N->getOperand(0)))
        if (S->getString() == RuntimeLibrary)
          return;
  Libs->addOperand(MDNode::get(C, MDString::get(C, RuntimeLibrary)));
}

} // namespace klto
