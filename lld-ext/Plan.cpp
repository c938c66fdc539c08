//===- Plan.cpp - what klto adds to one LLD link --------------------------===//
//
// One planner per thing klto adds: the order (final and -r links), the
// module section merge, the symversions script, the used-symbol list.
// Every check that can fail runs here, before LLD, so a failed plan never
// creates or replaces the output.
//
//===----------------------------------------------------------------------===//
#include "Plan.h"

#include "UsedSymbols.h"
#include "order.h"
#include "orderfiles.h"
#include "scriptpatch.h"
#include "scripts.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using llvm::StringRef;

namespace klto::ld {

void printDiag(void *Ctx, klto_diag_level Level, size_t, const char *Msg) {
  Diag &D = *static_cast<Diag *>(Ctx);
  bool IsError = Level == KLTO_DIAG_ERROR;
  llvm::errs() << llvm::sys::path::filename(D.Argv0)
               << (IsError ? ": error: " : ": warning: ") << Msg << "\n";
  D.Errors += IsError;
}

bool fail(Diag &D, const llvm::Twine &Msg) {
  printDiag(&D, KLTO_DIAG_ERROR, 0, Msg.str().c_str());
  return false;
}

std::vector<const char *> LinkPlan::args(const LinkLine &L) const {
  std::vector<const char *> Out(L.Args.begin(), L.Args.begin() + L.Prefix);
  Out.insert(Out.end(), Front.begin(), Front.end());
  for (size_t I = L.Prefix; I < L.Args.size();) {
    auto R = llvm::find_if(Replace,
                           [I](const auto &P) { return P.first.Begin == I; });
    if (R == Replace.end()) {
      Out.push_back(L.Args[I++]);
      continue;
    }
    Out.insert(Out.end(), R->second.begin(), R->second.end());
    I += R->first.Count;
  }
  return Out;
}

namespace {
using Clock = std::chrono::steady_clock;

double millisSince(Clock::time_point Start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - Start)
      .count();
}

std::optional<std::unique_ptr<llvm::MemoryBuffer>> readScript(StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return std::nullopt; // LLD reports it
  return std::move(*Buf);
}

/// Whether a user script places a table itself, so klto's own table
/// script must stay out of its way.
std::optional<std::string> scriptPlacingTables(const LinkLine &L,
                                               const klto_tables &Tables) {
  for (const UserScript &U : L.Scripts)
    if (auto Buf = readScript(U.Path))
      if (klto_script_places_tables((**Buf).getBufferStart(),
                                    (**Buf).getBufferSize(), &Tables))
        return U.Path;
  return std::nullopt;
}

/// The name OUTPUT() gives the output in a user script, for a -r link
/// without -o.
std::optional<std::string> scriptOutput(const LinkLine &L) {
  for (const UserScript &U : L.Scripts) {
    auto Buf = readScript(U.Path);
    if (!Buf)
      continue;
    StringRef Text = (**Buf).getBuffer();
    size_t At = Text.find("OUTPUT");
    while (At != StringRef::npos) {
      StringRef Rest = Text.drop_front(At + 6).ltrim();
      if (Rest.consume_front("("))
        return Rest.split(')').first.trim().trim('"').str();
      At = Text.find("OUTPUT", At + 6);
    }
  }
  return std::nullopt;
}

class Planner {
public:
  Planner(Diag &D, const LinkLine &L, TempFiles &Temps,
          llvm::StringSaver &Saver, LinkPlan &P)
      : D(D), L(L), K(L.Klto), Temps(Temps), Saver(Saver), P(P) {}

  bool run();

private:
  const char *save(const llvm::Twine &S) { return Saver.save(S).data(); }
  bool scan();
  void resolveTablePatterns();
  bool order();
  bool finalOrder(const klto_order &O);
  bool relocatableOrder(const klto_order &O);
  bool copyUserScripts(const klto_tables *Tables, bool MergeSplit);
  bool mergeSections();
  bool symversions();
  bool usedSymbols();
  void writeTrace();

  Diag &D;
  const LinkLine &L;
  const KltoOptions &K;
  TempFiles &Temps;
  llvm::StringSaver &Saver;
  LinkPlan &P;
  Clock::time_point Start = Clock::now();
  bool Order = false;
  bool ScriptsCopied = false; // by the order, with the merge patterns
};

bool Planner::run() {
  Order = K.InitOrder && !L.IndexOnly;
  // LLD starts its own trace profiler, so klto's phases go to a trace file
  // of their own beside LLD's, written before LLD runs.
  if (L.TimeTrace)
    llvm::timeTraceProfilerInitialize(/*TimeTraceGranularity=*/0,
                                      "ld.lld (klto)");
  bool OK = ((!Order && !K.Symversions) || scan()) && order() &&
            mergeSections() && symversions() && usedSymbols();
  writeTrace();
  return OK;
}

bool Planner::scan() {
  llvm::TimeTraceScope Scope("klto: scan inputs");
  P.S.emplace(P.Tables.get());
  P.S->WantSymbols = !L.Relocatable;
  llvm::StringSet<> Seen;
  std::vector<std::pair<std::string, bool>> Files;
  for (const LinkInput &In : L.Inputs) {
    // LLD loads an archive's members once, however often it is named.
    bool First = Seen.insert(In.Path).second;
    Files.push_back({First ? In.Path : std::string(), In.WholeArchive});
  }
  std::vector<std::string> Failed = P.S->scanFiles(Files);
  // Symversions need only the thin-archive member list: what the scan
  // could not read is LLD's to report.
  if (!Failed.empty() && Order) {
    // LLD's message about the file comes first; klto's only if LLD can
    // link it all the same.
    for (const std::string &Msg : Failed)
      P.ScanError += (P.ScanError.empty() ? "" : "; ") + Msg;
    P.ScanError += ": its table sections, if any, could not be ordered";
    P.S->Entries.clear();
  }
  if (L.Verbose)
    llvm::errs() << "klto: scanned " << P.S->FilesScanned << " files, "
                 << P.S->MembersScanned << " archive members, "
                 << P.S->Entries.size() << " table sections in "
                 << llvm::format("%.1f", millisSince(Start)) << " ms\n";
  return true;
}

/// A pattern's tables in the order of their names, numbers by value
/// (.initcall.2 before .initcall.10), after the tables named before it.
void Planner::resolveTablePatterns() {
  if (llvm::none_of(K.Tables, [](const std::string &T) {
        return klto_is_table_pattern(T.c_str());
      }))
    return;
  std::vector<std::vector<std::string>> Matched(K.Tables.size());
  llvm::StringSet<> Seen;
  for (const klto_entry *E : P.S->Entries) {
    long Spec = klto_table_spec(&P.Tables.get(), E->table);
    if (Spec >= 0 && klto_is_table_pattern(K.Tables[Spec].c_str()) &&
        Seen.insert(fromKStr(E->table)).second)
      Matched[Spec].push_back(fromKStr(E->table).str());
  }
  std::vector<std::string> Names;
  for (size_t I = 0; I < K.Tables.size(); ++I) {
    if (!klto_is_table_pattern(K.Tables[I].c_str())) {
      Names.push_back(K.Tables[I]);
      continue;
    }
    llvm::sort(Matched[I], [](const std::string &A, const std::string &B) {
      return StringRef(A).compare_numeric(B) < 0;
    });
    Names.insert(Names.end(), Matched[I].begin(), Matched[I].end());
  }
  P.TableNames = std::move(Names);
  P.Tables.assign(P.TableNames);
  // Their ranks were the patterns'.
  for (klto_entry *E : P.S->Entries)
    E->parsed = false;
}

bool Planner::order() {
  // A map the user asked for is written even when it is empty.
  if (!Order || (P.S->Entries.empty() && (!K.OrderMap || !P.ScanError.empty())))
    return true;
  llvm::TimeTraceScope Scope("klto: compute and write the order");
  resolveTablePatterns();
  klto_order O{P.S->Entries.data(), P.S->Entries.size(), P.S->Origins.data(),
               &P.Tables.get(), L.Relocatable};
  klto_order_compute(&O, printDiag, &D);
  if (D.Errors)
    return false;
  if (K.OrderMap)
    if (llvm::Error E = writeFile(
            *K.OrderMap, [&](FILE *F) { klto_write_order_map(F, &O); }))
      return fail(D, llvm::toString(std::move(E)));
  if (O.n && !(L.Relocatable ? relocatableOrder(O) : finalOrder(O)))
    return false;
  if (L.Verbose)
    llvm::errs() << "klto: order computed and written in "
                 << llvm::format("%.1f", millisSince(Start))
                 << " ms from the start\n";
  return true;
}

bool Planner::finalOrder(const klto_order &O) {
  if (L.CallGraphOrderingFile)
    return fail(D, "--kinit-order cannot order the tables of this link: "
                   "it has --call-graph-ordering-file, and LLD takes that or "
                   "a --symbol-ordering-file (klto's way to order entries), "
                   "not both; link the tables without one of the two");
  std::unique_ptr<llvm::MemoryBuffer> User;
  if (L.OrderingFileArg) {
    auto Buf = llvm::MemoryBuffer::getFile(L.UserOrderingFile, true);
    if (!Buf)
      return true; // LLD says it cannot open it
    User = std::move(*Buf);
  }
  // The user's order first; tables are output sections of their own, so
  // the two never compete for a place.
  auto OrderFile = Temps.write("order", [&](FILE *F) {
    if (User) {
      std::fwrite(User->getBufferStart(), 1, User->getBufferSize(), F);
      std::fputc('\n', F);
    }
    klto_write_symbol_order(F, &O);
  });
  if (!OrderFile)
    return fail(D, llvm::toString(OrderFile.takeError()));
  const char *Arg = save("--symbol-ordering-file=" + *OrderFile);
  if (L.OrderingFileArg) {
    P.Replace.push_back({*L.OrderingFileArg, {Arg}});
    // The user's warnings stay; those about klto's own entries (in
    // archive members LLD did not load) are dropped.
    if (L.WarnSymbolOrdering)
      for (size_t I = 0; I < O.n; ++I)
        if (O.entries[I]->orderable)
          P.OwnOrderSymbols.insert(
              StringRef(O.entries[I]->symbol.p, O.entries[I]->symbol.n));
  } else {
    P.Front.push_back(Arg);
    P.Front.push_back("--no-warn-symbol-ordering");
  }
  if (!scriptPlacingTables(L, P.Tables.get())) {
    // An input, not -T: a -T would make LLD ignore the user's -dT.
    size_t NumTables = KLTO_TABLE_EXTRA + P.Tables.get().n_extra;
    std::unique_ptr<bool[]> Present(new bool[NumTables]());
    for (size_t I = 0; I < O.n; ++I) {
      const klto_entry &E = *O.entries[I];
      StringRef Table(E.table.p, E.table.n);
      size_t T = Table == ".con_initcall.init" ? KLTO_TABLE_CONSOLE
                 : E.level.n
                     ? KLTO_TABLE_INITCALLS
                     : KLTO_TABLE_EXTRA + (llvm::find(P.TableNames, Table) -
                                           P.TableNames.begin());
      if (T < NumTables)
        Present[T] = true;
    }
    auto Script = Temps.write("lds", [&](FILE *F) {
      klto_write_table_script(F, &P.Tables.get(), Present.get());
    });
    if (!Script)
      return fail(D, llvm::toString(Script.takeError()));
    P.Front.push_back(save(*Script));
  }
  ScriptsCopied = true;
  return copyUserScripts(&P.Tables.get(), K.MergeSections);
}

bool Planner::relocatableOrder(const klto_order &O) {
  if (auto Script = scriptPlacingTables(L, P.Tables.get()))
    return fail(D, "--kinit-order cannot order a relocatable link whose "
                   "script " +
                       *Script +
                       " places the initcall tables itself: remove those "
                       "rules from the script, or link without "
                       "--kinit-order and let the final link order the "
                       "entries");
  if (!klto_order_rank_sections(&O, &P.Ranks, printDiag, &D))
    return false;
  std::string Output = L.Output;
  if (!L.OutputArg)
    Output = scriptOutput(L).value_or("a.out");
  std::optional<RelocOutput> R = RelocOutput::plan(Output);
  if (!R)
    return true; // a directory: LLD says it cannot write there
  std::vector<const char *> OArgs{"-o", save(R->lldPath())};
  if (L.OutputArg)
    P.Replace.push_back({*L.OutputArg, OArgs});
  else
    P.Front.insert(P.Front.end(), OArgs.begin(), OArgs.end());
  // LLD names its default trace after the file it writes.
  if (L.TimeTraceArg && L.TimeTrace->empty())
    P.Replace.push_back(
        {*L.TimeTraceArg, {save("--time-trace=" + Output + ".time-trace")}});
  P.Reloc = std::move(R);
  return true;
}

/// Has LLD read, for each user script that places a table by its name
/// alone, a copy that also places the table's "<table>..<id>" entries (if
/// `Tables`) and the split sections of .text, .data, .rodata and .bss (if
/// `MergeSplit`).
bool Planner::copyUserScripts(const klto_tables *Tables, bool MergeSplit) {
  for (const UserScript &U : L.Scripts) {
    auto Buf = readScript(U.Path);
    if (!Buf)
      continue;
    size_t Patched = 0;
    auto Copy = Temps.write("lds", [&](FILE *F) {
      Patched = klto_patch_script(F, (**Buf).getBufferStart(),
                                  (**Buf).getBufferSize(), Tables, MergeSplit);
    });
    if (!Copy)
      return fail(D, llvm::toString(Copy.takeError()));
    if (!Patched)
      continue;
    P.Replace.push_back(
        {U.Span, {U.Default ? "--default-script" : "--script", save(*Copy)}});
    P.ScriptCopies.push_back({*Copy, U.Path});
    if (L.Verbose)
      llvm::errs() << "klto: " << U.Path << ": " << Patched
                   << " section patterns extended\n";
  }
  return true;
}

/// Final links: LLD's default layout already merges split sections into
/// their base sections; a user script needs telling (done with the order
/// when there is one). -r links get Linux's module.lds.S rules.
bool Planner::mergeSections() {
  if (!K.MergeSections)
    return true;
  if (!L.Relocatable)
    return ScriptsCopied || copyUserScripts(nullptr, true);
  auto Merge = Temps.write("lds", klto_write_merge_script);
  if (!Merge)
    return fail(D, llvm::toString(Merge.takeError()));
  P.Front.push_back(save(*Merge));
  return true;
}

/// Linux's kbuild writes "<file>.symversions" beside each object and each
/// archive it builds; thin-archive members have their own.
bool Planner::symversions() {
  if (!K.Symversions)
    return true;
  std::vector<std::string> Found;
  llvm::StringSet<> Seen;
  auto Try = [&](StringRef Path) {
    std::string Versions = (Path + ".symversions").str();
    if (llvm::sys::fs::exists(Versions) && Seen.insert(Versions).second)
      Found.push_back(Versions);
  };
  for (const LinkInput &In : L.Inputs)
    Try(In.Path);
  if (P.S)
    for (const std::string &M : P.S->ThinMembers)
      Try(M);
  if (Found.empty())
    return true;
  std::string Text;
  for (const std::string &Path : Found) {
    auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
    if (!Buf)
      return fail(D, "cannot read " + Path + ": " + Buf.getError().message());
    Text += "/* " + Path + " */\n" + (*Buf)->getBuffer().str() + "\n";
  }
  auto Versions = Temps.write(
      "lds", [&](FILE *F) { std::fwrite(Text.data(), 1, Text.size(), F); });
  if (!Versions)
    return fail(D, llvm::toString(Versions.takeError()));
  P.Front.push_back(save(*Versions));
  if (L.Verbose)
    llvm::errs() << "klto: linked " << Found.size() << " .symversions files\n";
  return true;
}

/// A -r link's bitcode keeps every symbol visible, and a shared object
/// (or --export-dynamic) every exported one: only other final links run
/// the risk the list exists for. The list needs a look at every input, so
/// it is part of the links klto reads anyway (--kinit-order, where the
/// scan tells whether bitcode is there, and --ksymversions) or asked for
/// by name: a link without klto's options reads nothing LLD does not.
bool Planner::usedSymbols() {
  bool Asked = !K.UsedSymbolFiles.empty() || !K.UsedSymbolNames.empty();
  if (!K.UsedSymbols || L.Relocatable || L.ExportsAll || (!P.S && !Asked) ||
      (P.S && P.ScanError.empty() && !P.S->SawEagerBitcode))
    return true;
  auto Names = usedSymbolList(K);
  if (!Names)
    return fail(D, llvm::toString(Names.takeError()));
  for (const std::string &Name : usedSymbolsToKeep(L.Inputs, *Names))
    P.Front.push_back(save("--undefined=" + Name));
  return true;
}

void Planner::writeTrace() {
  if (!L.TimeTrace)
    return;
  std::string Output = L.Output.empty() ? "a.out" : L.Output;
  std::string Trace = L.TimeTrace->empty() ? Output + ".time-trace.klto"
                                           : *L.TimeTrace + ".klto";
  if (llvm::Error E = llvm::timeTraceProfilerWrite(Trace, Output))
    printDiag(&D, KLTO_DIAG_WARNING, 0, llvm::toString(std::move(E)).c_str());
  llvm::timeTraceProfilerCleanup();
}
} // namespace

bool planLink(Diag &D, const LinkLine &L, TempFiles &Temps,
              llvm::StringSaver &Saver, LinkPlan &P) {
  return Planner(D, L, Temps, Saver, P).run();
}

} // namespace klto::ld
