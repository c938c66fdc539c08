//===- NamingContext.h - per-module naming state for entries ---*- C++ -*-===//
//
// What the entry-naming steps share: the module, its modname, the set of
// tables, the reporter. The naming scheme itself lives in libkltocore
// (klto/naming.h), shared with the linker.
//
//===----------------------------------------------------------------------===//
#ifndef KLTO_PLUGIN_NAMINGCONTEXT_H
#define KLTO_PLUGIN_NAMINGCONTEXT_H

#include "Options.h"
#include "Reporter.h"
#include "SourceFacts.h"

#include "klto/LLVMAdapter.h"
#include "klto/naming.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace llvm {
class Module;
class GlobalVariable;
class Function;
} // namespace llvm

namespace klto {

class NamingContext {
public:
  NamingContext(llvm::Module &M, const Options &Opts, std::string ModName,
                Reporter &Diags);
  NamingContext(const NamingContext &) = delete;
  NamingContext &operator=(const NamingContext &) = delete;

  llvm::Module &M;
  const Options &Opts;
  const std::string ModName;
  Reporter &Diags;
  const klto_tables *tables() const { return &Tables.get(); }

  /// A remark, also printed when verbose.
  void remark(Site Where, const llvm::Twine &Msg);

private:
  TableList Tables;
};

/// The modname ids are made with: the option, else KBUILD_MODNAME, else a
/// default from the file path that stays unique across folders.
std::string chooseModName(const Options &Opts, const SourceFacts *Facts,
                          const llvm::Module &M);

/// Definitions placed in a table section that still lack a unique name, in
/// IR order.
std::vector<llvm::GlobalVariable *> findVarEntries(NamingContext &Ctx);

/// Gives a C-variable entry its id: symbol __initcall__<id><level> (or
/// __kltoentry__<id>) and section <table>..<id>.
void nameVarEntry(NamingContext &Ctx, llvm::GlobalVariable &GV,
                  unsigned long long Counter, unsigned Line, Site Where);

/// The source line of a variable from debug info, or 0.
unsigned debugLine(const llvm::GlobalVariable &GV);

} // namespace klto

#endif // KLTO_PLUGIN_NAMINGCONTEXT_H
