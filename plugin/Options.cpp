//===- Options.cpp - klto plugin options ----------------------------------===//
//
// Parsing for both ways the plugin is loaded. Unknown or malformed options
// are errors, never silently ignored: a typo in a table name would otherwise
// leave entries unordered without a word.
//
//===----------------------------------------------------------------------===//
#include "Options.h"
#include "KfenceHooks.h"

#include "klto/LLVMAdapter.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"

#include <iterator>

using namespace llvm;

namespace klto {

namespace {
enum class Kind { Flag, Value, List };

struct OptionInfo {
  Kind K;
  const char *Name, *MetaVar, *Help;
  bool Default;
};

const OptionInfo OptionTable[] = {
#define KLTO_PLUGIN_FLAG(Field, Name, Default, Help)                           \
  {Kind::Flag, Name, nullptr, Help, Default},
#define KLTO_PLUGIN_VALUE(Field, Name, MetaVar, Help)                          \
  {Kind::Value, Name, MetaVar, Help, false},
#define KLTO_PLUGIN_LIST(Field, Name, MetaVar, Help)                           \
  {Kind::List, Name, MetaVar, Help, false},
#include "Options.def"
};
} // namespace

/// Where Options keeps the option of OptionTable's entry I.
static void *field(Options &O, size_t I) {
  void *Fields[] = {
#define KLTO_PLUGIN_FLAG(Field, Name, Default, Help) &O.Field,
#define KLTO_PLUGIN_VALUE(Field, Name, MetaVar, Help) &O.Field,
#define KLTO_PLUGIN_LIST(Field, Name, MetaVar, Help) &O.Field,
#include "Options.def"
  };
  return Fields[I];
}

bool Options::parse(const std::string &ArgStr, std::string &Error) {
  StringRef Arg(ArgStr);
  if (Arg == "help") {
    ShowHelp = true;
    return true;
  }
  auto [Name, Value] = Arg.split('=');
  bool HasValue = Arg.contains('=');
  for (size_t I = 0; I < std::size(OptionTable); ++I) {
    const OptionInfo &O = OptionTable[I];
    if (O.K == Kind::Flag) {
      if (HasValue || (Arg != O.Name && Arg != ("no-" + Twine(O.Name)).str()))
        continue;
      *static_cast<bool *>(field(*this, I)) = Arg == O.Name;
      return true;
    }
    if (Name != O.Name)
      continue;
    if (!HasValue || Value.empty()) {
      Error = ("option '" + Name + "' needs a value: -fplugin-arg-klto-" +
               Name + "=" + O.MetaVar)
                  .str();
      return false;
    }
    if (O.K == Kind::Value) {
      *static_cast<std::string *>(field(*this, I)) = Value.str();
      return true;
    }
    SmallVector<StringRef, 4> Items;
    Value.split(Items, ',');
    auto &List = *static_cast<std::vector<std::string> *>(field(*this, I));
    for (StringRef Item : Items)
      if (!Item.empty())
        List.push_back(Item.str());
    return true;
  }
  Error = ("unknown option '" + Arg + "'; " + usage()).str();
  return false;
}

bool Options::finish(std::string &Error) {
  // C++ operators and project allocators only make sense with the C hooks,
  // and naming them says KFENCE is wanted.
  Kfence |= KfenceCxx || !KfenceAllocators.empty() || !KfenceRuntime.empty();
  if (KfenceRuntime.empty())
    KfenceRuntime = "shared";
  if (KfenceRuntime != "shared" && KfenceRuntime != "static") {
    Error = "kfence-runtime='" + KfenceRuntime + "': expected shared or static";
    return false;
  }
  // Presets and patterns are read as the linker reads --kinit-table.
  std::vector<std::string> Specs;
  for (const std::string &T : Tables) {
    std::string Err = TableList::read(T, Specs);
    if (!Err.empty()) {
      Error = "table=" + T + ": " + Err;
      return false;
    }
  }
  Tables = std::move(Specs);
  for (const std::string &Spec : KfenceAllocators) {
    Error = checkKfenceAllocator(Spec);
    if (!Error.empty())
      return false;
  }
  return true;
}

static std::string spelling(const OptionInfo &O) {
  return O.K == Kind::Flag ? std::string("[no-]") + O.Name
         : O.K == Kind::Value
             ? std::string(O.Name) + "=" + O.MetaVar
             : std::string(O.Name) + "=" + O.MetaVar + "[,...]";
}

std::string Options::usage() {
  std::string U = "klto options (-fplugin-arg-klto-<option>):";
  for (const OptionInfo &O : OptionTable)
    U += (U.back() == ':' ? " " : ", ") + spelling(O);
  return U + ", help";
}

std::string Options::help() {
  std::string H = "klto plugin options, each given as "
                  "-fplugin-arg-klto-<option>:\n";
  auto Line = [&H](const std::string &Spelling, const std::string &Text) {
    H += "  " + Spelling;
    H += std::string(Spelling.size() < 38 ? 38 - Spelling.size() : 1, ' ');
    H += Text + "\n";
  };
  for (const OptionInfo &O : OptionTable)
    Line(spelling(O), O.K == Kind::Flag
                          ? std::string(O.Help) +
                                (O.Default ? " (default on)" : " (default off)")
                          : O.Help);
  Line("help", "print this list; the compile goes on");
  return H;
}

// opt and -fpass-plugin: a flag on by default is turned off with
// -klto-no-<name>, one off by default turned on with -klto-<name>.
#define KLTO_PLUGIN_FLAG(Field, Name, Default, Help)                           \
  static cl::opt<bool> Cl##Field(                                              \
      StringRef(Default ? "klto-no-" Name : "klto-" Name),                     \
      cl::desc("klto: " Help));
#define KLTO_PLUGIN_VALUE(Field, Name, MetaVar, Help)                          \
  static cl::opt<std::string> Cl##Field("klto-" Name, cl::desc("klto:"         \
                                                               " " Help));
#define KLTO_PLUGIN_LIST(Field, Name, MetaVar, Help)                           \
  static cl::list<std::string> Cl##Field("klto-" Name, cl::CommaSeparated,     \
                                         cl::desc("klto: " Help));
#include "Options.def"

Options optionsFromCommandLine() {
  Options O;
#define KLTO_PLUGIN_FLAG(Field, Name, Default, Help)                           \
  O.Field = Default ? !Cl##Field : bool(Cl##Field);
#define KLTO_PLUGIN_VALUE(Field, Name, MetaVar, Help) O.Field = Cl##Field;
#define KLTO_PLUGIN_LIST(Field, Name, MetaVar, Help)                           \
  O.Field.assign(Cl##Field.begin(), Cl##Field.end());
#include "Options.def"
  std::string Error;
  if (!O.finish(Error))
    report_fatal_error(Twine("klto: ") + Error, /*gen_crash_diag=*/false);
  return O;
}

} // namespace klto
