//===- CommandLine.cpp - klto's options and the link's inputs -------------===//
//
// LLD's option table is internal to lldELF, so the options that take a
// value are listed here (measured against ld.lld 19: each one consumes the
// next argument when not written as --opt=value). Getting one wrong would
// only make klto mistake a value for an input, or an input for a value;
// LLD itself always sees the arguments unchanged.
//
//===----------------------------------------------------------------------===//
#include "CommandLine.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using llvm::StringRef;

namespace klto::ld {

// clang-format off
static const char *const ValueOptions[] = {
    "F", "L", "Map", "O", "R", "T", "Tbss", "Tdata", "Ttext",
    "android-memtag-mode", "auxiliary", "b", "call-graph-ordering-file",
    "compress-debug-sections", "compress-sections", "dT", "default-script",
    "defsym", "dependency-file", "dynamic-linker", "dynamic-list", "e",
    "entry", "error-handling-script", "error-limit", "exclude-libs",
    "export-dynamic-symbol", "export-dynamic-symbol-list", "f", "filter",
    "fini", "format", "h", "hash-style", "image-base", "in-implib", "init",
    "just-symbols", "keep-unique", "l", "library", "library-path",
    "load-pass-plugin", "lto-known-safe-vtables", "m", "mllvm", "o",
    "oformat", "opt-remarks-filename", "opt-remarks-format",
    "opt-remarks-hotness-threshold", "opt-remarks-passes", "orphan-handling",
    "out-implib", "output", "pack-dyn-relocs", "plugin", "plugin-opt",
    "print-symbol-order", "remap-inputs", "reproduce",
    "retain-symbols-file", "rpath", "rsp-quoting", "script",
    "section-start", "shuffle-sections", "soname", "sort-section",
    "split-stack-adjust-size", "symbol-ordering-file", "sysroot", "target2",
    "thinlto-cache-dir", "thinlto-cache-policy", "thinlto-jobs",
    "thinlto-single-module", "threads", "time-trace-granularity",
    "trace-symbol", "u", "undefined", "undefined-glob",
    "unresolved-symbols", "version-script", "warn-backrefs-exclude",
    "why-extract", "wrap", "y", "z"};
// clang-format on

/// Single-letter options that also take their value glued on: -lfoo.
static bool takesJoinedValue(char C) {
  return StringRef("FLORTbefhlmouyz").contains(C);
}

/// Flags and =-only options: a single-dash one that starts like -l, -o
/// or -z is still itself, not that option with a glued value.
// clang-format off
static const char *const OtherOptions[] = {
    "Bdynamic", "Bno-symbolic", "Bshareable", "Bstatic", "Bsymbolic",
    "Bsymbolic-functions", "Bsymbolic-non-weak",
    "Bsymbolic-non-weak-functions", "E", "EB", "EL", "M", "N", "S", "V", "X",
    "allow-multiple-definition", "allow-shlib-undefined",
    "android-memtag-heap", "android-memtag-stack", "apply-dynamic-relocs",
    "as-needed", "be8", "build-id", "call-graph-profile-sort", "call_shared",
    "check-sections", "cmse-implib", "color-diagnostics", "cref",
    "debug-names", "demangle", "dependent-libraries", "disable-new-dtags",
    "discard-all", "discard-locals", "discard-none", "dn", "dy",
    "eh-frame-hdr", "emit-relocs", "enable-new-dtags",
    "enable-non-contiguous-regions", "end-group", "end-lib",
    "error-unresolved-symbols", "execute-only", "export-dynamic",
    "fat-lto-objects", "fatal-warnings", "fix-cortex-a53-843419",
    "fix-cortex-a8", "force-group-allocation", "fortran-common", "gc-sections",
    "gdb-index", "gnu-unique", "help", "icf", "ignore-data-address-equality",
    "ignore-function-address-equality", "lto", "lto-CGO", "lto-O",
    "lto-aa-pipeline", "lto-basic-block-address-map",
    "lto-basic-block-sections", "lto-cs-profile-file",
    "lto-cs-profile-generate", "lto-debug-pass-manager", "lto-emit-asm",
    "lto-emit-llvm", "lto-newpm-passes", "lto-obj-path", "lto-partitions",
    "lto-pgo-warn-mismatch", "lto-sample-profile",
    "lto-unique-basic-block-section-names",
    "lto-validate-all-vtables-have-type-infos", "lto-whole-program-visibility",
    "merge-exidx-entries", "mmap-output-file", "n", "nmagic",
    "no-allow-multiple-definition", "no-allow-shlib-undefined",
    "no-apply-dynamic-relocs", "no-as-needed", "no-check-sections",
    "no-color-diagnostics", "no-debug-names", "no-demangle",
    "no-dependent-libraries", "no-dynamic-linker", "no-eh-frame-hdr",
    "no-execute-only", "no-export-dynamic", "no-fat-lto-objects",
    "no-fatal-warnings", "no-fortran-common", "no-gc-sections", "no-gdb-index",
    "no-gnu-unique", "no-lto-basic-block-address-map",
    "no-lto-pgo-warn-mismatch", "no-lto-unique-basic-block-section-names",
    "no-lto-validate-all-vtables-have-type-infos",
    "no-lto-whole-program-visibility", "no-merge-exidx-entries",
    "no-mmap-output-file", "no-nmagic", "no-omagic", "no-optimize-bb-jumps",
    "no-pcrel-optimize", "no-pie", "no-power10-stubs", "no-print-gc-sections",
    "no-print-icf-sections", "no-relax", "no-relax-gp", "no-rosegment",
    "no-toc-optimize", "no-undefined", "no-undefined-version",
    "no-use-android-relr-tags", "no-warn-backrefs", "no-warn-common",
    "no-warn-ifunc-textrel", "no-warn-mismatch", "no-warn-symbol-ordering",
    "no-warnings", "no-whole-archive", "noinhibit-exec", "non_shared",
    "nostdlib", "omagic", "opt-remarks-with-hotness", "optimize-bb-jumps",
    "package-metadata", "pcrel-optimize", "pic-executable", "pic-veneer",
    "pie", "pop-state", "power10-stubs", "print-archive-stats",
    "print-gc-sections", "print-icf-sections", "print-map",
    "print-memory-usage", "push-state", "q", "r", "relax", "relax-gp",
    "relocatable", "remap-inputs-file", "rosegment", "s", "save-temps",
    "shared", "start-group", "start-lib", "static", "strip-all", "strip-debug",
    "t", "target1-abs", "target1-rel", "thinlto-emit-imports-files",
    "thinlto-index-only", "thinlto-object-suffix-replace",
    "thinlto-prefix-replace", "time-trace", "toc-optimize", "trace",
    "undefined-version", "unique", "use-android-relr-tags", "v", "verbose",
    "version", "vs-diagnostics", "w", "warn-backrefs", "warn-common",
    "warn-ifunc-textrel", "warn-symbol-ordering", "warn-unresolved-symbols",
    "whole-archive", "x",};
// clang-format on

static llvm::StringSet<> setOf(llvm::ArrayRef<const char *> Names) {
  llvm::StringSet<> S;
  for (const char *N : Names)
    S.insert(N);
  return S;
}

static bool isOtherOption(StringRef Name) {
  static const llvm::StringSet<> Set = setOf(OtherOptions);
  return Set.contains(Name) || Name.starts_with("lto-O") ||
         Name.starts_with("lto-CGO") || Name.starts_with("plugin-opt");
}

static bool isValueOption(StringRef Name) {
  static const llvm::StringSet<> Set = setOf(ValueOptions);
  return Set.contains(Name);
}

static llvm::Error failure(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

namespace {
/// One argument split into option name and value the way LLD reads it.
struct Arg {
  StringRef Name;  // without dashes; empty for an input
  StringRef Value; // the option's value, or the input path
  bool HasValue = false;
};

/// State --push-state saves.
struct InputState {
  bool WholeArchive = false;
  bool Static = false;
};

class Walker {
public:
  Walker(llvm::ArrayRef<const char *> Args) : Args(Args) {}

  /// Next argument, or false at the end. `Raw` are the argv entries it used.
  bool next(Arg &A, llvm::ArrayRef<const char *> &Raw) {
    if (Pos >= Args.size())
      return false;
    size_t Begin = Pos;
    StringRef S = Args[Pos++];
    A = Arg();
    if (!S.starts_with("-") || S == "-") {
      A.Value = S;
      Raw = Args.slice(Begin, 1);
      return true;
    }
    bool Single = !S.starts_with("--");
    StringRef Body = S.drop_front(Single ? 1 : 2);
    auto [Name, Joined] = Body.split('=');
    if (Body.size() > 1 && takesJoinedValue(Body[0]) && Name.size() == 1) {
      // -L=/lib is -L with "=/lib": the sysroot marker.
      A.Name = Body.take_front(1);
      A.Value = Body.drop_front(1);
      A.HasValue = true;
    } else if (isValueOption(Name)) {
      A.Name = Name;
      A.HasValue = true;
      if (Body.contains('='))
        A.Value = Joined;
      else if (Pos < Args.size())
        A.Value = Args[Pos++];
    } else if (Single && !Body.empty() && takesJoinedValue(Body[0]) &&
               !isOtherOption(Name)) {
      A.Name = Body.take_front(1);
      A.Value = Body.drop_front(1);
      A.HasValue = true;
    } else {
      A.Name = Name;
      A.Value = Joined;
      A.HasValue = Body.contains('=');
    }
    Raw = Args.slice(Begin, Pos - Begin);
    return true;
  }

private:
  llvm::ArrayRef<const char *> Args;
  size_t Pos = 1;
};
} // namespace

/// Takes a klto option out; returns false for anything else.
static llvm::Expected<bool> takeKltoOption(llvm::ArrayRef<const char *> Args,
                                           size_t &I, KltoOptions &K) {
  StringRef S = Args[I];
  if (!S.starts_with("-"))
    return false;
  StringRef Body = S.drop_while([](char C) { return C == '-'; });
  auto Split = Body.split('=');
  StringRef Name = Split.first, Joined = Split.second;
  bool HasJoined = Body.contains('=');
  auto Value = [&]() -> llvm::Expected<std::string> {
    if (HasJoined)
      return Joined.str();
    if (I + 1 >= Args.size())
      return failure("--" + Name + ": missing value");
    return std::string(Args[++I]);
  };
  if (Name == "kinit-order" && !HasJoined) {
    K.InitOrder = true;
  } else if (Name == "kinit-order-map") {
    auto V = Value();
    if (!V)
      return V.takeError();
    K.OrderMap = *V;
    K.InitOrder = true;
  } else if (Name == "kinit-table") {
    auto V = Value();
    if (!V)
      return V.takeError();
    if (V->empty() || StringRef(*V).contains(".."))
      return failure("--kinit-table=" + *V +
                     ": expected a section name without \"..\"");
    K.Tables.push_back(*V);
  } else if (Name == "kmerge-sections" && !HasJoined) {
    K.MergeSections = true;
  } else if (Name == "kused-symbols") {
    auto V = Value();
    if (!V)
      return V.takeError();
    K.UsedSymbolFiles.push_back(*V);
  } else if (Name == "kused-symbol") {
    auto V = Value();
    if (!V)
      return V.takeError();
    K.UsedSymbolNames.push_back(*V);
  } else if (Name == "no-kused-symbols" && !HasJoined) {
    K.UsedSymbols = false;
  } else if (Name == "ksymversions" && !HasJoined) {
    K.Symversions = true;
  } else {
    return false;
  }
  return true;
}

/// LLD's rule for -L and sysroot: "=dir" and "$SYSROOTdir" live in it.
static std::string underSysroot(StringRef Dir, StringRef Sysroot) {
  if (Dir.consume_front("="))
    return (Sysroot + Dir).str();
  if (Dir.consume_front("$SYSROOT"))
    return (Sysroot + Dir).str();
  return Dir.str();
}

/// LLD's library search: -l:name exactly, else libname.so (dynamic links)
/// then libname.a in each directory. A shared library holds no entries, so
/// finding one simply ends the search.
static std::optional<std::string>
findLibrary(StringRef Name, const std::vector<std::string> &Dirs, bool Static) {
  for (const std::string &Dir : Dirs) {
    llvm::SmallString<256> P;
    if (Name.starts_with(":")) {
      llvm::sys::path::append(P, Dir, Name.drop_front());
      if (llvm::sys::fs::exists(P))
        return std::string(P);
      continue;
    }
    if (!Static) {
      llvm::sys::path::append(P, Dir, "lib" + Name + ".so");
      if (llvm::sys::fs::exists(P))
        return std::string(P);
      P.clear();
    }
    llvm::sys::path::append(P, Dir, "lib" + Name + ".a");
    if (llvm::sys::fs::exists(P))
      return std::string(P);
  }
  return std::nullopt;
}

llvm::Expected<LinkLine> parseLinkLine(llvm::ArrayRef<const char *> Argv,
                                       llvm::StringSaver &Saver) {
  llvm::SmallVector<const char *, 256> Expanded(Argv.begin(), Argv.end());
  if (!llvm::cl::ExpandResponseFiles(Saver, llvm::cl::TokenizeGNUCommandLine,
                                     Expanded))
    return failure("cannot expand response files");

  LinkLine L;
  std::vector<const char *> Rest;
  for (size_t I = 0; I < Expanded.size(); ++I) {
    if (I > 0) {
      auto Taken = takeKltoOption(Expanded, I, L.Klto);
      if (!Taken)
        return Taken.takeError();
      if (*Taken)
        continue;
    }
    Rest.push_back(Expanded[I]);
  }

  // LLD collects every -L and the sysroot before it looks up any -l.
  std::string Sysroot;
  std::vector<std::string> Dirs;
  {
    Walker W(Rest);
    Arg A;
    llvm::ArrayRef<const char *> Raw;
    while (W.next(A, Raw))
      if (A.Name == "sysroot")
        Sysroot = A.Value.str();
    Walker W2(Rest);
    while (W2.next(A, Raw))
      if (A.Name == "L" || A.Name == "library-path")
        Dirs.push_back(underSysroot(A.Value, Sysroot));
  }

  Walker W(Rest);
  Arg A;
  llvm::ArrayRef<const char *> Raw;
  InputState State;
  std::vector<InputState> Saved;
  bool Info = false;
  L.LldArgs.push_back(Rest[0]);
  while (W.next(A, Raw)) {
    StringRef N = A.Name;
    if (N == "symbol-ordering-file") {
      L.UserOrderingFile = A.Value.str();
      continue; // merged into klto's own file
    }
    if (N == "o" || N == "output") {
      L.Output = A.Value.str();
      continue; // klto may have LLD write elsewhere first
    }
    if (N == "T" || N == "script") {
      // One form for every spelling, so the driver can swap in a copy.
      L.UserScripts.push_back({A.Value.str(), L.LldArgs.size() + 1});
      L.LldArgs.push_back("-T");
      L.LldArgs.push_back(Saver.save(A.Value).data());
      continue;
    }
    L.LldArgs.insert(L.LldArgs.end(), Raw.begin(), Raw.end());
    if (N.empty()) {
      L.Inputs.push_back({A.Value.str(), State.WholeArchive});
    } else if (N == "l" || N == "library") {
      if (auto P = findLibrary(A.Value, Dirs, State.Static))
        L.Inputs.push_back({*P, State.WholeArchive});
    } else if (N == "r" || N == "relocatable") {
      L.Relocatable = true;
    } else if (N == "whole-archive") {
      State.WholeArchive = true;
    } else if (N == "no-whole-archive") {
      State.WholeArchive = false;
    } else if (N == "Bstatic" || N == "static" || N == "dn" ||
               N == "non_shared") {
      State.Static = true;
    } else if (N == "Bdynamic" || N == "dy" || N == "call_shared") {
      State.Static = false;
    } else if (N == "push-state") {
      Saved.push_back(State);
    } else if (N == "pop-state" && !Saved.empty()) {
      State = Saved.back();
      Saved.pop_back();
    } else if (N == "verbose") {
      L.Verbose = true;
    } else if (N == "time-trace") {
      L.TimeTrace = A.Value.str();
    } else if (N == "thinlto-index-only" ||
               (N == "plugin-opt" &&
                A.Value.starts_with("thinlto-index-only"))) {
      L.IndexOnly = true;
    } else if (N == "version" || N == "help" || N == "v" || N == "V") {
      Info = true;
    }
  }
  L.InfoOnly = Info && L.Inputs.empty();
  return L;
}

} // namespace klto::ld
