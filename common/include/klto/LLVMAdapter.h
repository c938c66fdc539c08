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

#include <string>
#include <vector>

namespace klto {

inline klto_str toKStr(llvm::StringRef S) { return {S.data(), S.size()}; }
inline llvm::StringRef fromKStr(klto_str S) { return {S.p, S.n}; }

/// A project's extra tables as libkltocore takes them. The names stay the
/// caller's and must outlive the list.
class TableList {
public:
  explicit TableList(llvm::ArrayRef<std::string> Names) {
    for (const std::string &N : Names)
      Ptrs.push_back(N.c_str());
    Tables = {Ptrs.data(), Ptrs.size()};
  }
  TableList(const TableList &) = delete;
  TableList &operator=(const TableList &) = delete;

  const klto_tables &get() const { return Tables; }

private:
  std::vector<const char *> Ptrs;
  klto_tables Tables;
};

} // namespace klto

#endif // KLTO_LLVMADAPTER_H
