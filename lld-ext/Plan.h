//===- Plan.h - what klto adds to one LLD link ------------------*- C++ -*-===//
//
// The driver plans a link, then runs it. Planning reads the inputs and
// decides every argument klto gives LLD; a link with nothing to order, no
// module merge, no symversions and no bitcode definition to keep gets
// none, and LLD runs on the user's exact arguments. klto's arguments go
// right after argv[0] or in place of the user's own (-o for a -r sort, a
// script klto copied, an ordering file klto merged), never after the
// user's last argument, which may be an option still waiting for its value.
//
//===----------------------------------------------------------------------===//
#ifndef KLTO_LD_PLAN_H
#define KLTO_LD_PLAN_H

#include "CommandLine.h"
#include "RelocOutput.h"
#include "Scanner.h"
#include "TempFiles.h"

#include "klto/LLVMAdapter.h"
#include "klto/strmap.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/StringSaver.h"

#include <optional>
#include <string>
#include <vector>

namespace klto::ld {

/// Every diagnostic klto writes, with the program name as LLD writes it.
struct Diag {
  const char *Argv0;
  size_t Errors = 0;
};
void printDiag(void *Ctx, klto_diag_level Level, size_t, const char *Msg);
/// Reports an error; returns false, for `return fail(...)` in planners.
bool fail(Diag &D, const llvm::Twine &Msg);

struct LinkPlan {
  explicit LinkPlan(const LinkLine &L)
      : TableNames(L.Klto.Tables), Tables(TableNames) {}
  LinkPlan(const LinkPlan &) = delete;
  LinkPlan &operator=(const LinkPlan &) = delete;
  ~LinkPlan() { klto_strmap_free(&Ranks); }

  /// LLD's argument vector: the user's, with klto's changes.
  std::vector<const char *> args(const LinkLine &L) const;

  std::vector<const char *> Front;
  std::vector<std::pair<ArgSpan, std::vector<const char *>>> Replace;
  /// Copies of user scripts LLD reads instead: (copy, original), for the
  /// note after a failed link.
  std::vector<std::pair<std::string, std::string>> ScriptCopies;
  /// klto's entry symbols in an ordering file that also holds the user's
  /// and keeps their warnings: LLD's "no such symbol" for these is about
  /// an archive member it did not load, not the user's list.
  llvm::StringSet<> OwnOrderSymbols;
  /// A -r link whose entry sections klto sorts after LLD has written.
  std::optional<RelocOutput> Reloc;
  /// Its sections' places in the order; keys are the scanner's strings.
  klto_strmap Ranks{};
  /// An input klto could not read: LLD runs without klto's additions and
  /// says what is wrong with it; should it link anyway, this is the error.
  std::string ScanError;

  /// The extra tables: the user's specs until the scan, then the tables
  /// of the link one by one, each pattern replaced by the tables it
  /// matched, so that each has its place in the order and its own output
  /// section.
  std::vector<std::string> TableNames;
  TableList Tables;
  std::optional<Scanner> S;
};

/// Decides what klto adds to the link; false after reporting an error.
bool planLink(Diag &D, const LinkLine &L, TempFiles &Temps,
              llvm::StringSaver &Saver, LinkPlan &P);

} // namespace klto::ld

#endif // KLTO_LD_PLAN_H
