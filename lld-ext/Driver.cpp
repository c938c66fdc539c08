//===- Driver.cpp - klto's ld.lld: LLD 19 with initcall ordering ----------===//
//
// Takes klto's options out of the command line, scans the inputs when an
// option needs them, turns the computed order into files LLD reads
// (symbol ordering file, linker scripts), and runs LLD in process with the
// user's arguments plus those files. Every check that can fail does so
// before LLD runs, so a failed link never creates or replaces the output;
// only the -r post-pass runs after LLD, and once LLD has written, like LLD
// itself, it no longer keeps an old output.
//
//===----------------------------------------------------------------------===//
#include "CommandLine.h"
#include "Scanner.h"
#include "anchor.h"
#include "order.h"
#include "scriptpatch.h"
#include "sectsort.h"
#include "writers.h"

#include "klto/strmap.h"

#include "lld/Common/Driver.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

#include <chrono>
#include <cstdio>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

LLD_HAS_DRIVER(elf)

using llvm::StringRef;
using namespace klto::ld;

namespace {

/// Linux's scripts/lto-used-symbollist.txt: calls LTO's code generator may
/// add after it has internalized or dropped the definitions.
const char *const DefaultUsedSymbols[] = {
    "memcpy", "memmove", "memset", "__stack_chk_fail", "__stack_chk_guard"};

struct Diag {
  const char *Argv0;
  size_t Errors = 0;
};

void printDiag(void *Ctx, bool IsError, const char *Msg) {
  Diag &D = *static_cast<Diag *>(Ctx);
  llvm::errs() << llvm::sys::path::filename(D.Argv0)
               << (IsError ? ": error: " : ": warning: ") << Msg << "\n";
  D.Errors += IsError;
}

int fail(Diag &D, const llvm::Twine &Msg) {
  printDiag(&D, true, Msg.str().c_str());
  return 1;
}

/// Temporary files handed to LLD, removed when the link is over.
class TempFiles {
public:
  ~TempFiles() {
    for (const std::string &P : Paths)
      llvm::sys::fs::remove(P);
  }
  llvm::Expected<std::string> create(StringRef Suffix) {
    llvm::SmallString<128> P;
    if (std::error_code EC =
            llvm::sys::fs::createTemporaryFile("klto-ld", Suffix, P))
      return llvm::createStringError(EC, "cannot create a temporary file: " +
                                             EC.message());
    Paths.push_back(std::string(P));
    return Paths.back();
  }

private:
  std::vector<std::string> Paths;
};

/// Opens `Path` for writing as a C stream for the C writers.
FILE *openOut(StringRef Path) {
  return Path == "-" ? stdout : std::fopen(Path.str().c_str(), "w");
}

bool closeOut(FILE *F) {
  return F == stdout ? std::fflush(F) == 0 : std::fclose(F) == 0;
}

/// ELF class, byte order and machine for a triple, for links whose only
/// objects are bitcode.
std::optional<kl_elf_target> targetForTriple(StringRef TripleStr) {
  llvm::Triple T(TripleStr);
  kl_elf_target R{T.isArch64Bit(), !T.isLittleEndian(), 0, 0};
  switch (T.getArch()) {
  case llvm::Triple::x86_64:
    R.machine = llvm::ELF::EM_X86_64;
    break;
  case llvm::Triple::x86:
    R.machine = llvm::ELF::EM_386;
    break;
  case llvm::Triple::aarch64:
  case llvm::Triple::aarch64_be:
    R.machine = llvm::ELF::EM_AARCH64;
    break;
  case llvm::Triple::arm:
  case llvm::Triple::armeb:
  case llvm::Triple::thumb:
  case llvm::Triple::thumbeb:
    R.machine = llvm::ELF::EM_ARM;
    break;
  case llvm::Triple::riscv32:
  case llvm::Triple::riscv64:
    R.machine = llvm::ELF::EM_RISCV;
    break;
  case llvm::Triple::ppc64:
  case llvm::Triple::ppc64le:
    R.machine = llvm::ELF::EM_PPC64;
    break;
  default:
    return std::nullopt;
  }
  return R;
}

/// Appends the names in a used-symbol list file: one per line, '#' starts a
/// comment.
llvm::Error readSymbolList(StringRef Path, std::vector<std::string> &Out) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return llvm::createStringError(Buf.getError(),
                                   "cannot read " + Path + ": " +
                                       Buf.getError().message());
  StringRef Text = (*Buf)->getBuffer();
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Text = Rest;
    Line = Line.split('#').first.trim();
    if (!Line.empty())
      Out.push_back(Line.str());
  }
  return llvm::Error::success();
}

/// A user script that lays out a table itself takes precedence over any
/// script klto adds; for -r links that leaves no way to apply the order.
std::optional<std::string> scriptPlacingTables(const LinkLine &L,
                                               const klto_tables &Tables) {
  for (const UserScript &U : L.UserScripts) {
    const std::string &Script = U.Path;
    auto Buf = llvm::MemoryBuffer::getFile(Script, /*IsText=*/true);
    if (!Buf)
      continue; // LLD reports it
    if (kl_script_places_tables((*Buf)->getBufferStart(),
                                (*Buf)->getBufferSize(), &Tables))
      return Script;
  }
  return std::nullopt;
}

/// Linux's kbuild writes "<file>.symversions" beside each object and each
/// archive it builds; thin-archive members have their own.
std::vector<std::string> findSymversions(const LinkLine &L, const Scanner *S) {
  std::vector<std::string> Found;
  llvm::StringSet<> Seen;
  auto Try = [&](StringRef Path) {
    std::string P = (Path + ".symversions").str();
    if (llvm::sys::fs::exists(P) && Seen.insert(P).second)
      Found.push_back(P);
  };
  for (const LinkInput &In : L.Inputs)
    Try(In.Path);
  if (S)
    for (const std::string &M : S->ThinMembers)
      Try(M);
  return Found;
}

/// Place of each section of a -r output in the order, by name. The keys
/// are the scanner's strings, which outlive the link: none is copied.
class RankMap {
public:
  RankMap() = default;
  RankMap(const RankMap &) = delete;
  RankMap &operator=(const RankMap &) = delete;
  ~RankMap() { klto_strmap_free(&Map); }

  bool reserve(size_t N) { return klto_strmap_reserve(&Map, N); }
  bool set(klto_str Section, long Rank) {
    bool Inserted;
    klto_strmap_slot *S = klto_strmap_insert(&Map, Section, Rank, &Inserted);
    if (S)
      S->value = Rank;
    return S != nullptr;
  }
  long get(klto_str Section) const {
    const klto_strmap_slot *S = klto_strmap_find(&Map, Section);
    return S ? S->value : -1;
  }

private:
  klto_strmap Map{};
};

long rankOf(void *Ctx, klto_str Section) {
  return static_cast<const RankMap *>(Ctx)->get(Section);
}

/// Has LLD read, for each user script that places a table by its name
/// alone, a copy that also places the table's "<table>..<id>" entries (if
/// `Tables`) and the split sections of .text, .data, .rodata and .bss (if
/// `MergeSplit`).
bool patchUserScripts(
    Diag &D, const LinkLine &L, const klto_tables *Tables, bool MergeSplit,
    TempFiles &Temps, llvm::StringSaver &Saver, std::vector<const char *> &Args,
    std::vector<std::pair<std::string, std::string>> &Copies) {
  for (const UserScript &U : L.UserScripts) {
    auto Buf = llvm::MemoryBuffer::getFile(U.Path, /*IsText=*/true);
    if (!Buf)
      continue; // LLD looks it up in the -L paths too, and reports it
    auto Copy = Temps.create("lds");
    if (!Copy) {
      fail(D, llvm::toString(Copy.takeError()));
      return false;
    }
    FILE *F = openOut(*Copy);
    if (!F) {
      fail(D, "cannot write " + *Copy);
      return false;
    }
    size_t Patched =
        kl_patch_script(F, (*Buf)->getBufferStart(), (*Buf)->getBufferSize(),
                        Tables, MergeSplit);
    if (!closeOut(F)) {
      fail(D, "cannot write " + *Copy);
      return false;
    }
    if (!Patched)
      continue;
    Args[U.ArgIndex] = Saver.save(*Copy).data();
    Copies.push_back({*Copy, U.Path});
    if (L.Verbose)
      llvm::errs() << "klto: " << U.Path << ": " << Patched
                   << " section patterns extended\n";
  }
  return true;
}

/// The place of each output section of a -r link in the order. LLD merges
/// a table's entries without ids, from all inputs, into one "<table>"
/// section, which can take one place only: between two of them, no entry
/// with an id may stand.
bool rankRelocatable(Diag &D, const kl_order &O, RankMap &Ranks) {
  auto OutOfMemory = [&D] {
    fail(D, "out of memory ordering the sections of a -r link");
    return false;
  };
  if (!Ranks.reserve(O.n))
    return OutOfMemory();
  StringRef Table;
  const kl_entry *Plain = nullptr, *IdAfterPlain = nullptr;
  for (size_t I = 0; I < O.n; ++I) {
    const kl_entry &E = *O.entries[I];
    if (E.shadowed)
      continue;
    if (StringRef(E.table.p, E.table.n) != Table) {
      Table = StringRef(E.table.p, E.table.n);
      Plain = IdAfterPlain = nullptr;
    }
    // The merged id-less section stands where the first of them does.
    bool Ranked = E.has_id || !Plain;
    if (Ranked &&
        !Ranks.set(E.has_id ? E.section : E.table, static_cast<long>(I)))
      return OutOfMemory();
    if (E.has_id) {
      if (Plain && !IdAfterPlain)
        IdAfterPlain = &E;
    } else if (!Plain) {
      Plain = &E;
    } else if (IdAfterPlain) {
      fail(D, "--kinit-order cannot order table " + Table +
                  " in a -r link: LLD merges its entries without ids from " +
                  O.origins[Plain->origin] + " and " + O.origins[E.origin] +
                  " into one section, but the entry " +
                  StringRef(IdAfterPlain->section.p, IdAfterPlain->section.n) +
                  " of " + O.origins[IdAfterPlain->origin] +
                  " belongs between them; build those files with klto's "
                  "plugin, or link them in a separate -r link");
      return false;
    }
  }
  return true;
}

/// Unlinks `Path` if it is a regular file and returns a thread that closes
/// the last descriptor of it. Like LLD's unlinkAsync: the unlink is quick
/// while a descriptor is open; the close frees the blocks, which takes
/// longer for a large file (10 ms for a 10 MB object here).
std::thread removeInBackground(StringRef Path) {
  llvm::SmallString<256> Z(Path);
  int FD = ::open(Z.c_str(), O_RDONLY | O_CLOEXEC);
  if (FD < 0)
    return std::thread();
  struct stat St;
  if (::fstat(FD, &St) != 0 || !S_ISREG(St.st_mode) ||
      ::unlink(Z.c_str()) != 0) {
    ::close(FD);
    return std::thread();
  }
  return std::thread([FD] { ::close(FD); });
}

/// Sorts the entry sections of LLD's -r output at `From` and moves it to
/// `To`; on any failure `To` is not written.
int sortRelocatable(Diag &D, StringRef From, StringRef To,
                    const klto_tables &Tables, const RankMap &Ranks) {
  // Mapped, so only the pages holding section headers, symbols and groups
  // are written back, not the whole object.
  int FD;
  if (std::error_code EC = llvm::sys::fs::openFileForReadWrite(
          From, FD, llvm::sys::fs::CD_OpenExisting, llvm::sys::fs::OF_None))
    return fail(D, "cannot open " + From + ": " + EC.message());
  uint64_t Size = 0;
  llvm::sys::fs::file_status Status;
  if (std::error_code EC = llvm::sys::fs::status(FD, Status)) {
    llvm::sys::Process::SafelyCloseFileDescriptor(FD);
    return fail(D, "cannot read " + From + ": " + EC.message());
  }
  Size = Status.getSize();
  std::error_code EC;
  llvm::sys::fs::mapped_file_region Map(
      llvm::sys::fs::convertFDToNativeFile(FD),
      llvm::sys::fs::mapped_file_region::readwrite, Size, 0, EC);
  llvm::sys::Process::SafelyCloseFileDescriptor(FD);
  if (EC)
    return fail(D, "cannot map " + From + ": " + EC.message());
  const char *Err =
      kl_sort_relocatable(reinterpret_cast<unsigned char *>(Map.data()), Size,
                          &Tables, rankOf, const_cast<RankMap *>(&Ranks));
  Map.unmap();
  if (Err)
    return fail(D, "cannot order the entry sections of " + To + ": " + Err);
  if (std::error_code EC = llvm::sys::fs::rename(From, To))
    return fail(D, "cannot move " + From + " to " + To + ": " + EC.message());
  return 0;
}

} // namespace

int main(int Argc, const char **Argv) {
  llvm::InitLLVM X(Argc, Argv);
  Diag D{Argv[0]};
  llvm::BumpPtrAllocator Alloc;
  llvm::StringSaver Saver(Alloc);
  auto LineOrErr = parseLinkLine(llvm::ArrayRef(Argv, Argc), Saver);
  if (!LineOrErr)
    return fail(D, llvm::toString(LineOrErr.takeError()));
  LinkLine &L = *LineOrErr;
  KltoOptions &K = L.Klto;
  std::vector<const char *> Args = L.LldArgs;
  TempFiles Temps;

  std::vector<const char *> TablePtrs;
  for (const std::string &T : K.Tables)
    TablePtrs.push_back(T.c_str());
  klto_tables Tables{TablePtrs.data(), TablePtrs.size()};

  bool Order = K.InitOrder && !L.IndexOnly && !L.InfoOnly;
  // -r: where LLD writes before the entry sections are sorted, and the
  // place of each entry section in the order.
  llvm::SmallString<256> RelocTemp;
  RankMap Ranks;
  // Copies of user scripts LLD reads instead, for its messages:
  // (copy, original).
  std::vector<std::pair<std::string, std::string>> Copies;
  if (Order && L.Relocatable)
    if (auto Script = scriptPlacingTables(L, Tables))
      return fail(D, llvm::Twine("--kinit-order cannot order a relocatable "
                                 "link whose script ") +
                         *Script +
                         " places the initcall tables itself: remove those "
                         "rules from the script, or link without "
                         "--kinit-order and let the final link order the "
                         "entries");

  std::vector<std::string> Used;
  if (K.UsedSymbols && !L.InfoOnly) {
    for (const char *S : DefaultUsedSymbols)
      Used.push_back(S);
    for (const std::string &F : K.UsedSymbolFiles)
      if (llvm::Error E = readSymbolList(F, Used))
        return fail(D, llvm::toString(std::move(E)));
    Used.insert(Used.end(), K.UsedSymbolNames.begin(), K.UsedSymbolNames.end());
  }
  // LLD starts its own trace profiler, so klto's phases go to a trace file
  // of their own beside LLD's, written before LLD runs.
  if (L.TimeTrace)
    llvm::timeTraceProfilerInitialize(/*TimeTraceGranularity=*/0,
                                      "ld.lld (klto)");
  auto Start = std::chrono::steady_clock::now();
  auto Millis = [&Start] {
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now() - Start)
        .count();
  };
  std::optional<Scanner> S;
  if (Order || K.Symversions) {
    llvm::TimeTraceScope Scope("klto: scan inputs");
    S.emplace(Tables);
    S->WantSymbols = !L.Relocatable;
    llvm::StringSet<> Seen;
    std::vector<std::pair<std::string, bool>> Files;
    for (const LinkInput &In : L.Inputs) {
      // LLD loads an archive's members once, however often it is named.
      bool First = Seen.insert(In.Path).second;
      Files.push_back({First ? In.Path : std::string(), In.WholeArchive});
    }
    std::vector<std::string> Failed = S->scanFiles(Files);
    if (Order && !Failed.empty()) {
      for (const std::string &Msg : Failed)
        printDiag(&D, true, Msg.c_str());
      return 1;
    }
    if (L.Verbose)
      llvm::errs() << "klto: scanned " << S->FilesScanned << " files, "
                   << S->MembersScanned << " archive members, "
                   << S->Entries.size() << " table sections in "
                   << llvm::format("%.1f", Millis()) << " ms\n";
  }

  std::optional<llvm::TimeTraceScope> OrderScope;
  if (Order)
    OrderScope.emplace("klto: compute and write the order");
  if (Order) {
    kl_order O{S->Entries.data(), S->Entries.size(), S->Origins.data(), &Tables,
               L.Relocatable};
    kl_order_compute(&O, printDiag, &D);
    if (D.Errors)
      return 1;
    if (K.OrderMap) {
      FILE *F = openOut(*K.OrderMap);
      if (!F)
        return fail(D, "cannot write " + *K.OrderMap);
      kl_write_order_map(F, &O);
      if (!closeOut(F))
        return fail(D, "cannot write " + *K.OrderMap);
    }
    if (L.Relocatable) {
      if (!rankRelocatable(D, O, Ranks))
        return 1;
      // LLD writes next to the output; the sorted file replaces it only
      // when everything worked.
      llvm::SmallString<256> Model(L.Output);
      Model += ".klto-%%%%%%";
      llvm::sys::fs::createUniquePath(Model, RelocTemp,
                                      /*MakeAbsolute=*/false);
    } else {
      auto Script = Temps.create("lds");
      if (!Script)
        return fail(D, llvm::toString(Script.takeError()));
      auto OrderFile = Temps.create("order");
      if (!OrderFile)
        return fail(D, llvm::toString(OrderFile.takeError()));
      FILE *F = openOut(*OrderFile);
      if (!F)
        return fail(D, "cannot write " + *OrderFile);
      // A line per entry, tens of thousands in a kernel: a few writes, not
      // one per 4 KiB. (glibc ignores the size unless given the buffer.)
      std::vector<char> OrderBuf(1 << 20);
      std::setvbuf(F, OrderBuf.data(), _IOFBF, OrderBuf.size());
      // The user's order first; tables are their own output sections, so
      // the two never compete for a place.
      if (L.UserOrderingFile) {
        auto Buf = llvm::MemoryBuffer::getFile(*L.UserOrderingFile,
                                               /*IsText=*/true);
        if (!Buf)
          return fail(D, "cannot read " + *L.UserOrderingFile + ": " +
                             Buf.getError().message());
        std::fwrite((*Buf)->getBufferStart(), 1, (*Buf)->getBufferSize(), F);
        std::fputc('\n', F);
      }
      kl_write_symbol_order(F, &O);
      if (!closeOut(F))
        return fail(D, "cannot write " + *OrderFile);
      Args.push_back(Saver.save("--symbol-ordering-file=" + *OrderFile).data());
      // Entries of archive members LLD leaves out are not an error.
      Args.push_back("--no-warn-symbol-ordering");
      if (L.UserScripts.empty()) {
        FILE *T = openOut(*Script);
        if (!T)
          return fail(D, "cannot write " + *Script);
        kl_write_table_script(T, &Tables, ".data");
        if (!closeOut(T))
          return fail(D, "cannot write " + *Script);
        Args.push_back("-T");
        Args.push_back(Saver.save(*Script).data());
        if (!S->SawData) {
          std::optional<kl_elf_target> Target = S->Target;
          if (!Target && !S->BitcodeTriple.empty())
            Target = targetForTriple(S->BitcodeTriple);
          if (Target) {
            auto Anchor = Temps.create("o");
            if (!Anchor)
              return fail(D, llvm::toString(Anchor.takeError()));
            if (!kl_write_anchor(Anchor->c_str(), &*Target))
              return fail(D, "cannot write " + *Anchor);
            Args.push_back(Saver.save(*Anchor).data());
          }
        }
      }
    }
    if (L.Verbose)
      llvm::errs() << "klto: order computed and written in "
                   << llvm::format("%.1f", Millis()) << " ms from the start\n";
  } else if (L.UserOrderingFile) {
    Args.push_back(
        Saver.save("--symbol-ordering-file=" + *L.UserOrderingFile).data());
  }

  // Final links: LLD's default layout already merges split sections into
  // their base sections; a user script needs telling.
  if (!L.Relocatable && !L.InfoOnly && (Order || K.MergeSections) &&
      !patchUserScripts(D, L, Order ? &Tables : nullptr, K.MergeSections, Temps,
                        Saver, Args, Copies))
    return 1;

  if (K.MergeSections && L.Relocatable) {
    auto Merge = Temps.create("lds");
    if (!Merge)
      return fail(D, llvm::toString(Merge.takeError()));
    FILE *F = openOut(*Merge);
    if (!F)
      return fail(D, "cannot write " + *Merge);
    kl_write_merge_script(F);
    if (!closeOut(F))
      return fail(D, "cannot write " + *Merge);
    Args.push_back("-T");
    Args.push_back(Saver.save(*Merge).data());
  }

  if (K.Symversions && !L.InfoOnly) {
    std::vector<std::string> Files = findSymversions(L, S ? &*S : nullptr);
    if (!Files.empty()) {
      auto Versions = Temps.create("lds");
      if (!Versions)
        return fail(D, llvm::toString(Versions.takeError()));
      std::error_code EC;
      llvm::raw_fd_ostream OS(*Versions, EC);
      for (const std::string &P : Files) {
        auto Buf = llvm::MemoryBuffer::getFile(P, /*IsText=*/true);
        if (!Buf)
          return fail(D, "cannot read " + P + ": " + Buf.getError().message());
        OS << "/* " << P << " */\n" << (*Buf)->getBuffer() << "\n";
      }
      OS.close();
      if (EC || OS.has_error())
        return fail(D, "cannot write " + *Versions);
      Args.push_back("-T");
      Args.push_back(Saver.save(*Versions).data());
      if (L.Verbose)
        llvm::errs() << "klto: linked " << Files.size()
                     << " .symversions files\n";
    }
  }

  // --export-dynamic-symbol, unlike -u, keeps a definition through LTO
  // internalization and --gc-sections without making LLD load an archive
  // member for it, and names nobody defines cost nothing.
  for (const std::string &Name : Used)
    Args.push_back(Saver.save("--export-dynamic-symbol=" + Name).data());

  OrderScope.reset();
  if (L.TimeTrace) {
    std::string Trace = L.TimeTrace->empty() ? L.Output + ".time-trace.klto"
                                             : *L.TimeTrace + ".klto";
    if (llvm::Error E = llvm::timeTraceProfilerWrite(Trace, L.Output))
      printDiag(&D, false, llvm::toString(std::move(E)).c_str());
    llvm::timeTraceProfilerCleanup();
  }

  // LLD names its default trace after the file it writes.
  if (L.TimeTrace && L.TimeTrace->empty() && !RelocTemp.empty())
    Args.push_back(
        Saver.save("--time-trace=" + L.Output + ".time-trace").data());
  Args.push_back("-o");
  Args.push_back(RelocTemp.empty() ? Saver.save(L.Output).data()
                                   : RelocTemp.c_str());

  // lldMain, not the exit-early variant: the temporary files must outlive
  // LLD and be removed after it.
  lld::Result R = lld::lldMain(Args, llvm::outs(), llvm::errs(),
                               {{lld::Gnu, &lld::elf::link}});
  llvm::outs().flush();
  if (R.retCode)
    for (const auto &[Copy, Original] : Copies)
      llvm::errs() << "note: " << Copy << " in the messages above is klto's "
                   << "copy of " << Original
                   << " with klto's section patterns added\n";
  llvm::errs().flush();
  // Nothing to sort when LLD wrote nothing (--version with inputs).
  if (RelocTemp.empty() || !llvm::sys::fs::exists(RelocTemp))
    return R.retCode;
  auto SortStart = std::chrono::steady_clock::now();
  int RC = R.retCode;
  if (!RC) {
    // LLD has written: as it does itself, the old output goes now, and
    // the blocks it frees are freed while the sort runs.
    std::thread Remover = removeInBackground(L.Output);
    RC = sortRelocatable(D, RelocTemp, L.Output, Tables, Ranks);
    if (Remover.joinable())
      Remover.join();
  }
  llvm::sys::fs::remove(RelocTemp);
  if (L.Verbose && !RC)
    llvm::errs() << "klto: entry sections of " << L.Output << " sorted in "
                 << llvm::format(
                        "%.1f",
                        std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - SortStart)
                            .count())
                 << " ms\n";
  return RC;
}
