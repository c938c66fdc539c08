//===- Scanner.cpp - reads table sections out of the link's inputs --------===//
//
// Speed matters: Linux links thousands of objects, and the script this
// replaces spends seconds running nm once per file. ELF files are read
// through ELFFile directly (section headers, then the symbol table only
// when a table section is present), bitcode through its bitstream
// (BitcodeTables.h): the module is never built.
//
//===----------------------------------------------------------------------===//
#include "Scanner.h"

#include "BitcodeTables.h"
#include "klto/LLVMAdapter.h"
#include "klto/asmlex.h"
#include "klto/asmsections.h"
#include "klto/naming.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Parallel.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <tuple>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

using llvm::Error;
using llvm::StringRef;

namespace klto::ld {

/// One object file: a plain input or one archive member.
struct Scanner::Unit {
  unsigned Input, Member, Origin;
  bool Lazy;
};

static Error failure(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

Scanner::Scanner(const klto_tables &Tables) : Tables(Tables) {}

StringRef Scanner::save(StringRef S) {
  char *P = Alloc.Allocate<char>(S.size() + 1);
  if (!S.empty())
    std::memcpy(P, S.data(), S.size());
  P[S.size()] = '\0';
  return StringRef(P, S.size());
}

Scanner::~Scanner() = default;

unsigned Scanner::addOrigin(StringRef Label) {
  Origins.push_back(save(Label).data());
  return Origins.size() - 1;
}

std::optional<klto_entry> Scanner::tableEntry(StringRef Section) {
  if (!klto_may_be_table(&Tables, toKStr(Section)))
    return std::nullopt;
  klto_entry E{};
  // Parsed here, on the scanning threads; the parts point into the copy.
  E.section = toKStr(save(Section));
  if (klto_parse_entry(&Tables, &E) == KLTO_NOT_A_TABLE)
    return std::nullopt;
  return E;
}

void Scanner::addEntry(klto_entry E, StringRef Symbol, bool Unique,
                       const Unit &U, unsigned Seq) {
  E.symbol = toKStr(Symbol.empty() ? StringRef() : save(Symbol));
  E.symbol_unique = Unique;
  E.input = U.Input;
  E.member = U.Member;
  E.seq = Seq;
  E.origin = U.Origin;
  E.lazy = U.Lazy;
  // In the arena, not in a growing array: copies of a growing array would
  // be most of the memory the scan touches, and fresh pages are not cheap.
  Entries.push_back(new (Alloc.Allocate<klto_entry>()) klto_entry(E));
}

/// The symbol that names an entry best: the one the naming scheme gives it
/// (Linux's and klto's), else the first.
static bool betterEntrySymbol(StringRef Candidate) {
  return klto_is_entry_symbol(toKStr(Candidate));
}

void Scanner::merge(std::unique_ptr<Scanner> PartPtr) {
  Scanner &Part = *PartPtr;
  unsigned Base = Origins.size();
  Origins.insert(Origins.end(), Part.Origins.begin(), Part.Origins.end());
  for (klto_entry *E : Part.Entries) {
    E->origin += Base;
    Entries.push_back(E);
  }
  SawEagerBitcode |= Part.SawEagerBitcode;
  ThinMembers.insert(ThinMembers.end(), Part.ThinMembers.begin(),
                     Part.ThinMembers.end());
  DeferredMembers.insert(DeferredMembers.end(),
                         std::make_move_iterator(Part.DeferredMembers.begin()),
                         std::make_move_iterator(Part.DeferredMembers.end()));
  FilesScanned += Part.FilesScanned;
  MembersScanned += Part.MembersScanned;
  // The part's arena holds the entries and their strings.
  Parts.push_back(std::move(PartPtr));
}

/// How many parts `N` files or members are scanned in: a few runs of
/// consecutive ones, one scanner each, merged in order. A scanner per file
/// cost an allocator slab per file, which grew and shrank the threads'
/// malloc arenas a page at a time.
static size_t partsFor(size_t N) {
  size_t Threads = llvm::parallel::strategy.compute_thread_count();
  return std::min<size_t>(N, 4 * std::max<size_t>(Threads, 1));
}

void Scanner::scanInParts(size_t N, bool DeferThin,
                          llvm::function_ref<Error(Scanner &, size_t)> Scan,
                          std::vector<std::string> &Errors) {
  std::vector<std::unique_ptr<Scanner>> Parts(partsFor(N));
  llvm::parallelFor(0, Parts.size(), [&](size_t R) {
    Parts[R] = std::make_unique<Scanner>(Tables);
    Parts[R]->WantSymbols = WantSymbols;
    Parts[R]->DeferThinMembers = DeferThin;
    for (size_t I = N * R / Parts.size(), E = N * (R + 1) / Parts.size();
         I < E; ++I)
      if (Error Err = Scan(*Parts[R], I))
        Errors[I] = llvm::toString(std::move(Err));
  });
  size_t Total = Entries.size();
  for (const std::unique_ptr<Scanner> &P : Parts)
    Total += P->Entries.size();
  Entries.reserve(Total);
  for (std::unique_ptr<Scanner> &P : Parts)
    merge(std::move(P));
}

std::vector<std::string>
Scanner::scanFiles(llvm::ArrayRef<std::pair<std::string, bool>> Files) {
  std::vector<std::string> Errors(Files.size());
  scanInParts(
      Files.size(), /*DeferThin=*/true,
      [&](Scanner &Part, size_t I) {
        return Files[I].first.empty()
                   ? Error::success()
                   : Part.scanFile(Files[I].first, I, Files[I].second);
      },
      Errors);
  scanDeferredMembers(Errors);
  std::vector<std::string> Failed;
  for (std::string &E : Errors)
    if (!E.empty())
      Failed.push_back(std::move(E));
  return Failed;
}

namespace {
/// A buffer a scanning thread reuses for file after file: it grows, never
/// shrinks, and is never filled with zeros first.
class ReadBuffer {
public:
  /// Room for `Size` bytes, the first `Keep` of them kept.
  char *reserve(size_t Size, size_t Keep) {
    if (Size > Capacity) {
      std::unique_ptr<char[]> Grown(new char[Size]);
      if (Keep)
        std::memcpy(Grown.get(), Bytes.get(), Keep);
      Bytes = std::move(Grown);
      Capacity = Size;
    }
    return Bytes.get();
  }

private:
  std::unique_ptr<char[]> Bytes;
  size_t Capacity = 0;
};

/// An input's bytes, read into a buffer each scanning thread reuses (small
/// objects, the usual input) or mapped (archives, large objects). Reading
/// through llvm::MemoryBuffer cost a buffer allocation per file and two
/// sigprocmask calls around every close(): with 2,000 objects, more system
/// time than the reads themselves.
class InputBytes {
public:
  /// Whose buffer a read fills: a file named on the command line, or a
  /// thin-archive member, read while its archive's bytes are still in use.
  enum class Kind { Input, ThinMember };
  explicit InputBytes(Kind K) : K(K) {}
  ~InputBytes() {
    if (Map)
      ::munmap(Map, Data.size());
  }

  std::error_code read(StringRef Path) {
    thread_local ReadBuffer Buffers[2];
    llvm::SmallString<256> Z(Path);
    int FD = ::open(Z.c_str(), O_RDONLY | O_CLOEXEC);
    if (FD < 0)
      return lastError();
    std::error_code EC = readOpen(FD, Buffers[static_cast<int>(K)]);
    ::close(FD);
    return EC;
  }

  StringRef bytes() const { return Data; }

private:
  static constexpr size_t FirstRead = 64 << 10;
  static constexpr off_t MapThreshold = 1 << 20;

  static std::error_code lastError() {
    return std::error_code(errno, std::generic_category());
  }

  /// Reads [Done, Size) of the file into `To`; an EOF before `Size` is an
  /// I/O error.
  static std::error_code readRange(int FD, char *To, size_t Done, size_t Size) {
    while (Done < Size) {
      ssize_t N = ::pread(FD, To + Done, Size - Done, static_cast<off_t>(Done));
      if (N < 0 && errno == EINTR)
        continue;
      if (N <= 0)
        return N < 0 ? lastError() : std::make_error_code(std::errc::io_error);
      Done += N;
    }
    return std::error_code();
  }

  /// Most objects fit the first read, whose short count is the end of the
  /// file: no fstat() for them. Larger files are sized, then mapped or read.
  std::error_code readOpen(int FD, ReadBuffer &Buffer) {
    char *First = Buffer.reserve(FirstRead, 0);
    ssize_t N;
    do
      N = ::pread(FD, First, FirstRead, 0);
    while (N < 0 && errno == EINTR);
    if (N < 0)
      return lastError();
    if (static_cast<size_t>(N) < FirstRead) {
      Data = StringRef(First, N);
      return std::error_code();
    }
    struct stat St;
    if (::fstat(FD, &St) != 0)
      return lastError();
    if (!S_ISREG(St.st_mode))
      return std::make_error_code(std::errc::not_supported);
    if (St.st_size > MapThreshold) {
      void *P = ::mmap(nullptr, St.st_size, PROT_READ, MAP_PRIVATE, FD, 0);
      if (P == MAP_FAILED)
        return lastError();
      Map = P;
      Data = StringRef(static_cast<char *>(P), St.st_size);
      return std::error_code();
    }
    size_t Size = St.st_size;
    char *All = Buffer.reserve(Size, FirstRead);
    if (std::error_code EC = readRange(FD, All, FirstRead, Size))
      return EC;
    Data = StringRef(All, Size);
    return std::error_code();
  }

  Kind K;
  void *Map = nullptr;
  StringRef Data;
};
} // namespace

Error Scanner::scanFile(StringRef Path, unsigned Input, bool WholeArchive) {
  InputBytes In(InputBytes::Kind::Input);
  if (std::error_code EC = In.read(Path))
    return failure("cannot open " + Path + ": " + EC.message());
  ++FilesScanned;
  return scanBuffer(llvm::MemoryBufferRef(In.bytes(), Path), Input,
                    WholeArchive);
}

Error Scanner::scanBuffer(llvm::MemoryBufferRef Buf, unsigned Input,
                          bool WholeArchive) {
  llvm::file_magic Magic = llvm::identify_magic(Buf.getBuffer());
  if (Magic == llvm::file_magic::archive)
    return scanArchive(Buf, Input, WholeArchive);
  Unit U{Input, 0, 0, false};
  if (Magic != llvm::file_magic::bitcode &&
      !Buf.getBuffer().starts_with("\177ELF"))
    return Error::success(); // a linker script, or LLD's to reject
  U.Origin = addOrigin(Buf.getBufferIdentifier());
  return scanUnit(Buf, U);
}

Error Scanner::scanUnit(llvm::MemoryBufferRef Buf, const Unit &U) {
  if (llvm::identify_magic(Buf.getBuffer()) == llvm::file_magic::bitcode)
    return scanBitcode(Buf, U);
  if (Buf.getBuffer().starts_with("\x7f"
                                  "ELF"))
    return scanELF(Buf, U);
  return Error::success();
}

Error Scanner::scanArchive(llvm::MemoryBufferRef Buf, unsigned Input,
                           bool WholeArchive) {
  auto ArOrErr = llvm::object::Archive::create(Buf);
  if (!ArOrErr)
    return failure(Buf.getBufferIdentifier() +
                   ": bad archive: " + llvm::toString(ArOrErr.takeError()));
  llvm::object::Archive &Ar = **ArOrErr;
  Error Err = Error::success();
  unsigned Member = 0;
  for (const llvm::object::Archive::Child &C : Ar.children(Err)) {
    ++Member;
    ++MembersScanned;
    // A thin member's name is a path of its own, relative to the archive.
    auto NameOrErr = Ar.isThin() ? C.getFullName()
                                 : llvm::Expected<std::string>(C.getName());
    if (!NameOrErr) {
      llvm::consumeError(std::move(Err));
      return failure(Buf.getBufferIdentifier() + ": bad archive member " +
                     llvm::Twine(Member) + ": " +
                     llvm::toString(NameOrErr.takeError()));
    }
    std::string Label =
        (Buf.getBufferIdentifier() + "(" + *NameOrErr + ")").str();
    if (Ar.isThin())
      ThinMembers.push_back(*NameOrErr);
    Error E = Ar.isThin()
                  ? addThinMember({*NameOrErr, std::move(Label), Input, Member,
                                   !WholeArchive})
                  : scanArchivedMember(C.getBuffer(), Buf, *NameOrErr, Label,
                                       Input, Member, !WholeArchive);
    if (E) {
      llvm::consumeError(std::move(Err));
      return E;
    }
  }
  if (Err)
    return failure(Buf.getBufferIdentifier() +
                   ": bad archive: " + llvm::toString(std::move(Err)));
  return Error::success();
}

Error Scanner::scanArchivedMember(llvm::Expected<StringRef> Data,
                                  llvm::MemoryBufferRef Archive, StringRef Name,
                                  StringRef Label, unsigned Input,
                                  unsigned Member, bool Lazy) {
  if (!Data)
    return failure(Label + ": cannot read archive member: " +
                   llvm::toString(Data.takeError()));
  // LLVM checks a member's size against the archive only when it steps
  // to the next member (the fuzzer found this): check before reading.
  const char *ArEnd = Archive.getBufferEnd();
  if (Data->data() > ArEnd ||
      Data->size() > static_cast<size_t>(ArEnd - Data->data()))
    return failure(Archive.getBufferIdentifier() + ": bad archive: member " +
                   Name + " extends past the end of the archive");
  return scanMember(*Data, Label, Input, Member, Lazy);
}

Error Scanner::addThinMember(ThinMember M) {
  if (!DeferThinMembers)
    return scanThinMember(M);
  DeferredMembers.push_back(std::move(M));
  return Error::success();
}

Error Scanner::scanThinMember(const ThinMember &M) {
  // Read as a file of its own: LLVM's Archive would map each member and
  // keep every mapping until the archive is closed.
  InputBytes In(InputBytes::Kind::ThinMember);
  if (std::error_code EC = In.read(M.Path))
    return failure(M.Label + ": cannot read archive member: " + EC.message());
  return scanMember(In.bytes(), M.Label, M.Input, M.Member, M.Lazy);
}

Error Scanner::scanMember(StringRef Data, StringRef Label, unsigned Input,
                          unsigned Member, bool Lazy) {
  if (llvm::identify_magic(Data) != llvm::file_magic::bitcode &&
      !Data.starts_with("\x7f"
                        "ELF"))
    return Error::success();
  Unit U{Input, Member, addOrigin(Label), Lazy};
  return scanUnit(llvm::MemoryBufferRef(Data, Origins[U.Origin]), U);
}

void Scanner::scanDeferredMembers(std::vector<std::string> &Errors) {
  if (DeferredMembers.empty())
    return;
  std::vector<ThinMember> Members = std::move(DeferredMembers);
  DeferredMembers.clear();
  std::vector<std::string> MemberErrors(Members.size());
  scanInParts(
      Members.size(), /*DeferThin=*/false,
      [&](Scanner &Part, size_t I) { return Part.scanThinMember(Members[I]); },
      MemberErrors);
  // Back into file order, which the scanner reports entries in: the
  // members' entries came after those of every other file.
  std::sort(Entries.begin(), Entries.end(),
            [](const klto_entry *A, const klto_entry *B) {
              return std::tie(A->input, A->member, A->seq) <
                     std::tie(B->input, B->member, B->seq);
            });
  for (size_t I = 0; I < Members.size(); ++I)
    if (!MemberErrors[I].empty() && Errors[Members[I].Input].empty())
      Errors[Members[I].Input] = std::move(MemberErrors[I]);
}

Error Scanner::scanELF(llvm::MemoryBufferRef Buf, const Unit &U) {
  StringRef B = Buf.getBuffer();
  if (B.size() < 6)
    return failure(Buf.getBufferIdentifier() + ": truncated ELF header");
  bool Is64 = B[4] == 2, BE = B[5] == 2;
  if ((B[4] != 1 && B[4] != 2) || (B[5] != 1 && B[5] != 2))
    return failure(Buf.getBufferIdentifier() +
                   ": corrupt ELF file: unknown class or byte order");
  using namespace llvm::object;
  if (Is64)
    return BE ? scanELFT<ELF64BE>(Buf, U) : scanELFT<ELF64LE>(Buf, U);
  return BE ? scanELFT<ELF32BE>(Buf, U) : scanELFT<ELF32LE>(Buf, U);
}

template <class ELFT>
Error Scanner::scanELFT(llvm::MemoryBufferRef Buf, const Unit &U) {
  StringRef Name = Buf.getBufferIdentifier();
  auto Corrupt = [&](Error E) {
    return failure(Name +
                   ": corrupt ELF file: " + llvm::toString(std::move(E)));
  };
  auto FileOrErr = llvm::object::ELFFile<ELFT>::create(Buf.getBuffer());
  if (!FileOrErr)
    return Corrupt(FileOrErr.takeError());
  const llvm::object::ELFFile<ELFT> &F = *FileOrErr;
  const auto &Hdr = F.getHeader();
  if (Hdr.e_type != llvm::ELF::ET_REL)
    return Error::success(); // shared objects hold no entries
  auto SectionsOrErr = F.sections();
  if (!SectionsOrErr)
    return Corrupt(SectionsOrErr.takeError());
  auto Sections = *SectionsOrErr;

  auto NamesOrErr = F.getSectionStringTable(Sections);
  if (!NamesOrErr)
    return Corrupt(NamesOrErr.takeError());
  StringRef SectionNames = *NamesOrErr;

  // Table sections in section order, with the symbol that names each best;
  // SlotOf maps a section index to its place there (or -1).
  struct Table {
    unsigned Index;
    klto_entry Entry;
    StringRef Symbol;
  };
  llvm::SmallVector<Table, 16> Found;
  std::vector<int> SlotOf(Sections.size(), -1);
  const typename ELFT::Shdr *SymTab = nullptr;
  for (unsigned I = 0; I < Sections.size(); ++I) {
    const auto &Sec = Sections[I];
    if (Sec.sh_type == llvm::ELF::SHT_SYMTAB) {
      SymTab = &Sec;
      continue;
    }
    // Tables are allocated; names of the rest (debug info,
    // relocations, string tables) need not be looked at.
    if (Sec.sh_type == llvm::ELF::SHT_NULL ||
        !(Sec.sh_flags & llvm::ELF::SHF_ALLOC))
      continue;
    if (Sec.sh_name >= SectionNames.size())
      return failure(Name + ": corrupt ELF file: section " + llvm::Twine(I) +
                     " has a name offset past the section name table");
    StringRef SecName(SectionNames.data() + Sec.sh_name);
    if (SecName.size() >= SectionNames.size() - Sec.sh_name)
      return failure(Name + ": corrupt ELF file: section " + llvm::Twine(I) +
                     " has an unterminated name");
    if (std::optional<klto_entry> E = tableEntry(SecName)) {
      SlotOf[I] = static_cast<int>(Found.size());
      Found.push_back({I, *E, StringRef()});
    }
  }
  if (Found.empty())
    return Error::success();
  if (!SymTab || !WantSymbols) {
    for (const Table &T : Found)
      addEntry(T.Entry, StringRef(), false, U, T.Index);
    return Error::success();
  }

  auto SymsOrErr = F.symbols(SymTab);
  if (!SymsOrErr)
    return Corrupt(SymsOrErr.takeError());
  auto StrTabOrErr = F.getStringTableForSymtab(*SymTab, Sections);
  if (!StrTabOrErr)
    return Corrupt(StrTabOrErr.takeError());
  // Names of the symbols in table sections, to tell which name one only.
  llvm::SmallVector<StringRef, 32> Names;
  for (const auto &Sym : *SymsOrErr) {
    unsigned Type = Sym.getType();
    if (Sym.st_shndx == llvm::ELF::SHN_UNDEF || Sym.st_shndx >= SlotOf.size() ||
        SlotOf[Sym.st_shndx] < 0 || Type == llvm::ELF::STT_SECTION ||
        Type == llvm::ELF::STT_FILE)
      continue;
    auto SymName = Sym.getName(*StrTabOrErr);
    if (!SymName)
      return Corrupt(SymName.takeError());
    if (SymName->empty())
      continue;
    Names.push_back(*SymName);
    StringRef &Best = Found[SlotOf[Sym.st_shndx]].Symbol;
    if (Best.empty() ||
        (betterEntrySymbol(*SymName) && !betterEntrySymbol(Best)))
      Best = *SymName;
  }
  std::sort(Names.begin(), Names.end()); // inlined compares: no qsort()
  auto UsedOnce = [&Names](StringRef Sym) {
    auto [First, Last] = std::equal_range(Names.begin(), Names.end(), Sym);
    return Last - First == 1;
  };
  for (const Table &T : Found)
    addEntry(T.Entry, T.Symbol, !T.Symbol.empty() && UsedOnce(T.Symbol), U,
             T.Index);
  return Error::success();
}

namespace {
/// What the scanner keeps of module asm: the sections statements switch
/// to (GNU as's state machine is klto/asmsections.h's; sections are
/// numbered here by name), the entry sections among them in order of
/// first appearance, and the first label in each.
struct AsmScan {
  AsmScan(const char *Text, Scanner *S) : Text(Text), S(S) {
    klto_sections_init(&Sections, 0, -1);
  }
  const char *Text;
  Scanner *S;
  klto_sections Sections;
  std::vector<std::string> Names{".text"};
  llvm::StringMap<long> Number{{".text", 0}};
  std::vector<std::pair<klto_entry, std::string>> Found;
  llvm::StringMap<unsigned> FoundIndex, LabelUses;

  long number(StringRef Name) {
    auto [It, New] = Number.try_emplace(Name, Names.size());
    if (New)
      Names.push_back(Name.str());
    return It->second;
  }
  const std::string *current() const {
    return Sections.cur >= 0 ? &Names[Sections.cur] : nullptr;
  }
};
} // namespace

static void asmLabel(void *Ctx, const klto_token *T) {
  AsmScan &A = *static_cast<AsmScan *>(Ctx);
  StringRef Label(A.Text + T->begin, T->end - T->begin);
  ++A.LabelUses[Label];
  if (const std::string *Cur = A.current()) {
    auto It = A.FoundIndex.find(*Cur);
    if (It != A.FoundIndex.end() && A.Found[It->second].second.empty())
      A.Found[It->second].second = Label.str();
  }
}

static void asmStatement(void *Ctx, const klto_asm_stmt *St) {
  AsmScan &A = *static_cast<AsmScan *>(Ctx);
  size_t I = klto_asm_labels(A.Text, St, asmLabel, &A);
  if (I >= St->n || St->toks[I].kind != KLTO_TOK_IDENT)
    return;
  const klto_token &Head = St->toks[I];
  enum klto_section_directive D =
      klto_section_directive({A.Text + Head.begin, Head.end - Head.begin});
  if (D == KLTO_SECT_NONE)
    return;
  klto_str Name;
  size_t First, Last;
  bool Quoted;
  long Named =
      klto_section_name(A.Text, St, I + 1, D, &Name, &First, &Last, &Quoted)
          ? A.number(StringRef(Name.p, Name.n))
          : -1;
  klto_sections_apply(&A.Sections, D, Named);
  const std::string *Cur = A.current();
  if (!Cur || A.FoundIndex.count(*Cur))
    return;
  if (std::optional<klto_entry> E = A.S->tableEntry(*Cur)) {
    A.FoundIndex[*Cur] = A.Found.size();
    A.Found.push_back({*E, std::string()});
  }
}

void Scanner::scanModuleAsm(StringRef Asm, StringRef Triple, const Unit &U,
                            unsigned &Seq) {
  // Most module asm (exports, static keys, alternatives) names no table.
  if (!klto_may_name_table(&Tables, toKStr(Asm)))
    return;
  AsmScan A(Asm.data(), this);
  // Out of memory means only that some statements went unread.
  klto_asm_statements(Asm.data(), Asm.size(),
                      klto_asm_dialect_for_triple(Triple.str().c_str()),
                      asmStatement, &A);
  for (auto &[Entry, Label] : A.Found)
    addEntry(Entry, Label, A.LabelUses.lookup(Label) == 1, U, Seq++);
}

void Scanner::scanAsmText(StringRef Asm, StringRef Triple, unsigned Input) {
  Unit U{Input, 0, addOrigin("<module asm>"), false};
  unsigned Seq = 0;
  scanModuleAsm(Asm, Triple, U, Seq);
}

Error Scanner::scanBitcode(llvm::MemoryBufferRef Buf, const Unit &U) {
  SawEagerBitcode |= !U.Lazy;
  unsigned Seq = 0;
  Error Err = readBitcodeTables(Buf, [&](const BitcodeTables &M) {
    // The code generator emits module asm before any global.
    scanModuleAsm(M.Asm, M.Triple, U, Seq);
    for (const BitcodeTables::Global &G : M.Globals)
      if (std::optional<klto_entry> E = tableEntry(M.section(G.Section)))
        addEntry(*E, G.Name, !G.Name.empty(), U, Seq++);
  });
  if (Err)
    return failure(Buf.getBufferIdentifier() +
                   ": bad bitcode: " + llvm::toString(std::move(Err)));
  return Error::success();
}

} // namespace klto::ld
