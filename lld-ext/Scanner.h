//===- Scanner.h - reads table sections out of the link inputs --*- C++ -*-===//
//
// Finds every table section (entries "<table>..<id>" and plain "<table>"
// sections) in relocatable ELF objects, LLVM bitcode and archives (thin
// ones included), in link order, with a symbol each entry defines. For
// bitcode that means the module's globals and its module asm: LTO's symbol
// table omits the static variables initcalls are.
//
//===----------------------------------------------------------------------===//
#ifndef KLTO_LD_SCANNER_H
#define KLTO_LD_SCANNER_H

#include "order.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace klto::ld {

class Scanner {
public:
  /// `Tables` names the extra tables.
  explicit Scanner(const klto_tables &Tables);
  ~Scanner();

  /// Scans files (path, whole-archive) in parallel, file I at link
  /// position I, then the members of thin archives, also in parallel; an
  /// empty path is skipped. Returns one message per file that could not be
  /// read; what could be read is kept either way.
  std::vector<std::string>
  scanFiles(llvm::ArrayRef<std::pair<std::string, bool>> Files);

  /// Scans the file at `Path`, which sits at position `Input` of the link.
  /// Members of an archive count as lazily loaded unless `WholeArchive`.
  /// Shared objects and linker scripts hold no entries and are skipped.
  llvm::Error scanFile(llvm::StringRef Path, unsigned Input, bool WholeArchive);

  /// Same for a buffer already in memory; `Name` is used in messages.
  llvm::Error scanBuffer(llvm::MemoryBufferRef Buf, unsigned Input,
                         bool WholeArchive);

  /// Reads the entry sections a module asm string switches to, as for a
  /// bitcode file at position `Input`.
  void scanAsmText(llvm::StringRef Asm, llvm::StringRef Triple, unsigned Input);

  /// Whether to find each entry's symbol: -r links order by section and
  /// skip ELF symbol tables altogether.
  bool WantSymbols = true;

  /// In link order; each lives in the arena of the scanner that found it.
  std::vector<klto_entry *> Entries;
  /// Stable C strings the entries' `origin` indexes into.
  std::vector<const char *> Origins;
  /// Whether a bitcode file that is not an archive member LLD may leave
  /// out was seen: LTO will run.
  bool SawEagerBitcode = false;
  /// Paths of thin-archive members, which have files of their own.
  std::vector<std::string> ThinMembers;
  unsigned FilesScanned = 0, MembersScanned = 0;

private:
  struct Unit;
  /// A thin-archive member scanFiles reads later, in parallel with the
  /// others: its archive's members would otherwise be read one after the
  /// other by the thread that reads the archive.
  struct ThinMember {
    std::string Path, Label;
    unsigned Input, Member;
    bool Lazy;
  };
  /// Whether scanArchive leaves thin members in DeferredMembers.
  bool DeferThinMembers = false;
  std::vector<ThinMember> DeferredMembers;

  /// Takes over what another scanner found, after what this one has.
  void merge(std::unique_ptr<Scanner> Part);
  /// Calls `Scan(Part, I)` for each I below `N` in parallel, consecutive
  /// ones on the same part scanner (deferring thin members if `DeferThin`),
  /// then takes the parts over in order; Errors[I] gets what Scan(..., I)
  /// failed with.
  void scanInParts(size_t N, bool DeferThin,
                   llvm::function_ref<llvm::Error(Scanner &, size_t)> Scan,
                   std::vector<std::string> &Errors);
  /// Scans the deferred thin members in parallel, a run of them per
  /// scanner, and takes over what they hold; a member that cannot be read
  /// sets its file's message in `Errors` (indexed by input), if none yet.
  void scanDeferredMembers(std::vector<std::string> &Errors);
  /// Scans `M`, or leaves it in DeferredMembers.
  llvm::Error addThinMember(ThinMember M);
  llvm::Error scanThinMember(const ThinMember &M);
  /// A member stored in the archive `Archive`; `Data` is its bytes.
  llvm::Error scanArchivedMember(llvm::Expected<llvm::StringRef> Data,
                                 llvm::MemoryBufferRef Archive,
                                 llvm::StringRef Name, llvm::StringRef Label,
                                 unsigned Input, unsigned Member, bool Lazy);
  /// The member `Data` of an archive, named `Label` in messages.
  llvm::Error scanMember(llvm::StringRef Data, llvm::StringRef Label,
                         unsigned Input, unsigned Member, bool Lazy);
  llvm::Error scanUnit(llvm::MemoryBufferRef Buf, const Unit &U);
  llvm::Error scanArchive(llvm::MemoryBufferRef Buf, unsigned Input,
                          bool WholeArchive);
  llvm::Error scanELF(llvm::MemoryBufferRef Buf, const Unit &U);
  template <class ELFT>
  llvm::Error scanELFT(llvm::MemoryBufferRef Buf, const Unit &U);
  llvm::Error scanBitcode(llvm::MemoryBufferRef Buf, const Unit &U);
  void scanModuleAsm(llvm::StringRef Asm, llvm::StringRef Triple, const Unit &U,
                     unsigned &Seq);

public:
  /// The entry a table section's name describes, parsed, its name saved;
  /// none for other sections.
  std::optional<klto_entry> tableEntry(llvm::StringRef Section);

private:
  void addEntry(klto_entry E, llvm::StringRef Symbol, bool Unique, const Unit &U,
                unsigned Seq);
  unsigned addOrigin(llvm::StringRef Label);

  const klto_tables &Tables;
  /// A copy of `S`, NUL-terminated, in the arena.
  llvm::StringRef save(llvm::StringRef S);

  /// Holds the entries and their names. Slabs of 1 MiB, which malloc maps
  /// on their own: the default 4 KiB ones grew the scanning threads' malloc
  /// arenas a page, and an mprotect() call, at a time.
  llvm::BumpPtrAllocatorImpl<llvm::MallocAllocator, 1 << 20> Alloc;
  std::vector<std::unique_ptr<Scanner>> Parts;
};

} // namespace klto::ld

#endif // KLTO_LD_SCANNER_H
