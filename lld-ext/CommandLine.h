//===- CommandLine.h - klto's options and the link's inputs -----*- C++ -*-===//
//
// Takes klto's own options out of an ld.lld command line (response files
// expanded first, so options inside them are found too) and walks what is
// left the way LLD does, to learn the inputs in link order (-l lookups,
// archives, --whole-archive) and the options that decide how the order can
// be applied (-r, -T, --symbol-ordering-file). Everything else passes to
// LLD untouched.
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

struct LinkInput {
  std::string Path;
  bool WholeArchive;
};

struct UserScript {
  std::string Path;
  size_t ArgIndex; // of the path in LldArgs
};

struct LinkLine {
  KltoOptions Klto;
  /// argv[0] and every argument for LLD, klto's, -o and the user's
  /// --symbol-ordering-file taken out (klto merges the latter into its own).
  std::vector<const char *> LldArgs;
  std::vector<LinkInput> Inputs;
  std::string Output = "a.out";
  std::vector<UserScript> UserScripts;
  std::optional<std::string> UserOrderingFile;
  bool Relocatable = false;
  bool Verbose = false;
  /// --time-trace[=file]: where LLD writes its trace ("" for its default).
  std::optional<std::string> TimeTrace;
  bool IndexOnly = false; // --thinlto-index-only: no output to order
  bool InfoOnly = false;  // --version, --help, -v with no inputs
};

/// Parses `Args` (argv[0] first). Strings live in `Saver`.
llvm::Expected<LinkLine> parseLinkLine(llvm::ArrayRef<const char *> Args,
                                       llvm::StringSaver &Saver);

} // namespace klto::ld

#endif // KLTO_LD_COMMANDLINE_H
