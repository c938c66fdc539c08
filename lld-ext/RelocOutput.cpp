//===- RelocOutput.cpp - where a -r link's sorted output goes -------------===//
#include "RelocOutput.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <cstring>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace klto::ld {

static llvm::Error errnoError(const llvm::Twine &What) {
  int E = errno;
  return llvm::createStringError(std::error_code(E, std::generic_category()),
                                 What + ": " + std::strerror(E));
}

/// The file a symlink chain ends in, existing or not.
static std::string followLinks(llvm::StringRef Path) {
  std::string P = Path.str();
  for (int Hops = 0; Hops < 40; ++Hops) {
    struct stat St;
    if (::lstat(P.c_str(), &St) != 0 || !S_ISLNK(St.st_mode))
      return P;
    char Buf[4096];
    ssize_t N = ::readlink(P.c_str(), Buf, sizeof(Buf) - 1);
    if (N < 0)
      return P;
    llvm::StringRef To(Buf, N);
    llvm::SmallString<256> Next;
    if (llvm::sys::path::is_absolute(To))
      Next = To;
    else {
      Next = llvm::sys::path::parent_path(P);
      llvm::sys::path::append(Next, To);
    }
    P = std::string(Next);
  }
  return P;
}

std::optional<RelocOutput> RelocOutput::plan(llvm::StringRef Output) {
  RelocOutput R;
  R.Output = Output.str();
  struct stat St;
  bool Through = Output == "-";
  if (!Through) {
    R.Target = followLinks(Output);
    if (::stat(R.Target.c_str(), &St) == 0) {
      if (S_ISDIR(St.st_mode))
        return std::nullopt;
      Through = !S_ISREG(St.st_mode);
    }
  }
  llvm::SmallString<256> Temp;
  if (Through) {
    R.Target.clear();
    llvm::sys::fs::createUniquePath(
        llvm::sys::path::filename(Output) + ".klto-%%%%%%", Temp, false);
    llvm::SmallString<256> Dir;
    llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Dir);
    llvm::sys::path::append(Dir, Temp);
    Temp = Dir;
  } else {
    // Beside the file it replaces: rename() is atomic only there.
    llvm::sys::fs::createUniquePath(R.Target + ".klto-%%%%%%", Temp, false);
  }
  R.Temp = std::string(Temp);
  return R;
}

/// Writes `Data` to the output path itself, as LLD writes non-regular
/// outputs.
static llvm::Error writeThrough(llvm::StringRef Output, llvm::StringRef Data) {
  int FD = Output == "-"
               ? STDOUT_FILENO
               : ::open(Output.str().c_str(),
                        O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (FD < 0)
    return errnoError("cannot open " + Output);
  for (size_t Done = 0; Done < Data.size();) {
    ssize_t N = ::write(FD, Data.data() + Done, Data.size() - Done);
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0) {
      llvm::Error E = errnoError("cannot write " + Output);
      if (FD != STDOUT_FILENO)
        ::close(FD);
      return E;
    }
    Done += N;
  }
  if (FD != STDOUT_FILENO && ::close(FD) != 0)
    return errnoError("cannot write " + Output);
  return llvm::Error::success();
}

llvm::Error RelocOutput::commit() const {
  if (Target.empty()) {
    auto Buf = llvm::MemoryBuffer::getFile(Temp, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
    if (!Buf)
      return llvm::createStringError(Buf.getError(),
                                     "cannot read " + Temp + ": " +
                                         Buf.getError().message());
    llvm::Error E = writeThrough(Output, (*Buf)->getBuffer());
    discard();
    return E;
  }
  // The old file's blocks are freed when its last descriptor closes: a
  // descriptor held across the rename moves that work, which grows with
  // the file, to a thread, as LLD's unlinkAsync does.
  int Old = ::open(Target.c_str(), O_RDONLY | O_CLOEXEC);
  if (::rename(Temp.c_str(), Target.c_str()) != 0) {
    llvm::Error E = errnoError("cannot move " + Temp + " to " + Target);
    if (Old >= 0)
      ::close(Old);
    discard();
    return E;
  }
  if (Old >= 0)
    std::thread([Old] { ::close(Old); }).detach();
  return llvm::Error::success();
}

void RelocOutput::discard() const { ::unlink(Temp.c_str()); }

} // namespace klto::ld
