//===- klto/LLVMAdapter.h - libkltocore's C types for LLVM code -*- C++ -*-===//
//
// The plugin and the linker are C++ over LLVM; libkltocore is C. The
// conversions both halves need live here, once. Header-only, so
// libkltocore itself stays free of LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef KLTO_LLVMADAPTER_H
#define KLTO_LLVMADAPTER_H

#include "klto/naming.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Module.h"

#include <string>
#include <vector>

namespace klto {

inline klto_str toKStr(llvm::StringRef S) { return {S.data(), S.size()}; }
inline llvm::StringRef fromKStr(klto_str S) { return {S.p, S.n}; }

/// A module's target triple as written in it, which both halves hand to
/// the asm lexer: a std::string up to LLVM 20, an llvm::Triple (whose str()
/// is that string) from 21 on.
inline const std::string &targetTriple(const llvm::Module &M) {
#if LLVM_VERSION_MAJOR >= 21
  return M.getTargetTriple().str();
#else
  return M.getTargetTriple();
#endif
}

/// A project's extra tables as libkltocore takes them. The names stay the
/// caller's and must outlive the list.
class TableList {
public:
  explicit TableList(llvm::ArrayRef<std::string> Names) { assign(Names); }
  /// In place, so that holders of get() see the new names.
  void assign(llvm::ArrayRef<std::string> Names) {
    Ptrs.clear();
    for (const std::string &N : Names)
      Ptrs.push_back(N.c_str());
    Tables = {Ptrs.data(), Ptrs.size()};
  }

  /// Reads a table option's value (klto_read_table_specs) into `Specs`;
  /// returns the error, or an empty string.
  static std::string read(llvm::StringRef Value,
                          std::vector<std::string> &Specs) {
    char Err[256];
    if (klto_read_table_specs(toKStr(Value), addSpec, &Specs, Err, sizeof(Err)))
      return "";
    return Err;
  }
  TableList(const TableList &) = delete;
  TableList &operator=(const TableList &) = delete;

  const klto_tables &get() const { return Tables; }

private:
  static void addSpec(void *Specs, klto_str Spec) {
    static_cast<std::vector<std::string> *>(Specs)->emplace_back(Spec.p,
                                                                 Spec.n);
  }

  std::vector<const char *> Ptrs;
  klto_tables Tables;
};

} // namespace klto

#endif // KLTO_LLVMADAPTER_H
