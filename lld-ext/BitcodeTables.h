//===- BitcodeTables.h - what the scanner reads of bitcode ------*- C++ -*-===//
//
// The scanner needs three things of each module in a bitcode file: its
// target triple, its module asm and the global variable definitions that
// have a section, in the module's order. LLVM's reader gets them only by
// building the module, types, constants and all, which is most of the cost
// of ordering a kernel's initcalls. These are read here straight from the
// bitstream instead, skipping every block but the module's own records.
//
//===----------------------------------------------------------------------===//
#ifndef KLTO_LD_BITCODETABLES_H
#define KLTO_LD_BITCODETABLES_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <vector>

namespace klto::ld {

/// One module of a bitcode file, as far as the scanner reads it. Each
/// scanning thread reuses its modules' storage from file to file.
struct BitcodeTables {
  llvm::SmallString<64> Triple;
  llvm::SmallString<0> Asm;
  /// The section names global variables refer to, end to end.
  llvm::SmallString<0> SectionText;
  std::vector<size_t> SectionEnds;
  /// A global variable definition with a section: its name (in the file's
  /// string table; empty for an unnamed one) and its section's index.
  struct Global {
    llvm::StringRef Name;
    unsigned Section;
  };
  std::vector<Global> Globals;

  size_t numSections() const { return SectionEnds.size(); }
  llvm::StringRef section(unsigned I) const {
    size_t Begin = I ? SectionEnds[I - 1] : 0;
    return llvm::StringRef(SectionText).slice(Begin, SectionEnds[I]);
  }
  void clear() {
    Triple.clear();
    Asm.clear();
    SectionText.clear();
    SectionEnds.clear();
    Globals.clear();
  }
};

/// Calls `F` with each module of the bitcode file `Buf`, in file order,
/// once the whole file is read. An error names what is malformed, or a
/// global variable with a section in bitcode older than LLVM 5.0, whose
/// name this reader cannot find.
llvm::Error
readBitcodeTables(llvm::MemoryBufferRef Buf,
                  llvm::function_ref<void(const BitcodeTables &)> F);

} // namespace klto::ld

#endif // KLTO_LD_BITCODETABLES_H
