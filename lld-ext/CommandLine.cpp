//===- CommandLine.cpp - klto's options and the link's inputs -------------===//
//
// Everything LLD's options mean is decided by LLD's own table; this file
// only names the options klto must know about, by the names Options.td
// gives them (an alias parses to the option it stands for), and follows
// LLD's createFiles()/readFile() for where inputs come from.
//
//===----------------------------------------------------------------------===//
#include "CommandLine.h"

#include "klto/LLVMAdapter.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Option/Option.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace lld::elf {
// lld/ELF/Driver.h is not installed. liblldELF exports the class: a
// GenericOptTable over LLD's Options.td with no data of its own.
class ELFOptTable : public llvm::opt::GenericOptTable {
public:
  ELFOptTable();
};
} // namespace lld::elf

using llvm::StringRef;
using llvm::opt::Arg;
using llvm::opt::InputArgList;
using llvm::opt::Option;

namespace klto::ld {

namespace {
enum class KltoId {
#define KLTO_FLAG(Id, Name, Help) Id,
#define KLTO_VALUE(Id, Name, MetaVar, Help) Id,
#include "KltoOptions.def"
};

struct KltoOptionInfo {
  KltoId Id;
  const char *Name, *MetaVar, *Help;
};

const KltoOptionInfo KltoOptionTable[] = {
#define KLTO_FLAG(Id, Name, Help) {KltoId::Id, Name, nullptr, Help},
#define KLTO_VALUE(Id, Name, MetaVar, Help) {KltoId::Id, Name, MetaVar, Help},
#include "KltoOptions.def"
};

/// One use of a klto option in the argument vector.
struct KltoUse {
  const KltoOptionInfo *Info;
  StringRef Value;
  bool HasValue;
};
} // namespace

static llvm::Error failure(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

/// `S` as a klto option (one or two dashes, "=value" or not).
static std::optional<KltoUse> matchKlto(StringRef S) {
  if (!S.consume_front("-"))
    return std::nullopt;
  S.consume_front("-");
  auto [Name, Value] = S.split('=');
  for (const KltoOptionInfo &O : KltoOptionTable)
    if (Name == O.Name)
      return KltoUse{&O, Value, S.contains('=')};
  return std::nullopt;
}

static llvm::Error apply(const KltoUse &U, KltoOptions &K) {
  std::string Value = U.Value.str();
  if (!U.Info->MetaVar && U.HasValue)
    return failure(llvm::Twine("--") + U.Info->Name + " takes no value");
  switch (U.Info->Id) {
  case KltoId::InitOrder:
    K.InitOrder = true;
    break;
  case KltoId::OrderMap:
    K.OrderMap = Value;
    K.InitOrder = true;
    break;
  case KltoId::Table:
    if (std::string Err = TableList::read(Value, K.Tables); !Err.empty())
      return failure("--kinit-table=" + Value + ": " + Err);
    // A table is named to be ordered, as a map is asked for to see the order.
    K.InitOrder = true;
    break;
  case KltoId::MergeSections:
    K.MergeSections = true;
    break;
  case KltoId::UsedSymbolFile:
    K.UsedSymbolFiles.push_back(Value);
    break;
  case KltoId::UsedSymbol:
    K.UsedSymbolNames.push_back(Value);
    break;
  case KltoId::NoUsedSymbols:
    K.UsedSymbols = false;
    break;
  case KltoId::Symversions:
    K.Symversions = true;
    break;
  }
  return llvm::Error::success();
}

/// The arguments after argv[0] as LLD's link reads them, as
/// ELFOptTable::parse makes them: response files expanded with the quoting
/// --rsp-quoting asks for, "-plugin-opt x" pairs joined. parse() itself
/// cannot be used for this: it reports through lld's error handler, and
/// LLVM's expansion prints its errors, which LLD prints again when it runs
/// (a recursive response file would be reported three times). None when LLD
/// will reject the response files.
static std::optional<std::vector<const char *>>
expandAsLLD(const llvm::opt::OptTable &Table, llvm::ArrayRef<const char *> Args,
            llvm::StringSaver &Saver) {
  unsigned MissingIndex = 0, MissingCount = 0;
  InputArgList First = Table.ParseArgs(Args, MissingIndex, MissingCount);
  llvm::cl::TokenizerCallback Tokenizer = llvm::cl::TokenizeGNUCommandLine;
  for (const Arg *A : First) {
    if (A->getOption().getName() != "rsp-quoting")
      continue;
    StringRef Style = A->getValue();
    if (Style != "windows" && Style != "posix")
      return std::nullopt;
    Tokenizer = Style == "windows" ? llvm::cl::TokenizeWindowsCommandLine
                                   : llvm::cl::TokenizeGNUCommandLine;
  }
  llvm::SmallVector<const char *, 256> Vec(Args.begin(), Args.end());
  llvm::cl::ExpansionContext Expander(Saver.getAllocator(), Tokenizer);
  if (llvm::Error E = Expander.expandResponseFiles(Vec)) {
    llvm::consumeError(std::move(E));
    return std::nullopt;
  }
  std::vector<const char *> Out;
  for (size_t I = 0; I < Vec.size(); ++I) {
    StringRef S = Vec[I];
    if ((S == "-plugin-opt" || S == "--plugin-opt") && I + 1 < Vec.size())
      Out.push_back(Saver.save(S + "=" + Vec[++I]).data());
    else
      Out.push_back(Vec[I]);
  }
  return Out;
}

/// Takes klto's options out of `Vec` and returns LLD's parse of the rest.
/// Only an argument LLD does not know is klto's, never another option's
/// value; one whose value is the next argument makes LLD's parse of what
/// follows stale, so the loop parses again.
static llvm::Expected<InputArgList>
takeKltoOptions(const llvm::opt::OptTable &Table,
                std::vector<const char *> &Vec, KltoOptions &K,
                bool &Malformed) {
  for (;;) {
    unsigned MissingIndex = 0, MissingCount = 0;
    InputArgList Args = Table.ParseArgs(Vec, MissingIndex, MissingCount);
    std::vector<bool> Drop(Vec.size());
    bool Found = false, Stale = false;
    for (const Arg *A : Args) {
      if (A->getOption().getKind() != Option::UnknownClass)
        continue;
      unsigned I = A->getIndex();
      std::optional<KltoUse> U = matchKlto(Vec[I]);
      if (!U)
        continue;
      Found = Drop[I] = true;
      if (U->Info->MetaVar && !U->HasValue) {
        if (I + 1 >= Vec.size())
          return failure(llvm::Twine("--") + U->Info->Name + ": missing value");
        U->Value = Vec[I + 1];
        U->HasValue = true;
        Drop[I + 1] = Stale = true;
      }
      if (llvm::Error E = apply(*U, K))
        return std::move(E);
      if (Stale)
        break;
    }
    if (!Found) {
      Malformed = MissingCount || llvm::any_of(Args, [](const Arg *A) {
                    return A->getOption().getKind() == Option::UnknownClass;
                  });
      return std::move(Args);
    }
    size_t Kept = 0;
    for (size_t I = 0; I < Vec.size(); ++I)
      if (!Drop[I])
        Vec[Kept++] = Vec[I];
    Vec.resize(Kept);
  }
}

namespace {
/// Where LLD looks for the files it reads: -L dirs (with --sysroot for
/// "=dir"), --chroot, --remap-inputs.
class FileLookup {
public:
  void init(const InputArgList &Args) {
    for (const Arg *A : Args) {
      StringRef N = A->getOption().getName();
      if (N == "L")
        SearchPaths.push_back(A->getValue());
      else if (N == "sysroot")
        Sysroot = A->getValue();
      else if (N == "chroot")
        Chroot = A->getValue();
      else if (N == "remap-inputs")
        addRemap(A->getValue());
    }
    for (const Arg *A : Args) {
      if (A->getOption().getName() != "remap-inputs-file=")
        continue;
      auto Buf = llvm::MemoryBuffer::getFile(path(A->getValue()), true);
      if (!Buf)
        continue; // LLD reports it
      StringRef Text = (*Buf)->getBuffer();
      while (!Text.empty()) {
        auto [Line, Rest] = Text.split('\n');
        Text = Rest;
        Line = Line.split('#').first.trim();
        if (!Line.empty())
          addRemap(Line);
      }
    }
  }

  /// The file LLD's readFile() opens for `Path`.
  std::string path(StringRef Path) const {
    std::string P = !Chroot.empty() && Path.starts_with("/")
                        ? Chroot + Path.str()
                        : Path.str();
    auto It = Exact.find(P);
    if (It != Exact.end())
      return It->second;
    for (const auto &[Pattern, To] : Globs)
      if (Pattern.match(P))
        return To;
    return P;
  }

  /// LLD's searchLibrary() for -l<Name>.
  std::optional<std::string> library(StringRef Name, bool Static) const {
    if (Name.consume_front(":"))
      return inSearchPaths(Name);
    for (StringRef Dir : SearchPaths) {
      if (!Static)
        if (auto P = find(Dir, "lib" + Name + ".so"))
          return P;
      if (auto P = find(Dir, "lib" + Name + ".a"))
        return P;
    }
    return std::nullopt;
  }

  /// LLD's searchScript(): as given, then in the -L dirs.
  std::optional<std::string> script(StringRef Name) const {
    if (llvm::sys::fs::exists(Name))
      return Name.str();
    return inSearchPaths(Name);
  }

private:
  void addRemap(StringRef Line) {
    auto [From, To] = Line.split('=');
    if (To.empty() || To.contains('='))
      return; // LLD reports it
    if (From.find_first_of("?*[") == StringRef::npos) {
      Exact[From] = To.str();
      return;
    }
    if (auto Pattern = llvm::GlobPattern::create(From))
      Globs.emplace_back(std::move(*Pattern), To.str());
    else
      llvm::consumeError(Pattern.takeError());
  }

  std::optional<std::string> find(StringRef Dir,
                                  const llvm::Twine &Name) const {
    llvm::SmallString<256> P;
    if (Dir.consume_front("="))
      llvm::sys::path::append(P, Sysroot, Dir, Name);
    else
      llvm::sys::path::append(P, Dir, Name);
    if (llvm::sys::fs::exists(P))
      return std::string(P);
    return std::nullopt;
  }

  std::optional<std::string> inSearchPaths(StringRef Name) const {
    for (StringRef Dir : SearchPaths)
      if (auto P = find(Dir, Name))
        return P;
    return std::nullopt;
  }

  std::vector<StringRef> SearchPaths;
  std::string Sysroot, Chroot;
  llvm::StringMap<std::string> Exact;
  std::vector<std::pair<llvm::GlobPattern, std::string>> Globs;
};

/// Input state createFiles() keeps while it walks the arguments.
struct InputState {
  bool Static = false, WholeArchive = false;
};
} // namespace

/// The arguments of LinkLine::Args `A` took: its own and, for a separate
/// value, the next.
static ArgSpan spanOf(const Arg *A, llvm::ArrayRef<const char *> Vec,
                      size_t Prefix) {
  unsigned I = A->getIndex();
  bool Separate =
      A->getNumValues() && I + 1 < Vec.size() && A->getValue() == Vec[I + 1];
  return {I + Prefix, Separate ? 2u : 1u};
}

/// Inputs in link order, as createFiles() adds them.
static void collectInputs(const InputArgList &Args, const FileLookup &Files,
                          LinkLine &L) {
  InputState State{L.Relocatable, false};
  std::vector<InputState> Saved;
  bool Lazy = false, Binary = false;
  for (const Arg *A : Args) {
    StringRef N = A->getOption().getName();
    auto Add = [&](StringRef Path) {
      if (!Binary)
        L.Inputs.push_back({Files.path(Path), State.WholeArchive, Lazy});
    };
    if (A->getOption().getKind() == Option::InputClass) {
      Add(A->getValue());
    } else if (N == "l") {
      if (auto P = Files.library(A->getValue(), State.Static))
        Add(*P); // LLD reports a library it cannot find
    } else if (N == "Bstatic" || N == "omagic" || N == "nmagic") {
      State.Static = true;
    } else if (N == "Bdynamic") {
      State.Static = L.Relocatable;
    } else if (N == "whole-archive" || N == "no-whole-archive") {
      State.WholeArchive = N == "whole-archive";
    } else if (N == "start-lib" || N == "end-lib") {
      Lazy = N == "start-lib";
    } else if (N == "push-state") {
      Saved.push_back(State);
    } else if (N == "pop-state" && !Saved.empty()) {
      State = Saved.back();
      Saved.pop_back();
    } else if (N == "format") {
      Binary = StringRef(A->getValue()) == "binary";
    }
  }
}

/// The options that decide what klto can add, and how.
static void readLinkOptions(const InputArgList &Args,
                            llvm::ArrayRef<const char *> Vec,
                            const FileLookup &Files, LinkLine &L) {
  bool HasInputFile = false, Version = false, V = false;
  bool Shared = false, ExportDynamic = false;
  for (const Arg *A : Args) {
    StringRef N = A->getOption().getName();
    if (A->getOption().getKind() == Option::InputClass) {
      HasInputFile = true;
    } else if (N == "o") {
      L.OutputArg = spanOf(A, Vec, L.Prefix);
      L.Output = A->getValue();
    } else if (N == "script" || N == "default-script") {
      if (auto P = Files.script(A->getValue()))
        L.Scripts.push_back(
            {Files.path(*P), spanOf(A, Vec, L.Prefix), N == "default-script"});
    } else if (N == "symbol-ordering-file") {
      L.OrderingFileArg = spanOf(A, Vec, L.Prefix);
      L.UserOrderingFile = Files.path(A->getValue());
    } else if (N == "call-graph-ordering-file") {
      L.CallGraphOrderingFile = true;
    } else if (N == "warn-symbol-ordering" || N == "no-warn-symbol-ordering") {
      L.WarnSymbolOrdering = N == "warn-symbol-ordering";
    } else if (N == "relocatable") {
      L.Relocatable = true;
    } else if (N == "shared") {
      Shared = true;
    } else if (N == "export-dynamic" || N == "no-export-dynamic") {
      ExportDynamic = N == "export-dynamic";
    } else if (N == "verbose") {
      L.Verbose = true;
    } else if (N == "save-temps" || N == "save-temps=") {
      L.SaveTemps = true;
    } else if (N == "time-trace=") {
      L.TimeTraceArg = spanOf(A, Vec, L.Prefix);
      L.TimeTrace = A->getNumValues() ? A->getValue() : "";
    } else if (N == "thinlto-index-only" || N == "thinlto-index-only=") {
      L.IndexOnly = true;
    } else if (N == "help") {
      L.Help = true;
    } else if (N == "version") {
      Version = true;
    } else if (N == "v") {
      V = true;
    }
  }
  // -dT is read only when no -T is given.
  if (llvm::any_of(L.Scripts, [](const UserScript &S) { return !S.Default; }))
    llvm::erase_if(L.Scripts, [](const UserScript &S) { return S.Default; });
  L.ExportsAll = Shared || ExportDynamic;
  L.PrintsVersion = Version || V;
  L.InfoOnly = L.Help || Version || (V && !HasInputFile);
  L.PlanOnly = !L.Help && Version && HasInputFile;
}

/// lldMain takes "-flavor <name>" only as argv[1] and argv[2]; a wrapper
/// may have put klto's flags before it. Returns where LLD's own arguments
/// start, with the flavor (if any) moved to `Flavor`.
static std::vector<const char *> takeFlavor(llvm::ArrayRef<const char *> Argv,
                                            std::vector<const char *> &Flavor) {
  std::vector<const char *> Rest{Argv[0]};
  size_t I = 1;
  while (I < Argv.size() && matchKlto(Argv[I]) &&
         !matchKlto(Argv[I])->Info->MetaVar)
    ++I;
  if (I + 1 < Argv.size() && StringRef(Argv[I]) == "-flavor") {
    Flavor = {Argv[I], Argv[I + 1]};
    Rest.insert(Rest.end(), Argv.begin() + 1, Argv.begin() + I);
    Rest.insert(Rest.end(), Argv.begin() + I + 2, Argv.end());
  } else {
    Rest.insert(Rest.end(), Argv.begin() + 1, Argv.end());
  }
  return Rest;
}

llvm::Expected<LinkLine> parseLinkLine(llvm::ArrayRef<const char *> Argv,
                                       llvm::StringSaver &Saver) {
  LinkLine L;
  std::vector<const char *> Flavor;
  std::vector<const char *> Own = takeFlavor(Argv, Flavor);
  lld::elf::ELFOptTable Table;
  llvm::ArrayRef<const char *> UserArgs = llvm::ArrayRef(Own).drop_front();
  auto Expanded = expandAsLLD(Table, UserArgs, Saver);
  std::vector<const char *> Vec =
      Expanded ? *Expanded
               : std::vector<const char *>(UserArgs.begin(), UserArgs.end());
  auto ArgsOrErr = takeKltoOptions(Table, Vec, L.Klto, L.Malformed);
  L.Malformed |= !Expanded;
  if (!ArgsOrErr)
    return ArgsOrErr.takeError();
  const InputArgList &Args = *ArgsOrErr;
  L.Args.push_back(Argv[0]);
  L.Args.insert(L.Args.end(), Flavor.begin(), Flavor.end());
  L.Prefix = L.Args.size();
  L.Args.insert(L.Args.end(), Vec.begin(), Vec.end());
  FileLookup Files;
  Files.init(Args);
  readLinkOptions(Args, Vec, Files, L);
  collectInputs(Args, Files, L);
  return L;
}

void printKltoHelp(llvm::raw_ostream &OS) {
  OS << "\nklto OPTIONS:\n";
  for (const KltoOptionInfo &O : KltoOptionTable) {
    std::string Spelling = std::string("--") + O.Name;
    if (O.MetaVar)
      Spelling += std::string("=") + O.MetaVar;
    OS << "  " << llvm::left_justify(Spelling, 30) << " " << O.Help << "\n";
  }
}

} // namespace klto::ld
