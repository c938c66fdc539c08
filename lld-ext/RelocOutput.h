//===- RelocOutput.h - where a -r link's sorted output goes -----*- C++ -*-===//
//
// klto sorts the entry sections of a -r output after LLD has written it,
// so LLD writes to a file of klto's, and the sorted result then takes the
// output's place without changing what the output path names:
//  * a regular file, a path that does not exist yet, or a symlink to
//    either: the result is written next to the final file (the symlink's
//    target) and renamed over it, so the output is replaced atomically or
//    left as it was, and a symlink stays a symlink;
//  * "-" (stdout), a device or a FIFO: the result is written through the
//    path, as LLD itself writes to non-regular outputs. (klto once renamed
//    over /dev/null as root; every process then read garbage from it.)
//
//===----------------------------------------------------------------------===//
#ifndef KLTO_LD_RELOCOUTPUT_H
#define KLTO_LD_RELOCOUTPUT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace klto::ld {

class RelocOutput {
public:
  /// Plans the output `Output` (LLD's -o, OUTPUT() or a.out). None when
  /// LLD is to fail on the path itself (a directory).
  static std::optional<RelocOutput> plan(llvm::StringRef Output);

  /// Where LLD writes the unsorted object.
  const std::string &lldPath() const { return Temp; }
  const std::string &output() const { return Output; }

  /// Moves or copies the sorted object at lldPath() to the output.
  llvm::Error commit() const;
  /// Removes lldPath(), whatever happened.
  void discard() const;

private:
  std::string Output; // as the user named it
  std::string
      Target; // the file replaced, symlinks followed; "" to write through
  std::string Temp;
};

} // namespace klto::ld

#endif // KLTO_LD_RELOCOUTPUT_H
