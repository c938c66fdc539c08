//===- Driver.cpp - klto's ld.lld: LLD 19 with initcall ordering ----------===//
//
// Parse the command line with LLD's table, plan what klto adds (Plan.h),
// run LLD in process on the result, then finish what only works after
// LLD: the -r entry sort, klto's --help and --version lines. A link klto
// has nothing to add to is LLD on the user's own arguments.
//
//===----------------------------------------------------------------------===//
#include "CommandLine.h"
#include "Plan.h"
#include "sectsort.h"

#include "lld/Common/Driver.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>

LLD_HAS_DRIVER(elf)

namespace lld {
// lld/Common/Version.h needs a generated header Debian does not install;
// liblldCommon exports the function ("LLD 19.1.7", or $LLD_VERSION).
std::string getLLDVersion();
} // namespace lld

using llvm::StringRef;
using namespace klto::ld;

namespace {

/// LLD's diagnostics, less its "no such symbol" warnings about klto's own
/// entries in an ordering file that also holds the user's: those name
/// archive members LLD did not load, not a mistake of the user's.
class OrderingWarningFilter : public llvm::raw_ostream {
public:
  OrderingWarningFilter(llvm::raw_ostream &Out, const llvm::StringSet<> &Own)
      : Out(Out), Own(Own) {
    SetUnbuffered();
  }
  ~OrderingWarningFilter() override {
    Out << Line;
    Out.flush();
  }
  bool has_colors() const override { return Out.has_colors(); }
  bool is_displayed() const override { return Out.is_displayed(); }

private:
  void write_impl(const char *Ptr, size_t Size) override {
    Pos += Size;
    Line.append(Ptr, Size);
    size_t End;
    while ((End = Line.find('\n')) != std::string::npos) {
      StringRef L(Line.data(), End);
      size_t At = L.find("symbol ordering file: no such symbol: ");
      if (At == StringRef::npos || !Own.contains(L.drop_front(At + 38).rtrim()))
        Out << L << '\n';
      Line.erase(0, End + 1);
    }
  }
  uint64_t current_pos() const override { return Pos; }

  llvm::raw_ostream &Out;
  const llvm::StringSet<> &Own;
  std::string Line;
  uint64_t Pos = 0;
};

/// Sorts the entry sections LLD wrote and puts the result at the output.
int sortRelocatable(Diag &D, const LinkPlan &P, bool Verbose) {
  auto Start = std::chrono::steady_clock::now();
  const RelocOutput &R = *P.Reloc;
  // Mapped, so only the pages holding section headers, symbols and groups
  // are written back, not the whole object.
  int FD;
  StringRef From = R.lldPath();
  if (std::error_code EC = llvm::sys::fs::openFileForReadWrite(
          From, FD, llvm::sys::fs::CD_OpenExisting, llvm::sys::fs::OF_None)) {
    R.discard();
    fail(D, "cannot open " + From + ": " + EC.message());
    return 1;
  }
  llvm::sys::fs::file_status Status;
  std::error_code EC = llvm::sys::fs::status(FD, Status);
  const char *Err = nullptr;
  if (!EC) {
    llvm::sys::fs::mapped_file_region Map(
        llvm::sys::fs::convertFDToNativeFile(FD),
        llvm::sys::fs::mapped_file_region::readwrite, Status.getSize(), 0, EC);
    if (!EC)
      Err = klto_sort_relocatable(reinterpret_cast<unsigned char *>(Map.data()),
                                Status.getSize(), &P.Tables.get(), &P.Ranks);
  }
  llvm::sys::Process::SafelyCloseFileDescriptor(FD);
  if (EC || Err) {
    R.discard();
    fail(D, "cannot order the entry sections of " + R.output() + ": " +
                (EC ? EC.message() : std::string(Err)));
    return 1;
  }
  if (llvm::Error E = R.commit()) {
    fail(D, llvm::toString(std::move(E)));
    return 1;
  }
  if (Verbose)
    llvm::errs() << "klto: entry sections of " << R.output() << " sorted in "
                 << llvm::format("%.1f",
                                 std::chrono::duration<double, std::milli>(
                                     std::chrono::steady_clock::now() - Start)
                                     .count())
                 << " ms\n";
  return 0;
}

/// What LLD printed for --help and --version, then klto's part.
void printInfo(const LinkLine &L) {
  if (L.Help)
    printKltoHelp(llvm::outs());
  else if (L.PrintsVersion)
    llvm::outs() << "klto's ld.lld: " << lld::getLLDVersion()
                 << " with linker-section table ordering for LTO\n";
  llvm::outs().flush();
}

/// LLD has linked; the output is final unless klto has work left on it.
int finishLink(Diag &D, const LinkLine &L, const LinkPlan &P) {
  if (!P.ScanError.empty()) {
    // LLD could read what klto could not: the order may be wrong, so the
    // output is not left behind as if it were right.
    std::string Output = L.Output.empty() ? "a.out" : L.Output;
    if (llvm::sys::fs::is_regular_file(Output))
      llvm::sys::fs::remove(Output);
    fail(D, P.ScanError);
    return 1;
  }
  return P.Reloc ? sortRelocatable(D, P, L.Verbose) : 0;
}

int runLink(Diag &D, const LinkLine &L, const LinkPlan &P) {
  std::vector<const char *> Args = P.args(L);
  std::optional<OrderingWarningFilter> Filter;
  if (!P.OwnOrderSymbols.empty())
    Filter.emplace(llvm::errs(), P.OwnOrderSymbols);
  // lldMain, not the exit-early variant: klto's files must outlive LLD and
  // be removed after it.
  lld::Result R = lld::lldMain(
      Args, llvm::outs(),
      Filter ? static_cast<llvm::raw_ostream &>(*Filter) : llvm::errs(),
      {{lld::Gnu, &lld::elf::link}});
  Filter.reset();
  llvm::outs().flush();
  if (L.InfoOnly && !R.retCode)
    printInfo(L);
  if (R.retCode) {
    for (const auto &[Copy, Original] : P.ScriptCopies)
      llvm::errs() << "note: " << Copy << " in the messages above is klto's "
                   << "copy of " << Original
                   << " with klto's section patterns added\n";
    if (P.Reloc)
      P.Reloc->discard();
    return R.retCode;
  }
  return L.InfoOnly ? 0 : finishLink(D, L, P);
}

} // namespace

int main(int Argc, const char **Argv) {
  llvm::InitLLVM X(Argc, Argv);
  // As LLD's own ld.lld does: LLD's tests check the crash report.
  if (std::getenv("FORCE_LLD_DIAGNOSTICS_CRASH")) {
    llvm::errs()
        << "crashing due to environment variable FORCE_LLD_DIAGNOSTICS_CRASH\n";
    LLVM_BUILTIN_TRAP;
  }
  Diag D{Argv[0]};
  llvm::BumpPtrAllocator Alloc;
  llvm::StringSaver Saver(Alloc);
  auto LineOrErr = parseLinkLine(llvm::ArrayRef(Argv, Argc), Saver);
  if (!LineOrErr) {
    fail(D, llvm::toString(LineOrErr.takeError()));
    return 1;
  }
  const LinkLine &L = *LineOrErr;
  // Kept files go beside the output, as LLD's own; output to stdout has
  // no "beside".
  std::string Output = L.Output.empty() ? "a.out" : L.Output;
  TempFiles Temps(L.SaveTemps && Output != "-" ? Output : "", L.Verbose);
  LinkPlan P(L);
  if (!L.Malformed && (!L.InfoOnly || L.PlanOnly) &&
      !planLink(D, L, Temps, Saver, P))
    return 1;
  return runLink(D, L, P);
}
