//===- AsmSymbols.h - symbols function-level asm defines, names -*- C++ -*-===//
//
// Reads a module's asm with the target's own assembler (LLVM MC), as the
// backend will, so that registers, operands, relocation specifiers, numeric
// and .L labels are told from symbols exactly as the assembler tells them.
// The macros the module asm defines are read first, so they expand in the
// function-level asm after it, as they do in codegen.
//
//===----------------------------------------------------------------------===//
#ifndef KLTO_PLUGIN_ASMSYMBOLS_H
#define KLTO_PLUGIN_ASMSYMBOLS_H

#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class CallBase;
class Module;
} // namespace llvm

namespace klto {

class AsmSymbolReader {
public:
  /// Null if the module's target has no assembler parser here, or its
  /// operand syntax is not one AsmTemplate.h knows.
  static std::unique_ptr<AsmSymbolReader> create(llvm::Module &M);
  ~AsmSymbolReader();

  /// Reads one function-level asm statement. Returns the symbols it defines
  /// that a copy would define twice (labels, .comm), not temporaries; a
  /// symbol it .set is only no longer a reference.
  std::vector<std::string> read(const llvm::CallBase &Call);

  struct Reference {
    std::string Name;
    const llvm::CallBase *FirstUse; ///< the first statement naming it
    bool Weak;                      ///< the asm made it .weak
  };
  /// Every symbol the function-level asm read so far names and neither it
  /// nor the module asm defines, by name.
  std::vector<Reference> references() const;

  class Impl;

private:
  explicit AsmSymbolReader(std::unique_ptr<Impl> I);
  std::unique_ptr<Impl> P;
};

} // namespace klto

#endif // KLTO_PLUGIN_ASMSYMBOLS_H
