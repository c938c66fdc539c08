//===- TempFiles.cpp - the files klto hands LLD, removed after the link ---===//
#include "TempFiles.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstring>
#include <vector>

namespace klto::ld {

TempFiles::~TempFiles() {
  if (KeepBeside.empty())
    for (const std::string &P : Paths)
      llvm::sys::fs::remove(P);
}

llvm::Error writeFile(llvm::StringRef Path,
                      llvm::function_ref<void(FILE *)> Write) {
  bool Stdout = Path == "-";
  FILE *F = Stdout ? stdout : std::fopen(Path.str().c_str(), "w");
  auto Fail = [&] {
    return llvm::createStringError(
        std::error_code(errno, std::generic_category()),
        "cannot write " + Path + ": " + std::strerror(errno));
  };
  if (!F)
    return Fail();
  // Ordering files have a line per entry, tens of thousands in a kernel:
  // a few writes, not one per 4 KiB. (glibc ignores the size unless it is
  // given the buffer too.)
  std::vector<char> Buf(Stdout ? 0 : 1 << 20);
  if (!Stdout)
    std::setvbuf(F, Buf.data(), _IOFBF, Buf.size());
  Write(F);
  bool Failed = std::ferror(F);
  Failed |= Stdout ? std::fflush(F) != 0 : std::fclose(F) != 0;
  return Failed ? Fail() : llvm::Error::success();
}

llvm::Expected<std::string>
TempFiles::write(llvm::StringRef Suffix,
                 llvm::function_ref<void(FILE *)> Write) {
  llvm::SmallString<128> P;
  if (!KeepBeside.empty())
    P = (KeepBeside + ".klto" + llvm::Twine(Paths.size()) + "." + Suffix).str();
  else if (std::error_code EC =
               llvm::sys::fs::createTemporaryFile("klto-ld", Suffix, P))
    return llvm::createStringError(EC, "cannot create a temporary file: " +
                                           EC.message());
  Paths.push_back(std::string(P));
  if (llvm::Error E = writeFile(P, Write))
    return std::move(E);
  if (Verbose)
    llvm::errs() << "klto: wrote " << P
                 << (!KeepBeside.empty()
                         ? " (kept: --save-temps)\n"
                         : " (removed after the link; --save-temps keeps "
                           "it)\n");
  return Paths.back();
}

} // namespace klto::ld
