//===- Options.cpp - klto plugin options ----------------------------------===//
//
// Parsing for both ways the plugin is loaded. Unknown or malformed options
// are errors, never silently ignored: a typo in a table name would otherwise
// leave entries unordered without a word.
//
//===----------------------------------------------------------------------===//
#include "Options.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

using namespace llvm;

namespace klto {

static bool isFlag(StringRef Name, StringRef Arg, bool &Value) {
  if (Arg == Name) {
    Value = true;
    return true;
  }
  if (Arg == ("no-" + Name).str()) {
    Value = false;
    return true;
  }
  return false;
}

bool Options::parse(const std::string &ArgStr, std::string &Error) {
  StringRef Arg(ArgStr);
  StringRef Name = Arg.split('=').first, Value = Arg.split('=').second;
  bool HasValue = Arg.contains('=');
  auto NeedValue = [&](std::string &Out) {
    if (!HasValue || Value.empty()) {
      Error = ("option '" + Name + "' needs a value: -fplugin-arg-klto-" +
               Name + "=<value>")
                  .str();
      return false;
    }
    Out = Value.str();
    return true;
  };
  if (Name == "modname")
    return NeedValue(ModName);
  if (Name == "table" || Name == "kfence-alloc") {
    std::string V;
    if (!NeedValue(V))
      return false;
    SmallVector<StringRef, 4> Items;
    StringRef(V).split(Items, ',');
    for (StringRef Item : Items)
      if (!Item.empty())
        (Name == "table" ? Tables : KfenceAllocators).push_back(Item.str());
    return true;
  }
  if (!HasValue &&
      (isFlag("stubs", Arg, Stubs) ||
       isFlag("keep-asm-refs", Arg, KeepAsmRefs) ||
       isFlag("verbose", Arg, Verbose) || isFlag("kfence", Arg, Kfence)))
    return true;
  // C++ operators only make sense with the C hooks: one implies the other.
  if (!HasValue && isFlag("kfence-cxx", Arg, KfenceCxx)) {
    Kfence |= KfenceCxx;
    return true;
  }
  Error = ("unknown option '" + Arg + "'; " + usage()).str();
  return false;
}

const char *Options::usage() {
  return "klto options (-fplugin-arg-klto-<option>): modname=<name>, "
         "table=<section>[,<section>...], [no-]stubs, [no-]keep-asm-refs, "
         "[no-]verbose, [no-]kfence, [no-]kfence-cxx, "
         "kfence-alloc=<fn>[:<libc fn>][,...]";
}

static cl::opt<std::string> ClModName("klto-modname",
                                      cl::desc("klto: module name for ids"));
static cl::list<std::string>
    ClTables("klto-table", cl::CommaSeparated,
             cl::desc("klto: extra table section names"));
static cl::opt<bool> ClNoStubs("klto-no-stubs",
                               cl::desc("klto: do not create asm stubs"));
static cl::opt<bool>
    ClNoKeepAsmRefs("klto-no-keep-asm-refs",
                    cl::desc("klto: do not keep inline-asm-only symbols"));
static cl::opt<bool> ClVerbose("klto-verbose",
                               cl::desc("klto: print every action"));
static cl::opt<bool> ClKfence("klto-kfence",
                              cl::desc("klto: redirect allocations to KFENCE"));
static cl::opt<bool>
    ClKfenceCxx("klto-kfence-cxx",
                cl::desc("klto: also redirect C++ new/delete to KFENCE"));
static cl::list<std::string>
    ClKfenceAlloc("klto-kfence-alloc", cl::CommaSeparated,
                  cl::desc("klto: project allocators to redirect"));

Options optionsFromCommandLine() {
  Options O;
  O.ModName = ClModName;
  O.Tables.assign(ClTables.begin(), ClTables.end());
  O.Stubs = !ClNoStubs;
  O.KeepAsmRefs = !ClNoKeepAsmRefs;
  O.Verbose = ClVerbose;
  O.KfenceCxx = ClKfenceCxx;
  O.Kfence = ClKfence || ClKfenceCxx;
  O.KfenceAllocators.assign(ClKfenceAlloc.begin(), ClKfenceAlloc.end());
  return O;
}

} // namespace klto
