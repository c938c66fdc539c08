//===- TempFiles.h - klto's files for LLD, removed after it -----*- C++ -*-===//
//
// Scripts, ordering and symbol-list files are written in full before LLD
// runs, so a write error fails the link before it starts. LLD's
// --save-temps keeps them too, for people reading what klto handed LLD.
//
//===----------------------------------------------------------------------===//
#ifndef KLTO_LD_TEMPFILES_H
#define KLTO_LD_TEMPFILES_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdio>
#include <string>
#include <vector>

namespace klto::ld {

class TempFiles {
public:
  /// `KeepBeside`: the output, beside which the files are written and
  /// left after the link as "<output>.klto<N>.<suffix>" (--save-temps, as
  /// LLD's own); empty, the temporary directory and removed. `Verbose`:
  /// each file is named on stderr, with what becomes of it.
  TempFiles(std::string KeepBeside, bool Verbose)
      : KeepBeside(std::move(KeepBeside)), Verbose(Verbose) {}
  TempFiles(const TempFiles &) = delete;
  TempFiles &operator=(const TempFiles &) = delete;
  ~TempFiles();

  /// Creates "klto-ld-*.<Suffix>" in the temporary directory (or the kept
  /// file beside the output) and fills it
  /// through `Write` (a C stream, for the C writers); returns its path.
  llvm::Expected<std::string> write(llvm::StringRef Suffix,
                                    llvm::function_ref<void(FILE *)> Write);

private:
  std::vector<std::string> Paths;
  std::string KeepBeside;
  bool Verbose;
};

/// Writes `Path` ("-": stdout) through `Write`.
llvm::Error writeFile(llvm::StringRef Path,
                      llvm::function_ref<void(FILE *)> Write);

} // namespace klto::ld

#endif // KLTO_LD_TEMPFILES_H
