//===- CommandLine.h - klto's options and the link's inputs -----*- C++ -*-===//
//
// Reads an ld.lld command line with LLD's own option table (ELFOptTable,
// exported by liblldELF): response files, --rsp-quoting, aliases, joined
// and separate forms are LLD's. klto's options (KltoOptions.def) are taken
// out; every other argument stays where it was, so a link klto has nothing
// to add to runs LLD on exactly what the user wrote. The walk over the
// parsed arguments learns what LLD will read: inputs in link order (-l
// lookups, --chroot, --remap-inputs, archives under --whole-archive or
// lazily, --start-lib), scripts, -o, and the options that decide how an
// order can be applied.
//
//===----------------------------------------------------------------------===//
#ifndef KLTO_LD_COMMANDLINE_H
#define KLTO_LD_COMMANDLINE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/StringSaver.h"

#include <optional>
#include <string>
#include <vector>

namespace klto::ld {

struct KltoOptions {
  bool InitOrder = false;
  std::optional<std::string> OrderMap; // "-" is stdout
  std::vector<std::string> Tables;
  bool MergeSections = false;
  bool UsedSymbols = true;
  std::vector<std::string> UsedSymbolFiles, UsedSymbolNames;
  bool Symversions = false;
};

/// The arguments of LinkLine::Args one option took (one, or two for a
/// separate value), so klto can put its own in their place.
struct ArgSpan {
  size_t Begin = 0, Count = 0;
};

struct LinkInput {
  std::string Path; // as LLD opens it
  bool WholeArchive = false;
  bool Lazy = false; // between --start-lib and --end-lib
};

struct UserScript {
  std::string Path; // found as LLD finds it: as given, then in -L dirs
  ArgSpan Span;
  bool Default = false; // --default-script/-dT: read only without -T
};

struct LinkLine {
  KltoOptions Klto;
  /// argv[0] (and "-flavor <name>" after it, which lldMain reads there),
  /// then LLD's arguments: response files expanded as LLD expands them,
  /// klto's options taken out, nothing else changed.
  std::vector<const char *> Args;
  /// How many of Args come before the arguments klto may add to.
  size_t Prefix = 1;
  /// LLD will reject the command line (an unknown option, a missing
  /// value): klto adds nothing and lets LLD say so.
  bool Malformed = false;
  std::vector<LinkInput> Inputs;
  std::vector<UserScript> Scripts;
  /// The last -o (LLD's), and its value; OUTPUT() or a.out without one.
  std::optional<ArgSpan> OutputArg;
  std::string Output;
  /// The last --symbol-ordering-file, and its value.
  std::optional<ArgSpan> OrderingFileArg;
  std::string UserOrderingFile;
  bool CallGraphOrderingFile = false;
  bool WarnSymbolOrdering = true;
  bool Relocatable = false;
  /// -shared or --export-dynamic: every default-visibility definition is
  /// exported, so LTO keeps it.
  bool ExportsAll = false;
  bool Verbose = false;
  bool SaveTemps = false; // --save-temps[=...]: klto keeps its files too
  /// The last --time-trace[=file], and where LLD writes its trace ("" for
  /// next to the output).
  std::optional<ArgSpan> TimeTraceArg;
  std::optional<std::string> TimeTrace;
  bool IndexOnly = false; // --thinlto-index-only: no output to order
  bool Help = false;
  /// LLD prints its version (--version, -v) and, for these, links nothing.
  bool PrintsVersion = false;
  /// LLD prints and links nothing: --help, --version, -v with no input.
  bool InfoOnly = false;
  /// --version with inputs: klto still does its part (its files, the order
  /// map), as for a link, and LLD stops right after it; bench/linker times
  /// klto's part that way.
  bool PlanOnly = false;
};

/// Parses `Argv` (argv[0] first). Strings live in `Saver`. Fails only for
/// misused klto options.
llvm::Expected<LinkLine> parseLinkLine(llvm::ArrayRef<const char *> Argv,
                                       llvm::StringSaver &Saver);

/// Prints klto's options, for --help after LLD's own.
void printKltoHelp(llvm::raw_ostream &OS);

} // namespace klto::ld

#endif // KLTO_LD_COMMANDLINE_H
